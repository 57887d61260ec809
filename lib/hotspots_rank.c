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

#include "kp_diag.h"
#include "kp_hotspots.h"
#include "kp_source.h"
#include "hotspots_int.h"
#include "hotspots_par.h"
#include "source_evidence.h"

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
static const char *const atomic_ops[] = { "ATOM", "ATOMG", "RED", "REDG", "ATOMS", NULL };
static const char *const sync_ops[] = { "BAR", "SYNCS", "MEMBAR", "ERRBAR", "UCGABAR_ARV",
	"UCGABAR_WAIT", "NANOSLEEP", NULL };
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

	/* waits for other threads: a barrier, a fence, a spin-wait's sleep */
	if (strcmp(r, "barrier") == 0 || strcmp(r, "membar") == 0 || strcmp(r, "sleeping") == 0 ||
	    in(op, sync_ops))
		return "synchronization_bound";
	if (in(op, spill_ops))
		return "register_spill";
	/* an atomic, or an instruction waiting on one (an acquire's CCTL, the
	 * use of atomicAdd's old value): updates serialise where they land */
	if (in(op, atomic_ops))
		return "atomic_contention";
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
	if (kp_sass_is_tensor(op))
		return "compute_pipeline_bound";
	if (in(op, branch_ops) && strcmp(r, "branch_resolving") == 0)
		return "divergence_bound";
	if (op[0] && !in(op, shared_ops) && !in(op, global_ops) && !in(op, branch_ops) &&
	    (strcmp(r, "math_pipe_throttle") == 0 || strcmp(r, "wait") == 0))
		return "compute_pipeline_bound";
	/* latencies no unit's load explains: a constant-cache miss, an
	 * instruction fetch, the result of special math, a shuffle or a
	 * special register (op is the producer where one was found; a
	 * consumer whose producer is unknown may wait on a shared load) */
	if (strcmp(r, "imc_miss") == 0 || strcmp(r, "no_instruction") == 0 ||
	    (strcmp(r, "short_scoreboard") == 0 && in(op, short_producers) &&
	    !in(op, shared_ops)))
		return "latency_bound";
	return "";
}

/* ---- ranking ---- */
struct ctx {
	struct agg *g;
	int mi;			/* ranking metric */
	int all;		/* "Warp Stall Sampling (All Samples)" or -1 */
	int exc, nway, wf, wfi;	/* shared conflict and wavefront columns or -1 */
	int sampling;		/* the ranking metric counts samples */
	int stall[64];		/* all-samples stall columns */
	char reason[64][32];
	size_t nstall;
};

static double
mv(const double *val, int i)
{
	return i < 0 || isnan(val[i]) ? 0 : val[i];
}

struct stall {
	int col;		/* -1 when none */
	double v;		/* the samples of that reason */
	double total;		/* the row's samples: all-samples column, else the stall sum */
	double eligible;	/* selected + not_selected */
	double unattributed;	/* samples no stall column of the page holds */
};

static void
dominant_stall(const struct ctx *c, const double *val, struct stall *s)
{
	double sum = 0;
	size_t i;

	s->col = -1;
	s->v = s->total = s->eligible = s->unattributed = 0;
	for (i = 0; i < c->nstall; i++) {
		double v = val[c->stall[i]];

		if (isnan(v))
			continue;
		sum += v;
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
	s->total = sum;
	if (c->all >= 0 && !isnan(val[c->all]) && val[c->all] > sum) {
		s->total = val[c->all];
		s->unattributed = val[c->all] - sum;
	}
}

/* The reason, when it may decide the class: named at all, and holding at least a
 * fifth of the row's stalled samples (not eligible: selected, not_selected).  A
 * reason behind a few samples of a row whose samples the page mostly leaves
 * unattributed says little about the row. */
static const char *
class_reason(const struct ctx *c, const struct stall *s)
{
	if (s->col < 0 || s->total <= 0 || s->v * 5 < s->total - s->eligible)
		return "";
	return c->reason[s->col];
}

/* Shared-memory bank conflicts: wavefronts above the ideal, or excessive
 * wavefronts counted.  "L1 Conflicts Shared N-Way" alone is the access width (an
 * HGMMA operand read is 8-way with wavefronts equal to the ideal): it decides
 * only on a page without the wavefront columns. */
static int
conflicts_of(const struct ctx *c, const double *val, double *excess)
{
	double w = mv(val, c->wf), wi = mv(val, c->wfi), e = mv(val, c->exc);

	*excess = 0;
	if (e > 0)
		*excess = e;
	else if (c->wf >= 0 && c->wfi >= 0 && w > wi)
		*excess = w - wi;
	else if (c->exc < 0 && c->wf < 0 && mv(val, c->nway) > 1)
		return 1;
	return *excess > 0;
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
	if (s->total <= 0)
		return;
	if (s->col >= 0)
		cat(ev, n, "; stall %s %.0f of %.0f samples (%.1f%%)", c->reason[s->col], s->v,
		    s->total, 100 * s->v / s->total);
	if (s->eligible > 0)
		cat(ev, n, "; eligible (selected, not_selected) %.1f%%",
		    100 * s->eligible / s->total);
	if (s->unattributed > 0)
		cat(ev, n, "; unattributed %.0f of %.0f samples (%.1f%%: the page has no stall "
		    "column for their reason)", s->unattributed, s->total,
		    100 * s->unattributed / s->total);
}

static void
fmt_conflicts(char *ev, size_t n, int conflicts, double excess)
{
	if (conflicts && excess > 0)
		cat(ev, n, "; shared bank conflicts: %.0f wavefronts above the ideal", excess);
	else if (conflicts)
		cat(ev, n, "; shared bank conflicts (N-way above 1)");
}

static void
fmt_tensor(char *ev, size_t n, const char *op)
{
	if (op[0] && kp_sass_is_tensor(op))
		cat(ev, n, "; tensor-core work (%s: %s)", op, kp_sass_describe(op) ?
		    kp_sass_describe(op) : "matrix multiply-accumulate");
}

/* The row's sample counts into r. */
static void
set_samples(struct kp_hotspot *r, const struct stall *s)
{
	r->samples = s->total;
	r->stall_samples = s->col >= 0 ? s->v : NAN;
	r->unattributed = s->unattributed;
}

static int
push(struct kp_hotspots *h, size_t *cap, struct kp_hotspot *r)
{
	if (hs_grow((void **)&h->rows, cap, h->n, sizeof(*h->rows)) < 0)
		return -1;
	h->rows[h->n++] = *r;
	return 0;
}

/* A ranked group: a source line, or an address range of a sass page. */
struct group {
	const struct line *l;	/* the line (sass page: the function's line 0) */
	const struct insn **v;	/* its instructions with a positive value, best first */
	size_t n;
	size_t ninsn;		/* all its instructions */
	const double *val;
	char range[80];		/* sass page: "0xA-0xB", else "" */
	int loop;		/* the range ends with a branch back into itself */
};

static int
fill_row(struct kp_hotspot *r, const struct ctx *c, const struct line *l, const char *op,
    const char *ptx, const struct stall *s, const char *ev, const char *addr)
{
	r->source_file = xstrdup(l->file);
	r->function = xstrdup(l->function);
	r->sass_opcode = xstrdup(op);
	r->ptx_opcode = xstrdup(ptx);
	r->metric = xstrdup(kp_src_metric(c->g->src, (size_t)c->mi));
	r->stall_reason = xstrdup(s->col >= 0 ? c->reason[s->col] : "");
	r->evidence = xstrdup(ev);
	r->address = xstrdup(addr);
	set_samples(r, s);
	return r->source_file && r->function && r->sass_opcode && r->ptx_opcode && r->metric &&
	    r->stall_reason && r->evidence && r->address ? 0 : -1;
}

static int
make_insn_row(struct ctx *c, struct kp_hotspots *h, size_t *cap, const struct insn *in,
    const struct group *gr, int rank)
{
	struct agg *g = c->g;
	const struct line *l = &g->lines[in->line];
	const struct insn *p = NULL;
	struct kp_hotspot r;
	struct stall s;
	char ev[1024] = "";
	double excess;
	int conflicts = conflicts_of(c, in->val, &excess);

	memset(&r, 0, sizeof(r));
	dominant_stall(c, in->val, &s);
	if (s.col >= 0)
		p = producer(g, in, c->reason[s.col]);
	r.level = KP_HS_INSN;
	r.rank = rank;
	r.line = l->line;
	r.value = mv(in->val, c->mi);
	if (gr->range[0])
		cat(ev, sizeof(ev), "instruction %s of range %s: ", in->addr, gr->range);
	else
		cat(ev, sizeof(ev), "instruction %s of line %ld: ", in->addr, l->line);
	fmt_share(c, ev, sizeof(ev), r.value, mv(g->fns[l->fn].total, c->mi));
	fmt_stall(c, ev, sizeof(ev), &s);
	if (p != NULL)
		cat(ev, sizeof(ev), "; waits on %s at %s%s", p->op, p->addr,
		    l->line > 0 ? " on the same line" : "");
	fmt_conflicts(ev, sizeof(ev), conflicts, excess);
	fmt_tensor(ev, sizeof(ev), in->op);
	r.bottleneck_class = kp_hotspot_class(p ? p->op : in->op, class_reason(c, &s),
	    conflicts);
	r.confidence = confidence(l, &s, kp_src_kind(g->src));
	if (fill_row(&r, c, l, in->op, "", &s, ev, in->addr) < 0 || push(h, cap, &r) < 0) {
		hs_row_free(&r);
		return -1;
	}
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

/* The instructions of v[0..n) with a positive value, best first; malloc'd. */
static const struct insn **
ranked(struct ctx *c, const struct insn *const *v, size_t n, size_t *k)
{
	const struct insn **w;
	size_t i;

	if ((w = calloc(n + 1, sizeof(*w))) == NULL)
		return NULL;
	for (i = *k = 0; i < n; i++)
		if (mv(v[i]->val, c->mi) > 0)
			w[(*k)++] = v[i];
	sort_ctx = c;
	qsort(w, *k, sizeof(*w), cmp_insn);
	return w;
}

static int
make_group_row(struct ctx *c, struct kp_hotspots *h, size_t *cap, const struct group *gr,
    int rank, int per_line)
{
	struct agg *g = c->g;
	const struct line *l = gr->l;
	const struct insn *waiter = NULL, *p = NULL;
	struct kp_hotspot r;
	struct stall s;
	char ev[1024] = "", op[24] = "", ptx[48] = "";
	double best = 0, opv = 0, excess;
	size_t i, j;
	int conflicts = conflicts_of(c, gr->val, &excess);
	enum kp_src_kind kind = kp_src_kind(g->src);

	dominant_stall(c, gr->val, &s);
	for (i = 0; i < gr->n; i++) {	/* the dominant opcode family */
		double sum = 0, e;

		if (!conflicts && conflicts_of(c, gr->v[i]->val, &e))
			conflicts = 1;
		for (j = 0; j < gr->n; j++)
			if (strcmp(gr->v[j]->op, gr->v[i]->op) == 0)
				sum += mv(gr->v[j]->val, c->mi);
		if (sum > opv) {
			opv = sum;
			snprintf(op, sizeof(op), "%s", gr->v[i]->op);
		}
		if (s.col >= 0 && mv(gr->v[i]->val, c->stall[s.col]) > best) {
			best = mv(gr->v[i]->val, c->stall[s.col]);
			waiter = gr->v[i];
		}
	}
	if (waiter != NULL)
		p = producer(g, waiter, c->reason[s.col]);
	if (kind == KP_SRC_PTX)
		kp_ptx_opcode(l->text, ptx, sizeof(ptx));
	memset(&r, 0, sizeof(r));
	r.level = gr->range[0] ? KP_HS_RANGE : KP_HS_LINE;
	r.rank = rank;
	r.line = l->line;
	r.value = mv(gr->val, c->mi);
	if (gr->range[0])
		cat(ev, sizeof(ev), "range %s (%zu instructions%s): ", gr->range, gr->ninsn,
		    gr->loop ? ", a loop: it ends with a branch back into itself" : "");
	fmt_share(c, ev, sizeof(ev), r.value, mv(g->fns[l->fn].total, c->mi));
	fmt_stall(c, ev, sizeof(ev), &s);
	if (gr->ninsn > 0 && op[0] && gr->range[0])
		cat(ev, sizeof(ev), "; %s %.0f%% of the range", op,
		    r.value > 0 ? 100 * opv / r.value : 0);
	else if (gr->ninsn > 0 && op[0])
		cat(ev, sizeof(ev), "; %zu SASS instructions, %s %.0f%% of the line", gr->ninsn,
		    op, r.value > 0 ? 100 * opv / r.value : 0);
	if (p != NULL)
		cat(ev, sizeof(ev), "; %s at %s waits on %s at %s%s", waiter->op, waiter->addr,
		    p->op, p->addr, gr->range[0] ? "" : " on the same line");
	fmt_conflicts(ev, sizeof(ev), conflicts, excess);
	fmt_tensor(ev, sizeof(ev), op);
	if (g->copies > 1)
		cat(ev, sizeof(ev), "; summed over %zu launches", g->copies);
	r.bottleneck_class = kp_hotspot_class(p ? p->op : op, class_reason(c, &s), conflicts);
	r.confidence = confidence(l, &s, kind);
	if (fill_row(&r, c, l, op, ptx, &s, ev, gr->range) < 0 || push(h, cap, &r) < 0) {
		hs_row_free(&r);
		return -1;
	}
	for (i = 0; i < gr->n && (int)i < per_line; i++)
		if (make_insn_row(c, h, cap, gr->v[i], gr, rank) < 0)
			return -1;
	return 0;
}

/* ---- a sass page: address ranges between branches and branch targets ---- */
static const char *const ends_block[] = { "BRA", "BRX", "BRXU", "JMP", "JMX", "EXIT", "RET",
	"CALL", "BREAK", NULL };

static int
cmp_addr(const void *x, const void *y)
{
	const struct insn *a = *(const struct insn *const *)x, *b = *(const struct insn *const *)y;

	return a->a < b->a ? -1 : a->a > b->a;
}

static long
find_addr(const struct insn *const *v, size_t n, unsigned long long a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid]->a == a)
			return (long)mid;
		if (v[mid]->a < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The branch target of a branch's text ("BRA.U UP1, 0x7f06..."), 0 when none. */
static unsigned long long
target_of(const char *text)
{
	const char *p = strstr(text, "0x");

	while (p != NULL && strstr(p + 2, "0x") != NULL)	/* the last address */
		p = strstr(p + 2, "0x");
	return p != NULL ? strtoull(p, NULL, 16) : 0;
}

/* The rows of a group: its own and those of its instructions ins[0..n), ranked. */
static int
group_row(struct ctx *c, struct kp_hotspots *h, size_t *cap, struct group *gr,
    const struct insn *const *ins, size_t n, int rank, int per_line)
{
	int r;

	if ((gr->v = ranked(c, ins, n, &gr->n)) == NULL)
		return -1;
	r = make_group_row(c, h, cap, gr, rank, per_line);
	free(gr->v);
	gr->v = NULL;
	return r;
}

struct range {
	const struct insn **ins;	/* into the function's sorted array */
	size_t n;
	double *val;
	int loop;
};

struct ranges {
	const struct insn ***fsorted;	/* one sorted array per function line */
	size_t nf;
	struct range *r;
	size_t n, cap;
};

static void
ranges_free(struct ranges *rs)
{
	size_t i;

	for (i = 0; i < rs->nf; i++)
		free(rs->fsorted[i]);
	free(rs->fsorted);
	for (i = 0; i < rs->n; i++)
		free(rs->r[i].val);
	free(rs->r);
}

static int
add_range(struct ctx *c, struct ranges *rs, const struct insn **ins, size_t n)
{
	struct range *r;
	unsigned long long t;
	size_t i, k;

	if (hs_grow((void **)&rs->r, &rs->cap, rs->n, sizeof(*rs->r)) < 0)
		return -1;
	r = &rs->r[rs->n];
	r->ins = ins;
	r->n = n;
	r->loop = 0;
	if ((r->val = malloc((c->g->nm + 1) * sizeof(double))) == NULL)
		return -1;
	rs->n++;
	for (k = 0; k < c->g->nm; k++)
		r->val[k] = NAN;
	for (i = 0; i < n; i++)
		for (k = 0; k < c->g->nm; k++)
			if (!isnan(ins[i]->val[k]))
				r->val[k] = isnan(r->val[k]) ? ins[i]->val[k] :
				    r->val[k] + ins[i]->val[k];
	t = in(ins[n - 1]->op, ends_block) ? target_of(ins[n - 1]->text) : 0;
	r->loop = t >= ins[0]->a && t <= ins[n - 1]->a;
	return 0;
}

/* Split the instructions of function line li at leaders: the first, every branch
 * target, every instruction after a branch or an exit. */
static int
split_function(struct ctx *c, struct ranges *rs, size_t li)
{
	struct agg *g = c->g;
	const struct insn **v;
	unsigned char *lead;
	size_t i, n = 0, start;

	if ((v = calloc(g->lines[li].ninsn + 1, sizeof(*v))) == NULL)
		return -1;
	rs->fsorted[rs->nf++] = v;
	for (i = 0; i < g->ninsns; i++)
		if (g->insns[i].line == li)
			v[n++] = &g->insns[i];
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_addr);
	if ((lead = calloc(n + 1, 1)) == NULL)
		return -1;
	lead[0] = 1;
	for (i = 0; i < n; i++) {
		long t;

		if (!in(v[i]->op, ends_block))
			continue;
		lead[i + 1] = 1;
		if ((t = find_addr(v, n, target_of(v[i]->text))) >= 0)
			lead[t] = 1;
	}
	for (start = 0, i = 1; i <= n; i++)
		if (i == n || lead[i]) {
			if (add_range(c, rs, v + start, i - start) < 0) {
				free(lead);
				return -1;
			}
			start = i;
		}
	free(lead);
	return 0;
}

static const struct ctx *range_ctx;

static int
cmp_range(const void *x, const void *y)
{
	const struct range *a = *(const struct range *const *)x;
	const struct range *b = *(const struct range *const *)y;
	int r = cmp_desc(mv(a->val, range_ctx->mi), mv(b->val, range_ctx->mi));

	if (r == 0)
		r = a->ins[0]->a < b->ins[0]->a ? -1 : a->ins[0]->a > b->ins[0]->a;
	return r;
}

static int
rank_ranges(struct ctx *c, struct kp_hotspots *h, size_t *cap, int top, int per)
{
	struct agg *g = c->g;
	struct ranges rs;
	const struct range **v = NULL;
	size_t i, k = 0;
	int rc = -1;

	memset(&rs, 0, sizeof(rs));
	if ((rs.fsorted = calloc(g->nlines + 1, sizeof(*rs.fsorted))) == NULL)
		return -1;
	for (i = 0; i < g->nlines; i++)
		if (split_function(c, &rs, i) < 0)
			goto out;
	if ((v = calloc(rs.n + 1, sizeof(*v))) == NULL)
		goto out;
	for (i = 0; i < rs.n; i++)
		if (mv(rs.r[i].val, c->mi) > 0)
			v[k++] = &rs.r[i];
	range_ctx = c;
	qsort(v, k, sizeof(*v), cmp_range);
	for (i = 0; i < k && (int)i < top; i++) {
		struct group gr;

		memset(&gr, 0, sizeof(gr));
		gr.l = &g->lines[v[i]->ins[0]->line];
		gr.val = v[i]->val;
		gr.ninsn = v[i]->n;
		gr.loop = v[i]->loop;
		snprintf(gr.range, sizeof(gr.range), "%s-%s", v[i]->ins[0]->addr,
		    v[i]->ins[v[i]->n - 1]->addr);
		if (group_row(c, h, cap, &gr, v[i]->ins, v[i]->n, (int)i + 1, per) < 0)
			goto out;
	}
	rc = 0;
out:
	free(v);
	ranges_free(&rs);
	return rc;
}

static int
rank_lines(struct ctx *c, struct kp_hotspots *h, size_t *cap, int top, int per)
{
	struct agg *g = c->g;
	const struct line **v = calloc(g->nlines + 1, sizeof(*v));
	const struct insn **all = NULL;
	size_t i, j, k = 0;
	int rc = -1;

	if (v == NULL || (all = calloc(g->ninsns + 1, sizeof(*all))) == NULL)
		goto out;
	for (i = 0; i < g->nlines; i++)
		if (mv(g->lines[i].val, c->mi) > 0)
			v[k++] = &g->lines[i];
	sort_ctx = c;
	qsort(v, k, sizeof(*v), cmp_line);
	for (i = 0; i < k && (int)i < top; i++) {
		struct group gr;
		size_t li = (size_t)(v[i] - g->lines), n = 0;

		for (j = 0; j < g->ninsns; j++)
			if (g->insns[j].line == li)
				all[n++] = &g->insns[j];
		memset(&gr, 0, sizeof(gr));
		gr.l = v[i];
		gr.val = v[i]->val;
		gr.ninsn = v[i]->ninsn;
		if (group_row(c, h, cap, &gr, all, n, (int)i + 1, per) < 0)
			goto out;
	}
	rc = 0;
out:
	free(v);
	free(all);
	return rc;
}

static int
rank_rows(struct ctx *c, struct kp_hotspots *h, const struct kp_hs_opts *o)
{
	size_t cap = 0;
	int top = o->top > 0 ? o->top : 20, per = o->per_line >= 0 ? o->per_line : 3;

	if (kp_src_kind(c->g->src) == KP_SRC_SASS)
		return rank_ranges(c, h, &cap, top, per);
	return rank_lines(c, h, &cap, top, per);
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
	c->wf = kp_src_metric_index(g->src, "L1 Wavefronts Shared");
	c->wfi = kp_src_metric_index(g->src, "L1 Wavefronts Shared Ideal");
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
	return kp_hotspots_read_ev(fp, name, o, NULL, err);
}

/* Only the evidence of a page that has no metrics to rank. */
static json_t *
evidence_only(struct agg *g)
{
	struct kp_src_row r;
	struct kp_err e;
	int rc;

	while ((rc = kp_src_next(g->src, &r, &e)) == 1)
		if (kp_evidence_add(g->ev, &r) < 0)
			return NULL;
	return rc < 0 ? NULL : kp_evidence_result(g->ev, g->src);
}

/*
 * The page of fp ranked, read in the parts P plans (NULL: in one); with P,
 * *redo 1 says the parts could not give what one reading gives.
 */
static struct kp_hotspots *
read_ranked(FILE *fp, struct hs_parts *P, const char *name, const struct kp_hs_opts *o,
    json_t **evidence, struct kp_err *err, int *redo)
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
	if (evidence != NULL)
		*evidence = NULL;
	memset(&g, 0, sizeof(g));
	*redo = 0;
	if ((g.src = P != NULL ? hs_parts_open_head(P, err) : kp_src_open(fp, name, err)) == NULL) {
		*redo = P != NULL;
		return NULL;
	}
	if (evidence != NULL && (g.ev = kp_evidence_new(g.src)) == NULL) {
		kp_src_close(g.src);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	g.nm = kp_src_nmetrics(g.src);
	if (g.nm == 0 && P != NULL) {	/* evidence_only() reads one part */
		kp_evidence_free(g.ev);
		kp_src_close(g.src);
		*redo = 1;
		return NULL;
	}
	if (g.nm == 0) {
		snprintf(why, sizeof(why), "the %s page of %s holds only line numbers and text, "
		    "no metrics (ncu samples SASS instructions; collect the page with "
		    "--print-source cuda,sass or sass)", kp_src_kind_name(kp_src_kind(g.src)),
		    name);
		if (g.ev != NULL)
			*evidence = evidence_only(&g);
		kp_evidence_free(g.ev);
		kp_src_close(g.src);
		if ((h = kp_hotspots_unavailable(metric, why)) == NULL)
			kp_errf(err, KP_EXIT_ENV, "out of memory");
		else
			h->kind = KP_SRC_PTX;
		return h;
	}
	if (setup_ctx(&c, &g, metric, err) < 0)
		goto out;
	if (P == NULL ? hs_agg_read(&g, err) < 0 : (*redo = hs_parts_read(P, &g, err)) != 0)
		goto out;
	if (g.ev != NULL)
		*evidence = kp_evidence_result(g.ev, g.src);
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
	h->parts = P != NULL ? hs_parts_count(P) : 1;
out:
	if (h == NULL && evidence != NULL) {
		json_decref(*evidence);
		*evidence = NULL;
	}
	kp_evidence_free(g.ev);
	g.ev = NULL;
	hs_agg_free(&g);
	return h;
}

struct kp_hotspots *
kp_hotspots_read_ev(FILE *fp, const char *name, const struct kp_hs_opts *o,
    json_t **evidence, struct kp_err *err)
{
	struct hs_parts *P = hs_parts_plan(fp, name);
	struct kp_hotspots *h;
	int redo = 0;

	if (P != NULL) {
		h = read_ranked(fp, P, name, o, evidence, err, &redo);
		hs_parts_free(P);
		if (redo != 1)
			return h;
	}
	return read_ranked(fp, NULL, name, o, evidence, err, &redo);
}
