/*
 * hotspots_par.c: a large source page read in parts, each on a thread of its
 * own, and the parts' sums added to the first part's.  A part begins where a
 * block's labels begin, so it reads like a page of its own.  The parts are
 * kept only where they give the very sums, counts and order that one reader
 * of the whole page gives (hs_parts_read says when); otherwise the caller
 * reads the page again in one part.
 */
#define _GNU_SOURCE		/* memmem */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_source.h"
#include "hotspots_int.h"
#include "hotspots_par.h"
#include "source_evidence.h"

#define PARTS_MAX 8
#define PARTS_FILE_MIN ((off_t)16 << 20)	/* by default, pages this large or more */
#define PART_MIN ((off_t)4 << 20)		/* ... in parts of this much at least */
#define SCAN_MAX ((off_t)64 << 20)		/* how far a cut is looked for */
#define EXACT_MAX 9007199254740992.0		/* 2^53 */

struct part {
	struct hs_parts *P;
	off_t off, end, pos;	/* its bytes [off, end); the next read at pos */
	struct agg g;
	pthread_t th;
	int started, rc;	/* rc: 0 read */
	struct kp_err err;
};

struct hs_parts {
	int fd;
	const char *name;
	size_t n;
	struct part part[PARTS_MAX];
};

/* A part's next bytes, straight into its reader's buffer (kp_csv_read_fn). */
static long
part_read(void *arg, char *buf, size_t size)
{
	struct part *p = arg;
	off_t left = p->end - p->pos;
	ssize_t r;

	if (left <= 0)
		return 0;
	if ((off_t)size > left)
		size = (size_t)left;
	do
		r = pread(p->P->fd, buf, size, p->pos);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		p->pos += r;
	return (long)r;
}

static int
begins(const char *s, size_t n, const char *with)
{
	size_t k = strlen(with);

	return n >= k && memcmp(s, with, k) == 0;
}

/*
 * The length of the labels at b (n bytes read there) when they begin a block
 * and name both its file and its function: a "Kernel Name" record, or "File
 * Path" and then "Function Name"; 0 when not.  A part can begin there.
 */
static size_t
block_start(const char *b, size_t n)
{
	const char *nl;

	if (begins(b, n, "\"Kernel Name\",\""))
		return (nl = memchr(b, '\n', n)) != NULL ? (size_t)(nl - b) + 1 : 0;
	if (!begins(b, n, "\"File Path\",\"") || (nl = memchr(b, '\n', n)) == NULL)
		return 0;
	nl++;
	if (!begins(nl, n - (size_t)(nl - b), "\"Function Name\",\"") ||
	    (nl = memchr(nl, '\n', n - (size_t)(nl - b))) == NULL)
		return 0;
	return (size_t)(nl - b) + 1;
}

/* What the cut search reads with: a window and the look at a candidate. */
struct scan {
	int fd;
	char w[64 << 10], look[8 << 10];
	size_t nlook;		/* block_start() of look */
};

/*
 * The first offset in (from, lim) where a block begins (block_start, its
 * labels then in sc->look), or -1.
 */
static off_t
next_block(struct scan *sc, off_t from, off_t lim)
{
	off_t at = from;
	ssize_t r;

	while (at < lim && at - from < SCAN_MAX) {
		const char *p, *e;

		if ((r = pread(sc->fd, sc->w, sizeof(sc->w), at)) <= 0)
			break;
		e = sc->w + r;
		for (p = sc->w; (p = memmem(p, (size_t)(e - p), "\n\"", 2)) != NULL; p++) {
			off_t c = at + (p - sc->w) + 1;
			ssize_t k;

			if (c >= lim)
				return -1;
			if ((k = pread(sc->fd, sc->look, sizeof(sc->look), c)) > 0 &&
			    (sc->nlook = block_start(sc->look, (size_t)k)) > 0)
				return c;
		}
		if ((size_t)r < sizeof(sc->w))
			break;
		at += r - 1;	/* a "\n\"" across the window's end */
	}
	return -1;
}

/* Whether the bytes [a, b) and [b, c) of the file are the same. */
static int
same_bytes(struct scan *sc, off_t a, off_t b, off_t c)
{
	size_t half = sizeof(sc->w) / 2;
	off_t len = b - a, at;

	if (c - b != len)
		return 0;
	for (at = 0; at < len; at += (off_t)half) {
		size_t n = len - at < (off_t)half ? (size_t)(len - at) : half;

		if (pread(sc->fd, sc->w, n, a + at) != (ssize_t)n ||
		    pread(sc->fd, sc->w + half, n, b + at) != (ssize_t)n ||
		    memcmp(sc->w, sc->w + half, n) != 0)
			return 0;
	}
	return 1;
}

/*
 * Where a part after from can begin, or -1: at a block with the labels of the
 * page's first (key, klen bytes), where one reader begins a launch copy in a
 * page of launches alike, that is not a byte copy of the block before it (a
 * repeat one reader leaves out; sass pages list each launch twice).
 */
static off_t
find_cut(struct scan *sc, off_t from, off_t lim, const char *key, size_t klen)
{
	off_t prev = next_block(sc, from, lim), c, next;

	c = prev < 0 ? -1 : next_block(sc, prev, lim);
	while (c >= 0 && prev - from < SCAN_MAX) {
		int mine = sc->nlook == klen && memcmp(sc->look, key, klen) == 0;

		next = next_block(sc, c, lim);	/* its labels in look for the next turn */
		if (mine && !same_bytes(sc, prev, c, next < 0 ? lim : next))
			return c;
		prev = c;
		c = next;
	}
	return -1;
}

/* How many parts the page of fd (size bytes, read from start) is read in. */
static size_t
parts_wanted(off_t start, off_t size)
{
	const char *env = getenv("KP_SOURCE_PARTS");
	long cpus;
	off_t n;

	if (env != NULL && *env != '\0') {
		char *end;
		long v = strtol(env, &end, 10);

		if (*end != '\0' || v < 1)
			return 1;
		return v > PARTS_MAX ? PARTS_MAX : (size_t)v;
	}
	if (size - start < PARTS_FILE_MIN || (cpus = sysconf(_SC_NPROCESSORS_ONLN)) < 2)
		return 1;
	n = (size - start) / PART_MIN;
	if (n > cpus)
		n = cpus;
	return n > PARTS_MAX ? PARTS_MAX : (size_t)n;
}

struct hs_parts *
hs_parts_plan(FILE *fp, const char *name)
{
	struct hs_parts *P = NULL;
	struct scan *sc = NULL;
	struct stat st;
	off_t start, prev, first;
	size_t want, j, klen;
	char *key = NULL;
	ssize_t k;
	int fd = fileno(fp);

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (start = ftello(fp)) < 0 || (want = parts_wanted(start, st.st_size)) < 2)
		return NULL;
	if ((sc = malloc(sizeof(*sc))) == NULL || (P = calloc(1, sizeof(*P))) == NULL)
		goto fail;
	sc->fd = P->fd = fd;
	P->name = name;
	/* the page's first block: at its start, or after what comes before it */
	first = start;
	if ((k = pread(fd, sc->look, sizeof(sc->look), start)) <= 0 ||
	    (sc->nlook = block_start(sc->look, (size_t)k)) == 0)
		first = next_block(sc, start, st.st_size);
	if (first < 0 || (key = malloc(sc->nlook)) == NULL)
		goto fail;
	memcpy(key, sc->look, klen = sc->nlook);
	P->part[0].off = prev = start;
	P->n = 1;
	for (j = 1; j < want; j++) {
		off_t t = start + (st.st_size - start) / (off_t)want * (off_t)j, c;

		if (t <= prev)
			t = prev + 1;
		if ((c = find_cut(sc, t - 1, st.st_size, key, klen)) < 0)
			break;
		P->part[P->n - 1].end = c;
		P->part[P->n].off = prev = c;
		P->n++;
	}
	P->part[P->n - 1].end = st.st_size;
	free(key);
	free(sc);
	key = NULL;
	sc = NULL;
	if (P->n < 2)
		goto fail;
	for (j = 0; j < P->n; j++) {
		P->part[j].P = P;
		P->part[j].pos = P->part[j].off;
	}
	return P;
fail:
	free(key);
	free(sc);
	hs_parts_free(P);
	return NULL;
}

struct kp_src *
hs_parts_open_head(struct hs_parts *P, struct kp_err *err)
{
	return kp_src_open_read(part_read, &P->part[0], P->name, err);
}

size_t
hs_parts_count(const struct hs_parts *P)
{
	return P->n;
}

static void *
part_main(void *arg)
{
	struct part *p = arg;

	p->rc = -1;
	if ((p->g.src = kp_src_open_read(part_read, p, p->P->name, &p->err)) == NULL)
		return NULL;
	p->g.nm = kp_src_nmetrics(p->g.src);
	if (hs_agg_read(&p->g, &p->err) == 0)
		p->rc = 0;
	return NULL;
}

/* Whether s and t read their pages alike: the same kind and metrics. */
static int
same_page(const struct kp_src *s, const struct kp_src *t)
{
	size_t i, n = kp_src_nmetrics(s);

	if (kp_src_kind(s) != kp_src_kind(t) || kp_src_nmetrics(t) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (strcmp(kp_src_metric(s, i), kp_src_metric(t, i)) != 0)
			return 0;
	return 1;
}

/*
 * Whether b, the part after those a holds, adds to a as the rest of one
 * reading would: its first block begins a launch copy there (its key is
 * one of a's last copy), none of its blocks repeats one of a's, and, where
 * a sums the page's evidence, each of b's instructions was counted in a's.
 * 1 yes, 0 no, -1 out of memory.
 */
static int
follows(const struct agg *a, const struct agg *b)
{
	size_t i, v;
	int r;

	if (a->copies == 0 || b->copies == 0 || b->firstkey == NULL ||
	    kp_strmap_get(&a->copykeys, b->firstkey, &v) != 1)
		return 0;
	for (i = 0; i < b->cseen; i++)
		if (b->seen[i] != 0 && hs_seen_has(a, b->seen[i]))
			return 0;
	if (a->ev == NULL)
		return 1;
	if (b->orphans != 0)
		return 0;
	for (i = 0; i < b->ninsns; i++) {
		const struct insn *in = &b->insns[i];

		if ((r = kp_evidence_has(a->ev, b->fns[b->lines[in->line].fn].name,
		    in->addr)) != 1)
			return r;
	}
	return 1;
}

/* b's sums added to a's, b's entries new to a made in b's order: 0, -1 out of memory. */
static int
add_part(struct agg *a, struct agg *b)
{
	size_t *fmap = malloc((b->nfns + 1) * sizeof(*fmap));
	size_t *lmap = malloc((b->nlines + 1) * sizeof(*lmap));
	size_t i, x;
	int rc = -1;

	if (fmap == NULL || lmap == NULL)
		goto out;
	for (i = 0; i < b->nfns; i++) {
		if (hs_fn_get(a, b->fns[i].name, &fmap[i]) < 0)
			goto out;
		hs_vadd(a->fns[fmap[i]].total, b->fns[i].total, a->nm);
	}
	for (i = 0; i < b->nlines; i++) {
		const struct line *l = &b->lines[i];

		if (hs_line_get(a, l->file, fmap[l->fn], l->line, l->text, &lmap[i]) < 0)
			goto out;
		hs_vadd(a->lines[lmap[i]].val, l->val, a->nm);
	}
	for (i = 0; i < b->ninsns; i++) {
		const struct insn *in = &b->insns[i];

		if (hs_insn_get(a, lmap[in->line], in->addr, in->alen, in->text, &x) < 0)
			goto out;
		hs_vadd(a->insns[x].val, in->val, a->nm);
	}
	for (i = 0; i < b->cseen; i++)
		if (b->seen[i] != 0 && hs_seen_put(a, b->seen[i]) < 0)
			goto out;
	kp_strmap_free(&a->copykeys);	/* the copy the page ends in is b's last */
	a->copykeys = b->copykeys;
	memset(&b->copykeys, 0, sizeof(b->copykeys));
	a->copies += b->copies;
	a->duplicates += b->duplicates;
	a->orphans += b->orphans;
	rc = 0;
out:
	free(fmap);
	free(lmap);
	return rc;
}

/* Whether each of the n sums v is below 2^53 (sums of integers then exact). */
static int
below_exact(const double *v, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (v[k] >= EXACT_MAX)
			return 0;
	return 1;
}

/* Whether every sum of g is below 2^53. */
static int
sums_exact(const struct agg *g)
{
	size_t i;

	for (i = 0; i < g->nfns; i++)
		if (!below_exact(g->fns[i].total, g->nm))
			return 0;
	for (i = 0; i < g->nlines; i++)
		if (!below_exact(g->lines[i].val, g->nm))
			return 0;
	for (i = 0; i < g->ninsns; i++)
		if (!below_exact(g->insns[i].val, g->nm))
			return 0;
	return 1;
}

int
hs_parts_read(struct hs_parts *P, struct agg *g, struct kp_err *err)
{
	double zero = 0;
	size_t j;
	int rc, ok;

	/* the statics that pick the CPU's widest paths, set before the threads read them */
	(void)kp_csv_isa(NULL);
	hs_vadd(&zero, &zero, 0);
	for (j = 1; j < P->n; j++)
		P->part[j].started = pthread_create(&P->part[j].th, NULL, part_main,
		    &P->part[j]) == 0;
	rc = hs_agg_read(g, err);
	for (j = 1; j < P->n; j++) {
		if (P->part[j].started)
			pthread_join(P->part[j].th, NULL);
		else
			part_main(&P->part[j]);
		P->part[j].started = 0;
	}
	/* any error is found again, at its line, by the reading in one part */
	ok = rc == 0 && kp_src_exact(g->src);
	for (j = 1; ok && j < P->n; j++) {
		struct agg *b = &P->part[j].g;

		ok = P->part[j].rc == 0 && same_page(g->src, b->src) && kp_src_exact(b->src) &&
		    follows(g, b) == 1;
		if (ok && add_part(g, b) < 0)
			return kp_errf(err, KP_EXIT_ENV, "out of memory");
	}
	return ok && sums_exact(g) ? 0 : 1;
}

void
hs_parts_free(struct hs_parts *P)
{
	size_t j;

	if (P == NULL)
		return;
	for (j = 0; j < P->n; j++) {
		struct part *p = &P->part[j];

		if (p->started)
			pthread_join(p->th, NULL);
		if (j > 0)
			hs_agg_free(&p->g);	/* part 0's agg is the caller's */
	}
	free(P);
}
