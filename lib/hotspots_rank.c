/*
 * hotspots_rank.c: classify and rank the lines and instructions summed by
 * hotspots_agg.c, and explain each row (the evidence text).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp.h"
#include "hotspots_int.h"

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
	if (hs_grow((void **)&h->rows, cap, h->n, sizeof(*h->rows)) < 0)
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
	if (setup_ctx(&c, &g, metric, err) < 0 || hs_agg_read(&g, err) < 0)
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
	hs_agg_free(&g);
	return h;
}
