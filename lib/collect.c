/*
 * collect.c: the record of a kp-collect run.  The run is recorded in
 * run_manifest.yaml and commands.sh; the raw stage files are merged into
 * details/metrics_raw.csv.  (The stages themselves: lib/profile.c.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_atomic.h"
#include "kp_collect.h"
#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_shellwords.h"
#include "kp_strmap.h"
#include "kp_yaml.h"

/* ---- the run record ---- */

int
kp_manifest_write(json_t *m, const char *path, struct kp_err *err)
{
	struct fy_document *d = kp_json_to_yaml(m, err);
	int rc;

	if (d == NULL)
		return -1;
	rc = kp_yaml_write_atomic(d, path, err);
	fy_document_destroy(d);
	return rc;
}

struct buf {
	char *s;
	size_t len, cap;
	int oom;
};

static void
bput(struct buf *b, const char *s)
{
	size_t n = strlen(s);
	char *ns;

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap + n + 1) * 2;
		if ((ns = realloc(b->s, cap)) == NULL) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

static void
bquote(struct buf *b, const char *w)
{
	char *q = kp_shell_quote(w);

	if (q == NULL) {
		b->oom = 1;
		return;
	}
	bput(b, q);
	free(q);
}

char *
kp_commands_text(json_t *runs, struct kp_err *err)
{
	struct buf b = { NULL, 0, 0, 0 };
	json_t *run, *w;
	size_t i, j;
	const char *key;

	bput(&b, "#!/bin/sh\n"
	    "# The ncu commands of this profile, as kp-collect ran them; `bash commands.sh`\n"
	    "# runs them again.  Each command writes its CSV to the file after --log-file.\n");
	json_array_foreach(runs, i, run) {
		const char *stage = json_string_value(json_object_get(run, "stage"));
		const char *cwd = json_string_value(json_object_get(run, "cwd"));
		json_t *env = json_object_get(run, "env");

		bput(&b, "\n# ");
		bput(&b, stage != NULL ? stage : "run");
		bput(&b, "\n");
		if (cwd != NULL && *cwd != '\0') {
			bput(&b, "cd ");
			bquote(&b, cwd);
			bput(&b, " && ");
		}
		if (json_is_object(env) && json_object_size(env) > 0) {
			bput(&b, "env");
			json_object_foreach(env, key, w) {
				char *kv;
				const char *val = json_is_string(w) ? json_string_value(w) : "";
				if ((kv = malloc(strlen(key) + strlen(val) + 2)) == NULL) {
					b.oom = 1;
					break;
				}
				sprintf(kv, "%s=%s", key, val);
				bput(&b, " ");
				bquote(&b, kv);
				free(kv);
			}
			bput(&b, " ");
		}
		json_array_foreach(json_object_get(run, "argv"), j, w) {
			if (j > 0)
				bput(&b, " ");
			bquote(&b, json_string_value(w));
		}
		bput(&b, "\n");
	}
	if (b.oom) {
		free(b.s);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	return b.s;
}

int
kp_commands_write(json_t *runs, const char *path, struct kp_err *err)
{
	char *text = kp_commands_text(runs, err);
	int rc;

	if (text == NULL)
		return -1;
	rc = kp_write_file_atomic(path, text, strlen(text), err);
	free(text);
	return rc;
}

/* ---- details/metrics_raw.csv ---- */

/* One quoted cell and the separator after it (write errors show at close). */
static void
csv_put(FILE *fp, const char *s, int sep)
{
	(void)kp_csv_put_quoted(fp, s);
	putc_unlocked(sep, fp);
}

/* Header and units of one raw file; columns added to cols/units, map filled. */
/* Returns 0, 1 when the record after the header is already a launch (no units
 * row), -1 on error. */
static int
read_head(struct kp_csv *c, json_t *cols, json_t *units, json_t *index, json_t *map,
    long *name_col, struct kp_err *err)
{
	size_t i, n;
	json_t *hdr = json_array();
	int rc;

	if ((rc = kp_csv_next(c, err)) <= 0) {
		json_decref(hdr);
		if (rc == 0)
			kp_errf(err, KP_EXIT_DATA, "%s: no CSV header", kp_csv_name(c));
		return -1;
	}
	n = kp_csv_nfields(c);
	*name_col = -1;
	for (i = 0; i < n; i++) {
		const char *h = kp_csv_field(c, i)->s;
		json_t *at = json_object_get(index, h);
		if (strcmp(h, "Kernel Name") == 0)
			*name_col = (long)i;
		if (at == NULL) {
			at = json_integer((json_int_t)json_array_size(cols));
			json_object_set_new(index, h, at);
			json_array_append_new(cols, json_string(h));
			json_array_append_new(units, json_string(""));
		}
		json_array_append(map, at);
		json_array_append_new(hdr, json_string(h));
	}
	json_decref(hdr);
	if (n == 0 || strcmp(kp_csv_field(c, 0)->s, "ID") != 0)
		*name_col = -1;
	if (*name_col < 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: no \"ID\" and \"Kernel Name\" "
		    "columns: not an ncu raw page", kp_csv_name(c), kp_csv_line(c));
	/* The units row: its ID field is empty. */
	if ((rc = kp_csv_next(c, err)) < 0)
		return -1;
	if (rc == 1 && kp_csv_nfields(c) > 0 && kp_csv_field(c, 0)->len > 0)
		return 1;
	if (rc == 1) {
		for (i = 0; i < kp_csv_nfields(c) && i < n; i++) {
			json_int_t k = json_integer_value(json_array_get(map, i));
			const char *u = kp_csv_field(c, i)->s;
			if (*u != '\0' && *json_string_value(json_array_get(units, k)) == '\0')
				json_array_set_new(units, k, json_string(u));
		}
	}
	return 0;
}

/*
 * The merge streams: memory does not grow with the launch count.  A first
 * pass reads every file's header and units (the columns) and counts each
 * kernel's rows per file, so whether a file has launch (name, occ) is known
 * without keeping rows.  Then each file in turn drives: its rows whose
 * launch no earlier file has are written, in its order, each with the same
 * launch of the later files, found by a cursor per later file.  Stage files
 * of one run list their launches in the same order, so a cursor finds each
 * one next; a row it passes that this driver will still ask for is copied
 * aside (memory grows only with how far the stages' orders differ).
 */
struct mrow {			/* a row a cursor passed, kept for its driver */
	size_t name, occ, nf;
	char **f;
	struct mrow *next;
};

struct mfile {
	const char *path, *stage;
	size_t *map, nmap;	/* field i -> output column */
	long name_col;
	size_t *count;		/* rows per name (pass 1) */
	struct kp_csv *c;	/* the cursor of this phase */
	int cur;		/* c's current record is a row not yet taken */
	size_t *seen;		/* rows per name the cursor has read */
	struct mrow *pend, **tail;
};

struct merge {
	struct mfile *f;
	size_t n, ncols, nnames, cap;
	struct kp_strmap names;
	const char **cell;
	struct kp_atomic *out;
};

static void
mrow_free(struct mrow *r)
{
	size_t i;

	for (i = 0; i < r->nf; i++)
		free(r->f[i]);
	free(r->f);
	free(r);
}

static void
cursor_close(struct mfile *f)
{
	struct mrow *r, *nx;

	kp_csv_close(f->c);
	f->c = NULL;
	for (r = f->pend; r != NULL; r = nx) {
		nx = r->next;
		mrow_free(r);
	}
	f->pend = NULL;
	f->tail = &f->pend;
	free(f->seen);
	f->seen = NULL;
}

/* Past the header and units of f: 0, or -1. */
static int
cursor_open(struct merge *g, struct mfile *f, struct kp_err *err)
{
	int r;

	f->tail = &f->pend;
	if ((f->seen = calloc(g->nnames + 1, sizeof(*f->seen))) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	if ((f->c = kp_csv_open_path(f->path, err)) == NULL || kp_csv_next(f->c, err) != 1 ||
	    (r = kp_csv_next(f->c, err)) < 0)
		return -1;
	f->cur = r == 1 && kp_csv_nfields(f->c) > 0 && kp_csv_field(f->c, 0)->len > 0;
	return 0;
}

/* The next row of f's cursor: 1 (its name id in *name, occ in *occ), 0 at the end. */
static int
cursor_next(struct merge *g, struct mfile *f, size_t *name, size_t *occ, struct kp_err *err)
{
	int r;

	for (;;) {
		const struct kp_field *nf;
		size_t v = 0;

		if (!f->cur) {
			if ((r = kp_csv_next(f->c, err)) <= 0)
				return r;
		}
		f->cur = 0;
		if ((nf = kp_csv_field(f->c, (size_t)f->name_col)) == NULL)
			continue;
		if ((r = kp_strmap_get_put(&g->names, nf->s, &v)) < 0)
			return kp_errf(err, KP_EXIT_ENV, "out of memory");
		if (r == 0)	/* a name pass 1 did not see: the file changed */
			return kp_errf(err, KP_EXIT_DATA, "%s: changed while it was merged", f->path);
		*name = v;
		*occ = f->seen[v]++;
		return 1;
	}
}

static int
has(const struct mfile *f, size_t name, size_t occ)
{
	return f->count[name] > occ;
}

/* Keep the cursor's current row aside. */
static int
pend_add(struct mfile *f, size_t name, size_t occ)
{
	struct mrow *r = calloc(1, sizeof(*r));
	size_t i, nf = kp_csv_nfields(f->c);

	if (r == NULL || (r->f = calloc(nf + 1, sizeof(*r->f))) == NULL) {
		free(r);
		return -1;
	}
	r->name = name;
	r->occ = occ;
	for (i = 0; i < nf; i++, r->nf++)
		if ((r->f[i] = strdup(kp_csv_field(f->c, i)->s)) == NULL) {
			mrow_free(r);
			return -1;
		}
	*f->tail = r;
	f->tail = &r->next;
	return 0;
}

static void
take(struct merge *g, const struct mfile *f, size_t nf, const struct kp_csv *c, char **kept)
{
	size_t i;

	for (i = 0; i < nf && i < f->nmap; i++)
		if (g->cell[f->map[i]] == NULL)
			g->cell[f->map[i]] = c != NULL ? kp_csv_field(c, i)->s : kept[i];
}

/* Launch (name, occ) in later file f, driven by file d: its cells added; 1 found. */
static int
find_in(struct merge *g, size_t d, struct mfile *f, size_t name, size_t occ, struct mrow **got,
    struct kp_err *err)
{
	struct mrow **pp, *r;
	size_t nm, oc, q;
	int rc;

	for (pp = &f->pend; (r = *pp) != NULL; pp = &r->next)
		if (r->name == name && r->occ == occ) {
			*pp = r->next;
			if (f->tail == &r->next)
				f->tail = pp;
			r->next = NULL;
			take(g, f, r->nf, NULL, r->f);
			*got = r;	/* freed after the row is written */
			return 1;
		}
	while ((rc = cursor_next(g, f, &nm, &oc, err)) == 1) {
		if (nm == name && oc == occ) {
			take(g, f, kp_csv_nfields(f->c), f->c, NULL);
			return 1;
		}
		/* will this driver ask for it?  Only if d has it and no file before d */
		if (!has(&g->f[d], nm, oc))
			continue;
		for (q = 0; q < d && !has(&g->f[q], nm, oc); q++)
			;
		if (q < d)
			continue;
		if (pend_add(f, nm, oc) < 0)
			return kp_errf(err, KP_EXIT_ENV, "out of memory");
	}
	return rc;
}

static int
drive(struct merge *g, size_t d, struct kp_err *err)
{
	struct mfile *df = &g->f[d];
	struct mrow *got[64];
	size_t name, occ, q, j, ngot;
	char stages[1024];
	int rc;

	for (q = d + 1; q < g->n; q++)
		if (cursor_open(g, &g->f[q], err) < 0)
			return -1;
	if (cursor_open(g, df, err) < 0)
		return -1;
	while ((rc = cursor_next(g, df, &name, &occ, err)) == 1) {
		for (q = 0; q < d && !has(&g->f[q], name, occ); q++)
			;
		if (q < d)
			continue;	/* written with an earlier file */
		memset(g->cell, 0, g->ncols * sizeof(*g->cell));
		take(g, df, kp_csv_nfields(df->c), df->c, NULL);
		snprintf(stages, sizeof(stages), "%s", df->stage);
		ngot = 0;
		for (q = d + 1; q < g->n; q++) {
			struct mrow *r = NULL;
			size_t len = strlen(stages);

			if (!has(&g->f[q], name, occ))
				continue;
			if ((rc = find_in(g, d, &g->f[q], name, occ, &r, err)) < 0)
				return -1;
			if (rc == 0)
				continue;
			if (r != NULL && ngot < 64)
				got[ngot++] = r;
			snprintf(stages + len, sizeof(stages) - len, ";%s", g->f[q].stage);
		}
		for (j = 0; j < g->ncols; j++)
			csv_put(g->out->fp, g->cell[j] != NULL ? g->cell[j] : "", ',');
		fprintf(g->out->fp, "\"%zu\",", occ);
		csv_put(g->out->fp, stages, '\n');
		for (j = 0; j < ngot; j++)
			mrow_free(got[j]);
	}
	for (q = d; q < g->n; q++)
		cursor_close(&g->f[q]);
	return rc;
}

/* Pass 1 over one file: its columns (added to cols/units) and rows per name. */
static int
head_and_count(struct merge *g, struct mfile *f, json_t *cols, json_t *units, json_t *index,
    struct kp_err *err)
{
	struct kp_csv *c = kp_csv_open_path(f->path, err);
	json_t *map = json_array();
	int rc = -1, pending;
	size_t i;

	if (c == NULL || map == NULL)
		goto out;
	if ((pending = read_head(c, cols, units, index, map, &f->name_col, err)) < 0)
		goto out;
	f->nmap = json_array_size(map);
	if ((f->map = malloc((f->nmap + 1) * sizeof(*f->map))) == NULL)
		goto nomem;
	for (i = 0; i < f->nmap; i++)
		f->map[i] = (size_t)json_integer_value(json_array_get(map, i));
	while ((rc = pending ? 1 : kp_csv_next(c, err)) == 1) {
		const struct kp_field *nf = kp_csv_field(c, (size_t)f->name_col);
		size_t v = g->nnames;
		int r;

		pending = 0;
		if (nf == NULL)
			continue;
		if ((r = kp_strmap_get_put(&g->names, nf->s, &v)) < 0)
			goto nomem;
		if (r == 0) {
			g->nnames++;
			if (g->nnames > g->cap) {
				size_t cap = g->cap ? g->cap * 2 : 64, k;

				for (k = 0; k < g->n; k++) {
					size_t *nc = realloc(g->f[k].count, cap * sizeof(*nc));

					if (nc == NULL)
						goto nomem;
					memset(nc + g->cap, 0, (cap - g->cap) * sizeof(*nc));
					g->f[k].count = nc;
				}
				g->cap = cap;
			}
		}
		f->count[v]++;
	}
	goto out;
nomem:
	rc = kp_errf(err, KP_EXIT_ENV, "out of memory");
out:
	kp_csv_close(c);
	json_decref(map);
	return rc < 0 ? -1 : 0;
}

int
kp_merge_raw(const char *const *paths, const char *const *stagev, size_t n, const char *out,
    struct kp_err *err)
{
	json_t *cols = json_array(), *units = json_array(), *index = json_object(), *v;
	struct kp_atomic a;
	struct merge g;
	size_t i, j;
	int rc = -1, opened = 0;

	memset(&g, 0, sizeof(g));
	g.n = n;
	if ((g.f = calloc(n + 1, sizeof(*g.f))) == NULL || cols == NULL || units == NULL ||
	    index == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		goto done;
	}
	for (i = 0; i < n; i++) {
		g.f[i].path = paths[i];
		g.f[i].stage = stagev[i];
		g.f[i].tail = &g.f[i].pend;
	}
	for (i = 0; i < n; i++)
		if (head_and_count(&g, &g.f[i], cols, units, index, err) < 0)
			goto done;
	g.ncols = json_array_size(cols);
	if ((g.cell = calloc(g.ncols + 1, sizeof(*g.cell))) == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		goto done;
	}
	if (kp_atomic_open(&a, out, err) < 0)
		goto done;
	opened = 1;
	g.out = &a;
	json_array_foreach(cols, j, v)
		csv_put(a.fp, json_string_value(v), ',');
	fputs("\"Launch\",\"Stages\"\n", a.fp);
	json_array_foreach(units, j, v)
		csv_put(a.fp, json_string_value(v), ',');
	fputs("\"\",\"\"\n", a.fp);
	for (i = 0; i < n; i++)
		if (drive(&g, i, err) < 0)
			goto done;
	rc = kp_atomic_commit(&a, err);
	opened = 0;
done:
	if (opened)
		kp_atomic_abort(&a);
	for (i = 0; g.f != NULL && i < n; i++) {
		cursor_close(&g.f[i]);
		free(g.f[i].map);
		free(g.f[i].count);
	}
	free(g.f);
	free(g.cell);
	kp_strmap_free(&g.names);
	json_decref(cols);
	json_decref(units);
	json_decref(index);
	return rc;
}

