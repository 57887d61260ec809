/*
 * collect.c: the stages of kp-collect and what ncu says about each run.
 *
 * One table holds every stage: its id, its file and the ncu selection.  The
 * ncu argv is built from the target tree (profile-target.yaml as JSON), never
 * as a shell string.  ncu's verdict is read from its log (ncu exits 0 when the
 * filter matched nothing), and the run is recorded in run_manifest.yaml and
 * commands.sh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#include "kp.h"

static const char *const sel_basic[] = { "--set", "basic", NULL };
static const char *const sel_sol[] = { "--section", "SpeedOfLight", NULL };
static const char *const sel_memory[] = { "--section", "MemoryWorkloadAnalysis",
	"--section", "MemoryWorkloadAnalysis_Chart",
	"--section", "MemoryWorkloadAnalysis_Tables", NULL };
static const char *const sel_compute[] = { "--section", "ComputeWorkloadAnalysis",
	"--section", "InstructionStats", NULL };
static const char *const sel_occupancy[] = { "--section", "Occupancy",
	"--section", "LaunchStats", "--section", "SchedulerStats",
	"--section", "WarpStateStats", NULL };
static const char *const sel_roofline[] = { "--section", "SpeedOfLight",
	"--section", "SpeedOfLight_RooflineChart", NULL };
static const char *const sel_source[] = { "--section", "SourceCounters", NULL };
static const char *const sel_full[] = { "--set", "full", NULL };

static const struct stage {
	const char *id;
	const char *file;
	const char *const *sel;
} stages[KP_NSTAGES] = {
	{ "basic", "01_basic_raw.csv", sel_basic },
	{ "speed-of-light", "02_speed_of_light_raw.csv", sel_sol },
	{ "memory", "03_memory_raw.csv", sel_memory },
	{ "compute", "04_compute_raw.csv", sel_compute },
	{ "occupancy", "05_occupancy_launch_raw.csv", sel_occupancy },
	{ "roofline", "06_roofline_raw.csv", sel_roofline },
	{ "source", "07_source_raw.csv", sel_source },
	{ "full", "08_full_raw.csv", sel_full },
};

/* The hierarchical roofline charts Nsight Compute 2025.3 lists (list_sections.txt). */
static const char *const roofline_extra[] = {
	"SpeedOfLight_HierarchicalDoubleRooflineChart",
	"SpeedOfLight_HierarchicalHalfRooflineChart",
	"SpeedOfLight_HierarchicalSingleRooflineChart",
	"SpeedOfLight_HierarchicalTensorRooflineChart",
};

const char *
kp_stage_id(enum kp_stage s)
{
	return s < KP_NSTAGES ? stages[s].id : "?";
}

const char *
kp_stage_file(enum kp_stage s)
{
	return s < KP_NSTAGES ? stages[s].file : "?";
}

int
kp_stage_parse(const char *id, enum kp_stage *out)
{
	int i;

	for (i = 0; i < KP_NSTAGES; i++)
		if (strcmp(id, stages[i].id) == 0) {
			*out = (enum kp_stage)i;
			return 0;
		}
	/* The old names of the workflow. */
	if (strcmp(id, "sol") == 0 || strcmp(id, "speed_of_light") == 0)
		return *out = KP_STAGE_SOL, 0;
	if (strcmp(id, "occupancy_launch") == 0 || strcmp(id, "launch") == 0)
		return *out = KP_STAGE_OCCUPANCY, 0;
	return -1;
}

int
kp_stages_parse(const char *spec, unsigned *mask, int *autop, struct kp_err *err)
{
	char *copy, *tok, *save = NULL;
	enum kp_stage s;

	*mask = 0;
	*autop = 0;
	if (strcmp(spec, "auto") == 0) {
		*mask = 1u << KP_STAGE_BASIC;
		*autop = 1;
		return 0;
	}
	if (strcmp(spec, "all") == 0) {
		*mask = (1u << KP_NSTAGES) - 1;
		return 0;
	}
	if ((copy = strdup(spec)) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "auto") == 0) {
			*autop = 1;
			*mask |= 1u << KP_STAGE_BASIC;
		} else if (strcmp(tok, "all") == 0) {
			*mask = (1u << KP_NSTAGES) - 1;
		} else if (kp_stage_parse(tok, &s) == 0) {
			*mask |= 1u << s;
		} else {
			kp_errf(err, KP_EXIT_USAGE, "--stages: unknown stage \"%s\" "
			    "(auto, all, basic, speed-of-light, memory, compute, occupancy, "
			    "roofline, source, full)", tok);
			free(copy);
			return -1;
		}
	}
	free(copy);
	if (*mask == 0)
		return kp_errf(err, KP_EXIT_USAGE, "--stages: no stage given");
	return 0;
}

/* A word of the text, delimited by white space (or the text's ends). */
static int
has_word(const char *text, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = text; (p = strstr(p, w)) != NULL; p += n)
		if ((p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == '\t' || p[n] == '\r'))
			return 1;
	return 0;
}

json_t *
kp_roofline_sections(const char *text)
{
	json_t *a = json_array();
	size_t i;

	json_array_append_new(a, json_string("SpeedOfLight"));
	json_array_append_new(a, json_string("SpeedOfLight_RooflineChart"));
	for (i = 0; i < sizeof(roofline_extra) / sizeof(roofline_extra[0]); i++)
		if (text == NULL || has_word(text, roofline_extra[i]))
			json_array_append_new(a, json_string(roofline_extra[i]));
	return a;
}

/* ---- the target tree ---- */

static json_t *
tget(json_t *t, const char *sec, const char *key)
{
	return json_object_get(json_object_get(t, sec), key);
}

static int
tbool(json_t *t, const char *sec, const char *key)
{
	json_t *v = tget(t, sec, key);

	return json_is_true(v) || (json_is_string(v) && strcmp(json_string_value(v), "true") == 0);
}

static long long
tint(json_t *t, const char *sec, const char *key, long long def)
{
	json_t *v = tget(t, sec, key);

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (long long)json_real_value(v);
	return def;
}

static void
push(json_t *a, const char *s)
{
	json_array_append_new(a, json_string(s));
}

static void
pushf(json_t *a, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	push(a, buf);
}

static int
is_python(json_t *t)
{
	const char *rt = kp_target_str(t, "target", "runtime");
	const char *exe = kp_target_str(t, "target", "executable");
	const char *base;

	if (rt != NULL && strncmp(rt, "python", 6) == 0)
		return 1;
	if (exe == NULL)
		return 0;
	base = strrchr(exe, '/') != NULL ? strrchr(exe, '/') + 1 : exe;
	return strncmp(base, "python", 6) == 0;
}

/* The kernel filter words; 0 or -1 + err for an unknown mode. */
static int
push_filter(json_t *a, json_t *t, int with_skip, struct kp_err *err)
{
	const char *mode = kp_target_str(t, "kernel", "filter_mode");
	const char *f = kp_target_str(t, "kernel", "filter");
	const char *name = kp_target_str(t, "kernel", "name");
	const char *nvtx = kp_target_str(t, "kernel", "nvtx_range");
	char *re;

	if (mode == NULL)
		mode = "regex";
	if ((f == NULL || *f == '\0') && name != NULL && *name != '\0' &&
	    strcmp(mode, "nvtx-range") != 0) {
		if (strcmp(mode, "exact") == 0) {
			f = name;
		} else {
			/* A bare kernel name: match it anywhere, escaped. */
			char *esc = kp_regex_escape(name);
			size_t n = strlen(esc) + 5;
			if ((re = malloc(n)) == NULL) {
				free(esc);
				return kp_errf(err, KP_EXIT_ENV, "out of memory");
			}
			snprintf(re, n, ".*%s.*", esc);
			free(esc);
			push(a, "--kernel-name-base");
			push(a, "demangled");
			push(a, "-k");
			{
				char *k = malloc(strlen(re) + 7);
				if (k != NULL) {
					sprintf(k, "regex:%s", re);
					push(a, k);
					free(k);
				}
			}
			free(re);
			return 0;
		}
	}
	if (strcmp(mode, "nvtx-range") == 0) {
		const char *r = nvtx != NULL && *nvtx != '\0' ? nvtx : f;
		if (r == NULL || *r == '\0')
			return kp_errf(err, KP_EXIT_DATA,
			    "kernel.filter_mode nvtx-range needs kernel.nvtx_range");
		push(a, "--nvtx");
		push(a, "--nvtx-include");
		push(a, r);
		return 0;
	}
	if (f == NULL || *f == '\0')
		return 0;	/* no filter: every kernel */
	if (strcmp(mode, "exact") == 0) {
		push(a, "--kernel-name-base");
		push(a, "function");
		push(a, "-k");
		push(a, f);
	} else if (strcmp(mode, "regex") == 0) {
		char *k = malloc(strlen(f) + 7);
		if (k == NULL)
			return kp_errf(err, KP_EXIT_ENV, "out of memory");
		sprintf(k, "%s%s", strncmp(f, "regex:", 6) == 0 ? "" : "regex:", f);
		push(a, "--kernel-name-base");
		push(a, "demangled");
		push(a, "-k");
		push(a, k);
		free(k);
	} else if (strcmp(mode, "kernel-id") == 0) {
		push(a, "--kernel-name-base");
		push(a, "demangled");
		push(a, "--kernel-id");
		push(a, f);
	} else {
		return kp_errf(err, KP_EXIT_DATA, "kernel.filter_mode: \"%s\" is not one of "
		    "exact, regex, kernel-id, nvtx-range", mode);
	}
	(void)with_skip;
	return 0;
}

static int
push_target(json_t *a, json_t *t, struct kp_err *err)
{
	const char *exe = kp_target_str(t, "target", "executable");
	json_t *args = tget(t, "target", "args"), *v;
	size_t i;

	if (exe == NULL || *exe == '\0')
		return kp_errf(err, KP_EXIT_DATA, "target.executable: missing");
	push(a, exe);
	json_array_foreach(args, i, v) {
		if (json_is_string(v))
			push(a, json_string_value(v));
		else if (json_is_number(v)) {
			char buf[64];
			if (json_is_integer(v))
				snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
			else
				snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
			push(a, buf);
		}
	}
	return 0;
}

static void
push_extra(json_t *a, json_t *t)
{
	json_t *x = tget(t, "profiling", "extra_profiler_options"), *v;
	size_t i;

	if (json_is_string(x)) {
		struct kp_err e;
		json_t *w = kp_shell_split(json_string_value(x), &e);
		if (w != NULL) {
			json_array_extend(a, w);
			json_decref(w);
		}
		return;
	}
	json_array_foreach(x, i, v)
		if (json_is_string(v))
			push(a, json_string_value(v));
}

static int
wants_ptx(json_t *t)
{
	json_t *views = tget(t, "analysis", "source_views"), *v;
	size_t i;

	json_array_foreach(views, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), "ptx") == 0)
			return 1;
	return tbool(t, "analysis", "collect_ptx");
}

static json_t *
common_head(json_t *prefix, const char *page, const char *log, json_t *t)
{
	json_t *a = json_array();

	json_array_extend(a, prefix);
	push(a, "--csv");
	push(a, "--page");
	push(a, page);
	push(a, "--log-file");
	push(a, log);
	if (is_python(t)) {
		push(a, "--target-processes");
		push(a, "all");
	}
	return a;
}

json_t *
kp_stage_argv(json_t *t, enum kp_stage s, json_t *prefix, const char *log, json_t *roofline,
    struct kp_err *err)
{
	json_t *a, *v;
	const char *cc = kp_target_str(t, "profiling", "clock_control");
	const char *mode = kp_target_str(t, "kernel", "filter_mode");
	const char *const *w;
	size_t i;

	if (s >= KP_NSTAGES) {
		kp_errf(err, KP_EXIT_USAGE, "no such stage");
		return NULL;
	}
	a = common_head(prefix, s == KP_STAGE_SOURCE ? "source" : "raw", log, t);
	if (push_filter(a, t, 1, err) < 0) {
		json_decref(a);
		return NULL;
	}
	if (mode == NULL || strcmp(mode, "kernel-id") != 0) {
		push(a, "--launch-skip");
		pushf(a, tint(t, "profiling", "warmup_skip", 0));
	}
	push(a, "--launch-count");
	pushf(a, tint(t, "profiling", "launch_count", 1));
	if (cc != NULL && strcmp(cc, "base") != 0) {
		push(a, "--clock-control");
		push(a, cc);
	}
	if (s == KP_STAGE_ROOFLINE && roofline != NULL) {
		json_array_foreach(roofline, i, v) {
			push(a, "--section");
			push(a, json_string_value(v));
		}
	} else if (s == KP_STAGE_ROOFLINE) {
		json_t *r = kp_roofline_sections(NULL);
		json_array_foreach(r, i, v) {
			push(a, "--section");
			push(a, json_string_value(v));
		}
		json_decref(r);
	} else {
		for (w = stages[s].sel; *w != NULL; w++)
			push(a, *w);
	}
	if (s == KP_STAGE_SOURCE) {
		push(a, "--print-source");
		push(a, wants_ptx(t) ? "cuda,sass,ptx" : "cuda,sass");
	}
	push_extra(a, t);
	if (push_target(a, t, err) < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *
kp_discovery_argv(json_t *t, json_t *prefix, const char *log, long max, int use_filter,
    struct kp_err *err)
{
	json_t *a = common_head(prefix, "raw", log, t);
	const char *cc = kp_target_str(t, "profiling", "clock_control");

	if (use_filter && push_filter(a, t, 0, err) < 0) {
		json_decref(a);
		return NULL;
	}
	push(a, "--metrics");
	push(a, "gpu__time_duration.sum,launch__grid_size,launch__block_size,"
	    "launch__registers_per_thread");
	push(a, "--launch-count");
	pushf(a, max);
	if (cc != NULL && strcmp(cc, "base") != 0) {
		push(a, "--clock-control");
		push(a, cc);
	}
	push_extra(a, t);
	if (push_target(a, t, err) < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* ---- what ncu said ---- */

struct scan {
	char err_line[512];
	char perm_line[512];
	char nomatch_line[512];
	char tail[512];
	int in_list;
	json_t *kernels;
};

static void
copy_line(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s);
}

static void
scan_line(struct scan *sc, char *line, int is_out)
{
	size_t n = strlen(line);
	char *p;

	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (n == 0)
		return;
	if (line[0] == '"' && !is_out)
		return;	/* a CSV record */
	if (strstr(line, "ERR_NVGPUCTRPERM") != NULL ||
	    (strncmp(line, "sudo:", 5) == 0 && (strstr(line, "password") != NULL ||
	    strstr(line, "terminal is required") != NULL))) {
		if (sc->perm_line[0] == '\0')
			copy_line(sc->perm_line, sizeof(sc->perm_line), line);
		return;
	}
	if (strstr(line, "No kernels were profiled") != NULL) {
		copy_line(sc->nomatch_line, sizeof(sc->nomatch_line), line);
		return;
	}
	if (strncmp(line, "Available Kernels:", 18) == 0) {
		sc->in_list = 1;
		return;
	}
	if (sc->in_list) {
		/* "1. hgemm_byzj_v0" */
		for (p = line; *p >= '0' && *p <= '9'; p++)
			;
		if (p > line && p[0] == '.' && p[1] == ' ') {
			json_array_append_new(sc->kernels, json_string(p + 2));
			return;
		}
		sc->in_list = 0;
	}
	if (strncmp(line, "==ERROR==", 9) == 0) {
		if (sc->err_line[0] == '\0')
			copy_line(sc->err_line, sizeof(sc->err_line), line);
		return;
	}
	if (is_out && strncmp(line, "==", 2) != 0)
		copy_line(sc->tail, sizeof(sc->tail), line);
}

static void
scan_file(struct scan *sc, const char *path, int is_out)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;

	if (path == NULL || (fp = fopen(path, "r")) == NULL)
		return;
	sc->in_list = 0;
	while (getline(&line, &cap, fp) != -1)
		scan_line(sc, line, is_out);
	free(line);
	fclose(fp);
}

void
kp_ncu_classify(const char *log_path, const char *out_path, const struct kp_proc_result *r,
    struct kp_ncu_verdict *v)
{
	struct scan sc;

	memset(&sc, 0, sizeof(sc));
	memset(v, 0, sizeof(*v));
	sc.kernels = json_array();
	scan_file(&sc, log_path, 0);
	scan_file(&sc, out_path, 1);
	copy_line(v->tail, sizeof(v->tail), sc.tail);
	if (r->interrupted) {
		v->outcome = KP_OUT_INTR;
		copy_line(v->reason, sizeof(v->reason), "interrupted");
	} else if (r->exec_errno != 0) {
		v->outcome = KP_OUT_MISSING;
		snprintf(v->reason, sizeof(v->reason), "cannot execute: %s",
		    strerror(r->exec_errno));
	} else if (sc.perm_line[0] != '\0') {
		v->outcome = KP_OUT_NOPERM;
		copy_line(v->reason, sizeof(v->reason), sc.perm_line);
	} else if (r->timed_out) {
		v->outcome = KP_OUT_TARGET;
		copy_line(v->reason, sizeof(v->reason), "timed out");
	} else if (sc.nomatch_line[0] != '\0' &&
	    (sc.err_line[0] == '\0' || json_array_size(sc.kernels) > 0)) {
		v->outcome = KP_OUT_NOMATCH;
		copy_line(v->reason, sizeof(v->reason), sc.nomatch_line);
	} else if (sc.err_line[0] != '\0') {
		v->outcome = KP_OUT_TARGET;
		copy_line(v->reason, sizeof(v->reason), sc.err_line);
	} else if (r->signal != 0) {
		v->outcome = KP_OUT_TARGET;
		snprintf(v->reason, sizeof(v->reason), "ncu was killed by signal %d", r->signal);
	} else if (r->exit_status != 0) {
		v->outcome = KP_OUT_TARGET;
		snprintf(v->reason, sizeof(v->reason), "ncu exited with status %d",
		    r->exit_status);
	} else {
		v->outcome = KP_OUT_OK;
	}
	if (v->outcome == KP_OUT_NOMATCH)
		v->kernels = sc.kernels;
	else
		json_decref(sc.kernels);
}

const char *
kp_outcome_status(enum kp_outcome o)
{
	switch (o) {
	case KP_OUT_OK:		return "complete";
	case KP_OUT_NOMATCH:	return "no-kernel-matched";
	case KP_OUT_NOPERM:	return "needs-privilege";
	case KP_OUT_TARGET:	return "target-failed";
	case KP_OUT_MISSING:	return "profiler-missing";
	case KP_OUT_INTR:	return "interrupted";
	}
	return "target-failed";
}

int
kp_outcome_exit(enum kp_outcome o)
{
	switch (o) {
	case KP_OUT_OK:		return KP_EXIT_OK;
	case KP_OUT_NOMATCH:	return KP_EXIT_NOMATCH;
	case KP_OUT_NOPERM:	return KP_EXIT_PRIV;
	case KP_OUT_TARGET:	return KP_EXIT_TARGET;
	case KP_OUT_MISSING:	return KP_EXIT_ENV;
	case KP_OUT_INTR:	return KP_EXIT_INTR;
	}
	return KP_EXIT_TARGET;
}

/* ---- the run record ---- */

int
kp_manifest_write(json_t *m, const char *path, struct kp_err *err)
{
	struct fy_document *d = kp_json_to_yaml(m, err);
	int rc;

	if (d == NULL)
		return -1;
	rc = kp_yaml_write_atomic(d, path, err);
	fy_document_destroy(d);
	return rc;
}

struct buf {
	char *s;
	size_t len, cap;
	int oom;
};

static void
bput(struct buf *b, const char *s)
{
	size_t n = strlen(s);
	char *ns;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap + n + 1) * 2;
		if ((ns = realloc(b->s, cap)) == NULL) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

static void
bquote(struct buf *b, const char *w)
{
	char *q = kp_shell_quote(w);

	if (q == NULL) {
		b->oom = 1;
		return;
	}
	bput(b, q);
	free(q);
}

char *
kp_commands_text(json_t *runs, struct kp_err *err)
{
	struct buf b = { NULL, 0, 0, 0 };
	json_t *run, *w;
	size_t i, j;
	const char *key;

	bput(&b, "#!/bin/sh\n"
	    "# The ncu commands of this profile, as kp-collect ran them; `bash commands.sh`\n"
	    "# runs them again.  Each command writes its CSV to the file after --log-file.\n");
	json_array_foreach(runs, i, run) {
		const char *stage = json_string_value(json_object_get(run, "stage"));
		const char *cwd = json_string_value(json_object_get(run, "cwd"));
		json_t *env = json_object_get(run, "env");

		bput(&b, "\n# ");
		bput(&b, stage != NULL ? stage : "run");
		bput(&b, "\n");
		if (cwd != NULL && *cwd != '\0') {
			bput(&b, "cd ");
			bquote(&b, cwd);
			bput(&b, " && ");
		}
		if (json_is_object(env) && json_object_size(env) > 0) {
			bput(&b, "env");
			json_object_foreach(env, key, w) {
				char *kv;
				const char *val = json_is_string(w) ? json_string_value(w) : "";
				if ((kv = malloc(strlen(key) + strlen(val) + 2)) == NULL) {
					b.oom = 1;
					break;
				}
				sprintf(kv, "%s=%s", key, val);
				bput(&b, " ");
				bquote(&b, kv);
				free(kv);
			}
			bput(&b, " ");
		}
		json_array_foreach(json_object_get(run, "argv"), j, w) {
			if (j > 0)
				bput(&b, " ");
			bquote(&b, json_string_value(w));
		}
		bput(&b, "\n");
	}
	if (b.oom) {
		free(b.s);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	return b.s;
}

int
kp_commands_write(json_t *runs, const char *path, struct kp_err *err)
{
	char *text = kp_commands_text(runs, err);
	int rc;

	if (text == NULL)
		return -1;
	rc = kp_write_file_atomic(path, text, strlen(text), err);
	free(text);
	return rc;
}

/* ---- details/metrics_raw.csv ---- */

static void
csv_put(FILE *fp, const char *s)
{
	putc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			putc('"', fp);
		putc(*s, fp);
	}
	putc('"', fp);
}

/* Header and units of one raw file; columns added to cols/units, map filled. */
/* Returns 0, 1 when the record after the header is already a launch (no units
 * row), -1 on error. */
static int
read_head(struct kp_csv *c, json_t *cols, json_t *units, json_t *index, json_t *map,
    long *name_col, struct kp_err *err)
{
	size_t i, n;
	json_t *hdr = json_array();
	int rc;

	if ((rc = kp_csv_next(c, err)) <= 0) {
		json_decref(hdr);
		if (rc == 0)
			kp_errf(err, KP_EXIT_DATA, "%s: no CSV header", kp_csv_name(c));
		return -1;
	}
	n = kp_csv_nfields(c);
	*name_col = -1;
	for (i = 0; i < n; i++) {
		const char *h = kp_csv_field(c, i)->s;
		json_t *at = json_object_get(index, h);
		if (strcmp(h, "Kernel Name") == 0)
			*name_col = (long)i;
		if (at == NULL) {
			at = json_integer((json_int_t)json_array_size(cols));
			json_object_set_new(index, h, at);
			json_array_append_new(cols, json_string(h));
			json_array_append_new(units, json_string(""));
		}
		json_array_append(map, at);
		json_array_append_new(hdr, json_string(h));
	}
	json_decref(hdr);
	if (n == 0 || strcmp(kp_csv_field(c, 0)->s, "ID") != 0)
		*name_col = -1;
	if (*name_col < 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: no \"ID\" and \"Kernel Name\" "
		    "columns: not an ncu raw page", kp_csv_name(c), kp_csv_line(c));
	/* The units row: its ID field is empty. */
	if ((rc = kp_csv_next(c, err)) < 0)
		return -1;
	if (rc == 1 && kp_csv_nfields(c) > 0 && kp_csv_field(c, 0)->len > 0)
		return 1;
	if (rc == 1) {
		for (i = 0; i < kp_csv_nfields(c) && i < n; i++) {
			json_int_t k = json_integer_value(json_array_get(map, i));
			const char *u = kp_csv_field(c, i)->s;
			if (*u != '\0' && *json_string_value(json_array_get(units, k)) == '\0')
				json_array_set_new(units, k, json_string(u));
		}
	}
	return 0;
}

static json_t *
find_row(json_t *rows, const char *name, json_int_t occ)
{
	size_t i;
	json_t *r;

	json_array_foreach(rows, i, r)
		if (strcmp(json_string_value(json_object_get(r, "name")), name) == 0 &&
		    json_integer_value(json_object_get(r, "occ")) == occ)
			return r;
	r = json_pack("{s:s, s:I, s:o, s:s}", "name", name, "occ", occ, "cells", json_object(),
	    "stages", "");
	json_array_append_new(rows, r);
	return r;
}

static int
merge_file(const char *path, const char *stage, json_t *cols, json_t *units, json_t *index,
    json_t *rows, struct kp_err *err)
{
	struct kp_csv *c = kp_csv_open_path(path, err);
	json_t *map = json_array(), *count = json_object(), *row, *cells;
	long name_col;
	int rc, pending;
	size_t i;

	if (c == NULL) {
		json_decref(map);
		json_decref(count);
		return -1;
	}
	if ((pending = read_head(c, cols, units, index, map, &name_col, err)) < 0)
		goto fail;
	while ((rc = pending ? 1 : kp_csv_next(c, err)) == 1) {
		const struct kp_field *nf = kp_csv_field(c, (size_t)name_col);
		json_int_t occ;
		const char *st;
		char *ns;

		pending = 0;
		if (nf == NULL)
			continue;
		occ = json_integer_value(json_object_get(count, nf->s));
		json_object_set_new(count, nf->s, json_integer(occ + 1));
		row = find_row(rows, nf->s, occ);
		cells = json_object_get(row, "cells");
		for (i = 0; i < kp_csv_nfields(c) && i < json_array_size(map); i++) {
			char key[32];
			snprintf(key, sizeof(key), "%lld",
			    (long long)json_integer_value(json_array_get(map, i)));
			if (json_object_get(cells, key) == NULL)
				json_object_set_new(cells, key, json_string(kp_csv_field(c, i)->s));
		}
		st = json_string_value(json_object_get(row, "stages"));
		if ((ns = malloc(strlen(st) + strlen(stage) + 2)) != NULL) {
			sprintf(ns, "%s%s%s", st, *st != '\0' ? ";" : "", stage);
			json_object_set_new(row, "stages", json_string(ns));
			free(ns);
		}
	}
	if (rc < 0)
		goto fail;
	kp_csv_close(c);
	json_decref(map);
	json_decref(count);
	return 0;
fail:
	kp_csv_close(c);
	json_decref(map);
	json_decref(count);
	return -1;
}

int
kp_merge_raw(const char *const *paths, const char *const *stagev, size_t n, const char *out,
    struct kp_err *err)
{
	json_t *cols = json_array(), *units = json_array(), *index = json_object();
	json_t *rows = json_array(), *r, *v;
	struct kp_atomic a;
	size_t i, j;
	int rc = -1;

	for (i = 0; i < n; i++)
		if (merge_file(paths[i], stagev[i], cols, units, index, rows, err) < 0)
			goto done;
	if (kp_atomic_open(&a, out, err) < 0)
		goto done;
	json_array_foreach(cols, j, v) {
		csv_put(a.fp, json_string_value(v));
		putc(',', a.fp);
	}
	fputs("\"Launch\",\"Stages\"\n", a.fp);
	json_array_foreach(units, j, v) {
		csv_put(a.fp, json_string_value(v));
		putc(',', a.fp);
	}
	fputs("\"\",\"\"\n", a.fp);
	json_array_foreach(rows, i, r) {
		json_t *cells = json_object_get(r, "cells");
		for (j = 0; j < json_array_size(cols); j++) {
			char key[32];
			json_t *c;
			snprintf(key, sizeof(key), "%zu", j);
			c = json_object_get(cells, key);
			csv_put(a.fp, c != NULL ? json_string_value(c) : "");
			putc(',', a.fp);
		}
		fprintf(a.fp, "\"%lld\",", (long long)json_integer_value(json_object_get(r, "occ")));
		csv_put(a.fp, json_string_value(json_object_get(r, "stages")));
		putc('\n', a.fp);
	}
	rc = kp_atomic_commit(&a, err);
done:
	json_decref(cols);
	json_decref(units);
	json_decref(index);
	json_decref(rows);
	return rc;
}
