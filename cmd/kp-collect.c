/*
 * kp-collect: run exactly the ncu passes the evidence calls for, one stage at a
 * time, and write the raw CSV, the run manifest and commands.sh of a profile.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_collect.h"
#include "kp_diag.h"
#include "kp_import.h"
#include "kp_jsonl.h"
#include "kp_metrics.h"
#include "kp_proc.h"
#include "kp_ranks.h"
#include "kp_rules.h"
#include "kp_sha256.h"
#include "kp_shellwords.h"
#include "kp_summary.h"
#include "kp_target.h"
#include "kp_utf8.h"
#include "ncu.h"
#include "profile.h"

static const char synopsis[] =
    "usage: kp-collect [--dry-run] [--stages auto | all | LIST] [--ncu-bin PATH]\n"
    "                  [--timeout S] [--output-dir DIR] [--target-cmd CMD]\n"
    "                  [--kernel-name NAME] [--kernel-regex RE | --kernel-id ID |\n"
    "                  --nvtx-range RANGE] [--launch-skip N] [--launch-count N]\n"
    "                  [--runtime RUNTIME] [--sudo] [--devices LIST]\n"
    "                  [--clock-control base | none] [--extra OPTIONS] [TARGET.yaml]\n"
    "       kp-collect --import REPORT [--ncu-bin PATH] [--timeout S] [--output-dir DIR]\n"
    "                  [--kernel-name NAME] [--kernel-regex RE | --kernel-id ID]\n"
    "                  [--launch-skip N] [--launch-count N] [TARGET.yaml]\n";

enum {
	O_DRY = 256, O_STAGES, O_NCU, O_TIMEOUT, O_OUTDIR, O_CMD, O_KNAME, O_KRE, O_KID, O_NVTX,
	O_SKIP, O_COUNT, O_RUNTIME, O_SUDO, O_DEVICES, O_CLOCK, O_EXTRA, O_IMPORT
};

static const struct option longopts[] = {
	{ "dry-run", no_argument, NULL, O_DRY },
	{ "stages", required_argument, NULL, O_STAGES },
	{ "ncu-bin", required_argument, NULL, O_NCU },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "output-dir", required_argument, NULL, O_OUTDIR },
	{ "target-cmd", required_argument, NULL, O_CMD },
	{ "kernel-name", required_argument, NULL, O_KNAME },
	{ "kernel-regex", required_argument, NULL, O_KRE },
	{ "kernel-id", required_argument, NULL, O_KID },
	{ "nvtx-range", required_argument, NULL, O_NVTX },
	{ "launch-skip", required_argument, NULL, O_SKIP },
	{ "launch-count", required_argument, NULL, O_COUNT },
	{ "runtime", required_argument, NULL, O_RUNTIME },
	{ "sudo", no_argument, NULL, O_SUDO },
	{ "devices", required_argument, NULL, O_DEVICES },
	{ "clock-control", required_argument, NULL, O_CLOCK },
	{ "extra", required_argument, NULL, O_EXTRA },
	{ "import", required_argument, NULL, O_IMPORT },
	KP_OPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

/* Everything one run of kp-collect holds. */
struct run {
	json_t *target;
	char *profile_dir;	/* as the user sees it */
	char *abs_dir;		/* absolute, for ncu's --log-file */
	char *details;		/* abs_dir/details */
	char *workdir;		/* absolute working directory of the target */
	struct kp_ncu ncu;	/* which ncu, through sudo -n or not */
	char ncu_version[128];
	char gpu[128], driver[64];
	json_t *roofline;
	double timeout;
	json_t *manifest;
	json_t *runs;		/* manifest runs */
	json_t *cmds;		/* commands.sh entries */
	json_t *collected;
	json_t *followup;
	json_t *extra;		/* sections added to the follow-up pass */
	const char *priv;
	const char *phase;	/* what runs now: "environment", a stage id, "extract" */
	int dry;
	const char *import;	/* --import: the report as given */
	char *import_abs;	/* its absolute path, for ncu and commands.sh */
	char sha256[65];
	long long skip, count;	/* --import: the launch window asked for, -1 none */
};

static json_t *
section(json_t *t, const char *name)
{
	json_t *s = json_object_get(t, name);

	if (!json_is_object(s)) {
		s = json_object();
		json_object_set_new(t, name, s);
	}
	return s;
}

static void
iso_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- options into the target tree ---- */

struct opts {
	const char *stages, *ncu, *outdir, *cmd, *kname, *kre, *kid, *nvtx, *runtime, *devices;
	const char *clock, *import;
	long long skip, count, timeout;
	int have_skip, have_count, have_timeout, sudo, dry;
	json_t *extra;
};

static void
apply_flags(json_t *t, const struct opts *o)
{
	struct kp_err err;
	json_t *tg = section(t, "target"), *k = section(t, "kernel"), *p = section(t, "profiling");
	json_t *words, *x;

	if (o->cmd != NULL) {
		if ((words = kp_shell_split(o->cmd, &err)) == NULL)
			kp_die(KP_EXIT_USAGE, "--target-cmd: %s", err.msg);
		if (json_array_size(words) == 0)
			kp_die(KP_EXIT_USAGE, "--target-cmd: empty command");
		json_object_set(tg, "executable", json_array_get(words, 0));
		json_array_remove(words, 0);
		json_object_set_new(tg, "args", words);
	}
	if (o->runtime != NULL)
		json_object_set_new(tg, "runtime", json_string(o->runtime));
	if (o->have_timeout)
		json_object_set_new(tg, "timeout_seconds", json_integer(o->timeout));
	/* The name is the kernel's label; it is the filter too only when no
	 * --kernel-regex, --kernel-id or --nvtx-range gives one (kp-collect(1)). */
	if (o->kname != NULL)
		json_object_set_new(k, "name", json_string(o->kname));
	if (o->kname != NULL && o->kre == NULL && o->kid == NULL && o->nvtx == NULL) {
		char *esc = kp_regex_escape(o->kname), *re;
		if (esc == NULL || (re = malloc(strlen(esc) + 5)) == NULL)
			kp_die(KP_EXIT_ENV, "out of memory");
		sprintf(re, ".*%s.*", esc);
		json_object_set_new(k, "filter_mode", json_string("regex"));
		json_object_set_new(k, "filter", json_string(re));
		free(esc);
		free(re);
	}
	if (o->kre != NULL) {
		json_object_set_new(k, "filter_mode", json_string("regex"));
		json_object_set_new(k, "filter", json_string(o->kre));
	}
	if (o->kid != NULL) {
		json_object_set_new(k, "filter_mode", json_string("kernel-id"));
		json_object_set_new(k, "filter", json_string(o->kid));
		json_object_set_new(p, "warmup_skip", json_integer(0));	/* not passed to ncu */
	}
	if (o->nvtx != NULL) {
		json_object_set_new(k, "filter_mode", json_string("nvtx-range"));
		json_object_set_new(k, "filter", json_null());
		json_object_set_new(k, "nvtx_range", json_string(o->nvtx));
	}
	if (o->have_skip)
		json_object_set_new(p, "warmup_skip", json_integer(o->skip));
	if (o->have_count)
		json_object_set_new(p, "launch_count", json_integer(o->count));
	if (o->ncu != NULL)
		json_object_set_new(p, "ncu_bin", json_string(o->ncu));
	if (o->clock != NULL)
		json_object_set_new(p, "clock_control", json_string(o->clock));
	if (o->sudo)
		json_object_set_new(section(t, "privilege"), "mode", json_string("full_sudo"));
	if (o->devices != NULL || json_array_size(o->extra) > 0) {
		x = json_object_get(p, "extra_profiler_options");
		if (!json_is_array(x)) {
			x = json_array();
			json_object_set_new(p, "extra_profiler_options", x);
		}
		if (o->devices != NULL) {
			json_array_append_new(x, json_string("--devices"));
			json_array_append_new(x, json_string(o->devices));
		}
		json_array_extend(x, o->extra);
	}
}

static int
from_flags(const struct opts *o)
{
	return o->cmd != NULL;
}

/* A profile id for a target built from flags: <kernel>_<UTC time>. */
static char *
default_profile_dir(json_t *t)
{
	const char *k = kp_target_str(t, "kernel", "name");
	char id[200], ts[32], *p;
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%d_%H%M%S", &tm);
	snprintf(id, sizeof(id), "profile/%.120s_%s", k != NULL && *k != '\0' ? k : "kernel", ts);
	for (p = id + 8; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
			*p = '_';
	return kp_xstrdup(id);
}

/* ---- the profiler ---- */

static void
write_record(struct run *r, const char *status);
static void
finish(struct run *r, const char *status, int code);

static void
sudo_guide(void)
{
	fprintf(stderr, "%s: %s", kp_progname(), kp_ncu_sudo_guide());
}

static void
resolve_ncu(struct run *r)
{
	struct kp_err err;
	int rc = kp_ncu_resolve(&r->ncu, r->target, r->profile_dir, &err);

	r->priv = r->ncu.sudo ? "full_sudo" : "none";
	if (rc < 0) {
		kp_warn("%s", err.msg);
		if (r->ncu.want_guide)
			sudo_guide();
		finish(r, "profiler-missing", KP_EXIT_ENV);
	}
}

/* The head of details/00_environment.txt, the same for a live run and for
 * --import: the date, the ncu that runs, and what `ncu --version` printed
 * (v; NULL when it failed). */
static void
environment_header(FILE *fp, const struct run *r, const char *v)
{
	char when[32];

	iso_now(when, sizeof(when));
	fprintf(fp, "date: %s\n", when);
	fprintf(fp, "ncu: %s\n", r->ncu.bin);
	fprintf(fp, "## ncu --version\n%s", v != NULL ? v : "(ncu --version failed)\n");
}

static void
environment(struct run *r)
{
	const char *smi[] = { "nvidia-smi", "--query-gpu=name,driver_version",
		"--format=csv,noheader", NULL };
	char *v, *s, *path, *smi_bin;
	struct utsname u;
	struct kp_atomic a;
	struct kp_err err;
	json_t *w;
	size_t i;

	v = kp_ncu_query(&r->ncu, "--version", r->details);
	kp_ncu_version_of(v, r->ncu_version, sizeof(r->ncu_version));
	smi_bin = kp_find_program("nvidia-smi");
	s = smi_bin != NULL ? kp_proc_capture(smi, r->details, 30) : NULL;
	if (s != NULL) {
		char *comma = strchr(s, ',');
		if (comma != NULL) {
			snprintf(r->gpu, sizeof(r->gpu), "%.*s", (int)(comma - s), s);
			snprintf(r->driver, sizeof(r->driver), "%.*s",
			    (int)strcspn(comma + 1 + strspn(comma + 1, " "), "\n"),
			    comma + 1 + strspn(comma + 1, " "));
		}
	}
	path = kp_artifact_path(r->abs_dir, KP_ART_ENVIRONMENT);
	if (kp_atomic_open(&a, path, &err) < 0)
		kp_die_err(&err);
	environment_header(a.fp, r, v);
	if (smi_bin == NULL)
		fputs("## nvidia-smi\nnvidia-smi: not found in PATH\n", a.fp);
	else
		fprintf(a.fp, "## nvidia-smi --query-gpu=name,driver_version\n%s",
		    s != NULL ? s : "(nvidia-smi failed)\n");
	if (uname(&u) == 0)
		fprintf(a.fp, "## uname\n%s %s %s %s %s\n", u.sysname, u.nodename, u.release,
		    u.version, u.machine);
	fputs("## target\n", a.fp);
	if (r->workdir != NULL)
		fprintf(a.fp, "working_directory: %s\n", r->workdir);
	fprintf(a.fp, "command:");
	{
		char *q = kp_shell_quote(kp_target_str(r->target, "target", "executable"));
		fprintf(a.fp, " %s", q);
		free(q);
		json_array_foreach(json_object_get(json_object_get(r->target, "target"), "args"),
		    i, w) {
			if (!json_is_string(w))
				continue;
			q = kp_shell_quote(json_string_value(w));
			fprintf(a.fp, " %s", q);
			free(q);
		}
	}
	fprintf(a.fp, "\nprivilege_mode: %s\n", r->priv);
	if (kp_atomic_commit(&a, &err) < 0)
		kp_die_err(&err);
	free(path);
	free(v);
	free(s);
	free(smi_bin);
}

static void
roofline_sections(struct run *r)
{
	char *text;

	if (r->roofline != NULL)
		return;
	text = r->dry ? NULL : kp_ncu_query(&r->ncu, "--list-sections", r->details);
	r->roofline = kp_roofline_sections(text);
	free(text);
}

/* ---- the record of the run ---- */

static json_t *
target_argv(json_t *t)
{
	json_t *a = json_array(), *w;
	size_t i;

	json_array_append_new(a, json_string(kp_target_str(t, "target", "executable") != NULL ?
	    kp_target_str(t, "target", "executable") : ""));
	json_array_foreach(json_object_get(json_object_get(t, "target"), "args"), i, w)
		json_array_append(a, w);
	return a;
}

static json_t *
jstr_or_null(const char *s)
{
	return s != NULL && *s != '\0' ? json_string(s) : json_null();
}

static double
tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/*
 * kp's own CPU time next to its children's (ncu and the target), so that the
 * manifest shows what kp itself costs in a profiling run.
 */
static json_t *
cpu_usage(void)
{
	struct rusage self, kids;
	double s, k;

	if (getrusage(RUSAGE_SELF, &self) != 0 || getrusage(RUSAGE_CHILDREN, &kids) != 0)
		return json_null();
	s = tv_s(self.ru_utime) + tv_s(self.ru_stime);
	k = tv_s(kids.ru_utime) + tv_s(kids.ru_stime);
	return json_pack("{s:f, s:f, s:f}", "kp_cpu_s", s, "children_cpu_s", k,
	    "kp_cpu_share_pct", s + k > 0 ? 100.0 * s / (s + k) : 0.0);
}

static void
write_record(struct run *r, const char *status)
{
	json_t *m = r->manifest, *t = r->target;
	char when[32], *path;
	struct kp_err err;

	iso_now(when, sizeof(when));
	json_object_set_new(m, "status", json_string(status));
	json_object_set_new(m, "finished_at", json_string(when));
	json_object_set_new(m, "ncu", json_pack("{s:o, s:o}", "path", jstr_or_null(r->ncu.bin),
	    "version", jstr_or_null(r->ncu_version)));
	json_object_set_new(m, "gpu", json_pack("{s:o, s:o}", "name", jstr_or_null(r->gpu),
	    "driver", jstr_or_null(r->driver)));
	json_object_set_new(m, "privilege_mode", json_string(r->priv != NULL ? r->priv : "none"));
	json_object_set(m, "stages_collected", r->collected);
	json_object_set(m, "followup", r->followup != NULL ? r->followup : json_null());
	json_object_set(m, "runs", r->runs);
	json_object_set_new(m, "resources", cpu_usage());
	(void)t;
	path = kp_artifact_path(r->profile_dir, KP_ART_MANIFEST);
	if (kp_manifest_write(m, path, &err) < 0)
		kp_die_err(&err);
	free(path);
	path = kp_artifact_path(r->profile_dir, KP_ART_COMMANDS);
	if (kp_commands_write(r->cmds, path, &err) < 0)
		kp_die_err(&err);
	free(path);
}

/* Write the manifest and commands.sh, the JSONL record, and exit. */
static void
finish(struct run *r, const char *status, int code)
{
	struct kp_err err;
	json_t *rec, *st = json_array(), *v;
	size_t i;

	if (r->dry)
		exit(code);
	write_record(r, status);
	json_array_foreach(r->collected, i, v)
		json_array_append(st, v);
	rec = json_pack("{s:s, s:s, s:s, s:o, s:O}", "kind", "collect", "profile_dir",
	    r->profile_dir, "status", status, "stages", st, "followup",
	    r->followup != NULL ? json_object_get(r->followup, "stage") : json_null());
	{
		char *mp = kp_artifact_path(r->profile_dir, KP_ART_MANIFEST);
		json_object_set_new(rec, "manifest", json_string(mp));
		free(mp);
	}
	if (kp_jsonl_write(stdout, rec, &err) < 0)
		kp_die_err(&err);
	json_decref(rec);
	fprintf(stderr, "kp-collect: %s\n", r->profile_dir);
	kp_exit(code);
}

static void
explain(struct run *r, enum kp_stage s, const struct kp_ncu_verdict *v)
{
	const char *f = kp_target_str(r->target, "kernel", "filter");
	const char *nv = kp_target_str(r->target, "kernel", "nvtx_range");
	json_t *k;
	size_t i;
	json_t *one = json_pack("[{s:s, s:o}]", "stage", "target", "argv", target_argv(r->target));
	char *cmd = kp_commands_text(one, NULL);

	json_decref(one);

	switch (v->outcome) {
	case KP_OUT_NOMATCH:
		kp_warn("%s: no kernel matched the filter %s %s (%s)", kp_stage_id(s),
		    kp_target_str(r->target, "kernel", "filter_mode") != NULL ?
		    kp_target_str(r->target, "kernel", "filter_mode") : "regex",
		    f != NULL ? f : nv != NULL ? nv : "(none)", v->reason);
		if (cmd != NULL && strrchr(cmd, '\n') != NULL) {
			char *last = cmd + strlen(cmd) - 1;
			*last = '\0';
			kp_warn("target: %s", strrchr(cmd, '\n') + 1);
		}
		if (json_array_size(v->kernels) > 0) {
			fprintf(stderr, "%s: kernels ncu saw:", kp_progname());
			json_array_foreach(v->kernels, i, k)
				fprintf(stderr, "%s %s", i > 0 ? "," : "", json_string_value(k));
			fputc('\n', stderr);
		}
		kp_warn("to list the kernels with their GPU time: kp-discover %s",
		    r->profile_dir);
		break;
	case KP_OUT_NOPERM:
		kp_warn("%s: %s", kp_stage_id(s), v->reason);
		sudo_guide();
		break;
	case KP_OUT_MISSING:
		kp_warn("%s: %s: %s", kp_stage_id(s), json_string_value(json_array_get(r->ncu.prefix,
		    0)), v->reason);
		break;
	case KP_OUT_INTR:
		kp_warn("%s: interrupted; earlier stage files are kept", kp_stage_id(s));
		break;
	default:
		kp_warn("%s: the target or ncu failed: %s", kp_stage_id(s), v->reason);
		if (v->tail[0] != '\0')
			kp_warn("target's last output: %s", v->tail);
		break;
	}
	free(cmd);
}

/*
 * The source page of a kernel without lineinfo (cuBLAS, cuDNN, NCCL ... kernels):
 * ncu prints "No lineinfo" and no table for the cuda view, so the SASS view of the
 * same launch window is collected into the stage file, one pass more.  The
 * manifest's source_mapping says which view the page holds and why.
 */
static void
source_fallback(struct run *r, const char *final, const struct kp_ncu_verdict *v)
{
	struct kp_ncu_pass pass;
	struct kp_ncu_run run;
	struct kp_err err;
	char why[512];
	json_t *sm;

	if (!v->no_lineinfo) {
		json_object_set_new(r->manifest, "source_mapping", json_pack("{s:s, s:s}",
		    "mapping", "cuda+sass", "reason", "the page maps SASS to CUDA source lines"));
		return;
	}
	kp_ncu_lineinfo_why(final, why, sizeof(why));
	kp_warn("source: no CUDA source lines (%s): collecting the SASS view, one pass more",
	    why);
	memset(&pass, 0, sizeof(pass));
	pass.stage = KP_STAGE_SOURCE;
	pass.view = "sass";
	if (r->import != NULL) {	/* the same page of the report */
		pass.import = r->import_abs;
		pass.page = "source";
		pass.skip = r->skip;
		pass.count = r->count;
	}
	if (kp_ncu_run(&r->ncu, r->target, &pass, final, r->workdir, r->timeout, &run, &err) < 0)
		kp_die_err(&err);
	json_array_append_new(r->cmds, json_pack("{s:s, s:O, s:s, s:O}", "stage",
	    "source (sass view: no lineinfo)", "argv", run.argv, "cwd", r->workdir, "env",
	    json_object_get(json_object_get(r->target, "target"), "env") ?
	    json_object_get(json_object_get(r->target, "target"), "env") : json_null()));
	json_array_append_new(r->runs, json_pack("{s:s, s:s, s:O, s:o, s:f, s:s, s:s}", "stage",
	    "source", "view", "sass", "argv", run.argv, "exit_status", run.res.exited ?
	    json_integer(run.res.exit_status) : json_null(), "duration_s",
	    (double)(long long)(run.res.duration_s * 100 + 0.5) / 100, "output",
	    kp_stage_rel(KP_STAGE_SOURCE), "status", run.v.outcome == KP_OUT_OK ? "ok" :
	    kp_outcome_status(run.v.outcome)));
	sm = json_pack("{s:s, s:s, s:{s:s, s:f, s:s}}", "mapping", run.v.outcome == KP_OUT_OK ?
	    "sass-only" : "none", "reason", why, "extra_pass", "view", "sass", "duration_s",
	    (double)(long long)(run.res.duration_s * 100 + 0.5) / 100, "status",
	    run.v.outcome == KP_OUT_OK ? "ok" : kp_outcome_status(run.v.outcome));
	json_object_set_new(r->manifest, "source_mapping", sm);
	if (run.v.outcome == KP_OUT_OK)
		fprintf(stderr, "kp-collect: source (sass view) %.1fs\n", run.res.duration_s);
	else
		kp_warn("source: the SASS view failed too (%s): no source hotspots", run.v.reason);
	kp_ncu_run_free(&run);
}

/* A job's pass in the manifest: each rank's stage file, and the rank a failure is about. */
static void
rank_outputs(struct run *r, json_t *run, enum kp_stage s, long failed)
{
	json_t *outs = json_array(), *v;
	size_t i;

	json_array_foreach(r->ncu.ranks, i, v) {
		char *d = kp_rank_dir(KP_DETAILS, (long)json_integer_value(v));
		char *f = kp_path_join(d, kp_stage_file(s));
		json_array_append_new(outs, json_string(f));
		free(d);
		free(f);
	}
	json_object_set_new(run, "rank_outputs", outs);
	if (failed >= 0)
		json_object_set_new(run, "failed_rank", json_integer(failed));
}

/* One ncu pass.  Returns the outcome; on success the stage file is in place. */
static enum kp_outcome
run_stage(struct run *r, enum kp_stage s)
{
	char *final = kp_path_join(r->details, kp_stage_file(s)), rel[96];
	json_t *shown, *env = json_object_get(json_object_get(r->target, "target"), "env");
	struct kp_ncu_pass pass;
	struct kp_ncu_run run;
	struct kp_err err;
	enum kp_outcome o;

	if (s == KP_STAGE_ROOFLINE)
		roofline_sections(r);
	memset(&pass, 0, sizeof(pass));
	pass.stage = s;
	pass.roofline = r->roofline;
	if (r->followup != NULL && strcmp(kp_stage_id(s),
	    json_string_value(json_object_get(r->followup, "stage"))) == 0)
		pass.extra = r->extra;
	if ((shown = kp_ncu_argv(&r->ncu, r->target, &pass, final, &err)) == NULL)
		kp_die_err(&err);
	json_array_append_new(r->cmds, json_pack("{s:s, s:o, s:s, s:O}", "stage", kp_stage_id(s),
	    "argv", shown, "cwd", r->workdir, "env", env != NULL ? env : json_null()));
	if (r->dry) {
		free(final);
		return KP_OUT_OK;
	}
	if (kp_ncu_run(&r->ncu, r->target, &pass, final, r->workdir, r->timeout, &run, &err) < 0)
		kp_die_err(&err);
	if (run.rename_errno != 0) {
		errno = run.rename_errno;
		kp_warn("%s:", final);
	}
	o = run.v.outcome;
	snprintf(rel, sizeof(rel), "details/%s", kp_stage_file(s));
	json_array_append_new(r->runs, json_pack("{s:s, s:O, s:o, s:f, s:s, s:s}", "stage",
	    kp_stage_id(s), "argv", run.argv,
	    "exit_status", run.res.exited ? json_integer(run.res.exit_status) : json_null(),
	    "duration_s", (double)(long long)(run.res.duration_s * 100 + 0.5) / 100,
	    "output", rel, "status", o == KP_OUT_OK ? "ok" : kp_outcome_status(o)));
	if (r->ncu.launcher != NULL)
		rank_outputs(r, json_array_get(r->runs, json_array_size(r->runs) - 1), s, run.rank);
	if (o == KP_OUT_OK) {
		json_array_append_new(r->collected, json_string(kp_stage_id(s)));
		fprintf(stderr, "kp-collect: %s %.1fs\n", kp_stage_id(s), run.res.duration_s);
		if (s == KP_STAGE_SOURCE)
			source_fallback(r, final, &run.v);
	} else {
		explain(r, s, &run.v);
	}
	kp_ncu_run_free(&run);
	free(final);
	return o;
}

/* ---- a job a launcher starts ---- */

/*
 * The manifest's job: the launcher as run, the ranks profiled (the first is
 * the primary: its stage files are also the profile's own), where each rank's
 * files are, the order the rank is read in, and that kp changes no timeout of
 * the job.
 */
static void
job_record(struct run *r)
{
	json_t *vars, *dirs, *v;
	const char *const *w;
	size_t i;

	if (r->ncu.launcher == NULL)
		return;
	vars = json_array();
	dirs = json_array();
	for (w = kp_rank_vars; *w != NULL; w++)
		json_array_append_new(vars, json_string(*w));
	json_array_foreach(r->ncu.ranks, i, v) {
		char *d = kp_rank_dir(KP_DETAILS, (long)json_integer_value(v));
		json_array_append_new(dirs, json_string(d));
		free(d);
	}
	json_object_set_new(r->manifest, "job", json_pack("{s:O, s:s, s:O, s:O, s:o, s:o, s:s}",
	    "launcher", r->ncu.launcher, "rank_exec", r->ncu.rank_exec, "ranks_profiled",
	    r->ncu.ranks, "primary_rank", json_array_get(r->ncu.ranks, 0), "rank_outputs", dirs,
	    "rank_variables", vars, "job_timeouts",
	    "unchanged: kp sets no timeout and no variable of the job; the other ranks wait "
	    "in their collectives while a profiled rank replays each kernel"));
	fprintf(stderr, "kp-collect: a job of %s: profiling rank%s ",
	    json_string_value(json_array_get(r->ncu.launcher, 0)),
	    json_array_size(r->ncu.ranks) > 1 ? "s" : "");
	json_array_foreach(r->ncu.ranks, i, v)
		fprintf(stderr, "%s%lld", i > 0 ? "," : "", (long long)json_integer_value(v));
	fprintf(stderr, " (rank %lld is the primary)\n",
	    (long long)json_integer_value(json_array_get(r->ncu.ranks, 0)));
}

/* Each profiled rank's merged table and summary in its own folder, from the
 * raw stage files there: kp-compare compares the ranks' kernels from them. */
static void
extract_ranks(struct run *r)
{
	json_t *v;
	size_t i;

	json_array_foreach(r->ncu.ranks, i, v) {
		char *dir = kp_rank_dir(r->details, (long)json_integer_value(v)), *out;
		char *owned[KP_NSTAGES];
		const char *paths[KP_NSTAGES], *names[KP_NSTAGES];
		struct kp_err err;
		size_t n = 0, k;
		int s;

		for (s = 0; s < KP_NSTAGES; s++) {
			if (s == KP_STAGE_SOURCE)
				continue;
			owned[n] = kp_path_join(dir, kp_stage_file((enum kp_stage)s));
			if (!kp_is_file(owned[n])) {
				free(owned[n]);
				continue;
			}
			paths[n] = owned[n];
			names[n] = kp_stage_id((enum kp_stage)s);
			n++;
		}
		out = kp_path_join(dir, kp_artifact_name(KP_ART_METRICS_RAW));
		if (kp_merge_raw(paths, names, n, out, &err) < 0)
			kp_die_err(&err);
		free(out);
		if (n > 0 && kp_extract_to_dir(paths, n, dir, r->profile_dir, 0,
		    NULL, NULL, &err) < 0)
			kp_die_err(&err);
		for (k = 0; k < n; k++)
			free(owned[k]);
		free(dir);
	}
}

/* ---- auto: the follow-up from basic's numbers ---- */

static enum kp_stage
choose_followup(struct run *r)
{
	char *basic = kp_path_join(r->details, kp_stage_file(KP_STAGE_BASIC)), why[512];
	const char *paths[1] = { basic };
	const char *keys[] = { "sm_throughput_pct", "memory_throughput_pct",
		"dram_throughput_pct", "l1tex_throughput_pct", "l2_throughput_pct",
		"achieved_occupancy_pct", "theoretical_occupancy_pct", "ipc" };
	struct kp_err err;
	struct kp_rules *rules;
	json_t *sum, *kernel, *nums = json_object(), *need = NULL;
	const char *const *w;
	const char *stage;
	enum kp_stage s = KP_STAGE_SOL;
	size_t i;
	double v;

	if ((sum = kp_extract_files(paths, 1, 0, NULL, &err)) == NULL)
		kp_die_err(&err);
	if ((kernel = kp_summary_primary(sum)) == NULL)
		kp_die(KP_EXIT_DATA, "%s: no kernel launch in basic's output", basic);
	if ((rules = kp_rules_load_default(&err)) == NULL)
		kp_die_err(&err);
	why[0] = '\0';
	stage = kp_rules_followup(rules, kernel, why, sizeof(why));
	if (stage == NULL || kp_stage_parse(stage, &s) < 0)
		s = KP_STAGE_SOL;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (kp_summary_value(kernel, keys[i], &v) == 0)
			json_object_set_new(nums, keys[i], json_real(v));
	r->followup = json_pack("{s:s, s:s, s:o}", "stage", kp_stage_id(s), "reason", why,
	    "metrics", nums);
	/* The sections that measure what the rules needed and basic lacked ride
	 * along in the same pass: one follow-up, whatever the rules need. */
	json_decref(r->extra);
	if ((r->extra = kp_rules_evidence_sections(rules, kernel, &need, &err)) == NULL)
		kp_die_err(&err);
	for (i = 0; i < json_array_size(r->extra); i++)	/* no section twice */
		for (w = kp_stage_selection(s); *w != NULL; w++)
			if (strcmp(*w, json_string_value(json_array_get(r->extra, i))) == 0) {
				json_array_remove(r->extra, i--);
				break;
			}
	json_object_set(r->followup, "evidence_sections", r->extra);
	json_object_set_new(r->followup, "evidence_for", need);
	fprintf(stderr, "kp-collect: follow-up %s (%s)", kp_stage_id(s), why);
	if (json_array_size(r->extra) > 0)
		fprintf(stderr, " + %zu sections for %zu metrics the rules need",
		    json_array_size(r->extra), json_array_size(need));
	fputc('\n', stderr);
	kp_rules_free(rules);
	json_decref(sum);
	free(basic);
	return s;
}

/* Stages the target asks for besides the requested ones. */
static unsigned
asked_stages(json_t *t)
{
	static const struct { const char *key; enum kp_stage s; } map[] = {
		{ "collect_memory", KP_STAGE_MEMORY }, { "collect_compute", KP_STAGE_COMPUTE },
		{ "collect_occupancy", KP_STAGE_OCCUPANCY },
		{ "collect_roofline", KP_STAGE_ROOFLINE }, { "collect_source", KP_STAGE_SOURCE },
	};
	json_t *an = json_object_get(t, "analysis");
	unsigned m = 0;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (json_is_true(json_object_get(an, map[i].key)))
			m |= 1u << map[i].s;
	if (json_is_true(json_object_get(json_object_get(t, "profiling"),
	    "enable_source_mapping")))
		m |= 1u << KP_STAGE_SOURCE;
	return m;
}

static int
collected_now(struct run *r, enum kp_stage s)
{
	json_t *v;
	size_t i;

	json_array_foreach(r->collected, i, v)
		if (strcmp(json_string_value(v), kp_stage_id(s)) == 0)
			return 1;
	return 0;
}

/*
 * details/metrics_raw.csv and the summary from every raw stage file of the
 * folder: this run's, and those an earlier run into the same folder left
 * (the skill collects stage by stage into one folder).  The manifest says
 * which came from where.  With no raw stage at all (--stages source into a
 * new folder) the merged table is written empty, so that it always exists.
 */
static void
extract_all(struct run *r)
{
	const char *paths[KP_NSTAGES], *names[KP_NSTAGES];
	char *owned[KP_NSTAGES];
	size_t n = 0, i;
	struct kp_err err;
	json_t *now = json_array(), *earlier = json_array();
	int s;
	char *out;

	for (s = 0; s < KP_NSTAGES; s++) {
		if (s == KP_STAGE_SOURCE)
			continue;
		owned[n] = kp_path_join(r->details, kp_stage_file((enum kp_stage)s));
		if (!collected_now(r, (enum kp_stage)s) && !kp_is_file(owned[n])) {
			free(owned[n]);
			continue;
		}
		json_array_append_new(collected_now(r, (enum kp_stage)s) ? now : earlier,
		    json_string(kp_stage_id((enum kp_stage)s)));
		paths[n] = owned[n];
		names[n] = kp_stage_id((enum kp_stage)s);
		n++;
	}
	json_object_set_new(r->manifest, "metrics_raw", json_pack("{s:o, s:o}",
	    "stages_this_run", now, "stages_from_earlier_runs", earlier));
	out = kp_artifact_path(r->abs_dir, KP_ART_METRICS_RAW);
	if (kp_merge_raw(paths, names, n, out, &err) < 0)
		kp_die_err(&err);
	free(out);
	if (n == 0)
		return;
	if (kp_extract_to_dir(paths, n, r->details, r->profile_dir, 0, NULL, NULL, &err) < 0)
		kp_die_err(&err);
	for (i = 0; i < n; i++)
		free(owned[i]);
}

/*
 * SIGINT, SIGTERM or SIGHUP caught (kp_proc_catch_signals; the pass's ncu is
 * already stopped and its temporaries removed): the manifest says interrupted,
 * by which signal, in which stage, and kp-collect exits 128+n.
 */
static void
stop_if_interrupted(struct run *r)
{
	int sig = kp_proc_signal();
	const char *name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
	    sig == SIGHUP ? "SIGHUP" : "signal";

	if (sig == 0)
		return;
	json_object_set_new(r->manifest, "interrupted", json_pack("{s:s, s:i, s:s}", "signal",
	    name, "signal_number", sig, "stage", r->phase != NULL ? r->phase : "start"));
	finish(r, "interrupted", 128 + sig);
}

static void
run_all(struct run *r, unsigned mask, int autop)
{
	enum kp_outcome o;
	int s;
	unsigned done = 0;

	if (autop) {
		stop_if_interrupted(r);
		r->phase = kp_stage_id(KP_STAGE_BASIC);
		if ((o = run_stage(r, KP_STAGE_BASIC)) != KP_OUT_OK) {
			stop_if_interrupted(r);
			finish(r, kp_outcome_status(o), kp_outcome_exit(o));
		}
		done |= 1u << KP_STAGE_BASIC;
		if (!r->dry)
			mask |= 1u << choose_followup(r);
	}
	for (s = 0; s < KP_NSTAGES; s++) {
		if (!(mask & (1u << s)) || (done & (1u << s)))
			continue;
		stop_if_interrupted(r);
		r->phase = kp_stage_id((enum kp_stage)s);
		if ((o = run_stage(r, (enum kp_stage)s)) != KP_OUT_OK) {
			stop_if_interrupted(r);
			finish(r, kp_outcome_status(o), kp_outcome_exit(o));
		}
		done |= 1u << s;
	}
}

/* ---- input ---- */

static json_t *
load_target(int argc, char **argv, const struct opts *o, char **dirp)
{
	struct kp_err err;
	json_t *t;
	char *path = NULL, *pd;

	if (argc == 1) {
		path = kp_xstrdup(argv[0]);
	} else if (!from_flags(o) && !isatty(0)) {
		if ((pd = kp_jsonl_first_profile_dir(stdin, "<stdin>", &err)) == NULL)
			kp_die_err(&err);
		path = kp_artifact_path(pd, KP_ART_TARGET);
		free(pd);
	}
	if (path == NULL) {
		if (!from_flags(o))
			kp_usage(KP_EXIT_USAGE);
		t = json_object();
		apply_flags(t, o);
		*dirp = o->outdir != NULL ? kp_xstrdup(o->outdir) : default_profile_dir(t);
		return t;
	}
	if ((t = kp_target_load(path, &err)) == NULL)
		kp_die_err(&err);
	apply_flags(t, o);
	*dirp = o->outdir != NULL ? kp_xstrdup(o->outdir) : kp_path_dir(path);
	if (*dirp == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	free(path);
	return t;
}

static void
prepare(struct run *r, const char *stages_spec)
{
	struct kp_err err;
	char real[PATH_MAX], when[32];
	const char *wd = kp_target_str(r->target, "target", "working_directory");
	json_t *to = json_object_get(json_object_get(r->target, "target"), "timeout_seconds");
	json_t *req = json_array(), *k;
	char *p, *tok, *save = NULL;

	if (kp_target_validate(r->target, &err) < 0)
		kp_die_err(&err);
	if (json_is_number(to))
		r->timeout = json_number_value(to);
	r->runs = json_array();
	r->cmds = json_array();
	r->collected = json_array();
	r->manifest = json_object();
	iso_now(when, sizeof(when));
	p = kp_xstrdup(stages_spec);
	for (tok = strtok_r(p, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save))
		json_array_append_new(req, json_string(tok));
	free(p);
	{
		const char *id = strrchr(r->profile_dir, '/');
		json_object_set_new(r->manifest, "schema", json_string("kp-run-manifest/1"));
		json_object_set_new(r->manifest, "profile_id",
		    json_string(id != NULL && id[1] != '\0' ? id + 1 : r->profile_dir));
	}
	json_object_set_new(r->manifest, "status", json_string("running"));
	json_object_set_new(r->manifest, "started_at", json_string(when));
	json_object_set_new(r->manifest, "finished_at", json_null());
	k = json_object_get(r->target, "kernel");
	if (!r->dry) {
		if (kp_mkdirs(r->profile_dir, &err) < 0)
			kp_die_err(&err);
		if (realpath(r->profile_dir, real) == NULL)
			kp_die(KP_EXIT_ENV, "%s: %s", r->profile_dir, strerror(errno));
		r->abs_dir = kp_xstrdup(real);
	} else {
		r->abs_dir = kp_xstrdup(r->profile_dir);
	}
	r->details = kp_path_join(r->abs_dir, KP_DETAILS);
	if (!r->dry && kp_mkdirs(r->details, &err) < 0)
		kp_die_err(&err);
	if (wd == NULL || *wd == '\0')
		wd = ".";
	if (!kp_is_dir(wd)) {
		r->workdir = kp_xstrdup(wd);
		json_object_set_new(r->manifest, "target", json_pack("{s:o, s:s, s:o}", "command",
		    target_argv(r->target), "working_directory", wd, "runtime",
		    jstr_or_null(kp_target_str(r->target, "target", "runtime"))));
		kp_warn("target.working_directory: %s: not a directory", wd);
		finish(r, "target-failed", KP_EXIT_TARGET);
	}
	r->workdir = kp_xstrdup(realpath(wd, real) != NULL ? real : wd);
	json_object_set_new(r->manifest, "target", json_pack("{s:o, s:s, s:o}", "command",
	    target_argv(r->target), "working_directory", r->workdir, "runtime",
	    jstr_or_null(kp_target_str(r->target, "target", "runtime"))));
	json_object_set_new(r->manifest, "kernel", json_pack("{s:o, s:o, s:o, s:o}",
	    "name", jstr_or_null(json_string_value(json_object_get(k, "name"))),
	    "filter_mode", jstr_or_null(json_string_value(json_object_get(k, "filter_mode"))),
	    "filter", jstr_or_null(json_string_value(json_object_get(k, "filter"))),
	    "nvtx_range", jstr_or_null(json_string_value(json_object_get(k, "nvtx_range")))));
	{
		json_t *pr = json_object_get(r->target, "profiling");
		json_t *sk = json_object_get(pr, "warmup_skip"), *cn = json_object_get(pr,
		    "launch_count");
		json_object_set_new(r->manifest, "launch", json_pack("{s:I, s:I}", "skip",
		    json_is_integer(sk) ? json_integer_value(sk) : 0, "count",
		    json_is_integer(cn) ? json_integer_value(cn) : 1));
	}
	json_object_set_new(r->manifest, "clock_control",
	    json_string(kp_target_str(r->target, "profiling", "clock_control") != NULL ?
	    kp_target_str(r->target, "profiling", "clock_control") : "base"));
	json_object_set_new(r->manifest, "stages_requested", req);
	json_object_set_new(r->manifest, "timeout_seconds", json_real(r->timeout));
}


/* ---- --import: an existing report, read back by ncu, no target run ---- */

/* The profile folder of an import without a target: the label, else the
 * report's name without .ncu-rep, then the UTC time. */
static char *
import_profile_dir(json_t *t, const char *report)
{
	const char *k = kp_target_str(t, "kernel", "name"), *b = strrchr(report, '/');
	char name[128];
	size_t n;

	b = b != NULL ? b + 1 : report;
	n = strlen(b);
	if (n > 8 && strcmp(b + n - 8, ".ncu-rep") == 0)
		n -= 8;
	snprintf(name, sizeof(name), "%.*s", (int)(n < 120 ? n : 120), b);
	if (k == NULL || *k == '\0') {
		json_t *tmp = json_pack("{s:{s:s}}", "kernel", "name", name);
		char *d = default_profile_dir(tmp);
		json_decref(tmp);
		return d;
	}
	return default_profile_dir(t);
}

static void
import_environment(struct run *r)
{
	struct kp_atomic a;
	struct kp_err err;
	struct utsname u;
	char *v, *path;

	v = kp_ncu_query(&r->ncu, "--version", r->details);
	kp_ncu_version_of(v, r->ncu_version, sizeof(r->ncu_version));
	path = kp_artifact_path(r->abs_dir, KP_ART_ENVIRONMENT);
	if (kp_atomic_open(&a, path, &err) < 0)
		kp_die_err(&err);
	environment_header(a.fp, r, v);
	if (uname(&u) == 0)
		fprintf(a.fp, "## uname\n%s %s %s %s %s\n", u.sysname, u.nodename, u.release,
		    u.version, u.machine);
	fprintf(a.fp, "## import\nreport: %s\nsha256: %s\n", r->import_abs, r->sha256);
	fputs("no target was run and no GPU used: the GPU is the report's (import_session.csv)\n",
	    a.fp);
	if (kp_atomic_commit(&a, &err) < 0)
		kp_die_err(&err);
	free(path);
	free(v);
}

/* ncu ran to its end and failed: it could not read the file as a report. */
static int
unreadable(const struct kp_ncu_run *run)
{
	return run->v.outcome == KP_OUT_TARGET && !run->res.timed_out && run->res.signal == 0;
}

static const char *
import_status(const struct kp_ncu_run *run)
{
	return unreadable(run) ? "bad-report" : kp_outcome_status(run->v.outcome);
}

/* The filter and launch window of an import, in words, into buf. */
static void
import_filter_words(struct run *r, char *buf, size_t n)
{
	const char *f = kp_target_str(r->target, "kernel", "filter");
	const char *k = kp_target_str(r->target, "kernel", "name");
	const char *m = kp_target_str(r->target, "kernel", "filter_mode");
	int len;

	if (f == NULL || *f == '\0')
		f = k;
	len = snprintf(buf, n, "the filter %s %s", m != NULL ? m : "regex",
	    f != NULL && *f != '\0' ? f : "(none)");
	if (len >= 0 && (size_t)len < n && r->skip >= 0)
		len += snprintf(buf + len, n - (size_t)len, ", launch skip %lld", r->skip);
	if (len >= 0 && (size_t)len < n && r->count >= 0)
		snprintf(buf + len, n - (size_t)len, ", launch count %lld", r->count);
}

/* One page of the report into final; rel is its name in the folder. */
static enum kp_outcome
import_pass(struct run *r, const char *label, const char *page, const char *final,
    const char *rel, struct kp_ncu_run *run)
{
	struct kp_ncu_pass pass;
	struct kp_err err;
	enum kp_outcome o;

	memset(&pass, 0, sizeof(pass));
	pass.stage = page != NULL && strcmp(page, "source") == 0 ? KP_STAGE_SOURCE : KP_STAGE_FULL;
	pass.import = r->import_abs;
	pass.page = page;
	pass.skip = r->skip;
	pass.count = r->count;
	r->phase = label;
	if (kp_ncu_run(&r->ncu, r->target, &pass, final, r->workdir, r->timeout, run, &err) < 0)
		kp_die_err(&err);
	o = run->v.outcome;
	json_array_append_new(r->cmds, json_pack("{s:s, s:O, s:s, s:o}", "stage", label,
	    "argv", run->argv, "cwd", r->workdir, "env", json_null()));
	json_array_append_new(r->runs, json_pack("{s:s, s:O, s:o, s:f, s:s, s:s}", "stage",
	    label, "argv", run->argv,
	    "exit_status", run->res.exited ? json_integer(run->res.exit_status) : json_null(),
	    "duration_s", (double)(long long)(run->res.duration_s * 100 + 0.5) / 100,
	    "output", rel, "status", o == KP_OUT_OK ? "ok" : import_status(run)));
	if (o == KP_OUT_OK && page != NULL)
		fprintf(stderr, "kp-collect: %s %.1fs\n", label, run->res.duration_s);
	return o;
}

/* A pass that failed: say why in the live run's words, then finish. */
static void
import_failed(struct run *r, const char *label, struct kp_ncu_run *run)
{
	struct kp_ncu_run sum;
	struct kp_err err;
	json_t *names, *v;
	char *path, words[512];
	size_t i;

	stop_if_interrupted(r);
	if (unreadable(run)) {
		/* bad input, not a failed target */
		kp_warn("%s: ncu cannot import it as a report (%s: %s)", r->import, label,
		    run->v.reason);
		finish(r, "bad-report", KP_EXIT_DATA);
	}
	switch (run->v.outcome) {
	case KP_OUT_NOMATCH:
		import_filter_words(r, words, sizeof(words));
		kp_warn("%s: no kernel matched %s (%s)", label, words, run->v.reason);
		kp_warn("report: %s", r->import);
		/* the kernels the report holds: its per-kernel summary */
		path = kp_artifact_path(r->abs_dir, KP_ART_IMPORT_SUMMARY);
		if (import_pass(r, "summary", NULL, path, kp_artifact_rel(KP_ART_IMPORT_SUMMARY),
		    &sum) == KP_OUT_OK && (names = kp_import_kernels(path, &err)) != NULL) {
			fprintf(stderr, "%s: kernels the report holds:", kp_progname());
			json_array_foreach(names, i, v)
				fprintf(stderr, "%s %s", i > 0 ? "," : "", json_string_value(v));
			fputc('\n', stderr);
			json_decref(names);
		}
		kp_ncu_run_free(&sum);
		free(path);
		finish(r, kp_outcome_status(KP_OUT_NOMATCH), KP_EXIT_NOMATCH);
		break;
	case KP_OUT_MISSING:
		kp_warn("%s: %s: %s", label, r->ncu.bin, run->v.reason);
		finish(r, kp_outcome_status(run->v.outcome), kp_outcome_exit(run->v.outcome));
		break;
	default:
		kp_warn("%s: ncu failed: %s", label, run->v.reason);
		finish(r, kp_outcome_status(run->v.outcome), kp_outcome_exit(run->v.outcome));
	}
}

/* The session page: who made the report, how, on which GPU. */
static void
import_session(struct run *r, json_t *imp)
{
	char *path = kp_artifact_path(r->abs_dir, KP_ART_IMPORT_SESSION);
	struct kp_ncu_run run;
	struct kp_err err;
	json_t *ses;
	const char *cmd, *ver, *gpu;

	if (import_pass(r, "session", "session", path, kp_artifact_rel(KP_ART_IMPORT_SESSION),
	    &run) != KP_OUT_OK) {
		stop_if_interrupted(r);
		kp_warn("session: %s: the report's ncu version, command and GPU are not "
		    "recorded", run.v.reason);
	} else if ((ses = kp_import_session(path, &err)) == NULL) {
		kp_warn("%s", err.msg);
	} else {
		cmd = json_string_value(json_object_get(ses, "Profiler Command Line"));
		ver = json_string_value(json_object_get(ses, "Nsight Compute Target"));
		gpu = json_string_value(json_object_get(ses, "display_name"));
		json_object_set_new(imp, "report_ncu_version", jstr_or_null(ver));
		json_object_set_new(imp, "profiled_command", jstr_or_null(cmd));
		json_object_set_new(imp, "created", jstr_or_null(json_string_value(
		    json_object_get(ses, "Created"))));
		if (gpu != NULL)
			snprintf(r->gpu, sizeof(r->gpu), "%s", gpu);
		/* ncu's default is base: the report's clocks as it was made */
		if (cmd != NULL)
			json_object_set_new(r->manifest, "clock_control", json_string(
			    strstr(cmd, "--clock-control none") != NULL ? "none" : "base"));
		json_decref(ses);
	}
	kp_ncu_run_free(&run);
	free(path);
}

static void
import_prepare(struct run *r)
{
	struct kp_err err;
	char real[PATH_MAX], when[32];
	const char *id = strrchr(r->profile_dir, '/');
	json_t *k = json_object_get(r->target, "kernel");

	r->runs = json_array();
	r->cmds = json_array();
	r->collected = json_array();
	r->manifest = json_object();
	iso_now(when, sizeof(when));
	json_object_set_new(r->manifest, "schema", json_string("kp-run-manifest/1"));
	json_object_set_new(r->manifest, "profile_id",
	    json_string(id != NULL && id[1] != '\0' ? id + 1 : r->profile_dir));
	json_object_set_new(r->manifest, "status", json_string("running"));
	json_object_set_new(r->manifest, "started_at", json_string(when));
	json_object_set_new(r->manifest, "finished_at", json_null());
	if (kp_mkdirs(r->profile_dir, &err) < 0)
		kp_die_err(&err);
	if (realpath(r->profile_dir, real) == NULL)
		kp_die(KP_EXIT_ENV, "%s: %s", r->profile_dir, strerror(errno));
	r->abs_dir = kp_xstrdup(real);
	r->details = kp_path_join(r->abs_dir, KP_DETAILS);
	if (kp_mkdirs(r->details, &err) < 0)
		kp_die_err(&err);
	r->workdir = kp_xstrdup(getcwd(real, sizeof(real)) != NULL ? real : ".");
	json_object_set_new(r->manifest, "import", json_pack("{s:s, s:s, s:s}", "path",
	    r->import, "absolute_path", r->import_abs, "sha256", r->sha256));
	json_object_set_new(r->manifest, "kernel", json_pack("{s:o, s:o, s:o, s:o}",
	    "name", jstr_or_null(json_string_value(json_object_get(k, "name"))),
	    "filter_mode", jstr_or_null(json_string_value(json_object_get(k, "filter_mode"))),
	    "filter", jstr_or_null(json_string_value(json_object_get(k, "filter"))),
	    "nvtx_range", json_null()));
	json_object_set_new(r->manifest, "launch", json_pack("{s:o, s:o}",
	    "skip", r->skip >= 0 ? json_integer(r->skip) : json_null(),
	    "count", r->count >= 0 ? json_integer(r->count) : json_null()));
	json_object_set_new(r->manifest, "stages_requested", json_pack("[s]", "import"));
	json_object_set_new(r->manifest, "timeout_seconds", json_real(r->timeout));
}

/*
 * kp-collect --import REPORT: the details page first (its sections say what
 * the report holds; no launch is the no-match), the raw page into the stage
 * file of what it holds (basic, else full), the source page when the report
 * has Source Counters, the session page; then the extraction as after a live
 * run.
 */
static void
import_main(struct run *r, const struct opts *o, int argc, char **argv)
{
	static const char *const live_only[] = { "--stages", "--target-cmd", "--nvtx-range",
		"--runtime", "--sudo", "--devices", "--clock-control", "--extra", "--dry-run" };
	const int given[] = { strcmp(o->stages, "auto") != 0, o->cmd != NULL, o->nvtx != NULL,
		o->runtime != NULL, o->sudo, o->devices != NULL, o->clock != NULL,
		json_array_size(o->extra) > 0, o->dry };
	char real[PATH_MAX], *path, *raw;
	struct kp_ncu_run run;
	struct kp_err err;
	enum kp_stage st;
	json_t *sections, *imp;
	size_t i;

	for (i = 0; i < sizeof(given) / sizeof(given[0]); i++)
		if (given[i])
			kp_die(KP_EXIT_USAGE, "--import reads a report, it runs no target: %s "
			    "does not apply", live_only[i]);
	r->import = o->import;
	if (kp_is_dir(o->import))
		kp_die(KP_EXIT_DATA, "%s: is a directory, not an Nsight Compute report",
		    o->import);
	if (kp_sha256_file(o->import, r->sha256, &err) < 0)
		kp_die_err(&err);
	if (realpath(o->import, real) == NULL)
		kp_die(KP_EXIT_DATA, "%s: %s", o->import, strerror(errno));
	r->import_abs = kp_xstrdup(real);
	if (argc == 1) {
		if ((r->target = kp_target_load(argv[0], &err)) == NULL)
			kp_die_err(&err);
		r->profile_dir = o->outdir != NULL ? kp_xstrdup(o->outdir) : kp_path_dir(argv[0]);
	} else {
		r->target = json_object();
	}
	apply_flags(r->target, o);
	if (kp_target_str(r->target, "kernel", "filter_mode") != NULL &&
	    strcmp(kp_target_str(r->target, "kernel", "filter_mode"), "nvtx-range") == 0)
		kp_die(KP_EXIT_USAGE, "%s: an import selects launches by kernel name or id; "
		    "ncu --import takes no NVTX filter (kernel.filter_mode nvtx-range)",
		    argc == 1 ? argv[0] : "--import");
	/* reading a report needs no counters: never sudo; and no job to launch */
	json_object_set_new(section(r->target, "privilege"), "mode", json_string("none"));
	json_object_del(section(r->target, "target"), "launcher");
	json_object_del(section(r->target, "target"), "ranks");
	if (r->profile_dir == NULL)
		r->profile_dir = o->outdir != NULL ? kp_xstrdup(o->outdir) :
		    import_profile_dir(r->target, o->import);
	r->skip = o->have_skip ? o->skip : -1;
	r->count = o->have_count ? o->count : -1;
	r->timeout = o->have_timeout ? (double)o->timeout : 0;
	kp_proc_catch_signals();
	import_prepare(r);
	resolve_ncu(r);
	r->phase = "environment";
	import_environment(r);
	stop_if_interrupted(r);

	path = kp_artifact_path(r->abs_dir, KP_ART_NCU_DETAILS);
	if (import_pass(r, "details", "details", path, kp_artifact_rel(KP_ART_NCU_DETAILS),
	    &run) != KP_OUT_OK)
		import_failed(r, "details", &run);
	kp_ncu_run_free(&run);
	if ((sections = kp_import_sections(path, &err)) == NULL)
		kp_die_err(&err);
	free(path);
	st = kp_import_basic_only(sections) ? KP_STAGE_BASIC : KP_STAGE_FULL;
	imp = json_object_get(r->manifest, "import");
	json_object_set(imp, "sections", sections);
	json_object_set_new(imp, "source_counters", json_boolean(kp_import_has_source(sections)));

	raw = kp_path_join(r->details, kp_stage_file(st));
	if (import_pass(r, kp_stage_id(st), "raw", raw, kp_stage_rel(st), &run) != KP_OUT_OK)
		import_failed(r, kp_stage_id(st), &run);
	json_object_set_new(imp, "launches", json_integer(run.v.rows));
	json_array_append_new(r->collected, json_string(kp_stage_id(st)));
	kp_ncu_run_free(&run);
	free(raw);
	stop_if_interrupted(r);

	if (kp_import_has_source(sections)) {
		path = kp_path_join(r->details, kp_stage_file(KP_STAGE_SOURCE));
		if (import_pass(r, "source", "source", path, kp_stage_rel(KP_STAGE_SOURCE),
		    &run) != KP_OUT_OK)
			import_failed(r, "source", &run);
		json_array_append_new(r->collected, json_string("source"));
		source_fallback(r, path, &run.v);
		kp_ncu_run_free(&run);
		free(path);
	} else {
		json_object_set_new(r->manifest, "source_mapping", json_pack("{s:s, s:s}",
		    "mapping", "none", "reason", "the report holds no Source Counters section: "
		    "no source page (profile with --section SourceCounters or --set full)"));
	}
	stop_if_interrupted(r);
	import_session(r, imp);
	json_decref(sections);
	stop_if_interrupted(r);
	r->phase = "extract";
	extract_all(r);
	stop_if_interrupted(r);
	finish(r, "complete", KP_EXIT_OK);
}

/* File-level, so that what they hold stays reachable when a failure exits. */
static struct opts o;
static struct run r;

int
main(int argc, char **argv)
{
	struct kp_err err;
	unsigned mask;
	int autop, ch;

	kp_init(argv[0], synopsis);
	/* words become the ncu command and the target file: never dropped (a
	 * --kernel-name that is not UTF-8 lost the filter: every kernel profiled) */
	if (kp_args_text(argc, argv, NULL, &err) < 0)
		kp_die_err(&err);
	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	o.extra = json_array();
	o.stages = "auto";
	while ((ch = kp_getopt(argc, argv, "h", longopts)) != -1) {
		switch (ch) {
		case O_DRY: o.dry = 1; break;
		case O_STAGES: o.stages = optarg; break;
		case O_NCU: o.ncu = optarg; break;
		case O_OUTDIR: o.outdir = optarg; break;
		case O_CMD: o.cmd = optarg; break;
		case O_KNAME: o.kname = optarg; break;
		case O_KRE: o.kre = optarg; break;
		case O_KID: o.kid = optarg; break;
		case O_NVTX: o.nvtx = optarg; break;
		case O_RUNTIME: o.runtime = optarg; break;
		case O_IMPORT: o.import = optarg; break;
		case O_SUDO: o.sudo = 1; break;
		case O_DEVICES: o.devices = optarg; break;
		case O_CLOCK:
			if (strcmp(optarg, "base") != 0 && strcmp(optarg, "none") != 0)
				kp_die(KP_EXIT_USAGE, "--clock-control: \"%s\" is not base or none",
				    optarg);
			o.clock = optarg;
			break;
		case O_TIMEOUT:
			if (kp_strtonum(optarg, 0, 86400 * 7, &o.timeout, &err) < 0)
				kp_die(KP_EXIT_USAGE, "--timeout: %s", err.msg);
			o.have_timeout = 1;
			break;
		case O_SKIP:
			if (kp_strtonum(optarg, 0, 1000000000, &o.skip, &err) < 0)
				kp_die(KP_EXIT_USAGE, "--launch-skip: %s", err.msg);
			o.have_skip = 1;
			break;
		case O_COUNT:
			if (kp_strtonum(optarg, 1, 1000000, &o.count, &err) < 0)
				kp_die(KP_EXIT_USAGE, "--launch-count: %s", err.msg);
			o.have_count = 1;
			break;
		case O_EXTRA: {
			json_t *w = kp_shell_split(optarg, &err);
			if (w == NULL)
				kp_die(KP_EXIT_USAGE, "--extra: %s", err.msg);
			json_array_extend(o.extra, w);
			json_decref(w);
			break;
		}
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		kp_usage(KP_EXIT_USAGE);
	/* One filter: the regex, the kernel id or the NVTX range (the name is the label). */
	if ((o.kre != NULL) + (o.kid != NULL) + (o.nvtx != NULL) > 1)
		kp_die(KP_EXIT_USAGE, "--kernel-regex, --kernel-id and --nvtx-range exclude each "
		    "other: give one filter (--kernel-name is the label and goes with any)");
	if (o.kid != NULL && o.have_skip)
		kp_die(KP_EXIT_USAGE, "--kernel-id names the launch itself: --launch-skip does "
		    "not apply");
	if (o.import != NULL)
		import_main(&r, &o, argc, argv);	/* does not return */
	if (kp_stages_parse(o.stages, &mask, &autop, &err) < 0)
		kp_die_err(&err);
	r.dry = o.dry;
	r.target = load_target(argc, argv, &o, &r.profile_dir);
	kp_proc_catch_signals();
	prepare(&r, o.stages);
	resolve_ncu(&r);
	job_record(&r);
	if (!r.dry) {
		if (from_flags(&o)) {
			char *tp = kp_artifact_path(r.profile_dir, KP_ART_TARGET);
			if (!kp_is_file(tp) && kp_target_write(r.target, tp, &err) < 0)
				kp_die_err(&err);
			free(tp);
		}
		r.phase = "environment";
		environment(&r);
	}
	mask |= asked_stages(r.target);
	run_all(&r, mask, autop);
	if (r.dry) {
		char *text = kp_commands_text(r.cmds, &err);
		if (text == NULL)
			kp_die_err(&err);
		fputs(text, stdout);
		if (autop)
			fputs("\n# then one follow-up stage, chosen from basic's metrics\n", stdout);
		free(text);
		kp_exit(KP_EXIT_OK);
	}
	stop_if_interrupted(&r);
	r.phase = "extract";
	extract_all(&r);
	if (r.ncu.launcher != NULL)
		extract_ranks(&r);
	stop_if_interrupted(&r);
	finish(&r, "complete", KP_EXIT_OK);
}
