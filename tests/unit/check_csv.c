/* Unit tests for csv.c: the streaming reader of ncu's CSV output. */
#include <string.h>

#include "kp_check.h"

static struct kp_csv *
from_string(const char *s)
{
	FILE *fp = fmemopen((void *)s, strlen(s), "r");
	return kp_csv_open(fp, "mem.csv");
}

START_TEST(test_csv_skips_noise_lines)
{
	struct kp_err err;
	const char *s = "==PROF== Connected\nworkload says hi, twice\n\"a\",\"b\"\n==WARNING== x\n\"1\",\"2\"\n";
	struct kp_csv *c = from_string(s);

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_nfields(c), 2);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "a");
	ck_assert_uint_eq(kp_csv_line(c), 3);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "2");
	ck_assert_uint_eq(kp_csv_line(c), 5);
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	ck_assert_uint_eq(kp_csv_noise_lines(c), 3);
	ck_assert_str_eq(kp_csv_last_error_line(c), "==WARNING== x");
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_quotes_commas_newlines)
{
	struct kp_err err;
	const char *s = "\"x, \"\"y\"\"\",\"line1\nline2\",\"\",plain,\n\"z\"\n";
	struct kp_csv *c = from_string(s);

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_nfields(c), 5);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "x, \"y\"");
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "line1\nline2");
	ck_assert_uint_eq(kp_csv_field(c, 2)->len, 0);
	ck_assert_str_eq(kp_csv_field(c, 3)->s, "plain");
	ck_assert_str_eq(kp_csv_field(c, 4)->s, "");
	ck_assert_ptr_null(kp_csv_field(c, 5));
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_line(c), 3);	/* the record after a 2-line record */
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_truncated_quote_is_error)
{
	struct kp_err err;
	struct kp_csv *c = from_string("\"a\",\"b\"\n\"1\",\"2");

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_int_eq(kp_csv_next(c, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "mem.csv:2: truncated"));
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_missing_final_newline_is_error)
{
	struct kp_err err;
	struct kp_csv *c = from_string("\"a\",\"b\"");

	ck_assert_int_eq(kp_csv_next(c, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "no newline"));
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_crlf_line_endings)
{
	struct kp_err err;
	struct kp_csv *c = from_string("\"a\",b\r\n");

	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "b");
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_real_raw_page)
{
	struct kp_err err;
	struct kp_csv *c = kp_csv_open_path(KP_FIXTURES "/h200/hgemm_v0/basic_raw.csv", &err);
	size_t nhead;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* header */
	nhead = kp_csv_nfields(c);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "ID");
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* units */
	ck_assert_uint_eq(kp_csv_nfields(c), nhead);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* launch 0 */
	ck_assert_uint_eq(kp_csv_nfields(c), nhead);
	ck_assert_str_eq(kp_csv_field(c, 7)->s, "(16, 16, 1)");
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	ck_assert_uint_eq(kp_csv_noise_lines(c), 4);
	kp_csv_close(c);
}
END_TEST

START_TEST(test_csv_long_record_across_chunks)
{
	struct kp_err err;
	size_t n = 600000, i;
	char *s = malloc(n + 16);
	struct kp_csv *c;

	s[0] = '"';
	for (i = 1; i < n; i++)
		s[i] = 'x';
	strcpy(s + n, "\",\"y\"\n");
	c = from_string(s);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_field(c, 0)->len, n - 1);
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "y");
	kp_csv_close(c);
	free(s);
}
END_TEST

START_TEST(test_csv_missing_file)
{
	struct kp_err err;

	ck_assert_ptr_null(kp_csv_open_path("/nonexistent/x.csv", &err));
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_null(kp_csv_open_path("/tmp", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "is a directory"));
}
END_TEST

/* Records cross the 1 MiB read buffer's end, and one record is longer than it. */
START_TEST(test_csv_records_across_buffer_ends)
{
	struct kp_err err;
	size_t big = 3 * 1024 * 1024 + 17, len, i, bad = 0, nrec = 80000;
	char *s, *p, want[32];
	struct kp_csv *c;
	FILE *fp;

	len = nrec * 24 + big + 64;
	ck_assert_ptr_nonnull(s = malloc(len));
	p = s;
	for (i = 0; i < nrec; i++)	/* 1.5 MB: some record straddles 1 MiB */
		p += sprintf(p, "\"%zu\",\"a\"\"b\",x\n", i);
	*p++ = '"';
	memset(p, 'y', big);
	p += big;
	p += sprintf(p, "\"\r\n");
	ck_assert_ptr_nonnull(fp = fmemopen(s, (size_t)(p - s), "r"));
	ck_assert_ptr_nonnull(c = kp_csv_open(fp, "mem.csv"));
	for (i = 0; i < nrec && bad == 0; i++) {
		snprintf(want, sizeof(want), "%zu", i);
		if (kp_csv_next(c, &err) != 1 || kp_csv_nfields(c) != 3 ||
		    kp_csv_field(c, 0)->len != strlen(want) ||
		    strcmp(kp_csv_field(c, 0)->s, want) != 0 ||
		    strcmp(kp_csv_field(c, 1)->s, "a\"b") != 0 ||
		    strcmp(kp_csv_field(c, 2)->s, "x") != 0 || kp_csv_line(c) != i + 1)
			bad = i + 1;
	}
	ck_assert_msg(bad == 0, "record %zu is wrong", bad);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_uint_eq(kp_csv_nfields(c), 1);
	ck_assert_uint_eq(kp_csv_field(c, 0)->len, big);	/* the CR is not in it */
	ck_assert_int_eq(kp_csv_field(c, 0)->s[big], '\0');
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	kp_csv_close(c);
	fclose(fp);
	free(s);
}
END_TEST

static Suite *
csv_suite(void)
{
	Suite *s = suite_create("csv");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_csv_skips_noise_lines);
	tcase_add_test(tc, test_csv_quotes_commas_newlines);
	tcase_add_test(tc, test_csv_truncated_quote_is_error);
	tcase_add_test(tc, test_csv_missing_final_newline_is_error);
	tcase_add_test(tc, test_csv_crlf_line_endings);
	tcase_add_test(tc, test_csv_real_raw_page);
	tcase_add_test(tc, test_csv_long_record_across_chunks);
	tcase_add_test(tc, test_csv_missing_file);
	tcase_add_test(tc, test_csv_records_across_buffer_ends);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(csv_suite)
