/*
 * rules_eval.c: evaluate bottleneck rules on one kernel of a metrics summary.
 *
 * A metric name in a rule is, in this order of look-up: a derived quantity
 * computed here (see derive()), "stalls.<reason>", a summary key, or a full
 * ncu metric name from the kernel's "metrics".  A rule whose metric is absent
 * never fires: it is listed under not_evaluated, never used as evidence.
 * When a kernel's "metrics" is the short map of metrics_summary.json and a
 * look-up misses in it, kp_rules_decide_summary reads metrics_all.json and
 * decides again, so the outcome is that of the whole map.
 *
 * Score of a fired rule (documented in kp-decide(1)):
 *   weight * severity factor (high 1, medium 0.75, low 0.5) * (1 + excess)
 * where excess is the mean, over the conditions that held, of how far the
 * value lies past its threshold relative to the threshold, each capped at 1
 * (0 for == and !=).  Then every cause is raised to one point above each
 * fired symptom it outranks, symptoms first, so a cause always ranks first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_rules.h"
#include "kp_specs.h"
#include "kp_summary.h"
#include "rules_int.h"

int
kp_rules_num(json_t *j, double *out)
{
	if (!json_is_number(j))
		return -1;
	*out = json_number_value(j);
	return 0;
}

static int
both(struct ctx *c, const char *a, const char *b, double *va, double *vb)
{
	return kp_rules_raw(c, a, va) == 0 && kp_rules_raw(c, b, vb) == 0 ? 0 : -1;
}

static int
sm_count(struct ctx *c, double *out)
{
	struct kp_err err;
	json_t *specs, *g;
	const char *dev;

	if (kp_rules_raw(c, "launch__sm_count", out) == 0 ||
	    kp_rules_raw(c, "device__attribute_multiprocessor_count", out) == 0)
		return 0;
	if (!c->specs_tried) {
		c->specs_tried = 1;
		dev = json_string_value(json_object_get(c->kernel, "device"));
		if (dev != NULL && (specs = kp_specs_load(NULL, &err)) != NULL) {
			g = kp_specs_find(specs, dev);
			if (g != NULL)
				kp_rules_num(json_object_get(g, "sm_count"), &c->specs_sm);
			json_decref(specs);
		}
	}
	if (c->specs_sm > 0) {
		*out = c->specs_sm;
		return 0;
	}
	return -1;
}

/* The smallest of ncu's per-resource block limits: blocks per SM at once. */
static int
block_limit(struct ctx *c, double *out)
{
	static const char *const lim[] = { "launch__occupancy_limit_registers",
		"launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
		"launch__occupancy_limit_blocks", NULL };
	double v;
	int i, have = 0;

	for (i = 0; lim[i] != NULL; i++)
		if (kp_rules_raw(c, lim[i], &v) == 0 && (!have || v < *out)) {
			*out = v;
			have = 1;
		}
	return have ? 0 : -1;
}

/* Derived quantities; 1 when name is one (then 0/-1 says present/absent in *rc). */
static int
derive(struct ctx *c, const char *name, double *out, int *rc)
{
	double a = 0, b = 0, s = 0, l = 0;

	*rc = -1;
	if (kp_rules_derive_more(c, name, out, rc))
		return 1;
	if (strcmp(name, "occupancy_ratio") == 0) {
		if (both(c, "achieved_occupancy_pct", "theoretical_occupancy_pct", &a, &b) == 0 &&
		    b > 0)
			*out = a / b, *rc = 0;
	} else if (strcmp(name, "sm_count") == 0) {
		*rc = sm_count(c, out);
	} else if (strcmp(name, "blocks_per_sm") == 0) {
		if (kp_rules_raw(c, "grid_size", &a) == 0 && sm_count(c, &s) == 0 && s > 0)
			*out = a / s, *rc = 0;
	} else if (strcmp(name, "waves_per_sm") == 0) {
		if (kp_rules_raw(c, "waves_per_sm", out) == 0)
			*rc = 0;
		else if (kp_rules_raw(c, "grid_size", &a) == 0 && sm_count(c, &s) == 0 &&
		    block_limit(c, &l) == 0 && s > 0 && l > 0)
			*out = a / (s * l), *rc = 0;
	} else if (strcmp(name, "shared_conflict_share") == 0) {
		if (kp_rules_raw(c, "shared_bank_conflicts", &a) == 0 &&
		    both(c, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
		    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", &b, &s) == 0 &&
		    (b + s > 0 || a == 0))
			*out = b + s > 0 ? a / (b + s) : 0, *rc = 0;	/* no accesses: no conflicts */
	} else if (strcmp(name, "global_load_sectors_per_request") == 0) {
		if (both(c, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
		    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", &a, &b) == 0 && b > 0)
			*out = a / b, *rc = 0;
	} else if (strcmp(name, "global_store_sectors_per_request") == 0) {
		if (both(c, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
		    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", &a, &b) == 0 && b > 0)
			*out = a / b, *rc = 0;
	} else if (strcmp(name, "threads_per_inst") == 0) {
		*rc = kp_rules_raw(c, "smsp__thread_inst_executed_per_inst_executed.ratio", out);
	} else if (strncmp(name, "stall_share.", 12) == 0) {
		if (!c->have_stall_sum) {
			const char *k;
			json_t *v;

			c->stall_sum = 0;
			json_object_foreach(c->stalls, k, v)
				if (json_is_number(v))
					c->stall_sum += json_number_value(v);
			c->have_stall_sum = 1;
		}
		if (kp_rules_num(json_object_get(c->stalls, name + 12), &a) == 0 && c->stall_sum > 0)
			*out = a / c->stall_sum, *rc = 0;
	} else
		return 0;
	return 1;
}

int
kp_rules_raw(struct ctx *c, const char *name, double *out)
{
	if (strncmp(name, "stalls.", 7) == 0)
		return kp_rules_num(json_object_get(c->stalls, name + 7), out);
	if (kp_rules_num(json_object_get(c->summary, name), out) == 0)
		return 0;
	/*
	 * Only a ncu metric ("unit__...") or a details-page key ("Section/Name")
	 * can be in metrics_all.json, and a key metric absent from the short map
	 * is absent from the whole one.
	 */
	if (c->partial && json_object_get(c->metrics, name) == NULL && !kp_key_metric(name) &&
	    (strstr(name, "__") != NULL || strchr(name, '/') != NULL))
		c->missed = 1;
	return kp_rules_num(json_object_get(c->metrics, name), out);
}

/* The value of a rule's metric name; recorded in metrics_used when present. */
int
kp_rules_value(struct ctx *c, const char *name, double *out)
{
	int rc;

	if (!derive(c, name, out, &rc))
		rc = kp_rules_raw(c, name, out);
	if (rc == 0 && c->used != NULL)
		json_object_set_new(c->used, name, json_real(*out));
	return rc;
}

static int
holds(const struct kp_cond *k, double v)
{
	switch (k->op) {
	case KP_OP_GT: return v > k->value;
	case KP_OP_GE: return v >= k->value;
	case KP_OP_LT: return v < k->value;
	case KP_OP_LE: return v <= k->value;
	case KP_OP_EQ: return v == k->value;
	case KP_OP_NE: return v != k->value;
	}
	return 0;
}

/* How far past its threshold a held condition lies, relative, capped at 1. */
static double
excess(const struct kp_cond *k, double v)
{
	double d;

	if (k->op == KP_OP_EQ || k->op == KP_OP_NE)
		return 0;
	d = (k->op == KP_OP_GT || k->op == KP_OP_GE) ? v - k->value : k->value - v;
	if (k->value == 0)
		return d > 0 ? 1 : 0;
	d /= fabs(k->value);
	return d > 1 ? 1 : d < 0 ? 0 : d;
}

static json_t *
evidence_item(const struct kp_cond *k, double v)
{
	return json_pack("{s:s, s:f, s:s, s:f}", "metric", k->metric, "value", v,
	    "op", kp_op_name(k->op), "threshold", k->value);
}

/* A number for people: up to 4 significant digits, no exponent for usual sizes. */
static void
fmtnum(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* Fill {name} placeholders; an absent metric reads "n/a". */
static json_t *
render(struct ctx *c, const char *t)
{
	size_t cap = strlen(t) + 256, n = 0;
	char *out = malloc(cap), name[256], val[64];
	const char *o, *e;
	json_t *j;
	double v;

	if (out == NULL)
		return NULL;
	while (*t != '\0') {
		const char *piece = t;
		size_t plen = 1;

		if (*t == '{' && (e = strchr(t, '}')) != NULL && (size_t)(e - t - 1) < sizeof(name)) {
			o = t + 1;
			memcpy(name, o, (size_t)(e - o));
			name[e - o] = '\0';
			const char *words = kp_rules_derive_text(c, name);

			if (words != NULL)
				snprintf(val, sizeof(val), "%s", words);
			else if (kp_rules_value(c, name, &v) == 0)
				fmtnum(val, sizeof(val), v);
			else
				snprintf(val, sizeof(val), "n/a");
			piece = val;
			plen = strlen(val);
			t = e + 1;
		} else
			t++;
		if (n + plen + 1 > cap) {
			char *p = realloc(out, cap = 2 * cap + plen);
			if (p == NULL) {
				free(out);
				return NULL;
			}
			out = p;
		}
		memcpy(out + n, piece, plen);
		n += plen;
	}
	out[n] = '\0';
	j = json_string(out);
	free(out);
	return j;
}

/* What a derived quantity is made of, for "missing ..." reasons. */
static const char *
derived_inputs(const char *name)
{
	static const char *const d[][2] = {
		{ "occupancy_ratio", " (achieved_occupancy_pct, theoretical_occupancy_pct)" },
		{ "sm_count", " (launch__sm_count, device__attribute_multiprocessor_count, gpu_specs.yaml)" },
		{ "blocks_per_sm", " (grid_size, sm_count)" },
		{ "waves_per_sm", " (waves_per_sm, or grid_size, sm_count, launch__occupancy_limit_*)" },
		{ "shared_conflict_share", " (shared_bank_conflicts, l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum, _op_st.sum)" },
		{ "global_load_sectors_per_request", " (l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum, l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum)" },
		{ "global_store_sectors_per_request", " (l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum, l1tex__t_requests_pipe_lsu_mem_global_op_st.sum)" },
		{ "threads_per_inst", " (smsp__thread_inst_executed_per_inst_executed.ratio)" },
	};
	const char *more = kp_rules_derive_inputs(name);
	size_t i;

	if (more != NULL)
		return more;
	if (strncmp(name, "stall_share.", 12) == 0)
		return " (summary stalls)";
	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (strcmp(d[i][0], name) == 0)
			return d[i][1];
	return "";
}

struct fired {
	size_t rule;
	double score;
	double rank;		/* estimated gain in %, causes raised above symptoms */
	double gain;		/* estimated gain, a fraction; -1 when none */
	const char *gain_basis;
	int demoted;		/* at the kernel's roofline, against its design */
	char ruled_out[320];	/* eval_rule's 3: the unless-condition that held */
	json_t *evidence, *measured, *missing, *disagree;
};

/* Where a rule tests both a metric and its source-page twin ("X" and
 * "src.X") and the two disagree, say so. */
static json_t *
disagreement(struct ctx *c, const struct kp_rule *r)
{
	const struct kp_cond *all[2] = { r->all, r->any };
	size_t nall[2] = { r->nall, r->nany }, i, j, a, b;
	double v, w;
	char buf[512], x[32], y[32];

	for (a = 0; a < 2; a++)
		for (i = 0; i < nall[a]; i++)
			for (b = 0; b < 2; b++)
				for (j = 0; j < nall[b]; j++) {
					const struct kp_cond *k = &all[a][i], *t = &all[b][j];

					if (strncmp(t->metric, "src.", 4) != 0 ||
					    strcmp(t->metric + 4, k->metric) != 0 ||
					    kp_rules_value(c, k->metric, &v) != 0 ||
					    kp_rules_value(c, t->metric, &w) != 0 ||
					    holds(k, v) == holds(t, w))
						continue;
					fmtnum(x, sizeof(x), v);
					fmtnum(y, sizeof(y), w);
					snprintf(buf, sizeof(buf), "the sections say %s = %s, the "
					    "source page says %s = %s (threshold %s %g): they disagree",
					    k->metric, x, t->metric, y, kp_op_name(k->op), k->value);
					return json_string(buf);
				}
	return NULL;
}

static void
note_metric(json_t *arr, const char *name)
{
	if (!kp_json_array_has_string(arr, name))
		json_array_append_new(arr, json_string(name));
}

static void
fired_free(struct fired *f)
{
	json_decref(f->evidence);
	json_decref(f->measured);
	json_decref(f->missing);
	json_decref(f->disagree);
	f->evidence = f->measured = f->missing = f->disagree = NULL;
}

/*
 * Evaluate one rule: 1 fired (f filled), 0 did not, -1 not evaluated (a needed
 * metric is absent; *missing names it), 2 did not fire on the conditions that
 * were measured while another could not be (*missing names it).
 */
static int
eval_rule(struct ctx *c, const struct kp_rule *r, struct fired *f, const char **missing)
{
	double v, ex = 0;
	size_t i, nheld = 0, nallheld;
	int anyheld = 0, anymissing = 0, anymeasured = 0;
	const char *miss = NULL;

	f->evidence = json_array();
	f->measured = json_array();
	f->missing = json_array();
	f->disagree = NULL;
	for (i = 0; i < r->nall; i++) {
		if (kp_rules_value(c, r->all[i].metric, &v) == -1) {
			if (miss == NULL)
				miss = r->all[i].metric;
			note_metric(f->missing, r->all[i].metric);
			note_metric(c->missing, r->all[i].metric);
			continue;
		}
		note_metric(f->measured, r->all[i].metric);
		if (!holds(&r->all[i], v)) {
			fired_free(f);
			return 0;	/* false on real data: evaluated, not fired */
		}
		json_array_append_new(f->evidence, evidence_item(&r->all[i], v));
		ex += excess(&r->all[i], v);
		nheld++;
	}
	nallheld = nheld;
	for (i = 0; i < r->nany; i++) {
		if (kp_rules_value(c, r->any[i].metric, &v) == -1) {
			if (!anymissing && miss == NULL)
				miss = r->any[i].metric;
			anymissing = 1;
			note_metric(f->missing, r->any[i].metric);
			note_metric(c->missing, r->any[i].metric);
			continue;
		}
		note_metric(f->measured, r->any[i].metric);
		anymeasured = 1;
		if (holds(&r->any[i], v)) {
			json_array_append_new(f->evidence, evidence_item(&r->any[i], v));
			ex += excess(&r->any[i], v);
			nheld++;
			anyheld = 1;
		}
	}
	if (nallheld < r->nall || (r->nany > 0 && !anyheld && !anymeasured)) {
		/* An all-condition, or every any-condition that could hold, is missing. */
		fired_free(f);
		*missing = miss;
		return -1;
	}
	if (r->nany > 0 && !anyheld) {
		/* Measured and false where measured; a condition could not be
		 * measured: said under "partially_evaluated". */
		if (anymissing)
			*missing = miss;
		fired_free(f);
		return anymissing ? 2 : 0;
	}
	for (i = 0; i < r->nunless; i++) {
		if (kp_rules_value(c, r->unless[i].metric, &v) != 0) {
			/* what could rule it out is worth measuring */
			note_metric(c->missing, r->unless[i].metric);
			continue;
		}
		if (holds(&r->unless[i], v)) {
			/* it held, but a measured fact says its cause cannot be */
			snprintf(f->ruled_out, sizeof(f->ruled_out), "its conditions held, "
			    "but %s = %.4g (%s %.4g)%s", r->unless[i].metric, v,
			    kp_op_name(r->unless[i].op), r->unless[i].value,
			    derived_inputs(r->unless[i].metric));
			fired_free(f);
			return 3;
		}
	}
	f->disagree = disagreement(c, r);
	f->gain = -1;
	f->gain_basis = NULL;
	for (i = 0; i < r->ngain; i++)
		if (kp_rules_value(c, r->gain[i], &v) == 0) {
			f->gain = v < 0 ? 0 : v > 1 ? 1 : v;
			f->gain_basis = r->gain[i];
			break;
		}
	{
		static const double sevf[] = { 1.0, 0.75, 0.5 };
		f->score = r->weight * sevf[r->severity] * (1 + (nheld ? ex / nheld : 0));
	}
	return 1;
}

int
kp_json_array_has_string(json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return 1;
	return 0;
}

static int
by_score(const void *a, const void *b)
{
	const struct fired *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? 1 : -1;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/*
 * Whether cause c can explain symptom y: its estimated gain (an upper bound
 * of what fixing it saves) is at least a quarter of the symptom's.  A grid
 * that leaves 3 % of the SMs idle does not explain an 80 % occupancy gap,
 * nor a handful of spills a DRAM-bound stream.  An unknown gain explains.
 */
static int
explains(const struct fired *c, const struct fired *y)
{
	return c->gain < 0 || y->gain <= 0 || c->gain >= 0.25 * y->gain;
}

/* Causes above their symptoms: repeat until stable (the graph is acyclic). */
static void
apply_outranks(struct kp_rules *r, struct fired *f, size_t nf)
{
	size_t pass, i, j, k;
	int changed = 1;

	for (pass = 0; changed && pass <= r->nrules; pass++) {
		changed = 0;
		for (i = 0; i < nf; i++) {
			const struct kp_rule *a = &r->rules[f[i].rule];

			for (k = 0; k < a->noutranks; k++)
				for (j = 0; j < nf; j++)
					if (f[j].rule == a->outranks[k] && explains(&f[i], &f[j]) &&
					    (f[i].rank < f[j].rank + 0.01 ||
					    f[i].score < f[j].score + 1)) {
						if (f[i].rank < f[j].rank + 0.01)
							f[i].rank = f[j].rank + 0.01;
						if (f[i].score < f[j].score + 1)
							f[i].score = f[j].score + 1;
						changed = 1;
					}
		}
	}
}

/* Whether a conditional next action applies: every all-condition and one
 * any-condition hold on present metrics. */
static int
action_applies(struct ctx *c, const struct kp_action *a)
{
	size_t i;
	double v;

	for (i = 0; i < a->nall; i++)
		if (kp_rules_value(c, a->all[i].metric, &v) == -1 || !holds(&a->all[i], v))
			return 0;
	for (i = 0; i < a->nany; i++)
		if (kp_rules_value(c, a->any[i].metric, &v) == 0 && holds(&a->any[i], v))
			return 1;
	return a->nany == 0;
}

static json_t *
hotspots_of(json_t *hotspots, const char *cls)
{
	json_t *out = json_array(), *row;
	size_t i;

	json_array_foreach(hotspots, i, row) {
		const char *b = json_string_value(json_object_get(row, "bottleneck_class"));
		if (b != NULL && strcmp(b, cls) == 0)
			json_array_append(out, row);
	}
	return out;
}

static json_t *
finding(struct ctx *c, struct kp_rules *r, struct fired *f, json_t *hotspots)
{
	const struct kp_rule *rule = &r->rules[f->rule];
	json_t *acts = json_array(), *o;
	size_t i;

	for (i = 0; i < rule->nactions; i++)
		if (action_applies(c, &rule->actions[i]))
			json_array_append_new(acts, render(c, rule->actions[i].text));
	o = json_pack("{s:s, s:s, s:f, s:o, s:o, s:o, s:o, s:o, s:o}", "class", rule->id,
	    "severity", f->demoted ? "low" : kp_sev_name(rule->severity),
	    "score", round(f->score * 100) / 100,
	    "evidence", f->evidence, "text", render(c, rule->evidence),
	    "hotspots", hotspots_of(hotspots, rule->id), "next_actions", acts,
	    "measured", f->measured, "missing", f->missing);
	if (f->gain >= 0) {
		json_object_set_new(o, "estimated_gain_pct", json_real(round(f->gain * 1000) / 10));
		json_object_set_new(o, "gain_basis", json_string(f->gain_basis));
	}
	if (f->demoted)
		json_object_set_new(o, "at_roofline_demoted", json_true());
	if (f->disagree != NULL)
		json_object_set_new(o, "disagreement", f->disagree);
	f->evidence = f->measured = f->missing = f->disagree = NULL;	/* stolen */
	return o;
}

/* Whether the kernel runs a unit at its roofline; *pct and *unit name the busiest. */
static int
roofline(struct ctx *c, struct kp_rules *r, double *pct, const char **unit)
{
	int rc;

	if (kp_rules_derive_more(c, "busiest_unit_pct", pct, &rc) == 0 || rc != 0)
		return 0;
	*unit = kp_rules_derive_text(c, "busiest_unit");
	return *pct >= r->roofline_pct;
}

/* ncu's guided analysis beside kp's: its top rule by estimated speedup, the
 * class that rule names, and whether kp's primary agrees. */
static void
ncu_compare(struct kp_rules *r, json_t *out, const char *primary)
{
	json_t *top = json_array_get(r->ncu_rules, 0), *o = json_object(), *list = json_array();
	const char *rule = json_string_value(json_object_get(top, "rule"));
	const char *cls = rule != NULL ? json_string_value(json_object_get(r->ncu_map, rule)) : NULL;
	char buf[512];
	size_t i;

	for (i = 0; i < json_array_size(r->ncu_rules) && i < 5; i++)
		json_array_append(list, json_array_get(r->ncu_rules, i));
	json_object_set_new(o, "rules", list);
	json_object_set_new(o, "top_rule", rule != NULL ? json_string(rule) : json_null());
	json_object_set_new(o, "top_rule_class", cls != NULL ? json_string(cls) : json_null());
	if (rule == NULL)
		snprintf(buf, sizeof(buf), "ncu reported no rule results");
	else if (cls != NULL && primary != NULL && strcmp(cls, primary) == 0)
		snprintf(buf, sizeof(buf), "ncu's top rule %s (estimated speedup %.1f %%) names "
		    "the same problem as kp (%s)", rule, json_number_value(json_object_get(top,
		    "estimated_speedup_pct")), primary);
	else
		snprintf(buf, sizeof(buf), "ncu's top rule %s (estimated speedup %.1f %%%s%s) "
		    "differs from kp's primary %s", rule, json_number_value(json_object_get(top,
		    "estimated_speedup_pct")), cls ? ", class " : "", cls ? cls : "",
		    primary ? primary : "(none)");
	json_object_set_new(o, "agreement", json_string(buf));
	json_object_set_new(out, "ncu", o);
}

static json_t *
decide(struct kp_rules *r, json_t *kernel, json_t *hotspots, int *missed, struct kp_err *err)
{
	struct ctx c;
	struct fired *f;
	size_t nf = 0, i;
	json_t *out, *findings, *noteval, *partial, *ruled, *name;
	const char *missing, *unit = NULL;
	double unit_pct = 0;
	int roof;

	if (!json_is_object(kernel) || !json_is_object(json_object_get(kernel, "summary"))) {
		kp_errf(err, KP_EXIT_DATA, "kernel object without a \"summary\"");
		return NULL;
	}
	memset(&c, 0, sizeof(c));
	c.kernel = kernel;
	c.summary = json_object_get(kernel, "summary");
	c.stalls = json_object_get(c.summary, "stalls");
	c.metrics = json_object_get(kernel, "metrics");
	c.partial = kp_summary_partial(kernel);
	c.src = r->src;
	c.used = json_object();
	c.missing = json_array();
	if ((f = calloc(r->nrules, sizeof(*f))) == NULL) {
		json_decref(c.used);
		kp_errf(err, KP_EXIT_DATA, "out of memory");
		return NULL;
	}
	findings = json_array();
	noteval = json_array();
	partial = json_array();
	ruled = json_array();
	for (i = 0; i < r->nrules; i++) {
		int rc = eval_rule(&c, &r->rules[i], &f[nf], &missing);
		char why[512];

		if (rc == 1)
			f[nf++].rule = i;
		else if (rc == 3)
			json_array_append_new(ruled, json_pack("{s:s, s:s}", "class",
			    r->rules[i].id, "reason", f[nf].ruled_out));
		else if (rc == 2) {
			snprintf(why, sizeof(why), "did not fire on what was measured; not "
			    "measured: %s%s", missing, derived_inputs(missing));
			json_array_append_new(partial, json_pack("{s:s, s:s}", "class",
			    r->rules[i].id, "reason", why));
		} else if (rc == -1) {
			snprintf(why, sizeof(why), "missing %s%s", missing, derived_inputs(missing));
			json_array_append_new(noteval, json_pack("{s:s, s:s}", "class",
			    r->rules[i].id, "reason", why));
		}
	}
	roof = roofline(&c, r, &unit_pct, &unit);
	for (i = 0; i < nf; i++) {
		f[i].demoted = roof && !r->rules[f[i].rule].keep_at_roofline;
		if (f[i].demoted) {
			double cap = 1 - unit_pct / 100;

			if (f[i].gain < 0 || f[i].gain > cap) {
				f[i].gain = cap < 0 ? 0 : cap;
				f[i].gain_basis = "busiest_unit_pct";
			}
		}
		f[i].rank = f[i].gain >= 0 ? f[i].gain * 100 : 0;
	}
	apply_outranks(r, f, nf);
	qsort(f, nf, sizeof(*f), by_score);
	for (i = 0; i < nf; i++)
		json_array_append_new(findings, finding(&c, r, &f[i], hotspots));
	name = json_object_get(kernel, "name");
	out = json_pack("{s:s, s:O, s:o, s:o, s:o, s:o}", "schema", "kp-bottleneck-decision/1",
	    "kernel", name ? name : json_null(),
	    "primary", nf > 0 ? json_string(r->rules[f[0].rule].id) : json_null(),
	    "findings", findings, "not_evaluated", noteval, "metrics_used", c.used);
	if (out != NULL) {
		json_object_set_new(out, "partially_evaluated", partial);
		json_object_set_new(out, "ruled_out", ruled);
		json_object_set_new(out, "missing_metrics", c.missing);
	} else {
		json_decref(partial);
		json_decref(ruled);
		json_decref(c.missing);
	}
	if (out != NULL && unit != NULL) {
		json_object_set_new(out, "busiest_unit", json_pack("{s:s, s:f}", "unit", unit,
		    "pct", round(unit_pct * 10) / 10));
		json_object_set_new(out, "at_roofline", roof ? json_pack("{s:s, s:f, s:f}",
		    "unit", unit, "pct", round(unit_pct * 10) / 10, "threshold_pct",
		    r->roofline_pct) : json_null());
	}
	if (out != NULL)
		json_object_set_new(out, "source_page", c.src != NULL ?
		    json_string(json_string_value(json_object_get(c.src, "view"))) : json_null());
	if (out != NULL && r->ncu_rules != NULL)
		ncu_compare(r, out, nf > 0 ? r->rules[f[0].rule].id : NULL);
	free(f);
	if (out == NULL)
		kp_errf(err, KP_EXIT_DATA, "out of memory");
	*missed = c.missed;
	return out;
}

json_t *
kp_rules_decide(struct kp_rules *r, json_t *kernel, json_t *hotspots, struct kp_err *err)
{
	int missed;

	return decide(r, kernel, hotspots, &missed, err);
}

json_t *
kp_rules_decide_summary(struct kp_rules *r, json_t *summary, const char *summary_path,
    json_t *kernel, json_t *hotspots, struct kp_err *err)
{
	json_t *d;
	int missed;

	if ((d = decide(r, kernel, hotspots, &missed, err)) == NULL || !missed)
		return d;
	json_decref(d);
	if (kp_summary_load_all(summary, summary_path, err) < 0)
		return NULL;
	return decide(r, kernel, hotspots, &missed, err);
}

/* ---- kp-collect's follow-up choice ---- */

json_t *
kp_rules_evidence_sections(struct kp_rules *r, json_t *kernel, json_t **missing,
    struct kp_err *err)
{
	json_t *d, *out, *need, *m, *pre, *src = r->src;
	const char *sec;
	size_t i, j;

	r->src = NULL;	/* the page comes from its own pass */
	d = kp_rules_decide(r, kernel, NULL, err);
	r->src = src;
	if (d == NULL)
		return NULL;
	out = json_array();
	need = json_array();
	json_array_foreach(json_object_get(d, "missing_metrics"), i, m) {
		const char *name = json_string_value(m);
		int found = 0;

		if (strncmp(name, "src.", 4) == 0)
			continue;
		json_object_foreach(r->sections, sec, pre)
			json_array_foreach(pre, j, m) {
				const char *p = json_string_value(m);

				if (strncmp(name, p, strlen(p)) != 0)
					continue;
				found = 1;
				if (!kp_json_array_has_string(out, sec))
					json_array_append_new(out, json_string(sec));
			}
		if (found)
			json_array_append_new(need, json_string(name));
	}
	json_decref(d);
	if (missing != NULL)
		*missing = need;
	else
		json_decref(need);
	return out;
}

static int
sumval(json_t *kernel, const char *key, double *out)
{
	return kp_rules_num(json_object_get(json_object_get(kernel, "summary"), key), out);
}

const char *
kp_rules_followup(struct kp_rules *r, json_t *kernel, char *why, size_t whylen)
{
	static const char *const memkeys[] = { "memory_throughput_pct", "dram_throughput_pct",
		"l1tex_throughput_pct", "l2_throughput_pct", NULL };
	const struct kp_followup *t = r != NULL && r->fu.have ? &r->fu : NULL;
	const char *memkey = NULL;
	double mem = 0, sm = 0, ach = 0, th = 0, ipc = 0, v;
	int have_sm, have_ach, have_th, have_ipc, i;
	char b1[32], b2[32];

	if (why == NULL || whylen == 0)
		why = b1, whylen = 0;
	for (i = 0; memkeys[i] != NULL; i++)
		if (sumval(kernel, memkeys[i], &v) == 0 && (memkey == NULL || v > mem)) {
			mem = v;
			memkey = memkeys[i];
		}
	have_sm = sumval(kernel, "sm_throughput_pct", &sm) == 0;
	have_ach = sumval(kernel, "achieved_occupancy_pct", &ach) == 0;
	have_th = sumval(kernel, "theoretical_occupancy_pct", &th) == 0;
	have_ipc = sumval(kernel, "ipc", &ipc) == 0;
#define WHY(...) do { if (whylen) snprintf(why, whylen, __VA_ARGS__); } while (0)
	if (t == NULL) {
		WHY("no follow-up thresholds (the rules file has no followup:)");
		return NULL;
	}
	if (memkey != NULL && mem >= t->memory_dominant_pct && (!have_sm || mem >= sm)) {
		fmtnum(b1, sizeof(b1), mem);
		fmtnum(b2, sizeof(b2), sm);
		WHY("%s %s >= %g (memory_dominant_pct), sm_throughput_pct %s", memkey, b1,
		    t->memory_dominant_pct, have_sm ? b2 : "n/a");
		return "memory";
	}
	if (have_sm && sm >= t->sm_dominant_pct && (memkey == NULL || sm > mem)) {
		fmtnum(b1, sizeof(b1), sm);
		fmtnum(b2, sizeof(b2), mem);
		WHY("sm_throughput_pct %s >= %g (sm_dominant_pct), %s %s", b1,
		    t->sm_dominant_pct, memkey ? memkey : "memory", memkey ? b2 : "n/a");
		return "compute";
	}
	if (have_ach && ach < t->low_occupancy_pct) {
		fmtnum(b1, sizeof(b1), ach);
		WHY("achieved_occupancy_pct %s < %g (low_occupancy_pct)", b1,
		    t->low_occupancy_pct);
		return "occupancy";
	}
	if (have_ach && have_th && th > 0 && ach / th < t->occupancy_gap_ratio) {
		fmtnum(b1, sizeof(b1), ach);
		fmtnum(b2, sizeof(b2), th);
		WHY("achieved_occupancy_pct %s / theoretical_occupancy_pct %s = %.2f < %g "
		    "(occupancy_gap_ratio)", b1, b2, ach / th, t->occupancy_gap_ratio);
		return "occupancy";
	}
	if (have_sm && memkey != NULL && have_ipc && sm < t->low_both_pct &&
	    mem < t->low_both_pct && ipc < t->low_ipc) {
		fmtnum(b1, sizeof(b1), sm);
		fmtnum(b2, sizeof(b2), mem);
		WHY("sm_throughput_pct %s and %s %s < %g (low_both_pct), ipc %.2f < %g (low_ipc)",
		    b1, memkey, b2, t->low_both_pct, ipc, t->low_ipc);
		return "occupancy";
	}
	fmtnum(b1, sizeof(b1), sm);
	fmtnum(b2, sizeof(b2), mem);
	WHY("no unit dominates: sm_throughput_pct %s, %s %s", have_sm ? b1 : "n/a",
	    memkey ? memkey : "memory", memkey ? b2 : "n/a");
#undef WHY
	return "speed-of-light";
}
