/*
 * kp-discover: which kernels does a program launch, and which one to profile?
 * One cheap ncu run (four metrics, a bounded number of launches), or an
 * existing capture with --from-csv; kernels ranked by hint, GPU time, launches.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_discover.h"
#include "kp_jsonl.h"
#include "kp_proc.h"
#include "kp_target.h"
#include "ncu.h"
#include "profile.h"

static const char synopsis[] =
    "usage: kp-discover [--max-launches N] [--hint NAME] [--filter] [--ncu-bin PATH]\n"
    "                   [--timeout S] [--output-dir DIR] [--from-csv FILE]\n"
    "                   [TARGET.yaml [DETAILS]]\n";

enum { O_MAX = 256, O_HINT, O_FILTER, O_NCU, O_TIMEOUT, O_OUTDIR, O_CSV };

static const struct option longopts[] = {
	{ "max-launches", required_argument, NULL, O_MAX },
	{ "hint", required_argument, NULL, O_HINT },
	{ "filter", no_argument, NULL, O_FILTER },
	{ "ncu-bin", required_argument, NULL, O_NCU },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "output-dir", required_argument, NULL, O_OUTDIR },
	{ "from-csv", required_argument, NULL, O_CSV },
	KP_OPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

/* Which ncu; --ncu-bin goes before the target's profiling.ncu_bin. */
static void
resolve_ncu(struct kp_ncu *n, json_t *t, const char *profile_dir, const char *ncu_flag)
{
	struct kp_err err;
	json_t *pr = json_object_get(t, "profiling");

	if (ncu_flag != NULL) {
		if (!json_is_object(pr)) {
			pr = json_object();
			json_object_set_new(t, "profiling", pr);
		}
		json_object_set_new(pr, "ncu_bin", json_string(ncu_flag));
	}
	if (kp_ncu_resolve(n, t, profile_dir, &err) < 0)
		kp_die_err(&err);
}

/* The details folder: DETAILS when given, else PROFILE/details. */
static char *
details_of(const char *profile_dir, const char *details_arg)
{
	return details_arg != NULL ? kp_xstrdup(details_arg) :
	    kp_path_join(profile_dir, KP_DETAILS);
}

/* Run the discovery pass; the raw CSV lands in DETAILS/00_discovery_raw.csv. */
static json_t *
run_ncu(json_t *t, const char *profile_dir, const char *details_arg, const struct kp_ncu *n,
    long max, int use_filter, double timeout)
{
	char real[PATH_MAX], *details, *final;
	const char *wd = kp_target_str(t, "target", "working_directory");
	struct kp_ncu_pass pass;
	struct kp_ncu_run r;
	struct kp_err err;
	json_t *run;

	if (kp_mkdirs(profile_dir, &err) < 0 || realpath(profile_dir, real) == NULL)
		kp_die(KP_EXIT_ENV, "%s: cannot create the profile folder", profile_dir);
	details = details_of(real, details_arg);
	if (kp_mkdirs(details, &err) < 0)
		kp_die_err(&err);
	final = kp_path_join(details, kp_artifact_name(KP_ART_DISCOVERY_RAW));
	if (wd == NULL || *wd == '\0')
		wd = ".";
	if (!kp_is_dir(wd))
		kp_die(KP_EXIT_TARGET, "target.working_directory: %s: not a directory", wd);
	memset(&pass, 0, sizeof(pass));
	pass.discovery = 1;
	pass.max_launches = max;
	pass.use_filter = use_filter;
	kp_proc_catch_signals();
	if (kp_ncu_run(n, t, &pass, final, wd, timeout, &r, &err) < 0)
		kp_die_err(&err);
	if (r.rename_errno != 0)
		kp_die(KP_EXIT_ENV, "%s: cannot rename the capture", final);
	if (r.v.outcome != KP_OUT_OK) {
		kp_warn("%s", r.v.reason);
		if (r.v.outcome == KP_OUT_NOPERM)
			kp_warn("ncu needs access to the GPU performance counters: see kp-collect(1), "
			    "PRIVILEGES, for the sudo NOPASSWD set-up");
		if (r.v.outcome == KP_OUT_TARGET && r.v.tail[0] != '\0')
			kp_warn("target's last output: %s", r.v.tail);
		exit(kp_proc_signal() ? 128 + kp_proc_signal() : kp_outcome_exit(r.v.outcome));
	}
	if (kp_proc_signal())	/* ncu ended first, but the run was interrupted */
		kp_die(128 + kp_proc_signal(), "interrupted");
	fprintf(stderr, "kp-discover: ncu %.1fs\n", r.res.duration_s);
	run = json_pack("{s:O, s:o, s:f}", "argv", r.argv, "exit_status",
	    r.res.exited ? json_integer(r.res.exit_status) : json_null(), "duration_s",
	    (double)(long long)(r.res.duration_s * 100 + 0.5) / 100);
	json_object_set_new(run, "capture", json_string(final));
	kp_ncu_run_free(&r);
	free(details);
	free(final);
	return run;
}

static void
report(json_t *cands, const char *profile_dir)
{
	struct kp_err err;
	json_t *c, *rec;
	size_t i;
	json_int_t chosen = json_is_integer(json_object_get(cands, "chosen")) ?
	    json_integer_value(json_object_get(cands, "chosen")) : -1;

	json_array_foreach(json_object_get(cands, "candidates"), i, c) {
		rec = json_deep_copy(c);
		json_object_set_new(rec, "kind", json_string("candidate"));
		json_object_set_new(rec, "chosen", json_boolean((json_int_t)i == chosen));
		if (kp_jsonl_put(stdout, rec, profile_dir, &err) < 0)
			kp_die_err(&err);
	}
	if (chosen >= 0) {
		c = json_array_get(json_object_get(cands, "candidates"), (size_t)chosen);
		fprintf(stderr, "kp-discover: would choose %s: %s\n",
		    json_string_value(json_object_get(c, "function")),
		    json_string_value(json_object_get(cands, "reason")));
	} else {
		kp_warn("no kernel launch in the capture");
	}
}

int
main(int argc, char **argv)
{
	struct kp_err err;
	const char *hint = NULL, *ncu = NULL, *outdir = NULL, *csv = NULL;
	long long max = 200, timeout = -1;
	int ch, use_filter = 0;
	json_t *t = NULL, *cands, *run = NULL;
	struct kp_ncu n;
	char *path = NULL, *profile_dir = NULL, *capture;
	const char *details_arg = NULL;

	kp_init(argv[0], synopsis);
	while ((ch = kp_getopt(argc, argv, "h", longopts)) != -1) {
		switch (ch) {
		case O_MAX:
			if (kp_strtonum(optarg, 1, 100000, &max, &err) < 0)
				kp_die(KP_EXIT_USAGE, "--max-launches: %s", err.msg);
			break;
		case O_HINT: hint = optarg; break;
		case O_FILTER: use_filter = 1; break;
		case O_NCU: ncu = optarg; break;
		case O_TIMEOUT:
			if (kp_strtonum(optarg, 0, 86400 * 7, &timeout, &err) < 0)
				kp_die(KP_EXIT_USAGE, "--timeout: %s", err.msg);
			break;
		case O_OUTDIR: outdir = optarg; break;
		case O_CSV: csv = optarg; break;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 2 || (csv != NULL && argc > 0))
		kp_usage(KP_EXIT_USAGE);
	if (argc == 2) {
		if (*argv[1] == '\0')
			kp_die(KP_EXIT_USAGE, "DETAILS: empty folder name");
		details_arg = argv[1];
	}
	if (csv != NULL && (use_filter || ncu != NULL || timeout >= 0))
		kp_die(KP_EXIT_USAGE, "--from-csv runs no ncu: --filter, --ncu-bin and --timeout "
		    "do not apply");
	if (csv == NULL) {
		if (argc >= 1) {
			path = strdup(argv[0]);
		} else if (!isatty(0)) {
			char *pd = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err);
			if (pd == NULL)
				kp_die_err(&err);
			path = kp_artifact_path(pd, KP_ART_TARGET);
			free(pd);
		} else {
			kp_usage(KP_EXIT_USAGE);
		}
		if ((t = kp_target_load(path, &err)) == NULL)
			kp_die_err(&err);
		profile_dir = outdir != NULL ? strdup(outdir) : kp_path_dir(path);
		if (hint == NULL)
			hint = kp_target_str(t, "kernel", "name");
		if (timeout < 0) {
			json_t *to = json_object_get(json_object_get(t, "target"), "timeout_seconds");
			timeout = json_is_number(to) ? (long long)json_number_value(to) : 0;
		}
		resolve_ncu(&n, t, profile_dir, ncu);
		run = run_ncu(t, profile_dir, details_arg, &n, (long)max, use_filter,
		    (double)timeout);
		kp_ncu_free(&n);
		capture = strdup(json_string_value(json_object_get(run, "capture")));
	} else {
		profile_dir = outdir != NULL ? strdup(outdir) : NULL;
		capture = strdup(csv);
	}
	if ((cands = kp_discover_file(capture, hint, &err)) == NULL)
		kp_die_err(&err);
	if (run != NULL)
		json_object_set_new(cands, "run", run);
	if (profile_dir != NULL) {
		char *details = details_of(profile_dir, details_arg), *out;
		if (kp_mkdirs(details, &err) < 0)
			kp_die_err(&err);
		out = kp_path_join(details, kp_artifact_name(KP_ART_CANDIDATES));
		if (kp_write_json_atomic(out, cands, JSON_INDENT(2) | JSON_SORT_KEYS, &err) < 0)
			kp_die_err(&err);
		free(out);
		free(details);
	}
	report(cands, profile_dir);
	json_decref(cands);
	json_decref(t);
	free(path);
	free(profile_dir);
	free(capture);
	kp_exit(KP_EXIT_OK);
}
