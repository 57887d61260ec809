/*
 * kp-discover: which kernels does a program launch, and which one to profile?
 * One cheap ncu run (four metrics, a bounded number of launches), or an
 * existing capture with --from-csv; kernels ranked by hint, GPU time, launches.
 */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kp.h"

static const char synopsis[] =
    "usage: kp-discover [--max-launches N] [--hint NAME] [--filter] [--ncu-bin PATH]\n"
    "                   [--timeout S] [--output-dir DIR] [--from-csv FILE] [TARGET.yaml]\n";

static void
usage(FILE *fp, int status)
{
	fputs(synopsis, fp);
	exit(status);
}

enum { O_MAX = 256, O_HINT, O_FILTER, O_NCU, O_TIMEOUT, O_OUTDIR, O_CSV, O_VERSION };

static const struct option longopts[] = {
	{ "max-launches", required_argument, NULL, O_MAX },
	{ "hint", required_argument, NULL, O_HINT },
	{ "filter", no_argument, NULL, O_FILTER },
	{ "ncu-bin", required_argument, NULL, O_NCU },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "output-dir", required_argument, NULL, O_OUTDIR },
	{ "from-csv", required_argument, NULL, O_CSV },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 }
};

static char *
dir_of(const char *path)
{
	char *d = strdup(path), *s;

	if (d == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	if ((s = strrchr(d, '/')) == NULL) {
		free(d);
		return strdup(".");
	}
	if (s == d)
		s[1] = '\0';
	else
		*s = '\0';
	return d;
}

/* The ncu argv prefix: ncu itself, or sudo -n <the path in OUTPUT_ROOT/ncu_path>. */
static json_t *
prefix_for(json_t *t, const char *profile_dir, const char *ncu_flag)
{
	json_t *pre = json_array();
	const char *mode = kp_target_str(t, "privilege", "mode");
	const char *bin = ncu_flag != NULL ? ncu_flag : kp_target_str(t, "profiling", "ncu_bin");
	char *found, real[PATH_MAX];

	if (mode != NULL && strcmp(mode, "full_sudo") == 0) {
		char *root = dir_of(profile_dir), *file = kp_path_join(root, "ncu_path"), *text;
		char *sudo = kp_find_program("sudo"), *nl;
		struct kp_err err;
		struct stat st;

		if ((text = kp_read_file(file, NULL, &err)) == NULL)
			kp_die_err(&err);
		if ((nl = strchr(text, '\n')) != NULL)
			*nl = '\0';
		if (text[0] != '/' || stat(text, &st) < 0 || !S_ISREG(st.st_mode) ||
		    access(text, X_OK) < 0)
			kp_die(KP_EXIT_ENV, "%s: \"%s\" is not the absolute path of an executable "
			    "file", file, text);
		if (sudo == NULL)
			kp_die(KP_EXIT_ENV, "sudo: not found (privilege.mode is full_sudo)");
		json_array_append_new(pre, json_string(sudo));
		json_array_append_new(pre, json_string("-n"));
		json_array_append_new(pre, json_string(text));
		free(root);
		free(file);
		free(text);
		free(sudo);
		return pre;
	}
	if (bin == NULL || *bin == '\0')
		bin = "ncu";
	if ((found = kp_find_program(bin)) == NULL)
		kp_die(KP_EXIT_ENV, "%s: not found or not executable (profiling.ncu_bin, --ncu-bin)",
		    bin);
	json_array_append_new(pre, json_string(found[0] != '/' && realpath(found, real) != NULL ?
	    real : found));
	free(found);
	return pre;
}

/* Run the discovery pass; the raw CSV lands in details/00_discovery_raw.csv. */
static json_t *
run_ncu(json_t *t, const char *profile_dir, json_t *prefix, long max, int use_filter,
    double timeout)
{
	char real[PATH_MAX], tmpname[64], outname[64], *details, *final, *tmp, *out;
	const char *wd = kp_target_str(t, "target", "working_directory");
	json_t *argv, *shown, *env = json_object_get(json_object_get(t, "target"), "env");
	struct kp_proc p;
	struct kp_proc_result res;
	struct kp_ncu_verdict v;
	struct kp_err err;
	const char **av;
	size_t i;

	if (kp_mkdirs(profile_dir, &err) < 0 || realpath(profile_dir, real) == NULL)
		kp_die(KP_EXIT_ENV, "%s: cannot create the profile folder", profile_dir);
	details = kp_path_join(real, "details");
	if (kp_mkdirs(details, &err) < 0)
		kp_die_err(&err);
	final = kp_path_join(details, "00_discovery_raw.csv");
	snprintf(tmpname, sizeof(tmpname), ".00_discovery_raw.csv.%ld.tmp", (long)getpid());
	snprintf(outname, sizeof(outname), ".ncu-stdout.%ld.tmp", (long)getpid());
	tmp = kp_path_join(details, tmpname);
	out = kp_path_join(details, outname);
	if ((argv = kp_discovery_argv(t, prefix, tmp, max, use_filter, &err)) == NULL ||
	    (shown = kp_discovery_argv(t, prefix, final, max, use_filter, &err)) == NULL)
		kp_die_err(&err);
	if (wd == NULL || *wd == '\0')
		wd = ".";
	if (!kp_is_dir(wd))
		kp_die(KP_EXIT_TARGET, "target.working_directory: %s: not a directory", wd);
	if ((av = calloc(json_array_size(argv) + 1, sizeof(*av))) == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	for (i = 0; i < json_array_size(argv); i++)
		av[i] = json_string_value(json_array_get(argv, i));
	memset(&p, 0, sizeof(p));
	p.argv = av;
	p.cwd = wd;
	p.env = env;
	p.out_path = out;
	p.timeout_s = timeout;
	kp_proc_catch_signals();
	if (kp_proc_run(&p, &res, &err) < 0)
		kp_die_err(&err);
	kp_ncu_classify(tmp, out, &res, &v);
	if (v.outcome == KP_OUT_OK && rename(tmp, final) < 0)
		kp_die(KP_EXIT_ENV, "%s: cannot rename the capture", final);
	unlink(tmp);
	unlink(out);
	free(av);
	json_decref(argv);
	if (v.outcome != KP_OUT_OK) {
		kp_warn("%s", v.reason);
		if (v.outcome == KP_OUT_NOPERM)
			kp_warn("ncu needs access to the GPU performance counters: see kp-collect(1), "
			    "PRIVILEGES, for the sudo NOPASSWD set-up");
		if (v.outcome == KP_OUT_TARGET && v.tail[0] != '\0')
			kp_warn("target's last output: %s", v.tail);
		exit(kp_outcome_exit(v.outcome));
	}
	fprintf(stderr, "kp-discover: ncu %.1fs\n", res.duration_s);
	json_decref(v.kernels);
	free(details);
	free(tmp);
	free(out);
	{
		json_t *run = json_pack("{s:o, s:o, s:f}", "argv", shown, "exit_status",
		    res.exited ? json_integer(res.exit_status) : json_null(), "duration_s",
		    (double)(long long)(res.duration_s * 100 + 0.5) / 100);
		json_object_set_new(run, "capture", json_string(final));
		free(final);
		return run;
	}
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
		if (profile_dir != NULL)
			json_object_set_new(rec, "profile_dir", json_string(profile_dir));
		if (kp_jsonl_write(stdout, rec, &err) < 0)
			kp_die_err(&err);
		json_decref(rec);
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
	json_t *t = NULL, *cands, *run = NULL, *prefix;
	char *path = NULL, *profile_dir = NULL, *capture;

	kp_setprogname(argv[0]);
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
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
		case 'h': usage(stdout, KP_EXIT_OK); break;
		case O_VERSION: kp_print_version(); return KP_EXIT_OK;
		default: usage(stderr, KP_EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1 || (csv != NULL && argc > 0))
		usage(stderr, KP_EXIT_USAGE);
	if (csv != NULL && (use_filter || ncu != NULL || timeout >= 0))
		kp_die(KP_EXIT_USAGE, "--from-csv runs no ncu: --filter, --ncu-bin and --timeout "
		    "do not apply");
	if (csv == NULL) {
		if (argc == 1) {
			path = strdup(argv[0]);
		} else if (!isatty(0)) {
			char *pd = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err);
			if (pd == NULL)
				kp_die_err(&err);
			path = kp_path_join(pd, "profile-target.yaml");
			free(pd);
		} else {
			usage(stderr, KP_EXIT_USAGE);
		}
		if ((t = kp_target_load(path, &err)) == NULL)
			kp_die_err(&err);
		profile_dir = outdir != NULL ? strdup(outdir) : dir_of(path);
		if (hint == NULL)
			hint = kp_target_str(t, "kernel", "name");
		if (timeout < 0) {
			json_t *to = json_object_get(json_object_get(t, "target"), "timeout_seconds");
			timeout = json_is_number(to) ? (long long)json_number_value(to) : 0;
		}
		prefix = prefix_for(t, profile_dir, ncu);
		run = run_ncu(t, profile_dir, prefix, (long)max, use_filter, (double)timeout);
		json_decref(prefix);
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
		char *details = kp_path_join(profile_dir, "details"), *out;
		if (kp_mkdirs(details, &err) < 0)
			kp_die_err(&err);
		out = kp_path_join(details, "kernel_candidates.json");
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
	return kp_close_stdout() < 0 ? KP_EXIT_DATA : KP_EXIT_OK;
}
