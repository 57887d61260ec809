/*
 * cells.c: a launch's values as 32-bit cells, and the kernel's sample of kept
 * launches (one block of cells each, a reservoir past ACC_KEEP launches).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kp.h"
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
	double v;

	if (c & CELL_ESC)
		return b->over[c & ~CELL_ESC];
	v = (double)(c & CELL_MANT) / mx_p10[(c >> 26) & 15];
	return c & CELL_NEG ? -v : v;
}

/*
 * The rest of cell_parse: a decimal too wide for a cell, a scaled unit, or
 * anything kp_parse_number takes; the value is kept as a double of the launch.
 */
int
mx_cell_slow(struct launch *l, const char *s, size_t len, double scale, int wide,
    uint32_t *cell, double *out)
{
	double v;

	if (!(wide && kp_parse_decimal_wide(s, len, &v) == 0)) {
		if (kp_parse_number(s, len, &v) != KP_NUM_OK || !isfinite(v))
			return 0;
		v *= scale;
	}
	*out = v;
	if (!l->keep)
		return 1;
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
 * Keep the launch's cells in the kernel's sample; -1 out of memory.  The
 * first ACC_KEEP blocks come from the arena; a replacement reuses its slot's
 * block when it fits, else takes one from malloc (freed when replaced), so
 * memory stays bounded however many launches are replaced.
 */
int
mx_launch_keep(struct launch *l, struct kernel *k, struct kp_arena *arena)
{
	size_t slot, need = l->nover * sizeof(double) + l->ncells * sizeof(uint32_t);
	struct block *b;

	if (k->nsamp < ACC_KEEP) {
		if (k->samp == NULL && (k->samp = calloc(ACC_KEEP, sizeof(*k->samp))) == NULL)
			return -1;
		slot = k->nsamp;
	} else {
		slot = mx_rand(&k->rng) % ACC_KEEP;
	}
	b = k->samp[slot];
	if (need > UINT32_MAX / 2)
		return -1;
	if (b == NULL && (b = kp_arena_alloc(arena, sizeof(*b) + need)) != NULL) {
		b->cap = (uint32_t)need;
		b->heap = 0;
		k->samp[slot] = b;
	}
	if (b == NULL || b->cap < need) {
		struct block *nb = malloc(sizeof(*nb) + need);

		if (nb == NULL)
			return -1;
		if (b != NULL && b->heap)
			free(b);
		b = nb;
		b->cap = (uint32_t)need;
		b->heap = 1;
		k->samp[slot] = b;
	}
	b->ncells = (uint32_t)l->ncells;
	b->nover = (uint32_t)l->nover;
	if (l->nover > 0)
		memcpy(b->over, l->over, l->nover * sizeof(double));
	if (l->ncells > 0)
		memcpy(b->over + l->nover, l->cells, l->ncells * sizeof(uint32_t));
	if (k->nsamp < ACC_KEEP) {
		if (++k->nsamp == ACC_KEEP) {
			k->rng = 0x9e3779b97f4a7c15ULL;
			k->w = exp(log(mx_unit(&k->rng)) / ACC_KEEP);
			k->next = k->launches + 1;
			mx_skip(&k->rng, &k->next, k->w);
		}
	} else {
		k->w *= exp(log(mx_unit(&k->rng)) / ACC_KEEP);
		mx_skip(&k->rng, &k->next, k->w);
	}
	return 0;
}
