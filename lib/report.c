/*
 * report.c: final_report.md from the artifacts of one profile folder.
 *
 * Every section is always written; when its data is missing it says what is
 * missing, why, and which program or stage collects it.  Nothing depends on the
 * clock or the environment: the same folder gives the same report.  Large raw
 * output is linked by its path inside the profile folder, never pasted.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#include "kp.h"

#define TOP_HOTSPOTS 5
#define TOP_FINDINGS 3

struct rep {
	const char *dir;
	FILE *fp;
	json_t *target, *manifest, *summary, *kernel, *decision, *hotspots, *cmp;
	int decision_fallback;	/* classified here from the summary */
	char *commands;		/* commands.sh */
	int have_env, have_visual, have_comparison;
	char fallback_why[256];
};

static const struct stage {
	const char *id, *file;
} stages[] = {
	{ "basic", "01_basic_raw.csv" }, { "speed-of-light", "02_speed_of_light_raw.csv" },
	{ "memory", "03_memory_raw.csv" }, { "compute", "04_compute_raw.csv" },
	{ "occupancy", "05_occupancy_launch_raw.csv" }, { "roofline", "06_roofline_raw.csv" },
	{ "source", "07_source_raw.csv" }, { "full", "08_full_raw.csv" },
};

/* What each summary key means, for the evidence table. */
static const struct meaning {
	const char *key, *text;
} meanings[] = {
	{ "duration_ns", "GPU time of one launch (median over launches)" },
	{ "sm_throughput_pct", "busiest SM pipeline or unit, % of its peak" },
	{ "memory_throughput_pct", "busiest memory unit (L1, L2, DRAM), % of its peak" },
	{ "dram_throughput_pct", "DRAM bandwidth used, % of peak" },
	{ "l1tex_throughput_pct", "L1/TEX and shared memory throughput, % of peak" },
	{ "l2_throughput_pct", "L2 throughput, % of peak" },
	{ "achieved_occupancy_pct", "active warps per SM, % of the hardware maximum" },
	{ "theoretical_occupancy_pct", "warps per SM the launch allows, % of the maximum" },
	{ "registers_per_thread", "registers per thread (limits occupancy)" },
	{ "block_size", "threads per block" },
	{ "grid_size", "blocks in the grid" },
	{ "waves_per_sm", "waves of blocks per SM (below 1: the GPU is not filled)" },
	{ "ipc", "instructions issued per cycle per SM" },
	{ "shared_bank_conflicts", "shared-memory bank conflicts (serialised accesses)" },
	{ "l1tex_hit_rate_pct", "L1/TEX cache hit rate" },
	{ "l2_hit_rate_pct", "L2 cache hit rate" },
	{ "tensor_pipe_pct", "tensor-core pipe utilisation, % of peak" },
	{ "local_spill_requests", "local-memory (register spill) requests" },
};

/* What a class suggests and how to check it. */
static const struct idea {
	const char *cls, *change, *effect, *check;
} ideas[] = {
	{ "memory_bandwidth_bound", "move fewer bytes: vectorised loads, reuse through shared"
	    " memory or registers, lower precision", "duration falls with the bytes moved",
	    "dram_throughput_pct stays high while duration_ns drops" },
	{ "memory_latency_bound", "keep more loads in flight: more warps, prefetching,"
	    " asynchronous copies (cp.async/TMA), more independent loads per thread",
	    "fewer cycles waiting on memory", "stalls.long_scoreboard drops" },
	{ "poor_memory_coalescing", "make consecutive threads touch consecutive addresses",
	    "fewer sectors per request", "memory_throughput_pct per useful byte drops,"
	    " duration_ns drops" },
	{ "shared_memory_bank_conflict", "pad the shared tile (one extra column) or swizzle"
	    " its index", "shared accesses stop serialising",
	    "shared_bank_conflicts and stalls.mio_throttle drop" },
	{ "compute_pipeline_bound", "do the math on a faster pipe (tensor cores) or issue"
	    " fewer instructions", "the busiest pipe leaves headroom",
	    "duration_ns drops; sm_throughput_pct shifts to the tensor pipe" },
	{ "tensor_core_underuse", "feed the tensor cores: bigger tiles, staged operands in"
	    " shared memory, more warps per tile", "more MMA work per cycle",
	    "tensor_pipe_pct rises and duration_ns drops" },
	{ "occupancy_limited", "reduce registers or shared memory per block"
	    " (__launch_bounds__, smaller tiles) or change the block size",
	    "more warps to hide latency", "theoretical_occupancy_pct and achieved_occupancy_pct"
	    " rise" },
	{ "under_filled_grid", "launch more blocks (smaller tiles, split-K)",
	    "every SM gets work", "waves_per_sm rises toward 1 or more" },
	{ "latency_hiding_failure", "more independent work per warp (unrolling, ILP)",
	    "the scheduler finds an eligible warp more often", "ipc rises" },
	{ "register_spill", "cut register pressure (smaller per-thread arrays, fewer live"
	    " values)", "no local-memory traffic", "local_spill_requests falls to 0" },
	{ "synchronization_bound", "fewer barriers (double buffering, warp-level sync)",
	    "less time at barriers", "stalls.barrier drops" },
	{ "divergence_bound", "make branches uniform within a warp",
	    "all 32 lanes do useful work", "threads per instruction rises toward 32" },
};

/* ---- small helpers ---- */

static const char *
jstr(json_t *o, const char *path)
{
	char buf[256], *p, *s;
	json_t *v = o;

	snprintf(buf, sizeof buf, "%s", path);
	for (p = strtok_r(buf, ".", &s); p != NULL && v != NULL; p = strtok_r(NULL, ".", &s))
		v = json_object_get(v, p);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static json_t *
jget(json_t *o, const char *path)
{
	char buf[256], *p, *s;
	json_t *v = o;

	snprintf(buf, sizeof buf, "%s", path);
	for (p = strtok_r(buf, ".", &s); p != NULL && v != NULL; p = strtok_r(NULL, ".", &s))
		v = json_object_get(v, p);
	return v;
}

/* A scalar as text (numbers and booleans too), or NULL. */
static const char *
jtext(json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
		return buf;
	}
	if (json_is_real(v))
		return kp_fmt_num(buf, len, json_real_value(v));
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	return NULL;
}

static char *
path2(const char *a, const char *b)
{
	return kp_path_join(a, b);
}

static int
exists_in(const char *dir, const char *rel)
{
	char *p = path2(dir, rel);
	int r = p != NULL && (kp_is_file(p) || kp_is_dir(p));

	free(p);
	return r;
}

static json_t *
load_yaml(const char *dir, const char *rel, struct kp_err *err, int *bad)
{
	char *p = path2(dir, rel);
	struct fy_document *d;
	json_t *j = NULL;

	if (p != NULL && kp_is_file(p)) {
		if ((d = kp_yaml_load(p, err)) == NULL)
			*bad = 1;
		else {
			j = kp_yaml_to_json(fy_document_root(d));
			fy_document_destroy(d);
		}
	}
	free(p);
	return j;
}

static json_t *
load_json(const char *dir, const char *rel, struct kp_err *err, int *bad)
{
	char *p = path2(dir, rel);
	json_t *j = NULL;

	if (p != NULL && kp_is_file(p) && (j = kp_json_load_file(p, err)) == NULL)
		*bad = 1;
	free(p);
	return j;
}

/* One CSV record of a line (RFC 4180 quoting, no embedded newlines). */
static json_t *
split_csv(const char *line)
{
	json_t *a = json_array();
	const char *p = line;
	char *f = malloc(strlen(line) + 1);
	size_t n;

	if (a == NULL || f == NULL) {
		free(f);
		json_decref(a);
		return NULL;
	}
	for (;;) {
		n = 0;
		if (*p == '"') {
			for (p++; *p; p++) {
				if (*p == '"' && p[1] == '"')
					f[n++] = *p++;
				else if (*p == '"') {
					p++;
					break;
				} else
					f[n++] = *p;
			}
			while (*p && *p != ',')
				p++;
		} else
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				f[n++] = *p++;
		json_array_append_new(a, json_stringn(f, n));
		if (*p != ',')
			break;
		p++;
	}
	free(f);
	return a;
}

/* details/source_hotspots.csv as an array of objects keyed by the header. */
static json_t *
load_hotspots(const char *dir, struct kp_err *err, int *bad)
{
	char *p = path2(dir, "details/source_hotspots.csv");
	char *line = NULL;
	size_t cap = 0;
	json_t *head = NULL, *rows;
	FILE *fp;
	unsigned long ln = 0;

	if (p == NULL || !kp_is_file(p) || (rows = json_array()) == NULL) {
		free(p);
		return NULL;
	}
	if ((fp = fopen(p, "r")) == NULL) {
		kp_errno(err, KP_EXIT_DATA, p);
		*bad = 1;
		free(p);
		json_decref(rows);
		return NULL;
	}
	while (getline(&line, &cap, fp) > 0) {
		json_t *f = split_csv(line), *o, *v;
		size_t i;

		ln++;
		if (f == NULL)
			continue;
		if (head == NULL) {
			head = f;
			if (json_array_size(head) < 2 || strcmp(json_string_value(json_array_get(
			    head, 0)), "source_file") != 0) {
				kp_errf(err, KP_EXIT_DATA, "%s:1: not a source_hotspots.csv header", p);
				*bad = 1;
				break;
			}
			continue;
		}
		if (json_array_size(f) != json_array_size(head)) {
			/* a row cut short (truncated file) or with extra cells: not ours */
			kp_errf(err, KP_EXIT_DATA, "%s:%lu: %zu fields, the header has %zu", p, ln,
			    json_array_size(f), json_array_size(head));
			json_decref(f);
			*bad = 1;
			break;
		}
		o = json_object();
		json_array_foreach(f, i, v)
			if (i < json_array_size(head))
				json_object_set(o, json_string_value(json_array_get(head, i)), v);
		json_array_append_new(rows, o);
		json_decref(f);
	}
	free(line);
	fclose(fp);
	if (head == NULL && !*bad) {
		kp_errf(err, KP_EXIT_DATA, "%s: empty: no source_hotspots.csv header", p);
		*bad = 1;
	}
	free(p);
	json_decref(head);
	if (*bad) {
		json_decref(rows);
		return NULL;
	}
	return rows;
}

static const char *
meaning_of(const char *key)
{
	size_t i;

	if (strncmp(key, "stalls.", 7) == 0)
		return "warps stalled for this reason per issued instruction";
	for (i = 0; i < sizeof meanings / sizeof meanings[0]; i++)
		if (strcmp(meanings[i].key, key) == 0)
			return meanings[i].text;
	return "";
}

static const struct idea *
idea_of(const char *cls)
{
	size_t i;

	for (i = 0; cls && i < sizeof ideas / sizeof ideas[0]; i++)
		if (strcmp(ideas[i].cls, cls) == 0)
			return &ideas[i];
	return NULL;
}

/* "1.92 ms (1918432 ns)": the readable value and, when it differs, the base value. */
static void
value_text(char *buf, size_t len, const char *key, double v)
{
	const char *u = kp_summary_key_unit(key);
	char r[48], b[48];

	kp_fmt_unit(r, sizeof r, v, u);
	kp_fmt_base(b, sizeof b, v, u);
	if (*u == '\0' || strcmp(r, b) == 0)
		snprintf(buf, len, "%s", b);
	else if (strcmp(r, b) == 0)
		snprintf(buf, len, "%s", r);
	else
		snprintf(buf, len, "%s (%s)", r, b);
}

/* A hotspot field as text: CSV rows hold strings, kp-decide's rows may hold numbers. */
static const char *
hf(json_t *h, const char *key)
{
	static char buf[8][64];
	static int next;
	json_t *v = json_object_get(h, key);

	next = (next + 1) % 8;
	return jtext(v, buf[next], sizeof buf[next]);
}

/* A hotspot's location: "file:line" or the function. */
static void
where(char *buf, size_t len, json_t *h)
{
	const char *f = hf(h, "source_file"), *l = hf(h, "line");
	const char *fn = hf(h, "function"), *base;

	if (f && *f) {
		base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
		snprintf(buf, len, "%s%s%s", base, l && *l ? ":" : "", l && *l ? l : "");
	} else if (fn && *fn)
		snprintf(buf, len, "%s (no line info)", fn);
	else
		snprintf(buf, len, "unknown location");
}

/* The cell text of s with '|' and newlines made table-safe. */
static void
put_cell(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", fp);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', fp);
		else
			fputc(*s, fp);
	}
}

/* A word quoted for a POSIX shell, written to fp. */
static void
put_word(FILE *fp, const char *w)
{
	if (*w != '\0' && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_-./=:,+@%") == strlen(w)) {
		fputs(w, fp);
		return;
	}
	fputc('\'', fp);
	for (; *w; w++) {
		if (*w == '\'')
			fputs("'\\''", fp);
		else
			fputc(*w, fp);
	}
	fputc('\'', fp);
}

static void
missing(struct rep *r, const char *what, const char *why, const char *how)
{
	fprintf(r->fp, "_Missing: %s. Why: %s. Collect it with: %s._\n", what, why, how);
}

/* printf '%s\n' '{"profile_dir":"DIR"}' | PROG: the pipeline form every kp program reads. */
static void
pipe_cmd(struct rep *r, const char *prog)
{
	json_t *o = json_pack("{s:s}", "profile_dir", r->dir);
	char *j = o ? json_dumps(o, JSON_COMPACT) : NULL;

	fputs("printf '%s\\n' ", r->fp);
	put_word(r->fp, j ? j : "{}");
	fprintf(r->fp, " | %s", prog);
	free(j);
	json_decref(o);
}

/* ---- sections ---- */

static void
sec_target(struct rep *r)
{
	json_t *cmd = jget(r->manifest, "target.command"), *w;
	const char *wd = jstr(r->manifest, "target.working_directory");
	const char *rt = jstr(r->manifest, "target.runtime");
	const char *gpu = jstr(r->manifest, "gpu.name"), *drv = jstr(r->manifest, "gpu.driver");
	size_t i;

	fprintf(r->fp, "## Target summary\n\n");
	if (!json_is_array(cmd) && r->target != NULL) {
		json_t *args = jget(r->target, "target.args");

		cmd = json_array();
		if (jstr(r->target, "target.executable"))
			json_array_append(cmd, jget(r->target, "target.executable"));
		json_array_foreach(args, i, w)
			if (json_is_string(w))
				json_array_append(cmd, w);
		json_object_set_new(r->target, "_cmd", cmd);
	}
	if (!wd)
		wd = jstr(r->target, "target.working_directory");
	if (!rt)
		rt = jstr(r->target, "target.runtime");
	if (json_array_size(cmd) > 0) {
		fprintf(r->fp, "- Command: `");
		json_array_foreach(cmd, i, w) {
			if (i)
				fputc(' ', r->fp);
			put_word(r->fp, json_string_value(w) ? json_string_value(w) : "");
		}
		fprintf(r->fp, "`\n");
	} else
		fprintf(r->fp, "- Command: not recorded (no run_manifest.yaml or"
		    " profile-target.yaml; kp-gentarget writes the target, kp-collect the"
		    " manifest)\n");
	fprintf(r->fp, "- Runtime: %s\n", rt ? rt : "not recorded");
	fprintf(r->fp, "- Working directory: %s\n", wd ? wd : "not recorded");
	if (!gpu && r->kernel && jstr(r->kernel, "device"))
		fprintf(r->fp, "- GPU: %s (compute capability %s, from the ncu CSV)\n",
		    jstr(r->kernel, "device"), jstr(r->kernel, "cc") ? jstr(r->kernel, "cc") : "?");
	else
		fprintf(r->fp, "- GPU: %s\n", gpu ? gpu : "not recorded");
	fprintf(r->fp, "- Driver: %s\n", drv ? drv : "not recorded (kp-collect records it in"
	    " run_manifest.yaml and details/00_environment.txt)");
	if (r->have_env)
		fprintf(r->fp, "- Environment: [details/00_environment.txt](details/00_environment.txt)\n");
	if (jstr(r->manifest, "started_at"))
		fprintf(r->fp, "- Profiled: %s to %s (status %s)\n", jstr(r->manifest, "started_at"),
		    jstr(r->manifest, "finished_at") ? jstr(r->manifest, "finished_at") : "?",
		    jstr(r->manifest, "status") ? jstr(r->manifest, "status") : "?");
	fputc('\n', r->fp);
}

static void
sec_filter(struct rep *r)
{
	const char *mode = jstr(r->manifest, "kernel.filter_mode");
	const char *flt = jstr(r->manifest, "kernel.filter");
	const char *res = jstr(r->manifest, "kernel.resolved_name");
	json_t *skip = jget(r->manifest, "launch.skip"), *count = jget(r->manifest, "launch.count");
	char a[32], b[32];
	struct kp_err err;
	char *cand;

	fprintf(r->fp, "## Kernel filter\n\n");
	if (!mode)
		mode = jstr(r->target, "kernel.filter_mode");
	if (!flt)
		flt = jstr(r->target, "kernel.filter");
	if (!skip)
		skip = jget(r->target, "profiling.warmup_skip");
	if (!count)
		count = jget(r->target, "profiling.launch_count");
	if (!res && r->kernel)
		res = jstr(r->kernel, "name");
	fprintf(r->fp, "- Mode: %s\n", mode ? mode : "not recorded");
	fprintf(r->fp, "- Filter: %s%s%s\n", flt ? "`" : "", flt ? flt : "not recorded", flt ? "`" : "");
	fprintf(r->fp, "- Launch window: skip %s, count %s\n",
	    jtext(skip, a, sizeof a) ? jtext(skip, a, sizeof a) : "?",
	    jtext(count, b, sizeof b) ? jtext(count, b, sizeof b) : "?");
	fprintf(r->fp, "- Resolved kernel: %s%s%s\n", res ? "`" : "", res ? res : "unknown", res ? "`" : "");
	if (r->kernel) {
		json_t *l = json_object_get(r->kernel, "launches");

		fprintf(r->fp, "- Launches profiled: %lld\n", (long long)json_integer_value(l));
	}
	cand = path2(r->dir, "details/kernel_candidates.json");
	if (cand && kp_is_file(cand)) {
		json_t *c = kp_json_load_file(cand, &err), *k, *list;
		size_t i;

		list = json_is_array(c) ? c : json_object_get(c, "candidates");
		fprintf(r->fp, "- Discovery: [details/kernel_candidates.json](details/kernel_candidates.json),"
		    " %zu candidate%s", json_array_size(list), json_array_size(list) == 1 ? "" : "s");
		json_array_foreach(list, i, k)
			if (json_is_true(json_object_get(k, "chosen")))
				fprintf(r->fp, "; chosen: `%s`", jstr(k, "function") ? jstr(k, "function") : "?");
		fprintf(r->fp, "\n");
		json_decref(c);
	} else
		fprintf(r->fp, "- Discovery: none ran (kp-discover runs only when the filter is"
		    " missing or matched nothing)\n");
	free(cand);
	fputc('\n', r->fp);
}

static void
sec_profiler(struct rep *r)
{
	const char *ver = jstr(r->manifest, "ncu.version"), *path = jstr(r->manifest, "ncu.path");
	const char *priv = jstr(r->manifest, "privilege_mode");
	const char *clk = jstr(r->manifest, "clock_control");

	if (!priv)
		priv = jstr(r->target, "privilege.mode");
	if (!clk)
		clk = jstr(r->target, "profiling.clock_control");
	if (!path)
		path = jstr(r->target, "profiling.ncu_bin");
	fprintf(r->fp, "## Profiler\n\n");
	fprintf(r->fp, "- Nsight Compute: %s%s%s%s\n", ver ? ver : "version not recorded",
	    path ? " (`" : "", path ? path : "", path ? "`)" : "");
	fprintf(r->fp, "- Privilege mode: %s\n", priv ? priv : "not recorded");
	fprintf(r->fp, "- Clock control: %s%s\n", clk ? clk : "not recorded",
	    clk && strcmp(clk, "none") == 0 ? " (GPU clocks left unmodified: absolute numbers"
	    " move with the boost clock)" : "");
	if (!r->manifest)
		fprintf(r->fp, "\n"), missing(r, "run_manifest.yaml", "this folder was not made"
		    " by kp-collect", "`kp-collect` on the target file");
	fputc('\n', r->fp);
}

static void
sec_commands(struct rep *r)
{
	size_t lines = 0;
	const char *p;

	fprintf(r->fp, "## Commands\n\n");
	if (r->commands == NULL) {
		missing(r, "commands.sh", "no collection run was recorded in this folder",
		    "`kp-collect`, which writes the exact ncu commands");
		fputc('\n', r->fp);
		return;
	}
	for (p = r->commands; *p; p++)
		lines += *p == '\n';
	fprintf(r->fp, "The exact commands ([commands.sh](commands.sh); `bash commands.sh`"
	    " reproduces the run):\n\n");
	if (lines <= 40 && strlen(r->commands) <= 6000)
		fprintf(r->fp, "```sh\n%s%s```\n\n", r->commands,
		    r->commands[0] && r->commands[strlen(r->commands) - 1] != '\n' ? "\n" : "");
	else
		fprintf(r->fp, "(%zu lines: not pasted here.)\n\n", lines);
}

static void
sec_collected(struct rep *r)
{
	json_t *req = jget(r->manifest, "stages_requested"), *got = jget(r->manifest,
	    "stages_collected"), *v;
	const char *fs = jstr(r->manifest, "followup.stage"), *fr = jstr(r->manifest, "followup.reason");
	size_t i;

	fprintf(r->fp, "## Collected sections\n\n");
	if (json_is_array(req)) {
		fprintf(r->fp, "- Requested:");
		json_array_foreach(req, i, v)
			fprintf(r->fp, "%s %s", i ? "," : "", json_string_value(v) ? json_string_value(v) : "?");
		fprintf(r->fp, "\n");
	} else
		fprintf(r->fp, "- Requested: not recorded (no run_manifest.yaml)\n");
	if (json_is_array(got)) {
		fprintf(r->fp, "- Collected (run_manifest.yaml):");
		json_array_foreach(got, i, v)
			fprintf(r->fp, "%s %s", i ? "," : "", json_string_value(v) ? json_string_value(v) : "?");
		fprintf(r->fp, "\n");
	}
	fprintf(r->fp, "\n| stage | file | present |\n| --- | --- | --- |\n");
	for (i = 0; i < sizeof stages / sizeof stages[0]; i++) {
		char rel[64];
		int have;

		snprintf(rel, sizeof rel, "details/%s", stages[i].file);
		have = exists_in(r->dir, rel);
		if (have)
			fprintf(r->fp, "| %s | [%s](%s) | yes |\n", stages[i].id, rel, rel);
		else
			fprintf(r->fp, "| %s | %s | no (`kp-collect --stages %s`) |\n", stages[i].id,
			    rel, stages[i].id);
	}
	if (fs)
		fprintf(r->fp, "\nFollow-up after basic: **%s**, because %s.\n", fs, fr ? fr : "(no reason recorded)");
	else
		fprintf(r->fp, "\nFollow-up after basic: not recorded (kp-collect --stages auto chooses"
		    " and records it).\n");
	fputc('\n', r->fp);
}

static void
sec_classification(struct rep *r)
{
	json_t *f, *ne;
	size_t i;

	fprintf(r->fp, "## Bottleneck classification\n\n");
	if (r->decision == NULL) {
		missing(r, "a bottleneck classification", r->fallback_why,
		    "`kp-extract`, then `kp-decide`");
		fputc('\n', r->fp);
		return;
	}
	if (r->decision_fallback)
		fprintf(r->fp, "Classified here from details/metrics_summary.json with the default"
		    " rules (details/bottleneck_decision.json is absent; kp-decide writes it).\n\n");
	else
		fprintf(r->fp, "From [details/bottleneck_decision.json](details/bottleneck_decision.json)"
		    " (kp-decide).\n\n");
	fprintf(r->fp, "Primary class: **%s**\n\n", jstr(r->decision, "primary") ?
	    jstr(r->decision, "primary") : "none (no rule fired)");
	json_array_foreach(json_object_get(r->decision, "findings"), i, f) {
		char sc[32];

		fprintf(r->fp, "%zu. **%s** (severity %s, score %s): ", i + 1,
		    jstr(f, "class") ? jstr(f, "class") : "?",
		    jstr(f, "severity") ? jstr(f, "severity") : "?",
		    jtext(json_object_get(f, "score"), sc, sizeof sc) ? sc : "?");
		put_cell(r->fp, jstr(f, "text") ? jstr(f, "text") : "(no evidence text)");
		fputc('\n', r->fp);
	}
	ne = json_object_get(r->decision, "not_evaluated");
	if (json_array_size(ne) > 0) {
		fprintf(r->fp, "\nNot evaluated (a rule whose metric is absent does not fire):");
		json_array_foreach(ne, i, f)
			fprintf(r->fp, "%s %s (%s)", i ? ";" : "", jstr(f, "class") ? jstr(f, "class") : "?",
			    jstr(f, "reason") ? jstr(f, "reason") : "?");
		fprintf(r->fp, ".\n");
	}
	fputc('\n', r->fp);
}

/* The thresholds the decision judged key against: "memory_bandwidth_bound: >= 60". */
static void
thresholds(struct rep *r, const char *key, char *buf, size_t len)
{
	json_t *f, *e;
	size_t i, j, n = 0;

	buf[0] = '\0';
	json_array_foreach(json_object_get(r->decision, "findings"), i, f) {
		json_array_foreach(json_object_get(f, "evidence"), j, e) {
			const char *m = jstr(e, "metric");
			char t[32];
			size_t used = strlen(buf);

			if (!m || strcmp(m, key) != 0 || used + 80 > len)
				continue;
			snprintf(buf + used, len - used, "%s%s %s %s", n++ ? "; " : "",
			    jstr(f, "class") ? jstr(f, "class") : "?", jstr(e, "op") ? jstr(e, "op") : "?",
			    jtext(json_object_get(e, "threshold"), t, sizeof t) ? t : "?");
		}
	}
	if (n == 0)
		snprintf(buf, len, "—");
}

static void
evidence_row(struct rep *r, const char *key, double v)
{
	char val[128], th[512];

	value_text(val, sizeof val, key, v);
	thresholds(r, key, th, sizeof th);
	fprintf(r->fp, "| `%s` | %s | %s | %s | %s |\n", key, val,
	    *kp_summary_key_unit(key) ? kp_summary_key_unit(key) :
	    strncmp(key, "stalls.", 7) == 0 ? "warps/issue" : "count",
	    meaning_of(key), th);
}

struct stall {
	const char *name;
	double v;
};

static int
by_stall(const void *a, const void *b)
{
	const struct stall *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void
sec_evidence(struct rep *r)
{
	json_t *st, *v;
	struct stall s[64];
	size_t i, n = 0;
	const char *k;
	double x;

	fprintf(r->fp, "## Evidence table\n\n");
	if (r->kernel == NULL) {
		missing(r, "details/metrics_summary.json", "the ncu CSV has not been summarised",
		    "`kp-extract` on the stage CSV files");
		fputc('\n', r->fp);
		return;
	}
	fprintf(r->fp, "Medians over %lld launch%s of `%s`, from"
	    " [details/metrics_summary.json](details/metrics_summary.json). Units are decimal"
	    " (1 ms = 10^6 ns, 1 TB/s = 10^12 byte/s); the base value is kept in brackets.\n\n",
	    (long long)json_integer_value(json_object_get(r->kernel, "launches")),
	    json_integer_value(json_object_get(r->kernel, "launches")) == 1 ? "" : "es",
	    jstr(r->kernel, "function") ? jstr(r->kernel, "function") : "?");
	fprintf(r->fp, "| metric | value | unit | meaning | threshold |\n| --- | --- | --- | --- | --- |\n");
	for (i = 0; i < sizeof meanings / sizeof meanings[0]; i++)
		if (kp_summary_value(r->kernel, meanings[i].key, &x) == 0)
			evidence_row(r, meanings[i].key, x);
	st = json_object_get(json_object_get(r->kernel, "summary"), "stalls");
	json_object_foreach(st, k, v) {
		if (json_is_number(v) && n < 64) {
			s[n].name = k;
			s[n++].v = json_number_value(v);
		}
	}
	qsort(s, n, sizeof s[0], by_stall);
	for (i = 0; i < n && i < 4; i++) {
		char key[160];

		snprintf(key, sizeof key, "stalls.%s", s[i].name);
		evidence_row(r, key, s[i].v);
	}
	if (n > 4)
		fprintf(r->fp, "\n%zu more stall reasons are in details/metrics_summary.json.\n", n - 4);
	fputc('\n', r->fp);
}

static void
sec_hotspots(struct rep *r)
{
	json_t *h;
	size_t i;

	fprintf(r->fp, "## Source/SASS/PTX hotspots\n\n");
	if (r->hotspots == NULL || json_array_size(r->hotspots) == 0) {
		if (exists_in(r->dir, "details/07_source_raw.csv"))
			missing(r, "details/source_hotspots.csv", "the source page was collected but"
			    " not ranked", "`kp-hotspots --input details/07_source_raw.csv --output"
			    " details/source_hotspots.csv`");
		else
			missing(r, "source-level hotspots", "the source stage was not collected",
			    "`kp-collect --stages source` (build the kernel with -lineinfo), then"
			    " `kp-hotspots`");
		fputc('\n', r->fp);
		return;
	}
	fprintf(r->fp, "Top rows of [details/source_hotspots.csv](details/source_hotspots.csv)"
	    " (%zu row%s in all).\n\n", json_array_size(r->hotspots),
	    json_array_size(r->hotspots) == 1 ? "" : "s");
	fprintf(r->fp, "| # | location | SASS | PTX | metric | value | stall reason | class |"
	    " confidence | evidence |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	json_array_foreach(r->hotspots, i, h) {
		char w[512];
		static const char *const cols[] = { "sass_opcode", "ptx_opcode", "metric", "value",
			"stall_reason", "bottleneck_class", "confidence", "evidence" };
		size_t c;

		if (i >= TOP_HOTSPOTS)
			break;
		where(w, sizeof w, h);
		fprintf(r->fp, "| %zu | ", i + 1);
		put_cell(r->fp, w);
		for (c = 0; c < sizeof cols / sizeof cols[0]; c++) {
			const char *t = jstr(h, cols[c]);

			fputs(" | ", r->fp);
			put_cell(r->fp, t && *t ? t : "—");
		}
		fputs(" |\n", r->fp);
	}
	fputc('\n', r->fp);
}

/* The hotspot that backs a finding: its own rows, else the top row of its class,
 * else the top row overall. */
static json_t *
hotspot_for(struct rep *r, json_t *f, int *own)
{
	json_t *h;
	size_t i;

	*own = 1;
	if (json_array_size(json_object_get(f, "hotspots")) > 0)
		return json_array_get(json_object_get(f, "hotspots"), 0);
	json_array_foreach(r->hotspots, i, h)
		if (hf(h, "bottleneck_class") && jstr(f, "class") &&
		    strcmp(hf(h, "bottleneck_class"), jstr(f, "class")) == 0)
			return h;
	*own = 0;
	return json_array_get(r->hotspots, 0);
}

static void
sec_hypotheses(struct rep *r)
{
	json_t *f, *a;
	size_t i, j, n = 0;

	fprintf(r->fp, "## Optimization hypotheses\n\n");
	if (r->decision == NULL || json_array_size(json_object_get(r->decision, "findings")) == 0) {
		if (r->decision == NULL)
			missing(r, "findings to build hypotheses on", r->fallback_why,
			    "`kp-decide` after `kp-extract`");
		else
			fprintf(r->fp, "No rule fired, so no hypothesis is backed by evidence. Collect"
			    " more sections (see Next profiling actions) before changing the kernel.\n");
		fputc('\n', r->fp);
		return;
	}
	json_array_foreach(json_object_get(r->decision, "findings"), i, f) {
		const struct idea *id = idea_of(jstr(f, "class"));
		int own;
		json_t *h = hotspot_for(r, f, &own);
		char w[512];

		if (n >= TOP_FINDINGS)
			break;
		fprintf(r->fp, "%zu. **%s**. Finding: ", ++n, jstr(f, "class") ? jstr(f, "class") : "?");
		put_cell(r->fp, jstr(f, "text") ? jstr(f, "text") : "(no evidence text)");
		fprintf(r->fp, "\n   - Hotspot: ");
		if (h != NULL) {
			where(w, sizeof w, h);
			fprintf(r->fp, "`%s`", w);
			if (hf(h, "sass_opcode") && *hf(h, "sass_opcode"))
				fprintf(r->fp, ", SASS `%s`", hf(h, "sass_opcode"));
			if (hf(h, "metric") && hf(h, "value"))
				fprintf(r->fp, ", %s = %s", hf(h, "metric"), hf(h, "value"));
			if (hf(h, "stall_reason") && *hf(h, "stall_reason"))
				fprintf(r->fp, ", stall %s", hf(h, "stall_reason"));
			if (!own)
				fprintf(r->fp, " (the top row overall: no row is classed %s)",
				    jstr(f, "class") ? jstr(f, "class") : "?");
			fputc('\n', r->fp);
		} else
			fprintf(r->fp, "none ranked (run `kp-hotspots` on the source stage)\n");
		if (id != NULL) {
			fprintf(r->fp, "   - Change: %s.\n   - Expected effect: %s.\n", id->change, id->effect);
			fprintf(r->fp, "   - How to check: re-profile, then `kp-compare --current NEW"
			    " --baseline %s`: %s.\n", r->dir, id->check);
		} else
			fprintf(r->fp, "   - How to check: re-profile, then `kp-compare --current NEW"
			    " --baseline %s`: duration_ns should drop.\n", r->dir);
		json_array_foreach(json_object_get(f, "next_actions"), j, a)
			if (json_is_string(a))
				fprintf(r->fp, "   - Rule's next action: %s\n", json_string_value(a));
	}
	fputc('\n', r->fp);
}

static int
stage_count(struct rep *r)
{
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof stages / sizeof stages[0]; i++) {
		char rel[64];

		snprintf(rel, sizeof rel, "details/%s", stages[i].file);
		n += exists_in(r->dir, rel);
	}
	return n;
}

static void
sec_confidence(struct rep *r)
{
	json_t *top = json_array_get(json_object_get(r->decision, "findings"), 0);
	json_t *h0 = json_array_get(r->hotspots, 0);
	long long launches = json_integer_value(json_object_get(r->kernel, "launches"));
	int score = 0, st = stage_count(r);
	const char *level;

	fprintf(r->fp, "## Confidence\n\n");
	if (r->kernel == NULL) {
		fprintf(r->fp, "**low**: there is no metrics summary, so no claim can cite a"
		    " number.\n\n");
		return;
	}
	score += r->decision != NULL && top != NULL;
	score += top != NULL && jstr(top, "severity") && strcmp(jstr(top, "severity"), "high") == 0;
	score += h0 != NULL && hf(h0, "line") && *hf(h0, "line") &&
	    hf(h0, "confidence") && strcmp(hf(h0, "confidence"), "high") == 0;
	score += st >= 2;
	level = score >= 4 ? "high" : score >= 2 ? "medium" : "low";
	fprintf(r->fp, "**%s** (%d of 4 points):\n\n", level, score);
	fprintf(r->fp, "- %s\n", top == NULL ? "no bottleneck finding (0)" :
	    r->decision_fallback ? "a finding from the default rules on the summary (1)" :
	    "a finding from kp-decide (1)");
	fprintf(r->fp, "- top finding severity: %s (%d)\n", top && jstr(top, "severity") ?
	    jstr(top, "severity") : "none", top && jstr(top, "severity") &&
	    strcmp(jstr(top, "severity"), "high") == 0);
	fprintf(r->fp, "- top hotspot: %s\n", h0 == NULL ? "none (0)" :
	    (hf(h0, "line") && *hf(h0, "line") && hf(h0, "confidence") &&
	    strcmp(hf(h0, "confidence"), "high") == 0) ? "a source line with high"
	    " confidence (1)" : "without a source line or with lower confidence (0)");
	fprintf(r->fp, "- stages collected: %d (%d)\n", st, st >= 2);
	fprintf(r->fp, "- launches: %lld%s\n\n", launches, launches <= 1 ?
	    " (a single launch: no spread to judge noise by)" : "");
}

static void
sec_limitations(struct rep *r)
{
	json_t *v, *ne = json_object_get(r->decision, "not_evaluated");
	json_t *unk = json_object_get(r->kernel, "unknown_units");
	json_t *oos = jget(r->target, "notes.unsupported_or_deferred_requirements");
	const char *clk = jstr(r->manifest, "clock_control"), *rt = jstr(r->target, "target.runtime");
	const char *miss[sizeof meanings / sizeof meanings[0]];
	size_t i, n = 0;
	int any = 0;
	double x;

	if (!clk)
		clk = jstr(r->target, "profiling.clock_control");
	if (!rt)
		rt = jstr(r->manifest, "target.runtime");
	fprintf(r->fp, "## Limitations\n\n");
	if (r->kernel != NULL) {
		for (i = 0; i < sizeof meanings / sizeof meanings[0]; i++)
			if (kp_summary_value(r->kernel, meanings[i].key, &x) != 0)
				miss[n++] = meanings[i].key;
		if (n > 0) {
			fprintf(r->fp, "- Missing counters (not in the collected sections):");
			for (i = 0; i < n; i++)
				fprintf(r->fp, "%s `%s`", i ? "," : "", miss[i]);
			fprintf(r->fp, ".\n");
			any = 1;
		}
		if (json_integer_value(json_object_get(r->kernel, "launches")) <= 1) {
			fprintf(r->fp, "- A single launch was profiled: run-to-run noise is not"
			    " measured (profile 3 launches with `--launch-count 3`).\n");
			any = 1;
		}
	} else {
		fprintf(r->fp, "- No metrics summary: every number is missing.\n");
		any = 1;
	}
	json_array_foreach(ne, i, v) {
		fprintf(r->fp, "- Rule %s not evaluated: %s.\n", jstr(v, "class") ? jstr(v, "class") : "?",
		    jstr(v, "reason") ? jstr(v, "reason") : "?");
		any = 1;
	}
	json_array_foreach(unk, i, v) {
		if (json_is_string(v)) {
			fprintf(r->fp, "- Unknown unit, value kept unscaled: `%s`.\n", json_string_value(v));
			any = 1;
		}
	}
	if (clk && strcmp(clk, "none") == 0) {
		fprintf(r->fp, "- Clocks were not locked (clock_control none): durations follow the"
		    " GPU's boost clock and vary between runs.\n");
		any = 1;
	} else if (!clk) {
		fprintf(r->fp, "- The clock control setting is not recorded; durations may follow the"
		    " boost clock.\n");
		any = 1;
	}
	if (rt && strstr(rt, "triton") != NULL) {
		fprintf(r->fp, "- Triton: source mapping to Python lines is best effort.\n");
		any = 1;
	} else {
		json_t *h;

		json_array_foreach(r->hotspots, i, h)
			if (hf(h, "confidence") && strcmp(hf(h, "confidence"), "best_effort") == 0) {
				fprintf(r->fp, "- Source mapping is best effort for some hotspot rows"
				    " (confidence best_effort).\n");
				any = 1;
				break;
			}
	}
	json_array_foreach(oos, i, v) {
		const char *t = json_is_string(v) ? json_string_value(v) :
		    jstr(v, "request") ? jstr(v, "request") : jstr(v, "text");
		const char *why = json_is_object(v) ? jstr(v, "reason") : NULL;

		fprintf(r->fp, "- Out of scope (kernel-level profiling only): ");
		put_cell(r->fp, t ? t : "?");
		if (why) {
			fprintf(r->fp, " (");
			put_cell(r->fp, why);
			fprintf(r->fp, ")");
		}
		fprintf(r->fp, ".\n");
		any = 1;
	}
	if (!any)
		fprintf(r->fp, "- None recorded.\n");
	fputc('\n', r->fp);
}

static void
sec_next(struct rep *r)
{
	int n = 0;
	const char *cls = jstr(r->decision, "primary");

	fprintf(r->fp, "## Next profiling actions\n\n");
	if (!exists_in(r->dir, "details/01_basic_raw.csv") && r->kernel == NULL) {
		fprintf(r->fp, "%d. Collect the basic stage: `kp-collect --stages basic %s/profile-target.yaml`\n",
		    ++n, r->dir);
	}
	if (r->kernel == NULL) {
		fprintf(r->fp, "%d. Summarise the CSV: `", ++n);
		pipe_cmd(r, "kp-extract");
		fprintf(r->fp, "`\n");
	}
	if (!exists_in(r->dir, "details/07_source_raw.csv"))
		fprintf(r->fp, "%d. Collect source counters (kernel built with -lineinfo):"
		    " `kp-collect --stages source %s/profile-target.yaml`\n", ++n, r->dir);
	else if (r->hotspots == NULL) {
		fprintf(r->fp, "%d. Rank the source lines: `kp-hotspots --input %s/details/07_source_raw.csv"
		    " --output %s/details/source_hotspots.csv`\n", ++n, r->dir, r->dir);
	}
	if (cls && (strstr(cls, "memory") || strstr(cls, "coalescing")) &&
	    !exists_in(r->dir, "details/03_memory_raw.csv"))
		fprintf(r->fp, "%d. Memory detail for %s: `kp-collect --stages memory %s/profile-target.yaml`\n",
		    ++n, cls, r->dir);
	if (cls && (strstr(cls, "occupancy") || strstr(cls, "grid") || strstr(cls, "latency")) &&
	    !exists_in(r->dir, "details/05_occupancy_launch_raw.csv"))
		fprintf(r->fp, "%d. Occupancy detail for %s: `kp-collect --stages occupancy %s/profile-target.yaml`\n",
		    ++n, cls, r->dir);
	if (cls && (strstr(cls, "compute") || strstr(cls, "tensor")) &&
	    !exists_in(r->dir, "details/04_compute_raw.csv"))
		fprintf(r->fp, "%d. Compute detail for %s: `kp-collect --stages compute %s/profile-target.yaml`\n",
		    ++n, cls, r->dir);
	if (r->kernel != NULL && (r->decision == NULL || r->decision_fallback))
		fprintf(r->fp, "%d. Classify with the rules: `kp-decide --metrics %s/details/metrics_summary.json"
		    " --output %s/details/bottleneck_decision.json`\n", ++n, r->dir, r->dir);
	if (r->kernel != NULL && json_integer_value(json_object_get(r->kernel, "launches")) <= 1)
		fprintf(r->fp, "%d. Measure noise with three launches: `kp-collect --launch-count 3"
		    " %s/profile-target.yaml`\n", ++n, r->dir);
	if (r->kernel != NULL)
		fprintf(r->fp, "%d. After changing the kernel, profile again and compare:"
		    " `kp-compare --current NEW_PROFILE_DIR --baseline %s`\n", ++n, r->dir);
	if (!r->have_visual && r->kernel != NULL)
		fprintf(r->fp, "%d. Draw the summary: `kp-plot %s`\n", ++n, r->dir);
	fprintf(r->fp, "%d. Regenerate this report: `kp-report %s`\n\n", ++n, r->dir);
}

static void
sec_comparison(struct rep *r)
{
	fprintf(r->fp, "## Comparison\n\n");
	if (r->cmp == NULL) {
		fprintf(r->fp, "comparison/ exists but holds no comparison.json (kp-compare writes it).\n\n");
		return;
	}
	fprintf(r->fp, "Verdict: **%s**: ", jstr(r->cmp, "verdict") ? jstr(r->cmp, "verdict") : "?");
	put_cell(r->fp, jstr(r->cmp, "verdict_reason") ? jstr(r->cmp, "verdict_reason") : "");
	fprintf(r->fp, ".\n\n- Baseline: %s\n- Current: %s\n",
	    jstr(r->cmp, "baseline.path") ? jstr(r->cmp, "baseline.path") : "?",
	    jstr(r->cmp, "current.path") ? jstr(r->cmp, "current.path") : "?");
	if (exists_in(r->dir, "comparison/regression_report.md"))
		fprintf(r->fp, "- Details: [comparison/regression_report.md](comparison/regression_report.md)\n");
	fputc('\n', r->fp);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
sec_visual(struct rep *r)
{
	char *d = path2(r->dir, "visual"), *names[64];
	struct dirent *de;
	DIR *dp;
	size_t n = 0, i;

	fprintf(r->fp, "## Visual\n\n");
	if (d != NULL && (dp = opendir(d)) != NULL) {
		while ((de = readdir(dp)) != NULL && n < 64)
			if (de->d_name[0] != '.' && strstr(de->d_name, ".tmp.") == NULL)
				names[n++] = strdup(de->d_name);
		closedir(dp);
	}
	free(d);
	qsort(names, n, sizeof names[0], cmp_names);
	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		if (strstr(names[i], ".png") || strstr(names[i], ".svg"))
			fprintf(r->fp, "![%s](visual/%s)\n\n", names[i], names[i]);
	}
	for (i = 0; i < n; i++) {
		if (names[i] != NULL && !strstr(names[i], ".png") && !strstr(names[i], ".svg"))
			fprintf(r->fp, "- [visual/%s](visual/%s)\n", names[i], names[i]);
		free(names[i]);
	}
	if (n == 0)
		fprintf(r->fp, "visual/ is empty (kp-plot draws the summary).\n");
	fputc('\n', r->fp);
}

/* ---- putting it together ---- */

static void
classify(struct rep *r)
{
	if (r->decision != NULL)
		return;
	if (r->kernel == NULL) {
		snprintf(r->fallback_why, sizeof r->fallback_why, "there is no"
		    " details/metrics_summary.json to classify");
		return;
	}
	{
		struct kp_err e;
		struct kp_rules *rules = kp_rules_load_default(&e);

		if (rules != NULL) {
			char *sp = path2(r->dir, "details/metrics_summary.json");

			r->decision = sp == NULL ? NULL : kp_rules_decide_summary(rules,
			    r->summary, sp, r->kernel, r->hotspots, &e);
			if (sp == NULL)
				kp_errf(&e, KP_EXIT_ENV, "out of memory");
			free(sp);
			kp_rules_free(rules);
		}
		if (r->decision != NULL) {
			r->decision_fallback = 1;
			return;
		}
		snprintf(r->fallback_why, sizeof r->fallback_why, "details/bottleneck_decision.json"
		    " is absent and the default rules could not be used (%.160s)", e.msg);
	}
}

static void
free_rep(struct rep *r)
{
	json_decref(r->target);
	json_decref(r->manifest);
	json_decref(r->summary);
	json_decref(r->decision);
	json_decref(r->hotspots);
	json_decref(r->cmp);
	free(r->commands);
}

static int
load_all(struct rep *r, struct kp_err *err)
{
	int bad = 0;
	char *p;

	r->target = load_yaml(r->dir, "profile-target.yaml", err, &bad);
	if (!bad)
		r->manifest = load_yaml(r->dir, "run_manifest.yaml", err, &bad);
	if (!bad)
		r->summary = load_json(r->dir, "details/metrics_summary.json", err, &bad);
	if (!bad)
		r->decision = load_json(r->dir, "details/bottleneck_decision.json", err, &bad);
	if (!bad)
		r->hotspots = load_hotspots(r->dir, err, &bad);
	if (!bad && exists_in(r->dir, "comparison"))
		r->cmp = load_json(r->dir, "comparison/comparison.json", err, &bad);
	if (bad)
		return -1;
	if (r->summary != NULL) {
		json_t *ks = json_object_get(r->summary, "kernels");
		json_t *pi = json_object_get(r->summary, "primary");

		if (!json_is_array(ks)) {
			return kp_errf(err, KP_EXIT_DATA, "%s/details/metrics_summary.json: not a"
			    " metrics summary (no \"kernels\" array)", r->dir);
		}
		r->kernel = json_array_get(ks, json_is_integer(pi) ? (size_t)json_integer_value(pi) : 0);
	}
	if (r->decision != NULL && !json_is_object(r->decision))
		return kp_errf(err, KP_EXIT_DATA, "%s/details/bottleneck_decision.json: not an"
		    " object", r->dir);
	if ((p = path2(r->dir, "commands.sh")) != NULL && kp_is_file(p) &&
	    (r->commands = kp_read_file(p, NULL, err)) == NULL) {
		free(p);
		return -1;
	}
	free(p);
	r->have_env = exists_in(r->dir, "details/00_environment.txt");
	r->have_visual = exists_in(r->dir, "visual");
	r->have_comparison = exists_in(r->dir, "comparison");
	classify(r);
	return 0;
}

char *
kp_report_render(const char *dir, struct kp_err *err)
{
	struct rep r;
	char *buf = NULL;
	size_t len = 0;
	const char *fn;

	memset(&r, 0, sizeof r);
	r.dir = dir;
	if (!kp_is_dir(dir)) {
		if (kp_is_file(dir))
			kp_errf(err, KP_EXIT_DATA, "%s: not a profile folder (a file)", dir);
		else {
			errno = ENOENT;
			kp_errno(err, KP_EXIT_DATA, dir);
		}
		return NULL;
	}
	if (load_all(&r, err) < 0) {
		free_rep(&r);
		return NULL;
	}
	if ((r.fp = open_memstream(&buf, &len)) == NULL) {
		kp_errno(err, KP_EXIT_ENV, "open_memstream");
		free_rep(&r);
		return NULL;
	}
	fn = r.kernel ? jstr(r.kernel, "function") : jstr(r.target, "kernel.name");
	fprintf(r.fp, "# Kernel profile: %s\n\n", fn ? fn : "unknown kernel");
	fprintf(r.fp, "Profile folder: `%s`. Written by kp-report from the artifacts in this"
	    " folder; every number below is read from the file it links.\n\n", dir);
	sec_target(&r);
	sec_filter(&r);
	sec_profiler(&r);
	sec_commands(&r);
	sec_collected(&r);
	sec_classification(&r);
	sec_evidence(&r);
	sec_hotspots(&r);
	sec_hypotheses(&r);
	sec_confidence(&r);
	sec_limitations(&r);
	sec_next(&r);
	if (r.have_comparison)
		sec_comparison(&r);
	if (r.have_visual)
		sec_visual(&r);
	if (fclose(r.fp) != 0) {
		kp_errno(err, KP_EXIT_ENV, "open_memstream");
		free(buf);
		buf = NULL;
	}
	free_rep(&r);
	return buf;
}

char *
kp_report_write(const char *dir, struct kp_err *err)
{
	char *text = kp_report_render(dir, err), *path;

	if (text == NULL)
		return NULL;
	if ((path = kp_path_join(dir, "final_report.md")) == NULL) {
		free(text);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	if (kp_write_file_atomic(path, text, strlen(text), err) < 0) {
		free(path);
		path = NULL;
	}
	free(text);
	return path;
}
