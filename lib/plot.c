/* plot.c: the panel data of kp-plot, collected from a profile folder's artifacts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_fmt.h"
#include "kp_hotspots.h"
#include "kp_jsonl.h"
#include "kp_number.h"
#include "kp_plot.h"
#include "kp_specs.h"
#include "kp_summary.h"
#include "profile.h"

static const struct {
	const char *name, *title;
} panels[KP_PANEL_N] = {
	{ "speed_of_light", "GPU speed of light (% of peak)" },
	{ "occupancy", "Occupancy (% of max warps per SM)" },
	{ "roofline", "Roofline (DRAM)" },
	{ "stalls", "Warp stall reasons (warps stalled per issued instruction)" },
	{ "hotspots", "Source hotspots (share of warp stall samples)" },
	{ "comparison", "Before / after" },
};

static void
empty(struct kp_plot_panel *pn, const char *fmt, const char *arg)
{
	pn->filled = 0;
	pn->n = 0;
	snprintf(pn->reason, sizeof pn->reason, fmt, arg ? arg : "");
}

static int
value(json_t *kernel, const char *key, double *out)
{
	return kp_summary_value(kernel, key, out) == 0 && isfinite(*out) ? 0 : -1;
}

static char *
path2(const char *dir, const char *rel)
{
	return kp_path_join(dir, rel);
}

/* An optional JSON artifact: NULL and *bad = 0 when absent. */
static json_t *
load_optional(const char *dir, const char *rel, int *bad, struct kp_err *err)
{
	char *p = path2(dir, rel);
	json_t *j = NULL;

	*bad = 0;
	if (p != NULL && kp_is_file(p) && (j = kp_json_load_file(p, err)) == NULL)
		*bad = 1;
	free(p);
	return j;
}

/* ---- title ---- */

static void
title(struct kp_plot *p, json_t *kernel, json_t *decision)
{
	const char *fn = json_string_value(json_object_get(kernel, "function"));
	const char *dev = json_string_value(json_object_get(kernel, "device"));
	const char *cls = json_string_value(json_object_get(decision, "primary"));
	char dur[48] = "duration n/a", sev[64] = "";
	double d;
	json_t *f;
	size_t i;

	if (fn == NULL)
		fn = json_string_value(json_object_get(kernel, "name"));
	if (value(kernel, "duration_ns", &d) == 0)
		kp_fmt_unit(dur, sizeof dur, d, "ns");
	json_array_foreach(json_object_get(decision, "findings"), i, f) {
		const char *c = json_string_value(json_object_get(f, "class"));
		const char *s = json_string_value(json_object_get(f, "severity"));

		if (cls != NULL && c != NULL && s != NULL && strcmp(c, cls) == 0) {
			snprintf(sev, sizeof sev, " (%s)", s);
			break;
		}
	}
	snprintf(p->title, sizeof p->title, "%s  |  %s  |  %s  |  bottleneck: %s%s",
	    fn ? fn : "unknown kernel", dev ? dev : "unknown device", dur,
	    cls ? cls : decision ? "none found" : "not decided (run kp-decide)", sev);
}

/* ---- speed of light ---- */

static void
sol(struct kp_plot_panel *pn, json_t *kernel)
{
	static const struct {
		const char *key, *label;
	} bars[] = {
		{ "sm_throughput_pct", "SM" },
		{ "memory_throughput_pct", "Memory" },
		{ "dram_throughput_pct", "DRAM" },
		{ "l1tex_throughput_pct", "L1/TEX" },
		{ "l2_throughput_pct", "L2" },
	};
	size_t i, have = 0;
	double v;

	for (i = 0; i < sizeof bars / sizeof bars[0]; i++) {
		struct kp_plot_row *r = &pn->row[pn->n++];

		snprintf(r->label, sizeof r->label, "%s", bars[i].label);
		if (value(kernel, bars[i].key, &v) == 0) {
			r->v = v;
			snprintf(r->note, sizeof r->note, "%.1f %%", v);
			have++;
		} else {
			r->v = 0;
			snprintf(r->note, sizeof r->note, "n/a");
		}
	}
	if (have == 0)
		empty(pn, "no speed-of-light data: run kp-collect --stages speed-of-light", NULL);
	else
		pn->filled = 1;
}

/* ---- occupancy ---- */

static void
occupancy(struct kp_plot_panel *pn, json_t *kernel)
{
	static const struct {
		const char *metric, *label;
	} limits[] = {
		{ "launch__occupancy_limit_registers", "registers" },
		{ "launch__occupancy_limit_shared_mem", "shared memory" },
		{ "launch__occupancy_limit_warps", "warps" },
		{ "launch__occupancy_limit_blocks", "blocks" },
		{ "launch__occupancy_limit_barriers", "barriers" },
	};
	double th, ach, v, min = INFINITY;
	char who[160] = "", all[240] = "";
	size_t i, lo = 0, la = 0;
	int hth = value(kernel, "theoretical_occupancy_pct", &th) == 0;
	int hach = value(kernel, "achieved_occupancy_pct", &ach) == 0;

	if (!hth && !hach) {
		empty(pn, "no occupancy data: run kp-collect --stages occupancy", NULL);
		return;
	}
	pn->filled = 1;
	snprintf(pn->row[0].label, sizeof pn->row[0].label, "theoretical");
	pn->row[0].v = hth ? th : 0;
	snprintf(pn->row[0].note, sizeof pn->row[0].note, hth ? "%.1f %%" : "n/a", th);
	snprintf(pn->row[1].label, sizeof pn->row[1].label, "achieved");
	pn->row[1].v = hach ? ach : 0;
	snprintf(pn->row[1].note, sizeof pn->row[1].note, hach ? "%.1f %%" : "n/a", ach);
	pn->n = 2;
	for (i = 0; i < sizeof limits / sizeof limits[0]; i++)
		if (value(kernel, limits[i].metric, &v) == 0 && v < min)
			min = v;
	for (i = 0; i < sizeof limits / sizeof limits[0]; i++) {
		if (value(kernel, limits[i].metric, &v) != 0)
			continue;
		la += snprintf(all + la, la < sizeof all ? sizeof all - la : 0, "%s%s %.6g",
		    la ? ", " : "", limits[i].label, v);
		if (v == min)
			lo += snprintf(who + lo, lo < sizeof who ? sizeof who - lo : 0, "%s%s",
			    lo ? ", " : "", limits[i].label);
	}
	if (isfinite(min)) {
		snprintf(pn->remark, sizeof pn->remark, "limited by %s: %.6g block%s per SM",
		    who, min, min == 1 ? "" : "s");
		snprintf(pn->remark2, sizeof pn->remark2, "block limits per SM: %.200s", all);
	} else {
		snprintf(pn->remark, sizeof pn->remark,
		    "limiter unknown: no launch__occupancy_limit_* metrics");
	}
}

/* ---- warp stalls ---- */

static int
cmp_row_desc(const void *a, const void *b)
{
	const struct kp_plot_row *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return strcmp(x->label, y->label);
}

static void
stalls(struct kp_plot_panel *pn, json_t *kernel)
{
	json_t *st = json_object_get(json_object_get(kernel, "summary"), "stalls"), *v;
	struct kp_plot_row *all;
	const char *k;
	size_t n = 0, i;

	if (!json_is_object(st) || json_object_size(st) == 0) {
		empty(pn, "no warp-state data: run kp-collect --stages occupancy", NULL);
		return;
	}
	if ((all = calloc(json_object_size(st), sizeof *all)) == NULL) {
		empty(pn, "out of memory", NULL);
		return;
	}
	json_object_foreach(st, k, v) {
		/* "selected" is the issuing warp itself (1 per instruction), not a stall. */
		if (!json_is_number(v) || strcmp(k, "selected") == 0 || json_number_value(v) <= 0)
			continue;
		snprintf(all[n].label, sizeof all[n].label, "%s%s", k,
		    strcmp(k, "not_selected") == 0 ? " (eligible)" : "");
		all[n].v = json_number_value(v);
		snprintf(all[n].note, sizeof all[n].note, "%.2f", all[n].v);
		n++;
	}
	qsort(all, n, sizeof *all, cmp_row_desc);
	for (i = 0; i < n && i < KP_PLOT_ROWS; i++)
		pn->row[i] = all[i];
	pn->n = i;
	free(all);
	if (pn->n == 0)
		empty(pn, "no warp stalls recorded (every stall reason is 0)", NULL);
	else
		pn->filled = 1;
}

/* ---- roofline ---- */

/*
 * Achieved FLOP/s per precision, as ncu's roofline sections count them.  Per-cycle
 * terms are multiplied by smsp__cycles_elapsed.avg.per_second; per-second terms
 * are taken as they are.  Documented in kp-plot(1).
 */
#define SASS(op) "smsp__sass_thread_inst_executed_op_" op "_pred_on.sum.per_cycle_elapsed"
#define TENSOR(src) "sm__ops_path_tensor_src_" src ".sum.per_second"
static const struct flopdef {
	const char *label, *peak;
	int per_cycle;
	struct {
		const char *metric;
		double weight;
	} t[3];
} flopdefs[] = {
	{ "fp64", "peak_fp64_flops", 1, { { SASS("dadd"), 1 }, { SASS("dmul"), 1 }, { SASS("dfma"), 2 } } },
	{ "fp32", "peak_fp32_flops", 1, { { SASS("fadd"), 1 }, { SASS("fmul"), 1 }, { SASS("ffma"), 2 } } },
	{ "fp16", "peak_fp16_flops", 1, { { SASS("hadd"), 2 }, { SASS("hmul"), 2 }, { SASS("hfma"), 4 } } },
	{ "tensor fp16/bf16", "peak_tensor_fp16_flops", 0,
	    { { TENSOR("fp16"), 1 }, { TENSOR("bf16_dst_fp32"), 1 }, { NULL, 0 } } },
	{ "tensor tf32", "peak_tensor_tf32_flops", 0, { { TENSOR("tf32_dst_fp32"), 1 }, { NULL, 0 }, { NULL, 0 } } },
	{ "tensor fp8", "peak_tensor_fp8_flops", 0,
	    { { TENSOR("fp8_sparsity_off"), 1 }, { TENSOR("fp8_sparsity_on"), 1 }, { NULL, 0 } } },
};
/* Ceilings drawn even without a point of that precision. */
static const char *const always_ceiling[] = { "fp32", "fp16", "tensor fp16/bf16" };

static int
always(const char *label)
{
	size_t i;

	for (i = 0; i < sizeof always_ceiling / sizeof always_ceiling[0]; i++)
		if (strcmp(always_ceiling[i], label) == 0)
			return 1;
	return 0;
}

static double
spec_num(json_t *gpu, const char *key)
{
	json_t *v = json_object_get(gpu, key);

	return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v) : 0;
}

static void
roofline(struct kp_plot *p, json_t *kernel, json_t *specs)
{
	struct kp_plot_panel *pn = &p->panel[KP_PANEL_ROOFLINE];
	const char *dev = json_string_value(json_object_get(kernel, "device"));
	json_t *gpu = specs != NULL && dev != NULL ? kp_specs_find(specs, dev) : NULL;
	double hz = 0, bytes, dur, v, pts[sizeof flopdefs / sizeof flopdefs[0]];
	int have_hz = value(kernel, "smsp__cycles_elapsed.avg.per_second", &hz) == 0;
	int measured[sizeof flopdefs / sizeof flopdefs[0]];
	size_t i, k, l = 0, nmeasured = 0;
	char b[48], list[120] = "";

	for (i = 0; i < sizeof flopdefs / sizeof flopdefs[0]; i++) {
		const struct flopdef *f = &flopdefs[i];

		pts[i] = 0;
		measured[i] = 0;
		if (f->per_cycle && !have_hz)
			continue;
		for (k = 0; k < 3 && f->t[k].metric != NULL; k++) {
			if (value(kernel, f->t[k].metric, &v) != 0)
				continue;
			measured[i] = 1;
			pts[i] += f->t[k].weight * v * (f->per_cycle ? hz : 1);
		}
		nmeasured += measured[i];
	}
	if (nmeasured == 0) {
		empty(pn, "no roofline data (FLOP counts): run kp-collect --stages roofline", NULL);
		return;
	}
	if (value(kernel, "dram__bytes.sum.per_second", &bytes) != 0) {
		if (value(kernel, "dram__bytes.sum", &bytes) == 0 &&
		    value(kernel, "gpu__time_duration.sum", &dur) == 0 && dur > 0)
			bytes = bytes / (dur * 1e-9);
		else {
			empty(pn, "no DRAM traffic metric (dram__bytes.sum): run kp-collect"
			    " --stages roofline", NULL);
			return;
		}
	}
	if (!(bytes > 0)) {
		empty(pn, "no DRAM traffic measured: arithmetic intensity undefined", NULL);
		return;
	}
	p->dram_bytes_per_s = bytes;
	for (i = 0; i < sizeof flopdefs / sizeof flopdefs[0]; i++) {
		double peak = spec_num(gpu, flopdefs[i].peak);

		if (pts[i] > 0 && p->npoints < KP_PLOT_POINTS) {
			struct kp_plot_point *pt = &p->point[p->npoints++];

			snprintf(pt->label, sizeof pt->label, "%s", flopdefs[i].label);
			pt->flops = pts[i];
			pt->ai = pts[i] / bytes;
		}
		if (peak > 0 && (pts[i] > 0 || always(flopdefs[i].label)) &&
		    p->nceilings < KP_PLOT_CEILINGS) {
			struct kp_plot_ceiling *c = &p->ceiling[p->nceilings++];

			snprintf(c->label, sizeof c->label, "%s", flopdefs[i].label);
			c->flops = peak;
		}
	}
	if (p->npoints == 0) {
		empty(pn, "no floating-point work counted (every FLOP metric is 0)", NULL);
		return;
	}
	pn->filled = 1;
	p->bandwidth = spec_num(gpu, "memory_bandwidth_bytes_per_s");
	kp_fmt_unit(b, sizeof b, bytes, "byte/s");
	for (i = 0; i < p->npoints; i++)
		l += snprintf(list + l, l < sizeof list ? sizeof list - l : 0, "%s%s",
		    i ? ", " : "", p->point[i].label);
	snprintf(pn->remark, sizeof pn->remark, "FLOPs counted: %s; DRAM traffic %s", list, b);
	if (gpu == NULL)
		snprintf(pn->remark2, sizeof pn->remark2, "no peaks for %s in gpu_specs.yaml:"
		    " ceilings not drawn", specs == NULL ? "this GPU (file not loaded)" :
		    dev ? dev : "an unnamed device");
	else if (p->bandwidth == 0)
		snprintf(pn->remark2, sizeof pn->remark2,
		    "gpu_specs.yaml has no memory bandwidth for %s", dev);
}

/* ---- source hotspots ---- */

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int
hot_row(struct kp_plot_panel *pn, const char **f, struct kp_plot_row *all, size_t *n, double *total)
{
	double v, a, t;
	struct kp_plot_row *r = &all[*n];

	if (strcmp(f[KP_HSC_CONF], "none") == 0) {
		empty(pn, "no source hotspots: %s", f[KP_HSC_EVID]);
		return 1;
	}
	if (strncmp(f[KP_HSC_EVID], "instruction ", 12) == 0 && f[KP_HSC_LINE][0] != '\0')
		return 0;	/* an instruction under a line already counted */
	if (kp_parse_number(f[KP_HSC_VALUE], strlen(f[KP_HSC_VALUE]), &v) != KP_NUM_OK)
		return -1;
	if (sscanf(f[KP_HSC_EVID], "%lf of %lf samples", &a, &t) == 2 && t > 0)
		*total = t;
	if (f[KP_HSC_LINE][0] != '\0')
		snprintf(r->label, sizeof r->label, "%.48s:%.12s %s", base_name(f[KP_HSC_FILE]),
		    f[KP_HSC_LINE], f[KP_HSC_SASS][0] ? f[KP_HSC_SASS] : f[KP_HSC_PTX]);
	else
		snprintf(r->label, sizeof r->label, "%s %.60s", f[KP_HSC_SASS][0] ? f[KP_HSC_SASS] : f[KP_HSC_PTX],
		    strncmp(f[KP_HSC_EVID], "instruction ", 12) == 0 ? f[KP_HSC_EVID] + 12 : "");
	r->v = v;
	snprintf(r->note, sizeof r->note, "%s", f[KP_HSC_REASON]);
	(*n)++;
	return 0;
}

static int
hotspots(struct kp_plot_panel *pn, const char *details, struct kp_err *err)
{
	char *p = path2(details, kp_artifact_name(KP_ART_HOTSPOTS));
	char *src = path2(details, kp_stage_file(KP_STAGE_SOURCE));
	struct kp_plot_row all[64];
	struct kp_hs_csv *csv;
	const char **f;
	size_t n = 0, i;
	double total = 0, sum = 0;
	int rc = 0;

	memset(all, 0, sizeof all);	/* v2 is unused here, but written to hotspots.dat */
	if (p == NULL || src == NULL || !kp_is_file(p)) {
		if (src != NULL && kp_is_file(src))
			empty(pn, "source page not ranked: run kp-hotspots", NULL);
		else
			empty(pn, "no source data: run kp-collect --stages source, then kp-hotspots",
			    NULL);
		free(p);
		free(src);
		return 0;
	}
	free(src);
	if ((csv = kp_hs_csv_open(p, err)) == NULL) {
		free(p);
		return -1;
	}
	while (rc == 0 && (rc = kp_hs_csv_next(csv, &f, err)) == 1) {
		rc = 0;
		if (n < sizeof all / sizeof all[0]) {
			int r = hot_row(pn, f, all, &n, &total);

			if (r < 0) {
				kp_errf(err, KP_EXIT_DATA, "%s:%lu: value \"%s\" is not a number", p,
				    kp_hs_csv_line(csv), f[KP_HSC_VALUE]);
				rc = -1;
			} else if (r > 0)
				rc = 1;
		}
	}
	kp_hs_csv_close(csv);
	free(p);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (total <= 0)
		for (i = 0; i < n; i++)
			sum += all[i].v;
	qsort(all, n, sizeof *all, cmp_row_desc);
	for (i = 0; i < n && i < KP_PLOT_ROWS; i++) {
		char reason[96];
		double share = 100 * all[i].v / (total > 0 ? total : sum);

		pn->row[i] = all[i];
		pn->row[i].v = share;
		snprintf(reason, sizeof reason, "%s", all[i].note);
		snprintf(pn->row[i].note, sizeof pn->row[i].note, "%.1f %%%s%.60s", share,
		    reason[0] ? "  " : "", reason);
	}
	pn->n = i;
	if (pn->n == 0)
		empty(pn, "no source hotspots: %s has no rows", kp_artifact_name(KP_ART_HOTSPOTS));
	else {
		pn->filled = 1;
		for (i = 0, sum = 0; i < pn->n; i++)
			sum += pn->row[i].v;
		if (total <= 0)
			snprintf(pn->title_note, sizeof pn->title_note,
			    "shares of the listed rows' samples");
		else if (sum > 100.5)
			snprintf(pn->title_note, sizeof pn->title_note, "inlined lines (headers) are"
			    " counted under their caller too: shares overlap");
	}
	return 0;
}

/* ---- comparison ---- */

static int
comparison(struct kp_plot_panel *pn, const char *dir, struct kp_err *err)
{
	static const struct {
		const char *key, *label;
	} keys[] = {
		{ "duration_ns", "duration (% of before)" },
		{ "sm_throughput_pct", "SM %" },
		{ "memory_throughput_pct", "Memory %" },
		{ "dram_throughput_pct", "DRAM %" },
		{ "l1tex_throughput_pct", "L1/TEX %" },
		{ "l2_throughput_pct", "L2 %" },
		{ "achieved_occupancy_pct", "achieved occupancy %" },
		{ "tensor_pipe_pct", "tensor pipe %" },
	};
	int bad;
	json_t *cmp = load_optional(dir, kp_artifact_rel(KP_ART_COMPARISON), &bad, err), *r;
	const char *verdict, *bf, *cf;
	size_t i, k;

	if (bad)
		return -1;
	if (cmp == NULL) {
		empty(pn, "no comparison: run kp-compare against a baseline profile", NULL);
		return 0;
	}
	for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		json_array_foreach(json_object_get(cmp, "rows"), i, r) {
			const char *m = json_string_value(json_object_get(r, "metric"));
			json_t *b = json_object_get(r, "baseline"), *c = json_object_get(r, "current");
			struct kp_plot_row *row = &pn->row[pn->n];
			char pct[32], x[48], y[48];

			if (m == NULL || strcmp(m, keys[k].key) != 0 || !json_is_number(b) ||
			    !json_is_number(c))
				continue;
			snprintf(row->label, sizeof row->label, "%s", keys[k].label);
			kp_fmt_change_pct(pct, sizeof pct,
			    json_is_number(json_object_get(r, "change_pct")) ?
			    json_number_value(json_object_get(r, "change_pct")) : NAN);
			if (k == 0) {
				if (json_number_value(b) <= 0)
					break;
				row->v = 100;
				row->v2 = 100 * json_number_value(c) / json_number_value(b);
				kp_fmt_unit(x, sizeof x, json_number_value(b), "ns");
				kp_fmt_unit(y, sizeof y, json_number_value(c), "ns");
				snprintf(row->note, sizeof row->note, "%.24s -> %.24s (%.16s)", x, y,
				    pct);
			} else {
				row->v = json_number_value(b);
				row->v2 = json_number_value(c);
				snprintf(row->note, sizeof row->note, "%s", pct);
			}
			pn->n++;
			break;
		}
	}
	verdict = json_string_value(json_object_get(cmp, "verdict"));
	bf = json_string_value(json_object_get(json_object_get(cmp, "baseline"), "function"));
	cf = json_string_value(json_object_get(json_object_get(cmp, "current"), "function"));
	if (pn->n == 0)
		empty(pn, "%s has none of the key metrics", kp_artifact_rel(KP_ART_COMPARISON));
	else {
		pn->filled = 1;
		snprintf(pn->title_note, sizeof pn->title_note, "%s -> %s: %s",
		    bf ? bf : "?", cf ? cf : "?", verdict ? verdict : "?");
	}
	json_decref(cmp);
	return 0;
}

/* ---- all ---- */

int
kp_plot_collect(struct kp_plot *p, const char *dir, const char *details, json_t *specs,
    struct kp_err *err)
{
	char *sp = path2(details, kp_artifact_name(KP_ART_SUMMARY));
	json_t *summary, *kernel, *decision;
	size_t i;
	int bad;

	memset(p, 0, sizeof *p);
	for (i = 0; i < KP_PANEL_N; i++) {
		p->panel[i].name = panels[i].name;
		p->panel[i].title = panels[i].title;
	}
	if (sp == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	if (!kp_is_file(sp)) {
		kp_errf(err, KP_EXIT_DATA, "%s: no such file: run kp-extract first", sp);
		free(sp);
		return -1;
	}
	summary = kp_json_load_file(sp, err);
	if (summary == NULL || kp_summary_load_all(summary, sp, err) < 0) {
		json_decref(summary);
		free(sp);
		return -1;
	}
	if ((kernel = kp_summary_primary(summary)) == NULL) {
		kp_errf(err, KP_EXIT_DATA, "%s: no kernel in the summary", sp);
		json_decref(summary);
		free(sp);
		return -1;
	}
	free(sp);
	decision = load_optional(details, kp_artifact_name(KP_ART_DECISION), &bad,
	    err);
	if (bad) {
		json_decref(summary);
		return -1;
	}
	title(p, kernel, decision);
	sol(&p->panel[KP_PANEL_SOL], kernel);
	occupancy(&p->panel[KP_PANEL_OCCUPANCY], kernel);
	roofline(p, kernel, specs);
	stalls(&p->panel[KP_PANEL_STALLS], kernel);
	json_decref(decision);
	json_decref(summary);
	if (hotspots(&p->panel[KP_PANEL_HOTSPOTS], details, err) < 0)
		return -1;
	return comparison(&p->panel[KP_PANEL_COMPARISON], dir, err);
}

json_t *
kp_plot_panels_json(const struct kp_plot *p)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o != NULL && i < KP_PANEL_N; i++) {
		const struct kp_plot_panel *pn = &p->panel[i];
		json_t *e = json_pack("{s:b}", "filled", pn->filled);

		if (e != NULL && !pn->filled)
			json_object_set_new(e, "reason", json_string(pn->reason));
		json_object_set_new(o, pn->name, e);
	}
	return o;
}
