/*
 * summary_write.c: the metrics summary from the extraction: the medians per
 * kernel, the summary object (metrics_summary.json) and metrics_all.json.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_arena.h"
#include "kp_diag.h"
#include "kp_metrics.h"
#include "kp_summary.h"
#include "kp_summary_keys.h"
#include "metrics_int.h"

/*
 * Key i's median over the kernel's sampled launches that have it (all of
 * them up to MX_KEEP); when none of the sampled launches has the key (it is
 * in a few launches only), its mean over all launches.
 */
static double
key_median_v(const struct kernel *k, size_t i)
{
	double v[MX_KEEP];
	size_t n = 0, s;

	for (s = 0; s < k->nsamp; s++) {
		const struct block *b = k->samp[s];

		if (i < b->nkv && !isnan(b->over[b->nover + i]))
			v[n++] = b->over[b->nover + i];
	}
	if (n == 0)
		return k->keys[i].sum / (double)k->keys[i].seen;
	return mx_median(v, n);
}

static json_t *
key_median(const struct kernel *k, size_t i)
{
	return mx_jnum(key_median_v(k, i));
}

/*
 * A key's spread, {"min", "max"}: what json_pack("{s:o, s:o}") makes,
 * without parsing its format and checking its keys' UTF-8 each time (a
 * dozen keys a kernel).  NULL out of memory.
 */
static json_t *
spread_json(const struct acc *a)
{
	json_t *o = json_object(), *min = mx_jnum(a->min), *max = mx_jnum(a->max);

	if (o == NULL || min == NULL || max == NULL) {
		json_decref(o);
		json_decref(min);
		json_decref(max);
		return NULL;
	}
	/* a value set is the object's, set or not */
	if (json_object_set_new_nocheck(o, "min", min) < 0) {
		json_decref(max);
		json_decref(o);
		return NULL;
	}
	if (json_object_set_new_nocheck(o, "max", max) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
ids_json(const struct kernel *k)
{
	json_t *a = json_array();
	struct idset_iter it;
	long long id, lo, hi;

	kp_idset_iter(&k->ids, &it);
	while (a != NULL && kp_idset_next(&it, &lo, &hi))
		for (id = lo; id <= hi; id++) {
			/* Memory stays flat: the first KP_IDS_LISTED only (see ids_truncated). */
			if (json_array_size(a) >= KP_IDS_LISTED)
				return a;
			if (json_array_append_new(a, json_integer(id)) < 0) {
				json_decref(a);
				return NULL;
			}
		}
	return a;
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *
kp_kernel_function(const char *name)
{
	size_t n = strlen(name);
	long depth = 0;
	size_t i;

	while (n > 0 && isspace((unsigned char)name[n - 1]))
		n--;
	if (n == 0 || name[n - 1] != ')')
		return strndup(name, n);
	/* the last top-level parenthesised group is the parameter list */
	for (i = n; i-- > 0;) {
		if (name[i] == ')')
			depth++;
		else if (name[i] == '(' && --depth == 0)
			break;
	}
	if (depth != 0 || i == 0)
		return strndup(name, n);
	while (i > 0 && isspace((unsigned char)name[i - 1]))
		i--;
	return strndup(name, i);
}

/*
 * The metric ids in name order, once for all kernels: jansson dumps an
 * object's keys in the order they were set, and metrics_all.json is written
 * in that order.  -1 out of memory.
 */
static const struct metric *sort_m;

static int
by_name(const void *a, const void *b)
{
	return strcmp(sort_m[*(const uint32_t *)a].name, sort_m[*(const uint32_t *)b].name);
}

static int
metric_order(struct ex *x)
{
	size_t i;

	if (x->byname != NULL && x->nbyname == x->nm)
		return 0;
	free(x->byname);
	free(x->med);
	free(x->mdec);
	free(x->hasmed);
	x->medk = NULL;
	x->byname = malloc((x->nm ? x->nm : 1) * sizeof(*x->byname));
	x->med = malloc((x->nm ? x->nm : 1) * sizeof(*x->med));
	x->mdec = malloc((x->nm ? x->nm : 1) * sizeof(*x->mdec));
	x->hasmed = malloc(x->nm ? x->nm : 1);
	if (x->byname == NULL || x->med == NULL || x->mdec == NULL || x->hasmed == NULL)
		return -1;
	for (i = 0; i < x->nm; i++)
		x->byname[i] = (uint32_t)i;
	/*
	 * ncu prints a page's metric columns sorted, so the ids of one page
	 * are most often in order already: a check of neighbours, not a sort
	 * (mx_metric_get keys the table by name: no two ids share one, so
	 * either way gives the one order).
	 */
	for (i = 1; i < x->nm && strcmp(x->m[i - 1].name, x->m[i].name) <= 0; i++)
		;
	sort_m = x->m;
	if (i < x->nm)
		qsort(x->byname, x->nm, sizeof(*x->byname), by_name);
	x->nbyname = x->nm;
	return 0;
}

/*
 * The medians of kernel k's metrics over its kept launches into x->med and
 * x->hasmed, by id, for one kernel at a time (x->medk): copied where
 * mx_medians_ahead() has them, else computed now.  -1 out of memory.
 */
static int
kernel_medians(struct ex *x, struct kernel *k)
{
	if (metric_order(x) < 0)
		return -1;
	if (x->medk == k)
		return 0;
	memset(x->hasmed, 0, x->nm);
	x->medk = k;
	if (k->pmed != NULL && k->pdec != NULL && k->phas != NULL) {
		memcpy(x->med, k->pmed, k->span * sizeof(*x->med));
		memcpy(x->mdec, k->pdec, k->span * sizeof(*x->mdec));
		memcpy(x->hasmed, k->phas, k->span);
		k->nmed = k->pnmed;
		return 0;
	}
	if (mx_medians_of(x, k, x->med, x->mdec, x->hasmed, &k->nmed) < 0) {
		x->medk = NULL;
		return -1;
	}
	return 0;
}

/* The medians into met and units: all of them, or the key metrics only. */
static int
metrics_json(struct ex *x, struct kernel *k, json_t *met, json_t *units, int key_only)
{
	size_t j;

	if (kernel_medians(x, k) < 0)
		return -1;
	for (j = 0; j < x->nm && k->nmed > 0; j++) {
		uint32_t id = x->byname[j];
		struct metric *m = &x->m[id];

		if (id >= k->span || !x->hasmed[id])
			continue;
		/* asked once per metric, not once per kernel and metric */
		if (key_only && m->key == 0)
			m->key = (signed char)(kp_key_metric(m->name) + 1);
		if (key_only && m->key == 1)
			continue;
		if (mx_jset(met, m->name, mx_jnum(x->med[id])) < 0 ||
		    mx_jset(units, m->name, json_string(mx_metric_unit(x, k, id))) < 0)
			return -1;
	}
	return 0;
}

/*
 * A kernel's object of the summary; light: without its metrics, units and
 * ids (what kp_extract_to_dir() hands to its caller).
 */
static json_t *
kernel_json(struct ex *x, struct kernel *k, int light)
{
	json_t *o, *sum, *spread, *met, *units, *unk;
	char *fn;
	size_t i;
	int sampled = 0;

	if ((fn = kp_kernel_function(k->name)) == NULL)
		return NULL;
	o = json_pack("{s:s, s:s, s:I}", "name", k->name, "function", fn, "launches",
	    (json_int_t)k->launches);
	if (o != NULL && !light && mx_jset(o, "ids", ids_json(k)) < 0) {
		json_decref(o);
		o = NULL;
	}
	free(fn);
	if (o != NULL && k->ids.cut)
		json_object_set_new(o, "ids_truncated", json_true());
	sum = json_object();
	spread = json_object();
	met = json_object();
	units = json_object();
	unk = json_array();
	if (o == NULL || !sum || !spread || !met || !units || !unk)
		goto fail;
	if (k->have_block && mx_jset(o, "block", json_pack("[I,I,I]", (json_int_t)k->block[0],
	    (json_int_t)k->block[1], (json_int_t)k->block[2])) < 0)
		goto fail;
	if (k->have_grid && mx_jset(o, "grid", json_pack("[I,I,I]", (json_int_t)k->grid[0],
	    (json_int_t)k->grid[1], (json_int_t)k->grid[2])) < 0)
		goto fail;
	if (k->device && mx_jset(o, "device", json_string(k->device)) < 0)
		goto fail;
	if (k->cc && mx_jset(o, "cc", json_string(k->cc)) < 0)
		goto fail;
	for (i = 0; i < k->nkeys; i++) {
		struct acc *a = &k->keys[i];

		if (a->seen == 0)
			continue;
		if (mx_jset_key(sum, x->keyname[i], key_median(k, i)) < 0)
			goto fail;
		if (k->launches > 1 && mx_jset_key(spread, x->keyname[i], spread_json(a)) < 0)
			goto fail;
	}
	sampled |= k->launches > k->nsamp;
	if (!light && (metrics_json(x, k, met, units, x->short_maps) < 0 ||
	    mx_jset(o, "metrics_count", json_integer((json_int_t)k->nmed)) < 0))
		goto fail;
	if (k->nunknown > 1)
		qsort(k->unknown, k->nunknown, sizeof(*k->unknown), cmpstr);
	for (i = 0; i < k->nunknown; i++)
		if (json_array_append_new(unk, json_string(k->unknown[i])) < 0)
			goto fail;
	if (json_object_set_new(o, "summary", sum) < 0 ||
	    (k->launches > 1 ? json_object_set_new(o, "spread", spread) :
	    (json_decref(spread), 0)) < 0 ||
	    (light ? (json_decref(met), json_decref(units), 0) :
	    json_object_set_new(o, "metrics", met) < 0 ||
	    json_object_set_new(o, "units", units) < 0) ||
	    json_object_set_new(o, "unknown_units", unk) < 0 ||
	    mx_jset(o, "median", json_string(sampled ? "sampled" : "exact")) < 0)
		return json_decref(o), NULL;
	return o;
fail:
	json_decref(o);
	json_decref(sum);
	json_decref(spread);
	json_decref(met);
	json_decref(units);
	json_decref(unk);
	return NULL;
}

/* The primary kernel: most GPU time, or most launches when no duration. */
static size_t
primary_of(const struct ex *x)
{
	size_t i, primary = 0, most = 0;
	double best = -1;
	int have_dur = 0;

	for (i = 0; i < x->nk; i++) {
		const struct kernel *k = x->k[i];

		if (k->nkeys > KP_SK_DURATION && k->keys[KP_SK_DURATION].seen > 0) {
			if (!have_dur || k->total_dur > best) {
				best = k->total_dur;
				primary = i;
			}
			have_dur = 1;
		} else if (!have_dur && k->launches > most) {
			most = k->launches;
			primary = i;
		}
	}
	return primary;
}

json_t *
mx_summary_json(struct ex *x, struct kp_err *err)
{
	json_t *s, *ks;
	size_t i;

	if ((ks = json_array()) == NULL)
		return mx_nomem(err), NULL;
	for (i = 0; i < x->nk; i++)
		if (json_array_append_new(ks, kernel_json(x, x->k[i], 0)) < 0) {
			json_decref(ks);
			return mx_nomem(err), NULL;
		}
	s = json_pack("{s:s, s:O, s:o, s:I}", "schema", "kp-metrics-summary/2", "inputs",
	    x->inputs, "kernels", ks, "primary", (json_int_t)primary_of(x));
	if (s != NULL && x->short_maps &&
	    json_object_set_new(s, "metrics_all", json_string(KP_METRICS_ALL)) < 0) {
		json_decref(s);
		s = NULL;
	}
	if (s == NULL)
		mx_nomem(err);
	return s;
}

/*
 * v as json_dumpf(JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15))
 * writes it depth levels down: its own dump with 2 * depth more blanks after
 * each newline (a JSON string never holds a raw newline).
 */
static int
put_nested(FILE *fp, json_t *v, int depth)
{
	char *d = json_dumps(v, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)), *p, *nl;

	if (d == NULL)
		return -1;
	for (p = d; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		fwrite(p, 1, (size_t)(nl - p) + 1, fp);
		fprintf(fp, "%*s", 2 * depth, "");
	}
	fputs(p, fp);
	free(d);
	return 0;
}


/*
 * A buffer in front of stdio: the summary and metrics_all.json are written
 * in pieces of a few bytes, and fputs() costs more than the copy.  It goes
 * to the file's descriptor itself, after what stdio holds (the few pieces
 * put with fputs), not through stdio's buffer: 1.3 MB copied once less for
 * the 200-launch torch_mix page.  A write error is kept in err.
 */
#define WB_SIZE ((size_t)64 << 10)

struct wb {
	FILE *fp;
	int fd;		/* -1: through stdio */
	int err;	/* errno of a failed write, else 0 */
	size_t n;
	char *b;	/* WB_SIZE bytes */
};

static void
wb_write(struct wb *w, const char *p, size_t n)
{
	ssize_t r;

	if (w->fd < 0 || fflush(w->fp) != 0) {
		fwrite(p, 1, n, w->fp);
		return;
	}
	while (n > 0 && w->err == 0) {
		if ((r = write(w->fd, p, n)) < 0) {
			if (errno != EINTR)
				w->err = errno ? errno : EIO;
			continue;
		}
		p += r;
		n -= (size_t)r;
	}
}

static void
wb_flush(struct wb *w)
{
	if (w->n > 0)
		wb_write(w, w->b, w->n);
	w->n = 0;
}

/* at least n bytes free (n at most WB_SIZE) */
static void
wb_room(struct wb *w, size_t n)
{
	if (WB_SIZE - w->n < n)
		wb_flush(w);
}

static void
wb_put_slow(struct wb *w, const char *s, size_t n)
{
	wb_flush(w);
	if (n > WB_SIZE / 2) {
		wb_write(w, s, n);
		return;
	}
	memcpy(w->b, s, n);
	w->n = n;
}

/* inline: a million pieces for a thousand kernels' maps */
static inline void
wb_put(struct wb *w, const char *s, size_t n)
{
	if (n <= WB_SIZE - w->n) {
		memcpy(w->b + w->n, s, n);
		w->n += n;
	} else
		wb_put_slow(w, s, n);
}

static void
wb_puts(struct wb *w, const char *s)
{
	wb_put(w, s, strlen(s));
}

static void
wb_ll(struct wb *w, long long v)
{
	wb_room(w, 32);
	w->n = (size_t)(mx_put_ll(w->b + w->n, v) - w->b);
}

/* s as a JSON string: as mx_put_jstr() does */
static int
wb_jstr(struct wb *w, const char *s)
{
	const unsigned char *p;
	char *e;

	for (p = (const unsigned char *)s; *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\'; p++)
		;
	if (*p == '\0') {
		wb_put(w, "\"", 1);
		wb_put(w, s, (size_t)(p - (const unsigned char *)s));
		wb_put(w, "\"", 1);
		return 0;
	}
	if ((e = mx_jesc(s)) == NULL)
		return -1;
	wb_puts(w, e);
	free(e);
	return 0;
}

/*
 * Metric m's map entry up to its value, ",\n        \"name\": " (from the
 * newline for a map's first), made once for every kernel's maps.  -1 when
 * jansson refuses the name.
 */
static int
wb_metric_line(struct ex *x, struct wb *w, struct metric *m, int first)
{
	static const char pre[] = ",\n        ";
	char *j;
	size_t n;

	if (m->jline == NULL) {
		if ((j = mx_jesc_in(x, m->name)) == NULL ||
		    (n = sizeof(pre) - 1 + strlen(j) + 2) > UINT32_MAX ||
		    (m->jline = kp_arena_alloc(&x->strs, n + 1)) == NULL)
			return -1;
		memcpy(m->jline, pre, sizeof(pre) - 1);
		memcpy(m->jline + sizeof(pre) - 1, j, n - (sizeof(pre) - 1) - 2);
		memcpy(m->jline + n - 2, ": ", 3);
		m->jlinelen = (uint32_t)n;
	}
	wb_put(w, m->jline + (first != 0), m->jlinelen - (first != 0));
	return 0;
}

/*
 * Metric id's unit in kernel k as a JSON string: the metric's, escaped once,
 * or the kernel's own.  -1 when jansson refuses it.
 */
static int
wb_metric_unit(struct ex *x, struct wb *w, const struct kernel *k, uint32_t id)
{
	struct metric *m = &x->m[id];
	const char *u = mx_metric_unit(x, k, id);
	size_t n;

	if (u != m->unit)	/* the kernel's own (rare) */
		return wb_jstr(w, u);
	if (m->junit == NULL) {
		if ((m->junit = mx_jesc_in(x, u)) == NULL || (n = strlen(m->junit)) > UINT32_MAX)
			return -1;
		m->junitlen = (uint32_t)n;
	}
	wb_put(w, m->junit, m->junitlen);
	return 0;
}

/*
 * Kernel k's object of metrics_summary.json written directly, byte for byte
 * what put_nested(kernel_json(x, k, 0), 2) writes (jansson's indent of 2,
 * sorted keys, numbers as mx_put_num(), strings escaped by jansson where they
 * need it), without building and dumping its jansson objects.
 * tests/unit/check_summary.c compares the file with jansson's dump.
 * 1 when it cannot (a key jansson would refuse): the caller uses jansson.
 */
static void
put_num(struct wb *fp, double v)
{
	wb_room(fp, 64);
	fp->n = (size_t)(mx_put_num(fp->b + fp->n, v) - fp->b);
}

/* a metric's median, from its decimal where it has one */
static void
put_med(struct wb *fp, double v, uint64_t dec)
{
	wb_room(fp, 64);
	fp->n = (size_t)(mx_put_med(fp->b + fp->n, v, dec) - fp->b);
}

static void
put_ints(struct wb *fp, const long long *v, size_t n)
{
	size_t i;

	wb_puts(fp, "[");
	for (i = 0; i < n; i++) {
		wb_puts(fp, i > 0 ? ",\n        " : "\n        ");
		wb_ll(fp, v[i]);
	}
	wb_puts(fp, n > 0 ? "\n      ]" : "]");
}

/* the summary's or the spread's keys: stalls.x under "stalls" */
static void
put_keys(struct ex *x, struct wb *fp, const struct kernel *k, int spread)
{
	size_t i, n = 0, ns = 0;

	wb_puts(fp, "{");
	for (i = 0; i < x->nkorder; i++) {
		size_t id = x->korder[i];
		int st;
		const char *pad;

		if (id >= k->nkeys || k->keys[id].seen == 0)
			continue;
		st = strncmp(x->keyname[id], "stalls.", 7) == 0;
		if (st) {
			if (ns++ == 0)
				wb_puts(fp, n++ > 0 ? ",\n        \"stalls\": {" : "\n        \"stalls\": {");
			wb_puts(fp, ns > 1 ? ",\n          " : "\n          ");
		} else {
			if (ns > 0) {
				wb_puts(fp, "\n        }");
				ns = 0;
			}
			wb_puts(fp, n++ > 0 ? ",\n        " : "\n        ");
		}
		wb_puts(fp, x->jkey[id]);
		wb_puts(fp, ": ");
		if (!spread) {
			put_num(fp, key_median_v(k, id));
			continue;
		}
		pad = st ? "\n            " : "\n          ";
		wb_puts(fp, "{");
		wb_puts(fp, pad);
		wb_puts(fp, "\"max\": ");
		put_num(fp, k->keys[id].max);
		wb_puts(fp, ",");
		wb_puts(fp, pad);
		wb_puts(fp, "\"min\": ");
		put_num(fp, k->keys[id].min);
		wb_puts(fp, st ? "\n          }" : "\n        }");
	}
	if (ns > 0)
		wb_puts(fp, "\n        }");
	wb_puts(fp, n > 0 ? "\n      }" : "}");
}

/* the short "metrics" or "units" map */
static int
put_short_map(struct ex *x, struct wb *fp, struct kernel *k, int units)
{
	size_t j, n = 0;

	wb_puts(fp, "{");
	for (j = 0; j < x->nm && k->nmed > 0; j++) {
		uint32_t id = x->byname[j];
		struct metric *m = &x->m[id];

		if (id >= k->span || !x->hasmed[id])
			continue;
		if (x->short_maps && m->key == 0)
			m->key = (signed char)(kp_key_metric(m->name) + 1);
		if (x->short_maps && m->key == 1)
			continue;
		if (wb_metric_line(x, fp, m, n++ == 0) < 0)
			return -1;
		if (units) {
			if (wb_metric_unit(x, fp, k, id) < 0)
				return -1;
		} else
			put_med(fp, x->med[id], x->mdec[id]);
	}
	wb_puts(fp, n > 0 ? "\n      }" : "}");
	return 0;
}

static int
write_sum_kernel(struct ex *x, struct wb *fp, struct kernel *k)
{
	struct idset_iter it;
	long long v[3], lo, hi;
	char *fn;
	size_t i, n;
	int r;

	if (x->nkorder != x->nkeys && mx_jkeys_update(x) < 0)
		return -1;
	if (x->jkeys_bad)
		return 1;
	if (kernel_medians(x, k) < 0)
		return -1;
	wb_puts(fp, "{");
	if (k->have_block) {
		wb_puts(fp, "\n      \"block\": ");
		for (i = 0; i < 3; i++)
			v[i] = (long long)k->block[i];
		put_ints(fp, v, 3);
		wb_puts(fp, ",");
	}
	if (k->cc) {
		wb_puts(fp, "\n      \"cc\": ");
		if (wb_jstr(fp, k->cc) < 0)
			return -1;
		wb_puts(fp, ",");
	}
	if (k->device) {
		wb_puts(fp, "\n      \"device\": ");
		if (wb_jstr(fp, k->device) < 0)
			return -1;
		wb_puts(fp, ",");
	}
	if ((fn = kp_kernel_function(k->name)) == NULL)
		return -1;
	wb_puts(fp, "\n      \"function\": ");
	r = wb_jstr(fp, fn);
	free(fn);
	if (r < 0)
		return -1;
	wb_puts(fp, ",");
	if (k->have_grid) {
		wb_puts(fp, "\n      \"grid\": ");
		for (i = 0; i < 3; i++)
			v[i] = (long long)k->grid[i];
		put_ints(fp, v, 3);
		wb_puts(fp, ",");
	}
	wb_puts(fp, "\n      \"ids\": [");
	n = 0;
	kp_idset_iter(&k->ids, &it);
	while (n < KP_IDS_LISTED && kp_idset_next(&it, &lo, &hi)) {
		long long id;

		for (id = lo; id <= hi && n < KP_IDS_LISTED; id++) {
			wb_puts(fp, n++ > 0 ? ",\n        " : "\n        ");
			wb_ll(fp, id);
		}
	}
	wb_puts(fp, n > 0 ? "\n      ]," : "],");
	if (k->ids.cut)
		wb_puts(fp, "\n      \"ids_truncated\": true,");
	wb_puts(fp, "\n      \"launches\": ");
	wb_ll(fp, (long long)k->launches);
	wb_puts(fp, k->launches > k->nsamp ? ",\n      \"median\": \"sampled\",\n      \"metrics\": " :
	    ",\n      \"median\": \"exact\",\n      \"metrics\": ");
	if (put_short_map(x, fp, k, 0) < 0)
		return -1;
	wb_puts(fp, ",\n      \"metrics_count\": ");
	wb_ll(fp, (long long)k->nmed);
	wb_puts(fp, ",\n      \"name\": ");
	if (wb_jstr(fp, k->name) < 0)
		return -1;
	if (k->launches > 1) {
		wb_puts(fp, ",\n      \"spread\": ");
		put_keys(x, fp, k, 1);
	}
	wb_puts(fp, ",\n      \"summary\": ");
	put_keys(x, fp, k, 0);
	wb_puts(fp, ",\n      \"units\": ");
	if (put_short_map(x, fp, k, 1) < 0)
		return -1;
	wb_puts(fp, ",\n      \"unknown_units\": [");
	if (k->nunknown > 1)
		qsort(k->unknown, k->nunknown, sizeof(*k->unknown), cmpstr);
	for (i = 0; i < k->nunknown; i++) {
		wb_puts(fp, i > 0 ? ",\n        " : "\n        ");
		if (wb_jstr(fp, k->unknown[i]) < 0)
			return -1;
	}
	wb_puts(fp, k->nunknown > 0 ? "\n      ]\n    }" : "]\n    }");
	return 0;
}

static int write_all_kernel(struct ex *x, struct wb *fp, size_t i, const char *path,
    struct kp_err *err);
static int write_files(struct ex *x, struct wb *sw, const char *spath, struct wb *aw,
    const char *apath, struct kp_err *err);

/*
 * metrics_summary.json (short maps) and metrics_all.json, a kernel at a time:
 * one kernel's objects are built, written and freed before the next, so
 * memory does not grow with the kernels.  The summary is byte for byte
 * json_dumpf() of mx_summary_json() with short maps and a newline
 * (tests/unit/check_summary.c compares them).
 */
int
mx_write_files(struct ex *x, FILE *sfp, const char *spath, FILE *afp, const char *apath,
    struct kp_err *err)
{
	struct wb sw, aw;
	char *bufs;
	int r;

	if ((bufs = malloc(2 * WB_SIZE)) == NULL)
		return mx_nomem(err);
	aw.fp = afp;
	aw.fd = fileno(afp);
	aw.err = 0;
	aw.n = 0;
	aw.b = bufs;
	sw.fp = sfp;
	sw.fd = fileno(sfp);
	sw.err = 0;
	sw.n = 0;
	sw.b = bufs + WB_SIZE;
	r = write_files(x, &sw, spath, &aw, apath, err);
	free(bufs);
	return r;
}

/* mx_write_files() through sw and aw */
static int
write_files(struct ex *x, struct wb *sw, const char *spath, struct wb *aw, const char *apath,
    struct kp_err *err)
{
	FILE *sfp = sw->fp, *afp = aw->fp;
	size_t i, primary = primary_of(x);
	int r;

	fputs("{\n  \"inputs\": ", sfp);
	if (put_nested(sfp, x->inputs, 1) < 0)
		return mx_nomem(err);
	fputs(x->nk > 0 ? ",\n  \"kernels\": [" : ",\n  \"kernels\": [],\n", sfp);
	fputs("{\n  \"kernels\": [", afp);
	mx_medians_ahead(x);
	for (i = 0; i < x->nk; i++) {
		json_t *o;

		if (write_all_kernel(x, aw, i, apath, err) < 0)
			return -1;
		wb_puts(sw, i > 0 ? ",\n    " : "\n    ");
		if ((r = write_sum_kernel(x, sw, x->k[i])) < 0)
			return mx_nomem(err);
		if (r == 0)
			continue;
		wb_flush(sw);
		if ((o = kernel_json(x, x->k[i], 0)) == NULL)
			return mx_nomem(err);
		if (put_nested(sfp, o, 2) < 0) {
			json_decref(o);
			return mx_nomem(err);
		}
		json_decref(o);
	}
	wb_flush(sw);
	wb_flush(aw);
	if (x->nk > 0)
		fputs("\n  ],\n", sfp);
	fputs("  \"metrics_all\": ", sfp);
	if (mx_put_jstr(sfp, KP_METRICS_ALL) < 0)
		return mx_nomem(err);
	fprintf(sfp, ",\n  \"primary\": %zu,\n  \"schema\": \"kp-metrics-summary/2\"\n}\n", primary);
	fputs(x->nk > 0 ? "\n  ],\n" : "],\n", afp);
	fputs("  \"schema\": \"kp-metrics-all/1\"\n}\n", afp);
	if (sw->err != 0 || ferror(sfp))
		return kp_errf(err, KP_EXIT_ENV, "%s: %s", spath, strerror(sw->err ? sw->err :
		    errno ? errno : EIO));
	if (aw->err != 0 || ferror(afp))
		return kp_errf(err, KP_EXIT_ENV, "%s: %s", apath, strerror(aw->err ? aw->err :
		    errno ? errno : EIO));
	return 0;
}

/* Each kernel's light object (kernel_json) and whether it is the primary one. */
int
mx_each_kernel(struct ex *x, int (*each)(json_t *, int, void *, struct kp_err *), void *arg,
    struct kp_err *err)
{
	size_t i, primary = primary_of(x);

	for (i = 0; i < x->nk; i++) {
		json_t *o = kernel_json(x, x->k[i], 1);
		int r;

		if (o == NULL)
			return mx_nomem(err);
		r = each(o, i == primary, arg, err);
		json_decref(o);
		if (r < 0)
			return -1;
	}
	return 0;
}

/*
 * metrics_all.json written from the kernels' medians, without building 4,400
 * jansson objects per kernel: byte for byte what json_dumpf(JSON_INDENT(2) |
 * JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) writes for {"kernels": [{"metrics",
 * "name", "units"}], "schema"} (names escaped by jansson itself, numbers by
 * put_num(), as for metrics_extracted.jsonl; tests/unit/check_summary.c
 * compares the two on real captures).
 */
/* A kernel's "metrics" (values) or "units" map, indented as jansson does. */
static int
write_map(struct ex *x, struct wb *fp, const struct kernel *k, int units, const char *path,
    struct kp_err *err)
{
	size_t j, n = 0;

	wb_puts(fp, units ? "      \"units\": {" : "      \"metrics\": {");
	for (j = 0; j < x->nm && k->nmed > 0; j++) {
		uint32_t id = x->byname[j];
		struct metric *m = &x->m[id];

		if (id >= k->span || !x->hasmed[id])
			continue;
		if (wb_metric_line(x, fp, m, n++ == 0) < 0)
			return kp_errf(err, KP_EXIT_DATA, "%s: a metric name jansson refuses", path);
		if (units) {
			if (wb_metric_unit(x, fp, k, id) < 0)
				return kp_errf(err, KP_EXIT_DATA, "%s: a unit jansson refuses", path);
		} else {
			put_med(fp, x->med[id], x->mdec[id]);
		}
	}
	wb_puts(fp, k->nmed > 0 ? "\n      }" : "}");
	return 0;
}

/* Kernel i's entry of metrics_all.json's "kernels". */
static int
write_all_kernel(struct ex *x, struct wb *fp, size_t i, const char *path, struct kp_err *err)
{
	struct kernel *k = x->k[i];

	if (kernel_medians(x, k) < 0)
		return mx_nomem(err);
	wb_puts(fp, i > 0 ? ",\n    {\n" : "\n    {\n");
	if (write_map(x, fp, k, 0, path, err) < 0)
		return -1;
	wb_puts(fp, ",\n      \"name\": ");
	if (wb_jstr(fp, k->name) < 0)
		return kp_errf(err, KP_EXIT_DATA, "%s: a kernel name jansson refuses", path);
	wb_puts(fp, ",\n");
	if (write_map(x, fp, k, 1, path, err) < 0)
		return -1;
	wb_puts(fp, "\n    }");
	return 0;
}
