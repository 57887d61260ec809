/*
 * kp-compare: before/after comparison of two profiles (or two kernels of one
 * profile, or a trend over N profiles) with a verdict a CI job can gate on.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_atomic.h"
#include "kp_compare.h"
#include "kp_diag.h"
#include "kp_heap.h"
#include "kp_jsonl.h"
#include "kp_yaml.h"
#include "profile.h"

static const char synopsis[] =
    "usage: kp-compare [--current dir] [--baseline dir | auto] [--tolerance-pct pct]\n"
    "                  [--output file]\n"
    "       kp-compare --kernels [--tolerance-pct pct] [--output file]\n"
    "                  baseline current [dir]\n"
    "       kp-compare --trend [--tolerance-pct pct] [--output file] dir ...\n";

static double
parse_tolerance(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v < 0 || v > 1000)
		kp_die(KP_EXIT_USAGE, "--tolerance-pct: \"%s\" is not a number from 0 to 1000", s);
	return v;
}

static char *
xjoin(const char *a, const char *b)
{
	char *p = kp_path_join(a, b);

	if (p == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	return p;
}

static json_t *
load(const char *path, char **file, char **profile)
{
	struct kp_err err;
	json_t *s = kp_compare_load(path, file, profile, &err);

	if (s == NULL)
		kp_die_err(&err);
	return s;
}

static json_t *
primary_of(json_t *summary, const char *file)
{
	json_t *ks = json_object_get(summary, "kernels");
	json_t *p = json_object_get(summary, "primary");
	json_t *k = json_array_get(ks, json_is_integer(p) ? (size_t)json_integer_value(p) : 0);

	if (!json_is_object(k))
		kp_die(KP_EXIT_DATA, "%s: no kernel in the summary", file);
	return k;
}

/* The primary class of PROFILE/details/bottleneck_decision.json, or NULL. */
static json_t *
primary_class(const char *profile)
{
	char *f = xjoin(profile, kp_artifact_rel(KP_ART_DECISION));
	struct kp_err err;
	json_t *j = NULL, *c = NULL;

	if (kp_is_file(f)) {
		if ((j = kp_json_load_file(f, &err)) == NULL)
			kp_warn("%s (bottleneck class left out)", err.msg);
		else if (json_is_string(json_object_get(j, "primary")))
			c = json_incref(json_object_get(j, "primary"));
	}
	json_decref(j);
	free(f);
	return c;
}

/* analysis.* of PROFILE/profile-target.yaml: the baseline and the tolerance. */
static void
target_defaults(const char *profile, char **baseline, double *tol, int tol_given)
{
	char *f = xjoin(profile, kp_artifact_rel(KP_ART_TARGET));
	struct fy_document *d;
	struct kp_err err;
	char *s;

	if (!kp_is_file(f) || (d = kp_yaml_load(f, &err)) == NULL) {
		free(f);
		return;
	}
	if (*baseline == NULL && (s = kp_yaml_str(d, "/analysis/compare_baseline")) != NULL) {
		if (*s != '\0' && strcmp(s, "null") != 0 && strcmp(s, "~") != 0)
			*baseline = s;
		else
			free(s);
	}
	if (!tol_given && (s = kp_yaml_str(d, "/analysis/random_variation_tolerance_pct")) != NULL) {
		char *end;
		double v = strtod(s, &end);

		if (*s != '\0' && *end == '\0' && isfinite(v) && v >= 0)
			*tol = v;
		free(s);
	}
	fy_document_destroy(d);
	free(f);
}

/* A baseline path from the target may be relative to the output root. */
static char *
resolve_baseline(const char *b, const char *current)
{
	char *root, *p, *s;

	if (b[0] == '/' || kp_is_dir(b) || kp_is_file(b))
		return kp_xstrdup(b);
	root = kp_xstrdup(current);
	if ((s = strrchr(root, '/')) != NULL)
		*s = '\0';
	else
		strcpy(root, ".");
	p = xjoin(root, b);
	free(root);
	if (kp_is_dir(p) || kp_is_file(p))
		return p;
	free(p);
	return kp_xstrdup(b);
}

/*
 * how: KP_OUT_NAMED for --output FILE.  When that names a device, FIFO or socket
 * (--output /dev/stdout) the JSON that would go beside it has no folder of its
 * own: it is not written.
 */
static void
write_outputs(json_t *cmp, const char *md, const char *jsonpath, int how)
{
	struct kp_atomic a;
	struct kp_err err;
	char *dir = kp_xstrdup(md), *s;

	if ((s = strrchr(dir, '/')) != NULL) {
		*s = '\0';
		if (*dir != '\0' && kp_mkdirs(dir, &err) < 0)
			kp_die_err(&err);
	}
	free(dir);
	if (how == KP_OUT_NAMED) {
		char *real;
		int direct;

		if (kp_out_resolve(md, how, &real, &direct, NULL, &err) < 0)
			kp_die_err(&err);
		free(real);
		if (direct)
			jsonpath = NULL;
	}
	if (jsonpath != NULL && kp_write_json_atomic(jsonpath, cmp,
	    JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17), &err) < 0)
		kp_die_err(&err);
	if (kp_out_open(&a, md, how, &err) < 0)
		kp_die_err(&err);
	if (kp_compare_markdown(cmp, a.fp) < 0) {
		kp_atomic_abort(&a);
		kp_die(KP_EXIT_ENV, "%s: write failed", md);
	}
	if (kp_atomic_commit(&a, &err) < 0)
		kp_die_err(&err);
}

/* The JSON path next to a markdown path: DIR/<stem>comparison.json. */
static char *
json_next_to(const char *md, const char *name)
{
	char *dir = kp_xstrdup(md), *s, *p;

	if ((s = strrchr(dir, '/')) != NULL) {
		*s = '\0';
		p = xjoin(*dir ? dir : "/", name);
	} else
		p = kp_xstrdup(name);
	free(dir);
	return p;
}

static void
emit(json_t *cmp, const char *profile, const char *md)
{
	json_t *r, *v;
	struct kp_err err;
	size_t i;

	json_array_foreach(json_object_get(cmp, "rows"), i, r) {
		json_t *o = json_deep_copy(r);

		json_object_set_new(o, "kind", json_string("comparison"));
		json_object_set_new(o, "profile_dir", json_string(profile));
		json_object_del(o, "ranges");
		if (kp_jsonl_write(stdout, o, &err) < 0)
			kp_die_err(&err);
		json_decref(o);
	}
	v = json_pack("{s:s, s:s, s:O, s:O, s:O, s:O, s:O, s:s}", "kind", "verdict",
	    "profile_dir", profile, "verdict", json_object_get(cmp, "verdict"),
	    "verdict_reason", json_object_get(cmp, "verdict_reason"),
	    "tolerance_pct", json_object_get(cmp, "tolerance_pct"),
	    "baseline", json_object_get(cmp, "baseline"),
	    "current", json_object_get(cmp, "current"), "report", md);
	if (v == NULL || kp_jsonl_write(stdout, v, &err) < 0)
		kp_die(KP_EXIT_ENV, "write error on standard output");
	json_decref(v);
}

static int
finish(json_t *cmp)
{
	int regress = strcmp(json_string_value(json_object_get(cmp, "verdict")),
	    "REGRESSION") == 0;

	json_decref(cmp);
	return regress ? KP_EXIT_VERDICT : KP_EXIT_OK;
}

/*
 * Write the report and its JSON (to OUTPUT and the JSON beside it, or to
 * PROFILE/comparison/ as the artifacts mdart and jsart), print the records and
 * release cmp; returns the exit status of its verdict.
 */
static int
publish(json_t *cmp, const char *profile, const char *output, enum kp_artifact mdart,
    enum kp_artifact jsart)
{
	const char *mdname = kp_artifact_name(mdart), *jsname = kp_artifact_name(jsart);
	char *md, *js;

	if (output != NULL) {
		md = kp_xstrdup(output);
		js = json_next_to(md, jsname);
	} else {
		char *d = xjoin(profile, "comparison");

		md = xjoin(d, mdname);
		js = xjoin(d, jsname);
		free(d);
	}
	write_outputs(cmp, md, js, output != NULL ? KP_OUT_NAMED : KP_OUT_DERIVED);
	emit(cmp, profile, md);
	free(md);
	free(js);
	return finish(cmp);
}

static void
describe(json_t *cmp, const char *side, const char *path, const char *profile)
{
	json_t *o = json_object_get(cmp, side), *c;

	json_object_set_new(o, "path", json_string(path));
	if (profile != NULL && (c = primary_class(profile)) != NULL)
		json_object_set_new(o, "primary_class", c);
}

/* --baseline auto with no earlier profile of the kernel: a report, exit 0. */
static int
first_run(json_t *ck, char *cfile, char *cprof, json_t *cs, const char *why, double tol,
    const char *output)
{
	struct kp_err err;
	json_t *cmp;
	int rc;

	if ((cmp = kp_compare_first(ck, cprof, why, tol, &err)) == NULL)
		kp_die_err(&err);
	json_object_set_new(cmp, "baseline", json_pack("{s:n}", "path"));
	describe(cmp, "current", cprof, cprof);
	kp_warn("no baseline yet: %s; %s will be the baseline next time", why, cprof);
	rc = publish(cmp, cprof, output, KP_ART_REGRESSION, KP_ART_COMPARISON);
	free(cfile);
	free(cprof);
	json_decref(cs);
	return rc;
}

/* kernel b (the baseline) against c, each side with its path and, from its
 * profile folder when there is one, its primary class. */
static json_t *
compared(json_t *b, const char *bpath, const char *bprof, json_t *c, const char *cpath,
    const char *cprof, double tol)
{
	struct kp_err err;
	json_t *cmp;

	if ((cmp = kp_compare_kernels(b, c, tol, &err)) == NULL)
		kp_die_err(&err);
	describe(cmp, "baseline", bpath, bprof);
	describe(cmp, "current", cpath, cprof);
	return cmp;
}

static int
before_after(const char *current, const char *baseline, double tol, int tol_given,
    const char *output)
{
	char *cfile, *cprof, *bfile, *bprof, *base = baseline ? kp_xstrdup(baseline) : NULL;
	json_t *cs, *bs, *ck, *cmp;
	struct kp_err err;
	int rc;

	cs = load(current, &cfile, &cprof);
	ck = primary_of(cs, cfile);
	target_defaults(cprof, &base, &tol, tol_given);
	if (base == NULL || strcmp(base, "auto") == 0) {
		int none = 0;

		free(base);
		if ((base = kp_compare_auto_baseline(cprof, json_string_value(json_object_get(ck,
		    "function")), &none, &err)) == NULL) {
			if (!none)
				kp_die_err(&err);
			return first_run(ck, cfile, cprof, cs, err.msg, tol, output);
		}
	} else {
		char *r = resolve_baseline(base, cprof);

		free(base);
		base = r;
	}
	bs = load(base, &bfile, &bprof);
	cmp = compared(primary_of(bs, bfile), bprof, bprof, ck, cprof, cprof, tol);
	rc = publish(cmp, cprof, output, KP_ART_REGRESSION, KP_ART_COMPARISON);
	free(cfile);
	free(cprof);
	free(bfile);
	free(bprof);
	free(base);
	json_decref(cs);
	json_decref(bs);
	return rc;
}

static json_t *
find_kernel(json_t *summary, const char *want, const char *file)
{
	json_t *ks = json_object_get(summary, "kernels"), *k, *hit = NULL;
	size_t i, n = 0;

	json_array_foreach(ks, i, k) {
		const char *f = json_string_value(json_object_get(k, "function"));
		const char *name = json_string_value(json_object_get(k, "name"));

		if ((f && strcmp(f, want) == 0) || (name && strcmp(name, want) == 0))
			return k;
	}
	json_array_foreach(ks, i, k) {
		const char *name = json_string_value(json_object_get(k, "name"));

		if (name && strstr(name, want) != NULL) {
			hit = k;
			n++;
		}
	}
	if (n == 1)
		return hit;
	if (n > 1)
		kp_die(KP_EXIT_DATA, "%s: \"%s\" matches %zu kernels; give the function name",
		    file, want, n);
	kp_die(KP_EXIT_NOMATCH, "%s: no kernel named \"%s\" (%zu kernel%s in the summary)",
	    file, want, json_array_size(ks), json_array_size(ks) == 1 ? "" : "s");
}

static int
two_kernels(const char *a, const char *b, const char *dir, double tol, const char *output)
{
	char *file, *prof;
	json_t *s;
	int rc;

	s = load(dir, &file, &prof);
	rc = publish(compared(find_kernel(s, a, file), prof, NULL, find_kernel(s, b, file), prof,
	    NULL, tol), prof, output, KP_ART_KERNELS_REPORT, KP_ART_KERNELS_CMP);
	free(file);
	free(prof);
	json_decref(s);
	return rc;
}

static int
by_timestamp(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	int c = strcmp(json_string_value(json_object_get(a, "timestamp")),
	    json_string_value(json_object_get(b, "timestamp")));

	return c ? c : strcmp(json_string_value(json_object_get(a, "label")),
	    json_string_value(json_object_get(b, "label")));
}

static int
trend(char **dirs, int n, double tol, const char *output)
{
	json_t **pts = calloc((size_t)n, sizeof *pts), *arr = json_array(), *sums = json_array();
	struct kp_atomic a;
	struct kp_err err;
	char *md;
	int i;

	if (pts == NULL || arr == NULL || sums == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	for (i = 0; i < n; i++) {
		char *file, *prof, ts[16];
		json_t *s = load(dirs[i], &file, &prof), *c;
		const char *base = strrchr(prof, '/') ? strrchr(prof, '/') + 1 : prof;

		if (kp_profile_timestamp(prof, ts) != 0)
			kp_die(KP_EXIT_DATA, "%s: the profile id has no _YYYYMMDD_HHMMSS"
			    " timestamp to order it by", prof);
		pts[i] = json_pack("{s:s, s:s, s:s, s:O}", "label", base, "path", prof,
		    "timestamp", ts, "kernel", primary_of(s, file));
		if ((c = primary_class(prof)) != NULL)
			json_object_set_new(pts[i], "primary_class", c);
		json_array_append(sums, s);
		json_decref(s);
		free(file);
		free(prof);
	}
	qsort(pts, (size_t)n, sizeof *pts, by_timestamp);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, pts[i]);
	if (output != NULL)
		md = kp_xstrdup(output);
	else {
		char *d = xjoin(json_string_value(json_object_get(pts[n - 1], "path")),
		    "comparison");

		md = xjoin(d, kp_artifact_name(KP_ART_TREND));
		free(d);
	}
	{
		char *dir = kp_xstrdup(md), *s;

		if ((s = strrchr(dir, '/')) != NULL) {
			*s = '\0';
			if (*dir && kp_mkdirs(dir, &err) < 0)
				kp_die_err(&err);
		}
		free(dir);
	}
	if (kp_atomic_open(&a, md, &err) < 0)
		kp_die_err(&err);
	if (kp_compare_trend_markdown(arr, tol, a.fp) < 0) {
		kp_atomic_abort(&a);
		kp_die(KP_EXIT_ENV, "%s: write failed", md);
	}
	if (kp_atomic_commit(&a, &err) < 0)
		kp_die_err(&err);
	for (i = 0; i < n; i++) {
		json_t *p = json_array_get(arr, (size_t)i), *k = json_object_get(p, "kernel");
		json_t *o = json_pack("{s:s, s:O, s:O, s:O, s:O, s:s}", "kind", "trend",
		    "profile_dir", json_object_get(p, "path"), "timestamp",
		    json_object_get(p, "timestamp"), "function", json_object_get(k, "function")
		    ? json_object_get(k, "function") : json_null(), "summary",
		    json_object_get(k, "summary") ? json_object_get(k, "summary") : json_null(),
		    "report", md);

		if (json_object_get(p, "primary_class"))
			json_object_set(o, "primary_class", json_object_get(p, "primary_class"));
		if (o == NULL || kp_jsonl_write(stdout, o, &err) < 0)
			kp_die(KP_EXIT_ENV, "write error on standard output");
		json_decref(o);
	}
	free(md);
	free(pts);
	json_decref(arr);
	json_decref(sums);
	return KP_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "current", required_argument, NULL, 'c' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "tolerance-pct", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "kernels", no_argument, NULL, 'k' },
		{ "trend", no_argument, NULL, 'T' },
		KP_OPTS_COMMON,
		{ NULL, 0, NULL, 0 },
	};
	const char *current = NULL, *baseline = NULL, *output = NULL;
	double tol = 2.0;
	int c, kernels = 0, trend_mode = 0, tol_given = 0;
	char *dir = NULL;
	struct kp_err err;

	kp_init(argv[0], synopsis);
	while ((c = kp_getopt(argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'c': current = optarg; break;
		case 'b': baseline = optarg; break;
		case 't': tol = parse_tolerance(optarg); tol_given = 1; break;
		case 'o': output = optarg; break;
		case 'k': kernels = 1; break;
		case 'T': trend_mode = 1; break;
		}
	}
	kp_heap_warm();	/* the run starts: its heap faulted in at once */
	argc -= optind;
	argv += optind;
	if (output != NULL && *output == '\0')
		kp_die(KP_EXIT_USAGE, "--output: empty file name");
	if (kernels && trend_mode) {
		kp_warn("--kernels and --trend exclude each other");
		kp_usage(KP_EXIT_USAGE);
	}
	if (kernels || trend_mode) {
		if (current != NULL || baseline != NULL) {
			kp_warn("--current and --baseline do not go with --%s",
			    kernels ? "kernels" : "trend");
			kp_usage(KP_EXIT_USAGE);
		}
		if (trend_mode) {
			if (argc < 2) {
				kp_warn("--trend needs two or more profile folders");
				kp_usage(KP_EXIT_USAGE);
			}
			kp_exit(trend(argv, argc, tol, output));
		}
		if (argc != 2 && argc != 3)
			kp_usage(KP_EXIT_USAGE);
		if (argc == 3)
			kp_exit(two_kernels(argv[0], argv[1], argv[2], tol, output));
		if ((dir = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err)) == NULL)
			kp_die_err(&err);
		c = two_kernels(argv[0], argv[1], dir, tol, output);
		free(dir);
		kp_exit(c);
	}
	if (argc != 0)
		kp_usage(KP_EXIT_USAGE);
	if (baseline != NULL && *baseline == '\0')
		kp_die(KP_EXIT_USAGE, "--baseline: empty folder name");
	if (current == NULL) {
		if ((dir = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err)) == NULL)
			kp_die_err(&err);
		current = dir;
	}
	c = before_after(current, baseline, tol, tol_given, output);
	free(dir);
	kp_exit(c);
}
