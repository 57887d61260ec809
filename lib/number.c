/* number.c: numbers as ncu prints them ("1,918,432", "89.46", "n/a", "-"). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kp.h"

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
	/* Fast path: plain integers with optional thousands separators. */
	{
		unsigned long long acc = 0;
		int neg = 0, ok = 1, nd = 0;

		i = 0;
		if (s[0] == '-') {
			neg = 1;
			i = 1;
		}
		for (; i < len; i++) {
			if (s[i] >= '0' && s[i] <= '9') {
				if (nd >= 18) {
					ok = 0;
					break;
				}
				acc = acc * 10 + (unsigned)(s[i] - '0');
				nd++;
			} else if (s[i] == ',' && nd > 0) {
				continue;
			} else {
				ok = 0;
				break;
			}
		}
		if (ok && nd > 0) {
			*out = neg ? -(double)acc : (double)acc;
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
