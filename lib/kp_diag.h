/*
 * kp_diag.h: errors and diagnostics (lib/diag.c), and the command contract.
 *
 * Library code never prints and never exits: a function that can fail takes a
 * struct kp_err *, fills it (message and exit status) and returns -1 or NULL.
 * Only programs (cmd/) print diagnostics and choose to exit.
 */
#ifndef KP_DIAG_H
#define KP_DIAG_H

#include <stdarg.h>
#include <stddef.h>

/* Exit statuses shared by every kp program (documented in kp(7)). */
enum kp_exit {
	KP_EXIT_OK = 0,
	KP_EXIT_VERDICT = 1,	/* negative verdict: kp-compare found a regression */
	KP_EXIT_USAGE = 2,
	KP_EXIT_DATA = 3,	/* bad input data */
	KP_EXIT_ENV = 4,	/* missing dependency or environment */
	KP_EXIT_NOMATCH = 5,	/* the kernel filter matched no kernel */
	KP_EXIT_PRIV = 6,	/* the profiler needs privileges */
	KP_EXIT_TARGET = 7,	/* the target program or the profiler failed */
	KP_EXIT_NOSOURCE = 8,	/* a source page without a table: no lineinfo */
	KP_EXIT_INTR = 130	/* interrupted */
};

/* An error as the library reports it: a message and the exit status it calls for. */
struct kp_err {
	int status;
	char msg[1024];
};

/* ---- diag.c: errors and diagnostics ---- */
int kp_errf(struct kp_err *err, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));	/* fills err, returns -1 */
int kp_errno(struct kp_err *err, int status, const char *what);	/* "what: strerror" */
void kp_setprogname(const char *argv0);
const char *kp_progname(void);
void kp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kp_vwarn(const char *fmt, va_list ap);
_Noreturn void kp_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void kp_die_err(const struct kp_err *err);	/* print err, exit err->status */
char *kp_xstrdup(const char *s);	/* strdup or exit 4: for programs only */
/* Close stdout and report a failed write; returns 0 or -1 (programs exit 3... see kp(7)). */
int kp_close_stdout(void);
/* Print "--version" text for a program: "kp-name (kp) VERSION". */
void kp_print_version(void);
/* The command contract (programs only): kp_init records the program name and
 * its usage text (the man page's SYNOPSIS, "usage: ..."); kp_usage(0) prints
 * it to stdout and exits through kp_exit, kp_usage(2) to stderr and exits 2;
 * kp_version prints --version; kp_exit closes stdout and exits 4 (a message
 * said) when a write to it failed, else with status. */
void kp_init(const char *argv0, const char *usage_text);
_Noreturn void kp_usage(int status);
_Noreturn void kp_version(void);
_Noreturn void kp_exit(int status);
/* getopt_long() that answers -h, --help, --version and a bad option itself
 * (kp_usage, kp_version); longopts start with KP_OPTS_COMMON. */
#define KP_OPT_VERSION 0x10000
#define KP_OPTS_COMMON \
	{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, KP_OPT_VERSION }
struct option;
int kp_getopt(int argc, char *const argv[], const char *optstring,
    const struct option *longopts);
/* Checked integer conversion with bounds; -1 and err on failure. */
int kp_strtonum(const char *s, long long min, long long max, long long *out,
    struct kp_err *err);

#endif
