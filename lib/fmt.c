/*
 * fmt.c: numbers in readable units for the reports.
 *
 * Decimal prefixes only (1 kB = 1000 byte), the way ncu prints its units, so a
 * value read back from a report matches the CSV it came from.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kp_fmt.h"
#include "kp_summary_keys.h"

/* Digits after the point that leave three significant digits for |v| in [1, 1000). */
static int
decimals3(double v)
{
	double a = fabs(v);

	if (a >= 100)
		return 0;
	if (a >= 10)
		return 1;
	return 2;
}

char *
kp_fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
	else if (v == floor(v) && a < 1e15)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 0.01)
		snprintf(buf, len, "%.*f", decimals3(v) + (a < 1 ? 1 : 0), v);
	else
		snprintf(buf, len, "%.3g", v);
	return buf;
}

struct scale {
	const char *base;	/* base unit */
	const char *names[6];	/* unit names for 1e0, 1e3, ... (NULL: none) */
	double first;		/* the factor of names[0] relative to base */
};

static const struct scale scales[] = {
	{ "ns", { "ns", "us", "ms", "s", NULL, NULL }, 1 },
	{ "byte", { "B", "kB", "MB", "GB", "TB", "PB" }, 1 },
	{ "byte/s", { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s" }, 1 },
	{ "hz", { "Hz", "kHz", "MHz", "GHz", "THz", NULL }, 1 },
};

static const char *const si[] = { "", "k", "M", "G", "T", "P" };

/* value already divided into [1, 1000): print it, going up one step on rounding. */
static void
put(char *buf, size_t len, double v, const char *unit, const char *prefix)
{
	snprintf(buf, len, "%.*f %s%s", decimals3(v), v, prefix, unit);
}

char *
kp_fmt_unit(char *buf, size_t len, double v, const char *base)
{
	size_t i, k;
	double a = fabs(v);

	if (base == NULL)
		base = "";
	if (!isfinite(v) || v == 0) {
		char n[32];

		kp_fmt_num(n, sizeof n, v);
		snprintf(buf, len, "%s%s%s", n, *base ? " " : "", base);
		return buf;
	}
	if (strcmp(base, "%") == 0) {
		snprintf(buf, len, "%.1f %%", v);
		return buf;
	}
	for (i = 0; i < sizeof scales / sizeof scales[0]; i++) {
		const struct scale *s = &scales[i];

		if (strcmp(base, s->base) != 0)
			continue;
		for (k = 0; k + 1 < 6 && s->names[k + 1] != NULL && a >= 999.5 * pow(1e3, k); k++)
			;
		put(buf, len, v / pow(1e3, k), s->names[k], "");
		return buf;
	}
	if (*base == '\0' || a < 1e4 || strstr(base, "/s") == NULL) {
		char n[32];

		kp_fmt_num(n, sizeof n, v);
		snprintf(buf, len, "%s%s%s", n, *base ? " " : "", base);
		return buf;
	}
	for (k = 0; k + 1 < 6 && a >= 999.5 * pow(1e3, k); k++)
		;
	put(buf, len, v / pow(1e3, k), base, si[k]);
	return buf;
}

char *
kp_fmt_base(char *buf, size_t len, double v, const char *base)
{
	char n[40];

	if (isfinite(v) && v != floor(v))
		snprintf(n, sizeof n, "%.6g", v);
	else
		kp_fmt_num(n, sizeof n, v);
	snprintf(buf, len, "%s%s%s", n, base && *base ? " " : "", base ? base : "");
	return buf;
}

char *
kp_fmt_change_pct(char *buf, size_t len, double pct)
{
	if (!isfinite(pct))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.1f %%", pct);
	return buf;
}

static int
ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

const char *
kp_summary_key_unit(const char *key)
{
	const struct kp_summary_key *k = kp_summary_key(key);

	if (k != NULL)
		return k->unit;
	return ends_with(key, "_pct") ? "%" : "";
}
