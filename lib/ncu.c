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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_proc.h"
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
	push(a, "--log-file");
	push(a, log);
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
    const char *view, struct kp_err *err)
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
	if (push_target(a, t, err) < 0) {
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
	    "cuda,sass", err);
}

json_t *
kp_source_argv(json_t *t, json_t *prefix, const char *log, const char *view,
    struct kp_err *err)
{
	return stage_argv(t, KP_STAGE_SOURCE, prefix, log, NULL, view, err);
}

json_t *
kp_discovery_argv(json_t *t, json_t *prefix, const char *log, long max, int use_filter,
    struct kp_err *err)
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

int
kp_ncu_resolve(struct kp_ncu *n, json_t *t, const char *profile_dir, struct kp_err *err)
{
	const char *mode = kp_target_str(t, "privilege", "mode");
	const char *bin = kp_target_str(t, "profiling", "ncu_bin");
	char *found, *sudo, real[PATH_MAX];

	memset(n, 0, sizeof(*n));
	n->sudo = mode != NULL && strcmp(mode, "full_sudo") == 0;
	n->prefix = json_array();
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

json_t *
kp_ncu_argv(const struct kp_ncu *n, json_t *t, const struct kp_ncu_pass *p, const char *log,
    struct kp_err *err)
{
	if (p->discovery)
		return kp_discovery_argv(t, n->prefix, log, p->max_launches, p->use_filter, err);
	if (p->stage == KP_STAGE_SOURCE && p->view != NULL)
		return kp_source_argv(t, n->prefix, log, p->view, err);
	return kp_stage_argv(t, p->stage, n->prefix, log,
	    p->stage == KP_STAGE_ROOFLINE ? p->roofline : p->extra, err);
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
	    (p->view == NULL || strstr(p->view, "cuda") != NULL))
		v->no_lineinfo = !kp_ncu_has_lineinfo(csv_path);
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
	if (tmp == NULL || out == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		goto done;
	}
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
