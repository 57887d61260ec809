/*
 * discover.c: which kernel to profile, from one cheap ncu run.  The discovery
 * raw CSV has one row per launch with a few metrics; kernels are grouped by
 * their full name and ranked by hint match, total GPU time, then launches.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_discover.h"
#include "kp_number.h"
#include "kp_units.h"

struct kern {
	char *name;
	double *dur;
	size_t n, cap;
	size_t launches;
	long grid[3], block[3];
	double regs;
	int have_dims, have_regs, hint;
};

struct cols {
	long name, grid, block, dur, regs, lgrid, lblock;
	double dur_scale;
};

/* The function name: before the parameter list, without the return type. */
static json_t *
function_of(const char *s)
{
	int depth = 0;
	const char *p, *start = s, *end = NULL;

	for (p = s; *p != '\0'; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (*p == '(' && depth == 0) {
			end = p;
			break;
		} else if (*p == ' ' && depth == 0)
			start = p + 1;
	}
	if (end == NULL)
		end = p;
	if (start >= end)
		start = s;
	return json_stringn(start, (size_t)(end - start));
}

static int
icontains(const char *hay, const char *needle)
{
	size_t n = strlen(needle), i;

	if (n == 0)
		return 0;
	for (; *hay != '\0'; hay++) {
		for (i = 0; i < n && hay[i] != '\0' &&
		    tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]); i++)
			;
		if (i == n)
			return 1;
	}
	return 0;
}

static struct kern *
find_kern(struct kern **ks, size_t *nk, size_t *capk, const char *name)
{
	size_t i;
	struct kern *k;

	for (i = 0; i < *nk; i++)
		if (strcmp((*ks)[i].name, name) == 0)
			return &(*ks)[i];
	if (*nk == *capk) {
		size_t cap = *capk ? *capk * 2 : 16;
		struct kern *n = realloc(*ks, cap * sizeof(*n));
		if (n == NULL)
			return NULL;
		*ks = n;
		*capk = cap;
	}
	k = &(*ks)[(*nk)++];
	memset(k, 0, sizeof(*k));
	if ((k->name = strdup(name)) == NULL) {
		(*nk)--;
		return NULL;
	}
	return k;
}

static void
head_cols(struct kp_csv *c, struct cols *cl)
{
	size_t i;

	memset(cl, -1, sizeof(*cl));
	cl->dur_scale = 1;
	for (i = 0; i < kp_csv_nfields(c); i++) {
		const char *h = kp_csv_field(c, i)->s;
		long *slot = NULL;
		if (strcmp(h, "Kernel Name") == 0)
			slot = &cl->name;
		else if (strcmp(h, "Grid Size") == 0)
			slot = &cl->grid;
		else if (strcmp(h, "Block Size") == 0)
			slot = &cl->block;
		else if (strcmp(h, "gpu__time_duration.sum") == 0)
			slot = &cl->dur;
		else if (strcmp(h, "launch__registers_per_thread") == 0)
			slot = &cl->regs;
		if (slot != NULL)
			*slot = (long)i;
	}
}

static int
add_row(struct kp_csv *c, const struct cols *cl, const char *hint, struct kern **ks,
    size_t *nk, size_t *capk, struct kp_err *err)
{
	const struct kp_field *f = kp_csv_field(c, (size_t)cl->name);
	struct kern *k;
	double v;

	if (f == NULL || f->len == 0)
		return 0;
	if ((k = find_kern(ks, nk, capk, f->s)) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	k->launches++;
	k->hint = hint != NULL && icontains(f->s, hint);
	if (cl->dur >= 0 && (f = kp_csv_field(c, (size_t)cl->dur)) != NULL &&
	    kp_parse_number(f->s, f->len, &v) == KP_NUM_OK) {
		if (k->n == k->cap) {
			size_t cap = k->cap ? k->cap * 2 : 8;
			double *d = realloc(k->dur, cap * sizeof(*d));
			if (d == NULL)
				return kp_errf(err, KP_EXIT_ENV, "out of memory");
			k->dur = d;
			k->cap = cap;
		}
		k->dur[k->n++] = v * cl->dur_scale;
	}
	if (!k->have_dims && cl->grid >= 0 && cl->block >= 0 &&
	    (f = kp_csv_field(c, (size_t)cl->grid)) != NULL && kp_parse_dim3(f->s, k->grid) == 0 &&
	    (f = kp_csv_field(c, (size_t)cl->block)) != NULL && kp_parse_dim3(f->s, k->block) == 0)
		k->have_dims = 1;
	if (!k->have_regs && cl->regs >= 0 && (f = kp_csv_field(c, (size_t)cl->regs)) != NULL &&
	    kp_parse_number(f->s, f->len, &v) == KP_NUM_OK) {
		k->regs = v;
		k->have_regs = 1;
	}
	return 0;
}

static double
total(const struct kern *k)
{
	double t = 0;
	size_t i;

	for (i = 0; i < k->n; i++)
		t += k->dur[i];
	return t;
}

static int
cmp_kern(const void *a, const void *b)
{
	const struct kern *x = a, *y = b;
	double tx = total(x), ty = total(y);

	if (x->hint != y->hint)
		return y->hint - x->hint;
	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (x->launches != y->launches)
		return x->launches < y->launches ? 1 : -1;
	return strcmp(x->name, y->name);
}

static json_t *
dim3(const long v[3])
{
	return json_pack("[I,I,I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

static json_t *
candidates(struct kern *ks, size_t nk, size_t rows, const char *path, const char *hint)
{
	json_t *root, *arr = json_array();
	double all = 0;
	size_t i;
	char why[512];

	for (i = 0; i < nk; i++)
		all += total(&ks[i]);
	qsort(ks, nk, sizeof(*ks), cmp_kern);
	for (i = 0; i < nk; i++) {
		struct kern *k = &ks[i];
		double t = total(k);
		json_t *e = json_pack("{s:I, s:s, s:o, s:I, s:b}", "rank", (json_int_t)(i + 1),
		    "name", k->name, "function", function_of(k->name),
		    "launches", (json_int_t)k->launches, "hint_match", k->hint);
		if (k->n > 0) {
			double *tmp = malloc(k->n * sizeof(*tmp));
			json_object_set_new(e, "total_duration_ns", json_real(t));
			if (tmp != NULL) {
				memcpy(tmp, k->dur, k->n * sizeof(*tmp));
				json_object_set_new(e, "median_duration_ns",
				    json_real(kp_median(tmp, k->n)));
				free(tmp);
			}
			if (all > 0)
				json_object_set_new(e, "share_pct", json_real(100.0 * t / all));
		}
		if (k->have_dims) {
			json_object_set_new(e, "grid", dim3(k->grid));
			json_object_set_new(e, "block", dim3(k->block));
		}
		if (k->have_regs)
			json_object_set_new(e, "registers_per_thread", json_real(k->regs));
		json_array_append_new(arr, e);
	}
	root = json_pack("{s:s, s:s, s:I, s:o}", "schema", "kp-kernel-candidates/1",
	    "source", path, "launches", (json_int_t)rows, "candidates", arr);
	json_object_set_new(root, "hint", hint != NULL ? json_string(hint) : json_null());
	if (nk == 0) {
		json_object_set_new(root, "chosen", json_null());
		json_object_set_new(root, "reason", json_string("no kernel launch in the capture"));
		return root;
	}
	if (ks[0].hint)
		snprintf(why, sizeof(why), "its name contains \"%s\"%s", hint,
		    nk > 1 && ks[1].hint ? " (as do others; then by total GPU time)" : "");
	else if (all > 0)
		snprintf(why, sizeof(why), "largest total GPU time: %.0f ns, %.1f%% of the "
		    "%zu launches profiled%s", total(&ks[0]), 100.0 * total(&ks[0]) / all, rows,
		    hint != NULL ? "; no name contains the hint" : "");
	else
		snprintf(why, sizeof(why), "most launches (%zu); no durations in the capture",
		    ks[0].launches);
	json_object_set_new(root, "chosen", json_integer(0));
	json_object_set_new(root, "reason", json_string(why));
	return root;
}

json_t *
kp_discover_file(const char *path, const char *hint, struct kp_err *err)
{
	struct kp_csv *c = kp_csv_open_path(path, err);
	struct kern *ks = NULL;
	size_t nk = 0, capk = 0, rows = 0, i;
	struct cols cl;
	json_t *root = NULL;
	int rc, line = 0;

	if (c == NULL)
		return NULL;
	while ((rc = kp_csv_next(c, err)) == 1) {
		line++;
		if (line == 1) {
			head_cols(c, &cl);
			if (cl.name < 0 || strcmp(kp_csv_field(c, 0)->s, "ID") != 0) {
				kp_errf(err, KP_EXIT_DATA, "%s:%lu: no \"Kernel Name\" column: "
				    "not an ncu raw page", path, kp_csv_line(c));
				goto done;
			}
			continue;
		}
		if (kp_csv_field(c, 0)->len == 0) {
			/* the units row */
			const struct kp_field *u;
			if (cl.dur >= 0 && (u = kp_csv_field(c, (size_t)cl.dur)) != NULL) {
				struct kp_unit un;
				kp_unit_parse(u->s, &un);
				cl.dur_scale = un.scale;
			}
			continue;
		}
		rows++;
		if (add_row(c, &cl, hint, &ks, &nk, &capk, err) < 0)
			goto done;
	}
	if (rc < 0)
		goto done;
	if (line == 0) {
		kp_errf(err, KP_EXIT_DATA, "%s: no CSV records: not an ncu raw page", path);
		goto done;
	}
	root = candidates(ks, nk, rows, path, hint);
done:
	for (i = 0; i < nk; i++) {
		free(ks[i].name);
		free(ks[i].dur);
	}
	free(ks);
	kp_csv_close(c);
	return root;
}
