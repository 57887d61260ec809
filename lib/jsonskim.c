/*
 * jsonskim.c: check a JSON text the way jansson's parser would take it, a
 * few instructions a byte, and note where its outer values lie.  kp-decide
 * and kp-report read one kernel of a 15-kernel metrics_summary.json: building
 * all of it with jansson cost 150 instructions a byte, 23 M of a 30 M run.
 * Anything this does not judge exactly is refused, and the caller parses the
 * text whole (see kp_jsonskim.h).
 */
#include <stdlib.h>
#include <string.h>

#include "kp_jsonskim.h"

#define MAX_NEST 64

struct key {
	const char *p;
	size_t len;
};

struct sk {
	const char *p, *end;
	int maxdepth;
	struct kp_jskim_node *nodes;
	size_t n, cap;
	struct key *keys;	/* the open objects' keys, a stack */
	size_t nkeys, capkeys;
	struct key **slot;	/* a hash table of one object's keys */
	size_t capslot;
};

/* JSON's blanks: ' ', '\t', '\n', '\r'. */
static const unsigned char blank[256] = { ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, [' '] = 1 };

static void
ws(struct sk *s)
{
	const char *p = s->p;

	while (p < s->end && blank[(unsigned char)*p])
		p++;
	s->p = p;
}

/* Bytes a string holds as they are: printable ASCII but '"' and '\\'. */
static const unsigned char plain[256] = {
	['\x20'] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 0x20-0x2f, not '"' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,		/* 0x50-0x5f, not '\\' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static int
hex4(const char *p, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		unsigned c = (unsigned char)p[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/* One UTF-8 sequence of 2 to 4 bytes at p, as jansson's utf8_check_* take it:
 * its length, or 0. */
static size_t
utf8(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0], v, i, n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, v = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
	    (n == 4 && (v < 0x10000 || v > 0x10ffff)))
		return 0;
	return n;
}

/* A string from its opening quote; *escaped: it holds a backslash. */
static int
string(struct sk *s, int *escaped)
{
	const unsigned char *p = (const unsigned char *)s->p + 1;
	const unsigned char *end = (const unsigned char *)s->end;
	unsigned v;
	size_t n;

	*escaped = 0;
	for (;;) {
		while (p < end && plain[*p])
			p++;
		if (p >= end)
			return -1;
		if (*p == '"')
			break;
		if (*p == '\\') {
			*escaped = 1;
			if (end - p < 2)
				return -1;
			switch (p[1]) {
			case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r':
			case 't':
				p += 2;
				continue;
			case 'u':
				/* not NUL (jansson refuses it), nor a surrogate (pairs) */
				if (end - p < 6 || hex4((const char *)p + 2, &v) < 0 || v == 0 ||
				    (v >= 0xd800 && v <= 0xdfff))
					return -1;
				p += 6;
				continue;
			default:
				return -1;
			}
		}
		if (*p < 0x80 || (n = utf8(p, end)) == 0)	/* a control character */
			return -1;
		p += n;
	}
	s->p = (const char *)p + 1;
	return 0;
}

static int
digits(struct sk *s)
{
	const char *b = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return (int)(s->p - b);
}

/* A number as jansson's lexer takes one, refusing what could overflow. */
static int
number(struct sk *s)
{
	int nint, nexp, real = 0;

	if (*s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0') {
		s->p++;
		nint = 1;
		if (s->p < s->end && *s->p >= '0' && *s->p <= '9')
			return -1;
	} else if ((nint = digits(s)) == 0)
		return -1;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (digits(s) == 0)
			return -1;
		real = 1;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		/* at most 1e99 times 200 digits: far from DBL_MAX */
		nexp = digits(s);
		if (nexp == 0 || nexp > 2)
			return -1;
		real = 1;
	}
	if (real ? nint > 200 : nint > 18)	/* an integer that fits a long long */
		return -1;
	return 0;
}

static int
word(struct sk *s, const char *w, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return -1;
	s->p += n;
	return 0;
}

static long
note(struct sk *s, long parent, const char *key, size_t klen)
{
	struct kp_jskim_node *nn;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;

		if ((nn = realloc(s->nodes, cap * sizeof(*nn))) == NULL)
			return -1;
		s->nodes = nn;
		s->cap = cap;
	}
	nn = &s->nodes[s->n];
	nn->parent = parent;
	nn->key = key;
	nn->klen = klen;
	nn->val = s->p;
	nn->vlen = 0;
	nn->type = *s->p == '-' || (*s->p >= '0' && *s->p <= '9') ? 'n' :
	    *s->p == 'n' ? 'z' : *s->p;
	return (long)s->n++;
}

static int
same(const struct key *x, const struct key *y)
{
	return x->len == y->len && memcmp(x->p, y->p, x->len) == 0;
}

static size_t
hash(const struct key *k)
{
	unsigned long long h = k->len * 0x9e3779b97f4a7c15ULL, w;
	size_t i;

	for (i = 0; i + 8 <= k->len; i += 8) {
		memcpy(&w, k->p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, k->p + i, k->len - i);
	h = (h ^ w) * 0x100000001b3ULL;
	return (size_t)(h ^ h >> 32);
}

/* Whether the keys from the stack's from-th on hold one twice. */
static int
dup_keys(struct sk *s, size_t from)
{
	struct key *k = s->keys + from;
	size_t n = s->nkeys - from, i, j, size, h;

	if (n <= 8) {
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				if (same(&k[i], &k[j]))
					return 1;
		return 0;
	}
	for (size = 16; size < 2 * n; size *= 2)
		;
	if (size > s->capslot) {
		struct key **ns = realloc(s->slot, size * sizeof(*ns));

		if (ns == NULL)
			return 1;	/* "parse it whole" */
		s->slot = ns;
		s->capslot = size;
	}
	memset(s->slot, 0, size * sizeof(*s->slot));
	for (i = 0; i < n; i++) {
		for (h = hash(&k[i]) & (size - 1); s->slot[h] != NULL; h = (h + 1) & (size - 1))
			if (same(s->slot[h], &k[i]))
				return 1;
		s->slot[h] = &k[i];
	}
	return 0;
}

static int value(struct sk *s, int depth, long parent, const char *key, size_t klen);

static int
object(struct sk *s, int depth, long self)
{
	size_t from = s->nkeys;
	const char *k;
	int esc;

	s->p++;
	ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return 0;
	}
	for (;;) {
		if (s->p >= s->end || *s->p != '"')
			return -1;
		k = s->p + 1;
		if (string(s, &esc) < 0 || esc)
			return -1;
		if (s->nkeys == s->capkeys) {
			size_t cap = s->capkeys ? s->capkeys * 2 : 256;
			struct key *nk = realloc(s->keys, cap * sizeof(*nk));

			if (nk == NULL)
				return -1;
			s->keys = nk;
			s->capkeys = cap;
		}
		s->keys[s->nkeys].p = k;
		s->keys[s->nkeys++].len = (size_t)(s->p - 1 - k);
		ws(s);
		if (s->p >= s->end || *s->p++ != ':')
			return -1;
		ws(s);
		if (value(s, depth + 1, self, k, s->keys[s->nkeys - 1].len) < 0)
			return -1;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			ws(s);
			continue;
		}
		if (s->p >= s->end || *s->p++ != '}')
			return -1;
		break;
	}
	if (dup_keys(s, from))
		return -1;
	s->nkeys = from;
	return 0;
}

static int
array(struct sk *s, int depth, long self)
{
	s->p++;
	ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return 0;
	}
	for (;;) {
		if (value(s, depth + 1, self, NULL, 0) < 0)
			return -1;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			ws(s);
			continue;
		}
		if (s->p >= s->end || *s->p++ != ']')
			return -1;
		return 0;
	}
}

/* The value at s->p, at depth (0: the text itself), a member named key
 * (klen bytes) or an element (key NULL) of node parent. */
static int
value(struct sk *s, int depth, long parent, const char *key, size_t klen)
{
	long self = -1;
	int esc, r;

	if (s->p >= s->end || depth > MAX_NEST)
		return -1;
	if (depth >= 1 && depth <= s->maxdepth && (self = note(s, parent, key, klen)) < 0)
		return -1;
	switch (*s->p) {
	case '{': r = object(s, depth, self); break;
	case '[': r = array(s, depth, self); break;
	case '"': r = string(s, &esc); break;
	case 't': r = word(s, "true", 4); break;
	case 'f': r = word(s, "false", 5); break;
	case 'n': r = word(s, "null", 4); break;
	default:
		r = *s->p == '-' || (*s->p >= '0' && *s->p <= '9') ? number(s) : -1;
		break;
	}
	if (r == 0 && self >= 0)
		s->nodes[self].vlen = (size_t)(s->p - s->nodes[self].val);
	return r;
}

long
kp_jskim(const char *buf, size_t len, int maxdepth, struct kp_jskim_node **out)
{
	struct sk s;
	int r = -1;

	memset(&s, 0, sizeof(s));
	s.p = buf;
	s.end = buf + len;
	s.maxdepth = maxdepth < 1 ? 1 : maxdepth > 8 ? 8 : maxdepth;
	ws(&s);
	if (s.p < s.end && *s.p == '{') {
		r = value(&s, 0, -1, NULL, 0);
		ws(&s);
	}
	free(s.keys);
	free(s.slot);
	if (r < 0 || s.p != s.end) {
		free(s.nodes);
		*out = NULL;
		return -1;
	}
	*out = s.nodes;
	return (long)s.n;
}
