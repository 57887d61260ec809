/*
 * idset.h: a set of launch IDs kept as sorted ranges, packed (idset.c).
 * Internal to the extraction engine (metrics_int.h includes it).
 */
#ifndef KP_IDSET_H
#define KP_IDSET_H

#include <stddef.h>
#include <stdint.h>

/*
 * The lowest max IDs added (cut says higher ones were dropped), as disjoint,
 * non-adjacent ranges in ascending order, each two LEB128 varints: the gap
 * (the first range: its lowest ID, zigzag-coded; then lo - previous hi - 2)
 * and hi - lo.  Launch IDs of a kernel interleave with other kernels': a
 * range is two or three bytes, not the sixteen of two long longs.
 */
struct idset {
	unsigned char *b;
	size_t len, cap;
	size_t nranges;
	unsigned long long n;	/* IDs in the ranges */
	int cut;
	/* the last range: where its codes start, its gap, its bounds */
	size_t lastoff;
	uint64_t lastgap;
	long long lastlo, lasthi;
	/* where the last lookup stopped (idset.c's find) */
	size_t curoff, curidx;
	long long curprev;
};

struct idset_iter {
	const unsigned char *p, *end;
	long long prev;
	int first;
};

/* Add id, keeping the lowest max; 0, or -1 out of memory (s unchanged). */
int kp_idset_add(struct idset *s, long long id, unsigned long long max);
void kp_idset_free(struct idset *s);
void kp_idset_iter(const struct idset *s, struct idset_iter *it);
/* The next range: 1 with lo and hi, 0 past the last. */
int kp_idset_next(struct idset_iter *it, long long *lo, long long *hi);

#endif
