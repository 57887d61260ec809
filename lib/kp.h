/*
 * kp.h - the one public header of libkp, the library shared by the kp tools.
 *
 * Library code never prints and never exits: a function that can fail takes a
 * struct kp_err *, fills it (message and exit status) and returns -1 or NULL.
 * Only programs (cmd/) print diagnostics and choose to exit.
 */
#ifndef KP_H
#define KP_H

#include <sys/types.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

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

/* ---- atomic.c: every output file, one way ----
 * A regular file or a new path: a temporary beside it, renamed over it on commit
 * (whole or not at all).  An output the user named (KP_OUT_NAMED): a symbolic
 * link is followed, its target replaced; a device, FIFO or socket is opened and
 * written in place (tmp NULL).  A name kp derives in its own folder
 * (KP_OUT_DERIVED, the kp_atomic_* and kp_write_* functions): whatever stands
 * there, a planted link included, is replaced. */
enum { KP_OUT_DERIVED, KP_OUT_NAMED };
struct kp_atomic {
	char *path;	/* the name asked for (messages) */
	char *real;	/* what gets replaced: path with its links followed */
	char *tmp;	/* temporary name beside real; NULL when written in place */
	FILE *fp;
};
/* Where an output path really goes: *real (malloc'd) is path with symbolic links
 * followed and *direct is 1 for a device, FIFO or socket (KP_OUT_NAMED; for
 * KP_OUT_DERIVED *real is path and *direct 0); *mode, when not NULL, is the
 * permission bits an existing regular file has (0644 for a new one).  A folder is
 * an error. */
/* Temporaries removed on SIGINT, SIGTERM or SIGHUP, then exit 128+n: the
 * handler kp_init() installs; kp_out_open() registers its own. */
void kp_tmp_clean_on_signals(void);
void kp_tmp_register(const char *path);
void kp_tmp_forget(const char *path);
int kp_out_resolve(const char *path, int how, char **real, int *direct, mode_t *mode,
    struct kp_err *err);
int kp_out_open(struct kp_atomic *a, const char *path, int how, struct kp_err *err);
int kp_out_write(const char *path, const char *data, size_t len, int how, struct kp_err *err);
int kp_out_json(const char *path, json_t *j, size_t flags, int how, struct kp_err *err);
int kp_atomic_open(struct kp_atomic *a, const char *path, struct kp_err *err);	/* KP_OUT_DERIVED */
int kp_atomic_commit(struct kp_atomic *a, struct kp_err *err);	/* flush, close, rename */
void kp_atomic_abort(struct kp_atomic *a);	/* close, unlink the temporary; no-op when zeroed or committed */
/* json_dumps(j, flags) and a newline into the open temporary file. */
int kp_atomic_put_json(struct kp_atomic *a, json_t *j, size_t flags, struct kp_err *err);
int kp_write_file_atomic(const char *path, const char *data, size_t len, struct kp_err *err);
int kp_write_json_atomic(const char *path, json_t *j, size_t flags, struct kp_err *err);
int kp_mkdirs(const char *path, struct kp_err *err);	/* mkdir -p */
char *kp_path_join(const char *a, const char *b);	/* malloc'd "a/b" */
int kp_is_dir(const char *path);
int kp_is_file(const char *path);
/* Read a whole (small) file; NUL-terminated; *len may be NULL. */
char *kp_read_file(const char *path, size_t *len, struct kp_err *err);
/* Find an installed data file (e.g. "rules/bottleneck_rules.yaml") relative to the
 * program's own location: <bindir>/../share/kp/REL, then <bindir>/../references/REL,
 * then KP_DATADIR/REL.  Returns a malloc'd path or NULL with err. */
char *kp_datafile(const char *rel, struct kp_err *err);

/* ---- arena.c: pieces of memory freed all at once ---- */

struct kp_arena {
	void *chunk;		/* the newest chunk; each links to the one before */
	size_t used, next_size;
};				/* zeroed: empty */

/* n bytes, 16-aligned, or NULL (out of memory, or n too big for a chunk). */
void *kp_arena_alloc(struct kp_arena *a, size_t n);
void kp_arena_free(struct kp_arena *a);
/* n zeroed bytes mapped and faulted in at once (NULL when mmap fails), and back. */
void *kp_populated(size_t n);
void kp_populated_free(void *p, size_t n);

/* ---- utf8.c ---- */

/* The offset of the first byte of str that is not well-formed UTF-8, or len. */
size_t kp_utf8_check(const char *str, size_t len);
/*
 * A command whose arguments become text (YAML, JSON, a command line kp runs):
 * the first of argv[1..argc) that is not UTF-8, named by its option (or as word N
 * after "--args"/"--"), is a usage error; dropping it would run another command.
 * skip: NULL-terminated options whose values are only file names to read.
 */
int kp_args_text(int argc, char **argv, const char *const *skip, struct kp_err *err);

/* ---- csv.c: streaming reader for the CSV that ncu prints ---- */
/*
 * One record at a time, RFC 4180 quoting, memory bounded by the longest record.
 * Lines that are not CSV records (==PROF==, ==WARNING==, ==ERROR== and the
 * workload's own stdout) are skipped and counted: a record must begin with '"'.
 */
struct kp_csv;
struct kp_field {
	const char *s;	/* NUL-terminated, unquoted */
	size_t len;
};
struct kp_csv *kp_csv_open(FILE *fp, const char *name);	/* does not own fp */
struct kp_csv *kp_csv_open_path(const char *path, struct kp_err *err);	/* owns its fp */
/* 1: a record; 0: end of input; -1: error (truncated record, read error). */
int kp_csv_next(struct kp_csv *c, struct kp_err *err);
size_t kp_csv_nfields(const struct kp_csv *c);
const struct kp_field *kp_csv_field(const struct kp_csv *c, size_t i);	/* NULL past end */
unsigned long kp_csv_line(const struct kp_csv *c);	/* line where the record began */
unsigned long kp_csv_noise_lines(const struct kp_csv *c);
const char *kp_csv_name(const struct kp_csv *c);
/* Noise lines that were ==ERROR== / ==WARNING== lines, for callers that care. */
const char *kp_csv_last_error_line(const struct kp_csv *c);
void kp_csv_close(struct kp_csv *c);

/* ---- number.c: numbers as ncu prints them ---- */
enum kp_num { KP_NUM_OK = 0, KP_NUM_MISSING = 1, KP_NUM_BAD = -1 };
/* "1,918,432", "89.46", "-", "n/a", "" (missing), "inf", "nan"... */
enum kp_num kp_parse_number(const char *s, size_t len, double *out);
/* m x 10^-k correctly rounded (as strtod gives it): 0, or -1 when it cannot
 * be done without big numbers (then use strtod). */
int kp_decimal_exact(unsigned long long m, unsigned k, double *out);
/* [-]digits with thousands commas and one point, up to 2^64 - 1 digits in all:
 * the value strtod gives; 0, or -1 when it is not that form or too wide. */
int kp_parse_decimal_wide(const char *s, size_t len, double *out);
/* "(16, 16, 1)" -> 3 ints; 0 ok, -1 not a triple */
int kp_parse_dim3(const char *s, long v[3]);
double kp_median(double *v, size_t n);	/* sorts v in place; n > 0 */

/* ---- units.c: ncu unit strings to base units ---- */
/*
 * Base units: time in ns; bytes; rates per second (byte/s, sector/s, ...);
 * frequency in hz; % and counts as they are.  An unknown unit keeps scale 1 and
 * known == 0, so the caller reports it instead of scaling silently.
 */
struct kp_unit {
	double scale;		/* value_in_base = value * scale */
	char base[48];		/* base unit string, e.g. "ns", "byte/s" */
	int known;
};
void kp_unit_parse(const char *unit, struct kp_unit *u);

/* ---- jsonl.c: pipeline records ---- */
struct kp_jsonl;
struct kp_jsonl *kp_jsonl_open(FILE *fp, const char *name);
/* 1: *out holds a new reference; 0: end; -1: error naming name:line. Blank lines skipped. */
int kp_jsonl_next(struct kp_jsonl *r, json_t **out, struct kp_err *err);
unsigned long kp_jsonl_line(const struct kp_jsonl *r);
void kp_jsonl_close(struct kp_jsonl *r);
/* One compact, key-sorted object and a newline; -1 on a failed write. */
int kp_jsonl_write(FILE *fp, json_t *obj, struct kp_err *err);
/* A pipeline record: rec (its reference taken; NULL: out of memory) with
 * "profile_dir" set when profile_dir is not NULL, written by kp_jsonl_write. */
int kp_jsonl_put(FILE *fp, json_t *rec, const char *profile_dir, struct kp_err *err);
/* The "profile_dir" string of a record, or NULL. */
const char *kp_record_profile_dir(json_t *rec);
/* Read the first record with a profile_dir from stdin-like fp; malloc'd dir or NULL+err. */
char *kp_jsonl_first_profile_dir(FILE *fp, const char *name, struct kp_err *err);
json_t *kp_json_load_file(const char *path, struct kp_err *err);	/* path:line:col errors */

/* ---- yaml.c: libfyaml helpers ---- */
struct fy_document;
struct fy_node;
/* Parse a file; errors become "path:line:col: message" with KP_EXIT_DATA. */
struct fy_document *kp_yaml_load(const char *path, struct kp_err *err);
struct fy_document *kp_yaml_load_string(const char *text, size_t len, const char *name,
    struct kp_err *err);
/* Look-ups by path ("/kernel/name"); NULL when absent. */
struct fy_node *kp_yaml_node(struct fy_document *d, const char *path);
/* Scalar copy (malloc'd, NUL-terminated) or NULL when absent or not a scalar. */
char *kp_yaml_str(struct fy_document *d, const char *path);
int kp_yaml_line(struct fy_node *n);	/* 1-based line of a node, 0 if unknown */
/* Write a document atomically as block YAML. */
int kp_yaml_write_atomic(struct fy_document *d, const char *path, struct kp_err *err);
int kp_yaml_write_out(struct fy_document *d, const char *path, int how, struct kp_err *err);
/* Convert between YAML and jansson trees (scalars typed by YAML 1.2 core rules). */
json_t *kp_yaml_to_json(struct fy_node *n);
struct fy_document *kp_json_to_yaml(json_t *j, struct kp_err *err);

/* ---- modules of the programs (each header owned by its module) ---- */
#include "kp_metrics.h"
#include "kp_target.h"
#include "kp_source.h"
#include "kp_rules.h"
#include "kp_specs.h"
#include "kp_collect.h"
#include "kp_compare.h"
#include "kp_report.h"
#include "kp_plot.h"

#endif /* KP_H */
