/*
 * kp-gentarget: from a compact request ("kernel X in ./bench --m 4096, with
 * visual report, source and roofline") to ./profile/<id>/profile-target.yaml,
 * the file every later kp program reads (kp-target(5)).  Nothing is run: the
 * command is stored as words, and kernel discovery is left to kp-discover.
 * With --suggest-target, rank candidate commands found in a repository instead.
 */
#include <stdio.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_jsonl.h"
#include "kp_ranks.h"
#include "kp_request.h"
#include "kp_shellwords.h"
#include "kp_suggest.h"
#include "kp_target.h"
#include "kp_utf8.h"
#include "profile.h"

#define DEFAULT_NCU "/usr/local/cuda/bin/ncu\n"

enum {
	O_TARGET_CMD = 256, O_EXECUTABLE, O_ARGS, O_RUNTIME, O_PY_SCRIPT, O_PY_MODULE,
	O_WORKDIR, O_ENV, O_KERNEL, O_DISCOVER, O_FILTER_MODE, O_FILTER, O_NVTX,
	O_REQ, O_SKIP, O_COUNT, O_PRIV, O_NCU, O_CLOCK, O_EXTRA, O_ID, O_ROOT,
	O_OUTPUT, O_SUGGEST, O_REPO, O_CHECK, O_LAUNCHER, O_RANKS
};

static const struct option longopts[] = {
	{ "target-cmd", required_argument, NULL, O_TARGET_CMD },
	{ "executable", required_argument, NULL, O_EXECUTABLE },
	{ "args", no_argument, NULL, O_ARGS },
	{ "runtime", required_argument, NULL, O_RUNTIME },
	{ "python-script", required_argument, NULL, O_PY_SCRIPT },
	{ "python-module", required_argument, NULL, O_PY_MODULE },
	{ "workdir", required_argument, NULL, O_WORKDIR },
	{ "env", required_argument, NULL, O_ENV },
	{ "launcher", required_argument, NULL, O_LAUNCHER },
	{ "ranks", required_argument, NULL, O_RANKS },
	{ "kernel", required_argument, NULL, O_KERNEL },
	{ "discover", no_argument, NULL, O_DISCOVER },
	{ "filter-mode", required_argument, NULL, O_FILTER_MODE },
	{ "filter", required_argument, NULL, O_FILTER },
	{ "nvtx-range", required_argument, NULL, O_NVTX },
	{ "requirement", required_argument, NULL, O_REQ },
	{ "launch-skip", required_argument, NULL, O_SKIP },
	{ "launch-count", required_argument, NULL, O_COUNT },
	{ "privilege-mode", required_argument, NULL, O_PRIV },
	{ "ncu-bin", required_argument, NULL, O_NCU },
	{ "clock-control", required_argument, NULL, O_CLOCK },
	{ "extra-profiler-option", required_argument, NULL, O_EXTRA },
	{ "profile-id", required_argument, NULL, O_ID },
	{ "output-root", required_argument, NULL, O_ROOT },
	{ "output", required_argument, NULL, O_OUTPUT },
	{ "suggest-target", no_argument, NULL, O_SUGGEST },
	{ "repo", required_argument, NULL, O_REPO },
	{ "check", required_argument, NULL, O_CHECK },
	KP_OPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

static const char synopsis[] =
    "usage: kp-gentarget [--target-cmd CMD | --executable PATH | --python-script FILE |\n"
    "                     --python-module MODULE] [--runtime RUNTIME] [--workdir DIR]\n"
    "                    [--env NAME=VALUE] [--launcher CMD] [--ranks LIST]\n"
    "                    (--kernel NAME | --discover)\n"
    "                    [--filter-mode MODE] [--filter PATTERN] [--nvtx-range RANGE]\n"
    "                    [--requirement TEXT] [--launch-skip N] [--launch-count N]\n"
    "                    [--privilege-mode none | full_sudo] [--ncu-bin PATH]\n"
    "                    [--clock-control base | none] [--extra-profiler-option ARG]\n"
    "                    [--profile-id ID] [--output-root DIR] [--output FILE]\n"
    "                    [--args ARG ...]\n"
    "       kp-gentarget --suggest-target [--repo DIR]\n"
    "       kp-gentarget --check FILE\n"
    "       kp-gentarget -h | --help | --version\n";

struct opts {
	const char *target_cmd, *executable, *runtime, *py_script, *py_module, *workdir;
	const char *kernel, *filter_mode, *filter, *nvtx, *priv, *ncu, *clock, *id;
	const char *root, *output, *repo, *check;
	json_t *env, *reqs, *extra, *args, *launcher, *ranks;
	long long skip, count;
	int discover, suggest;
};

/* "NAME=VALUE" into env; 0 ok, -1 not an assignment. */
static int
env_assign(json_t *env, const char *word)
{
	const char *eq = strchr(word, '=');

	if (eq == NULL || !kp_env_name_valid(word, (size_t)(eq - word)))
		return -1;
	if (json_object_setn_new(env, word, (size_t)(eq - word), json_string(eq + 1)) != 0)
		return -1;
	return 0;
}

static int
one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

static long long
number(const char *opt, const char *s, long long min, long long max)
{
	struct kp_err err;
	long long v;

	if (kp_strtonum(s, min, max, &v, &err) != 0)
		kp_die(KP_EXIT_USAGE, "%s: %s", opt, err.msg);
	return v;
}

static void
parse(struct opts *o, int argc, char **argv)
{
	static const char *const runtimes[] = { "auto", "native", "python", "python-triton", NULL };
	static const char *const modes[] = { "auto", "exact", "regex", "kernel-id", "nvtx-range", NULL };
	static const char *const privs[] = { "none", "full_sudo", NULL };
	static const char *const clocks[] = { "base", "none", NULL };
	int ch;

	memset(o, 0, sizeof(*o));
	o->runtime = "auto";
	o->filter_mode = "auto";
	o->workdir = ".";
	o->root = "./profile";
	o->skip = o->count = -1;
	o->env = json_object();
	o->reqs = json_array();
	o->extra = json_array();
	/* '+': stop at the first operand, so that --args takes the rest verbatim. */
	while ((ch = kp_getopt(argc, argv, "+h", longopts)) != -1) {
		switch (ch) {
		case O_TARGET_CMD: o->target_cmd = optarg; break;
		case O_EXECUTABLE: o->executable = optarg; break;
		case O_ARGS:
			o->args = json_array();
			for (; optind < argc; optind++)
				json_array_append_new(o->args, json_string(argv[optind]));
			return;
		case O_RUNTIME:
			if (!one_of(optarg, runtimes))
				kp_die(KP_EXIT_USAGE, "--runtime: \"%s\" is not one of auto, native, "
				    "python, python-triton", optarg);
			o->runtime = optarg;
			break;
		case O_PY_SCRIPT: o->py_script = optarg; break;
		case O_PY_MODULE: o->py_module = optarg; break;
		case O_WORKDIR: o->workdir = optarg; break;
		case O_LAUNCHER: {
			struct kp_err e;
			json_decref(o->launcher);
			if ((o->launcher = kp_shell_split(optarg, &e)) == NULL)
				kp_die(KP_EXIT_USAGE, "--launcher: %s", e.msg);
			if (json_array_size(o->launcher) == 0)
				kp_die(KP_EXIT_USAGE, "--launcher: empty command");
			break;
		}
		case O_RANKS: {
			struct kp_err e;
			json_decref(o->ranks);
			if ((o->ranks = kp_ranks_parse(optarg, &e)) == NULL)
				kp_die(KP_EXIT_USAGE, "--ranks: %s", e.msg);
			break;
		}
		case O_ENV:
			if (env_assign(o->env, optarg) != 0)
				kp_die(KP_EXIT_USAGE, "--env: \"%s\" is not NAME=VALUE", optarg);
			break;
		case O_KERNEL: o->kernel = optarg; break;
		case O_DISCOVER: o->discover = 1; break;
		case O_FILTER_MODE:
			if (!one_of(optarg, modes))
				kp_die(KP_EXIT_USAGE, "--filter-mode: \"%s\" is not one of auto, exact, "
				    "regex, kernel-id, nvtx-range", optarg);
			o->filter_mode = optarg;
			break;
		case O_FILTER: o->filter = optarg; break;
		case O_NVTX: o->nvtx = optarg; break;
		case O_REQ: json_array_append_new(o->reqs, json_string(optarg)); break;
		case O_SKIP: o->skip = number("--launch-skip", optarg, 0, 1000000); break;
		case O_COUNT: o->count = number("--launch-count", optarg, 1, 100000); break;
		case O_PRIV:
			if (!one_of(optarg, privs))
				kp_die(KP_EXIT_USAGE, "--privilege-mode: \"%s\" is not one of none, "
				    "full_sudo", optarg);
			o->priv = optarg;
			break;
		case O_NCU: o->ncu = optarg; break;
		case O_CLOCK:
			if (!one_of(optarg, clocks))
				kp_die(KP_EXIT_USAGE, "--clock-control: \"%s\" is not one of base, none",
				    optarg);
			o->clock = optarg;
			break;
		case O_EXTRA: json_array_append_new(o->extra, json_string(optarg)); break;
		case O_ID: o->id = optarg; break;
		case O_ROOT: o->root = optarg; break;
		case O_OUTPUT: o->output = optarg; break;
		case O_SUGGEST: o->suggest = 1; break;
		case O_REPO: o->repo = optarg; break;
		case O_CHECK: o->check = optarg; break;
		}
	}
	if (optind < argc) {
		kp_warn("unexpected operand \"%s\" (the target's own arguments go after --args)",
		    argv[optind]);
		kp_usage(KP_EXIT_USAGE);
	}
}

static void
free_opts(struct opts *o)
{
	json_decref(o->env);
	json_decref(o->reqs);
	json_decref(o->extra);
	json_decref(o->args);
	json_decref(o->launcher);
	json_decref(o->ranks);
}

static int
suggest(const char *repo)
{
	struct kp_err err;
	json_t *c, *v;
	size_t i;

	if ((c = kp_suggest_targets(repo, &err)) == NULL)
		kp_die_err(&err);
	if (json_array_size(c) == 0)
		kp_warn("%s: no candidate command found", repo);
	json_array_foreach(c, i, v)
		if (kp_jsonl_write(stdout, v, &err) != 0)
			kp_die_err(&err);
	json_decref(c);
	kp_exit(KP_EXIT_OK);
}

/* ---- the command and its runtime ---- */

static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int
is_python(const char *argv0)
{
	const char *b = base_name(argv0);

	if (strncmp(b, "python", 6) == 0)
		return strspn(b + 6, "0123456789.") == strlen(b + 6);
	return strncmp(b, "pypy", 4) == 0;
}

static int
ends_py(const char *s)
{
	size_t n = strlen(s);

	return n > 3 && strcmp(s + n - 3, ".py") == 0;
}

static int
mentions_triton(const char *s)
{
	const char *p;

	for (p = s; p != NULL && *p; p++)
		if (strncasecmp(p, "triton", 6) == 0)
			return 1;
	return 0;
}

/* The words of the command, from --target-cmd, --executable or --python-*. */
static json_t *
command_words(struct opts *o, json_t *env)
{
	struct kp_err err;
	json_t *argv, *v;
	size_t i;

	if (o->target_cmd) {
		if ((argv = kp_shell_split(o->target_cmd, &err)) == NULL)
			kp_die(KP_EXIT_USAGE, "--target-cmd: %s", err.msg);
		/* Leading NAME=VALUE words are the shell's environment assignments. */
		while (json_array_size(argv) > 0 &&
		    env_assign(env, json_string_value(json_array_get(argv, 0))) == 0)
			json_array_remove(argv, 0);
		if (json_array_size(argv) == 0)
			kp_die(KP_EXIT_USAGE, "--target-cmd: no command in \"%s\"", o->target_cmd);
		return argv;
	}
	argv = json_array();
	if (o->executable)
		json_array_append_new(argv, json_string(o->executable));
	else {
		json_array_append_new(argv, json_string("python3"));
		if (o->py_module) {
			json_array_append_new(argv, json_string("-m"));
			json_array_append_new(argv, json_string(o->py_module));
		} else
			json_array_append_new(argv, json_string(o->py_script));
	}
	json_array_foreach(o->args, i, v)
		json_array_append(argv, v);
	return argv;
}

struct python {
	int is;
	const char *interpreter, *entry, *script, *module;
};

static void
python_entry(json_t *argv, struct opts *o, struct python *py)
{
	const char *a0 = json_string_value(json_array_get(argv, 0));
	size_t i;

	memset(py, 0, sizeof(*py));
	py->entry = "none";
	if (is_python(a0)) {
		py->is = 1;
		py->interpreter = a0;
		for (i = 1; i < json_array_size(argv); i++) {
			const char *w = json_string_value(json_array_get(argv, i));

			if (strcmp(w, "-m") == 0 && i + 1 < json_array_size(argv)) {
				py->entry = "module";
				py->module = json_string_value(json_array_get(argv, i + 1));
				break;
			}
			if (strcmp(w, "-c") == 0) {
				py->entry = "command";
				break;
			}
			if (strcmp(w, "-X") == 0 || strcmp(w, "-W") == 0) {
				i++;
				continue;
			}
			if (w[0] != '-') {
				py->entry = "script";
				py->script = w;
				break;
			}
		}
	} else if (ends_py(a0)) {
		py->is = 1;
		py->entry = "script";
		py->script = a0;
	}
	if (o->py_script) {
		py->is = 1;
		py->entry = "script";
		py->script = o->py_script;
	} else if (o->py_module) {
		py->is = 1;
		py->entry = "module";
		py->module = o->py_module;
	}
}

/* ---- the kernel filter ---- */

static void
kernel_filter(struct opts *o, const char **mode, char **filter)
{
	const char *m = o->filter_mode;

	*filter = NULL;
	if (strcmp(m, "auto") == 0)
		m = o->filter ? "regex" : (o->nvtx && !o->kernel) ? "nvtx-range" : "regex";
	if (strcmp(m, "nvtx-range") == 0 && o->nvtx == NULL)
		kp_die(KP_EXIT_USAGE, "--filter-mode nvtx-range needs --nvtx-range");
	if (strcmp(m, "kernel-id") == 0 && o->filter == NULL)
		kp_die(KP_EXIT_USAGE, "--filter-mode kernel-id needs --filter");
	if (o->filter)
		*filter = strdup(o->filter);
	else if (o->kernel && strcmp(m, "exact") == 0)
		*filter = strdup(o->kernel);
	else if (o->kernel) {
		char *e = kp_regex_escape(o->kernel);
		size_t n = strlen(e) + 5;

		if ((*filter = malloc(n)) != NULL)
			snprintf(*filter, n, ".*%s.*", e);
		free(e);
	} else if (strcmp(m, "exact") == 0)
		kp_die(KP_EXIT_USAGE, "--filter-mode exact needs --kernel or --filter");
	*mode = m;
}

/* ---- the target tree ---- */

static int
want(json_t *fields, const char *key, int def)
{
	json_t *v = json_object_get(fields, key);

	return v ? json_is_true(v) : def;
}

static json_t *
build(struct opts *o, json_t *argv, json_t *env, json_t *req, const char *id)
{
	json_t *f = json_object_get(req, "fields"), *t, *args, *notes;
	const char *runtime = o->runtime, *mode, *autotune;
	struct python py;
	char *filter;
	int triton, micro, full, source, skip, count;
	size_t i;

	python_entry(argv, o, &py);
	if (strcmp(runtime, "auto") == 0) {
		int hint = want(f, "triton", 0) || json_object_get(f, "autotune") != NULL ||
		    mentions_triton(py.script) || mentions_triton(py.module);
		if (want(f, "triton", 1) == 0)
			hint = 0;
		runtime = hint ? "python-triton" : py.is ? "python" : "native";
	}
	triton = strcmp(runtime, "python-triton") == 0;
	micro = want(f, "microbenchmark", 0);
	full = want(f, "full", 0);
	source = want(f, "source", 0) || full;
	skip = triton ? 20 : micro ? 5 : 10;
	count = micro ? 3 : 1;
	if (o->skip >= 0)
		skip = (int)o->skip;
	if (o->count >= 0)
		count = (int)o->count;
	kernel_filter(o, &mode, &filter);
	autotune = triton ? (json_is_string(json_object_get(f, "autotune")) ?
	    json_string_value(json_object_get(f, "autotune")) : "warmup") : "none";

	args = json_array();
	for (i = 1; i < json_array_size(argv); i++)
		json_array_append(args, json_array_get(argv, i));
	notes = json_array();
	if (triton) {
		json_array_append_new(notes, json_string("Triton compiles (JIT) and autotunes "
		    "on the first launches of a kernel: those launches are skipped (warmup_skip) "
		    "so that the profiled launch runs the compiled, tuned kernel"));
		if (strcmp(autotune, "profile-all") == 0)
			json_array_append_new(notes, json_string("autotuning launches are profiled "
			    "too (triton_autotune_policy: profile-all)"));
	} else if (!py.is)
		json_array_append_new(notes, json_string("CUDA source lines need the binary "
		    "built with -lineinfo; without it source hotspots fall back to SASS"));

	/* Only what is decided here: kp_target_validate() fills in lib/target.c's
	 * defaults (schema_version, timeouts, backend, ...) and kp_target_write()
	 * writes the keys in schema order. */
	t = json_object();
	json_object_set_new(t, "target", json_pack(
	    "{s:s, s:O, s:o, s:s, s:O, s:{s:s?, s:s, s:s?, s:s?, s:s}}",
	    "runtime", runtime, "executable", json_array_get(argv, 0), "args", args,
	    "working_directory", o->workdir, "env", env,
	    "python", "interpreter", py.interpreter, "entry_kind", py.entry,
	    "script", py.script, "module", py.module,
	    "jit_framework", triton ? "triton" : "none"));
	if (o->launcher != NULL)
		json_object_set(json_object_get(t, "target"), "launcher", o->launcher);
	if (o->ranks != NULL)
		json_object_set(json_object_get(t, "target"), "ranks", o->ranks);
	json_object_set_new(t, "runtime_options", json_pack(
	    "{s:b, s:s?, s:s, s:b, s:i, s:s, s:o}",
	    "triton_enabled", triton, "triton_kernel_hint", triton ? o->kernel : NULL,
	    "triton_autotune_policy", autotune, "jit_warmup_required", triton,
	    "recommended_warmup_skip", skip, "source_mapping_expectation",
	    triton ? "triton-python" : py.is ? "sass-only" : "cuda-lineinfo", "notes", notes));
	json_object_set_new(t, "kernel", json_pack("{s:s?, s:s, s:s?, s:s, s:s?}",
	    "name", o->kernel, "filter_mode", mode, "filter", filter, "profile_id", id,
	    "nvtx_range", o->nvtx));
	free(filter);
	json_object_set_new(t, "profiling", json_pack(
	    "{s:s, s:s, s:i, s:i, s:b, s:b, s:O, s:s*, s:s, s:s*}",
	    "initial_level", full ? "full" : "basic",
	    "warmup_policy", skip == 0 ? "none" : triton ? "jit-autotune-skip" : "launch-skip",
	    "warmup_skip", skip, "launch_count", count, "enable_source_mapping", source,
	    "enable_visual_report", want(f, "visual", 0), "extra_profiler_options", o->extra,
	    "ncu_bin", o->ncu, "output_root", o->root,
	    "clock_control", o->clock ? o->clock :
	    json_string_value(json_object_get(f, "clock_control"))));
	json_object_set_new(t, "privilege", json_pack("{s:s*}", "mode",
	    o->priv ? o->priv : want(f, "sudo", 0) ? "full_sudo" : NULL));
	json_object_set_new(t, "discovery", json_object());
	json_object_set_new(t, "analysis", json_pack(
	    "{s:b, s:b, s:b, s:b, s:b, s:o, s:b, s:b, s:O?, s:b}",
	    "collect_memory", full || want(f, "memory", 0),
	    "collect_compute", full || want(f, "compute", 0),
	    "collect_occupancy", full || want(f, "occupancy", 0),
	    "collect_roofline", full || want(f, "roofline", 0),
	    "collect_source", source, "source_views", json_object_get(f, "source_views") ?
	    json_incref(json_object_get(f, "source_views")) : json_array(),
	    "enable_bottleneck_decision_engine", want(f, "bottleneck", 1),
	    "enable_regression_compare", want(f, "compare", 0),
	    "compare_baseline", json_object_get(f, "baseline"),
	    "generate_source_hotspots_table", source));
	json_object_set_new(t, "visualization", json_pack("{s:b, s:s*}",
	    "enabled", want(f, "visual", 0), "format",
	    json_string_value(json_object_get(f, "format"))));
	json_object_set_new(t, "notes", json_pack("{s:O, s:O, s:O}",
	    "user_requirements", json_object_get(req, "not_understood"),
	    "unsupported_or_deferred_requirements", json_object_get(req, "unsupported"),
	    "original_requirements", json_object_get(req, "original")));
	return t;
}

/* ---- the profile folder ---- */

static char *
make_id(struct opts *o)
{
	struct kp_err err;
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char stamp[32], *stem, *id;
	struct tm tm;
	time_t now;
	size_t n;

	if (o->id) {
		if (!kp_profile_id_valid(o->id))
			kp_die(KP_EXIT_USAGE, "--profile-id: \"%s\" is not a valid id (only "
			    "A-Z a-z 0-9 _ . -, no \"..\", not starting with . or -)", o->id);
		return strdup(o->id);
	}
	if (sde != NULL && *sde != '\0') {
		long long v;

		if (kp_strtonum(sde, 0, 253402300799LL, &v, &err) != 0)
			kp_die(KP_EXIT_USAGE, "SOURCE_DATE_EPOCH: %s", err.msg);
		now = (time_t)v;
		gmtime_r(&now, &tm);
	} else {
		now = time(NULL);
		localtime_r(&now, &tm);
	}
	strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
	if ((stem = kp_profile_id_stem(o->kernel ? o->kernel : "discover")) == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	n = strlen(stem) + strlen(stamp) + 2;
	if ((id = malloc(n)) == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	snprintf(id, n, "%s_%s", stem, stamp);
	free(stem);
	return id;
}

struct made {
	char *root, *ncu_path, *dir;	/* what this run created, to undo on failure */
};

static void
undo(struct made *m)
{
	if (m->dir)
		rmdir(m->dir);
	if (m->ncu_path)
		unlink(m->ncu_path);
	if (m->root)
		rmdir(m->root);
}

static _Noreturn void
fail_undo(struct made *m, const struct kp_err *err)
{
	undo(m);
	kp_die_err(err);
}

/* Claim ROOT/ID, or ROOT/ID_2, ID_3, ... when it exists: mkdir is the lock. */
static char *
claim_dir(const char *root, char **idp, struct made *m)
{
	struct kp_err err;
	char *id = *idp, *try = NULL, *path;
	int k;

	for (k = 1; k < 10000; k++) {
		size_t n = strlen(id) + 16;

		free(try);
		if ((try = malloc(n)) == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
		if (k == 1)
			snprintf(try, n, "%s", id);
		else
			snprintf(try, n, "%s_%d", id, k);
		if (!kp_profile_id_valid(try))
			break;
		if ((path = kp_path_join(root, try)) == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
		if (mkdir(path, 0755) == 0) {
			if (k > 1)
				kp_warn("%s/%s exists; using the profile id %s instead", root, id, try);
			free(id);
			*idp = try;
			return path;
		}
		if (errno != EEXIST) {
			kp_errno(&err, KP_EXIT_ENV, path);
			free(path);
			fail_undo(m, &err);
		}
		free(path);
	}
	kp_errf(&err, KP_EXIT_ENV, "%s/%s: exists, and so do its numbered variants", root, id);
	fail_undo(m, &err);
}

static void
ensure_ncu_path(const char *root, struct made *m)
{
	struct kp_err err;
	char *p = kp_path_join(root, "ncu_path");

	if (p == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	if (access(p, F_OK) == 0 || errno != ENOENT) {
		free(p);	/* the user's own: never overwritten */
		return;
	}
	if (kp_write_file_atomic(p, DEFAULT_NCU, strlen(DEFAULT_NCU), &err) != 0) {
		free(p);
		fail_undo(m, &err);
	}
	m->ncu_path = p;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct kp_err err;
	struct made m = { NULL, NULL, NULL };
	json_t *env, *cmd, *req, *t, *rec;
	char *id, *dir, *target;
	int nsrc;

	kp_init(argv[0], synopsis);
	/* every word goes into the target file; --check and --repo are only read */
	if (kp_args_text(argc, argv, (const char *const[]){ "--check", "--repo", NULL },
	    &err) < 0)
		kp_die_err(&err);
	parse(&o, argc, argv);
	if (o.check) {
		json_t *ct;

		if (o.suggest || o.target_cmd || o.executable || o.kernel || o.output || o.id)
			kp_die(KP_EXIT_USAGE, "--check FILE takes no other option");
		ct = kp_target_load(o.check, &err);
		free_opts(&o);
		if (ct == NULL)
			kp_die_err(&err);
		json_decref(ct);
		kp_exit(KP_EXIT_OK);
	}
	if (o.suggest) {
		if (o.target_cmd || o.executable || o.kernel || o.output || o.id)
			kp_die(KP_EXIT_USAGE, "--suggest-target writes no target: it takes only --repo");
		free_opts(&o);
		return suggest(o.repo ? o.repo : ".");
	}
	if (o.repo)
		kp_die(KP_EXIT_USAGE, "--repo goes with --suggest-target");
	nsrc = (o.target_cmd != NULL) + (o.executable != NULL);
	if (nsrc > 1)
		kp_die(KP_EXIT_USAGE, "--target-cmd and --executable exclude each other");
	if (o.py_script && o.py_module)
		kp_die(KP_EXIT_USAGE, "--python-script and --python-module exclude each other");
	if (nsrc == 0 && !o.py_script && !o.py_module) {
		kp_warn("no target: give --target-cmd, --executable, --python-script or "
		    "--python-module (or --suggest-target to find one)");
		kp_usage(KP_EXIT_USAGE);
	}
	if (o.target_cmd && o.args)
		kp_die(KP_EXIT_USAGE, "--args goes with --executable, not --target-cmd");
	if (o.kernel == NULL && !o.discover)
		kp_die(KP_EXIT_USAGE, "--kernel NAME is required (or --discover to find it later)");
	if (o.kernel && *o.kernel == '\0')
		kp_die(KP_EXIT_USAGE, "--kernel: empty name");
	if (o.args == NULL)
		o.args = json_array();

	/* The command first, --env after: an explicit --env wins over an ENV=1 prefix. */
	env = json_object();
	cmd = command_words(&o, env);
	json_object_update(env, o.env);
	if ((req = kp_request_parse(o.reqs, &err)) == NULL)
		kp_die_err(&err);
	id = make_id(&o);
	t = build(&o, cmd, env, req, id);
	if (kp_target_validate(t, &err) != 0)
		kp_die(KP_EXIT_USAGE, "%s", err.msg);

	if (!kp_is_dir(o.root)) {
		if (kp_mkdirs(o.root, &err) != 0)
			kp_die_err(&err);
		m.root = strdup(o.root);
	}
	ensure_ncu_path(o.root, &m);
	dir = claim_dir(o.root, &id, &m);
	m.dir = dir;
	json_object_set_new(json_object_get(t, "kernel"), "profile_id", json_string(id));
	target = o.output ? strdup(o.output) : kp_artifact_path(dir, KP_ART_TARGET);
	if (target == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	if (kp_target_write_out(t, target, o.output ? KP_OUT_NAMED : KP_OUT_DERIVED, &err) != 0)
		fail_undo(&m, &err);

	rec = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:O}", "kind", "target", "profile_dir", dir,
	    "target", target, "profile_id", id, "kernel", o.kernel,
	    "filter", json_object_get(json_object_get(t, "kernel"), "filter"));
	if (kp_jsonl_write(stdout, rec, &err) != 0)
		kp_die_err(&err);
	fprintf(stderr, "%s: profile folder %s\n", kp_progname(), dir);
	json_decref(rec);
	json_decref(t);
	json_decref(req);
	json_decref(cmd);
	json_decref(env);
	free_opts(&o);
	free(id);
	free(dir);
	free(target);
	free(m.root);
	free(m.ncu_path);
	kp_exit(KP_EXIT_OK);
}
