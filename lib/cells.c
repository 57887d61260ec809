/*
 * cells.c: a launch's values as 32-bit cells, and the kernel's sample of kept
 * launches (one block of cells and key values each; see MX_KEEP).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kp_number.h"
#include "metrics_int.h"

const double mx_p10[16] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };

/* Cells up to metric m, the new ones absent; -1 out of memory. */
int
mx_cells_fit(struct launch *l, size_t m)
{
	if (m < l->ncells)
		return 0;
	if (m >= l->cellcap) {
		size_t cap = l->cellcap ? l->cellcap : 256;
		uint32_t *nc;

		while (m >= cap)
			cap *= 2;
		if ((nc = realloc(l->cells, cap * sizeof(*nc))) == NULL)
			return -1;
		l->cells = nc;
		l->cellcap = cap;
	}
	memset(l->cells + l->ncells, 0xff, (m + 1 - l->ncells) * sizeof(*l->cells));
	l->ncells = m + 1;
	return 0;
}

double
mx_cell_value(const struct block *b, uint32_t c)
{
	if (c & CELL_ESC)
		return b->over[c & ~CELL_ESC];
	return mx_cell_dec(c);
}

/*
 * The rest of cell_parse: a decimal too wide for a cell, a scaled unit, or
 * anything kp_parse_number takes; the value is kept as a double of the launch.
 */
int
mx_cell_slow(struct launch *l, const char *s, size_t len, double scale, int wide,
    uint32_t *cell, double *out)
{
	double v, ignored;

	if (out == NULL)
		out = &ignored;
	if (!(wide && kp_parse_decimal_wide(s, len, &v) == 0)) {
		if (kp_parse_number(s, len, &v) != KP_NUM_OK || !isfinite(v))
			return 0;
		v *= scale;
	}
	*out = v;
	if (!l->keep)
		return 1;
	return mx_cell_double(l, v, cell);
}

int
mx_cell_double(struct launch *l, double v, uint32_t *cell)
{
	if (l->nover == l->overcap) {
		size_t cap = l->overcap ? l->overcap * 2 : 64;
		double *no = realloc(l->over, cap * sizeof(*no));

		if (no == NULL)
			return -1;
		l->over = no;
		l->overcap = cap;
	}
	*cell = CELL_ESC | (uint32_t)l->nover;
	l->over[l->nover++] = v;
	return 1;
}

/*
 * A block with room for need bytes and an eighth more: the slot's next
 * launch, of the same kernel, has a record a few bytes longer or shorter.
 * The first MX_ARENA bytes come from x->arena, faulted in a chunk at a time
 * (a page fault each, from malloc: a tenth of kp-extract's time at 100 MB);
 * the rest from malloc.
 */
static struct block *
block_new(struct ex *x, size_t need)
{
	size_t cap = need + need / 8, n;
	struct block *b = NULL;

	if (cap > UINT32_MAX / 2)
		cap = need;
	n = sizeof(*b) + cap;
	if (x->arena_used + n <= MX_ARENA &&
	    (b = kp_arena_alloc(&x->arena, n)) != NULL) {
		x->arena_used += n;
		b->heap = 0;
	} else if ((b = malloc(n)) != NULL)
		b->heap = 1;
	else
		return NULL;
	b->cap = (uint32_t)cap;
	return b;
}

/* A block that came from malloc goes back; the arena's stay until ex_free(). */
void
mx_block_free(struct block *b)
{
	if (b != NULL && b->heap)
		free(b);
}

/* ---- packed cells (mx_cell_next) ---- */

/*
 * The reference's cell where the launch had a double of its own: no cell
 * equals it (a launch has fewer than 2^31 - 2 doubles).
 */
#define CELL_NOREF (CELL_ESC | 0x7ffffffeu)

/* The code of a cell that is not the reference's. */
static uint64_t
cell_code(uint32_t c)
{
	if (c == CELL_ABSENT)
		return 1;
	if (c & CELL_ESC)
		return 3 + 2 * (uint64_t)(c & ~CELL_ESC);
	return 2 + 2 * mx_cell_word(c);
}

/* The first launch packed is the reference of all (its decimal cells). */
static int
ref_set(struct ex *x, const struct launch *l)
{
	size_t j;

	if (x->ref != NULL || l->ncells == 0)
		return 0;
	if ((x->ref = malloc(l->ncells * sizeof(*x->ref))) == NULL)
		return -1;
	for (j = 0; j < l->ncells; j++)
		x->ref[j] = l->cells[j] & CELL_ESC ? CELL_NOREF : l->cells[j];
	x->nref = l->ncells;
	return 0;
}

/*
 * l's cells packed into *buf, of *cap bytes, grown as needed (room for the
 * widest codes: a varint of 34 bits is 5 bytes, a run's two codes stand for
 * two cells or more); their bytes, -1 out of memory.  x->ref is set by the
 * first launch packed, and only read after that.
 */
static long
pack(struct ex *x, const struct launch *l, unsigned char **buf, size_t *cap)
{
	const uint32_t *c = l->cells, *r;
	size_t j, start, n = l->ncells, same;
	unsigned char *p;

	if (ref_set(x, l) < 0)
		return -1;
	if (n > UINT32_MAX / 8)
		return -1;
	if (5 * n > *cap) {
		unsigned char *np = realloc(*buf, 5 * n);

		if (np == NULL)
			return -1;
		*buf = np;
		*cap = 5 * n;
	}
	r = x->ref;
	same = n < x->nref ? n : x->nref;
	p = *buf;
	for (j = 0; j < n; j++) {
		/* the run of the reference's cells, as 0 and its length less one */
		for (start = j; j < same && c[j] == r[j]; j++)
			;
		if (j > start) {
			*p++ = 0;
			p += kp_varint_put(p, j - start - 1);
			if (j == n)
				break;
		}
		p += kp_varint_put(p, cell_code(c[j]));
	}
	return (long)(p - *buf);
}

/*
 * The bytes of l's cells in a block: as they are where x->flat (nothing to
 * do), else packed into *buf (pack); -1 out of memory.
 */
static long
cells_bytes(struct ex *x, const struct launch *l, unsigned char **buf, size_t *cap)
{
	if (x->flat)
		return l->ncells > UINT32_MAX / 8 ? -1 : (long)(l->ncells * sizeof(*l->cells));
	return pack(x, l, buf, cap);
}

/*
 * Keep the launch's cells (packed or flat) or its text, and its key values, in the
 * kernel's sample; -1 out of memory.  A replacement reuses its slot's block
 * when it fits.
 */
int
mx_launch_keep(struct ex *x, struct kernel *k)
{
	struct launch *l = &x->l;
	size_t slot, i, nkv = x->nkeys, need;
	long np = 0;
	struct block *b;
	double *kv;

	if (k->samp == NULL && (k->samp = calloc(x->keep, sizeof(*k->samp))) == NULL)
		return -1;
	if (l->text == NULL && (np = cells_bytes(x, l, &x->pack, &x->packcap)) < 0)
		return -1;
	need = (l->nover + nkv) * sizeof(double) +
	    (l->text != NULL ? l->ntext : (size_t)np);
	if (need > UINT32_MAX / 2)
		return -1;
	if (k->nsamp < x->keep)
		slot = k->nsamp++;
	else	/* x->keep may have come down since the launch started */
		slot = l->slot < k->nsamp ? l->slot : mx_rand(&k->rng) % k->nsamp;
	b = k->samp[slot];
	if (b == NULL || b->cap < need) {
		struct block *nb;

		if ((nb = block_new(x, need)) == NULL)
			return -1;
		if (l->text != NULL)
			x->text_used += sizeof(*nb) + nb->cap;
		mx_block_free(b);
		b = nb;
		k->samp[slot] = b;
	}
	b->ncells = (uint32_t)l->ncells;
	b->nover = (uint32_t)l->nover;
	b->nkv = (uint32_t)nkv;
	b->ntext = 0;
	b->flat = l->text == NULL && x->flat;
	if (l->nover > 0)
		memcpy(b->over, l->over, l->nover * sizeof(double));
	kv = b->over + l->nover;
	for (i = 0; i < nkv; i++)
		kv[i] = l->rank[i] < 0 ? NAN : l->val[i];
	if (l->text != NULL) {
		memcpy(kv + nkv, l->text, l->ntext);
		b->ntext = (uint32_t)l->ntext;
	} else
		memcpy(kv + nkv, b->flat ? (const void *)l->cells : x->pack, (size_t)np);
	return 0;
}

/*
 * The bytes the text blocks may take: MX_BUDGET while every kernel keeps
 * MX_KEEP launches (a few kernels: most of their kept launches are then
 * parsed only if they are still kept at the end; the samples themselves fit
 * in MX_BUDGET, else x->keep would be lower), else MX_TEXT.  With many
 * kernels the budget binds (x->keep < MX_KEEP) and the text stays within
 * MX_TEXT, so memory at a thousand kernels is what it was.
 */
size_t
mx_text_cap(const struct ex *x)
{
	return x->keep == MX_KEEP ? MX_BUDGET : MX_TEXT;
}

/*
 * Whether kernel k's launch now starting may keep ntext bytes of its metric
 * fields as text: in its slot's block, or, where mx_text_wanted(), in a new
 * one while the text blocks stay within mx_text_cap().
 */
int
mx_text_room(const struct ex *x, const struct kernel *k, size_t ntext)
{
	size_t need = x->nkeys * sizeof(double) + ntext;
	const struct block *b;

	if (k->nsamp >= x->keep && x->l.slot < k->nsamp &&
	    (b = k->samp[x->l.slot]) != NULL && b->cap >= need)
		return 1;
	if (!mx_text_wanted(x, k))
		return 0;
	return x->text_used + sizeof(*b) + need + need / 8 <= mx_text_cap(x);
}

/*
 * Block slot of kernel k, which holds a record's text, rebuilt with the cells
 * now in l (l->over, l->ncells) packed and its own key values: in place when
 * they fit (the text is parsed already; packed cells are a third of it),
 * else in a new block (malloc'd); -1 out of memory.  pk and pkcap: the
 * caller's packing buffer (x->pack and x->packcap, or a thread's own), so
 * two threads may settle two slots once x->ref is set.
 */
int
mx_block_settle(struct ex *x, struct kernel *k, size_t slot, const struct launch *l,
    unsigned char **pk, size_t *pkcap)
{
	struct block *b = k->samp[slot], *nb = b;
	long np;
	size_t need;
	double *kv;

	if ((np = cells_bytes(x, l, pk, pkcap)) < 0)
		return -1;
	need = (l->nover + b->nkv) * sizeof(double) + (size_t)np;
	if (need > UINT32_MAX / 2)
		return -1;
	if (need > b->cap) {
		if ((nb = malloc(sizeof(*nb) + need)) == NULL)
			return -1;
		nb->cap = (uint32_t)need;
		nb->heap = 1;
		nb->nkv = b->nkv;
	}
	/* the key values first: in place, l's doubles go where they start */
	kv = nb->over + l->nover;
	memmove(kv, b->over + b->nover, b->nkv * sizeof(double));
	if (l->nover > 0)
		memcpy(nb->over, l->over, l->nover * sizeof(double));
	memcpy(kv + nb->nkv, x->flat ? (const void *)l->cells : *pk, (size_t)np);
	nb->ncells = (uint32_t)l->ncells;
	nb->nover = (uint32_t)l->nover;
	nb->ntext = 0;
	nb->flat = (uint16_t)x->flat;
	if (nb != b) {
		mx_block_free(b);
		k->samp[slot] = nb;
	}
	return 0;
}

/*
 * Whether the launch about to start enters the kernel's sample (Algorithm R:
 * the n-th launch replaces a random one of keep with probability keep/n; the
 * slot is chosen now, in l->slot).
 */
int
mx_launch_sampled(struct ex *x, struct kernel *k)
{
	uint64_t j;

	if (k->nsamp < x->keep)
		return 1;
	if (k->rng == 0)
		k->rng = 0x9e3779b97f4a7c15ULL;
	j = mx_rand(&k->rng) % (k->launches + 1);
	if (j >= k->nsamp)
		return 0;
	x->l.slot = (size_t)j;
	return 1;
}

/* Drop launches at random from a sample bigger than keep. */
static void
sample_shrink(struct kernel *k, size_t keep)
{
	if (k->rng == 0)
		k->rng = 0x9e3779b97f4a7c15ULL;
	while (k->nsamp > keep) {
		size_t j = mx_rand(&k->rng) % k->nsamp;

		mx_block_free(k->samp[j]);
		k->samp[j] = k->samp[--k->nsamp];
		k->samp[k->nsamp] = NULL;
	}
}

/*
 * Count kernel k's block size (its metrics and the keys) in x->bytes and lower
 * x->keep when every kernel's sample at keep would pass MX_BUDGET.
 */
void
mx_budget(struct ex *x, struct kernel *k)
{
	size_t b = sizeof(struct block) + k->nm * sizeof(uint32_t) + x->nkeys * sizeof(double) + 16;
	size_t keep, i;

	if (b == k->budgeted)
		return;
	x->bytes += b - k->budgeted;
	k->budgeted = b;
	keep = x->bytes > 0 ? MX_BUDGET / x->bytes : MX_KEEP;
	if (keep > MX_KEEP)
		keep = MX_KEEP;
	if (keep < 1)
		keep = 1;
	if (keep >= x->keep)
		return;
	x->keep = keep;
	for (i = 0; i < x->nk; i++)
		sample_shrink(x->k[i], keep);
}
