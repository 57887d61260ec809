/*
 * hotspots_agg.c: read one kernel's source page into per-line, per-instruction
 * and per-function sums (see hotspots.c for the rules of the merge).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kp_diag.h"
#include "kp_hash.h"
#include "kp_source.h"
#include "kp_strmap.h"
#include "hotspots_int.h"
#include "source_evidence.h"

/*
 * dst[i] += v[i] where NaN stands for "none": a NaN v[i] leaves dst[i] as it
 * is, a NaN dst[i] takes v[i].  Three sums a row of ~70 values: most of the
 * merge, four or eight at a time where the CPU has AVX2 or AVX-512 (the
 * same additions, so the same bits).
 */
static void
vadd_plain(double *dst, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		dst[i] = isnan(dst[i]) ? v[i] : dst[i] + v[i];
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
static __attribute__((target("avx2"))) void
vadd_avx2(double *dst, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		__m256d a = _mm256_loadu_pd(v + i), d = _mm256_loadu_pd(dst + i);
		__m256d s = _mm256_add_pd(d, a);

		s = _mm256_blendv_pd(s, a, _mm256_cmp_pd(d, d, _CMP_UNORD_Q));
		s = _mm256_blendv_pd(s, d, _mm256_cmp_pd(a, a, _CMP_UNORD_Q));
		_mm256_storeu_pd(dst + i, s);
	}
	vadd_plain(dst + i, v + i, n - i);
}

/*
 * Eight at a time where the CPU has AVX-512: the sum (or v's value where
 * dst has none) stored only where v has a value.
 */
static __attribute__((target("avx512f"))) void
vadd_avx512(double *dst, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__m512d a = _mm512_loadu_pd(v + i), d = _mm512_loadu_pd(dst + i);
		__mmask8 an = _mm512_cmp_pd_mask(a, a, _CMP_ORD_Q);
		__mmask8 dn = _mm512_cmp_pd_mask(d, d, _CMP_ORD_Q);

		_mm512_mask_storeu_pd(dst + i, an, _mm512_mask_add_pd(a, dn, d, a));
	}
	vadd_plain(dst + i, v + i, n - i);
}

/*
 * The widest of the sums this CPU has (asked each time: a load and a test,
 * where a cached answer would be written by every part's thread).
 */
static void
vadd(double *dst, const double *v, size_t n)
{
	if (__builtin_cpu_supports("avx512f"))
		vadd_avx512(dst, v, n);
	else if (__builtin_cpu_supports("avx2"))
		vadd_avx2(dst, v, n);
	else
		vadd_plain(dst, v, n);
}
#else
#define vadd vadd_plain
#endif

/* The rows' room is kept for the next block: a page is thousands of blocks. */
static void
pending_reset(struct agg *g)
{
	g->nrows = 0;
	g->sum = KP_FNV1A_INIT;
	g->open = 0;
}

int
hs_grow(void **p, size_t *cap, size_t n, size_t sz)
{
	void *np;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 64;
	if ((np = realloc(*p, c * sz)) == NULL)
		return -1;
	*p = np;
	*cap = c;
	return 0;
}

/* s into *dst, its room *cap grown as needed. */
static int
setbuf_str(char **dst, size_t *cap, const char *s, size_t n)
{
	if (n + 1 > *cap) {
		size_t c = n + 1 < 64 ? 64 : 2 * (n + 1);
		char *d = realloc(*dst, c);

		if (d == NULL)
			return -1;
		*dst = d;
		*cap = c;
	}
	memcpy(*dst, s, n + 1);
	return 0;
}

/* Room in t for one more entry (load at most a half); -1 out of memory. */
static int
itab_room(struct itab *t)
{
	size_t c, j, i;
	uint64_t *nh;
	uint32_t *nx;

	if ((t->n + 1) * 2 <= t->cap)
		return 0;
	c = t->cap ? t->cap * 2 : 256;
	if (c > UINT32_MAX || (nh = malloc(c * sizeof(*nh))) == NULL)
		return -1;
	if ((nx = calloc(c, sizeof(*nx))) == NULL) {
		free(nh);
		return -1;
	}
	for (j = 0; j < t->cap; j++) {
		if (t->ix[j] == 0)
			continue;
		for (i = t->h[j] & (c - 1); nx[i] != 0; i = (i + 1) & (c - 1))
			;
		nx[i] = t->ix[j];
		nh[i] = t->h[j];
	}
	free(t->h);
	free(t->ix);
	t->h = nh;
	t->ix = nx;
	t->cap = c;
	return 0;
}

static void
itab_set(struct itab *t, size_t slot, uint64_t h, size_t idx)
{
	t->h[slot] = h;
	t->ix[slot] = (uint32_t)idx + 1;
	t->n++;
}

static void
itab_free(struct itab *t)
{
	free(t->h);
	free(t->ix);
}

static uint64_t
key_hash(uint64_t a, uint64_t b, const char *s)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL);

	return kp_hash64(s, strlen(s), h);
}

/* The next pending row's slot, its values' room there; NULL out of memory. */
static struct prow *
pending_slot(struct agg *g)
{
	struct prow *p;

	if (hs_grow((void **)&g->rows, &g->crows, g->nrows, sizeof(*g->rows)) < 0)
		return NULL;
	if (g->nrows >= g->nrowroom) {	/* a slot never used: its room is empty */
		memset(&g->rows[g->nrows], 0, sizeof(*g->rows));
		g->nrowroom = g->nrows + 1;
	}
	p = &g->rows[g->nrows];
	if (p->val == NULL && (p->val = malloc((g->nm + 1) * sizeof(*p->val))) == NULL)
		return NULL;
	return p;
}

/* Row r into p, the next pending slot (pending_slot()). */
static int
pending_add(struct agg *g, struct prow *p, const struct kp_src_row *r)
{
	size_t lt = strlen(r->text), la = strlen(r->address);

	p->insn = r->ev == KP_SRC_INSN;
	p->line = r->line;
	p->alen = la;
	if (setbuf_str(&p->text, &p->textcap, r->text, lt) < 0 ||
	    setbuf_str(&p->addr, &p->addrcap, r->address, la) < 0)
		return -1;
	if (p->val != r->val)	/* read there already (kp_src_val_into) */
		memcpy(p->val, r->val, g->nm * sizeof(*p->val));
	g->nrows++;
	if (r->digest != 0) {	/* the record's bytes, hashed by the reader */
		g->sum = (g->sum ^ r->digest) * 0x100000001b3ULL;
		g->sum ^= g->sum >> 29;
		return 0;
	}
	g->sum = kp_hash64(&r->ev, sizeof(r->ev), g->sum);
	g->sum = kp_hash64(&r->line, sizeof(r->line), g->sum);
	g->sum = kp_hash64(r->text, lt + 1, g->sum);
	g->sum = kp_hash64(r->address, la + 1, g->sum);
	g->sum = kp_hash64(r->val, g->nm * sizeof(*r->val), g->sum);
	return 0;
}

static size_t
fn_index(struct agg *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->nfns; i++)
		if (strcmp(g->fns[i].name, name) == 0)
			return i;
	return (size_t)-1;
}

int
hs_fn_get(struct agg *g, const char *name, size_t *out)
{
	struct fn *nf;
	size_t i;

	if ((*out = fn_index(g, name)) != (size_t)-1)
		return 0;
	if ((nf = realloc(g->fns, (g->nfns + 1) * sizeof(*nf))) == NULL)
		return -1;
	g->fns = nf;
	nf = &g->fns[g->nfns];
	if ((nf->name = strdup(name)) == NULL ||
	    (nf->total = malloc((g->nm + 1) * sizeof(double))) == NULL) {
		free(nf->name);
		return -1;
	}
	for (i = 0; i < g->nm; i++)
		nf->total[i] = NAN;
	*out = g->nfns++;
	return 0;
}

/*
 * "file\x1ffunction" in g->key, grown to fit (function names run to
 * thousands of bytes, and a key cut short would merge different blocks):
 * the launch copy's key of a block.  NULL out of memory.
 */
static const char *
keyf(struct agg *g, const char *file, const char *func)
{
	size_t la = strlen(file), lb = strlen(func), need = la + lb + 2;
	char *buf;

	if (need > g->ckey) {
		size_t cap = g->ckey ? g->ckey : 256;

		while (cap < need)
			cap *= 2;
		if ((buf = realloc(g->key, cap)) == NULL)
			return NULL;
		g->key = buf;
		g->ckey = cap;
	}
	buf = g->key;
	memcpy(buf, file, la);
	buf[la] = '\x1f';
	memcpy(buf + la + 1, func, lb + 1);
	return buf;
}

/*
 * Whether instruction in has address addr (n bytes, 16 readable): strcmp()'s answer, the
 * lengths first and then, for one under 16 bytes (most: "0x7f37757a0240"),
 * two words of each (both have the room) with the bytes past it masked off.
 */
static int
addr_eq(const struct insn *in, const char *addr, size_t n)
{
	uint64_t a0, a1, b0, b1, m0, m1;

	if (in->alen != n)
		return 0;
	if (n >= 16)
		return memcmp(in->addr, addr, n) == 0;
	memcpy(&a0, in->addr, 8);
	memcpy(&a1, in->addr + 8, 8);
	memcpy(&b0, addr, 8);
	memcpy(&b1, addr + 8, 8);
	m0 = n >= 8 ? ~0ULL : n > 0 ? ~0ULL >> (64 - 8 * n) : 0;
	m1 = n > 8 ? ~0ULL >> (64 - 8 * (n - 8)) : 0;
	return ((a0 ^ b0) & m0) == 0 && ((a1 ^ b1) & m1) == 0;
}

/* The line (function fi's, file's, ln) in *out, made when new. */
int
hs_line_get(struct agg *g, const char *file, size_t fi, long ln, const char *text, size_t *out)
{
	uint64_t h = key_hash(fi, (uint64_t)ln, file);
	struct itab *t = &g->linetab;
	struct line *l;
	size_t i, slot;

	if (itab_room(t) < 0)
		return -1;
	for (slot = h & (t->cap - 1); t->ix[slot] != 0; slot = (slot + 1) & (t->cap - 1)) {
		l = &g->lines[t->ix[slot] - 1];
		if (t->h[slot] == h && l->fn == fi && l->line == ln && strcmp(l->file, file) == 0) {
			*out = t->ix[slot] - 1;
			return 0;
		}
	}
	if (hs_grow((void **)&g->lines, &g->clines, g->nlines, sizeof(*g->lines)) < 0)
		return -1;
	l = &g->lines[g->nlines];
	memset(l, 0, sizeof(*l));
	l->line = ln;
	l->fn = fi;
	if ((l->file = strdup(file)) == NULL ||
	    (l->function = strdup(g->fns[fi].name)) == NULL ||
	    (l->text = strdup(text)) == NULL ||
	    (l->val = malloc((g->nm + 1) * sizeof(double))) == NULL)
		return -1;
	for (i = 0; i < g->nm; i++)
		l->val[i] = NAN;
	itab_set(t, slot, h, g->nlines);
	*out = g->nlines++;
	return 0;
}

/*
 * The instruction at addr (alen bytes, 16 readable) under line li in *out,
 * made when new with text.  insn_mark() then tells whether this launch copy
 * has counted it already.
 */
int
hs_insn_get(struct agg *g, size_t li, const char *addr, size_t alen, const char *text,
    size_t *out)
{
	uint64_t h = key_hash(li, 0, addr);
	struct itab *t = &g->insntab;
	struct insn *in;
	size_t i, slot;

	if (itab_room(t) < 0)
		return -1;
	for (slot = h & (t->cap - 1); t->ix[slot] != 0; slot = (slot + 1) & (t->cap - 1)) {
		in = &g->insns[t->ix[slot] - 1];
		if (t->h[slot] == h && in->line == li && addr_eq(in, addr, alen)) {
			*out = t->ix[slot] - 1;
			return 0;
		}
	}
	if (hs_grow((void **)&g->insns, &g->cinsns, g->ninsns, sizeof(*g->insns)) < 0)
		return -1;
	in = &g->insns[g->ninsns];
	memset(in, 0, sizeof(*in));
	in->line = li;
	in->a = strtoull(addr, NULL, 16);
	kp_sass_opcode(text, in->op, sizeof(in->op));
	in->alen = alen;
	if ((in->addr = calloc(1, alen < 16 ? 16 : alen + 1)) == NULL ||
	    (in->text = strdup(text)) == NULL ||
	    (in->val = malloc((g->nm + 1) * sizeof(double))) == NULL)
		return -1;
	memcpy(in->addr, addr, alen);
	for (i = 0; i < g->nm; i++)
		in->val[i] = NAN;
	g->lines[li].ninsn++;
	itab_set(t, slot, h, g->ninsns);
	*out = g->ninsns++;
	return 0;
}

/*
 * 1 when this launch copy has counted instruction ii already (listed twice
 * under one line), else 0, marking it counted.  Its copy number stands for
 * a per-copy set of them, cleared at each copy.
 */
static int
insn_mark(struct agg *g, size_t ii)
{
	if (g->insns[ii].copy == g->copies)
		return 1;
	g->insns[ii].copy = g->copies;
	return 0;
}

/* Function fi's entry for instruction ii's address in *out, made when new. */
static int
get_fnaddr(struct agg *g, size_t fi, size_t ii, size_t *out)
{
	const char *addr = g->insns[ii].addr;
	uint64_t h = key_hash(fi, 1, addr);
	struct itab *t = &g->fatab;
	struct fnaddr *f;
	size_t slot;

	if (itab_room(t) < 0)
		return -1;
	for (slot = h & (t->cap - 1); t->ix[slot] != 0; slot = (slot + 1) & (t->cap - 1)) {
		f = &g->fa[t->ix[slot] - 1];
		if (t->h[slot] == h && f->fn == fi && strcmp(f->addr, addr) == 0) {
			*out = t->ix[slot] - 1;
			return 0;
		}
	}
	if (hs_grow((void **)&g->fa, &g->cfa, g->nfa, sizeof(*g->fa)) < 0)
		return -1;
	f = &g->fa[g->nfa];
	f->fn = fi;
	f->addr = addr;
	f->copy = 0;
	itab_set(t, slot, h, g->nfa);
	*out = g->nfa++;
	return 0;
}

/*
 * Whether this launch copy has not yet counted function address fa in its
 * function's total (1), marking it counted.
 */
static int
fnaddr_first(struct agg *g, size_t fa)
{
	if (g->fa[fa].copy == g->copies)
		return 0;
	g->fa[fa].copy = g->copies;
	return 1;
}

/* Where digest d is in g->seen (room there), or the empty slot it would take. */
static size_t
seen_slot(const struct agg *g, uint64_t d)
{
	size_t i, mask = g->cseen - 1;

	for (i = d & mask; g->seen[i] != 0 && g->seen[i] != d; i = (i + 1) & mask)
		;
	return i;
}

/* Digest d into g->seen: 1 it was there, 0 added, -1 out of memory. */
int
hs_seen_put(struct agg *g, uint64_t d)
{
	size_t i;

	if ((g->nseen + 1) * 2 > g->cseen) {
		size_t c = g->cseen ? g->cseen * 2 : 1024, j;
		uint64_t *t;

		if (c > SIZE_MAX / sizeof(*t) || (t = calloc(c, sizeof(*t))) == NULL)
			return -1;
		for (j = 0; j < g->cseen; j++) {
			if (g->seen[j] == 0)
				continue;
			for (i = g->seen[j] & (c - 1); t[i] != 0; i = (i + 1) & (c - 1))
				;
			t[i] = g->seen[j];
		}
		free(g->seen);
		g->seen = t;
		g->cseen = c;
	}
	if (g->seen[i = seen_slot(g, d)] == d)
		return 1;
	g->seen[i] = d;
	g->nseen++;
	return 0;
}

int
hs_seen_has(const struct agg *g, uint64_t d)
{
	return g->cseen > 0 && g->seen[seen_slot(g, d)] == d;
}

void
hs_vadd(double *dst, const double *v, size_t n)
{
	vadd(dst, v, n);
}

/*
 * The block's digest: its file and function (each with its NUL) and its
 * checksum, mixed; never 0.
 */
static uint64_t
block_digest(const struct agg *g)
{
	uint64_t h = kp_fnv1a(g->bfile, strlen(g->bfile) + 1, KP_FNV1A_INIT);

	h = kp_fnv1a(g->bfunc, strlen(g->bfunc) + 1, h);
	h = (h ^ g->sum) * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 32;
	return h != 0 ? h : 1;
}

/* The layout of the block with this key (keyf()'s), room for n rows; NULL out of memory. */
static struct layout *
layout_of(struct agg *g, const char *key, size_t n)
{
	struct layout *L, *nl;
	size_t v = g->nlay, c, i;
	int r;

	if ((r = kp_strmap_get_put(&g->laykeys, key, &v)) < 0)
		return NULL;
	if (r == 0) {
		if ((nl = realloc(g->lay, (g->nlay + 1) * sizeof(*nl))) == NULL)
			return NULL;
		g->lay = nl;
		memset(&g->lay[g->nlay++], 0, sizeof(*nl));
	}
	L = &g->lay[v];
	if (n > L->cap) {
		uint32_t *a, *f;

		c = L->cap ? L->cap : 64;
		while (c < n)
			c *= 2;
		if ((a = realloc(L->at, c * sizeof(*a))) == NULL)
			return NULL;
		L->at = a;
		if ((f = realloc(L->fa, c * sizeof(*f))) == NULL)
			return NULL;
		L->fa = f;
		for (i = L->cap; i < c; i++)
			L->at[i] = L->fa[i] = LAY_NONE;
		L->cap = c;
	}
	return L;
}

/*
 * Line and instruction of row i, through the layout: its entry when the
 * entry's own key is the row's, else a look-up (whose answer the layout
 * keeps).  The tables stay the only truth: a wrong guess costs a look-up.
 */
static int
row_line(struct agg *g, struct layout *L, size_t i, size_t fi, const struct prow *p,
    size_t *cur)
{
	uint32_t c = L->at[i];

	if (c != LAY_NONE && (c & LAY_LINE) && (c & ~LAY_LINE) < g->nlines &&
	    g->lines[c & ~LAY_LINE].line == p->line && g->lines[c & ~LAY_LINE].fn == fi) {
		*cur = c & ~LAY_LINE;
		return 0;
	}
	if (hs_line_get(g, g->bfile, fi, p->line, p->text, cur) < 0)
		return -1;
	L->at[i] = *cur < LAY_LINE ? (uint32_t)*cur | LAY_LINE : LAY_NONE;
	return 0;
}

static int
row_insn(struct agg *g, struct layout *L, size_t i, size_t cur, const struct prow *p,
    size_t *ii)
{
	uint32_t c = L->at[i];

	if (c != LAY_NONE && !(c & LAY_LINE) && c < g->ninsns && g->insns[c].line == cur &&
	    addr_eq(&g->insns[c], p->addr, p->alen)) {
		*ii = c;
		return 0;
	}
	if (hs_insn_get(g, cur, p->addr, p->alen, p->text, ii) < 0)
		return -1;
	L->at[i] = *ii < LAY_LINE ? (uint32_t)*ii : LAY_NONE;
	L->fa[i] = LAY_NONE;
	return 0;
}

static int
row_fnaddr(struct agg *g, struct layout *L, size_t i, size_t fi, size_t ii, size_t *fa)
{
	uint32_t c = L->fa[i];

	if (c != LAY_NONE && c < g->nfa && g->fa[c].fn == fi &&
	    (g->fa[c].addr == g->insns[ii].addr || strcmp(g->fa[c].addr, g->insns[ii].addr) == 0)) {
		*fa = c;
		return 0;
	}
	if (get_fnaddr(g, fi, ii, fa) < 0)
		return -1;
	L->fa[i] = *fa < LAY_LINE ? (uint32_t)*fa : LAY_NONE;
	return 0;
}

/* Merge the pending block into the sums. */
static int
pending_merge(struct agg *g)
{
	const char *key;
	enum kp_src_kind kind = kp_src_kind(g->src);
	size_t v = 0, i, cur = (size_t)-1, fi, ii, fa;
	struct layout *L;
	int r;

	if (!g->open)
		return 0;
	if ((r = hs_seen_put(g, block_digest(g))) < 0)
		return -1;
	if (r == 1 && g->nrows > 0) {	/* an exact repeat of an earlier block */
		g->duplicates++;
		pending_reset(g);
		return 0;
	}
	if ((key = keyf(g, g->bfile, g->bfunc)) == NULL ||
	    (r = kp_strmap_get_put(&g->copykeys, key, &v)) < 0)
		return -1;
	if (g->copies == 0 && (g->firstkey = strdup(key)) == NULL)
		return -1;
	if (r == 1 || g->copies == 0) {	/* a new launch copy */
		kp_strmap_clear(&g->copykeys);
		if (kp_strmap_get_put(&g->copykeys, key, &v) < 0)
			return -1;
		g->copies++;
	}
	if (hs_fn_get(g, g->bfunc, &fi) < 0 || (L = layout_of(g, key, g->nrows)) == NULL)
		return -1;
	if (kind == KP_SRC_SASS && hs_line_get(g, "", fi, 0, "", &cur) < 0)
		return -1;
	for (i = 0; i < g->nrows; i++) {
		struct prow *p = &g->rows[i];

		if (!p->insn) {
			if (row_line(g, L, i, fi, p, &cur) < 0)
				return -1;
			vadd(g->lines[cur].val, p->val, g->nm);
			if (kind == KP_SRC_PTX)
				vadd(g->fns[fi].total, p->val, g->nm);
			continue;
		}
		if (cur == (size_t)-1) {	/* an instruction before any line: none seen */
			g->orphans++;
			continue;
		}
		if (row_insn(g, L, i, cur, p, &ii) < 0)
			return -1;
		if (insn_mark(g, ii)) {	/* listed twice under one line in one copy */
			g->duplicates++;
			continue;
		}
		vadd(g->insns[ii].val, p->val, g->nm);
		if (kind == KP_SRC_SASS)
			vadd(g->lines[cur].val, p->val, g->nm);
		if (row_fnaddr(g, L, i, fi, ii, &fa) < 0)
			return -1;
		if (fnaddr_first(g, fa))
			vadd(g->fns[fi].total, p->val, g->nm);
	}
	pending_reset(g);
	return 0;
}

void
hs_agg_free(struct agg *g)
{
	size_t i;

	pending_reset(g);
	for (i = 0; i < g->nrowroom; i++) {
		free(g->rows[i].text);
		free(g->rows[i].addr);
		free(g->rows[i].val);
	}
	free(g->rows);
	for (i = 0; i < g->nlines; i++) {
		free(g->lines[i].file);
		free(g->lines[i].function);
		free(g->lines[i].text);
		free(g->lines[i].val);
	}
	free(g->lines);
	for (i = 0; i < g->ninsns; i++) {
		free(g->insns[i].addr);
		free(g->insns[i].text);
		free(g->insns[i].val);
	}
	free(g->insns);
	for (i = 0; i < g->nfns; i++) {
		free(g->fns[i].name);
		free(g->fns[i].total);
	}
	free(g->fns);
	itab_free(&g->linetab);
	itab_free(&g->insntab);
	itab_free(&g->fatab);
	kp_strmap_free(&g->copykeys);
	kp_strmap_free(&g->laykeys);
	for (i = 0; i < g->nlay; i++) {
		free(g->lay[i].at);
		free(g->lay[i].fa);
	}
	free(g->lay);
	free(g->fa);
	free(g->key);
	free(g->firstkey);
	free(g->seen);
	free(g->bfile);
	free(g->bfunc);
	kp_src_close(g->src);
}

int
hs_agg_read(struct agg *g, struct kp_err *err)
{
	struct kp_src_row r;
	int rc;

	g->sum = KP_FNV1A_INIT;
	for (;;) {
		struct prow *slot = pending_slot(g);

		if (slot == NULL)
			goto nomem;
		/* a row's values straight into the slot it is kept in */
		kp_src_val_into(g->src, slot->val);
		if ((rc = kp_src_next(g->src, &r, err)) != 1)
			break;
		if (g->ev != NULL && kp_evidence_add(g->ev, &r) < 0)
			goto nomem;
		if (r.ev == KP_SRC_BLOCK) {
			if (pending_merge(g) < 0)
				goto nomem;
			free(g->bfile);
			free(g->bfunc);
			if ((g->bfile = strdup(r.file)) == NULL ||
			    (g->bfunc = strdup(r.function)) == NULL)
				goto nomem;
			g->open = 1;
			continue;
		}
		if (pending_add(g, slot, &r) < 0)
			goto nomem;
	}
	kp_src_val_into(g->src, NULL);
	if (rc < 0)
		return -1;
	if (pending_merge(g) < 0)
		goto nomem;
	return 0;
nomem:
	return kp_errf(err, KP_EXIT_ENV, "out of memory");
}
