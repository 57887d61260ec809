/* Unit tests for hash.c: the same bytes give the same hash, any other bytes
 * (one bit flipped, one byte more, another seed) another, on both sides of
 * the 64 bytes where the wide path takes over. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kp_check.h"
#include "kp_hash.h"

static void
fill(unsigned char *b, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (unsigned char)(seed >> 16);
	}
}

START_TEST(test_hash_same_bytes_same_hash)
{
	unsigned char a[300], b[300 + 8];
	size_t n;

	fill(a, sizeof a, 1);
	for (n = 0; n <= sizeof a; n++) {
		/* the same bytes at another alignment */
		memcpy(b + 3, a, n);
		ck_assert_uint_eq(kp_hash64(a, n, 7), kp_hash64(b + 3, n, 7));
		ck_assert_uint_eq(kp_hash64(a, n, 7), kp_hash64(a, n, 7));
	}
}
END_TEST

START_TEST(test_hash_every_bit_flip_changes_it)
{
	static const size_t lens[] = { 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 95, 96, 97, 200, 348 };
	unsigned char a[348];
	size_t k, i;
	int bit;

	for (k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		size_t n = lens[k];
		uint64_t h;

		fill(a, n, (unsigned)n);
		h = kp_hash64(a, n, 0);
		for (i = 0; i < n; i++)
			for (bit = 0; bit < 8; bit++) {
				a[i] ^= (unsigned char)(1u << bit);
				ck_assert_msg(kp_hash64(a, n, 0) != h, "length %zu byte %zu bit %d",
				    n, i, bit);
				a[i] ^= (unsigned char)(1u << bit);
			}
		ck_assert_uint_eq(kp_hash64(a, n, 0), h);
	}
}
END_TEST

START_TEST(test_hash_length_and_seed_count)
{
	unsigned char z[200];
	size_t n;

	memset(z, 0, sizeof z);
	for (n = 0; n < sizeof z; n++) {
		/* runs of zeros differ by their length alone */
		ck_assert_uint_ne(kp_hash64(z, n, 5), kp_hash64(z, n + 1, 5));
		ck_assert_uint_ne(kp_hash64(z, n, 5), kp_hash64(z, n, 6));
	}
}
END_TEST

static Suite *
hash_suite(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("hash");

	tcase_add_test(tc, test_hash_same_bytes_same_hash);
	tcase_add_test(tc, test_hash_every_bit_flip_changes_it);
	tcase_add_test(tc, test_hash_length_and_seed_count);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(hash_suite)
