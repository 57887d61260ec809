/*
 * compare.c: before/after comparison of two kernels' metrics summaries.
 *
 * A change is judged only when it is larger than the tolerance and, when both
 * sides had several launches, when the launch ranges (min..max) do not overlap.
 * A missing or zero baseline is "not comparable", never a division.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_compare.h"
#include "kp_diag.h"
#include "kp_fmt.h"
#include "kp_jsonl.h"
#include "kp_summary.h"
#include "kp_summary_keys.h"
#include "profile.h"

enum kp_direction
kp_compare_direction(const char *key)
{
	static const char *const lower[] = {
		"duration_ns", "shared_bank_conflicts", "local_spill_requests",
	};
	static const char *const higher[] = {
		"achieved_occupancy_pct", "theoretical_occupancy_pct", "ipc",
		"l1tex_hit_rate_pct", "l2_hit_rate_pct",
	};
	size_t i;

	if (strncmp(key, "stalls.", 7) == 0)
		return KP_DIR_LOWER;
	for (i = 0; i < sizeof lower / sizeof lower[0]; i++)
		if (strcmp(key, lower[i]) == 0)
			return KP_DIR_LOWER;
	for (i = 0; i < sizeof higher / sizeof higher[0]; i++)
		if (strcmp(key, higher[i]) == 0)
			return KP_DIR_HIGHER;
	return KP_DIR_NONE;
}

static const char *
dir_name(enum kp_direction d)
{
	return d == KP_DIR_LOWER ? "lower" : d == KP_DIR_HIGHER ? "higher" : "none";
}

/* ---- loading ---- */

static char *
parent_of(const char *path)
{
	char *p = strdup(path);
	char *s;

	if (p == NULL)
		return NULL;
	while ((s = strrchr(p, '/')) != NULL && s[1] == '\0' && s != p)
		*s = '\0';
	if ((s = strrchr(p, '/')) == NULL) {
		free(p);
		return strdup(".");
	}
	if (s == p)
		s[1] = '\0';
	else
		*s = '\0';
	return p;
}

static const char *
base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

json_t *
kp_compare_load(const char *path, char **file_out, char **profile_out, struct kp_err *err)
{
	char *file = NULL, *profile = NULL;
	json_t *j;

	if (kp_is_dir(path)) {
		char *d = kp_path_join(path, "details");

		file = kp_path_join(d, kp_artifact_name(KP_ART_SUMMARY));
		free(d);
		if (file == NULL)
			goto oom;
		if (kp_is_file(file)) {
			profile = strdup(path);
		} else {
			free(file);
			if ((file = kp_path_join(path, kp_artifact_name(KP_ART_SUMMARY))) == NULL)
				goto oom;
			if (!kp_is_file(file)) {
				kp_errf(err, KP_EXIT_DATA,
				    "%s: no %s or %s (run kp-extract first)", path,
				    kp_artifact_rel(KP_ART_SUMMARY), kp_artifact_name(KP_ART_SUMMARY));
				free(file);
				return NULL;
			}
			profile = strdup(path);
		}
	} else if (kp_is_file(path)) {
		char *d = parent_of(path);

		file = strdup(path);
		if (d != NULL && strcmp(base_of(d), "details") == 0) {
			profile = parent_of(d);
			free(d);
		} else
			profile = d;
	} else {
		errno = ENOENT;
		kp_errno(err, KP_EXIT_DATA, path);
		return NULL;
	}
	if (file == NULL || profile == NULL)
		goto oom;
	if ((j = kp_json_load_file(file, err)) == NULL)
		goto fail;
	if (!json_is_object(j) || !json_is_array(json_object_get(j, "kernels"))) {
		kp_errf(err, KP_EXIT_DATA, "%s: not a metrics summary (no \"kernels\" array)", file);
		json_decref(j);
		goto fail;
	}
	if (file_out)
		*file_out = file;
	else
		free(file);
	if (profile_out)
		*profile_out = profile;
	else
		free(profile);
	return j;
oom:
	kp_errf(err, KP_EXIT_ENV, "out of memory");
fail:
	free(file);
	free(profile);
	return NULL;
}

int
kp_profile_timestamp(const char *id, char out[16])
{
	const char *b = base_of(id);
	size_t n = strlen(b), i, k;

	/* the last "_" 8 digits "_" 6 digits in the id (a suffix may follow) */
	for (i = n >= 16 ? n - 16 + 1 : 0; i-- > 0;) {
		const char *s = b + i;
		int ok = s[0] == '_' && s[9] == '_';

		for (k = 1; ok && k < 16; k++)
			if (k != 9 && (s[k] < '0' || s[k] > '9'))
				ok = 0;
		if (ok) {
			memcpy(out, s + 1, 15);
			out[15] = '\0';
			return 0;
		}
	}
	return -1;
}

static json_t *
primary_kernel(json_t *summary)
{
	json_t *ks = json_object_get(summary, "kernels");
	json_t *p = json_object_get(summary, "primary");
	size_t i = json_is_integer(p) ? (size_t)json_integer_value(p) : 0;

	return json_array_get(ks, i);
}

char *
kp_compare_auto_baseline(const char *current_dir, const char *function, int *none,
    struct kp_err *err)
{
	char *root = parent_of(current_dir);
	char cur[16], best[16] = "", ts[16];
	char *found = NULL;
	struct dirent *de;
	DIR *d;
	int seen = 0;

	if (root == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	if (kp_profile_timestamp(current_dir, cur) != 0) {
		kp_errf(err, KP_EXIT_DATA, "%s: the profile id has no _YYYYMMDD_HHMMSS timestamp;"
		    " give --baseline DIR", current_dir);
		free(root);
		return NULL;
	}
	if ((d = opendir(root)) == NULL) {
		kp_errno(err, KP_EXIT_DATA, root);
		free(root);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		struct kp_err e2;
		char *path;
		json_t *s, *k;
		const char *fn;

		if (de->d_name[0] == '.' || kp_profile_timestamp(de->d_name, ts) != 0)
			continue;
		if (strcmp(ts, cur) >= 0 || (found && strcmp(ts, best) < 0))
			continue;
		if (found && strcmp(ts, best) == 0 && strcmp(de->d_name, base_of(found)) < 0)
			continue;
		if ((path = kp_path_join(root, de->d_name)) == NULL)
			continue;
		if (!kp_is_dir(path) || (s = kp_compare_load(path, NULL, NULL, &e2)) == NULL) {
			free(path);
			continue;
		}
		seen++;
		k = primary_kernel(s);
		fn = json_string_value(json_object_get(k, "function"));
		if (fn != NULL && function != NULL && strcmp(fn, function) == 0) {
			free(found);
			found = path;
			memcpy(best, ts, sizeof best);
		} else
			free(path);
		json_decref(s);
	}
	closedir(d);
	if (found == NULL) {
		/* not an error: the first profile of a kernel has nothing to compare with */
		kp_errf(err, KP_EXIT_DATA, "no earlier profile in %s has a summary of kernel %s"
		    " (%d earlier profile%s with a summary)", root, function ? function : "?",
		    seen, seen == 1 ? "" : "s");
		if (none != NULL)
			*none = 1;
	}
	free(root);
	return found;
}

/* ---- comparing ---- */

/* The value of key in a kernel (kp_summary_value), finite only. */
static int
value_of(json_t *kernel, const char *key, double *out)
{
	return kp_summary_value(kernel, key, out) == 0 && isfinite(*out) ? 0 : -1;
}

static int
range_of(json_t *kernel, const char *key, double *lo, double *hi)
{
	json_t *sp = json_object_get(kernel, "spread"), *r;
	json_t *mn, *mx;

	r = json_object_get(sp, key);
	if (r == NULL && strncmp(key, "stalls.", 7) == 0)
		r = json_object_get(json_object_get(sp, "stalls"), key + 7);
	mn = json_object_get(r, "min");
	mx = json_object_get(r, "max");
	if (!json_is_number(mn) || !json_is_number(mx))
		return -1;
	*lo = json_number_value(mn);
	*hi = json_number_value(mx);
	return 0;
}

static json_t *
num_or_null(int have, double v)
{
	return have ? json_real(v) : json_null();
}

static json_t *
row(json_t *b, json_t *c, const char *key, double tol)
{
	enum kp_direction dir = kp_compare_direction(key);
	double bv = 0, cv = 0, blo, bhi, clo, chi, pct = NAN;
	int hb = value_of(b, key, &bv) == 0, hc = value_of(c, key, &cv) == 0;
	int ranges = range_of(b, key, &blo, &bhi) == 0 && range_of(c, key, &clo, &chi) == 0;
	const char *judgment, *reason;
	char why[160];
	json_t *r;

	if (!hb && !hc)
		return NULL;
	if (!hb) {
		judgment = "not comparable";
		reason = "missing baseline";
	} else if (!hc) {
		judgment = "not comparable";
		reason = "missing current";
	} else if (bv == 0 && cv == 0) {
		judgment = "within noise";
		reason = "zero in both";
	} else if (bv == 0) {
		judgment = "not comparable";
		reason = "zero baseline";
	} else {
		pct = (cv - bv) / fabs(bv) * 100;
		if (fabs(pct) <= tol) {
			judgment = "within noise";
			snprintf(why, sizeof why, "within the tolerance of %.1f %%", tol);
			reason = why;
		} else if (ranges && blo <= chi && clo <= bhi) {
			judgment = "within noise";
			reason = "launch ranges overlap";
		} else if (dir == KP_DIR_NONE) {
			judgment = "changed";
			reason = "not judged: neither direction is better by itself";
		} else {
			int better = dir == KP_DIR_LOWER ? cv < bv : cv > bv;

			judgment = better ? "improved" : "regressed";
			reason = dir == KP_DIR_LOWER ? "lower is better" : "higher is better";
		}
	}
	r = json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:s}", "metric", key,
	    "baseline", num_or_null(hb, bv), "current", num_or_null(hc, cv),
	    "change", num_or_null(hb && hc, cv - bv), "change_pct", num_or_null(isfinite(pct), pct),
	    "direction", dir_name(dir), "judgment", judgment, "reason", reason);
	if (r != NULL && ranges)
		json_object_set_new(r, "ranges", json_pack("{s:[f,f], s:[f,f]}",
		    "baseline", blo, bhi, "current", clo, chi));
	return r;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every metric key of both kernels, in report order: the known keys, then the
 * others sorted by name (stall reasons as "stalls.<reason>"). */
static json_t *
all_keys(json_t *b, json_t *c)
{
	json_t *out = json_array(), *extra = json_object();
	json_t *sides[2] = { b, c };
	const char **names;
	const char *k;
	size_t i, n = 0, s;
	json_t *v;

	for (i = 0; i < KP_NSKEYS; i++)
		json_array_append_new(out, json_string(kp_summary_keys[i].name));
	for (s = 0; s < 2; s++) {
		json_object_foreach(json_object_get(sides[s], "summary"), k, v) {
			char name[256];
			const char *r;
			json_t *x;

			if (strcmp(k, "stalls") != 0) {
				json_object_set_new(extra, k, json_true());
				continue;
			}
			json_object_foreach(v, r, x) {
				snprintf(name, sizeof name, "stalls.%s", r);
				json_object_set_new(extra, name, json_true());
			}
		}
	}
	for (i = 0; i < KP_NSKEYS; i++)
		json_object_del(extra, kp_summary_keys[i].name);
	if ((names = calloc(json_object_size(extra) + 1, sizeof *names)) != NULL) {
		json_object_foreach(extra, k, v)
			names[n++] = k;
		qsort(names, n, sizeof names[0], cmp_str);
		for (i = 0; i < n; i++)
			json_array_append_new(out, json_string(names[i]));
		free(names);
	}
	json_decref(extra);
	return out;
}

static void
set_side(json_t *cmp, const char *side, json_t *k)
{
	json_t *o = json_object_get(cmp, side);

	if (o == NULL) {
		o = json_object();
		json_object_set_new(cmp, side, o);
	}
	if (json_is_string(json_object_get(k, "name")))
		json_object_set(o, "kernel", json_object_get(k, "name"));
	if (json_is_string(json_object_get(k, "function")))
		json_object_set(o, "function", json_object_get(k, "function"));
	if (json_is_integer(json_object_get(k, "launches")))
		json_object_set(o, "launches", json_object_get(k, "launches"));
}

static void
verdict(json_t *cmp, json_t *rows, double tol)
{
	const char *v = "NO MATERIAL CHANGE";
	char why[512];
	size_t i, nimp = 0, nreg = 0;
	json_t *r, *dur = NULL;

	json_array_foreach(rows, i, r) {
		const char *j = json_string_value(json_object_get(r, "judgment"));

		if (strcmp(json_string_value(json_object_get(r, "metric")), "duration_ns") == 0)
			dur = r;
		else if (strcmp(j, "improved") == 0)
			nimp++;
		else if (strcmp(j, "regressed") == 0)
			nreg++;
	}
	if (dur != NULL && strcmp(json_string_value(json_object_get(dur, "reason")),
	    "missing baseline") != 0 && strcmp(json_string_value(json_object_get(dur,
	    "reason")), "missing current") != 0 && strcmp(json_string_value(
	    json_object_get(dur, "reason")), "zero baseline") != 0) {
		const char *j = json_string_value(json_object_get(dur, "judgment"));
		char b[48], c[48], p[32];

		kp_fmt_unit(b, sizeof b, json_number_value(json_object_get(dur, "baseline")), "ns");
		kp_fmt_unit(c, sizeof c, json_number_value(json_object_get(dur, "current")), "ns");
		kp_fmt_change_pct(p, sizeof p, json_number_value(json_object_get(dur, "change_pct")));
		if (strcmp(j, "improved") == 0)
			v = "IMPROVEMENT";
		else if (strcmp(j, "regressed") == 0)
			v = "REGRESSION";
		snprintf(why, sizeof why, "duration %s -> %s (%s): %s (%s); %zu other metric%s"
		    " improved, %zu regressed", b, c, p, j,
		    json_string_value(json_object_get(dur, "reason")), nimp, nimp == 1 ? "" : "s",
		    nreg);
	} else {
		if (nreg > 0 && nimp == 0)
			v = "REGRESSION";
		else if (nimp > 0 && nreg == 0)
			v = "IMPROVEMENT";
		snprintf(why, sizeof why, "duration not comparable (%s); judged from the other"
		    " metrics: %zu improved, %zu regressed",
		    dur ? json_string_value(json_object_get(dur, "reason")) : "absent",
		    nimp, nreg);
	}
	json_object_set_new(cmp, "verdict", json_string(v));
	json_object_set_new(cmp, "verdict_reason", json_string(why));
	(void)tol;
}

json_t *
kp_compare_kernels(json_t *b, json_t *c, double tol, struct kp_err *err)
{
	json_t *cmp, *rows, *ks, *k;
	size_t i;

	if (!json_is_object(b) || !json_is_object(c)) {
		kp_errf(err, KP_EXIT_DATA, "no kernel to compare");
		return NULL;
	}
	if (!isfinite(tol) || tol < 0)
		tol = 0;
	cmp = json_pack("{s:s, s:f}", "schema", "kp-comparison/1", "tolerance_pct", tol);
	rows = json_array();
	ks = all_keys(b, c);
	if (cmp == NULL || rows == NULL || ks == NULL) {
		json_decref(cmp);
		json_decref(rows);
		json_decref(ks);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	json_array_foreach(ks, i, k) {
		json_t *r = row(b, c, json_string_value(k), tol);

		if (r != NULL)
			json_array_append_new(rows, r);
	}
	json_decref(ks);
	set_side(cmp, "baseline", b);
	set_side(cmp, "current", c);
	json_object_set_new(cmp, "rows", rows);
	verdict(cmp, rows, tol);
	return cmp;
}

json_t *
kp_compare_first(json_t *current, const char *current_dir, const char *why, double tol,
    struct kp_err *err)
{
	json_t *none = json_object(), *cmp;
	char reason[1536];

	cmp = kp_compare_kernels(none, current, tol, err);
	json_decref(none);
	if (cmp == NULL)
		return NULL;
	snprintf(reason, sizeof reason, "no baseline yet: %s; %s will be the baseline of the"
	    " next profile of this kernel (--baseline auto)", why, current_dir);
	json_object_set_new(cmp, "verdict", json_string("NO BASELINE"));
	json_object_set_new(cmp, "verdict_reason", json_string(reason));
	json_object_set_new(cmp, "next_baseline", json_string(current_dir));
	return cmp;
}

/* ---- markdown ---- */

static const char *
str(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

static void
cell(char *buf, size_t len, json_t *v, const char *key)
{
	if (!json_is_number(v))
		snprintf(buf, len, "—");
	else
		kp_fmt_unit(buf, len, json_number_value(v), kp_summary_key_unit(key));
}

static void
row_md(FILE *fp, json_t *r)
{
	const char *key = str(r, "metric", "?");
	char b[48], c[48], d[56], p[32];
	json_t *ch = json_object_get(r, "change");

	cell(b, sizeof b, json_object_get(r, "baseline"), key);
	cell(c, sizeof c, json_object_get(r, "current"), key);
	if (json_is_number(ch)) {
		char t[48];

		kp_fmt_unit(t, sizeof t, json_number_value(ch), kp_summary_key_unit(key));
		snprintf(d, sizeof d, "%s%s", json_number_value(ch) > 0 ? "+" : "", t);
	} else
		snprintf(d, sizeof d, "—");
	if (json_is_number(json_object_get(r, "change_pct")))
		kp_fmt_change_pct(p, sizeof p, json_number_value(json_object_get(r, "change_pct")));
	else
		snprintf(p, sizeof p, "—");
	fprintf(fp, "| `%s` | %s | %s | %s | %s | %s | %s (%s) |\n", key,
	    str(r, "direction", "none"), b, c, d, p, str(r, "judgment", "?"),
	    str(r, "reason", ""));
}

static int
by_abs_change(const void *a, const void *b)
{
	double x = fabs(json_number_value(json_object_get(*(json_t *const *)a, "change_pct")));
	double y = fabs(json_number_value(json_object_get(*(json_t *const *)b, "change_pct")));

	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(str(*(json_t *const *)a, "metric", ""), str(*(json_t *const *)b, "metric", ""));
}

static void
side_md(FILE *fp, json_t *cmp, const char *what, const char *key)
{
	json_t *b = json_object_get(cmp, "baseline"), *c = json_object_get(cmp, "current");
	json_t *bv = json_object_get(b, key), *cv = json_object_get(c, key);
	char x[32], y[32];

	if (bv == NULL && cv == NULL)
		return;
	snprintf(x, sizeof x, "%lld", (long long)json_integer_value(bv));
	snprintf(y, sizeof y, "%lld", (long long)json_integer_value(cv));
	fprintf(fp, "| %s | %s | %s |\n", what,
	    json_is_string(bv) ? json_string_value(bv) : json_is_integer(bv) ? x : "—",
	    json_is_string(cv) ? json_string_value(cv) : json_is_integer(cv) ? y : "—");
}

int
kp_compare_markdown(json_t *cmp, FILE *fp)
{
	json_t *rows = json_object_get(cmp, "rows"), *r;
	json_t **moved;
	size_t i, n = 0;
	double tol = json_number_value(json_object_get(cmp, "tolerance_pct"));

	fprintf(fp, "# Regression report: %s\n\n", str(json_object_get(cmp, "current"),
	    "function", "kernel"));
	fprintf(fp, "Verdict: **%s**: %s.\n\n", str(cmp, "verdict", "?"),
	    str(cmp, "verdict_reason", ""));
	fprintf(fp, "| | baseline | current |\n| --- | --- | --- |\n");
	side_md(fp, cmp, "profile", "path");
	side_md(fp, cmp, "kernel", "kernel");
	side_md(fp, cmp, "launches", "launches");
	side_md(fp, cmp, "primary bottleneck", "primary_class");
	if (strcmp(str(cmp, "verdict", ""), "NO BASELINE") == 0) {
		fprintf(fp, "\n## No baseline yet\n\nThis is the first profile of this kernel"
		    " in its output root, so nothing was compared. The next profile of the"
		    " kernel there (a later id timestamp) takes `%s` as its baseline with"
		    " `--baseline auto`; or give `--baseline DIR`.\n\n## Current values\n\n"
		    "| metric | better | baseline | current | change | change %% | judgment |\n"
		    "| --- | --- | --- | --- | --- | --- | --- |\n", str(cmp, "next_baseline", "?"));
		json_array_foreach(rows, i, r)
			row_md(fp, r);
		return ferror(fp) ? -1 : 0;
	}
	fprintf(fp, "\n## Metrics that explain the change\n\n");
	moved = calloc(json_array_size(rows) + 1, sizeof *moved);
	json_array_foreach(rows, i, r) {
		const char *j = str(r, "judgment", "");

		if (moved && (strcmp(j, "improved") == 0 || strcmp(j, "regressed") == 0 ||
		    strcmp(j, "changed") == 0))
			moved[n++] = r;
	}
	if (n == 0)
		fprintf(fp, "No metric moved beyond the tolerance and the launch ranges.\n");
	else {
		qsort(moved, n, sizeof moved[0], by_abs_change);
		fprintf(fp, "Largest relative changes first (judged: lower or higher is"
		    " better; changed: not judged by itself).\n\n");
		fprintf(fp, "| metric | better | baseline | current | change | change %% |"
		    " judgment |\n| --- | --- | --- | --- | --- | --- | --- |\n");
		for (i = 0; i < n && i < 10; i++)
			row_md(fp, moved[i]);
	}
	free(moved);
	fprintf(fp, "\n## All metrics\n\n| metric | better | baseline | current | change |"
	    " change %% | judgment |\n| --- | --- | --- | --- | --- | --- | --- |\n");
	json_array_foreach(rows, i, r)
		row_md(fp, r);
	fprintf(fp, "\n## How this was judged\n\n"
	    "- A change within ±%.1f %% of the baseline is noise.\n"
	    "- When both sides profiled several launches, a change also counts only when the"
	    " launch ranges (min..max) do not overlap; overlapping ranges are noise.\n"
	    "- Lower is better for duration, shared bank conflicts, local spills and stall"
	    " ratios; higher is better for occupancy, hit rates and IPC. Throughput"
	    " percentages (SM, memory, DRAM, L1, L2, tensor pipe) and launch shape are"
	    " reported as changed, not judged: the verdict comes from duration.\n"
	    "- A missing or zero baseline value is not comparable (no relative change).\n"
	    "- The verdict follows duration; the other metrics decide only when duration is"
	    " not comparable.\n", tol);
	return ferror(fp) ? -1 : 0;
}

int
kp_compare_trend_markdown(json_t *points, double tol, FILE *fp)
{
	static const char *const cols[] = {
		"duration_ns", "sm_throughput_pct", "memory_throughput_pct",
		"achieved_occupancy_pct", "ipc",
	};
	json_t *p, *prev = NULL;
	size_t i, k;

	fprintf(fp, "# Trend\n\nProfiles in the order of their id timestamps. Change is"
	    " against the previous profile; within ±%.1f %% is noise.\n\n", tol);
	fprintf(fp, "| timestamp | profile | duration | change | judgment | SM %% | memory %% |"
	    " occupancy %% | IPC | bottleneck |\n");
	fprintf(fp, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
	json_array_foreach(points, i, p) {
		json_t *kern = json_object_get(p, "kernel");
		char v[48], ch[32] = "—";
		const char *j = "—";
		double x;

		fprintf(fp, "| %s | %s |", str(p, "timestamp", "—"), str(p, "label", "?"));
		for (k = 0; k < sizeof cols / sizeof cols[0]; k++) {
			if (value_of(kern, cols[k], &x) == 0)
				kp_fmt_unit(v, sizeof v, x, kp_summary_key_unit(cols[k]));
			else
				snprintf(v, sizeof v, "—");
			fprintf(fp, " %s |", v);
			if (k != 0)
				continue;
			if (prev != NULL) {
				json_t *r = row(json_object_get(prev, "kernel"), kern, cols[0], tol);

				if (r != NULL) {
					if (json_is_number(json_object_get(r, "change_pct")))
						kp_fmt_change_pct(ch, sizeof ch, json_number_value(
						    json_object_get(r, "change_pct")));
					j = str(r, "judgment", "—");
					fprintf(fp, " %s | %s |", ch, j);
					json_decref(r);
					continue;
				}
			}
			fprintf(fp, " %s | %s |", ch, j);
		}
		fprintf(fp, " %s |\n", str(p, "primary_class", "—"));
		prev = p;
	}
	return ferror(fp) ? -1 : 0;
}
