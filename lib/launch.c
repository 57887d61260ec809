/*
 * launch.c: one launch being read: its summary values, then, at its end, the
 * accumulators and the metrics_extracted.jsonl record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_summary_keys.h"
#include "metrics_int.h"

void
mx_launch_reset(struct ex *x)
{
	size_t i;

	for (i = 0; i < x->nkeys; i++)
		x->l.rank[i] = -1;
	json_decref(x->l.all);
	x->l.all = NULL;
	x->l.open = 0;
	x->l.keep = 0;
	x->l.k = NULL;
	x->l.ncells = 0;
	x->l.nover = 0;
	x->l.text = NULL;
	x->l.ntext = 0;
}

/*
 * Key value v of the launch, from a field that gave cell (CELL_ABSENT where
 * none is known): the JSONL record prints v from the cell's decimal when it
 * is v's (mx_put_dec()).
 */
void
mx_launch_put(struct ex *x, int key, int rank, int sum, double v, uint32_t cell)
{
	if (x->l.rank[key] < 0) {
		x->l.val[key] = v;
		x->l.dec[key] = cell;
		x->l.rank[key] = rank;
	} else if (sum) {
		x->l.val[key] += v;
		x->l.dec[key] = CELL_ABSENT;
	} else if (rank < x->l.rank[key]) {
		x->l.val[key] = v;
		x->l.dec[key] = cell;
		x->l.rank[key] = rank;
	}
}

int
mx_launch_start(struct ex *x, struct kernel *k, long long id, struct kp_err *err)
{
	mx_launch_reset(x);
	x->l.open = 1;
	x->l.k = k;
	x->l.id = id;
	/* launches counts the ones before this one */
	x->l.keep = mx_launch_sampled(x, k);
	if (x->l.keep && k->span > 0 && mx_cells_fit(&x->l, k->span - 1) < 0)
		return mx_nomem(err);
	if (x->all_metrics && (x->l.all = json_object()) == NULL)
		return mx_nomem(err);
	return 0;
}

/*
 * ---- metrics_extracted.jsonl without jansson ----
 *
 * A launch record is always the same few keys, so it is formatted here into
 * one buffer and written with one fwrite, byte for byte as
 * json_dumpf(JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) writes
 * it: strings are escaped once, by jansson itself, and kept; summary keys
 * are kept in jansson's sorted order; numbers follow mx_jnum() and jansson's
 * real format.  Anything jansson would refuse (a name that is not UTF-8)
 * leaves the record to the jansson path, which reports it as before.
 */

/* Escape and sort the keys added since the last call; -1 out of memory. */
int
mx_jkeys_update(struct ex *x)
{
	size_t j, id;
	char **nk;
	size_t *no, *nl;
	unsigned char *ns;

	if ((nk = realloc(x->jkey, x->nkeys * sizeof(*nk))) == NULL)
		return -1;
	x->jkey = nk;
	if ((no = realloc(x->korder, x->nkeys * sizeof(*no))) == NULL)
		return -1;
	x->korder = no;
	if ((nl = realloc(x->jkeylen, x->nkeys * sizeof(*nl))) == NULL)
		return -1;
	x->jkeylen = nl;
	if ((ns = realloc(x->jstall, x->nkeys)) == NULL)
		return -1;
	x->jstall = ns;
	for (; x->nkorder < x->nkeys; x->nkorder++) {
		const char *name = x->keyname[x->nkorder];
		int st = strncmp(name, "stalls.", 7) == 0;

		if (strcmp(name, "stalls") == 0)
			x->jkeys_bad = 1;
		if ((x->jkey[x->nkorder] = mx_jesc(st ? name + 7 : name)) == NULL)
			x->jkeys_bad = 1;
		x->jstall[x->nkorder] = (unsigned char)st;
		x->jkeylen[x->nkorder] = x->jkey[x->nkorder] ? strlen(x->jkey[x->nkorder]) : 0;
		x->jkeyneed += x->jkeylen[x->nkorder] + 40;
		/* insertion into the sorted ids: a few dozen keys */
		id = x->nkorder;
		for (j = id; j > 0 && mx_keycmp(x->keyname[x->korder[j - 1]], name) > 0; j--)
			x->korder[j] = x->korder[j - 1];
		x->korder[j] = id;
	}
	return 0;
}

/* 1 when jsonl_launch can write the launch record, 0 to use jansson */
static int
jsonl_ready(struct ex *x, struct kernel *k)
{
	if (k->jstate == 0)
		k->jstate = (k->jname = mx_jesc(k->name)) != NULL ? 1 : -1;
	if (k->jstate == 1 && k->jnamelen == 0)
		k->jnamelen = strlen(k->jname);
	if (x->jpath_state == 0)
		x->jpath_state = (x->jpath = mx_jesc(x->path)) != NULL ? 1 : -1;
	if (x->nkorder != x->nkeys && mx_jkeys_update(x) < 0)
		x->jkeys_bad = 1;
	return k->jstate == 1 && x->jpath_state == 1 && !x->jkeys_bad;
}

/* The launch's record, as emit_file() would write it; -1 with err. */
static int
jsonl_launch(struct ex *x, struct kernel *k, struct kp_err *err)
{
	size_t i, need, n;
	char *p;
	int stalls = 0, first = 1, sfirst = 1;

	/* the keys' lengths are kept (mx_jkeys_update), the kernel's too */
	need = 160 + strlen(x->jpath) + k->jnamelen + (x->jpd ? strlen(x->jpd) : 0) + x->jkeyneed;
	if (need > x->outcap) {
		char *no = realloc(x->out, need);

		if (no == NULL)
			return mx_nomem(err);
		x->out = no;
		x->outcap = need;
	}
	p = mx_put_str(x->out, "{\"file\":");
	p = mx_put_str(p, x->jpath);
	p = mx_put_str(p, ",\"id\":");
	p = mx_put_ll(p, x->l.id);
	p = mx_put_str(p, ",\"kernel\":");
	memcpy(p, k->jname, k->jnamelen);
	p += k->jnamelen;
	p = mx_put_str(p, ",\"kind\":\"launch\",");
	if (x->jpd != NULL) {
		p = mx_put_str(p, "\"profile_dir\":");
		p = mx_put_str(p, x->jpd);
		*p++ = ',';
	}
	p = mx_put_str(p, "\"summary\":{");
	for (i = 0; i < x->nkeys; i++) {
		size_t id = x->korder[i];
		int st;

		if (x->l.rank[id] < 0)
			continue;
		st = x->jstall[id];
		if (stalls && !st) {
			*p++ = '}';
			stalls = 0;
		}
		if (st && !stalls) {
			if (!first)
				*p++ = ',';
			first = 0;
			p = mx_put_str(p, "\"stalls\":{");
			stalls = sfirst = 1;
		}
		if (st ? !sfirst : !first)
			*p++ = ',';
		if (st)
			sfirst = 0;
		else
			first = 0;
		memcpy(p, x->jkey[id], x->jkeylen[id]);
		p += x->jkeylen[id];
		*p++ = ':';
		p = mx_put_dec(p, x->l.val[id], x->l.dec[id]);
	}
	if (stalls)
		*p++ = '}';
	p = mx_put_str(p, "}}\n");
	n = (size_t)(p - x->out);
	if (fwrite(x->out, 1, n, x->jfp) != n)
		return kp_errf(err, KP_EXIT_ENV, "%s: %s", x->jfpath, strerror(errno ? errno : EIO));
	return 0;
}

int
mx_launch_end(struct ex *x, struct kp_err *err)
{
	struct kernel *k = x->l.k;
	json_t *rec = NULL, *sum = NULL;
	size_t i;

	if (!x->l.open)
		return 0;
	if (mx_kernel_keys_fit(x, k) < 0 || mx_kernel_add_id(k, x->l.id) < 0)
		return mx_nomem(err);
	mx_budget(x, k);
	if (x->l.keep && mx_launch_keep(x, k) < 0)
		return mx_nomem(err);
	k->launches++;
	x->file_launches++;
	if (x->jfp != NULL && x->l.all == NULL && jsonl_ready(x, k)) {
		int r;

		for (i = 0; i < x->nkeys; i++) {
			if (x->l.rank[i] < 0)
				continue;
			mx_acc_add(&k->keys[i], x->l.val[i]);
			if (i == KP_SK_DURATION)
				k->total_dur += x->l.val[i];
		}
		r = jsonl_launch(x, k, err);
		mx_launch_reset(x);
		return r;
	}
	if ((sum = json_object()) == NULL)
		return mx_nomem(err);
	for (i = 0; i < x->nkeys; i++) {
		if (x->l.rank[i] < 0)
			continue;
		mx_acc_add(&k->keys[i], x->l.val[i]);
		if (mx_jset_key(sum, x->keyname[i], mx_jnum(x->l.val[i])) < 0)
			goto fail;
		if (i == KP_SK_DURATION)
			k->total_dur += x->l.val[i];
	}
	if ((rec = json_pack("{s:s, s:I, s:s, s:s, s:O}", "kind", "launch", "id",
	    (json_int_t)x->l.id, "kernel", k->name, "file", x->path, "summary", sum)) == NULL)
		goto fail;
	if (x->l.all != NULL && json_object_set(rec, "metrics", x->l.all) < 0)
		goto fail;
	json_decref(sum);
	mx_launch_reset(x);
	if (x->emit != NULL && x->emit(rec, x->arg, err) < 0) {
		json_decref(rec);
		return -1;
	}
	json_decref(rec);
	return 0;
fail:
	json_decref(sum);
	json_decref(rec);
	return mx_nomem(err);
}

int
mx_launch_all_metric(struct ex *x, const char *name, double v, const char *unit)
{
	if (x->l.all == NULL)
		return 0;
	return mx_jset(x->l.all, name, json_pack("{s:o, s:s}", "value", mx_jnum(v), "unit", unit));
}
