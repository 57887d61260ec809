/* Unit tests for sha256.c: the FIPS 180-4 / NIST CSRC example vectors, a
 * message fed in uneven pieces, and a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kp_check.h"
#include "kp_diag.h"
#include "kp_sha256.h"

static const char *
digest(const char *msg, size_t n, size_t piece)
{
	static char hex[65];
	struct kp_sha256 c;
	size_t i, k;

	kp_sha256_init(&c);
	for (i = 0; i < n; i += k) {
		k = n - i < piece ? n - i : piece;
		kp_sha256_update(&c, msg + i, k);
	}
	kp_sha256_hex(&c, hex);
	return hex;
}

START_TEST(test_sha256_known_vectors)
{
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	const char *four = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
	    "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

	ck_assert_str_eq(digest("", 0, 64),
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ck_assert_str_eq(digest("abc", 3, 64),
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert_str_eq(digest(two, strlen(two), 64),
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	ck_assert_str_eq(digest(four, strlen(four), 64),
	    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}
END_TEST

START_TEST(test_sha256_million_a_in_pieces)
{
	size_t n = 1000000, pieces[] = { 1, 7, 63, 64, 65, 4096, 1000000 }, i;
	char *m = malloc(n);

	ck_assert_ptr_nonnull(m);
	memset(m, 'a', n);
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++)
		ck_assert_str_eq(digest(m, n, pieces[i]),
		    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(m);
}
END_TEST

/* 55, 56 and 64 bytes: the padding needs one block more from 56 on. */
START_TEST(test_sha256_padding_edges)
{
	char m[64];

	memset(m, 'a', sizeof(m));
	ck_assert_str_eq(digest(m, 55, 64),
	    "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	ck_assert_str_eq(digest(m, 56, 64),
	    "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	ck_assert_str_eq(digest(m, 64, 64),
	    "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}
END_TEST

START_TEST(test_sha256_file_and_missing_file)
{
	char path[] = "/tmp/kp-sha256-XXXXXX", hex[65];
	struct kp_err err;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "abc", 3), 3);
	close(fd);
	ck_assert_int_eq(kp_sha256_file(path, hex, &err), 0);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	unlink(path);
	ck_assert_int_eq(kp_sha256_file(path, hex, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, path));
	ck_assert_ptr_nonnull(strstr(err.msg, "No such file"));
}
END_TEST

static Suite *
sha256_suite(void)
{
	Suite *s = suite_create("sha256");
	TCase *tc = tcase_create("sha256");

	tcase_add_test(tc, test_sha256_known_vectors);
	tcase_add_test(tc, test_sha256_million_a_in_pieces);
	tcase_add_test(tc, test_sha256_padding_edges);
	tcase_add_test(tc, test_sha256_file_and_missing_file);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(sha256_suite)
