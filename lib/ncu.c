/*
 * ncu.c: the only place that builds and runs ncu command lines.
 *
 * Which ncu: the target's profiling.ncu_bin (default ncu in PATH), or with
 * privilege.mode full_sudo `sudo -n` and the path in OUTPUT_ROOT/ncu_path; a
 * password is never asked for, read or stored.  The argv of every pass is
 * built from the target tree (profile-target.yaml as JSON), never as a shell
 * string.  A pass logs its CSV to a temporary file that becomes the stage file
 * only when ncu's verdict, read from its log (ncu exits 0 when the filter
 * matched nothing), is good.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_import.h"
#include "kp_proc.h"
#include "kp_ranks.h"
#include "kp_shellwords.h"
#include "kp_target.h"
#include "ncu.h"
#include "profile.h"

/* The hierarchical roofline charts Nsight Compute 2025.3 lists (list_sections.txt). */
static const char *const roofline_extra[] = {
	"SpeedOfLight_HierarchicalDoubleRooflineChart",
	"SpeedOfLight_HierarchicalHalfRooflineChart",
	"SpeedOfLight_HierarchicalSingleRooflineChart",
	"SpeedOfLight_HierarchicalTensorRooflineChart",
};

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
push_filter(json_t *a, json_t *t, struct kp_err *err)
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
	if (log != NULL) {	/* NULL: kp-rank-exec adds each rank's own */
		push(a, "--log-file");
		push(a, log);
	}
	if (is_python(t)) {
		push(a, "--target-processes");
		push(a, "all");
	}
	return a;
}

static void
push_clock(json_t *a, json_t *t)
{
	const char *cc = kp_target_str(t, "profiling", "clock_control");

	if (cc != NULL && strcmp(cc, "base") != 0) {
		push(a, "--clock-control");
		push(a, cc);
	}
}

static void
push_sections(json_t *a, json_t *names)
{
	json_t *v;
	size_t i;

	json_array_foreach(names, i, v) {
		push(a, "--section");
		push(a, json_string_value(v));
	}
}

/* A stage's argv; view: the source page's --print-source.  roofline: the
 * roofline stage's sections, or sections added to another stage's selection. */
static json_t *
stage_argv(json_t *t, enum kp_stage s, json_t *prefix, const char *log, json_t *roofline,
    const char *view, int with_target, struct kp_err *err)
{
	json_t *a;
	const char *mode = kp_target_str(t, "kernel", "filter_mode");
	const char *const *w;

	if (s >= KP_NSTAGES) {
		kp_errf(err, KP_EXIT_USAGE, "no such stage");
		return NULL;
	}
	a = common_head(prefix, s == KP_STAGE_SOURCE ? "source" : "raw", log, t);
	if (push_filter(a, t, err) < 0) {
		json_decref(a);
		return NULL;
	}
	if (mode == NULL || strcmp(mode, "kernel-id") != 0) {
		push(a, "--launch-skip");
		pushf(a, tint(t, "profiling", "warmup_skip", 0));
	}
	push(a, "--launch-count");
	pushf(a, tint(t, "profiling", "launch_count", 1));
	push_clock(a, t);
	if (s == KP_STAGE_ROOFLINE && roofline != NULL) {
		push_sections(a, roofline);
	} else if (s == KP_STAGE_ROOFLINE) {
		json_t *r = kp_roofline_sections(NULL);
		push_sections(a, r);
		json_decref(r);
	} else {
		for (w = kp_stage_selection(s); *w != NULL; w++)
			push(a, *w);
		if (roofline != NULL)	/* sections the rules need besides the stage's */
			push_sections(a, roofline);
	}
	if (s == KP_STAGE_SOURCE) {
		push(a, "--print-source");
		push(a, view);
	}
	push_extra(a, t);
	if (with_target && push_target(a, t, err) < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *
kp_stage_argv(json_t *t, enum kp_stage s, json_t *prefix, const char *log, json_t *roofline,
    struct kp_err *err)
{
	return stage_argv(t, s, prefix, log, roofline, wants_ptx(t) ? "cuda,sass,ptx" :
	    "cuda,sass", 1, err);
}

json_t *
kp_source_argv(json_t *t, json_t *prefix, const char *log, const char *view,
    struct kp_err *err)
{
	return stage_argv(t, KP_STAGE_SOURCE, prefix, log, NULL, view, 1, err);
}

static json_t *
discovery_argv(json_t *t, json_t *prefix, const char *log, long max, int use_filter,
    int with_target, struct kp_err *err)
{
	json_t *a = common_head(prefix, "raw", log, t);

	if (use_filter && push_filter(a, t, err) < 0) {
		json_decref(a);
		return NULL;
	}
	push(a, "--metrics");
	push(a, "gpu__time_duration.sum,launch__grid_size,launch__block_size,"
	    "launch__registers_per_thread");
	push(a, "--launch-count");
	pushf(a, max);
	push_clock(a, t);
	push_extra(a, t);
	if (with_target && push_target(a, t, err) < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *
kp_discovery_argv(json_t *t, json_t *prefix, const char *log, long max, int use_filter,
    struct kp_err *err)
{
	return discovery_argv(t, prefix, log, max, use_filter, 1, err);
}

json_t *
kp_import_argv(json_t *t, json_t *prefix, const char *report, const char *page,
    const char *view, const char *log, long long skip, long long count, struct kp_err *err)
{
	const char *mode = kp_target_str(t, "kernel", "filter_mode");
	json_t *a = json_array();

	json_array_extend(a, prefix);
	push(a, "--import");
	push(a, report);
	push(a, "--csv");
	if (page != NULL) {
		push(a, "--page");
		push(a, page);
	} else {
		push(a, "--print-summary");
		push(a, "per-kernel");
	}
	push(a, "--log-file");
	push(a, log);
	if (page == NULL || strcmp(page, "session") == 0)
		return a;
	if (mode != NULL && strcmp(mode, "nvtx-range") == 0) {
		json_decref(a);
		kp_errf(err, KP_EXIT_USAGE, "an import selects launches by kernel name or id: "
		    "ncu --import takes no NVTX filter (kernel.filter_mode nvtx-range, "
		    "--nvtx-range)");
		return NULL;
	}
	if (push_filter(a, t, err) < 0) {
		json_decref(a);
		return NULL;
	}
	if (skip >= 0 && (mode == NULL || strcmp(mode, "kernel-id") != 0)) {
		push(a, "--launch-skip");
		pushf(a, skip);
	}
	if (count >= 0) {
		push(a, "--launch-count");
		pushf(a, count);
	}
	if (strcmp(page, "source") == 0) {
		push(a, "--print-source");
		push(a, view != NULL ? view : wants_ptx(t) ? "cuda,sass,ptx" : "cuda,sass");
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

/* ---- which ncu ---- */

/* privilege full_sudo: the single line of <output root>/ncu_path. */
static char *
ncu_from_path_file(struct kp_ncu *n, const char *profile_dir, struct kp_err *err)
{
	char *root = kp_path_dir(profile_dir), *file, *text, *nl;
	struct stat st;

	file = root != NULL ? kp_path_join(root, KP_NCU_PATH_FILE) : NULL;
	free(root);
	if (file == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	if ((text = kp_read_file(file, NULL, err)) == NULL) {
		n->want_guide = 1;
		free(file);
		return NULL;
	}
	if ((nl = strchr(text, '\n')) != NULL)
		*nl = '\0';
	if (text[0] != '/' || stat(text, &st) < 0 || !S_ISREG(st.st_mode) ||
	    access(text, X_OK) < 0) {
		kp_errf(err, KP_EXIT_ENV, "%s: \"%s\" is not the absolute path of an executable "
		    "file", file, text);
		free(text);
		text = NULL;
	}
	free(file);
	return text;
}

/* kp-rank-exec: beside the running program (bin/ of the build, or the install's),
 * else in PATH. */
static char *
find_rank_exec(void)
{
	char self[PATH_MAX], *slash, *p;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len > 0) {
		self[len] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			if ((p = kp_path_join(self, "kp-rank-exec")) != NULL &&
			    access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return kp_find_program("kp-rank-exec");
}

static int
resolve_launcher(struct kp_ncu *n, json_t *t, struct kp_err *err)
{
	json_t *l = tget(t, "target", "launcher"), *r = tget(t, "target", "ranks");
	const char *w0;
	char *prog;

	if (json_array_size(l) == 0)
		return 0;
	w0 = json_string_value(json_array_get(l, 0));
	if (w0 == NULL || (prog = kp_find_program(w0)) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "target.launcher: %s: not found or not "
		    "executable", w0 != NULL ? w0 : "(no program)");
	n->launcher = json_deep_copy(l);
	if (prog[0] != '/') {	/* absolute, but not resolved: a venv's python stays one */
		char cwd[PATH_MAX], *abs = getcwd(cwd, sizeof(cwd)) != NULL ?
		    kp_path_join(cwd, prog + (strncmp(prog, "./", 2) == 0 ? 2 : 0)) : NULL;
		if (abs != NULL) {
			free(prog);
			prog = abs;
		}
	}
	json_array_set_new(n->launcher, 0, json_string(prog));
	free(prog);
	n->ranks = json_is_array(r) && json_array_size(r) > 0 ? json_incref(r) :
	    json_pack("[i]", 0);
	if ((n->rank_exec = find_rank_exec()) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "kp-rank-exec: not found beside this program or "
		    "in PATH (target.launcher needs it)");
	return 0;
}

int
kp_ncu_resolve(struct kp_ncu *n, json_t *t, const char *profile_dir, struct kp_err *err)
{
	const char *mode = kp_target_str(t, "privilege", "mode");
	const char *bin = kp_target_str(t, "profiling", "ncu_bin");
	char *found, *sudo, real[PATH_MAX];

	memset(n, 0, sizeof(*n));
	n->sudo = mode != NULL && strcmp(mode, "full_sudo") == 0;
	n->prefix = json_array();
	if (resolve_launcher(n, t, err) < 0)
		return -1;
	if (n->sudo) {
		if ((n->bin = ncu_from_path_file(n, profile_dir, err)) == NULL)
			return -1;
		if ((sudo = kp_find_program("sudo")) == NULL)
			return kp_errf(err, KP_EXIT_ENV, "sudo: not found (privilege.mode is "
			    "full_sudo)");
		json_array_append_new(n->prefix, json_string(sudo));
		json_array_append_new(n->prefix, json_string("-n"));
		json_array_append_new(n->prefix, json_string(n->bin));
		free(sudo);
		return 0;
	}
	if (bin == NULL || *bin == '\0')
		bin = "ncu";
	if ((found = kp_find_program(bin)) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "%s: not found or not executable "
		    "(profiling.ncu_bin, --ncu-bin; the default is ncu in PATH, e.g. "
		    "/usr/local/cuda/bin/ncu)", bin);
	if ((strchr(bin, '/') != NULL || found[0] != '/') && realpath(found, real) != NULL) {
		free(found);
		found = strdup(real);
	}
	if (found == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	n->bin = found;
	json_array_append_new(n->prefix, json_string(found));
	return 0;
}

void
kp_ncu_free(struct kp_ncu *n)
{
	json_decref(n->prefix);
	json_decref(n->launcher);
	json_decref(n->ranks);
	free(n->rank_exec);
	free(n->bin);
	memset(n, 0, sizeof(*n));
}

const char *
kp_ncu_sudo_guide(void)
{
	return
	    "ncu needs access to the GPU performance counters (ERR_NVGPUCTRPERM).\n"
	    "Give it through sudo without a password, for ncu only (kp never asks for,\n"
	    "reads or stores a password):\n"
	    "  1. find ncu:            command -v ncu\n"
	    "  2. resolve the path:    readlink -f \"$(command -v ncu)\"\n"
	    "  3. allow it:            sudo visudo -f /etc/sudoers.d/kernel-profiler-ncu\n"
	    "     with the line:       YOUR_USER ALL=(root) NOPASSWD: /absolute/path/to/ncu\n"
	    "  4. tell kp the path:    readlink -f \"$(command -v ncu)\" > ./profile/ncu_path\n"
	    "  5. check, no password:  sudo -n \"$(cat ./profile/ncu_path)\" --version\n"
	    "                          sudo -n \"$(cat ./profile/ncu_path)\" --list-sets\n"
	    "then set privilege.mode: full_sudo in profile-target.yaml (or pass --sudo).\n";
}

/* ---- running a pass ---- */

/* ncu's words of a pass: with_target 0 leaves out the target's argv (and, with
 * log NULL, --log-file) for kp-rank-exec. */
static json_t *
pass_argv(const struct kp_ncu *n, json_t *t, const struct kp_ncu_pass *p, const char *log,
    int with_target, struct kp_err *err)
{
	if (p->discovery)
		return discovery_argv(t, n->prefix, log, p->max_launches, p->use_filter,
		    with_target, err);
	if (p->stage == KP_STAGE_SOURCE && p->view != NULL)
		return stage_argv(t, KP_STAGE_SOURCE, n->prefix, log, NULL, p->view, with_target,
		    err);
	return stage_argv(t, p->stage, n->prefix, log,
	    p->stage == KP_STAGE_ROOFLINE ? p->roofline : p->extra, wants_ptx(t) ?
	    "cuda,sass,ptx" : "cuda,sass", with_target, err);
}

/*
 * A job a launcher starts: LAUNCHER [--no-python] kp-rank-exec --ranks LIST
 * --log-file DIR/rank%r/NAME -- NCU-WORDS -- TARGET...  Each rank runs
 * kp-rank-exec, which execs ncu (its log file that rank's) on the ranks listed
 * and the target itself on the others.  torchrun starts Python scripts unless
 * told --no-python.
 */
static json_t *
launcher_argv(const struct kp_ncu *n, json_t *t, const struct kp_ncu_pass *p, const char *log,
    struct kp_err *err)
{
	json_t *a, *words;
	char *ranks, *pat;

	if ((words = pass_argv(n, t, p, NULL, 0, err)) == NULL)
		return NULL;
	ranks = kp_ranks_text(n->ranks);
	pat = kp_rank_pattern(log);
	a = json_array();
	if (ranks == NULL || pat == NULL || a == NULL) {
		free(ranks);
		free(pat);
		json_decref(a);
		json_decref(words);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	json_array_extend(a, n->launcher);
	if (kp_launcher_is_torchrun(n->launcher) && !kp_launcher_has(n->launcher, "--no-python"))
		push(a, "--no-python");
	push(a, n->rank_exec);
	push(a, "--ranks");
	push(a, ranks);
	push(a, "--log-file");
	push(a, pat);
	push(a, "--");
	json_array_extend(a, words);
	push(a, "--");
	free(ranks);
	free(pat);
	json_decref(words);
	if (push_target(a, t, err) < 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *
kp_ncu_argv(const struct kp_ncu *n, json_t *t, const struct kp_ncu_pass *p, const char *log,
    struct kp_err *err)
{
	if (p->import != NULL)
		return kp_import_argv(t, n->prefix, p->import, p->page, p->view, log, p->skip,
		    p->count, err);
	if (n->launcher != NULL)
		return launcher_argv(n, t, p, log, err);
	return pass_argv(n, t, p, log, 1, err);
}

int
kp_ncu_has_lineinfo(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (fp == NULL)
		return 0;
	while (!found && getline(&line, &cap, fp) != -1)
		found = strncmp(line, "\"File Path\"", 11) == 0 ||
		    strncmp(line, "\"Line No\"", 9) == 0;	/* a ptx view's table */
	free(line);
	fclose(fp);
	return found;
}

void
kp_ncu_lineinfo_why(const char *path, char *buf, size_t n)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, *w;
	size_t cap = 0;

	snprintf(buf, n, "the page holds no CUDA source table");
	if (fp == NULL)
		return;
	while (getline(&line, &cap, fp) != -1)
		if ((w = strstr(line, "No lineinfo")) != NULL) {
			snprintf(buf, n, "ncu: %.*s", (int)strcspn(w, "\r\n"), w);
			break;
		}
	free(line);
	fclose(fp);
}

/* "DIR/.BASE.PID.tmp" for "DIR/BASE"; malloc'd. */
static char *
temp_beside(const char *path, const char *base)
{
	const char *s = strrchr(path, '/');
	int dn = s != NULL ? (int)(s - path) : 1;
	size_t n = strlen(path) + strlen(base) + 48;
	char *tmp = malloc(n);

	if (tmp != NULL)
		snprintf(tmp, n, "%.*s/.%s.%ld.tmp", dn, s != NULL ? path : ".", base,
		    (long)getpid());
	return tmp;
}

/* The pass, its verdict, its CSV put in place. */
static void
run_and_judge(const struct kp_ncu_pass *p, const struct kp_proc *pr, const char *tmp,
    const char *csv_path, struct kp_ncu_run *r)
{
	struct kp_ncu_verdict *v = &r->v;

	kp_ncu_classify(tmp, pr->out_path, &r->res, v);
	if (v->outcome == KP_OUT_OK && p->import != NULL && p->page != NULL &&
	    (strcmp(p->page, "raw") == 0 || strcmp(p->page, "details") == 0)) {
		/* ncu exits 0 and prints no launch when the filter selects none
		 * of the report's: the no-match of a live pass */
		v->rows = kp_is_file(tmp) ? kp_import_page_rows(tmp) : 0;
		if (v->rows <= 0) {
			v->outcome = KP_OUT_NOMATCH;
			snprintf(v->reason, sizeof(v->reason), "the report holds no launch that "
			    "the filter selects");
			return;
		}
	}
	if (v->outcome == KP_OUT_OK && !kp_is_file(tmp)) {
		v->outcome = KP_OUT_TARGET;
		snprintf(v->reason, sizeof(v->reason), "ncu wrote no output to its log file");
	}
	if (v->outcome == KP_OUT_OK && rename(tmp, csv_path) < 0) {
		r->rename_errno = errno;
		v->outcome = KP_OUT_TARGET;
		snprintf(v->reason, sizeof(v->reason), "cannot rename the stage file");
	}
	if (v->outcome == KP_OUT_OK && !p->discovery && p->stage == KP_STAGE_SOURCE &&
	    (p->import == NULL || (p->page != NULL && strcmp(p->page, "source") == 0)) &&
	    (p->view == NULL || strstr(p->view, "cuda") != NULL))
		v->no_lineinfo = !kp_ncu_has_lineinfo(csv_path);
}

/* from as a new file to (a hard link, else a copy); 0 or -1 with errno set. */
static int
link_or_copy(const char *from, const char *to)
{
	char buf[65536];
	ssize_t got;
	int in, out, e;

	if (link(from, to) == 0)
		return 0;
	if ((in = open(from, O_RDONLY)) < 0)
		return -1;
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0) {
		e = errno;
		close(in);
		errno = e;
		return -1;
	}
	while ((got = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)got) != got) {
			got = -1;
			break;
		}
	e = errno;
	close(in);
	if (close(out) < 0 && got == 0)
		got = -1;
	errno = e;
	return got == 0 ? 0 : -1;
}

/* Rank i's file of a path (csv_path or the temporary). */
static char *
rank_file(const struct kp_ncu *n, size_t i, const char *path)
{
	char *pat = kp_rank_pattern(path), *f;
	struct kp_err e;

	f = pat != NULL ? kp_rank_expand(pat, (long)json_integer_value(json_array_get(n->ranks, i)),
	    &e) : NULL;
	free(pat);
	return f;
}

/* The job's pass: every profiled rank's log judged, put in place, the primary's
 * linked to csv_path. */
static void
judge_ranks(const struct kp_ncu *n, const struct kp_ncu_pass *p, const struct kp_proc *pr,
    const char *tmp, const char *csv_path, struct kp_ncu_run *r)
{
	size_t i, nr = json_array_size(n->ranks);
	struct kp_ncu_verdict v;
	char *rt, *rf;

	for (i = 0; i < nr; i++) {
		long rank = (long)json_integer_value(json_array_get(n->ranks, i));

		rt = rank_file(n, i, tmp);
		kp_ncu_classify(rt, pr->out_path, &r->res, &v);
		if (v.outcome == KP_OUT_OK && (rt == NULL || !kp_is_file(rt))) {
			v.outcome = KP_OUT_TARGET;
			snprintf(v.reason, sizeof(v.reason), "ncu wrote no output to its log file "
			    "(did the launcher start rank %ld?)", rank);
		}
		if (v.outcome != KP_OUT_OK && r->v.outcome == KP_OUT_OK) {
			char why[sizeof(v.reason)];

			snprintf(why, sizeof(why), "%s", v.reason);
			r->v = v;
			r->rank = rank;
			if (strncmp(why, "ncu exited with status", 22) == 0)
				snprintf(r->v.reason, sizeof(r->v.reason), "rank %ld: the job (%s) "
				    "exited with status %d", rank, json_string_value(
				    json_array_get(n->launcher, 0)), r->res.exit_status);
			else
				snprintf(r->v.reason, sizeof(r->v.reason), "rank %ld: %.480s", rank,
				    why);
		} else {
			json_decref(v.kernels);
		}
		free(rt);
	}
	for (i = 0; i < nr && r->v.outcome == KP_OUT_OK; i++) {
		rt = rank_file(n, i, tmp);
		rf = rank_file(n, i, csv_path);
		if (rt == NULL || rf == NULL || rename(rt, rf) < 0) {
			r->rename_errno = rt == NULL || rf == NULL ? ENOMEM : errno;
			r->v.outcome = KP_OUT_TARGET;
			snprintf(r->v.reason, sizeof(r->v.reason), "cannot rename the stage file");
		}
		if (i == 0 && r->v.outcome == KP_OUT_OK) {
			/* the primary rank's file is the profile's own */
			unlink(tmp);
			if (link_or_copy(rf, tmp) < 0 || rename(tmp, csv_path) < 0) {
				r->rename_errno = errno;
				r->v.outcome = KP_OUT_TARGET;
				snprintf(r->v.reason, sizeof(r->v.reason),
				    "cannot put the primary rank's stage file in place");
			}
		}
		free(rt);
		free(rf);
	}
	for (i = 0; i < nr; i++) {	/* what is left of the temporaries */
		if ((rt = rank_file(n, i, tmp)) != NULL)
			unlink(rt);
		free(rt);
	}
	if (r->v.outcome == KP_OUT_OK && !p->discovery && p->stage == KP_STAGE_SOURCE &&
	    (p->view == NULL || strstr(p->view, "cuda") != NULL))
		r->v.no_lineinfo = !kp_ncu_has_lineinfo(csv_path);
}

/* Each profiled rank's folder (DIR/rank<N>/ of csv_path). */
static int
rank_dirs(const struct kp_ncu *n, const char *csv_path, struct kp_err *err)
{
	size_t i;

	for (i = 0; i < json_array_size(n->ranks); i++) {
		char *f = rank_file(n, i, csv_path), *d = f != NULL ? kp_path_dir(f) : NULL;
		int rc = d != NULL ? kp_mkdirs(d, err) : kp_errf(err, KP_EXIT_ENV, "out of memory");

		free(f);
		free(d);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int
kp_ncu_run(const struct kp_ncu *n, json_t *t, const struct kp_ncu_pass *p,
    const char *csv_path, const char *cwd, double timeout_s, struct kp_ncu_run *r,
    struct kp_err *err)
{
	const char *base = strrchr(csv_path, '/') != NULL ? strrchr(csv_path, '/') + 1 : csv_path;
	char *tmp = temp_beside(csv_path, base), *out = temp_beside(csv_path, "ncu-stdout");
	json_t *argv = NULL;
	const char **av = NULL;
	struct kp_proc pr;
	size_t i;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	r->rank = -1;
	if (tmp == NULL || out == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		goto done;
	}
	if (n->launcher != NULL && rank_dirs(n, csv_path, err) < 0)
		goto done;
	if ((r->argv = kp_ncu_argv(n, t, p, csv_path, err)) == NULL ||
	    (argv = kp_ncu_argv(n, t, p, tmp, err)) == NULL)
		goto done;
	if ((av = calloc(json_array_size(argv) + 1, sizeof(*av))) == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		goto done;
	}
	for (i = 0; i < json_array_size(argv); i++)
		av[i] = json_string_value(json_array_get(argv, i));
	memset(&pr, 0, sizeof(pr));
	pr.argv = av;
	pr.cwd = cwd;
	pr.env = json_object_get(json_object_get(t, "target"), "env");
	pr.out_path = out;
	pr.timeout_s = timeout_s;
	if (kp_proc_run(&pr, &r->res, err) < 0)
		goto done;
	if (n->launcher != NULL)
		judge_ranks(n, p, &pr, tmp, csv_path, r);
	else
		run_and_judge(p, &pr, tmp, csv_path, r);
	rc = 0;
done:
	if (tmp != NULL)
		unlink(tmp);
	if (out != NULL)
		unlink(out);
	free(tmp);
	free(out);
	free(av);
	json_decref(argv);
	return rc;
}

void
kp_ncu_run_free(struct kp_ncu_run *r)
{
	json_decref(r->argv);
	json_decref(r->v.kernels);
	memset(r, 0, sizeof(*r));
}

char *
kp_ncu_query(const struct kp_ncu *n, const char *option, const char *tmpdir)
{
	const char *argv[] = { n->bin, option, NULL };

	return kp_proc_capture(argv, tmpdir, 30);
}

void
kp_ncu_version_of(const char *text, char *buf, size_t n)
{
	const char *p = text != NULL ? strstr(text, "Version ") : NULL;

	if (p == NULL) {
		if (n > 0)
			buf[0] = '\0';
		return;
	}
	snprintf(buf, n, "%.*s", (int)strcspn(p + 8, " \n"), p + 8);
}
