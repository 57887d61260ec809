/* Unit tests for number.c and units.c: what ncu prints, in base units. */
#include <math.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_check.h"
#include "kp_number.h"
#include "kp_units.h"

static double
num(const char *s, enum kp_num want)
{
	double v = -12345;

	ck_assert_int_eq(kp_parse_number(s, strlen(s), &v), want);
	return v;
}

START_TEST(test_number_thousands_separators)
{
	ck_assert_double_eq(num("1,918,432", KP_NUM_OK), 1918432);
	ck_assert_double_eq_tol(num("3,199,456,836.29", KP_NUM_OK), 3199456836.29, 1e-3);
	ck_assert_double_eq_tol(num("89.46", KP_NUM_OK), 89.46, 1e-12);
	ck_assert_double_eq(num("-7", KP_NUM_OK), -7);
	ck_assert_double_eq_tol(num("1.5e3", KP_NUM_OK), 1500, 1e-9);
}
END_TEST

START_TEST(test_number_missing_and_bad)
{
	num("", KP_NUM_MISSING);
	num("-", KP_NUM_MISSING);
	num("n/a", KP_NUM_MISSING);
	num("N/A", KP_NUM_MISSING);
	num("PolicySpread", KP_NUM_BAD);
	num("(16, 16, 1)", KP_NUM_BAD);
	num("1.2.3", KP_NUM_BAD);
	ck_assert(isnan(num("nan", KP_NUM_OK)));
	ck_assert(isinf(num("inf", KP_NUM_OK)));
}
END_TEST

START_TEST(test_number_dim3_and_median)
{
	long v[3];
	double a[] = { 3, 1, 2 }, b[] = { 4, 1, 3, 2 };

	ck_assert_int_eq(kp_parse_dim3("(16, 16, 1)", v), 0);
	ck_assert_int_eq(v[0] * v[1] * v[2], 256);
	ck_assert_int_eq(kp_parse_dim3("(128, 128, 1)", v), 0);
	ck_assert_int_eq(v[1], 128);
	ck_assert_int_eq(kp_parse_dim3("banana", v), -1);
	ck_assert_double_eq(kp_median(a, 3), 2);
	ck_assert_double_eq(kp_median(b, 4), 2.5);
}
END_TEST

/* The fast decimal path gives exactly what strtod gives. */
START_TEST(test_number_fast_path_matches_strtod)
{
	static const char *const cases[] = { "0", "0.00", "89.46", "3,199,456,836.29",
		"1.914912", "0.000001", "-12.5", "100.000000", "97.635956", "007",
		"123456789012345", "1234567890123456789", "0.1", "2,230", "1." };
	unsigned long long r = 42;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		size_t j, n = 0;
		double v;

		for (j = 0; cases[i][j]; j++)
			if (cases[i][j] != ',')
				buf[n++] = cases[i][j];
		buf[n] = '\0';
		ck_assert_int_eq(kp_parse_number(cases[i], strlen(cases[i]), &v), KP_NUM_OK);
		ck_assert_msg(v == strtod(buf, NULL), "%s: %.17g", cases[i], v);
	}
	for (i = 0; i < 20000; i++) {	/* random decimals, 1..15 digits */
		char buf[64];
		double v;

		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		snprintf(buf, sizeof(buf), "%llu.%0*llu", (r >> 20) % 100000000ULL,
		    (int)(r % 7) + 1, (r >> 5) % 1000000ULL % 10000000ULL);
		ck_assert_int_eq(kp_parse_number(buf, strlen(buf), &v), KP_NUM_OK);
		ck_assert_msg(v == strtod(buf, NULL), "%s: %.17g", buf, v);
	}
	num(".", KP_NUM_BAD);
	num("-.", KP_NUM_BAD);
	num("1..2", KP_NUM_BAD);
}
END_TEST

static void
unit_is(const char *u, double scale, const char *base)
{
	struct kp_unit x;

	kp_unit_parse(u, &x);
	ck_assert_msg(x.known, "unit %s should be known", u);
	ck_assert_msg(fabs(x.scale - scale) <= 1e-9 * fabs(scale), "%s: scale %g, want %g",
	    u, x.scale, scale);
	ck_assert_str_eq(x.base, base);
}

/*
 * kp_decimal_exact against strtod: 400,000 random 54-64-bit mantissas with 0 to
 * 27 digits after the point, the wide rates of a real capture, and values that
 * lie exactly halfway between two doubles (the case double rounding gets
 * wrong: it must be refused or right).  Bit for bit.
 */
static unsigned long long
xrand(unsigned long long *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 7;
	*st ^= *st << 17;
	return *st;
}

static void
exact_vs_strtod(unsigned long long m, unsigned k, unsigned *refused)
{
	char digits[32], text[64];
	size_t n;
	double got, want;

	n = (size_t)snprintf(digits, sizeof digits, "%llu", m);
	if (k >= n) {	/* 0.000ddd */
		size_t z = k - n;

		text[0] = '0';
		text[1] = '.';
		memset(text + 2, '0', z);
		memcpy(text + 2 + z, digits, n + 1);
	} else if (k == 0)
		memcpy(text, digits, n + 1);
	else {
		memcpy(text, digits, n - k);
		text[n - k] = '.';
		memcpy(text + n - k + 1, digits + n - k, k + 1);
	}
	want = strtod(text, NULL);
	if (kp_decimal_exact(m, k, &got) < 0) {
		(*refused)++;
		return;
	}
	ck_assert_msg(memcmp(&got, &want, sizeof got) == 0, "%s: %.17g, strtod %.17g", text,
	    got, want);
}

START_TEST(test_number_wide_decimals_exact)
{
	static const struct { unsigned long long m; unsigned k; } cases[] = {
		{ 12961756734498847ULL, 2 },	/* 129,617,567,344,988.47 (full_raw.csv) */
		{ 106934493059615488ULL, 2 },	/* 1,069,344,930,596,154.88 */
		{ 17109518889538478ULL, 0 },	/* 17,109,518,889,538,478 */
		{ 90071992547409925ULL, 1 },	/* 2^53 + 0.5: a halfway value */
		{ 90071992547409935ULL, 1 },	/* 2^53 + 1.5 */
		{ 18014398509481985ULL, 0 },	/* 2^54 + 1: halfway, an integer */
		{ 18446744073709551615ULL, 0 }, { 18446744073709551615ULL, 27 },
		{ 9007199254740993ULL, 0 }, { 1ULL, 27 }, { 0ULL, 5 },
	};
	unsigned long long st = 0x9e3779b97f4a7c15ULL;
	unsigned refused = 0, i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		exact_vs_strtod(cases[i].m, cases[i].k, &refused);
	for (i = 0; i < 400000; i++) {
		unsigned bits = 54 + (unsigned)(xrand(&st) % 11);
		unsigned long long m = xrand(&st) >> (64 - bits);

		exact_vs_strtod(m | 1ULL << (bits - 1), (unsigned)(xrand(&st) % 28), &refused);
	}
	/* halfway values built on purpose: (2j + 1) * 2^(e - 1) over 10^k */
	for (i = 0; i < 2000; i++) {
		unsigned long long m = (xrand(&st) >> 12) | 1ULL << 52;	/* 53 bits */
		unsigned long long half = m * 2 + 1;			/* 54 bits, odd */

		exact_vs_strtod(half * 5, 1, &refused);			/* half / 2 */
		exact_vs_strtod(half * 25, 2, &refused);		/* half / 4 */
	}
#if LDBL_MANT_DIG == 64
	/* refusals are the rare halfway patterns, not the rule */
	ck_assert_msg(refused < 1000 + 4000, "refused %u", refused);
	ck_assert_msg(refused >= 4000, "the halfway values were not refused: %u", refused);
#endif
}
END_TEST

START_TEST(test_units_time_to_ns)
{
	unit_is("ns", 1, "ns");
	unit_is("us", 1e3, "ns");
	unit_is("ms", 1e6, "ns");
	unit_is("s", 1e9, "ns");
	unit_is("msecond", 1e6, "ns");
}
END_TEST

START_TEST(test_units_bytes_rates_and_frequency)
{
	unit_is("byte", 1, "byte");
	unit_is("Kbyte", 1e3, "byte");
	unit_is("Mbyte", 1e6, "byte");
	unit_is("Gbyte", 1e9, "byte");
	unit_is("Tbyte", 1e12, "byte");
	unit_is("byte/s", 1, "byte/s");
	unit_is("Gbyte/s", 1e9, "byte/s");
	unit_is("Tbyte/s", 1e12, "byte/s");
	unit_is("hz", 1, "hz");
	unit_is("Mhz", 1e6, "hz");
	unit_is("Ghz", 1e9, "hz");
	unit_is("sector/us", 1e6, "sector/s");
	unit_is("sector/ns", 1e9, "sector/s");
	unit_is("sector/ms", 1e3, "sector/s");
	unit_is("Kbyte/block", 1e3, "byte/block");
	unit_is("%/Kbyte", 1e-3, "%/byte");
	unit_is("%", 1, "%");
	unit_is("inst/cycle", 1, "inst/cycle");
	unit_is("register/thread", 1, "register/thread");
	unit_is("", 1, "");
}
END_TEST

START_TEST(test_units_unknown_kept)
{
	struct kp_unit x;

	kp_unit_parse("furlong/fortnight", &x);
	ck_assert_int_eq(x.known, 0);
	ck_assert_double_eq(x.scale, 1);
	ck_assert_str_eq(x.base, "furlong/fortnight");
	kp_unit_parse("Zbyte", &x);
	ck_assert_int_eq(x.known, 0);
}
END_TEST

static Suite *
number_suite(void)
{
	Suite *s = suite_create("number");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_number_thousands_separators);
	tcase_add_test(tc, test_number_missing_and_bad);
	tcase_add_test(tc, test_number_dim3_and_median);
	tcase_add_test(tc, test_number_fast_path_matches_strtod);
	tcase_add_test(tc, test_number_wide_decimals_exact);
	tcase_add_test(tc, test_units_time_to_ns);
	tcase_add_test(tc, test_units_bytes_rates_and_frequency);
	tcase_add_test(tc, test_units_unknown_kept);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(number_suite)
