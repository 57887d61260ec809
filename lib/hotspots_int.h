/*
 * hotspots_int.h: the sums of one source page, shared by hotspots_agg.c (which
 * builds them) and hotspots_rank.c (which ranks them).  Not part of the
 * library's interface (kp_source.h).
 */
#ifndef KP_HOTSPOTS_INT_H
#define KP_HOTSPOTS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "kp_diag.h"
#include "kp_hotspots.h"
#include "kp_strmap.h"

struct kp_src;
struct kp_evidence;
struct kp_err;
struct kp_hotspot;

/* ---- aggregated data ---- */
struct insn {
	size_t line;		/* index into lines */
	char *addr, *text;	/* addr: 16 bytes readable at least (addr_eq) */
	size_t alen;
	unsigned long long a;
	char op[24];
	double *val;
	size_t copy;		/* the launch copy that last counted it */
};

struct line {
	char *file, *function, *text;
	long line;
	size_t fn;		/* index into fns */
	double *val;
	size_t ninsn;		/* distinct instructions under it */
};

struct fn {
	char *name;
	double *total;
};

struct itab {			/* open addressing: entry index + 1, 0 empty */
	uint64_t *h;		/* the entry's hash */
	uint32_t *ix;
	size_t cap, n;
};

struct fnaddr {
	size_t fn;		/* index into fns */
	const char *addr;	/* an instruction's (struct insn.addr) */
	size_t copy;		/* the launch copy that last counted it */
};

struct prow {			/* a row of the block being read; the room stays */
	int insn;
	long line;
	char *text, *addr;	/* addr: 64 bytes of room at least */
	size_t textcap, addrcap, alen;
	double *val;
};

/*
 * What the rows of a block resolved to when its (file, function) was last
 * merged: row i's line (LAY_LINE set) or instruction index in at[i], and
 * the instruction's function-address index in fa[i] (LAY_NONE: not yet).
 * The next launch copy lists the same rows in the same order, so each is
 * checked against its entry's own key instead of hashed and looked up.
 */
#define LAY_NONE 0xffffffffu
#define LAY_LINE 0x80000000u
struct layout {
	uint32_t *at, *fa;
	size_t cap;
};

struct agg {
	struct kp_src *src;
	struct kp_evidence *ev;	/* NULL, or the page's evidence summed on the way */
	size_t nm;
	struct line *lines;
	size_t nlines, clines;
	struct insn *insns;
	size_t ninsns, cinsns;
	struct fn *fns;
	size_t nfns;
	/*
	 * Lines by (function, file, line), instructions by (line, address), and
	 * a function's addresses by (function, address): hash tables of indices
	 * whose entries hold their own keys (no key strings built a row).
	 */
	struct itab linetab, insntab, fatab;
	struct kp_strmap copykeys;	/* reset per copy */
	struct kp_strmap laykeys;	/* a block's key -> its index in lay */
	struct layout *lay;
	size_t nlay;
	char *key;		/* keyf()'s: copykeys' key of a block */
	size_t ckey;
	struct fnaddr *fa;	/* the functions' addresses */
	size_t nfa, cfa;
	/*
	 * Digests of (file, function, checksum) of the merged blocks, an open
	 * table (0: empty): 8 bytes a block, where a string key was ~150, so a
	 * page of many launch copies stays small.
	 */
	uint64_t *seen;
	size_t nseen, cseen;
	/* the pending block */
	char *bfile, *bfunc;
	struct prow *rows;
	size_t nrows, crows;
	size_t nrowroom;	/* rows[0 .. nrowroom-1] have room of their own */
	uint64_t sum;
	int open;
	size_t copies, duplicates;
	char *firstkey;		/* keyf() of the first block merged */
	size_t orphans;		/* instruction rows before any line, left out */
};

/* The entries of g by their keys, made when new (hotspots_agg.c): 0, or -1
 * out of memory.  addr: 16 bytes readable at least. */
int hs_fn_get(struct agg *g, const char *name, size_t *out);
int hs_line_get(struct agg *g, const char *file, size_t fi, long ln, const char *text,
    size_t *out);
int hs_insn_get(struct agg *g, size_t li, const char *addr, size_t alen, const char *text,
    size_t *out);
/* A block digest among g's: put 1 it was there, 0 added, -1 out of memory; has 1 or 0. */
int hs_seen_put(struct agg *g, uint64_t d);
int hs_seen_has(const struct agg *g, uint64_t d);
/* dst[i] += v[i], NaN standing for none (as the merge adds). */
void hs_vadd(double *dst, const double *v, size_t n);
/* Read the whole page of g->src (opened by the caller, g->nm set) into g. */
int hs_agg_read(struct agg *g, struct kp_err *err);
/* Free what g holds and close g->src. */
void hs_agg_free(struct agg *g);
/* hotspots.c: free the strings of one row (not the row). */
void hs_row_free(struct kp_hotspot *r);
/* Make room for element n of *p (capacity *cap, elements of sz bytes). */
int hs_grow(void **p, size_t *cap, size_t n, size_t sz);

#endif
