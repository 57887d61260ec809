/*
 * sample.c: the per-key accumulators of kp-extract (exact min/max/sum, the first
 * ACC_KEEP values, then a reservoir sample: Algorithm L with a fixed seed), the
 * random steps the launch reservoir (cells.c) shares with them, and the median.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "kp.h"
#include "metrics_int.h"

/* xorshift64: deterministic, so a run is reproducible */
uint64_t
mx_rand(uint64_t *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return *rng;
}

/* uniform in (0, 1) */
double
mx_unit(uint64_t *rng)
{
	return ((double)(mx_rand(rng) >> 11) + 0.5) / 9007199254740992.0;
}

/* Algorithm L (Li 1994): skip straight to the next value that enters the
 * sample, so a full accumulator costs a compare per value, not a division. */
void
mx_skip(uint64_t *rng, uint64_t *next, double w)
{
	*next += (uint64_t)floor(log(mx_unit(rng)) / log1p(-w)) + 1;
}

int
mx_acc_add(struct acc *a, double x)
{
	if (a->seen == 0) {
		a->min = a->max = x;
		a->rng = 0x9e3779b97f4a7c15ULL;
	} else {
		if (x < a->min)
			a->min = x;
		if (x > a->max)
			a->max = x;
	}
	a->seen++;
	a->sum += x;
	if (a->n == ACC_KEEP) {
		if (a->seen == a->next) {
			a->v[mx_rand(&a->rng) % ACC_KEEP] = x;
			a->w *= exp(log(mx_unit(&a->rng)) / ACC_KEEP);
			mx_skip(&a->rng, &a->next, a->w);
		}
		return 0;
	}
	if (a->n == a->cap) {
		uint32_t cap = a->cap ? a->cap * 2 : 4;
		double *nv = realloc(a->v, cap * sizeof(*nv));

		if (nv == NULL)
			return -1;
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	if (a->n == ACC_KEEP) {
		a->w = exp(log(mx_unit(&a->rng)) / ACC_KEEP);
		a->next = a->seen;
		mx_skip(&a->rng, &a->next, a->w);
	}
	return 0;
}

static void
swapd(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* The k-th smallest of v[0..n) (quickselect, reorders v). */
static double
select_k(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double p = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				swapd(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

double
mx_median(double *v, size_t n)
{
	double hi = select_k(v, n, n / 2), lo;
	size_t i;

	if (n % 2)
		return hi;
	lo = v[0];	/* the largest of the lower half */
	for (i = 1; i < n / 2; i++)
		if (v[i] > lo)
			lo = v[i];
	return (lo + hi) / 2;
}
