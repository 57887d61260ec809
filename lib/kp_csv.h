/* kp_csv.h: the streaming reader of the CSV ncu prints (lib/csv.c). */
#ifndef KP_CSV_H
#define KP_CSV_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kp_diag.h"

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
/*
 * A reader of what rd gives instead of a stream: rd(arg, buf, n) puts up to
 * n bytes in buf and returns how many, 0 at the end, -1 and errno on an
 * error; the bytes go straight into the reader's buffer (a stream's pass
 * through its own).  NULL out of memory.
 */
typedef long kp_csv_read_fn(void *arg, char *buf, size_t n);
struct kp_csv *kp_csv_open_read(kp_csv_read_fn *rd, void *arg, const char *name);
/*
 * Lazy records, for a reader that needs a few fields of most rows: with
 * kp_csv_lazy(c, 1) (-1 out of memory), a record in the form ncu prints is
 * checked but not split; kp_csv_nfields() is its count, and kp_csv_field()
 * is NULL for a field until kp_csv_pick() (indices ascending) or
 * kp_csv_fill() (all of them) has set it.  Any other record is split whole
 * as before.  The fields are the same bytes either way.
 */
int kp_csv_lazy(struct kp_csv *c, int on);
void kp_csv_pick(struct kp_csv *c, const size_t *idx, size_t n);
void kp_csv_fill(struct kp_csv *c);
/*
 * The fields (ascending) that the caller will pick from most records: where
 * a reader thread scans ahead, it finds their starts and ends too, so that
 * kp_csv_pick() takes them without a walk.  Once per reader (later calls do
 * nothing); the picks are the same bytes either way.  -1 out of memory (the
 * reader goes on as before).
 */
int kp_csv_want(struct kp_csv *c, const size_t *idx, size_t n);
size_t kp_csv_want_hits(const struct kp_csv *c);	/* picks that took them, for tests */
/*
 * A pending (lazy, not yet filled) record's bytes up to its newline, NULL for
 * any other: every field quoted, "," between them, no quote and no NUL
 * inside one, a CR inside the last quotes or after them; a field set by
 * kp_csv_pick() has a NUL for its closing quote (its only NULs).  Valid
 * until the next kp_csv_next().
 */
const char *kp_csv_raw(const struct kp_csv *c, size_t *len);
/*
 * A pending record's fields from the first-th on, copied into dst one after
 * another, each followed by a '"' (the form has none inside a field): the
 * bytes kp_csv_fill() would give them, without a CR of the line ending.
 * dst has room for kp_csv_raw()'s length and 16 bytes more.  The bytes
 * written, or SIZE_MAX when the record is not pending.
 */
size_t kp_csv_fields_copy(const struct kp_csv *c, size_t first, char *dst);
size_t kp_csv_fields_len(const struct kp_csv *c, size_t first);	/* what it would write */

/*
 * s as one quoted CSV cell on fp, each '"' in it doubled (the form ncu writes
 * and the readers here take); 0, or -1 on a write error.  Inline: a merge
 * writes every cell of every launch through it.  Spans go out whole and the
 * quotes one byte unlocked, where a locked putc a byte was three quarters of
 * the merge's time.
 */
static inline int
kp_csv_put_quoted(FILE *fp, const char *s)
{
	const char *q;
	size_t n;

	if (putc_unlocked('"', fp) == EOF)
		return -1;
	while ((q = strchr(s, '"')) != NULL) {
		n = (size_t)(q - s) + 1;	/* through the quote, then its twin */
		if (fwrite(s, 1, n, fp) != n || putc_unlocked('"', fp) == EOF)
			return -1;
		s = q + 1;
	}
	if (fputs(s, fp) == EOF || putc_unlocked('"', fp) == EOF)
		return -1;
	return 0;
}

/*
 * The instructions of the record scan: "avx512", "avx2" or "sse2", the widest
 * the CPU has ("none" where this build has no fast form), for the readers
 * opened afterwards.  want NULL: the name only; "": the widest again; a name:
 * that set from now on, NULL (nothing changed) when the build or the CPU
 * lacks it.  For tests and benchmarks: each set must read the same bytes.
 */
const char *kp_csv_isa(const char *want);
/*
 * A big regular file is read on a second thread (KP_CSV_READAHEAD=0: never,
 * =1: any regular file).  kp_csv_readahead(n), for tests: readers opened
 * afterwards use one with chunks of n bytes for any regular file; 0 goes
 * back to the default.
 */
void kp_csv_readahead(size_t chunk);

#endif
