/*
 * jsonw.c: JSON written as jansson writes it, without building jansson objects
 * (jnum/jset for the objects that are built; put_* for the records and
 * metrics_all.json formatted straight into a buffer or a FILE).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "metrics_int.h"

json_t *
mx_jnum(double v)
{
	if (isfinite(v) && v == rint(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	if (!isfinite(v))
		return json_null();
	return json_real(v);
}

int
mx_jset(json_t *o, const char *key, json_t *v)
{
	return v == NULL ? -1 : json_object_set_new(o, key, v);
}

/* Put value under "key" or, for "stalls.reason", under o["stalls"]["reason"]. */
int
mx_jset_key(json_t *o, const char *key, json_t *v)
{
	json_t *s;

	if (strncmp(key, "stalls.", 7) != 0)
		return mx_jset(o, key, v);
	if ((s = json_object_get(o, "stalls")) == NULL) {
		if (mx_jset(o, "stalls", json_object()) < 0) {
			json_decref(v);
			return -1;
		}
		s = json_object_get(o, "stalls");
	}
	return mx_jset(s, key + 7, v);
}

/*
 * The length of s when jansson writes it as it is, quoted (printable ASCII
 * without '"' or '\\'), else SIZE_MAX.
 */
static size_t
plain_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

#ifdef __SSE2__
	/* 16 bytes a step inside the string (a metric name is 30-80) */
	const __m128i flip = _mm_set1_epi8((char)0x80), lo = _mm_set1_epi8((char)(0x20 ^ 0x80)),
	    hi = _mm_set1_epi8((char)(0x7e ^ 0x80)), q = _mm_set1_epi8('"'),
	    bs = _mm_set1_epi8('\\');

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(p + i)), f = _mm_xor_si128(v, flip);
		__m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(f, lo), _mm_cmpgt_epi8(f, hi)),
		    _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));

		if (_mm_movemask_epi8(bad) != 0)
			return SIZE_MAX;
	}
#endif
	for (; i < n; i++)
		if (p[i] < 0x20 || p[i] >= 0x7f || p[i] == '"' || p[i] == '\\')
			return SIZE_MAX;
	return n;
}

/* s quoted into d, which has n + 3 bytes (n = plain_len(s)) */
static char *
quote(char *d, const char *s, size_t n)
{
	d[0] = '"';
	memcpy(d + 1, s, n);
	d[n + 1] = '"';
	d[n + 2] = '\0';
	return d;
}

/* s as jansson writes it as a JSON string, malloc'd; NULL if it refuses. */
char *
mx_jesc(const char *s)
{
	size_t n = plain_len(s);
	json_t *j;
	char *d;

	if (n != SIZE_MAX)
		return (d = malloc(n + 3)) == NULL ? NULL : quote(d, s, n);
	if ((j = json_string(s)) == NULL)
		return NULL;
	d = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
	json_decref(j);
	return d;
}

char *
mx_strdup(struct ex *x, const char *s)
{
	return kp_arena_strndup(&x->strs, s, strlen(s));
}

char *
mx_jesc_in(struct ex *x, const char *s)
{
	size_t n = plain_len(s);
	char *d, *e;

	if (n != SIZE_MAX)
		return (d = kp_arena_alloc(&x->strs, n + 3)) == NULL ? NULL : quote(d, s, n);
	if ((d = mx_jesc(s)) == NULL)
		return NULL;
	e = kp_arena_strndup(&x->strs, d, strlen(d));
	free(d);
	return e;
}

/* jansson's key order (strcmp), "stalls.x" sorting as "stalls", then "x" */
int
mx_keycmp(const char *a, const char *b)
{
	int sa = strncmp(a, "stalls.", 7) == 0, sb = strncmp(b, "stalls.", 7) == 0, r;

	r = strcmp(sa ? "stalls" : a, sb ? "stalls" : b);
	return r != 0 || !sa || !sb ? r : strcmp(a + 7, b + 7);
}

char *
mx_put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* "00" .. "99" */
static const char dig2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* u's digits in the bytes before e, two at a time from the end */
static inline void
digits_back(char *e, uint32_t u)
{
	while (u >= 100) {
		uint32_t r = u % 100;

		u /= 100;
		e -= 2;
		e[0] = dig2[2 * r];
		e[1] = dig2[2 * r + 1];
	}
	if (u >= 10) {
		e[-2] = dig2[2 * u];
		e[-1] = dig2[2 * u + 1];
	} else {
		e[-1] = (char)('0' + u);
	}
}

/* the digits of u < 2^32, counted by compares: 32-bit divisions, no loop to count */
static inline char *
put_u32(char *p, uint32_t u)
{
	size_t n = u < 10000 ? (u < 100 ? 1 + (u >= 10) : 3 + (u >= 1000)) :
	    u < 100000000 ? (u < 1000000 ? 5 + (u >= 100000) : 7 + (u >= 10000000)) :
	    9 + (u >= 1000000000);

	digits_back(p + n, u);
	return p + n;
}

/* u's decimal digits at p: those above the last eight first, then eight */
static char *
put_u64(char *p, unsigned long long u)
{
	if (u <= UINT32_MAX)
		return put_u32(p, (uint32_t)u);
	p = put_u64(p, u / 100000000);
	memset(p, '0', 8);
	digits_back(p + 8, (uint32_t)(u % 100000000));
	return p + 8;
}

char *
mx_put_ll(char *p, long long v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, 0 - (unsigned long long)v);
	}
	return put_u64(p, (unsigned long long)v);
}

/* jansson's real: "%.15g", ".0" if it looks like an integer, no '+' or
 * leading zeros in the exponent (jsonp_dtostr) */
static char *
put_real_printf(char *p, double v)
{
	char buf[100], *start, *end;
	size_t len;

	len = (size_t)snprintf(buf, sizeof(buf), "%.15g", v);
	if (strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL) {
		buf[len++] = '.';
		buf[len++] = '0';
		buf[len] = '\0';
	}
	if ((start = strchr(buf, 'e')) != NULL) {
		start++;
		end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, len - (size_t)(end - buf));
			len -= (size_t)(end - start);
		}
	}
	memcpy(p, buf, len);
	return p + len;
}

/*
 * A finite non-integral double as jansson writes it with precision 15.  The
 * fast case: |v| is the double nearest to r / 10^k, r < 10^15; "%.15g" then
 * prints exactly that decimal (15 digits survive decimal -> double ->
 * decimal), and the first such k has no trailing zero.  Below 10^-4 "%g"
 * switches to an exponent: printf does those.
 */
static char *
put_real(char *p, double v)
{
	double a = fabs(v), r;
	char *e;
	int k, nd, x, i;

	for (k = 1; k <= 15; k++) {
		r = rint(a * mx_p10[k]);
		if (r >= 1e15)
			break;
		if (r / mx_p10[k] != a)
			continue;
		if (v < 0)
			*p++ = '-';
		/* r's digits one byte on, its first x + 1 moved back over the point */
		e = put_u64(p + 1, (unsigned long long)r);
		nd = (int)(e - p - 1);
		x = nd - 1 - k;	/* the decimal exponent */
		if (x < -4) {
			if (v < 0)
				p--;
			break;
		}
		if (x >= 0) {
			for (i = 0; i <= x; i++)
				p[i] = p[i + 1];
			p[x + 1] = '.';
			return e;
		}
		/* "0.", -x - 1 zeros, then the nd digits moved on to follow them */
		e = p + 1 - x;
		for (i = nd; i > 0; i--)
			e[i - 1] = p[i];
		p[0] = '0';
		p[1] = '.';
		for (i = 2; i < 1 - x; i++)
			p[i] = '0';
		return e + nd;
	}
	return put_real_printf(p, v);
}

/* as mx_jnum() then json_dumpf */
char *
mx_put_num(char *p, double v)
{
	if (isfinite(v) && v == rint(v) && fabs(v) < 9e15)
		return mx_put_ll(p, (long long)v);
	if (!isfinite(v))
		return mx_put_str(p, "null");
	return put_real(p, v);
}

/*
 * v as mx_put_num() writes it, where cell (a decimal cell: mantissa m, f
 * digits after the point) may be v's: then v is the double nearest to
 * m / 10^f, m < 2^26, and with m's trailing zeros dropped no shorter
 * decimal of 15 digits or fewer has that double (they would not survive
 * decimal -> double -> decimal), so put_real()'s search ends at that f:
 * its digits are m's, written without the search's multiplications and
 * divisions.  Any other cell, or one that is not v's, goes to mx_put_num().
 */
/*
 * v, written as mx_put_num() does, from the decimal m / 10^f (neg: its sign)
 * that %.15g prints for it (m below 10^15); printf's exponent form goes to
 * mx_put_num().
 */
static char *
put_decimal(char *p, double v, unsigned long long m, unsigned f, int neg)
{
	char d[16];
	size_t nd, i;

	while (f > 0 && m % 10 == 0) {
		m /= 10;
		f--;
	}
	if (f == 0)	/* an integer: -0 is "0", as (long long)-0.0 */
		return m == 0 || !neg ? put_u64(p, m) : mx_put_ll(p, -(long long)m);
	nd = (size_t)(put_u64(d, m) - d);
	if ((long)nd - 1 - (long)f < -4)	/* %g's exponent form: printf's */
		return mx_put_num(p, v);
	if (neg)
		*p++ = '-';
	if (nd > f) {	/* digits, the point, f digits */
		memcpy(p, d, nd - f);
		p += nd - f;
		*p++ = '.';
		memcpy(p, d + nd - f, f);
		return p + f;
	}
	*p++ = '0';	/* "0.", f - nd zeros, the digits */
	*p++ = '.';
	for (i = nd; i < f; i++)
		*p++ = '0';
	memcpy(p, d, nd);
	return p + nd;
}

char *
mx_put_dec(char *p, double v, uint32_t cell)
{
	unsigned long long m = cell & CELL_MANT;
	unsigned f = (cell >> 26) & 15;
	double a;

	if (cell & CELL_ESC)	/* CELL_ABSENT too */
		return mx_put_num(p, v);
	a = (double)m / mx_p10[f];
	if ((cell & CELL_NEG ? -a : a) != v)
		return mx_put_num(p, v);
	return put_decimal(p, v, m, f, (cell & CELL_NEG) != 0);
}

/*
 * v as mx_put_num() writes it, where dec may be v's decimal D = m / 10^f
 * (medians.c).  Where v is D's nearest double, as for mx_put_dec().  Where
 * it is a neighbour of that (the mean of two decimal cells, within 1.5 ulps
 * of D), put_real()'s search finds no decimal of 15 digits or fewer (any
 * such would be within 2 ulps of D, and they are 4.5 ulps apart or more),
 * and printf's "%.15g" rounds v to D: v is within 2 ulps, under half a step
 * of 15 digits (5e-16 of v or more), so D's digits again, but for an
 * integral D, where put_real() adds ".0" (mx_put_num() then).
 */
char *
mx_put_med(char *p, double v, uint64_t dec)
{
	unsigned long long m = dec >> 5;
	unsigned f = (dec >> 1) & 15;
	double a;

	if (dec == MX_NODEC || m >= 1000000000000000ULL)
		return mx_put_num(p, v);
	a = (double)m / mx_p10[f];	/* m < 2^53: one correctly rounded division */
	if (dec & 1)
		a = -a;
	if (a != v) {
		if (v != nextafter(a, INFINITY) && v != nextafter(a, -INFINITY))
			return mx_put_num(p, v);
		while (f > 0 && m % 10 == 0) {
			m /= 10;
			f--;
		}
		if (f == 0)
			return mx_put_num(p, v);
	}
	return put_decimal(p, v, m, f, (int)(dec & 1));
}

/* s as a JSON string: directly when it needs no escape, else by jansson. */
int
mx_put_jstr(FILE *fp, const char *s)
{
	char *e;

	if (plain_len(s) != SIZE_MAX) {
		putc('"', fp);
		fputs(s, fp);
		putc('"', fp);
		return 0;
	}
	if ((e = mx_jesc(s)) == NULL)
		return -1;
	fputs(e, fp);
	free(e);
	return 0;
}
