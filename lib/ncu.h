/* ncu.h: The only place that builds and runs ncu command lines:
 * which ncu (and whether through `sudo -n`), the argv of every pass (stages,
 * discovery, the source page), one pass run to its CSV, and what ncu's output
 * means.  Owner: lib/ncu.c.  Needs kp.h (struct kp_err) and enum kp_stage. */
#ifndef KP_NCU_H
#define KP_NCU_H

#include <stddef.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_proc.h"
#include "profile.h"

struct kp_proc_result;

/* ---- which ncu ---- */

struct kp_ncu {
	json_t *prefix;		/* ["/abs/ncu"] or ["/abs/sudo", "-n", "/abs/ncu"] */
	char *bin;		/* the ncu binary itself */
	int sudo;		/* privilege.mode is full_sudo */
	int want_guide;		/* a failed resolve the sudo set-up guide explains */
	/* target.launcher set: the job's launcher (its program made absolute),
	 * kp-rank-exec, and the ranks to profile (the first is the primary);
	 * launcher NULL otherwise */
	json_t *launcher;
	char *rank_exec;
	json_t *ranks;
};

/*
 * From the target tree: privilege.mode full_sudo takes the single line of
 * <the folder above profile_dir>/ncu_path (an absolute path of an executable)
 * and runs it as `sudo -n PATH` (never a password: stdin is /dev/null);
 * otherwise profiling.ncu_bin, default "ncu" in PATH, made absolute.
 * With target.launcher: the launcher's program in PATH and kp-rank-exec (the
 * one beside the running program, else in PATH), both made absolute.
 * Returns 0, or -1 + err (n->want_guide set when ncu_path could not be read).
 */
int kp_ncu_resolve(struct kp_ncu *n, json_t *target, const char *profile_dir,
    struct kp_err *err);
void kp_ncu_free(struct kp_ncu *n);
/* The steps that give ncu the counters through sudo NOPASSWD: lines for stderr,
 * the first to follow "PROGRAM: ". */
const char *kp_ncu_sudo_guide(void);

/* ---- argv of the passes ---- */

/* The roofline sections to ask for: those of the fallback list that appear in
 * the text of `ncu --list-sections` (all of them when text is NULL). JSON array. */
json_t *kp_roofline_sections(const char *list_sections_text);

/*
 * The ncu argv of one stage (a JSON array of strings), from the target tree:
 * prefix, --csv --page raw|source, --log-file LOG, --target-processes all for
 * python runtimes, --kernel-name-base demangled and the filter,
 * --launch-skip/--launch-count, --clock-control, the stage selection, the extra
 * options, then the target argv.  roofline: the sections for the roofline
 * stage (NULL: the fallback list); for any other stage, sections added after
 * its own selection (NULL: none).  The source stage prints the target's view
 * (cuda,sass or cuda,sass,ptx).
 */
json_t *kp_stage_argv(json_t *target, enum kp_stage s, json_t *prefix, const char *log,
    json_t *roofline, struct kp_err *err);
/* The source page with --print-source VIEW ("cuda,sass", "sass", ...). */
json_t *kp_source_argv(json_t *target, json_t *prefix, const char *log, const char *view,
    struct kp_err *err);
/* The discovery argv: --metrics ... --csv --page raw -c MAX (filter only when asked). */
json_t *kp_discovery_argv(json_t *target, json_t *prefix, const char *log, long max_launches,
    int use_filter, struct kp_err *err);

/*
 * An existing report read back, no target run, no GPU: prefix, --import
 * REPORT, --csv, --page PAGE (raw, details, source, session), --log-file LOG,
 * the target's kernel filter (not for the session page; nvtx-range is refused:
 * KP_EXIT_USAGE), --launch-skip/--launch-count only when skip/count >= 0 (the
 * target's own launch window described the live run, not the report), and
 * for the source page --print-source VIEW.  page NULL: --print-summary
 * per-kernel (every kernel the report holds, no filter).
 */
json_t *kp_import_argv(json_t *target, json_t *prefix, const char *report, const char *page,
    const char *view, const char *log, long long skip, long long count, struct kp_err *err);

/* ---- what ncu said ---- */

enum kp_outcome {
	KP_OUT_OK,
	KP_OUT_NOMATCH,		/* "No kernels were profiled" */
	KP_OUT_NOPERM,		/* ERR_NVGPUCTRPERM, or sudo -n wanting a password */
	KP_OUT_TARGET,		/* ==ERROR== from ncu, a non-zero status, a signal, a timeout */
	KP_OUT_MISSING,		/* the profiler (or sudo) could not be executed */
	KP_OUT_INTR
};
struct kp_ncu_verdict {
	enum kp_outcome outcome;
	char reason[512];	/* the deciding line or a short text */
	char tail[512];		/* the workload's last line of output, if any */
	json_t *kernels;	/* NOMATCH: the kernel names ncu listed (array, new ref) */
	int no_lineinfo;	/* a source page asked for CUDA lines holds none */
	long rows;		/* import raw/details page: its launch rows */
};
/* Read ncu's log file and the captured stdout/stderr (either may be NULL or
 * absent) line by line; the caller json_decref()s v->kernels. */
void kp_ncu_classify(const char *log_path, const char *out_path,
    const struct kp_proc_result *r, struct kp_ncu_verdict *v);
/* 1 when a source-page CSV has source lines ("File Path" records, or the "Line
 * No" header of a ptx view), else 0. */
int kp_ncu_has_lineinfo(const char *source_csv);
/* Why a source page has no CUDA lines, into buf: ncu's "No lineinfo ..." warning
 * as "ncu: No lineinfo ...", else "the page holds no CUDA source table". */
void kp_ncu_lineinfo_why(const char *source_csv, char *buf, size_t n);
const char *kp_outcome_status(enum kp_outcome o);	/* manifest status word */
int kp_outcome_exit(enum kp_outcome o);

/* ---- running a pass ---- */

/* One pass: a stage (view for the source page: NULL is the target's), or the
 * discovery pass. */
struct kp_ncu_pass {
	enum kp_stage stage;
	const char *view;	/* KP_STAGE_SOURCE: --print-source view, NULL: the target's */
	json_t *roofline;	/* KP_STAGE_ROOFLINE: sections, NULL: the fallback list */
	json_t *extra;		/* other stages: sections added to the stage's selection */
	int discovery;		/* the discovery pass instead of a stage */
	long max_launches;	/* discovery */
	int use_filter;		/* discovery */
	const char *import;	/* a report: ncu --import it (kp_import_argv) */
	const char *page;	/* import: the page; NULL the per-kernel summary */
	long long skip, count;	/* import: the launch window, -1 none */
};
/* The argv of a pass, logging to log. */
json_t *kp_ncu_argv(const struct kp_ncu *n, json_t *target, const struct kp_ncu_pass *p,
    const char *log, struct kp_err *err);

struct kp_ncu_run {
	json_t *argv;		/* as shown: --log-file the final CSV (new ref) */
	struct kp_proc_result res;
	struct kp_ncu_verdict v;	/* caller json_decref()s v.kernels */
	int rename_errno;	/* OK from ncu, but the CSV could not be put in place */
	long rank;		/* with a launcher: the rank the verdict is about, else -1 */
};

/*
 * Run one pass in cwd with the target's env, bounded by timeout_s (0: none):
 * ncu logs to a temporary file next to csv_path, which becomes csv_path when
 * the verdict is OK (no output at all is a TARGET verdict).  Returns 0 when ncu
 * ran (the verdict says how it went), -1 + err when it could not be started.
 * With a launcher (n->launcher) the pass is the whole job: each profiled rank N
 * logs to a temporary file in DIR/rank<N>/ (kp_rank_dir), the verdict is the
 * first rank's that is not OK, and when all are OK each becomes
 * DIR/rank<N>/NAME and the primary rank's file is linked (else copied) to
 * csv_path itself.
 */
int kp_ncu_run(const struct kp_ncu *n, json_t *target, const struct kp_ncu_pass *p,
    const char *csv_path, const char *cwd, double timeout_s, struct kp_ncu_run *r,
    struct kp_err *err);
void kp_ncu_run_free(struct kp_ncu_run *r);

/* `ncu OPTION` (no sudo), e.g. --version or --list-sections; its output
 * (malloc'd) or NULL.  tmpdir holds the capture for a moment. */
char *kp_ncu_query(const struct kp_ncu *n, const char *option, const char *tmpdir);
/* The version word of `ncu --version` output into buf ("" when absent). */
void kp_ncu_version_of(const char *text, char *buf, size_t n);

#endif
