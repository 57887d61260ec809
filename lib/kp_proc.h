/* kp_proc.h: one child process the careful way, and kp's signals (lib/proc.c). */
#ifndef KP_PROC_H
#define KP_PROC_H

#include <jansson.h>

#include "kp_diag.h"

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

#endif
