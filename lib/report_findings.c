/*
 * report_findings.c: the report's sections about the kernel: the evidence
 * table, the hotspots, the hypotheses they back, the confidence in them and
 * the limitations of the data.  (The verdict itself: report_verdict.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_fmt.h"
#include "kp_source.h"
#include "kp_summary.h"
#include "kp_summary_keys.h"
#include "profile.h"
#include "report_int.h"

#define TOP_HOTSPOTS 5
#define TOP_FINDINGS 3

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
	{ "under_filled_grid", "launch more blocks (smaller tiles, split-K) or size the"
	    " grid to whole waves", "every SM gets work until the end",
	    "waves_per_sm rises toward 1 or more; sm__cycles_active.avg nears"
	    " sm__cycles_elapsed.avg" },
	{ "latency_hiding_failure", "more independent work per warp (unrolling, ILP)",
	    "the scheduler finds an eligible warp more often", "ipc rises" },
	{ "register_spill", "cut register pressure (smaller per-thread arrays, fewer live"
	    " values)", "no local-memory traffic", "local_spill_requests falls to 0" },
	{ "synchronization_bound", "fewer waits for other threads: fewer barriers (double"
	    " buffering, warp-level sync), fences once per batch and at block scope, no spin-waits",
	    "less time at barriers, fences and locks", "stalls.barrier, stalls.membar and"
	    " stalls.sleeping drop" },
	{ "l1_throughput_bound", "move less through L1: keep reused values in registers,"
	    " exchange them by warp shuffles rather than shared memory, stage reused global"
	    " data once", "L1/TEX leaves headroom", "l1tex_throughput_pct falls while"
	    " duration_ns drops" },
	{ "atomic_contention", "aggregate before updating: a warp or block reduction, then one"
	    " atomic per warp or block, or private copies merged at the end",
	    "fewer updates serialise on the same addresses", "duration_ns drops (and in"
	    " details/metrics_all.json the busiest L2 slice's atomic unit,"
	    " lts__d_atomic_input_cycles_active.max, falls)" },
	{ "latency_bound", "more independent work per thread (unrolling, several"
	    " accumulators), loads issued earlier, more warps where occupancy allows",
	    "instructions issue in more cycles", "ipc rises and the largest stall reason"
	    " (stalls.<reason>) drops" },
	{ "divergence_bound", "make branches uniform within a warp",
	    "all 32 lanes do useful work", "threads per instruction rises toward 32" },
};

static const char *
meaning_of(const char *key)
{
	const struct kp_summary_key *k = kp_summary_key(key);

	if (strncmp(key, "stalls.", 7) == 0)
		return "warps stalled for this reason per issued instruction";
	return k != NULL ? k->meaning : "";
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

/* The address (instruction) or address range a SASS-only row's evidence begins
 * with ("range 0xA-0xB (..." / "instruction 0xA of ..."), into buf ("" if none). */
static void
sass_address(char *buf, size_t len, json_t *h)
{
	const char *e = rep_hf(h, "evidence"), *p = NULL;

	buf[0] = '\0';
	if (e != NULL && strncmp(e, "range 0x", 8) == 0)
		p = e + 6;
	else if (e != NULL && strncmp(e, "instruction 0x", 14) == 0)
		p = e + 12;
	if (p != NULL)
		snprintf(buf, len, "%.*s", (int)strcspn(p, " :"), p);
}

/* A hotspot's location: "file:line", or the function and its SASS address. */
static void
where(char *buf, size_t len, json_t *h)
{
	const char *f = rep_hf(h, "source_file"), *l = rep_hf(h, "line");
	const char *fn = rep_hf(h, "function"), *base;
	char a[80];

	sass_address(a, sizeof a, h);
	if (f && *f) {
		base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
		snprintf(buf, len, "%s%s%s", base, l && *l ? ":" : "", l && *l ? l : "");
	} else if (fn && *fn && a[0])
		snprintf(buf, len, "%s @ %s (SASS only)", fn, a);
	else if (fn && *fn)
		snprintf(buf, len, "%s (no line info)", fn);
	else
		snprintf(buf, len, "unknown location");
}

/* "mio_throttle (5.7% of the row's samples)" from the row's evidence ("stall
 * mio_throttle 608 of 10586 samples (5.7%)"); the bare name when it has none. */
static void
stall_with_share(char *buf, size_t len, json_t *h)
{
	const char *sr = rep_hf(h, "stall_reason"), *e = rep_hf(h, "evidence"), *p, *q;
	char key[96];

	buf[0] = '\0';
	if (sr == NULL || *sr == '\0')
		return;
	snprintf(key, sizeof key, "stall %s ", sr);
	if (e != NULL && (p = strstr(e, key)) != NULL && (q = strstr(p, "samples (")) != NULL &&
	    strchr(q, '%') != NULL) {
		q += 9;
		snprintf(buf, len, "%s (%.*s of the row's samples)", sr, (int)strcspn(q, ")"), q);
		return;
	}
	snprintf(buf, len, "%s", sr);
}

/* How the source page maps SASS, from the manifest's source_mapping. */
static void
mapping_note(struct rep *r)
{
	const char *m = rep_jstr(r->manifest, "source_mapping.mapping");
	const char *why = rep_jstr(r->manifest, "source_mapping.reason");
	json_t *dv = rep_jget(r->manifest, "source_mapping.extra_pass.duration_s");

	if (m == NULL || strcmp(m, "cuda+sass") == 0)
		return;
	fprintf(r->fp, "Source mapping: **%s**", m);
	if (why != NULL) {
		fputs(" (", r->fp);
		rep_put_cell(r->fp, why);
		fputc(')', r->fp);
	}
	fprintf(r->fp, ". The kernel has no lineinfo (a library kernel, or one built without"
	    " `-lineinfo`), so rows are SASS address ranges and instructions, not source"
	    " lines");
	if (json_is_number(dv))
		fprintf(r->fp, "; the SASS view cost one more ncu pass (%.2f s)",
		    json_number_value(dv));
	else if (json_is_string(dv))
		fprintf(r->fp, "; the SASS view cost one more ncu pass (%s s)",
		    json_string_value(dv));
	fputs(".\n\n", r->fp);
}

/* What the SASS families of the shown rows do. */
static void
sass_glossary(struct rep *r)
{
	const char *seen[TOP_HOTSPOTS];
	size_t i, j, n = 0;
	json_t *h;

	json_array_foreach(r->hotspots, i, h) {
		const char *op = rep_hf(h, "sass_opcode");

		if (i >= TOP_HOTSPOTS)
			break;
		if (op == NULL || *op == '\0' || kp_sass_describe(op) == NULL)
			continue;
		for (j = 0; j < n && strcmp(seen[j], op) != 0; j++)
			;
		if (j < n)
			continue;
		if (n == 0)
			fprintf(r->fp, "What the top instructions do:\n\n");
		seen[n++] = op;
		fprintf(r->fp, "- `%s`: %s%s\n", op, kp_sass_describe(op),
		    kp_sass_is_tensor(op) ? " (tensor-core work)" : "");
	}
	if (n > 0)
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
			const char *m = rep_jstr(e, "metric");
			char t[32];
			size_t used = strlen(buf);

			if (!m || strcmp(m, key) != 0 || used + 80 > len)
				continue;
			snprintf(buf + used, len - used, "%s%s %s %s", n++ ? "; " : "",
			    rep_jstr(f, "class") ? rep_jstr(f, "class") : "?", rep_jstr(e, "op") ? rep_jstr(e, "op") : "?",
			    rep_jtext(json_object_get(e, "threshold"), t, sizeof t) ? t : "?");
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

void
rep_sec_evidence(struct rep *r)
{
	json_t *st, *v;
	struct stall s[64];
	size_t i, n = 0;
	const char *k;
	double x;

	fprintf(r->fp, "## Evidence table\n\n");
	if (r->kernel == NULL) {
		rep_missing(r, kp_artifact_rel(KP_ART_SUMMARY), "the ncu CSV has not been summarised",
		    "`kp-extract` on the stage CSV files");
		fputc('\n', r->fp);
		return;
	}
	{
		long long m = json_integer_value(json_object_get(r->kernel, "launches"));
		long long d = rep_distinct_launches(r->kernel);
		const char *fn = rep_jstr(r->kernel, "function") ? rep_jstr(r->kernel, "function") : "?";

		if (d > 0 && d < m)
			fprintf(r->fp, "Medians over %lld measurements (%lld launch%s, each in"
			    " several ncu passes) of `%s`, from ", m, d, d == 1 ? "" : "es", fn);
		else
			fprintf(r->fp, "Medians over %lld launch%s of `%s`, from ", m,
			    m == 1 ? "" : "es", fn);
	}
	rep_link(r, KP_ART_SUMMARY);
	fprintf(r->fp, ". Units are decimal (1 ms = 10^6 ns, 1 TB/s = 10^12 byte/s); the base"
	    " value is kept in brackets.\n\n");
	fprintf(r->fp, "| metric | value | unit | meaning | threshold |\n| --- | --- | --- | --- | --- |\n");
	for (i = 0; i < KP_NSKEYS; i++)
		if (kp_summary_value(r->kernel, kp_summary_keys[i].name, &x) == 0)
			evidence_row(r, kp_summary_keys[i].name, x);
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
		fprintf(r->fp, "\n%zu more stall reasons are in %s.\n", n - 4,
		    kp_artifact_rel(KP_ART_SUMMARY));
	fputc('\n', r->fp);
}

void
rep_sec_hotspots(struct rep *r)
{
	json_t *h;
	size_t i;

	fprintf(r->fp, "## Source/SASS/PTX hotspots\n\n");
	if (r->hotspots == NULL || json_array_size(r->hotspots) == 0) {
		char how[256];

		snprintf(how, sizeof how, "`kp-hotspots --input %s --output %s`",
		    kp_stage_rel(KP_STAGE_SOURCE), kp_artifact_rel(KP_ART_HOTSPOTS));
		if (rep_exists_in(r->dir, kp_stage_rel(KP_STAGE_SOURCE)))
			rep_missing(r, kp_artifact_rel(KP_ART_HOTSPOTS), "the source page was collected but"
			    " not ranked", how);
		else
			rep_missing(r, "source-level hotspots", "the source stage was not collected",
			    "`kp-collect --stages source` (build the kernel with -lineinfo), then"
			    " `kp-hotspots`");
		fputc('\n', r->fp);
		return;
	}
	mapping_note(r);
	fprintf(r->fp, "Top rows of ");
	rep_link(r, KP_ART_HOTSPOTS);
	fprintf(r->fp, " (%zu row%s in all).\n\n", json_array_size(r->hotspots),
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
		rep_put_cell(r->fp, w);
		for (c = 0; c < sizeof cols / sizeof cols[0]; c++) {
			const char *t = rep_jstr(h, cols[c]);
			char st[160];

			if (strcmp(cols[c], "stall_reason") == 0) {
				stall_with_share(st, sizeof st, h);
				t = st;
			}

			fputs(" | ", r->fp);
			rep_put_cell(r->fp, t && *t ? t : "—");
		}
		fputs(" |\n", r->fp);
	}
	fputc('\n', r->fp);
	sass_glossary(r);
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
		if (rep_hf(h, "bottleneck_class") && rep_jstr(f, "class") &&
		    strcmp(rep_hf(h, "bottleneck_class"), rep_jstr(f, "class")) == 0)
			return h;
	*own = 0;
	return json_array_get(r->hotspots, 0);
}

void
rep_sec_hypotheses(struct rep *r)
{
	json_t *f, *a;
	size_t i, j, n = 0;

	fprintf(r->fp, "## Optimization hypotheses\n\n");
	if (r->decision == NULL || json_array_size(json_object_get(r->decision, "findings")) == 0) {
		if (r->decision == NULL)
			rep_missing(r, "findings to build hypotheses on", r->fallback_why,
			    "`kp-decide` after `kp-extract`");
		else
			fprintf(r->fp, "No rule fired, so no hypothesis is backed by evidence. Collect"
			    " more sections (see Next profiling actions) before changing the kernel.\n");
		fputc('\n', r->fp);
		return;
	}
	json_array_foreach(json_object_get(r->decision, "findings"), i, f) {
		const struct idea *id = idea_of(rep_jstr(f, "class"));
		int own;
		json_t *h = hotspot_for(r, f, &own);
		char w[512];

		if (n >= TOP_FINDINGS)
			break;
		fprintf(r->fp, "%zu. **%s**. Finding: ", ++n, rep_jstr(f, "class") ? rep_jstr(f, "class") : "?");
		rep_put_cell(r->fp, rep_jstr(f, "text") ? rep_jstr(f, "text") : "(no evidence text)");
		fprintf(r->fp, "\n   - Hotspot: ");
		if (h != NULL) {
			where(w, sizeof w, h);
			fprintf(r->fp, "`%s`", w);
			if (rep_hf(h, "sass_opcode") && *rep_hf(h, "sass_opcode"))
				fprintf(r->fp, ", SASS `%s`", rep_hf(h, "sass_opcode"));
			if (rep_hf(h, "metric") && rep_hf(h, "value"))
				fprintf(r->fp, ", %s = %s", rep_hf(h, "metric"), rep_hf(h, "value"));
			if (rep_hf(h, "stall_reason") && *rep_hf(h, "stall_reason")) {
				char st[160];

				stall_with_share(st, sizeof st, h);
				fprintf(r->fp, ", stall %s", st);
			}
			if (!own)
				fprintf(r->fp, " (the top row overall: no row is classed %s)",
				    rep_jstr(f, "class") ? rep_jstr(f, "class") : "?");
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

void
rep_sec_confidence(struct rep *r)
{
	json_t *top = json_array_get(json_object_get(r->decision, "findings"), 0);
	json_t *h0 = json_array_get(r->hotspots, 0);
	long long launches = json_integer_value(json_object_get(r->kernel, "launches"));
	int score = 0, st = rep_stage_count(r);
	const char *level;

	fprintf(r->fp, "## Confidence\n\n");
	if (r->kernel == NULL) {
		fprintf(r->fp, "**low**: there is no metrics summary, so no claim can cite a"
		    " number.\n\n");
		return;
	}
	score += r->decision != NULL && top != NULL;
	score += top != NULL && rep_jstr(top, "severity") && strcmp(rep_jstr(top, "severity"), "high") == 0;
	score += h0 != NULL && rep_hf(h0, "line") && *rep_hf(h0, "line") &&
	    rep_hf(h0, "confidence") && strcmp(rep_hf(h0, "confidence"), "high") == 0;
	score += st >= 2;
	level = score >= 4 ? "high" : score >= 2 ? "medium" : "low";
	fprintf(r->fp, "**%s** (%d of 4 points):\n\n", level, score);
	fprintf(r->fp, "- %s\n", top == NULL ? "no bottleneck finding (0)" :
	    r->decision_fallback ? "a finding from the default rules on the summary (1)" :
	    "a finding from kp-decide (1)");
	fprintf(r->fp, "- top finding severity: %s (%d)\n", top && rep_jstr(top, "severity") ?
	    rep_jstr(top, "severity") : "none", top && rep_jstr(top, "severity") &&
	    strcmp(rep_jstr(top, "severity"), "high") == 0);
	fprintf(r->fp, "- top hotspot: %s\n", h0 == NULL ? "none (0)" :
	    (rep_hf(h0, "line") && *rep_hf(h0, "line") && rep_hf(h0, "confidence") &&
	    strcmp(rep_hf(h0, "confidence"), "high") == 0) ? "a source line with high"
	    " confidence (1)" : "without a source line or with lower confidence (0)");
	if (h0 != NULL && top != NULL && rep_hf(h0, "bottleneck_class") &&
	    *rep_hf(h0, "bottleneck_class") && rep_jstr(top, "class")) {
		/* not scored: a different class can be the same cause's symptom */
		const char *hc = rep_hf(h0, "bottleneck_class"), *pc = rep_jstr(top, "class");

		if (strcmp(hc, pc) == 0)
			fprintf(r->fp, "- the top hotspot's class: %s, the primary's too\n", hc);
		else
			fprintf(r->fp, "- the top hotspot's class: %s, not the primary's (%s): read"
			    " that line as a symptom or a second cause\n", hc, pc);
	}
	fprintf(r->fp, "- stages collected: %d (%d)\n", st, st >= 2);
	fprintf(r->fp, "- launches: %lld%s\n\n", launches, launches <= 1 ?
	    " (a single launch: no spread to judge noise by)" : "");
}

void
rep_sec_limitations(struct rep *r)
{
	json_t *v, *ne = json_object_get(r->decision, "not_evaluated");
	json_t *unk = json_object_get(r->kernel, "unknown_units");
	json_t *oos = rep_jget(r->target, "notes.unsupported_or_deferred_requirements");
	const char *clk = rep_jstr(r->manifest, "clock_control"), *rt = rep_jstr(r->target, "target.runtime");
	const char *miss[KP_NSKEYS];
	size_t i, n = 0;
	int any = 0;
	double x;

	if (!clk)
		clk = rep_jstr(r->target, "profiling.clock_control");
	if (!rt)
		rt = rep_jstr(r->manifest, "target.runtime");
	fprintf(r->fp, "## Limitations\n\n");
	if (r->kernel != NULL) {
		for (i = 0; i < KP_NSKEYS; i++)
			if (kp_summary_value(r->kernel, kp_summary_keys[i].name, &x) != 0)
				miss[n++] = kp_summary_keys[i].name;
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
	any |= rep_verdict_limitations(r);
	json_array_foreach(ne, i, v) {
		fprintf(r->fp, "- Rule %s not evaluated: %s.\n", rep_jstr(v, "class") ? rep_jstr(v, "class") : "?",
		    rep_jstr(v, "reason") ? rep_jstr(v, "reason") : "?");
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
			if (rep_hf(h, "confidence") && strcmp(rep_hf(h, "confidence"), "best_effort") == 0) {
				fprintf(r->fp, "- Source mapping is best effort for some hotspot rows"
				    " (confidence best_effort).\n");
				any = 1;
				break;
			}
	}
	json_array_foreach(oos, i, v) {
		const char *t = json_is_string(v) ? json_string_value(v) :
		    rep_jstr(v, "request") ? rep_jstr(v, "request") : rep_jstr(v, "text");
		const char *why = json_is_object(v) ? rep_jstr(v, "reason") : NULL;

		fprintf(r->fp, "- Out of scope (kernel-level profiling only): ");
		rep_put_cell(r->fp, t ? t : "?");
		if (why) {
			fprintf(r->fp, " (");
			rep_put_cell(r->fp, why);
			fprintf(r->fp, ")");
		}
		fprintf(r->fp, ".\n");
		any = 1;
	}
	if (!any)
		fprintf(r->fp, "- None recorded.\n");
	fputc('\n', r->fp);
}
