/*
 * hotspots_csv.c: source_hotspots.csv read back, the one reader of the file
 * kp_hotspots_write_csv() writes (kp-plot, kp-report and kp-decide read it).
 *
 * The header must be the writer's columns in the writer's order; a record is
 * RFC 4180 (a quoted cell may hold a newline) and must have as many cells as
 * the header.  Blank lines are skipped.  Errors name the file and the line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_hotspots.h"
#include "profile.h"

const char *const kp_hs_cols[KP_HSC_N] = { "source_file", "line", "function", "sass_opcode",
	"ptx_opcode", "metric", "value", "stall_reason", "bottleneck_class", "confidence",
	"evidence" };

struct kp_hs_csv {
	char *path, *text, *p;
	unsigned long line, recline;
	const char *f[KP_HSC_N];
};

/* The record at r->p, unquoted in place; *nf cells (those past KP_HSC_N not kept);
 * 0 at the end of the text. */
static int
record(struct kp_hs_csv *r, size_t *nf)
{
	char *s = r->p, *w, *start;

	while (*s == '\n' || (*s == '\r' && s[1] == '\n')) {	/* blank lines */
		s += *s == '\r' ? 2 : 1;
		r->line++;
	}
	if (*s == '\0')
		return 0;
	r->recline = r->line;
	for (*nf = 0;; s++) {
		w = start = s;
		if (*nf < KP_HSC_N)
			r->f[*nf] = start;
		(*nf)++;
		if (*s == '"') {
			for (s++; *s != '\0'; s++) {
				if (*s == '"' && s[1] == '"')
					*w++ = *s++;
				else if (*s == '"') {
					s++;
					break;
				} else {
					r->line += *s == '\n';
					*w++ = *s;
				}
			}
			while (*s != '\0' && *s != ',' && *s != '\n')
				s++;
		} else {
			while (*s != '\0' && *s != ',' && *s != '\n')
				*w++ = *s++;
			if (*s != ',' && w > start && w[-1] == '\r')
				w--;
		}
		if (*s != ',')
			break;
		*w = '\0';
	}
	r->line += *s == '\n';
	r->p = *s == '\n' ? s + 1 : s;
	*w = '\0';
	return 1;
}

struct kp_hs_csv *
kp_hs_csv_open(const char *path, struct kp_err *err)
{
	struct kp_hs_csv *r = calloc(1, sizeof *r);
	size_t nf = 0, i = 0;

	if (r == NULL || (r->path = strdup(path)) == NULL) {
		free(r);
		kp_errf(err, KP_EXIT_ENV, "%s: out of memory", path);
		return NULL;
	}
	if ((r->text = kp_read_file(path, NULL, err)) == NULL) {
		kp_hs_csv_close(r);
		return NULL;
	}
	r->p = r->text;
	r->line = r->recline = 1;
	if (record(r, &nf) == 1 && nf == KP_HSC_N)
		for (i = 0; i < KP_HSC_N && strcmp(r->f[i], kp_hs_cols[i]) == 0; i++)
			;
	if (i < KP_HSC_N) {
		kp_errf(err, KP_EXIT_DATA, "%s:%lu: not a %s header", path, r->recline,
		    kp_artifact_name(KP_ART_HOTSPOTS));
		kp_hs_csv_close(r);
		return NULL;
	}
	return r;
}

int
kp_hs_csv_next(struct kp_hs_csv *r, const char ***f, struct kp_err *err)
{
	size_t nf;

	if (record(r, &nf) == 0)
		return 0;
	if (nf != KP_HSC_N)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: %zu fields, the header has %d", r->path,
		    r->recline, nf, KP_HSC_N);
	*f = r->f;
	return 1;
}

unsigned long
kp_hs_csv_line(const struct kp_hs_csv *r)
{
	return r->recline;
}

void
kp_hs_csv_close(struct kp_hs_csv *r)
{
	if (r == NULL)
		return;
	free(r->text);
	free(r->path);
	free(r);
}

/* A cell as JSON: numbers as numbers (line, value, confidence), else a string. */
static json_t *
cell(const char *s, int numbers)
{
	char *e;
	double v;

	if (!numbers || *s == '\0')
		return json_string(s);
	v = strtod(s, &e);
	if (*e != '\0' || !isfinite(v))
		return json_string(s);
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

json_t *
kp_hs_csv_load(const char *path, int numbers, struct kp_err *err)
{
	struct kp_hs_csv *r = kp_hs_csv_open(path, err);
	json_t *rows = r == NULL ? NULL : json_array(), *o;
	const char **f;
	size_t i;
	int rc = 0;

	while (rows != NULL && (rc = kp_hs_csv_next(r, &f, err)) == 1) {
		if ((o = json_object()) == NULL || json_array_append_new(rows, o) < 0)
			break;
		for (i = 0; i < KP_HSC_N; i++)
			json_object_set_new(o, kp_hs_cols[i], cell(f[i], numbers));
	}
	kp_hs_csv_close(r);
	if (rows != NULL && rc != 0) {
		if (rc == 1)
			kp_errf(err, KP_EXIT_ENV, "%s: out of memory", path);
		json_decref(rows);
		return NULL;
	}
	return rows;
}
