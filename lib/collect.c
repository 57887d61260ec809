/*
 * collect.c: the record of a kp-collect run.  The run is recorded in
 * run_manifest.yaml and commands.sh; the raw stage files are merged into
 * details/metrics_raw.csv.  (The stages themselves: lib/profile.c.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#include "kp.h"

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

static void
csv_put(FILE *fp, const char *s)
{
	putc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			putc('"', fp);
		putc(*s, fp);
	}
	putc('"', fp);
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

static json_t *
find_row(json_t *rows, const char *name, json_int_t occ)
{
	size_t i;
	json_t *r;

	json_array_foreach(rows, i, r)
		if (strcmp(json_string_value(json_object_get(r, "name")), name) == 0 &&
		    json_integer_value(json_object_get(r, "occ")) == occ)
			return r;
	r = json_pack("{s:s, s:I, s:o, s:s}", "name", name, "occ", occ, "cells", json_object(),
	    "stages", "");
	json_array_append_new(rows, r);
	return r;
}

static int
merge_file(const char *path, const char *stage, json_t *cols, json_t *units, json_t *index,
    json_t *rows, struct kp_err *err)
{
	struct kp_csv *c = kp_csv_open_path(path, err);
	json_t *map = json_array(), *count = json_object(), *row, *cells;
	long name_col;
	int rc, pending;
	size_t i;

	if (c == NULL) {
		json_decref(map);
		json_decref(count);
		return -1;
	}
	if ((pending = read_head(c, cols, units, index, map, &name_col, err)) < 0)
		goto fail;
	while ((rc = pending ? 1 : kp_csv_next(c, err)) == 1) {
		const struct kp_field *nf = kp_csv_field(c, (size_t)name_col);
		json_int_t occ;
		const char *st;
		char *ns;

		pending = 0;
		if (nf == NULL)
			continue;
		occ = json_integer_value(json_object_get(count, nf->s));
		json_object_set_new(count, nf->s, json_integer(occ + 1));
		row = find_row(rows, nf->s, occ);
		cells = json_object_get(row, "cells");
		for (i = 0; i < kp_csv_nfields(c) && i < json_array_size(map); i++) {
			char key[32];
			snprintf(key, sizeof(key), "%lld",
			    (long long)json_integer_value(json_array_get(map, i)));
			if (json_object_get(cells, key) == NULL)
				json_object_set_new(cells, key, json_string(kp_csv_field(c, i)->s));
		}
		st = json_string_value(json_object_get(row, "stages"));
		if ((ns = malloc(strlen(st) + strlen(stage) + 2)) != NULL) {
			sprintf(ns, "%s%s%s", st, *st != '\0' ? ";" : "", stage);
			json_object_set_new(row, "stages", json_string(ns));
			free(ns);
		}
	}
	if (rc < 0)
		goto fail;
	kp_csv_close(c);
	json_decref(map);
	json_decref(count);
	return 0;
fail:
	kp_csv_close(c);
	json_decref(map);
	json_decref(count);
	return -1;
}

int
kp_merge_raw(const char *const *paths, const char *const *stagev, size_t n, const char *out,
    struct kp_err *err)
{
	json_t *cols = json_array(), *units = json_array(), *index = json_object();
	json_t *rows = json_array(), *r, *v;
	struct kp_atomic a;
	size_t i, j;
	int rc = -1;

	for (i = 0; i < n; i++)
		if (merge_file(paths[i], stagev[i], cols, units, index, rows, err) < 0)
			goto done;
	if (kp_atomic_open(&a, out, err) < 0)
		goto done;
	json_array_foreach(cols, j, v) {
		csv_put(a.fp, json_string_value(v));
		putc(',', a.fp);
	}
	fputs("\"Launch\",\"Stages\"\n", a.fp);
	json_array_foreach(units, j, v) {
		csv_put(a.fp, json_string_value(v));
		putc(',', a.fp);
	}
	fputs("\"\",\"\"\n", a.fp);
	json_array_foreach(rows, i, r) {
		json_t *cells = json_object_get(r, "cells");
		for (j = 0; j < json_array_size(cols); j++) {
			char key[32];
			json_t *c;
			snprintf(key, sizeof(key), "%zu", j);
			c = json_object_get(cells, key);
			csv_put(a.fp, c != NULL ? json_string_value(c) : "");
			putc(',', a.fp);
		}
		fprintf(a.fp, "\"%lld\",", (long long)json_integer_value(json_object_get(r, "occ")));
		csv_put(a.fp, json_string_value(json_object_get(r, "stages")));
		putc('\n', a.fp);
	}
	rc = kp_atomic_commit(&a, err);
done:
	json_decref(cols);
	json_decref(units);
	json_decref(index);
	json_decref(rows);
	return rc;
}
