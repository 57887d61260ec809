/* kp_atomic.h: output files written one way, and file helpers (lib/atomic.c). */
#ifndef KP_ATOMIC_H
#define KP_ATOMIC_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "kp_diag.h"

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

#endif
