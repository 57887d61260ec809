/*
 * hotspots_agg.c: read one kernel's source page into per-line, per-instruction
 * and per-function sums (see hotspots.c for the rules of the merge).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_diag.h"
#include "kp_source.h"
#include "kp_strmap.h"
#include "hotspots_int.h"

static double *
vdup(const double *v, size_t n)
{
	double *d = malloc((n + 1) * sizeof(*d));

	if (d != NULL)
		memcpy(d, v, n * sizeof(*d));
	return d;
}

static void
vadd(double *dst, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		dst[i] = isnan(dst[i]) ? v[i] : dst[i] + v[i];
	}
}

static void
pending_reset(struct agg *g)
{
	size_t i;

	for (i = 0; i < g->nrows; i++) {
		free(g->rows[i].text);
		free(g->rows[i].addr);
		free(g->rows[i].val);
	}
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

static int
pending_add(struct agg *g, const struct kp_src_row *r)
{
	struct prow *p;

	if (hs_grow((void **)&g->rows, &g->crows, g->nrows, sizeof(*g->rows)) < 0)
		return -1;
	p = &g->rows[g->nrows];
	memset(p, 0, sizeof(*p));
	p->insn = r->ev == KP_SRC_INSN;
	p->line = r->line;
	if ((p->text = strdup(r->text)) == NULL || (p->addr = strdup(r->address)) == NULL ||
	    (p->val = vdup(r->val, g->nm)) == NULL) {
		free(p->text);
		free(p->addr);
		return -1;
	}
	g->nrows++;
	g->sum = kp_fnv1a(&r->ev, sizeof(r->ev), g->sum);
	g->sum = kp_fnv1a(&r->line, sizeof(r->line), g->sum);
	g->sum = kp_fnv1a(r->text, strlen(r->text) + 1, g->sum);
	g->sum = kp_fnv1a(r->address, strlen(r->address) + 1, g->sum);
	g->sum = kp_fnv1a(r->val, g->nm * sizeof(*r->val), g->sum);
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

static int
add_fn(struct agg *g, const char *name, size_t *out)
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

static char *
keyf(char *buf, size_t n, const char *a, const char *b, long ln, const char *c)
{
	snprintf(buf, n, "%s\x1f%s\x1f%ld\x1f%s", a, b, ln, c);
	return buf;
}

static int
get_line(struct agg *g, const char *file, const char *func, long ln, const char *text,
    size_t *out)
{
	char key[2048];
	size_t idx = g->nlines, i;
	struct line *l;
	int r;

	keyf(key, sizeof(key), func, file, ln, "");
	if ((r = kp_strmap_get_put(&g->linemap, key, &idx)) != 0) {
		*out = idx;
		return r < 0 ? -1 : 0;
	}
	if (hs_grow((void **)&g->lines, &g->clines, g->nlines, sizeof(*g->lines)) < 0)
		return -1;
	l = &g->lines[g->nlines];
	memset(l, 0, sizeof(*l));
	l->line = ln;
	if ((l->file = strdup(file)) == NULL || (l->function = strdup(func)) == NULL ||
	    (l->text = strdup(text)) == NULL || (l->val = malloc((g->nm + 1) *
	    sizeof(double))) == NULL || add_fn(g, func, &l->fn) < 0)
		return -1;
	for (i = 0; i < g->nm; i++)
		l->val[i] = NAN;
	*out = g->nlines++;
	return 0;
}

static int
add_insn(struct agg *g, size_t li, const struct prow *p)
{
	char key[2048], lk[32];
	size_t idx = g->ninsns, i;
	struct insn *in;
	int r;

	snprintf(lk, sizeof(lk), "%zu", li);
	keyf(key, sizeof(key), lk, "", 0, p->addr);
	if ((r = kp_strmap_get_put(&g->insnmap, key, &idx)) < 0)
		return -1;
	if (r == 0) {
		if (hs_grow((void **)&g->insns, &g->cinsns, g->ninsns, sizeof(*g->insns)) < 0)
			return -1;
		in = &g->insns[g->ninsns++];
		memset(in, 0, sizeof(*in));
		in->line = li;
		in->a = strtoull(p->addr, NULL, 16);
		kp_sass_opcode(p->text, in->op, sizeof(in->op));
		if ((in->addr = strdup(p->addr)) == NULL || (in->text = strdup(p->text)) == NULL ||
		    (in->val = malloc((g->nm + 1) * sizeof(double))) == NULL)
			return -1;
		for (i = 0; i < g->nm; i++)
			in->val[i] = NAN;
		g->lines[li].ninsn++;
	}
	vadd(g->insns[idx].val, p->val, g->nm);
	return 0;
}

/* Merge the pending block into the sums. */
static int
pending_merge(struct agg *g)
{
	char key[2048], sum[32];
	enum kp_src_kind kind = kp_src_kind(g->src);
	size_t v = 0, i, cur = (size_t)-1, fi;
	int r;

	if (!g->open)
		return 0;
	snprintf(sum, sizeof(sum), "%016llx", (unsigned long long)g->sum);
	keyf(key, sizeof(key), g->bfile, g->bfunc, 0, sum);
	if ((r = kp_strmap_get_put(&g->blocks, key, &v)) < 0)
		return -1;
	if (r == 1 && g->nrows > 0) {	/* an exact repeat of an earlier block */
		g->duplicates++;
		pending_reset(g);
		return 0;
	}
	keyf(key, sizeof(key), g->bfile, g->bfunc, 0, "");
	if ((r = kp_strmap_get_put(&g->copykeys, key, &v)) < 0)
		return -1;
	if (r == 1 || g->copies == 0) {	/* a new launch copy */
		kp_strmap_clear(&g->copykeys);
		kp_strmap_clear(&g->copyinsn);
		kp_strmap_clear(&g->copyaddr);
		if (kp_strmap_get_put(&g->copykeys, key, &v) < 0)
			return -1;
		g->copies++;
	}
	if (add_fn(g, g->bfunc, &fi) < 0)
		return -1;
	if (kind == KP_SRC_SASS && get_line(g, "", g->bfunc, 0, "", &cur) < 0)
		return -1;
	for (i = 0; i < g->nrows; i++) {
		struct prow *p = &g->rows[i];

		if (!p->insn) {
			if (get_line(g, g->bfile, g->bfunc, p->line, p->text, &cur) < 0)
				return -1;
			vadd(g->lines[cur].val, p->val, g->nm);
			if (kind == KP_SRC_PTX)
				vadd(g->fns[fi].total, p->val, g->nm);
			continue;
		}
		if (cur == (size_t)-1)
			continue;	/* an instruction before any line: none seen */
		snprintf(sum, sizeof(sum), "%zu", cur);
		keyf(key, sizeof(key), sum, "", 0, p->addr);
		if ((r = kp_strmap_get_put(&g->copyinsn, key, &v)) < 0)
			return -1;
		if (r == 1) {	/* listed twice under one line in one copy */
			g->duplicates++;
			continue;
		}
		if (add_insn(g, cur, p) < 0)
			return -1;
		if (kind == KP_SRC_SASS)
			vadd(g->lines[cur].val, p->val, g->nm);
		keyf(key, sizeof(key), g->bfunc, "", 0, p->addr);
		if ((r = kp_strmap_get_put(&g->copyaddr, key, &v)) < 0)
			return -1;
		if (r == 0)
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
	kp_strmap_free(&g->linemap);
	kp_strmap_free(&g->insnmap);
	kp_strmap_free(&g->copykeys);
	kp_strmap_free(&g->copyinsn);
	kp_strmap_free(&g->copyaddr);
	kp_strmap_free(&g->blocks);
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
	while ((rc = kp_src_next(g->src, &r, err)) == 1) {
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
		if (pending_add(g, &r) < 0)
			goto nomem;
	}
	if (rc < 0)
		return -1;
	if (pending_merge(g) < 0)
		goto nomem;
	return 0;
nomem:
	return kp_errf(err, KP_EXIT_ENV, "out of memory");
}
