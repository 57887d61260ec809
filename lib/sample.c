/*
 * sample.c: the per-key accumulators of kp-extract (exact count, min, max and
 * sum; the keys' medians come from the launch sample, cells.c), the random
 * steps of the launch reservoir, and the median.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

void
mx_acc_add(struct acc *a, double x)
{
	if (a->seen == 0) {
		a->min = a->max = x;
	} else {
		if (x < a->min)
			a->min = x;
		if (x > a->max)
			a->max = x;
	}
	a->seen++;
	a->sum += x;
}

/* The k-th smallest of v[0..n) (quickselect, reorders v). */
MX_SELECT_K(select_k, double)

double
mx_median(double *v, size_t n)
{
	double hi, lo;
	size_t i;

	/* most metrics of a kernel hold one value over its launches (the same bits) */
	for (i = 1; i < n && memcmp(&v[i], &v[0], sizeof(v[0])) == 0; i++)
		;
	if (i == n)
		return v[0];
	hi = select_k(v, n, n / 2);

	if (n % 2)
		return hi;
	lo = v[0];	/* the largest of the lower half */
	for (i = 1; i < n / 2; i++)
		if (v[i] > lo)
			lo = v[i];
	return (lo + hi) / 2;
}
