/*
 * medians.c: the medians of a kernel's metrics over its kept launches, and
 * those of all kernels computed ahead on two threads where the kernels are
 * few (the summary's writer then copies each kernel's; see
 * summary_write.c's kernel_medians).  The same arithmetic either way, so
 * the same bytes out.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kp_arena.h"
#include "metrics_int.h"

#define TILE 64

/*
 * The cell (as it is) in u[i] and, for a double of its launch's own
 * (CELL_ESC), its value in v[i]: a decimal cell is decoded only where the
 * median needs it.
 */
static inline void
gather(const struct block *b, uint32_t c, uint32_t *u, double *v, size_t i)
{
	u[i] = c;
	if (c & CELL_ESC)
		v[i] = b->over[c & ~CELL_ESC];
}

/* u's k-th smallest, u reordered */
MX_SELECT_K(select_u, uint32_t)

/*
 * The median of n cells u (their doubles in v, of n slots), its decimal in
 * *dec.  Most metrics of a kernel hold one decimal cell over its launches
 * (sizes, limits, device attributes): that cell's value.  Decimal cells of
 * one sign bit clear and one count of digits after the point are in the
 * order of their values: the middle ones are found among the cells, and
 * the median is their value or the mean of two, as mx_median() gives it
 * (the same order statistics, the same sum).  Else the values go to
 * mx_median() (n equal cells decode to n equal values, its own first case).
 */
static double
cells_median(uint32_t *u, double *v, size_t n, uint64_t *dec)
{
	uint32_t form = u[0] & ~CELL_MANT, lo, hi;
	size_t i;

	*dec = MX_NODEC;
	for (i = 1; i < n && u[i] == u[0]; i++)
		;
	if (i == n && !(u[0] & CELL_ESC)) {
		*dec = mx_cell_word(u[0]);
		return mx_cell_dec(u[0]);
	}
	if (!(form & (CELL_ESC | CELL_NEG))) {
		for (i = 0; i < n && (u[i] & ~CELL_MANT) == form; i++)
			;
		if (i == n) {
			hi = select_u(u, n, n / 2);
			if (n % 2) {
				*dec = mx_cell_word(hi);
				return mx_cell_dec(hi);
			}
			lo = u[0];	/* the largest of the lower half */
			for (i = 1; i < n / 2; i++)
				if (u[i] > lo)
					lo = u[i];
			/* (a + b) / 2 = 5 (a + b) / 10^(f + 1) */
			if (((form >> 26) & 15) < 15)
				*dec = (uint64_t)5 * ((lo & CELL_MANT) + (hi & CELL_MANT)) << 5 |
				    (uint64_t)(((form >> 26) & 15) + 1) << 1;
			return (mx_cell_dec(lo) + mx_cell_dec(hi)) / 2;
		}
	}
	for (i = 0; i < n; i++)
		if (!(u[i] & CELL_ESC))
			v[i] = mx_cell_dec(u[i]);
	return mx_median(v, n);
}

/*
 * Kernel k's medians into med, dec and has (by id, its span of them), how many
 * in *nmed: TILE metrics at a time, each block giving TILE adjacent cells,
 * gathered into one column of cells per metric.  Reads x and k only, so
 * two threads may run it on two kernels.  -1 out of memory.
 */
int
mx_medians_of(const struct ex *x, const struct kernel *k, double *med, uint64_t *dec,
    unsigned char *has, size_t *nmed)
{
	double *col;
	uint32_t *ucol;
	size_t cnt[TILE], m0, j, s, colsize;
	struct mx_cursor *cur;
	int mapped;

	*nmed = 0;
	memset(has, 0, k->span);
	if (k->span == 0 || k->nsamp == 0)
		return 0;
	/* each block's packed cells, read a tile at a time */
	if ((cur = malloc(k->nsamp * sizeof(*cur))) == NULL)
		return -1;
	/* up to 768 KB, written whole: faulted in at once when big */
	colsize = (size_t)TILE * k->nsamp * (sizeof(*col) + sizeof(*ucol));
	mapped = colsize >= ((size_t)128 << 10) && (col = kp_populated(colsize)) != NULL;
	if (!mapped && (col = malloc(colsize)) == NULL) {
		free(cur);
		return -1;
	}
	ucol = (uint32_t *)(void *)(col + (size_t)TILE * k->nsamp);
	for (s = 0; s < k->nsamp; s++) {
		cur[s].p = mx_block_cells(k->samp[s]);
		cur[s].same = 0;
	}
	for (m0 = 0; m0 < k->span; m0 += TILE) {
		size_t nt = k->span - m0 < TILE ? k->span - m0 : TILE;

		memset(cnt, 0, sizeof(cnt));
		for (s = 0; s < k->nsamp; s++) {
			const struct block *b = k->samp[s];
			size_t end = b->ncells < m0 + nt ? b->ncells : m0 + nt;
			size_t o;

			if (b->flat) {
				const uint32_t *fc = mx_block_flat(b);

				for (j = m0; j < end; j++)
					if (fc[j] != CELL_ABSENT) {
						o = (j - m0) * k->nsamp;
						gather(b, fc[j], ucol + o, col + o, cnt[j - m0]++);
					}
				continue;
			}
			for (j = m0; j < end; j++) {
				uint32_t c = mx_cell_next(&cur[s], x->ref, j);

				if (c != CELL_ABSENT) {
					o = (j - m0) * k->nsamp;
					gather(b, c, ucol + o, col + o, cnt[j - m0]++);
				}
			}
		}
		for (j = 0; j < nt; j++) {
			if (cnt[j] == 0)
				continue;
			med[m0 + j] = cells_median(ucol + j * k->nsamp, col + j * k->nsamp, cnt[j],
			    &dec[m0 + j]);
			has[m0 + j] = 1;
			(*nmed)++;
		}
	}
	free(cur);
	if (mapped)
		kp_populated_free(col, colsize);
	else
		free(col);
	return 0;
}

/*
 * Ahead: kernels of at most AHEAD_KERNELS, cells (kept launches times
 * metrics) of at least AHEAD_CELLS in all, where a thread's start (tens of
 * microseconds) is worth it: the 200-launch torch_mix page has 110 k.
 */
#define AHEAD_KERNELS 64
#define AHEAD_CELLS 20000

struct half {
	struct ex *x;
	int side;	/* the kernels of this side (struct kernel.pside) */
	int err;
};

static int
compute(struct ex *x, int side)
{
	size_t i;

	for (i = 0; i < x->nk; i++) {
		struct kernel *k = x->k[i];

		if (k->pside != side)
			continue;
		if ((k->pmed = malloc((k->span ? k->span : 1) * sizeof(*k->pmed))) == NULL ||
		    (k->pdec = malloc((k->span ? k->span : 1) * sizeof(*k->pdec))) == NULL ||
		    (k->phas = malloc(k->span ? k->span : 1)) == NULL ||
		    mx_medians_of(x, k, k->pmed, k->pdec, k->phas, &k->pnmed) < 0)
			return -1;
	}
	return 0;
}

/* The medians computed ahead freed: kernel_medians computes them one by one. */
static void
drop(struct ex *x)
{
	size_t i;

	for (i = 0; i < x->nk; i++) {
		free(x->k[i]->pmed);
		free(x->k[i]->pdec);
		free(x->k[i]->phas);
		x->k[i]->pmed = NULL;
		x->k[i]->pdec = NULL;
		x->k[i]->phas = NULL;
	}
}

static void *
second(void *arg)
{
	struct half *h = arg;

	h->err = compute(h->x, h->side);
	return NULL;
}

void
mx_medians_ahead(struct ex *x)
{
	size_t i, cells = 0, load[2] = { 0, 0 };
	struct half h;
	pthread_t th;
	int e;

	if (x->nk < 2 || x->nk > AHEAD_KERNELS || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	for (i = 0; i < x->nk; i++)
		cells += (size_t)x->k[i]->nsamp * x->k[i]->span;
	if (cells < AHEAD_CELLS)
		return;
	/* each kernel to the side with fewer cells so far */
	for (i = 0; i < x->nk; i++) {
		struct kernel *k = x->k[i];
		int side = load[1] < load[0];

		k->pside = side;
		load[side] += (size_t)k->nsamp * k->span;
	}
	h.x = x;
	h.side = 1;
	h.err = 0;
	if ((e = pthread_create(&th, NULL, second, &h)) != 0)
		return;		/* none ahead: computed one by one as before */
	e = compute(x, 0);
	pthread_join(th, NULL);
	if (e < 0 || h.err < 0)
		drop(x);	/* out of memory: the same, one by one */
}
