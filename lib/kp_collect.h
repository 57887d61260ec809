/* kp_collect.h: see kp.h.  kp-collect and kp-discover: running ncu, its stages,
 * what its output means, the run record, the discovery ranking.
 * Owner: the collect module (lib/collect.c, lib/proc.c, lib/discover.c); the
 * ncu command lines and their verdicts: lib/ncu.c (ncu.h). */
#ifndef KP_COLLECT_H
#define KP_COLLECT_H

/* ---- proc.c: one child, its own process group, bounded in time ---- */

struct kp_proc {
	const char *const *argv;	/* NULL-terminated; argv[0] searched in PATH */
	const char *cwd;		/* NULL: ours */
	json_t *env;			/* object of strings added to ours, or NULL */
	const char *out_path;		/* child's stdout and stderr, or NULL: /dev/null */
	double timeout_s;		/* 0: none */
};

struct kp_proc_result {
	int exited;		/* 1: exit_status is valid */
	int exit_status;
	int signal;		/* the signal that ended it, or 0 */
	int timed_out;		/* killed (whole group) after timeout_s */
	int interrupted;	/* killed (whole group) after SIGINT/SIGTERM to us */
	int exec_errno;		/* the child could not start: errno of chdir/exec */
	double duration_s;
};

/*
 * Run one child: stdin /dev/null (never a terminal), stdout and stderr to
 * out_path, in its own process group.  On timeout or interruption the whole
 * group gets SIGTERM, then SIGKILL after a grace period; after the child ends
 * any process left in its group is killed.  Returns 0 when the child ran
 * (whatever its status), -1 with err when it could not be started at all
 * (fork, pipe, open failed).
 */
int kp_proc_run(const struct kp_proc *p, struct kp_proc_result *r, struct kp_err *err);
/* handler for SIGINT, SIGTERM and SIGHUP; an ignored one stays ignored (nohup,
 * a shell's background job started with SIGINT ignored). */
void kp_catch_signals(void (*handler)(int));
/* Catch SIGINT, SIGTERM and SIGHUP: they end the running child and set the flag. */
void kp_proc_catch_signals(void);
int kp_proc_interrupted(void);
int kp_proc_signal(void);	/* the signal caught (SIGINT, SIGTERM, SIGHUP), 0 none */
/* An executable regular file by that name (with a '/'), or found in PATH; malloc'd. */
char *kp_find_program(const char *name);
/* Run a small helper command (stdout and stderr via tmpdir/.kp-helper.out);
 * its output (malloc'd) when it exited 0, else NULL. */
char *kp_proc_capture(const char *const *argv, const char *tmpdir, double timeout_s);

#include "profile.h"
#include "ncu.h"

/* ---- collect.c: the record of a run ---- */

/* Write YAML of a JSON tree (run_manifest.yaml) atomically. */
int kp_manifest_write(json_t *manifest, const char *path, struct kp_err *err);

/*
 * commands.sh: "#!/bin/sh", a comment, then for each run: cd to its working
 * directory and its argv, every word shell-quoted, env as VAR=value words.
 * runs: array of {argv, cwd, env, output}.  Written atomically.
 */
int kp_commands_write(json_t *runs, const char *path, struct kp_err *err);
char *kp_commands_text(json_t *runs, struct kp_err *err);	/* malloc'd */

/*
 * details/metrics_raw.csv: the raw-page stage files merged, one row per launch.
 * A launch is keyed by kernel name and its order among that kernel's rows in a
 * stage file (the k-th profiled launch of a kernel is the same launch in every
 * stage of one run: same filter, same skip).  Columns: the union of the stages'
 * columns in first-seen order, then "Launch" and "Stages"; a value comes from
 * the first stage (in the given order) that has the column.  Units row kept.
 */
int kp_merge_raw(const char *const *paths, const char *const *stages, size_t n,
    const char *out, struct kp_err *err);

/* ---- discover.c: ranking kernels from a discovery raw CSV ---- */

/*
 * Read a raw-page CSV (gpu__time_duration.sum, launch__grid_size,
 * launch__block_size, launch__registers_per_thread; any subset) and return the
 * kernel_candidates.json object (schema kp-kernel-candidates/1): one entry per
 * distinct kernel name, ranked by hint match (hint: a case-insensitive
 * substring of the name, or NULL), then total duration, then launches.
 */
json_t *kp_discover_file(const char *path, const char *hint, struct kp_err *err);

#endif
