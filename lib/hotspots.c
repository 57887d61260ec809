/*
 * hotspots.c: rank the lines and instructions of one kernel's source page.
 *
 * The page is read once (source.c).  Each block is held until its end, then
 * merged into per-line and per-instruction sums, unless it repeats an earlier
 * block exactly (ncu prints some blocks twice).  A block whose file and
 * function were already seen starts a new launch copy; copies are summed, so
 * the ranking is over the kernel, not per launch.  Within one copy an
 * instruction listed twice under the same line counts once, and the kernel's
 * total counts each address once (inlined code is listed under the header
 * line and under the calling line).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kp.h"

/* ---- a small string -> index hash table ---- */
struct map {
	char **key;
	size_t *val;
	size_t cap, n;
};

static uint64_t
fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 1099511628211ULL;
	return h;
}

#define FNV0 1469598103934665603ULL

static int
map_grow(struct map *m)
{
	struct map nm;
	size_t i;

	nm.cap = m->cap ? m->cap * 2 : 256;
	nm.n = 0;
	if ((nm.key = calloc(nm.cap, sizeof(*nm.key))) == NULL ||
	    (nm.val = calloc(nm.cap, sizeof(*nm.val))) == NULL) {
		free(nm.key);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (m->key[i] == NULL)
			continue;
		j = fnv(m->key[i], strlen(m->key[i]), FNV0) & (nm.cap - 1);
		while (nm.key[j])
			j = (j + 1) & (nm.cap - 1);
		nm.key[j] = m->key[i];
		nm.val[j] = m->val[i];
		nm.n++;
	}
	free(m->key);
	free(m->val);
	*m = nm;
	return 0;
}

/* 1 found (*v set), 0 inserted with v, -1 out of memory. */
static int
map_get_put(struct map *m, const char *k, size_t *v)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return -1;
	j = fnv(k, strlen(k), FNV0) & (m->cap - 1);
	while (m->key[j]) {
		if (strcmp(m->key[j], k) == 0) {
			*v = m->val[j];
			return 1;
		}
		j = (j + 1) & (m->cap - 1);
	}
	if ((m->key[j] = strdup(k)) == NULL)
		return -1;
	m->val[j] = *v;
	m->n++;
	return 0;
}

static void
map_clear(struct map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		free(m->key ? m->key[i] : NULL);
		if (m->key)
			m->key[i] = NULL;
	}
	m->n = 0;
}

static void
map_free(struct map *m)
{
	map_clear(m);
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

/* ---- aggregated data ---- */
struct insn {
	size_t line;		/* index into lines */
	char *addr, *text;
	unsigned long long a;
	char op[24];
	double *val;
};

struct line {
	char *file, *function, *text;
	long line;
	size_t fn;		/* index into fns */
	double *val;
	size_t ninsn;		/* distinct instructions under it */
};

struct fn {
	char *name;
	double *total;
};

struct prow {			/* a row of the block being read */
	int insn;
	long line;
	char *text, *addr;
	double *val;
};

struct agg {
	struct kp_src *src;
	size_t nm;
	struct line *lines;
	size_t nlines, clines;
	struct insn *insns;
	size_t ninsns, cinsns;
	struct fn *fns;
	size_t nfns;
	struct map linemap, insnmap;
	struct map copykeys, copyinsn, copyaddr;	/* reset per copy */
	struct map blocks;	/* "file\x1ffunction\x1fchecksum" of merged blocks */
	/* the pending block */
	char *bfile, *bfunc;
	struct prow *rows;
	size_t nrows, crows;
	uint64_t sum;
	int open;
	size_t copies, duplicates;
};

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
	g->sum = FNV0;
	g->open = 0;
}

static int
grow(void **p, size_t *cap, size_t n, size_t sz)
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

	if (grow((void **)&g->rows, &g->crows, g->nrows, sizeof(*g->rows)) < 0)
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
	g->sum = fnv(&r->ev, sizeof(r->ev), g->sum);
	g->sum = fnv(&r->line, sizeof(r->line), g->sum);
	g->sum = fnv(r->text, strlen(r->text) + 1, g->sum);
	g->sum = fnv(r->address, strlen(r->address) + 1, g->sum);
	g->sum = fnv(r->val, g->nm * sizeof(*r->val), g->sum);
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
	if ((r = map_get_put(&g->linemap, key, &idx)) != 0) {
		*out = idx;
		return r < 0 ? -1 : 0;
	}
	if (grow((void **)&g->lines, &g->clines, g->nlines, sizeof(*g->lines)) < 0)
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
	if ((r = map_get_put(&g->insnmap, key, &idx)) < 0)
		return -1;
	if (r == 0) {
		if (grow((void **)&g->insns, &g->cinsns, g->ninsns, sizeof(*g->insns)) < 0)
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
	if ((r = map_get_put(&g->blocks, key, &v)) < 0)
		return -1;
	if (r == 1 && g->nrows > 0) {	/* an exact repeat of an earlier block */
		g->duplicates++;
		pending_reset(g);
		return 0;
	}
	keyf(key, sizeof(key), g->bfile, g->bfunc, 0, "");
	if ((r = map_get_put(&g->copykeys, key, &v)) < 0)
		return -1;
	if (r == 1 || g->copies == 0) {	/* a new launch copy */
		map_clear(&g->copykeys);
		map_clear(&g->copyinsn);
		map_clear(&g->copyaddr);
		if (map_get_put(&g->copykeys, key, &v) < 0)
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
		if ((r = map_get_put(&g->copyinsn, key, &v)) < 0)
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
		if ((r = map_get_put(&g->copyaddr, key, &v)) < 0)
			return -1;
		if (r == 0)
			vadd(g->fns[fi].total, p->val, g->nm);
	}
	pending_reset(g);
	return 0;
}

static void
agg_free(struct agg *g)
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
	map_free(&g->linemap);
	map_free(&g->insnmap);
	map_free(&g->copykeys);
	map_free(&g->copyinsn);
	map_free(&g->copyaddr);
	map_free(&g->blocks);
	free(g->bfile);
	free(g->bfunc);
	kp_src_close(g->src);
}

static int
agg_read(struct agg *g, struct kp_err *err)
{
	struct kp_src_row r;
	int rc;

	g->sum = FNV0;
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

/* ---- classification ---- */
static int
in(const char *op, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(op, *set) == 0)
			return 1;
	return 0;
}

static const char *const shared_ops[] = { "LDS", "STS", "LDSM", "STSM", "ATOMS", NULL };
static const char *const global_ops[] = { "LDG", "STG", "LD", "ST", "LDGSTS", "LDGDEPBAR",
	"UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG", "UBLKCP", "ATOM", "ATOMG", "RED", "REDG",
	"CCTL", NULL };
static const char *const spill_ops[] = { "LDL", "STL", NULL };
static const char *const tensor_ops[] = { "HMMA", "HGMMA", "IMMA", "IGMMA", "DMMA", "BMMA",
	"BGMMA", "QGMMA", "WARPGROUP", NULL };
static const char *const sync_ops[] = { "BAR", "SYNCS", "MEMBAR", "ERRBAR", "UCGABAR_ARV",
	"UCGABAR_WAIT", NULL };
static const char *const branch_ops[] = { "BRA", "BRX", "BRXU", "JMP", "JMX", "BSSY", "BSYNC",
	"BREAK", "WARPSYNC", "CALL", "RET", "EXIT", NULL };
/* What an instruction waiting on a scoreboard waits for. */
static const char *const short_producers[] = { "LDS", "LDSM", "ATOMS", "MUFU", "S2R", "S2UR",
	"SHFL", "LDC", "REDUX", "CS2R", NULL };
static const char *const long_producers[] = { "LDG", "LD", "LDL", "ATOM", "ATOMG", "TEX",
	"TLD", "TLD4", "TXQ", "SULD", "LDGSTS", NULL };

const char *
kp_hotspot_class(const char *op, const char *reason, int conflicts)
{
	const char *r = reason ? reason : "";

	if (strcmp(r, "barrier") == 0 || strcmp(r, "membar") == 0 || in(op, sync_ops))
		return "synchronization_bound";
	if (in(op, spill_ops))
		return "register_spill";
	if (in(op, shared_ops) && (strcmp(r, "short_scoreboard") == 0 ||
	    strcmp(r, "mio_throttle") == 0)) {
		if (conflicts)
			return "shared_memory_bank_conflict";
		return strcmp(r, "mio_throttle") == 0 ? "memory_bandwidth_bound" :
		    "memory_latency_bound";
	}
	if (in(op, global_ops) && (strcmp(r, "lg_throttle") == 0 ||
	    strcmp(r, "mio_throttle") == 0))
		return "memory_bandwidth_bound";
	if (strcmp(r, "long_scoreboard") == 0)	/* waits on global or local memory */
		return in(op, spill_ops) ? "register_spill" : "memory_latency_bound";
	if (in(op, tensor_ops))
		return "compute_pipeline_bound";
	if (in(op, branch_ops) && strcmp(r, "branch_resolving") == 0)
		return "divergence_bound";
	if (op[0] && !in(op, shared_ops) && !in(op, global_ops) && !in(op, branch_ops) &&
	    (strcmp(r, "math_pipe_throttle") == 0 || strcmp(r, "wait") == 0))
		return "compute_pipeline_bound";
	return "";
}

/* ---- ranking ---- */
struct ctx {
	struct agg *g;
	int mi;			/* ranking metric */
	int all;		/* "Warp Stall Sampling (All Samples)" or -1 */
	int exc, nway;		/* shared conflict columns or -1 */
	int sampling;		/* the ranking metric counts samples */
	int stall[64];		/* all-samples stall columns */
	char reason[64][32];
	size_t nstall;
};

struct stall {
	int col;		/* -1 when none */
	double v, total, eligible;
};

static void
dominant_stall(const struct ctx *c, const double *val, struct stall *s)
{
	size_t i;

	s->col = -1;
	s->v = s->total = s->eligible = 0;
	for (i = 0; i < c->nstall; i++) {
		double v = val[c->stall[i]];

		if (isnan(v))
			continue;
		s->total += v;
		if (strcmp(c->reason[i], "selected") == 0 ||
		    strcmp(c->reason[i], "not_selected") == 0) {
			s->eligible += v;
			continue;
		}
		if (v > s->v) {
			s->v = v;
			s->col = (int)i;
		}
	}
	if (c->all >= 0 && !isnan(val[c->all]) && val[c->all] > s->total)
		s->total = val[c->all];
}

static double
mv(const double *val, int i)
{
	return i < 0 || isnan(val[i]) ? 0 : val[i];
}

/* The nearest instruction before `in` on the same line whose result it waits for. */
static const struct insn *
producer(const struct agg *g, const struct insn *w, const char *reason)
{
	const char *const *set;
	const struct insn *best = NULL;
	size_t i;

	if (strcmp(reason, "short_scoreboard") == 0)
		set = short_producers;
	else if (strcmp(reason, "long_scoreboard") == 0)
		set = long_producers;
	else
		return NULL;
	for (i = 0; i < g->ninsns; i++) {
		const struct insn *p = &g->insns[i];

		if (p->line != w->line || p->a >= w->a || !in(p->op, set))
			continue;
		if (best == NULL || p->a > best->a)
			best = p;
	}
	return best;
}

static int
is_triton_file(const char *f)
{
	size_t n = strlen(f);
	static const char *const ext[] = { ".py", ".ttgir", ".ttir", ".llir", NULL };
	const char *const *e;

	for (e = ext; *e; e++)
		if (n > strlen(*e) && strcmp(f + n - strlen(*e), *e) == 0)
			return 1;
	return 0;
}

static const char *
confidence(const struct line *l, const struct stall *s, enum kp_src_kind kind)
{
	size_t n = strlen(l->file);

	if (is_triton_file(l->file) && !(l->line > 0 && n > 3 &&
	    strcmp(l->file + n - 3, ".py") == 0))
		return "best_effort";
	if (kind == KP_SRC_SASS || l->line <= 0 || s->total < 20)
		return "low";
	return s->col >= 0 && s->v * 2 > s->total ? "high" : "medium";
}

static char *
xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

static void
cat(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
cat(char *buf, size_t n, const char *fmt, ...)
{
	size_t k = strlen(buf);
	va_list ap;

	if (k + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + k, n - k, fmt, ap);
	va_end(ap);
}

static void
fmt_share(const struct ctx *c, char *ev, size_t n, double v, double total)
{
	const char *m = kp_src_metric(c->g->src, (size_t)c->mi);

	if (c->sampling)
		cat(ev, n, "%.0f of %.0f samples (%.1f%%)", v, total,
		    total > 0 ? 100 * v / total : 0);
	else
		cat(ev, n, "%.17g of %.17g (%.1f%%) of the kernel's %s", v, total,
		    total > 0 ? 100 * v / total : 0, m);
}

static void
fmt_stall(const struct ctx *c, char *ev, size_t n, const struct stall *s)
{
	if (s->col >= 0 && s->total > 0)
		cat(ev, n, "; stall %s %.0f%%", c->reason[s->col], 100 * s->v / s->total);
	if (s->total > 0 && s->eligible > 0)
		cat(ev, n, "; eligible (selected, not_selected) %.0f%%",
		    100 * s->eligible / s->total);
}

static int
push(struct kp_hotspots *h, size_t *cap, struct kp_hotspot *r)
{
	if (grow((void **)&h->rows, cap, h->n, sizeof(*h->rows)) < 0)
		return -1;
	h->rows[h->n++] = *r;
	return 0;
}

static int
make_insn_row(struct ctx *c, struct kp_hotspots *h, size_t *cap, const struct insn *in,
    int rank, int top)
{
	struct agg *g = c->g;
	const struct line *l = &g->lines[in->line];
	const struct insn *p = NULL;
	struct kp_hotspot r;
	struct stall s;
	char ev[1024] = "";
	int conflicts = mv(in->val, c->exc) > 0 || mv(in->val, c->nway) > 1;

	memset(&r, 0, sizeof(r));
	dominant_stall(c, in->val, &s);
	if (s.col >= 0)
		p = producer(g, in, c->reason[s.col]);
	r.level = KP_HS_INSN;
	r.rank = rank;
	r.line = l->line;
	r.value = mv(in->val, c->mi);
	if (top)
		cat(ev, sizeof(ev), "instruction %s: ", in->addr);
	else
		cat(ev, sizeof(ev), "instruction %s of line %ld: ", in->addr, l->line);
	fmt_share(c, ev, sizeof(ev), r.value, mv(g->fns[l->fn].total, c->mi));
	fmt_stall(c, ev, sizeof(ev), &s);
	if (p != NULL)
		cat(ev, sizeof(ev), "; waits on %s at %s%s", p->op, p->addr,
		    l->line > 0 ? " on the same line" : "");
	if (conflicts)
		cat(ev, sizeof(ev), "; shared bank conflicts");
	r.bottleneck_class = kp_hotspot_class(p ? p->op : in->op,
	    s.col >= 0 ? c->reason[s.col] : "", conflicts);
	r.confidence = confidence(l, &s, kp_src_kind(g->src));
	r.source_file = xstrdup(l->file);
	r.function = xstrdup(l->function);
	r.sass_opcode = xstrdup(in->op);
	r.ptx_opcode = xstrdup("");
	r.metric = xstrdup(kp_src_metric(g->src, (size_t)c->mi));
	r.stall_reason = xstrdup(s.col >= 0 ? c->reason[s.col] : "");
	r.evidence = xstrdup(ev);
	r.address = xstrdup(in->addr);
	if (!r.source_file || !r.function || !r.sass_opcode || !r.ptx_opcode || !r.metric ||
	    !r.stall_reason || !r.evidence || !r.address || push(h, cap, &r) < 0)
		return -1;
	return 0;
}

static int
cmp_desc(double a, double b)
{
	return a > b ? -1 : a < b;
}

static const struct ctx *sort_ctx;

static int
cmp_insn(const void *x, const void *y)
{
	const struct insn *a = *(const struct insn *const *)x, *b = *(const struct insn *const *)y;
	int r = cmp_desc(mv(a->val, sort_ctx->mi), mv(b->val, sort_ctx->mi));

	if (r == 0)
		r = a->a < b->a ? -1 : a->a > b->a;
	return r;
}

static int
cmp_line(const void *x, const void *y)
{
	const struct line *a = *(const struct line *const *)x, *b = *(const struct line *const *)y;
	int r = cmp_desc(mv(a->val, sort_ctx->mi), mv(b->val, sort_ctx->mi));

	if (r == 0)
		r = strcmp(a->file, b->file);
	if (r == 0)
		r = a->line < b->line ? -1 : a->line > b->line;
	return r;
}

/* The instructions of line li with a positive value, best first; malloc'd. */
static const struct insn **
line_insns(struct ctx *c, size_t li, size_t *n)
{
	const struct insn **v;
	size_t i, k = 0;

	if ((v = calloc(c->g->lines[li].ninsn + 1, sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < c->g->ninsns; i++)
		if (c->g->insns[i].line == li && mv(c->g->insns[i].val, c->mi) > 0)
			v[k++] = &c->g->insns[i];
	sort_ctx = c;
	qsort(v, k, sizeof(*v), cmp_insn);
	*n = k;
	return v;
}

static int
make_line_row(struct ctx *c, struct kp_hotspots *h, size_t *cap, size_t li, int rank,
    int per_line)
{
	struct agg *g = c->g;
	const struct line *l = &g->lines[li];
	const struct insn **v, *waiter = NULL, *p = NULL;
	struct kp_hotspot r;
	struct stall s;
	char ev[1024] = "", op[24] = "", ptx[48] = "";
	double best = 0, opv = 0;
	size_t n, i, j;
	int conflicts = mv(l->val, c->exc) > 0;
	enum kp_src_kind kind = kp_src_kind(g->src);

	if ((v = line_insns(c, li, &n)) == NULL)
		return -1;
	dominant_stall(c, l->val, &s);
	for (i = 0; i < n; i++) {	/* the dominant opcode family */
		double sum = 0;

		if (mv(v[i]->val, c->nway) > 1)
			conflicts = 1;
		for (j = 0; j < n; j++)
			if (strcmp(v[j]->op, v[i]->op) == 0)
				sum += mv(v[j]->val, c->mi);
		if (sum > opv) {
			opv = sum;
			snprintf(op, sizeof(op), "%s", v[i]->op);
		}
		if (s.col >= 0 && mv(v[i]->val, c->stall[s.col]) > best) {
			best = mv(v[i]->val, c->stall[s.col]);
			waiter = v[i];
		}
	}
	if (waiter != NULL)
		p = producer(g, waiter, c->reason[s.col]);
	if (kind == KP_SRC_PTX)
		kp_ptx_opcode(l->text, ptx, sizeof(ptx));
	memset(&r, 0, sizeof(r));
	r.level = KP_HS_LINE;
	r.rank = rank;
	r.line = l->line;
	r.value = mv(l->val, c->mi);
	fmt_share(c, ev, sizeof(ev), r.value, mv(g->fns[l->fn].total, c->mi));
	fmt_stall(c, ev, sizeof(ev), &s);
	if (l->ninsn > 0 && op[0])
		cat(ev, sizeof(ev), "; %zu SASS instructions, %s %.0f%% of the line", l->ninsn,
		    op, r.value > 0 ? 100 * opv / r.value : 0);
	if (p != NULL)
		cat(ev, sizeof(ev), "; %s at %s waits on %s at %s on the same line",
		    waiter->op, waiter->addr, p->op, p->addr);
	if (conflicts)
		cat(ev, sizeof(ev), "; shared bank conflicts");
	if (g->copies > 1)
		cat(ev, sizeof(ev), "; summed over %zu launches", g->copies);
	r.bottleneck_class = kp_hotspot_class(p ? p->op : op, s.col >= 0 ?
	    c->reason[s.col] : "", conflicts);
	r.confidence = confidence(l, &s, kind);
	r.source_file = xstrdup(l->file);
	r.function = xstrdup(l->function);
	r.sass_opcode = xstrdup(op);
	r.ptx_opcode = xstrdup(ptx);
	r.metric = xstrdup(kp_src_metric(g->src, (size_t)c->mi));
	r.stall_reason = xstrdup(s.col >= 0 ? c->reason[s.col] : "");
	r.evidence = xstrdup(ev);
	r.address = xstrdup("");
	if (!r.source_file || !r.function || !r.sass_opcode || !r.ptx_opcode || !r.metric ||
	    !r.stall_reason || !r.evidence || !r.address || push(h, cap, &r) < 0) {
		free(v);
		return -1;
	}
	for (i = 0; i < n && (int)i < per_line; i++)
		if (make_insn_row(c, h, cap, v[i], rank, 0) < 0) {
			free(v);
			return -1;
		}
	free(v);
	return 0;
}

static int
rank_rows(struct ctx *c, struct kp_hotspots *h, const struct kp_hs_opts *o)
{
	struct agg *g = c->g;
	size_t cap = 0, i, k = 0;
	int top = o->top > 0 ? o->top : 20, per = o->per_line >= 0 ? o->per_line : 3;

	if (kp_src_kind(g->src) == KP_SRC_SASS) {
		const struct insn **v = calloc(g->ninsns + 1, sizeof(*v));

		if (v == NULL)
			return -1;
		for (i = 0; i < g->ninsns; i++)
			if (mv(g->insns[i].val, c->mi) > 0)
				v[k++] = &g->insns[i];
		sort_ctx = c;
		qsort(v, k, sizeof(*v), cmp_insn);
		for (i = 0; i < k && (int)i < top; i++)
			if (make_insn_row(c, h, &cap, v[i], (int)i + 1, 1) < 0) {
				free(v);
				return -1;
			}
		free(v);
	} else {
		const struct line **v = calloc(g->nlines + 1, sizeof(*v));

		if (v == NULL)
			return -1;
		for (i = 0; i < g->nlines; i++)
			if (mv(g->lines[i].val, c->mi) > 0)
				v[k++] = &g->lines[i];
		sort_ctx = c;
		qsort(v, k, sizeof(*v), cmp_line);
		for (i = 0; i < k && (int)i < top; i++)
			if (make_line_row(c, h, &cap, (size_t)(v[i] - g->lines), (int)i + 1,
			    per) < 0) {
				free(v);
				return -1;
			}
		free(v);
	}
	return 0;
}

static int
setup_ctx(struct ctx *c, struct agg *g, const char *metric, struct kp_err *err)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->g = g;
	c->mi = kp_src_metric_index(g->src, metric);
	if (c->mi < 0 || !kp_src_metric_numeric(g->src, (size_t)c->mi))
		return kp_errf(err, KP_EXIT_USAGE, "%s: unknown metric \"%s\" (not a numeric "
		    "column of this page)", kp_src_name(g->src), metric);
	c->all = kp_src_metric_index(g->src, KP_HS_DEFAULT_METRIC);
	c->exc = kp_src_metric_index(g->src, "L1 Wavefronts Shared Excessive");
	c->nway = kp_src_metric_index(g->src, "L1 Conflicts Shared N-Way");
	c->sampling = strstr(metric, "Sampl") != NULL;
	for (i = 0; i < g->nm && c->nstall < 64; i++)
		if (kp_stall_reason(kp_src_metric(g->src, i), c->reason[c->nstall],
		    sizeof(c->reason[0])) != NULL)
			c->stall[c->nstall++] = (int)i;
	return 0;
}

struct kp_hotspots *
kp_hotspots_unavailable(const char *metric, const char *why)
{
	struct kp_hotspots *h = calloc(1, sizeof(*h));
	struct kp_hotspot *r;

	if (h == NULL || (h->rows = calloc(1, sizeof(*h->rows))) == NULL) {
		free(h);
		return NULL;
	}
	r = h->rows;
	h->n = 1;
	r->level = KP_HS_UNAVAILABLE;
	r->value = NAN;
	r->bottleneck_class = "";
	r->confidence = "none";
	r->source_file = xstrdup("");
	r->function = xstrdup("");
	r->sass_opcode = xstrdup("");
	r->ptx_opcode = xstrdup("");
	r->metric = xstrdup(metric ? metric : KP_HS_DEFAULT_METRIC);
	r->stall_reason = xstrdup("");
	r->address = xstrdup("");
	if ((r->evidence = malloc(strlen(why) + 64)) != NULL)
		sprintf(r->evidence, "source mapping unavailable: %s", why);
	if (!r->source_file || !r->function || !r->sass_opcode || !r->ptx_opcode ||
	    !r->metric || !r->stall_reason || !r->address || !r->evidence) {
		kp_hotspots_free(h);
		return NULL;
	}
	return h;
}

struct kp_hotspots *
kp_hotspots_read(FILE *fp, const char *name, const struct kp_hs_opts *o,
    struct kp_err *err)
{
	struct agg g;
	struct ctx c;
	struct kp_hotspots *h = NULL;
	const char *metric = o && o->metric ? o->metric : KP_HS_DEFAULT_METRIC;
	struct kp_hs_opts def = { NULL, 20, 3 };
	double total = 0;
	size_t i;
	char why[512];

	if (o == NULL)
		o = &def;
	memset(&g, 0, sizeof(g));
	if ((g.src = kp_src_open(fp, name, err)) == NULL)
		return NULL;
	g.nm = kp_src_nmetrics(g.src);
	if (g.nm == 0) {
		snprintf(why, sizeof(why), "the %s page of %s holds only line numbers and text, "
		    "no metrics (ncu samples SASS instructions; collect the page with "
		    "--print-source cuda,sass or sass)", kp_src_kind_name(kp_src_kind(g.src)),
		    name);
		kp_src_close(g.src);
		if ((h = kp_hotspots_unavailable(metric, why)) == NULL)
			kp_errf(err, KP_EXIT_ENV, "out of memory");
		else
			h->kind = KP_SRC_PTX;
		return h;
	}
	if (setup_ctx(&c, &g, metric, err) < 0 || agg_read(&g, err) < 0)
		goto out;
	for (i = 0; i < g.nfns; i++)
		total += mv(g.fns[i].total, c.mi);
	if (total <= 0) {
		snprintf(why, sizeof(why), "%s holds no %s (was the SourceCounters section "
		    "collected?)", name, metric);
		if ((h = kp_hotspots_unavailable(metric, why)) == NULL)
			kp_errf(err, KP_EXIT_ENV, "out of memory");
		else
			h->kind = kp_src_kind(g.src);
		goto out;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL || rank_rows(&c, h, o) < 0) {
		kp_hotspots_free(h);
		h = NULL;
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		goto out;
	}
	h->kind = kp_src_kind(g.src);
	h->total = total;
	h->copies = g.copies;
	h->duplicates = g.duplicates;
out:
	agg_free(&g);
	return h;
}

void
kp_hotspots_free(struct kp_hotspots *h)
{
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->n; i++) {
		struct kp_hotspot *r = &h->rows[i];

		free(r->source_file);
		free(r->function);
		free(r->sass_opcode);
		free(r->ptx_opcode);
		free(r->metric);
		free(r->stall_reason);
		free(r->evidence);
		free(r->address);
	}
	free(h->rows);
	free(h);
}

/* ---- output ---- */
static int
csv_field(FILE *fp, const char *s, int last)
{
	int rc;

	if (strpbrk(s, ",\"\r\n") == NULL)
		rc = fputs(s, fp);
	else {
		rc = fputc('"', fp);
		for (; *s && rc != EOF; s++)
			rc = *s == '"' ? fputs("\"\"", fp) : fputc(*s, fp);
		if (rc != EOF)
			rc = fputc('"', fp);
	}
	if (rc != EOF)
		rc = fputc(last ? '\n' : ',', fp);
	return rc == EOF ? -1 : 0;
}

static void
fmt_value(char *buf, size_t n, double v)
{
	if (isnan(v))
		buf[0] = '\0';
	else if (v == floor(v) && fabs(v) < 1e17)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.17g", v);
}

int
kp_hotspots_write_csv(FILE *fp, const struct kp_hotspots *h, struct kp_err *err)
{
	size_t i;

	if (fputs("source_file,line,function,sass_opcode,ptx_opcode,metric,value,"
	    "stall_reason,bottleneck_class,confidence,evidence\n", fp) == EOF)
		goto fail;
	for (i = 0; i < h->n; i++) {
		const struct kp_hotspot *r = &h->rows[i];
		char ln[32] = "", val[64];

		if (r->line > 0)
			snprintf(ln, sizeof(ln), "%ld", r->line);
		fmt_value(val, sizeof(val), r->value);
		if (csv_field(fp, r->source_file, 0) < 0 || csv_field(fp, ln, 0) < 0 ||
		    csv_field(fp, r->function, 0) < 0 || csv_field(fp, r->sass_opcode, 0) < 0 ||
		    csv_field(fp, r->ptx_opcode, 0) < 0 || csv_field(fp, r->metric, 0) < 0 ||
		    csv_field(fp, val, 0) < 0 || csv_field(fp, r->stall_reason, 0) < 0 ||
		    csv_field(fp, r->bottleneck_class, 0) < 0 ||
		    csv_field(fp, r->confidence, 0) < 0 || csv_field(fp, r->evidence, 1) < 0)
			goto fail;
	}
	return 0;
fail:
	return kp_errno(err, KP_EXIT_ENV, "write error");
}

json_t *
kp_hotspot_json(const struct kp_hotspot *r, const char *profile_dir)
{
	static const char *const level[] = { "", "line", "instruction", "unavailable" };
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "kind", json_string("hotspot"));
	json_object_set_new(o, "level", json_string(level[r->level]));
	json_object_set_new(o, "rank", json_integer(r->rank));
	json_object_set_new(o, "source_file", json_string(r->source_file));
	json_object_set_new(o, "line", r->line > 0 ? json_integer(r->line) : json_null());
	json_object_set_new(o, "function", json_string(r->function));
	json_object_set_new(o, "sass_opcode", json_string(r->sass_opcode));
	json_object_set_new(o, "ptx_opcode", json_string(r->ptx_opcode));
	json_object_set_new(o, "metric", json_string(r->metric));
	if (isnan(r->value))
		json_object_set_new(o, "value", json_null());
	else if (r->value == floor(r->value) && fabs(r->value) < 9e15)
		json_object_set_new(o, "value", json_integer((json_int_t)r->value));
	else
		json_object_set_new(o, "value", json_real(r->value));
	json_object_set_new(o, "stall_reason", json_string(r->stall_reason));
	json_object_set_new(o, "bottleneck_class", json_string(r->bottleneck_class));
	json_object_set_new(o, "confidence", json_string(r->confidence));
	json_object_set_new(o, "evidence", json_string(r->evidence));
	if (r->address[0])
		json_object_set_new(o, "address", json_string(r->address));
	if (profile_dir != NULL)
		json_object_set_new(o, "profile_dir", json_string(profile_dir));
	return o;
}
