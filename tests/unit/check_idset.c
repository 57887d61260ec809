/*
 * Unit tests for idset.c: packed ID ranges against a plain model (the
 * lowest max distinct IDs seen; cut when there were more).
 */
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "kp_check.h"

#define MAXID 4000

struct model {
	unsigned char seen[MAXID];
	size_t distinct;
};

static void
model_add(struct model *m, long long id)
{
	if (!m->seen[id]) {
		m->seen[id] = 1;
		m->distinct++;
	}
}

/* The set holds the lowest max of the model's IDs, as maximal ranges. */
static void
same(const struct idset *s, const struct model *m, unsigned long long max)
{
	struct idset_iter it;
	long long lo, hi, prev = -10, id, want = -1;
	unsigned long long n = 0;
	size_t ranges = 0;

	kp_idset_iter(s, &it);
	while (kp_idset_next(&it, &lo, &hi)) {
		ck_assert_int_le(lo, hi);
		ck_assert_msg(lo >= prev + 2, "range %lld..%lld next to %lld", lo, hi, prev);
		for (id = lo; id <= hi; id++) {
			/* the next ID of the model, in order */
			for (want++; want < MAXID && !m->seen[want]; want++)
				;
			ck_assert_int_eq(id, want);
			n++;
		}
		prev = hi;
		ranges++;
	}
	ck_assert_uint_eq(ranges, s->nranges);
	ck_assert_uint_eq(n, s->n);
	ck_assert_uint_eq(n, m->distinct < max ? m->distinct : max);
	ck_assert_int_eq(s->cut, m->distinct > max);
}

static void
run(unsigned seed, unsigned long long max, int kind)
{
	struct idset s;
	struct model m;
	int i, pass;

	memset(&s, 0, sizeof(s));
	memset(&m, 0, sizeof(m));
	srand(seed);
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < 3000; i++) {
			long long id;

			switch (kind) {
			case 0:	/* one kernel of many interleaved: every 7th, some runs */
				id = (i * 7 + (rand() % 4 == 0)) % MAXID;
				break;
			case 1:	/* random */
				id = rand() % MAXID;
				break;
			default:	/* ascending runs, the file read again */
				id = i + (i / 50) * 3;
				if (id >= MAXID)
					id = MAXID - 1;
				break;
			}
			ck_assert_int_eq(kp_idset_add(&s, id, max), 0);
			model_add(&m, id);
			if (i % 499 == 0)
				same(&s, &m, max);
		}
	same(&s, &m, max);
	kp_idset_free(&s);
}

START_TEST(test_idset_matches_the_model)
{
	static const unsigned long long maxes[] = { 1, 2, 50, 1024, 100000 };
	size_t i;
	int kind;

	for (i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++)
		for (kind = 0; kind < 3; kind++)
			run(17 + (unsigned)i * 3 + (unsigned)kind, maxes[i], kind);
}
END_TEST

START_TEST(test_idset_packs_interleaved_ids_small)
{
	struct idset s;
	int i;

	memset(&s, 0, sizeof(s));
	/* a kernel's IDs among 1,000 kernels': 1,024 ranges of one ID, gaps of 1,000 */
	for (i = 0; i < 2000; i++)
		ck_assert_int_eq(kp_idset_add(&s, (long long)i * 1000 + 5, 1024), 0);
	ck_assert_uint_eq(s.nranges, 1024);
	ck_assert(s.cut);
	ck_assert_uint_le(s.len, 3 * 1024);	/* 16 bytes a range as two long longs */
	kp_idset_free(&s);
}
END_TEST

START_TEST(test_idset_negative_and_huge_ids)
{
	static const long long ids[] = { 5, -3, -2, 4, 1LL << 40, (1LL << 40) + 1, 0, -1 };
	struct idset s;
	struct idset_iter it;
	long long lo, hi;
	size_t i;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		ck_assert_int_eq(kp_idset_add(&s, ids[i], 100), 0);
	kp_idset_iter(&s, &it);
	ck_assert(kp_idset_next(&it, &lo, &hi));
	ck_assert(lo == -3 && hi == 0);
	ck_assert(kp_idset_next(&it, &lo, &hi));
	ck_assert(lo == 4 && hi == 5);
	ck_assert(kp_idset_next(&it, &lo, &hi));
	ck_assert(lo == 1LL << 40 && hi == (1LL << 40) + 1);
	ck_assert(!kp_idset_next(&it, &lo, &hi));
	ck_assert(!s.cut);
	kp_idset_free(&s);
}
END_TEST

static Suite *
idset_suite(void)
{
	Suite *s = suite_create("idset");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);	/* under the sanitizers: 45 runs of 9,000 IDs */
	tcase_add_test(tc, test_idset_matches_the_model);
	tcase_add_test(tc, test_idset_packs_interleaved_ids_small);
	tcase_add_test(tc, test_idset_negative_and_huge_ids);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(idset_suite)
