/*
 * metrics_int.h: what the modules of kp-extract's engine share (metrics.c drives
 * them; see its comment for the design).  Not part of the library's interface
 * (kp_metrics.h).  Each module depends on the ones below it in this file's
 * order of sections: sample, jsonw, cells, kernels, launch, the pages,
 * summary_write.
 */
#ifndef KP_METRICS_INT_H
#define KP_METRICS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "idset.h"
#include "kp_arena.h"
#include "kp_diag.h"
#include "kp_varint.h"

struct kp_err;
struct kp_csv;

/*
 * A kernel's sample: at most MX_KEEP whole launches (reservoir, Algorithm R
 * with a fixed seed), fewer when all kernels' samples would take more than
 * MX_BUDGET bytes (x->keep, the same for every kernel: a new kernel or new
 * metrics lower it and the samples drop launches at random down to it).  So
 * memory does not grow with the number of launches, nor with the number of
 * kernels past MX_BUDGET.  Counts, min, max and sums stay exact (struct acc).
 */
#define MX_KEEP 64
#define MX_BUDGET ((size_t)4 << 20)
/* the arena's share of the blocks (a record kept as text is about twice its cells) */
#define MX_ARENA (MX_BUDGET + MX_BUDGET / 2)
/*
 * The blocks that hold a record's text (rawpage.c defers the parse of a kept
 * launch) take at most this many bytes in all, or MX_BUDGET while it does
 * not bind the samples (mx_text_cap); past it a kept launch is
 * parsed at once.  A record's text is four times its packed cells, and with
 * many kernels each keeps one launch to the end: text for all of them would
 * be most of the memory.
 */
#define MX_TEXT ((size_t)256 << 10)
/*
 * A file of this many bytes or more has most often more launches of a
 * kernel than its sample keeps: those that fill a sample wait as text too.
 */
#define MX_BIG_FILE ((long long)8 << 20)
/* The summary lists at most this many launch IDs per kernel. */
#define KP_IDS_LISTED 1024
#define CLI_SECTION "Command line profiler metrics"

struct acc {			/* a summary key over all launches: exact */
	uint64_t seen;
	double min, max, sum;
};

/*
 * A metric of the extraction: one table for every kernel and file (a metric
 * is the same column of every kernel), its id the cell index of every
 * kept launch.  unit is the first seen; a kernel that saw the metric first
 * with another unit keeps that one (struct kernel.uover).
 */
struct metric {
	char *name;
	char *unit;		/* base unit, or the unknown unit as printed */
	uint64_t hash;		/* of name: kept for the table's growth and probes */
	char *jline;		/* ",\n        " "name": ", once (summary_write.c) */
	char *junit;		/* unit as a JSON string, once (summary_write.c) */
	uint32_t jlinelen, junitlen;
	signed char key;	/* kp_key_metric(name) + 1, once; 0 not yet asked */
};

struct uover {			/* kernel's own unit of a metric */
	uint32_t id;
	char *unit;
};

/*
 * A metric's value in a kept launch, in 32 bits: CELL_ABSENT; a decimal
 * number as printed in base units (bit 30 sign, bits 26-29 the digits after
 * the point, bits 0-25 all the digits), decoded by the same exact division
 * the parser does; or CELL_ESC | i, the i-th double of the block (any other
 * number, already scaled).  Most ncu values fit the decimal form, so a launch
 * of 2,238 metrics is ~10 KB instead of ~18 KB of doubles.
 */
#define CELL_ABSENT 0xffffffffu
/* 10^0 .. 10^15, exact doubles (cells.c). */
extern const double mx_p10[16];
#define CELL_ESC 0x80000000u
#define CELL_NEG 0x40000000u
#define CELL_MANT 0x03ffffffu

/*
 * A kept launch's cells are packed into its block, one code a cell (an
 * unsigned LEB128 varint), in metric order: 0 then n, the next n + 1 cells
 * are those of x->ref, the first launch packed (most columns of a file, the
 * device's attributes and the launch's shape, repeat in every launch, and
 * sit together in ncu's sorted columns); 1 CELL_ABSENT; 3 + 2i CELL_ESC | i;
 * 2 + 2w a decimal cell, w = its digits << 5 | digits after the point << 1 |
 * sign.  A page's launch of 566 metrics is under 1 KB packed, against 2.3 KB of
 * cells and 4.1 KB of text.  A small file's blocks (x->flat, block.flat) keep
 * the cells as they are: there the pack and its reading back cost more than
 * the memory they save (MX_BUDGET counts four bytes a cell either way).
 */
struct mx_cursor {
	const unsigned char *p;
	uint32_t same;		/* cells of x->ref still to come */
};

/* Cell j, the one after the last that cur gave. */
static inline uint32_t
mx_cell_next(struct mx_cursor *cur, const uint32_t *ref, size_t j)
{
	uint64_t v, w;

	if (cur->same > 0) {
		cur->same--;
		return ref[j];
	}
	if ((v = kp_varint_get(&cur->p)) == 0) {
		cur->same = (uint32_t)kp_varint_get(&cur->p);
		return ref[j];
	}
	if (v == 1)
		return CELL_ABSENT;
	if (v & 1)
		return CELL_ESC | (uint32_t)((v - 3) >> 1);
	w = (v - 2) >> 1;
	return (uint32_t)((w & 1) << 30 | ((w >> 1) & 15) << 26 | (w >> 5));
}

/*
 * A decimal cell (not CELL_ESC nor CELL_ABSENT) as one word: its mantissa
 * << 5 | its digits after the point << 1 | its sign.  cells.c's packed codes
 * carry it (mx_cell_next undoes it) and a median's decimal has its form.
 */
static inline uint64_t
mx_cell_word(uint32_t c)
{
	return (uint64_t)(c & CELL_MANT) << 5 | (uint64_t)((c >> 26) & 15) << 1 | (c >> 30 & 1);
}

/*
 * static T NAME(T *v, size_t n, size_t k): the k-th smallest of v[0..n)
 * (quickselect, reorders v), for the medians of doubles (sample.c) and of
 * cells of one form (medians.c).
 */
#define MX_SELECT_K(NAME, T)						\
static T								\
NAME(T *v, size_t n, size_t k)						\
{									\
	size_t lo = 0, hi = n - 1;					\
									\
	while (lo < hi) {						\
		T p = v[lo + (hi - lo) / 2], t;				\
		size_t i = lo, j = hi;					\
									\
		while (i <= j) {					\
			while (v[i] < p)				\
				i++;					\
			while (v[j] > p)				\
				j--;					\
			if (i <= j) {					\
				t = v[i];				\
				v[i] = v[j];				\
				v[j] = t;				\
				i++;					\
				if (j == 0)				\
					break;				\
				j--;					\
			}						\
		}							\
		if (k <= j)						\
			hi = j;						\
		else if (k >= i)					\
			lo = i;						\
		else							\
			return v[k];					\
	}								\
	return v[k];							\
}

/* A decimal cell's value (not CELL_ESC nor CELL_ABSENT): one exact division. */
static inline double
mx_cell_dec(uint32_t c)
{
	double v = (double)(c & CELL_MANT) / mx_p10[(c >> 26) & 15];

	return c & CELL_NEG ? -v : v;
}

struct block {			/* one kept launch */
	uint32_t cap;		/* bytes after the header */
	uint32_t ncells, nover;
	uint32_t nkv;		/* summary key values (NAN: absent) */
	uint32_t ntext;		/* > 0: the launch's metric fields as text instead of its cells
				 * (rawpage.c parses it at the end of the file) */
	uint16_t heap;		/* from malloc, else a piece of x->arena */
	uint16_t flat;		/* the cells as they are (uint32_t), not packed (x->flat) */
	double over[];		/* nover doubles, nkv key values, then the text or
				 * the packed cells */
};

struct kernel {
	char *name;
	size_t namelen;
	uint64_t hash;
	long block[3], grid[3];
	int have_block, have_grid;
	char *device, *cc;
	size_t launches;	/* (file, ID) launches */
	double total_dur;
	struct acc *keys;	/* by key id */
	size_t nkeys;
	uint64_t *seen;		/* metric ids this kernel has (bits) */
	size_t seenwords;
	size_t nm;		/* how many: its block size in the budget */
	size_t span;		/* highest id + 1: its cells */
	struct uover *uover;	/* rare: units other than the table's */
	size_t nuover;
	struct block **samp;	/* the kept launches: x->keep slots (it only comes down) */
	uint32_t nsamp;
	uint64_t rng;		/* the reservoir's */
	size_t budgeted;	/* bytes a block of this kernel counts in x->bytes */
	struct idset ids;	/* the lowest KP_IDS_LISTED distinct IDs */
	char **unknown;
	size_t nunknown;
	size_t colfile;		/* raw page: the file whose columns it has marked */
	char *jname;		/* the name as a JSON string, for metrics_extracted.jsonl */
	size_t jnamelen;
	int jstate;		/* 0 not yet, 1 jname set, -1 jansson refuses the name */
	size_t nmed;		/* metrics with a median (kernel_medians) */
	double *pmed;		/* its medians computed ahead (medians.c), or NULL */
	uint64_t *pdec;		/* their decimals (mx_put_med) */
	unsigned char *phas;
	size_t pnmed;
	int pside;		/* the thread that computes them */
};

struct col {			/* a metric column of a raw page */
	double scale;
	char *unit;
	int known;
	int key, rank, sum;	/* summary source, key -1 when none */
	uint32_t id;		/* its metric */
};

/*
 * A raw page's first launch parsed as it was kept (rawpage.c), for the kept
 * launches after it: a field with the same bytes in the same column has the
 * same cell, so it is copied, not parsed again (most of a page's columns
 * repeat from launch to launch: sizes, limits, device attributes).
 */
struct tref {
	char *text;		/* the fields' bytes, one after another */
	uint32_t *off, *len;	/* a column's field in text; len UINT32_MAX: parse it */
	uint32_t *cell;		/* its cell, CELL_ABSENT (no number) or CELL_ESC (val) */
	double *val;		/* the value of a CELL_ESC one */
	size_t used;		/* bytes of text */
	size_t n;		/* columns taken; 0 none yet */
};

struct launch {
	int open;
	int keep;		/* in the kernel's sample: cells are stored */
	size_t slot;		/* the one it replaces when the sample is full */
	long long id;
	struct kernel *k;
	uint32_t *cells;
	size_t ncells, cellcap;
	double *over;
	size_t nover, overcap;
	double *val;
	uint32_t *dec;		/* the cell val was parsed to, CELL_ABSENT: none (mx_put_dec) */
	int *rank;		/* -1: not set */
	json_t *all;
	const char *text;	/* keep the record's text, not its cells (rawpage.c) */
	size_t ntext;
};

struct ex {
	size_t keep;		/* launches each kernel's sample holds (MX_KEEP or fewer) */
	struct kp_arena arena;	/* the samples' first blocks (cells.c) */
	struct kp_arena strs;	/* names, units, headers: freed with x (mx_strdup) */
	size_t arena_used;	/* bytes of it handed out, at most MX_ARENA */
	size_t text_used;	/* bytes of blocks made for text, about mx_text_cap() at most */
	uint32_t *ref;		/* the first packed launch's cells (cells.c) */
	size_t nref;
	char *dtext;		/* a launch's fields as text (rawpage.c's defer()), before its block */
	size_t dtextcap;
	unsigned char *pack;	/* a launch's cells packed (cells.c), before its block */
	size_t packcap;
	size_t bytes;		/* a block of every kernel: sum of kernel.budgeted */
	int short_maps;		/* kernels' metrics: the key ones (metrics_all.json has all) */
	struct kernel **k;
	size_t nk, kcap;
	struct kernel **kslot;
	size_t kslots;
	struct metric *m;	/* the metrics of every kernel */
	size_t nm, mcap;
	uint32_t *mslot;	/* open addressing: index + 1, 0 empty */
	size_t mslots;
	uint32_t *byname;	/* metric ids in name order (mx_metric_order) */
	size_t nbyname;
	double *med;		/* kernel_medians(): one kernel's, by id */
	uint64_t *mdec;		/* each one's decimal, MX_NODEC where none (mx_put_med) */
	unsigned char *hasmed;
	struct kernel *medk;	/* the kernel med holds */
	char **keyname;		/* key id -> name ("stalls.<reason>" for stalls) */
	size_t nkeys, keycap;
	int all_metrics;
	int (*emit)(json_t *rec, void *arg, struct kp_err *err);
	void *arg;
	json_t *inputs;
	/* the file being read */
	const char *path;
	size_t file;
	struct col *cols;
	size_t ncols;
	size_t *keycols;	/* the columns that feed summary keys */
	size_t nkeycols;
	size_t *fixcols;	/* the launch columns (struct fixed), ascending */
	size_t nfixcols;
	struct tref tref;
	struct launch l;
	size_t file_launches;
	int big_file;		/* MX_BIG_FILE bytes or more: fill launches may wait as text */
	int flat;		/* a regular file under MX_BIG_FILE: kept cells not packed */
	/* metrics_extracted.jsonl written here without jansson (jsonl_launch) */
	FILE *jfp;
	const char *jfpath;
	char *jpd;		/* profile_dir as a JSON string, or NULL */
	char *jpath;		/* the file being read as a JSON string */
	int jpath_state;	/* as kernel.jstate */
	char **jkey;		/* key id -> JSON string of its name under summary[.stalls] */
	size_t *jkeylen;	/* key id -> strlen(jkey) */
	unsigned char *jstall;	/* key id -> a "stalls.<reason>" key */
	size_t jkeyneed;	/* the keys' bytes in a record, at most */
	size_t *korder;		/* key ids in jansson's sorted order */
	size_t nkorder;		/* keys that jkey and korder cover */
	int jkeys_bad;		/* a key that jansson would refuse: use jansson */
	char *out;		/* one record */
	size_t outcap;
};

/* The launch-level columns every page has: kernel, block, grid, device, cc. */
struct fixed {
	long id, name, block, grid, cc, device;
};


/* ---- sample.c ---- */
/* The reservoir steps the accumulators and the launch sample (cells.c) share:
 * xorshift64, a uniform double in (0, 1), Algorithm L's skip to the next
 * value that enters a sample of weight w. */
uint64_t mx_rand(uint64_t *rng);
double mx_unit(uint64_t *rng);
void mx_skip(uint64_t *rng, uint64_t *next, double w);
void mx_acc_add(struct acc *a, double x);
double mx_median(double *v, size_t n);
int mx_medians_of(const struct ex *x, const struct kernel *k, double *med, uint64_t *dec,
    unsigned char *has, size_t *nmed);
void mx_medians_ahead(struct ex *x);

/* ---- jsonw.c ---- */
json_t *mx_jnum(double v);
int mx_jset(json_t *o, const char *key, json_t *v);
int mx_jset_key(json_t *o, const char *key, json_t *v);
char *mx_jesc(const char *s);
/* The same in x->strs, and a copy of s there; NULL out of memory (or refused). */
char *mx_jesc_in(struct ex *x, const char *s);
char *mx_strdup(struct ex *x, const char *s);
int mx_keycmp(const char *a, const char *b);
int mx_jkeys_update(struct ex *x);
char *mx_put_str(char *p, const char *s);
char *mx_put_ll(char *p, long long v);
char *mx_put_num(char *p, double v);
char *mx_put_dec(char *p, double v, uint32_t cell);
/*
 * A median's decimal: m / 10^f as m << 5 | f << 1 | sign, m < 2^53, f <= 15
 * (medians.c), the decimal cell it is the value of or the mean of two; v as
 * mx_put_num() writes it, from that decimal where it can (mx_put_med).
 */
#define MX_NODEC UINT64_MAX
char *mx_put_med(char *p, double v, uint64_t dec);
int mx_put_jstr(FILE *fp, const char *s);

/* ---- cells.c ---- */
int mx_cells_fit(struct launch *l, size_t m);
double mx_cell_value(const struct block *b, uint32_t c);
int mx_cell_slow(struct launch *l, const char *s, size_t len, double scale, int wide,
    uint32_t *cell, double *out);
/* v as a double of the launch l (kept): its cell in *cell; 1, or -1 out of memory. */
int mx_cell_double(struct launch *l, double v, uint32_t *cell);
int mx_launch_keep(struct ex *x, struct kernel *k);
size_t mx_text_cap(const struct ex *x);
/*
 * Whether kernel k's launch now starting, which enters its sample, may wait
 * as text: one that replaces another, or one that fills the sample of a big
 * file (in a small one it is most often kept to the end, and its text would
 * only add a copy).
 */
static inline int
mx_text_wanted(const struct ex *x, const struct kernel *k)
{
	return k->nsamp >= x->keep || x->big_file;
}
int mx_text_room(const struct ex *x, const struct kernel *k, size_t ntext);
int mx_block_settle(struct ex *x, struct kernel *k, size_t slot, const struct launch *l,
    unsigned char **pk, size_t *pkcap);
static inline const unsigned char *
mx_block_cells(const struct block *b)
{
	return (const unsigned char *)(b->over + b->nover + b->nkv);
}
/* A flat block's cells (b->flat): ncells of them. */
static inline const uint32_t *
mx_block_flat(const struct block *b)
{
	return (const uint32_t *)(const void *)(b->over + b->nover + b->nkv);
}
void mx_block_free(struct block *b);
int mx_launch_sampled(struct ex *x, struct kernel *k);
void mx_budget(struct ex *x, struct kernel *k);

/* ---- kernels.c ---- */
int mx_key_id(struct ex *x, const char *name);
int mx_raw_source(struct ex *x, const char *metric, int *rank, int *sum);
void mx_kernel_free(struct kernel *k);
struct kernel *mx_kernel_find(struct ex *x, const char *name, size_t len);
struct kernel *mx_kernel_get(struct ex *x, const char *name, size_t len);
long mx_metric_get(struct ex *x, const char *name, const char *unit);
int mx_kernel_metric(struct ex *x, struct kernel *k, uint32_t id, const char *unit);
const char *mx_metric_unit(const struct ex *x, const struct kernel *k, uint32_t id);
void mx_metrics_free(struct ex *x);
int mx_kernel_unknown_unit(struct kernel *k, const char *unit);
int mx_kernel_add_id(struct kernel *k, long long id);
int mx_kernel_keys_fit(struct ex *x, struct kernel *k);

/* ---- launch.c ---- */
void mx_launch_reset(struct ex *x);
void mx_launch_put(struct ex *x, int key, int rank, int sum, double v, uint32_t cell);
int mx_launch_start(struct ex *x, struct kernel *k, long long id, struct kp_err *err);
int mx_launch_end(struct ex *x, struct kp_err *err);
int mx_launch_all_metric(struct ex *x, const char *name, double v, const char *unit);

/* ---- csvpage.c ---- */
long mx_header_index(const struct kp_csv *c, const char *name);
int mx_parse_id(const struct kp_csv *c, size_t i, long long *id, struct kp_err *err);
void mx_fixed_find(const struct kp_csv *c, struct fixed *fx);
struct kernel *mx_row_kernel(struct ex *x, const struct kp_csv *c, const struct fixed *fx,
    struct kp_err *err);
int mx_read_file(struct ex *x, const char *path, struct kp_err *err);

/* ---- rawpage.c ---- */
void mx_cols_free(struct ex *x);
int mx_read_raw(struct ex *x, struct kp_csv *c, struct kp_err *err);

/* ---- detailspage.c ---- */
int mx_read_details(struct ex *x, struct kp_csv *c, struct kp_err *err);

/* ---- summary_write.c ---- */
json_t *mx_summary_json(struct ex *x, struct kp_err *err);
int mx_write_files(struct ex *x, FILE *sfp, const char *spath, FILE *afp, const char *apath,
    struct kp_err *err);
int mx_each_kernel(struct ex *x, int (*each)(json_t *, int, void *, struct kp_err *), void *arg,
    struct kp_err *err);

/* ---- metrics.c ---- */
int mx_nomem(struct kp_err *err);

/*
 * A numeric cell, scaled: 1 with its cell and value, 0 when it is not a
 * number (kp_parse_number), -1 out of memory.  The fast path, small enough
 * to be inlined in the row loop, takes what ncu prints in base units
 * ([-]digits with thousands commas and one point, up to 2^26 - 1 in all);
 * its value, one correctly rounded division of exact doubles, is the one
 * kp_parse_number and strtod give.  out may be NULL when only the cell is
 * wanted (a kept launch's column that feeds no summary key: no division).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
mx_cell_parse(struct launch *l, const char *s, size_t len, double scale, uint32_t *cell,
    double *out)
{
	size_t i = 0;
	uint32_t acc = 0, nfrac = 0, neg = 0, dot = 0;
	double v;

	if (scale != 1.0 || len == 0)
		return mx_cell_slow(l, s, len, scale, 0, cell, out);
	if (s[0] == '-')
		neg = i = 1;
	if (i == len || (unsigned)(unsigned char)s[i] - '0' >= 10)
		return mx_cell_slow(l, s, len, scale, 0, cell, out);
	for (; i < len; i++) {
		uint32_t d = (uint32_t)(unsigned char)s[i] - '0';

		if (d < 10) {
			acc = acc * 10 + d;
			nfrac += dot;
			if (acc > CELL_MANT)
				break;
		} else if (s[i] == '.' && !dot) {
			dot = 1;
		} else if (s[i] != ',' || dot) {
			break;
		}
	}
	if (i < len || nfrac >= 16)
		return mx_cell_slow(l, s, len, scale, i < len && acc > CELL_MANT, cell, out);
	*cell = neg << 30 | nfrac << 26 | acc;
	if (out != NULL) {
		v = (double)acc / mx_p10[nfrac];
		*out = neg ? -v : v;
	}
	return 1;
}

#endif
