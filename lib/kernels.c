/*
 * kernels.c: the kernels of an extraction, their metric tables (open addressing
 * on FNV-1a), their launch IDs, and the interned summary keys.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_strmap.h"
#include "kp_summary_keys.h"
#include "metrics_int.h"

/* Intern a summary key; its id or -1. */
int
mx_key_id(struct ex *x, const char *name)
{
	size_t i;
	char *s;

	for (i = 0; i < x->nkeys; i++)
		if (strcmp(x->keyname[i], name) == 0)
			return (int)i;
	if (x->nkeys == x->keycap) {
		size_t cap = x->keycap ? x->keycap * 2 : 64;
		char **nk = realloc(x->keyname, cap * sizeof(*nk));
		double *nv;
		int *nr;
		uint32_t *nd;

		if (nk == NULL)
			return -1;
		x->keyname = nk;
		x->keycap = cap;
		if ((nv = realloc(x->l.val, cap * sizeof(*nv))) == NULL)
			return -1;
		x->l.val = nv;
		if ((nr = realloc(x->l.rank, cap * sizeof(*nr))) == NULL)
			return -1;
		x->l.rank = nr;
		if ((nd = realloc(x->l.dec, cap * sizeof(*nd))) == NULL)
			return -1;
		x->l.dec = nd;
	}
	if ((s = strdup(name)) == NULL)
		return -1;
	x->l.rank[x->nkeys] = -1;
	x->keyname[x->nkeys++] = s;
	return (int)(x->nkeys - 1);
}

static int
stall_key(struct ex *x, const char *metric)
{
	const char *reason;
	size_t n = kp_summary_stall_of_metric(metric, &reason);
	char buf[256];

	if (n == 0 || n >= sizeof(buf) - 8)
		return -2;
	snprintf(buf, sizeof(buf), "stalls.%.*s", (int)n, reason);
	return mx_key_id(x, buf);
}

/* The summary source of a raw metric name: key id (-2 none, -1 nomem). */
int
mx_raw_source(struct ex *x, const char *metric, int *rank, int *sum)
{
	int key = kp_summary_key_of_metric(metric, rank, sum);

	return key != -2 ? key : stall_key(x, metric);
}

void
mx_kernel_free(struct kernel *k)
{
	size_t i;

	if (k == NULL)
		return;
	for (i = 0; i < k->nuover; i++)
		free(k->uover[i].unit);
	free(k->uover);
	free(k->seen);
	for (i = 0; i < k->nsamp; i++)
		mx_block_free(k->samp[i]);
	free(k->samp);
	for (i = 0; i < k->nunknown; i++)
		free(k->unknown[i]);
	free(k->unknown);
	free(k->keys);
	free(k->pmed);
	free(k->pdec);
	free(k->phas);
	kp_idset_free(&k->ids);
	free(k->device);
	free(k->cc);
	free(k->jname);
	free(k->name);
	free(k);
}

static int
kslot_grow(struct ex *x)
{
	size_t n = x->kslots ? x->kslots * 2 : 64, i;
	struct kernel **ns = calloc(n, sizeof(*ns));

	if (ns == NULL)
		return -1;
	for (i = 0; i < x->nk; i++) {
		size_t j = x->k[i]->hash & (n - 1);

		while (ns[j] != NULL)
			j = (j + 1) & (n - 1);
		ns[j] = x->k[i];
	}
	free(x->kslot);
	x->kslot = ns;
	x->kslots = n;
	return 0;
}

/*
 * A kernel name's hash, 8 bytes at a time (every row looks its kernel up, and
 * PyTorch's names are hundreds of bytes: FNV-1a's byte loop was a sixth of
 * kp-extract's time); a metric name's too.  Only used in these two tables.
 */
static uint64_t
name_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 29;
}

/* The kernel of that name, NULL when there is none yet. */
struct kernel *
mx_kernel_find(struct ex *x, const char *name, size_t len)
{
	uint64_t h = name_hash(name, len);
	struct kernel *k;
	size_t j;

	if (x->kslots == 0)
		return NULL;
	for (j = h & (x->kslots - 1); (k = x->kslot[j]) != NULL; j = (j + 1) & (x->kslots - 1))
		if (k->hash == h && k->namelen == len && memcmp(k->name, name, len) == 0)
			return k;
	return NULL;
}

struct kernel *
mx_kernel_get(struct ex *x, const char *name, size_t len)
{
	uint64_t h = name_hash(name, len);
	struct kernel *k;
	size_t j;

	if ((k = mx_kernel_find(x, name, len)) != NULL)
		return k;
	if (x->kslots == 0 && kslot_grow(x) < 0)
		return NULL;
	if ((k = calloc(1, sizeof(*k))) == NULL || (k->name = strdup(name)) == NULL) {
		free(k);
		return NULL;
	}
	k->namelen = len;
	k->hash = h;
	k->colfile = (size_t)-1;
	if (x->nk == x->kcap) {
		size_t cap = x->kcap ? x->kcap * 2 : 16;
		struct kernel **nk = realloc(x->k, cap * sizeof(*nk));

		if (nk == NULL) {
			mx_kernel_free(k);
			return NULL;
		}
		x->k = nk;
		x->kcap = cap;
	}
	x->k[x->nk++] = k;
	if (x->nk * 2 > x->kslots) {
		if (kslot_grow(x) < 0)
			return NULL;
	} else {
		for (j = h & (x->kslots - 1); x->kslot[j] != NULL; j = (j + 1) & (x->kslots - 1))
			;
		x->kslot[j] = k;
	}
	return k;
}

static int
mslot_grow(struct ex *x)
{
	size_t n = x->mslots ? x->mslots * 2 : 1024, i;
	uint32_t *ns = calloc(n, sizeof(*ns));

	if (ns == NULL)
		return -1;
	for (i = 0; i < x->nm; i++) {
		size_t j = x->m[i].hash & (n - 1);

		while (ns[j] != 0)
			j = (j + 1) & (n - 1);
		ns[j] = (uint32_t)i + 1;
	}
	free(x->mslot);
	x->mslot = ns;
	x->mslots = n;
	return 0;
}

/* The id of a metric, created with its unit; -1 out of memory. */
long
mx_metric_get(struct ex *x, const char *name, const char *unit)
{
	uint64_t h = name_hash(name, strlen(name));
	size_t j;
	struct metric *m;

	if (x->mslots == 0 && mslot_grow(x) < 0)
		return -1;
	for (j = h & (x->mslots - 1); x->mslot[j] != 0; j = (j + 1) & (x->mslots - 1)) {
		m = &x->m[x->mslot[j] - 1];
		if (m->hash == h && strcmp(m->name, name) == 0)
			return (long)x->mslot[j] - 1;
	}
	if (x->nm == x->mcap) {
		size_t cap = x->mcap ? x->mcap * 2 : 1024;
		struct metric *nm;

		if (cap > UINT32_MAX / 2 || (nm = realloc(x->m, cap * sizeof(*nm))) == NULL)
			return -1;
		x->m = nm;
		x->mcap = cap;
	}
	m = &x->m[x->nm];
	memset(m, 0, sizeof(*m));
	m->name = mx_strdup(x, name);
	m->unit = mx_strdup(x, unit);
	m->hash = h;
	if (m->name == NULL || m->unit == NULL)
		return -1;
	x->mslot[j] = (uint32_t)++x->nm;
	if (x->nm * 2 > x->mslots && mslot_grow(x) < 0)
		return -1;
	return (long)x->nm - 1;
}

/*
 * Kernel k has metric id, first seen with unit: the first unit a kernel sees
 * stays its own, as when each kernel had its own table.  -1 out of memory.
 */
int
mx_kernel_metric(struct ex *x, struct kernel *k, uint32_t id, const char *unit)
{
	size_t w = id / 64;
	struct uover *nu;

	if (w < k->seenwords && (k->seen[w] >> (id % 64) & 1))
		return 0;
	if (w >= k->seenwords) {
		size_t n = k->seenwords ? k->seenwords : 4;
		uint64_t *ns;

		while (n <= w)
			n *= 2;
		if ((ns = realloc(k->seen, n * sizeof(*ns))) == NULL)
			return -1;
		memset(ns + k->seenwords, 0, (n - k->seenwords) * sizeof(*ns));
		k->seen = ns;
		k->seenwords = n;
	}
	k->seen[w] |= (uint64_t)1 << (id % 64);
	k->nm++;
	if (id + 1 > k->span)
		k->span = id + 1;
	if (x->m[id].unit == unit || strcmp(x->m[id].unit, unit) == 0)
		return 0;
	if ((nu = realloc(k->uover, (k->nuover + 1) * sizeof(*nu))) == NULL)
		return -1;
	k->uover = nu;
	if ((nu[k->nuover].unit = strdup(unit)) == NULL)
		return -1;
	nu[k->nuover++].id = id;
	return 0;
}

/* Kernel k's unit of metric id. */
const char *
mx_metric_unit(const struct ex *x, const struct kernel *k, uint32_t id)
{
	size_t i;

	for (i = 0; i < k->nuover; i++)
		if (k->uover[i].id == id)
			return k->uover[i].unit;
	return x->m[id].unit;
}

void
mx_metrics_free(struct ex *x)
{
	/* their names, units and JSON names are in x->strs */
	free(x->m);
	free(x->mslot);
	free(x->byname);
	free(x->med);
	free(x->mdec);
	free(x->hasmed);
}

int
mx_kernel_unknown_unit(struct kernel *k, const char *unit)
{
	size_t i;
	char **nu;

	for (i = 0; i < k->nunknown; i++)
		if (strcmp(k->unknown[i], unit) == 0)
			return 0;
	if ((nu = realloc(k->unknown, (k->nunknown + 1) * sizeof(*nu))) == NULL)
		return -1;
	k->unknown = nu;
	if ((k->unknown[k->nunknown] = strdup(unit)) == NULL)
		return -1;
	k->nunknown++;
	return 0;
}

/*
 * Add a launch ID to the kernel's ranges.  Only the lowest KP_IDS_LISTED IDs
 * are kept (the summary lists no more, and says when some were dropped), so
 * the ranges stay small however the IDs of many kernels interleave.
 */
int
mx_kernel_add_id(struct kernel *k, long long id)
{
	return kp_idset_add(&k->ids, id, KP_IDS_LISTED);
}

int
mx_kernel_keys_fit(struct ex *x, struct kernel *k)
{
	struct acc *na;

	if (k->nkeys >= x->nkeys)
		return 0;
	if ((na = realloc(k->keys, x->nkeys * sizeof(*na))) == NULL)
		return -1;
	memset(na + k->nkeys, 0, (x->nkeys - k->nkeys) * sizeof(*na));
	k->keys = na;
	k->nkeys = x->nkeys;
	return 0;
}
