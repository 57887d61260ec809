/*
 * report_run.c: the report's sections about the run: what was profiled, with
 * which profiler and commands, which stages were collected, what to do next,
 * and the links to the comparison and the plots.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_jsonl.h"
#include "profile.h"
#include "report_int.h"

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

void
rep_sec_target(struct rep *r)
{
	json_t *cmd = rep_jget(r->manifest, "target.command"), *w;
	const char *wd = rep_jstr(r->manifest, "target.working_directory");
	const char *rt = rep_jstr(r->manifest, "target.runtime");
	const char *gpu = rep_jstr(r->manifest, "gpu.name"), *drv = rep_jstr(r->manifest, "gpu.driver");
	size_t i;

	fprintf(r->fp, "## Target summary\n\n");
	if (!json_is_array(cmd) && r->target != NULL) {
		json_t *args = rep_jget(r->target, "target.args");

		cmd = json_array();
		if (rep_jstr(r->target, "target.executable"))
			json_array_append(cmd, rep_jget(r->target, "target.executable"));
		json_array_foreach(args, i, w)
			if (json_is_string(w))
				json_array_append(cmd, w);
		json_object_set_new(r->target, "_cmd", cmd);
	}
	if (!wd)
		wd = rep_jstr(r->target, "target.working_directory");
	if (!rt)
		rt = rep_jstr(r->target, "target.runtime");
	if (json_array_size(cmd) > 0) {
		fprintf(r->fp, "- Command: `");
		json_array_foreach(cmd, i, w) {
			if (i)
				fputc(' ', r->fp);
			put_word(r->fp, json_string_value(w) ? json_string_value(w) : "");
		}
		fprintf(r->fp, "`\n");
	} else if (rep_jstr(r->manifest, "import.path")) {
		const char *sha = rep_jstr(r->manifest, "import.sha256");

		fprintf(r->fp, "- Imported report: `%s` (sha256 %.16s…)\n",
		    rep_jstr(r->manifest, "import.path"), sha ? sha : "?");
		if (rep_jstr(r->manifest, "import.profiled_command"))
			fprintf(r->fp, "- Command that made it (from the report): `%s`\n",
			    rep_jstr(r->manifest, "import.profiled_command"));
		if (rep_jstr(r->manifest, "import.created"))
			fprintf(r->fp, "- Report created: %s\n", rep_jstr(r->manifest, "import.created"));
	} else
		fprintf(r->fp, "- Command: not recorded (no %s or %s; kp-gentarget writes the"
		    " target, kp-collect the manifest)\n", kp_artifact_rel(KP_ART_MANIFEST),
		    kp_artifact_rel(KP_ART_TARGET));
	fprintf(r->fp, "- Runtime: %s\n", rt ? rt : "not recorded");
	fprintf(r->fp, "- Working directory: %s\n", wd ? wd : "not recorded");
	if (!gpu && r->kernel && rep_jstr(r->kernel, "device"))
		fprintf(r->fp, "- GPU: %s (compute capability %s, from the ncu CSV)\n",
		    rep_jstr(r->kernel, "device"), rep_jstr(r->kernel, "cc") ? rep_jstr(r->kernel, "cc") : "?");
	else
		fprintf(r->fp, "- GPU: %s\n", gpu ? gpu : "not recorded");
	if (drv)
		fprintf(r->fp, "- Driver: %s\n", drv);
	else
		fprintf(r->fp, "- Driver: not recorded (kp-collect records it in %s and %s)\n",
		    kp_artifact_rel(KP_ART_MANIFEST), kp_artifact_rel(KP_ART_ENVIRONMENT));
	if (r->have_env) {
		fprintf(r->fp, "- Environment: ");
		rep_link(r, KP_ART_ENVIRONMENT);
		fputc('\n', r->fp);
	}
	if (rep_jstr(r->manifest, "started_at"))
		fprintf(r->fp, "- Profiled: %s to %s (status %s)\n", rep_jstr(r->manifest, "started_at"),
		    rep_jstr(r->manifest, "finished_at") ? rep_jstr(r->manifest, "finished_at") : "?",
		    rep_jstr(r->manifest, "status") ? rep_jstr(r->manifest, "status") : "?");
	fputc('\n', r->fp);
}

void
rep_sec_filter(struct rep *r)
{
	const char *mode = rep_jstr(r->manifest, "kernel.filter_mode");
	const char *flt = rep_jstr(r->manifest, "kernel.filter");
	const char *res = rep_jstr(r->manifest, "kernel.resolved_name");
	json_t *skip = rep_jget(r->manifest, "launch.skip"), *count = rep_jget(r->manifest, "launch.count");
	char a[32], b[32];
	struct kp_err err;
	char *cand;

	fprintf(r->fp, "## Kernel filter\n\n");
	if (!mode)
		mode = rep_jstr(r->target, "kernel.filter_mode");
	if (!flt)
		flt = rep_jstr(r->target, "kernel.filter");
	if (!skip)
		skip = rep_jget(r->target, "profiling.warmup_skip");
	if (!count)
		count = rep_jget(r->target, "profiling.launch_count");
	if (!res && r->kernel)
		res = rep_jstr(r->kernel, "name");
	fprintf(r->fp, "- Mode: %s\n", mode ? mode : "not recorded");
	fprintf(r->fp, "- Filter: %s%s%s\n", flt ? "`" : "", flt ? flt : "not recorded", flt ? "`" : "");
	fprintf(r->fp, "- Launch window: skip %s, count %s\n",
	    rep_jtext(skip, a, sizeof a) ? rep_jtext(skip, a, sizeof a) : "?",
	    rep_jtext(count, b, sizeof b) ? rep_jtext(count, b, sizeof b) : "?");
	fprintf(r->fp, "- Resolved kernel: %s%s%s\n", res ? "`" : "", res ? res : "unknown", res ? "`" : "");
	if (r->kernel) {
		long long m = json_integer_value(json_object_get(r->kernel, "launches"));
		long long n = rep_distinct_launches(r->kernel);

		if (n > 0 && n < m)
			fprintf(r->fp, "- Launches profiled: %lld, measured %lld times (each ncu pass"
			    " replays the same launch window)\n", n, m);
		else
			fprintf(r->fp, "- Launches profiled: %lld\n", m);
	}
	cand = kp_artifact_path(r->dir, KP_ART_CANDIDATES);
	if (cand && kp_is_file(cand)) {
		json_t *c = kp_json_load_file(cand, &err), *k, *list;
		size_t i;

		list = json_is_array(c) ? c : json_object_get(c, "candidates");
		fprintf(r->fp, "- Discovery: ");
		rep_link(r, KP_ART_CANDIDATES);
		fprintf(r->fp, ", %zu candidate%s", json_array_size(list),
		    json_array_size(list) == 1 ? "" : "s");
		json_array_foreach(list, i, k)
			if (json_is_true(json_object_get(k, "chosen")))
				fprintf(r->fp, "; chosen: `%s`", rep_jstr(k, "function") ? rep_jstr(k, "function") : "?");
		fprintf(r->fp, "\n");
		json_decref(c);
	} else
		fprintf(r->fp, "- Discovery: none ran (kp-discover runs only when the filter is"
		    " missing or matched nothing)\n");
	free(cand);
	fputc('\n', r->fp);
}

void
rep_sec_profiler(struct rep *r)
{
	const char *ver = rep_jstr(r->manifest, "ncu.version"), *path = rep_jstr(r->manifest, "ncu.path");
	const char *priv = rep_jstr(r->manifest, "privilege_mode");
	const char *clk = rep_jstr(r->manifest, "clock_control");

	if (!priv)
		priv = rep_jstr(r->target, "privilege.mode");
	if (!clk)
		clk = rep_jstr(r->target, "profiling.clock_control");
	if (!path)
		path = rep_jstr(r->target, "profiling.ncu_bin");
	fprintf(r->fp, "## Profiler\n\n");
	fprintf(r->fp, "- Nsight Compute: %s%s%s%s\n", ver ? ver : "version not recorded",
	    path ? " (`" : "", path ? path : "", path ? "`)" : "");
	fprintf(r->fp, "- Privilege mode: %s\n", priv ? priv : "not recorded");
	fprintf(r->fp, "- Clock control: %s%s\n", clk ? clk : "not recorded",
	    clk && strcmp(clk, "none") == 0 ? " (GPU clocks left unmodified: absolute numbers"
	    " move with the boost clock)" : "");
	if (!r->manifest)
		fprintf(r->fp, "\n"), rep_missing(r, kp_artifact_rel(KP_ART_MANIFEST), "this folder was not made"
		    " by kp-collect", "`kp-collect` on the target file");
	fputc('\n', r->fp);
}

void
rep_sec_commands(struct rep *r)
{
	size_t lines = 0;
	const char *p;

	fprintf(r->fp, "## Commands\n\n");
	if (r->commands == NULL) {
		rep_missing(r, kp_artifact_rel(KP_ART_COMMANDS), "no collection run was recorded in this folder",
		    "`kp-collect`, which writes the exact ncu commands");
		fputc('\n', r->fp);
		return;
	}
	for (p = r->commands; *p; p++)
		lines += *p == '\n';
	fprintf(r->fp, "The exact commands (");
	rep_link(r, KP_ART_COMMANDS);
	fprintf(r->fp, "; `bash %s` reproduces the run):\n\n", kp_artifact_rel(KP_ART_COMMANDS));
	if (lines <= 40 && strlen(r->commands) <= 6000)
		fprintf(r->fp, "```sh\n%s%s```\n\n", r->commands,
		    r->commands[0] && r->commands[strlen(r->commands) - 1] != '\n' ? "\n" : "");
	else
		fprintf(r->fp, "(%zu lines: not pasted here.)\n\n", lines);
}

void
rep_sec_collected(struct rep *r)
{
	json_t *req = rep_jget(r->manifest, "stages_requested"), *got = rep_jget(r->manifest,
	    "stages_collected"), *v;
	const char *fs = rep_jstr(r->manifest, "followup.stage"), *fr = rep_jstr(r->manifest, "followup.reason");
	size_t i;

	fprintf(r->fp, "## Collected sections\n\n");
	if (json_is_array(req)) {
		fprintf(r->fp, "- Requested:");
		json_array_foreach(req, i, v)
			fprintf(r->fp, "%s %s", i ? "," : "", json_string_value(v) ? json_string_value(v) : "?");
		fprintf(r->fp, "\n");
	} else
		fprintf(r->fp, "- Requested: not recorded (no %s)\n", kp_artifact_rel(KP_ART_MANIFEST));
	if (json_is_array(got)) {
		fprintf(r->fp, "- Collected (%s):", kp_artifact_rel(KP_ART_MANIFEST));
		json_array_foreach(got, i, v)
			fprintf(r->fp, "%s %s", i ? "," : "", json_string_value(v) ? json_string_value(v) : "?");
		fprintf(r->fp, "\n");
	}
	fprintf(r->fp, "\n| stage | file | present |\n| --- | --- | --- |\n");
	for (i = 0; i < KP_NSTAGES; i++) {
		const char *rel = kp_stage_rel((enum kp_stage)i);
		int have;

		have = rep_exists_in(r->dir, rel);
		if (have)
			fprintf(r->fp, "| %s | [%s](%s) | yes |\n", kp_stage_id((enum kp_stage)i), rel, rel);
		else
			fprintf(r->fp, "| %s | %s | no (`kp-collect --stages %s`) |\n", kp_stage_id((enum kp_stage)i),
			    rel, kp_stage_id((enum kp_stage)i));
	}
	if (fs)
		fprintf(r->fp, "\nFollow-up after basic: **%s**, because %s.\n", fs, fr ? fr : "(no reason recorded)");
	else
		fprintf(r->fp, "\nFollow-up after basic: not recorded (kp-collect --stages auto chooses"
		    " and records it).\n");
	fputc('\n', r->fp);
}

int
rep_stage_count(struct rep *r)
{
	size_t i;
	int n = 0;

	for (i = 0; i < KP_NSTAGES; i++) {
		n += rep_exists_in(r->dir, kp_stage_rel((enum kp_stage)i));
	}
	return n;
}

void
rep_sec_next(struct rep *r)
{
	int n = 0;
	const char *cls = rep_jstr(r->decision, "primary");

	fprintf(r->fp, "## Next profiling actions\n\n");
	if (r->target == NULL && rep_jstr(r->manifest, "import.path")) {
		/* An imported report: no target to re-run, only the command it names. */
		fprintf(r->fp, "%d. The data came from an imported report; it holds only the"
		    " sections it was made with. To measure more (another stage, more launches),"
		    " profile the kernel live with kp-profile and the command the report names"
		    " (Target summary above).\n", ++n);
		if (r->kernel != NULL)
			fprintf(r->fp, "%d. After changing the kernel, profile again and compare:"
			    " `kp-compare --current NEW_PROFILE_DIR --baseline %s`\n", ++n, r->dir);
		fprintf(r->fp, "%d. Regenerate this report: `kp-report %s`\n\n", ++n, r->dir);
		return;
	}
	if (!rep_exists_in(r->dir, kp_stage_rel(KP_STAGE_BASIC)) && r->kernel == NULL) {
		fprintf(r->fp, "%d. Collect the basic stage: `kp-collect --stages basic %s/%s`\n",
		    ++n, r->dir, kp_artifact_rel(KP_ART_TARGET));
	}
	if (r->kernel == NULL) {
		fprintf(r->fp, "%d. Summarise the CSV: `", ++n);
		pipe_cmd(r, "kp-extract");
		fprintf(r->fp, "`\n");
	}
	if (!rep_exists_in(r->dir, kp_stage_rel(KP_STAGE_SOURCE)))
		fprintf(r->fp, "%d. Collect source counters (kernel built with -lineinfo):"
		    " `kp-collect --stages source %s/%s`\n", ++n, r->dir, kp_artifact_rel(KP_ART_TARGET));
	else if (r->hotspots == NULL) {
		fprintf(r->fp, "%d. Rank the source lines: `kp-hotspots --input %s/%s --output %s/%s`\n",
		    ++n, r->dir, kp_stage_rel(KP_STAGE_SOURCE), r->dir, kp_artifact_rel(KP_ART_HOTSPOTS));
	}
	if (cls && (strstr(cls, "memory") || strstr(cls, "coalescing")) &&
	    !rep_exists_in(r->dir, kp_stage_rel(KP_STAGE_MEMORY)))
		fprintf(r->fp, "%d. Memory detail for %s: `kp-collect --stages memory %s/%s`\n",
		    ++n, cls, r->dir, kp_artifact_rel(KP_ART_TARGET));
	if (cls && (strstr(cls, "occupancy") || strstr(cls, "grid") || strstr(cls, "latency")) &&
	    !rep_exists_in(r->dir, kp_stage_rel(KP_STAGE_OCCUPANCY)))
		fprintf(r->fp, "%d. Occupancy detail for %s: `kp-collect --stages occupancy %s/%s`\n",
		    ++n, cls, r->dir, kp_artifact_rel(KP_ART_TARGET));
	if (cls && (strstr(cls, "compute") || strstr(cls, "tensor")) &&
	    !rep_exists_in(r->dir, kp_stage_rel(KP_STAGE_COMPUTE)))
		fprintf(r->fp, "%d. Compute detail for %s: `kp-collect --stages compute %s/%s`\n",
		    ++n, cls, r->dir, kp_artifact_rel(KP_ART_TARGET));
	if (r->kernel != NULL && (r->decision == NULL || r->decision_fallback))
		fprintf(r->fp, "%d. Classify with the rules: `kp-decide --metrics %s/%s --output %s/%s`\n",
		    ++n, r->dir, kp_artifact_rel(KP_ART_SUMMARY), r->dir, kp_artifact_rel(KP_ART_DECISION));
	if (r->kernel != NULL && json_integer_value(json_object_get(r->kernel, "launches")) <= 1)
		fprintf(r->fp, "%d. Measure noise with three launches: `kp-collect --launch-count 3"
		    " %s/%s`\n", ++n, r->dir, kp_artifact_rel(KP_ART_TARGET));
	if (r->kernel != NULL)
		fprintf(r->fp, "%d. After changing the kernel, profile again and compare:"
		    " `kp-compare --current NEW_PROFILE_DIR --baseline %s`\n", ++n, r->dir);
	if (!r->have_visual && r->kernel != NULL)
		fprintf(r->fp, "%d. Draw the summary: `kp-plot %s`\n", ++n, r->dir);
	fprintf(r->fp, "%d. Regenerate this report: `kp-report %s`\n\n", ++n, r->dir);
}

void
rep_sec_comparison(struct rep *r)
{
	fprintf(r->fp, "## Comparison\n\n");
	if (r->cmp == NULL) {
		fprintf(r->fp, "comparison/ exists but holds no %s (kp-compare writes it).\n\n",
		    kp_artifact_name(KP_ART_COMPARISON));
		return;
	}
	fprintf(r->fp, "Verdict: **%s**: ", rep_jstr(r->cmp, "verdict") ? rep_jstr(r->cmp, "verdict") : "?");
	rep_put_cell(r->fp, rep_jstr(r->cmp, "verdict_reason") ? rep_jstr(r->cmp, "verdict_reason") : "");
	fprintf(r->fp, ".\n\n- Baseline: %s\n- Current: %s\n",
	    rep_jstr(r->cmp, "baseline.path") ? rep_jstr(r->cmp, "baseline.path") : "?",
	    rep_jstr(r->cmp, "current.path") ? rep_jstr(r->cmp, "current.path") : "?");
	if (rep_exists_in(r->dir, kp_artifact_rel(KP_ART_REGRESSION)))
	{
		fprintf(r->fp, "- Details: ");
		rep_link(r, KP_ART_REGRESSION);
		fputc('\n', r->fp);
	}
	fputc('\n', r->fp);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
rep_sec_visual(struct rep *r)
{
	char *d = kp_path_join(r->dir, "visual"), *names[64];
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
