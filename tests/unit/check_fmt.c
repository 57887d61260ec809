/* Unit tests for fmt.c: readable decimal units, three significant digits. */
#include <math.h>
#include <string.h>

#include "kp_check.h"
#include "kp_fmt.h"

static const char *
u(double v, const char *base)
{
	static char buf[64];

	return kp_fmt_unit(buf, sizeof buf, v, base);
}

START_TEST(test_fmt_time_scales_to_three_digits)
{
	ck_assert_str_eq(u(1918432, "ns"), "1.92 ms");
	ck_assert_str_eq(u(627968, "ns"), "628 us");
	ck_assert_str_eq(u(999.7, "ns"), "1.00 us");
	ck_assert_str_eq(u(12, "ns"), "12.0 ns");
	ck_assert_str_eq(u(2.5e9, "ns"), "2.50 s");
	ck_assert_str_eq(u(-1290464, "ns"), "-1.29 ms");
}
END_TEST

START_TEST(test_fmt_rates_bytes_and_clocks_are_decimal)
{
	ck_assert_str_eq(u(4.81e12, "byte/s"), "4.81 TB/s");
	ck_assert_str_eq(u(1.5e6, "byte"), "1.50 MB");
	ck_assert_str_eq(u(3.2e9, "hz"), "3.20 GHz");
	ck_assert_str_eq(u(2.5e9, "sector/s"), "2.50 Gsector/s");
}
END_TEST

START_TEST(test_fmt_percent_one_decimal)
{
	ck_assert_str_eq(u(89.37, "%"), "89.4 %");
	ck_assert_str_eq(u(100, "%"), "100.0 %");
	ck_assert_str_eq(u(0, "%"), "0 %");
}
END_TEST

START_TEST(test_fmt_counts_stay_whole)
{
	char b[64];

	ck_assert_str_eq(u(16384, "block"), "16384 block");
	ck_assert_str_eq(u(972046, ""), "972046");
	ck_assert_str_eq(kp_fmt_num(b, sizeof b, 3.0812), "3.08");
	ck_assert_str_eq(kp_fmt_num(b, sizeof b, 0.523), "0.523");
	ck_assert_str_eq(kp_fmt_num(b, sizeof b, 1.5e-7), "1.5e-07");
	ck_assert_str_eq(kp_fmt_num(b, sizeof b, NAN), "nan");
}
END_TEST

START_TEST(test_fmt_base_keeps_precision)
{
	char b[64];

	ck_assert_str_eq(kp_fmt_base(b, sizeof b, 1918432, "ns"), "1918432 ns");
	ck_assert_str_eq(kp_fmt_base(b, sizeof b, 80.74, "%"), "80.74 %");
	ck_assert_str_eq(kp_fmt_change_pct(b, sizeof b, -67.2666), "-67.3 %");
	ck_assert_str_eq(kp_fmt_change_pct(b, sizeof b, 200), "+200.0 %");
	ck_assert_str_eq(kp_fmt_change_pct(b, sizeof b, INFINITY), "n/a");
}
END_TEST

START_TEST(test_fmt_summary_key_units)
{
	ck_assert_str_eq(kp_summary_key_unit("duration_ns"), "ns");
	ck_assert_str_eq(kp_summary_key_unit("l2_hit_rate_pct"), "%");
	ck_assert_str_eq(kp_summary_key_unit("stalls.barrier"), "");
	ck_assert_str_eq(kp_summary_key_unit("shared_bank_conflicts"), "");
}
END_TEST

START_TEST(test_fmt_truncates_safely)
{
	char b[4];

	kp_fmt_unit(b, sizeof b, 1918432, "ns");
	ck_assert_uint_eq(strlen(b), 3);
}
END_TEST

static Suite *
fmt_suite(void)
{
	Suite *s = suite_create("fmt");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fmt_time_scales_to_three_digits);
	tcase_add_test(tc, test_fmt_rates_bytes_and_clocks_are_decimal);
	tcase_add_test(tc, test_fmt_percent_one_decimal);
	tcase_add_test(tc, test_fmt_counts_stay_whole);
	tcase_add_test(tc, test_fmt_base_keeps_precision);
	tcase_add_test(tc, test_fmt_summary_key_units);
	tcase_add_test(tc, test_fmt_truncates_safely);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(fmt_suite)
