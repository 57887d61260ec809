/*
 * rawpage.c: the raw page (--page raw): one row per launch, one column per
 * metric, a units row under the header.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_units.h"
#include "metrics_int.h"

void
mx_cols_free(struct ex *x)
{
	free(x->cols);	/* their units are in x->strs */
	x->cols = NULL;
	x->ncols = 0;
	free(x->keycols);
	x->keycols = NULL;
	x->nkeycols = 0;
	free(x->fixcols);
	x->fixcols = NULL;
	x->nfixcols = 0;
	free(x->tref.text);
	free(x->tref.off);
	free(x->tref.len);
	free(x->tref.cell);
	free(x->tref.val);
	memset(&x->tref, 0, sizeof(x->tref));
}

/*
 * Room in t for a launch of nf columns whose fields take bytes in all: the
 * one whose cells and fields tref_put() then keeps.  0, or -1 out of memory.
 */
static int
tref_begin(struct tref *t, size_t nf, size_t bytes)
{
	if (t->cell == NULL && ((t->cell = malloc(nf * sizeof(*t->cell))) == NULL ||
	    (t->off = malloc(nf * sizeof(*t->off))) == NULL ||
	    (t->len = malloc(nf * sizeof(*t->len))) == NULL ||
	    (t->val = malloc(nf * sizeof(*t->val))) == NULL ||
	    (t->text = malloc(bytes + 1)) == NULL))
		return -1;
	memset(t->len, 0xff, nf * sizeof(*t->len));	/* no field has that length */
	t->used = 0;
	return 0;
}

/* Whether the len bytes at a and at b are the same (8 or fewer: no call). */
static inline int
same_bytes(const char *a, const char *b, size_t len)
{
	uint32_t w, x, y, z;
	uint16_t p, q, r, u;

	if (len > 8)
		return memcmp(a, b, len) == 0;
	if (len >= 4) {		/* two words that overlap when len < 8 */
		memcpy(&w, a, 4);
		memcpy(&x, b, 4);
		memcpy(&y, a + len - 4, 4);
		memcpy(&z, b + len - 4, 4);
		return ((w ^ x) | (y ^ z)) == 0;
	}
	if (len >= 2) {
		memcpy(&p, a, 2);
		memcpy(&q, b, 2);
		memcpy(&r, a + len - 2, 2);
		memcpy(&u, b + len - 2, 2);
		return ((p ^ q) | (r ^ u)) == 0;
	}
	return len == 0 || a[0] == b[0];
}

/*
 * Field i (s, len) of launch l being taken, and what parsing it gave (r,
 * cell).  A key's field (its value is wanted) is parsed every time: its
 * length stays UINT32_MAX.
 */
static void
tref_put(struct tref *t, const struct launch *l, size_t i, const char *s, size_t len, int r,
    uint32_t cell, int key)
{
	if (r < 0 || key)
		return;
	memcpy(t->text + t->used, s, len);
	t->off[i] = (uint32_t)t->used;
	t->len[i] = (uint32_t)len;
	t->used += len;
	if (r == 0)
		t->cell[i] = CELL_ABSENT;
	else if (cell & CELL_ESC) {
		t->cell[i] = CELL_ESC;
		t->val[i] = l->over[cell & ~CELL_ESC];
	} else
		t->cell[i] = cell;
}

/*
 * Field i (s, len) of kept launch l as x->tref has it: 1 with its cell in
 * *cell, 2 when it is no number, 0 to parse it, -1 out of memory.
 */
static inline int
tref_get(const struct tref *t, struct launch *l, size_t i, const char *s, size_t len,
    uint32_t *cell)
{
	if (len != t->len[i] || !same_bytes(s, t->text + t->off[i], len))
		return 0;
	if ((*cell = t->cell[i]) == CELL_ABSENT)
		return 2;
	if (*cell != CELL_ESC)
		return 1;
	return mx_cell_double(l, t->val[i], cell);
}

static int
raw_units(struct ex *x, struct kp_csv *c, char **hdr, size_t nh, size_t first,
    struct kp_err *err)
{
	/* a page has thousands of columns and a few dozen distinct units */
	struct { const char *s; struct kp_unit u; } seen[32];
	size_t i, j, nseen = 0, last = 0;
	long m;

	if ((x->cols = calloc(nh, sizeof(*x->cols))) == NULL ||
	    (x->keycols = calloc(nh, sizeof(*x->keycols))) == NULL)
		return mx_nomem(err);
	x->ncols = nh;
	for (i = 0; i < nh; i++) {
		const struct kp_field *f = kp_csv_field(c, i);
		struct kp_unit u;
		struct col *cl = &x->cols[i];

		cl->key = -2;
		if (i < first)
			continue;
		/* neighbours most often share a unit: the last one found first */
		if (last < nseen && strcmp(seen[last].s, f->s) == 0)
			j = last;
		else
			for (j = 0; j < nseen && strcmp(seen[j].s, f->s) != 0; j++)
				;
		if (j < nseen)
			u = seen[last = j].u;
		else {
			kp_unit_parse(f->s, &u);
			if (nseen < sizeof seen / sizeof seen[0]) {
				seen[nseen].s = f->s;	/* the units record stays in place */
				seen[nseen++].u = u;
			}
		}
		cl->scale = u.scale;
		cl->known = u.known;
		if ((cl->unit = mx_strdup(x, u.known ? u.base : f->s)) == NULL ||
		    (m = mx_metric_get(x, hdr[i], cl->unit)) < 0)
			return mx_nomem(err);
		cl->id = (uint32_t)m;
		/* the metric's own copy where the same: mx_kernel_metric() then
		 * compares pointers, for every kernel of the file */
		if (strcmp(x->m[m].unit, cl->unit) == 0)
			cl->unit = x->m[m].unit;
		if ((cl->key = mx_raw_source(x, hdr[i], &cl->rank, &cl->sum)) == -1)
			return mx_nomem(err);
		if (cl->key >= 0)
			x->keycols[x->nkeycols++] = i;
	}
	return 0;
}

/* The launch columns, ascending, for kp_csv_pick(). */
static int
fixcols(struct ex *x, const struct fixed *fx)
{
	long v[] = { fx->id, fx->name, fx->block, fx->grid, fx->cc, fx->device };
	size_t i, j, n = 0;

	free(x->fixcols);
	if ((x->fixcols = malloc(sizeof(v) / sizeof(v[0]) * sizeof(*x->fixcols))) == NULL)
		return -1;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (v[i] < 0)
			continue;
		for (j = n; j > 0 && x->fixcols[j - 1] > (size_t)v[i]; j--)
			x->fixcols[j] = x->fixcols[j - 1];
		x->fixcols[j] = (size_t)v[i];
		n++;
	}
	x->nfixcols = n;
	return 0;
}

/*
 * Every record's picks (the launch columns, then the keys' columns) to the
 * reader thread: the two ascending lists merged, each column once.
 */
static int
want_picks(struct ex *x, struct kp_csv *c)
{
	size_t *all, i = 0, j = 0, n = 0;
	int rc;

	if ((all = malloc((x->nfixcols + x->nkeycols) * sizeof(*all) + 1)) == NULL)
		return -1;
	while (i < x->nfixcols || j < x->nkeycols) {
		size_t v = j >= x->nkeycols || (i < x->nfixcols && x->fixcols[i] <= x->keycols[j]) ?
		    x->fixcols[i++] : x->keycols[j++];

		if (n == 0 || all[n - 1] != v)
			all[n++] = v;
	}
	rc = kp_csv_want(c, all, n);
	free(all);
	return rc;
}

/* The file's metrics are kernel k's too (once per kernel and file). */
static int
raw_kernel_cols(struct kernel *k, struct ex *x, size_t first, struct kp_err *err)
{
	size_t i;

	for (i = first; i < x->ncols; i++) {
		if (mx_kernel_metric(x, k, x->cols[i].id, x->cols[i].unit) < 0)
			return mx_nomem(err);
		if (!x->cols[i].known && mx_kernel_unknown_unit(k, x->cols[i].unit) < 0)
			return mx_nomem(err);
	}
	k->colfile = x->file;
	return 0;
}

/*
 * Keep the launch's metric fields as text (l.text: each field's bytes and a
 * '"', x->dtext) when its record is pending in the form ncu prints and the
 * text blocks have room (mx_text_room); 0 to parse it now.
 */
static int
defer(struct ex *x, struct kp_csv *c, size_t first)
{
	size_t len, n;

	if (kp_csv_raw(c, &len) == NULL || len > UINT32_MAX / 4 ||
	    (n = kp_csv_fields_len(c, first)) == SIZE_MAX || n == 0 ||
	    !mx_text_room(x, x->l.k, n))
		return 0;
	if (len + 16 > x->dtextcap) {
		char *nt = realloc(x->dtext, len + 16);

		if (nt == NULL)
			return 0;	/* parse it now */
		x->dtext = nt;
		x->dtextcap = len + 16;
	}
	x->l.text = x->dtext;
	x->l.ntext = kp_csv_fields_copy(c, first, x->dtext);
	return 1;
}

/*
 * Kernel k's slot s, a launch kept as text, parsed into l and rebuilt packed
 * (pk, pkcap: the packing buffer).  Builds x->tref from it while there is
 * none; with one, reads x, x->tref and x->ref only, so two threads may
 * settle two slots.
 */
static int
settle_one(struct ex *x, struct launch *l, unsigned char **pk, size_t *pkcap,
    struct kernel *k, size_t s, size_t first, struct kp_err *err)
{
	struct block *b = k->samp[s];
	char *t = (char *)(b->over + b->nover + b->nkv);
	size_t n = b->ntext, i, start, end;
	const struct tref *tr;
	int take;

	l->keep = 1;
	l->k = k;
	l->ncells = 0;
	l->nover = 0;
	if (b->ncells > 0 && mx_cells_fit(l, b->ncells - 1) < 0)
		return mx_nomem(err);
	tr = x->tref.n == x->ncols ? &x->tref : NULL;
	if ((take = x->tref.n == 0 && n <= UINT32_MAX) && tref_begin(&x->tref, x->ncols, n) < 0)
		return mx_nomem(err);
	for (i = first, start = 0; i < x->ncols; i++, start = end + 1) {
		const struct col *cl = &x->cols[i];
		size_t flen;
		uint32_t cell = 0;
		int r;

		/* a field is a number or a few words: a loop, not a memchr call */
		for (end = start; end < n && t[end] != '"'; end++)
			;
		if (end >= n)
			return kp_errf(err, KP_EXIT_DATA, "%s: a kept record lost its "
			    "form (internal error)", x->path);
		t[end] = '\0';
		flen = end - start;
		r = tr != NULL ? tref_get(tr, l, i, t + start, flen, &cell) : 0;
		if (r == 0) {
			r = mx_cell_parse(l, t + start, flen, cl->scale, &cell, NULL);
			if (take)
				tref_put(&x->tref, l, i, t + start, flen, r, cell, cl->key >= 0);
		}
		if (r == 0 || r == 2)
			continue;
		if (r < 0)
			return mx_nomem(err);
		l->cells[cl->id] = cell;
	}
	if (take)
		x->tref.n = x->ncols;
	if (mx_block_settle(x, k, s, l, pk, pkcap) < 0)
		return mx_nomem(err);
	return 0;
}

/*
 * Below this many launches kept as text, settle() does them all on one
 * thread (torch_mix at 100 MB: 960, about 6 ms on one).
 */
#define SETTLE_PAR 128

/* A slot of a kernel's sample that holds a launch as text. */
struct textslot {
	struct kernel *k;
	size_t s;
};

/* A second thread's half of settle(): the odd ones of the list. */
struct settler {
	struct ex *x;
	size_t first;
	const struct textslot *list;
	size_t n;
	struct launch l;
	unsigned char *pk;
	size_t pkcap;
	struct kp_err err;
	int rc;
};

/* The slots that hold a launch as text, into list where it is not NULL; how many. */
static size_t
text_slots(const struct ex *x, struct textslot *list)
{
	size_t ki, s, n = 0;

	for (ki = 0; ki < x->nk; ki++)
		for (s = 0; s < x->k[ki]->nsamp; s++)
			if (x->k[ki]->samp[s] != NULL && x->k[ki]->samp[s]->ntext > 0) {
				if (list != NULL) {
					list[n].k = x->k[ki];
					list[n].s = s;
				}
				n++;
			}
	return n;
}

/* list[from], list[from + step], ... settled. */
static int
settle_list(struct ex *x, struct launch *l, unsigned char **pk, size_t *pkcap, size_t first,
    const struct textslot *list, size_t n, size_t from, size_t step, struct kp_err *err)
{
	size_t i;

	for (i = from; i < n; i += step)
		if (settle_one(x, l, pk, pkcap, list[i].k, list[i].s, first, err) < 0)
			return -1;
	return 0;
}

static void *
settler_main(void *arg)
{
	struct settler *w = arg;

	w->rc = settle_list(w->x, &w->l, &w->pk, &w->pkcap, w->first, w->list, w->n, 1, 2,
	    &w->err);
	return NULL;
}

/*
 * The cells of the sample's launches kept as text, as raw_row() would have
 * parsed them: the fields from first on, each ended by a '"' (defer()).
 * The first one (it may make x->tref and x->ref) on this thread; the rest
 * on two where they are many, each slot's bytes the same either way.
 */
static int
settle(struct ex *x, size_t first, struct kp_err *err)
{
	struct textslot *list;
	struct settler w;
	size_t n = text_slots(x, NULL);
	pthread_t th;
	int r = 0;

	if (n == 0)
		return 0;
	if ((list = malloc(n * sizeof(*list))) == NULL)
		return mx_nomem(err);
	text_slots(x, list);
	mx_launch_reset(x);
	if (settle_one(x, &x->l, &x->pack, &x->packcap, list[0].k, list[0].s, first, err) < 0)
		r = -1;
	else if (n < SETTLE_PAR || (x->ref == NULL && !x->flat) || x->tref.n != x->ncols ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2)
		r = settle_list(x, &x->l, &x->pack, &x->packcap, first, list, n, 1, 1, err);
	else {
		memset(&w, 0, sizeof(w));
		w.x = x;
		w.first = first;
		w.list = list + 1;
		w.n = n - 1;
		if (pthread_create(&th, NULL, settler_main, &w) != 0)
			r = settle_list(x, &x->l, &x->pack, &x->packcap, first, list, n, 1, 1, err);
		else {
			r = settle_list(x, &x->l, &x->pack, &x->packcap, first, list + 1, n - 1,
			    0, 2, err);
			pthread_join(th, NULL);
			if (r == 0 && w.rc < 0) {
				*err = w.err;
				r = -1;
			}
		}
		free(w.l.cells);
		free(w.l.over);
		free(w.pk);
	}
	free(list);
	mx_launch_reset(x);
	return r;
}

/*
 * The cells of a kept launch read against x->tref (made already), without
 * --all-metrics: raw_row()'s loop less its branches for the other cases,
 * most launches of a small file (every one of them is kept).  -1 out of
 * memory.
 */
static int
kept_cells(struct ex *x, const struct kp_field *fields, size_t first, size_t nf)
{
	const struct tref *tr = &x->tref;
	const struct col *cols = x->cols;
	uint32_t *cells = x->l.cells;
	size_t i;

	for (i = first; i < nf; i++) {
		const struct kp_field *f = &fields[i];
		const struct col *cl = &cols[i];
		uint32_t cell;
		double v;
		int r;

		if (cl->key >= 0) {	/* its value is wanted: parsed every time */
			if ((r = mx_cell_parse(&x->l, f->s, f->len, cl->scale, &cell, &v)) > 0) {
				cells[cl->id] = cell;
				mx_launch_put(x, cl->key, cl->rank, cl->sum, v, cell);
			} else if (r < 0)
				return -1;
			continue;
		}
		if ((r = tref_get(tr, &x->l, i, f->s, f->len, &cell)) == 0)
			r = mx_cell_parse(&x->l, f->s, f->len, cl->scale, &cell, NULL);
		if (r == 1)
			cells[cl->id] = cell;
		else if (r < 0)
			return -1;
	}
	return 0;
}

static int
raw_row(struct ex *x, struct kp_csv *c, const struct fixed *fx, char **hdr, size_t first,
    struct kp_err *err)
{
	size_t i, nf = kp_csv_nfields(c);
	const struct kp_field *fields;
	const struct col *cols;
	uint32_t *cells;
	const struct tref *tr;
	int take;
	struct kernel *k;
	long long id;
	int all;

	if (nf != x->ncols)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: %zu fields, the header has %zu "
		    "(truncated or not one ncu page?)", kp_csv_name(c), kp_csv_line(c), nf,
		    x->ncols);
	kp_csv_pick(c, x->fixcols, x->nfixcols);	/* a lazy record: the launch's own */
	if (mx_parse_id(c, (size_t)fx->id, &id, err) < 0 ||
	    (k = mx_row_kernel(x, c, fx, err)) == NULL)
		return -1;
	if (k->colfile != x->file && raw_kernel_cols(k, x, first, err) < 0)
		return -1;
	if (mx_launch_start(x, k, id, err) < 0)
		return -1;
	/*
	 * A launch that enters the sample is most often evicted before the end
	 * of the file (Algorithm R admits ~64(1 + ln(n/64)) of n): it keeps its
	 * record's text, parsed into cells by settle() only if it is still in
	 * the sample then, while the text blocks have room (MX_TEXT: a thousand
	 * kernels' samples as text would be 4 MB); past it, its cells are
	 * parsed and packed now.
	 */
	if (x->l.keep && x->l.all == NULL && defer(x, c, first))
		x->l.keep = 0;	/* for the keys' cells: no doubles of its own yet */
	if (!x->l.keep && x->l.all == NULL) {
		/* not in the sample (or kept as text): only the summary keys are needed */
		kp_csv_pick(c, x->keycols, x->nkeycols);
		for (i = 0; i < x->nkeycols; i++) {
			const struct kp_field *f = kp_csv_field(c, x->keycols[i]);
			const struct col *cl = &x->cols[x->keycols[i]];
			uint32_t cell = CELL_ABSENT;
			double v;

			if (mx_cell_parse(&x->l, f->s, f->len, cl->scale, &cell, &v) > 0)
				mx_launch_put(x, cl->key, cl->rank, cl->sum, v, cell);
		}
		if (x->l.text != NULL) {
			x->l.keep = 1;
			x->l.nover = 0;
		}
		return mx_launch_end(x, err);
	}
	/* the hot loop: every cell of a kept launch (locals: no reloads through x) */
	kp_csv_fill(c);
	fields = kp_csv_field(c, 0);
	cols = x->cols;
	cells = x->l.keep ? x->l.cells : NULL;
	all = x->l.all != NULL;
	tr = cells != NULL && !all && x->tref.n == nf ? &x->tref : NULL;
	if (tr != NULL) {
		if (kept_cells(x, fields, first, nf) < 0)
			return mx_nomem(err);
		return mx_launch_end(x, err);
	}
	take = cells != NULL && !all && x->tref.n == 0;
	if (take) {		/* this launch becomes x->tref */
		size_t bytes = 0;

		for (i = first; i < nf; i++)
			bytes += fields[i].len;
		if (bytes > UINT32_MAX)
			take = 0;
		else if (tref_begin(&x->tref, nf, bytes) < 0)
			return mx_nomem(err);
	}
	for (i = first; i < nf; i++) {
		const struct kp_field *f = &fields[i];
		const struct col *cl = &cols[i];
		uint32_t cell = 0;
		double v;
		int r;

		if (tr == NULL || (r = tref_get(tr, &x->l, i, f->s, f->len, &cell)) == 0) {
			r = mx_cell_parse(&x->l, f->s, f->len, cl->scale, &cell,
			    cl->key >= 0 || all ? &v : NULL);
			if (take)
				tref_put(&x->tref, &x->l, i, f->s, f->len, r, cell, cl->key >= 0);
		}
		if (r == 0 || r == 2)	/* 2: tref_get's "no number" */
			continue;
		if (r < 0)
			return mx_nomem(err);
		if (cells != NULL)
			cells[cl->id] = cell;
		if (cl->key >= 0)
			mx_launch_put(x, cl->key, cl->rank, cl->sum, v, cell);
		if (all && mx_launch_all_metric(x, hdr[i], v, cl->unit) < 0)
			return mx_nomem(err);
	}
	if (take)
		x->tref.n = nf;
	return mx_launch_end(x, err);
}

int
mx_read_raw(struct ex *x, struct kp_csv *c, struct kp_err *err)
{
	struct fixed fx;
	size_t nh = kp_csv_nfields(c), i, first;
	char **hdr;
	int r, rc = -1;

	mx_fixed_find(c, &fx);
	if (fx.name < 0 || fx.id < 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: raw page without a \"Kernel Name\" "
		    "column", kp_csv_name(c), kp_csv_line(c));
	if ((hdr = calloc(nh, sizeof(*hdr))) == NULL)
		return mx_nomem(err);
	/* Metric columns follow "CC" (the launch columns come first). */
	first = fx.cc >= 0 ? (size_t)fx.cc + 1 : (size_t)fx.name + 1;
	for (i = 0; i < nh; i++)
		if ((hdr[i] = mx_strdup(x, kp_csv_field(c, i)->s)) == NULL) {
			mx_nomem(err);
			goto out;
		}
	if ((r = kp_csv_next(c, err)) < 0)
		goto out;
	if (r == 0 || kp_csv_nfields(c) != nh || kp_csv_field(c, (size_t)fx.id)->len != 0) {
		kp_errf(err, KP_EXIT_DATA, "%s:%lu: raw page without its units row (truncated?)",
		    kp_csv_name(c), kp_csv_line(c));
		goto out;
	}
	if (raw_units(x, c, hdr, nh, first, err) < 0 || fixcols(x, &fx) < 0 ||
	    want_picks(x, c) < 0 || kp_csv_lazy(c, 1) < 0) {
		mx_nomem(err);
		goto out;
	}
	while ((r = kp_csv_next(c, err)) == 1)
		if (raw_row(x, c, &fx, hdr, first, err) < 0)
			goto out;
	if (r == 0 && settle(x, first, err) == 0)
		rc = 0;
out:
	free(hdr);	/* its names are in x->strs */
	mx_cols_free(x);
	return rc;
}
