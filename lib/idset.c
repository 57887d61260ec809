/*
 * idset.c: launch IDs as packed sorted ranges (see idset.h).
 *
 * IDs most often come in ascending order: the next ID extends the last
 * range or starts a new one at the end, in place.  An ID below the last
 * range (a second file of the same launches) is looked up from where the
 * last lookup stopped, so ascending lookups cost a range or two each; only
 * a new ID inside the set unpacks the ranges, inserts it, and packs them.
 */
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "kp_varint.h"

struct range {
	long long lo, hi;
};

static uint64_t
zigzag(long long v)
{
	return v < 0 ? ((uint64_t)-(v + 1) << 1) | 1 : (uint64_t)v << 1;
}

static long long
unzigzag(uint64_t u)
{
	return u & 1 ? -(long long)(u >> 1) - 1 : (long long)(u >> 1);
}

/* Room for need more bytes; -1 out of memory. */
static int
room(struct idset *s, size_t need)
{
	size_t cap;
	unsigned char *nb;

	if (s->len + need <= s->cap)
		return 0;
	for (cap = s->cap ? s->cap : 32; cap < s->len + need; cap *= 2)
		;
	if ((nb = realloc(s->b, cap)) == NULL)
		return -1;
	s->b = nb;
	s->cap = cap;
	return 0;
}

/* Rewrite the last range to end at hi (its gap and lo unchanged). */
static int
put_last(struct idset *s, long long hi)
{
	size_t at = s->lastoff;

	s->len = at;
	if (room(s, 20) < 0)
		return -1;
	at += kp_varint_put(s->b + at, s->lastgap);
	at += kp_varint_put(s->b + at, (uint64_t)(hi - s->lastlo));
	s->len = at;
	s->lasthi = hi;
	return 0;
}

static int
append(struct idset *s, long long id)
{
	uint64_t gap = s->nranges == 0 ? zigzag(id) : (uint64_t)(id - s->lasthi - 2);
	size_t at = s->len;

	if (room(s, 20) < 0)
		return -1;
	s->lastoff = at;
	s->lastgap = gap;
	at += kp_varint_put(s->b + at, gap);
	at += kp_varint_put(s->b + at, 0);
	s->len = at;
	s->lastlo = s->lasthi = id;
	s->nranges++;
	return 0;
}

/*
 * 1 when id is in the set, 0 when not: the first range with hi >= id - 1
 * is found from the last lookup's place when that is below it.
 */
static int
find(struct idset *s, long long id)
{
	struct idset_iter it;
	long long lo, hi;
	size_t i;

	if (s->curidx == 0 || s->curprev >= id - 1) {
		s->curoff = 0;
		s->curidx = 0;
	}
	/* an iterator from the cursor's range (kp_idset_iter starts at the first) */
	it.p = s->b + s->curoff;
	it.end = s->b + s->len;
	it.prev = s->curprev;
	it.first = s->curidx == 0;
	for (i = s->curidx; i < s->nranges; i++) {
		const unsigned char *at = it.p;
		long long prev = it.prev;

		if (!kp_idset_next(&it, &lo, &hi))
			break;
		if (hi >= id - 1) {
			s->curoff = (size_t)(at - s->b);
			s->curidx = i;
			s->curprev = prev;
			return id >= lo && id <= hi;
		}
	}
	return 0;
}

/* Unpack, insert id (not in the set, below its last range), trim, pack. */
static int
insert(struct idset *s, long long id, unsigned long long max)
{
	struct range *r;
	struct idset_iter it;
	size_t nr = 0, i, lo = 0, hi, len = 0;
	unsigned char *nb;

	if ((r = malloc((s->nranges + 1) * sizeof(*r))) == NULL)
		return -1;
	kp_idset_iter(s, &it);
	while (kp_idset_next(&it, &r[nr].lo, &r[nr].hi))
		nr++;
	for (hi = nr; lo < hi;) {	/* the first range with hi >= id - 1 */
		size_t mid = (lo + hi) / 2;

		if (r[mid].hi < id - 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	if (i < nr && r[i].lo <= id + 1) {	/* next to range i: it grows */
		if (id < r[i].lo)
			r[i].lo = id;
		else {
			r[i].hi = id;
			if (i + 1 < nr && r[i + 1].lo == id + 1) {
				r[i].hi = r[i + 1].hi;
				memmove(&r[i + 1], &r[i + 2], (nr - i - 2) * sizeof(*r));
				nr--;
			}
		}
	} else {
		memmove(&r[i + 1], &r[i], (nr - i) * sizeof(*r));
		r[i].lo = r[i].hi = id;
		nr++;
	}
	s->n++;
	while (s->n > max) {	/* drop the highest */
		unsigned long long over = s->n - max, n = (unsigned long long)(r[nr - 1].hi -
		    r[nr - 1].lo) + 1;

		s->cut = 1;
		if (n > over) {
			r[nr - 1].hi -= (long long)over;
			s->n -= over;
		} else {
			s->n -= n;
			nr--;
		}
	}
	/* pack: at most 20 bytes a range */
	if ((nb = malloc(nr * 20 + 1)) == NULL) {
		free(r);
		return -1;
	}
	for (i = 0; i < nr; i++) {
		uint64_t gap = i == 0 ? zigzag(r[i].lo) : (uint64_t)(r[i].lo - r[i - 1].hi - 2);

		s->lastoff = len;
		s->lastgap = gap;
		len += kp_varint_put(nb + len, gap);
		len += kp_varint_put(nb + len, (uint64_t)(r[i].hi - r[i].lo));
	}
	if (nr > 0) {
		s->lastlo = r[nr - 1].lo;
		s->lasthi = r[nr - 1].hi;
	}
	free(s->b);
	s->b = nb;
	s->len = len;
	s->cap = nr * 20 + 1;
	s->nranges = nr;
	s->curidx = 0;
	free(r);
	return 0;
}

int
kp_idset_add(struct idset *s, long long id, unsigned long long max)
{
	if (s->nranges > 0 && id > s->lasthi) {
		if (s->cut || s->n >= max) {
			s->cut = 1;	/* past the kept ones */
			return 0;
		}
		if (id == s->lasthi + 1) {
			if (put_last(s, id) < 0)
				return -1;
		} else if (append(s, id) < 0)
			return -1;
		s->n++;
		return 0;
	}
	if (s->nranges == 0) {
		if (max == 0) {
			s->cut = 1;
			return 0;
		}
		if (append(s, id) < 0)
			return -1;
		s->n++;
		return 0;
	}
	if (find(s, id))
		return 0;	/* seen */
	return insert(s, id, max);
}

void
kp_idset_free(struct idset *s)
{
	free(s->b);
	memset(s, 0, sizeof(*s));
}

void
kp_idset_iter(const struct idset *s, struct idset_iter *it)
{
	it->p = s->b;
	it->end = s->b + s->len;
	it->prev = 0;
	it->first = 1;
}

int
kp_idset_next(struct idset_iter *it, long long *lo, long long *hi)
{
	uint64_t gap;

	if (it->p == NULL || it->p >= it->end)
		return 0;
	gap = kp_varint_get(&it->p);
	*lo = it->first ? unzigzag(gap) : it->prev + 2 + (long long)gap;
	*hi = *lo + (long long)kp_varint_get(&it->p);
	it->prev = *hi;
	it->first = 0;
	return 1;
}
