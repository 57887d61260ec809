/*
 * units.c: ncu's unit strings to base units.
 *
 * A unit is a numerator and an optional "/denominator" ("Kbyte/block",
 * "sector/us", "%/register").  Each part may carry a decimal SI prefix
 * (K, M, G, T, P; m, u, n) in front of a known word.  Time alone becomes ns; a
 * time in a denominator becomes per second.  Prefixes of count-like words are
 * decimal, as ncu prints them (Kbyte = 1000 byte).
 */
#include <stdio.h>
#include <string.h>

#include "kp_units.h"

struct word {
	const char *name;
	const char *base;	/* NULL: keep name */
	double scale;
	int time;		/* a time unit (s) */
};

static const struct word words[] = {
	{ "byte", NULL, 1, 0 }, { "bytes", "byte", 1, 0 }, { "bit", NULL, 1, 0 },
	{ "hz", NULL, 1, 0 }, { "Hz", "hz", 1, 0 },
	{ "s", NULL, 1, 1 }, { "second", "s", 1, 1 }, { "sec", "s", 1, 1 },
	{ "cycle", NULL, 1, 0 }, { "cycles", "cycle", 1, 0 },
	{ "sector", NULL, 1, 0 }, { "sectors", "sector", 1, 0 },
	{ "inst", NULL, 1, 0 }, { "warp", NULL, 1, 0 }, { "warps", "warp", 1, 0 },
	{ "block", NULL, 1, 0 }, { "thread", NULL, 1, 0 }, { "request", NULL, 1, 0 },
	{ "register", NULL, 1, 0 }, { "pass", NULL, 1, 0 }, { "branches", NULL, 1, 0 },
	{ "cluster", NULL, 1, 0 }, { "SM", NULL, 1, 0 }, { "sample", NULL, 1, 0 },
	{ "%", NULL, 1, 0 }, { "flop", NULL, 1, 0 }, { "wavefront", NULL, 1, 0 },
	{ "transaction", NULL, 1, 0 }, { "instruction", NULL, 1, 0 }, { "W", NULL, 1, 0 },
	{ "C", NULL, 1, 0 }, { "ratio", NULL, 1, 0 }, { "x", NULL, 1, 0 },
	{ "msecond", "s", 1e-3, 1 }, { "usecond", "s", 1e-6, 1 }, { "nsecond", "s", 1e-9, 1 },
};

static const struct {
	char c;
	double f;
} prefixes[] = {
	{ 'K', 1e3 }, { 'k', 1e3 }, { 'M', 1e6 }, { 'G', 1e9 }, { 'T', 1e12 }, { 'P', 1e15 },
	{ 'm', 1e-3 }, { 'u', 1e-6 }, { 'n', 1e-9 },
};

/* One part; 0 ok, -1 unknown. */
static int
part(const char *s, size_t n, double *scale, const char **base, size_t *blen, int *time)
{
	size_t i, p;

	for (p = 0; p < 2; p++) {
		double f = 1;
		const char *w = s;
		size_t wn = n;

		if (p == 1) {
			size_t k;
			int found = 0;

			if (n < 2)
				return -1;
			for (k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
				if (s[0] == prefixes[k].c) {
					f = prefixes[k].f;
					found = 1;
				}
			if (!found)
				return -1;
			w = s + 1;
			wn = n - 1;
		}
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			if (strlen(words[i].name) == wn && memcmp(words[i].name, w, wn) == 0) {
				/* "ms" with p==0 must not match "m"+"s" twice: exact first. */
				*scale = f * words[i].scale;
				*base = words[i].base ? words[i].base : words[i].name;
				*blen = strlen(*base);
				*time = words[i].time;
				return 0;
			}
		}
	}
	return -1;
}

void
kp_unit_parse(const char *unit, struct kp_unit *u)
{
	const char *slash;
	double s1 = 1, s2 = 1;
	const char *b1, *b2;
	size_t l1, l2, n;
	int t1 = 0, t2 = 0;

	u->scale = 1;
	u->known = 1;
	if (unit == NULL)
		unit = "";
	n = strlen(unit);
	snprintf(u->base, sizeof(u->base), "%s", unit);
	if (n == 0)
		return;
	slash = strchr(unit, '/');
	if (part(unit, slash ? (size_t)(slash - unit) : n, &s1, &b1, &l1, &t1) < 0) {
		u->known = 0;
		return;
	}
	if (slash == NULL) {
		if (t1) {	/* time: base ns */
			u->scale = s1 * 1e9;
			snprintf(u->base, sizeof(u->base), "ns");
		} else {
			u->scale = s1;
			snprintf(u->base, sizeof(u->base), "%.*s", (int)l1, b1);
		}
		return;
	}
	if (part(slash + 1, n - (size_t)(slash + 1 - unit), &s2, &b2, &l2, &t2) < 0) {
		u->known = 0;
		return;
	}
	if (t1) {		/* a time in a numerator over something: keep ns */
		s1 *= 1e9;
		b1 = "ns";
		l1 = 2;
	}
	u->scale = s1 / s2;
	snprintf(u->base, sizeof(u->base), "%.*s/%.*s", (int)l1, b1, (int)l2, b2);
}
