/* number.c: numbers as ncu prints them ("1,918,432", "89.46", "n/a", "-"). */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kp_number.h"

/* 10^0 .. 10^22: exact doubles */
static const double pow10d[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

enum kp_num
kp_parse_number(const char *s, size_t len, double *out)
{
	char tmp[128];
	size_t i, n = 0;
	char *end;
	double v;
	int digits = 0;

	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0 || (len == 1 && s[0] == '-') ||
	    (len == 3 && strncasecmp(s, "n/a", 3) == 0))
		return KP_NUM_MISSING;
	if (len >= sizeof(tmp))
		return KP_NUM_BAD;
	/*
	 * Fast path: [-]digits with thousands separators and an optional
	 * fraction.  With at most 15 significant digits the mantissa and 10^k
	 * (k <= 22) are exact doubles, so one division is correctly rounded
	 * (Clinger's fast path): the same value strtod gives, at a tenth of
	 * the cost.
	 */
	{
		unsigned long long acc = 0;
		int neg = 0, nd = 0, nfrac = 0, dot = 0;

		i = 0;
		if (s[0] == '-') {
			neg = 1;
			i = 1;
		}
		for (; i < len; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '0';

			if (d < 10) {
				if (acc == 0 && d == 0 && !dot)
					continue;	/* leading zeros */
				if (++nd > 15)
					break;
				acc = acc * 10 + d;
				nfrac += dot;
			} else if (s[i] == ',' && !dot && i > (size_t)neg) {
				continue;
			} else if (s[i] == '.' && !dot) {
				dot = 1;
			} else {
				break;
			}
		}
		if (i == len && nfrac <= 22 && len > (size_t)neg + (size_t)dot) {
			double v0 = (double)acc / pow10d[nfrac];

			*out = neg ? -v0 : v0;
			return KP_NUM_OK;
		}
	}
	for (i = 0; i < len; i++) {
		if (s[i] == ',')
			continue;
		if (isdigit((unsigned char)s[i]))
			digits++;
		tmp[n++] = s[i];
	}
	tmp[n] = '\0';
	v = strtod(tmp, &end);
	if (end == tmp || *end != '\0')
		return KP_NUM_BAD;
	if (digits == 0 && !isnan(v) && !isinf(v))
		return KP_NUM_BAD;
	*out = v;
	return KP_NUM_OK;
}

int
kp_parse_dim3(const char *s, long v[3])
{
	int n = 0;
	char *end;

	while (*s == ' ' || *s == '(')
		s++;
	while (n < 3) {
		long x = strtol(s, &end, 10);
		if (end == s)
			return -1;
		v[n++] = x;
		s = end;
		while (*s == ' ' || *s == ',')
			s++;
	}
	while (*s == ' ')
		s++;
	return *s == ')' || *s == '\0' ? 0 : -1;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
kp_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmpd);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/*
 * m x 10^-k, correctly rounded, for the wide decimals of ncu's rates
 * ("1,069,344,930,596,154.88": more significant digits than a double holds).
 * With k = 0 it is one conversion of a 64-bit integer, which rounds once.
 * Otherwise, where long double has a 64-bit mantissa (x86), m and 10^k (k <= 27:
 * 5^27 < 2^64) are exact long doubles and one division rounds once to 64 bits;
 * rounding that to a double rounds twice, which can differ from rounding once
 * only when the 11 bits between the two precisions land exactly on the
 * halfway pattern.  That case (about 1 in 2,048) and anything else is left
 * to strtod: -1.
 */
int
kp_decimal_exact(unsigned long long m, unsigned k, double *out)
{
	if (k == 0) {
		*out = (double)m;
		return 0;
	}
#if LDBL_MANT_DIG == 64
	if (k <= 27) {
		static const long double p10[] = { 1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L,
			1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L,
			1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L,
			1e25L, 1e26L, 1e27L };
		long double q = (long double)m / p10[k], f;
		int e;

		if (q == 0) {
			*out = 0;
			return 0;
		}
		f = frexpl(q, &e);	/* q = f * 2^e, f in [0.5, 1) */
		if (((unsigned long long)ldexpl(f, 64) & 0x7ff) == 0x400)
			return -1;
		*out = (double)q;
		return 0;
	}
#endif
	return -1;
}

/*
 * [-]digits with commas and one point: the correctly rounded double, as
 * strtod gives it.  Digits below 2^53 with at most 22 after the point: one
 * division of exact doubles (Clinger's fast path); up to 2^64:
 * kp_decimal_exact(); -1 otherwise.
 */
int
kp_parse_decimal_wide(const char *s, size_t len, double *out)
{
	size_t i = s[0] == '-';
	uint64_t acc = 0;
	unsigned nfrac = 0, dot = 0;
	int wide = 0;

	for (; i < len; i++) {
		uint64_t d = (uint64_t)(unsigned char)s[i] - '0';

		if (d < 10) {
			if (acc > (UINT64_MAX - 9) / 10)
				return -1;
			acc = acc * 10 + d;
			nfrac += dot;
			wide |= acc >= (uint64_t)1 << 53;
		} else if (s[i] == '.' && !dot) {
			dot = 1;
		} else if (s[i] != ',' || dot) {
			return -1;
		}
	}
	if (!wide && nfrac <= 22)
		*out = (double)acc / pow10d[nfrac];
	else if (kp_decimal_exact(acc, nfrac, out) < 0)
		return -1;
	if (s[0] == '-')
		*out = -*out;
	return 0;
}
