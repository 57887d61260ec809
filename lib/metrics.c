/*
 * metrics.c: kp-extract's engine.  ncu's raw or details CSV page in, the
 * metrics summary (schema kp-metrics-summary/2, see kp-extract(1)) out.
 *
 * One streaming pass per file.  A kernel keeps its first ACC_KEEP launches
 * and a fixed-seed reservoir sample of whole launches past that (Algorithm L,
 * decided when a launch starts).  A kept launch is one contiguous block of
 * 32-bit cells, one per metric of the kernel (sequential writes, not one
 * append per metric), the medians are taken per metric at the end; a launch
 * that is not kept only has its summary keys parsed.  The summary keys have
 * their own accumulators (exact min/max, a per-key sample).  Memory is bounded
 * by kernels x metrics x ACC_KEEP, not by the number of rows.  Launches are
 * (file, ID): rows of different files are never merged.  The per-launch
 * records go to a callback as soon as a launch ends.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kp.h"

#define ACC_KEEP 1024
#define STALL_PRE "smsp__average_warps_issue_stalled_"
#define STALL_SUF "_per_issue_active.ratio"
#define CLI_SECTION "Command line profiler metrics"

/* ---- the summary keys and where they come from ---- */

enum {
	K_DURATION, K_SM, K_MEM, K_DRAM, K_L1, K_L2, K_ACHIEVED, K_THEORETICAL,
	K_REGS, K_BLOCK, K_GRID, K_WAVES, K_IPC, K_BANK, K_L1HIT, K_L2HIT,
	K_TENSOR, K_SPILL, NFIXED
};

static const char *const fixed_keys[NFIXED] = {
	"duration_ns", "sm_throughput_pct", "memory_throughput_pct",
	"dram_throughput_pct", "l1tex_throughput_pct", "l2_throughput_pct",
	"achieved_occupancy_pct", "theoretical_occupancy_pct",
	"registers_per_thread", "block_size", "grid_size", "waves_per_sm", "ipc",
	"shared_bank_conflicts", "l1tex_hit_rate_pct", "l2_hit_rate_pct",
	"tensor_pipe_pct", "local_spill_requests",
};

/* rank: lower wins within a launch; sum: the sources add up */
static const struct source {
	const char *metric;
	int key, rank, sum;
} raw_sources[] = {
	{ "gpu__time_duration.sum", K_DURATION, 0, 0 },
	{ "sm__throughput.avg.pct_of_peak_sustained_elapsed", K_SM, 0, 0 },
	{ "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", K_MEM, 0, 0 },
	{ "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", K_DRAM, 0, 0 },
	{ "dram__throughput.avg.pct_of_peak_sustained_elapsed", K_DRAM, 1, 0 },
	{ "l1tex__throughput.avg.pct_of_peak_sustained_active", K_L1, 0, 0 },
	{ "lts__throughput.avg.pct_of_peak_sustained_elapsed", K_L2, 0, 0 },
	{ "sm__warps_active.avg.pct_of_peak_sustained_active", K_ACHIEVED, 0, 0 },
	{ "sm__maximum_warps_per_active_cycle_pct", K_THEORETICAL, 0, 0 },
	{ "launch__registers_per_thread", K_REGS, 0, 0 },
	{ "launch__block_size", K_BLOCK, 0, 0 },
	{ "launch__grid_size", K_GRID, 0, 0 },
	{ "launch__waves_per_multiprocessor", K_WAVES, 0, 0 },
	{ "sm__inst_executed.avg.per_cycle_active", K_IPC, 0, 0 },
	{ "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", K_BANK, 0, 1 },
	{ "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", K_BANK, 0, 1 },
	{ "l1tex__t_sector_hit_rate.pct", K_L1HIT, 0, 0 },
	{ "lts__t_sector_hit_rate.pct", K_L2HIT, 0, 0 },
	{ "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", K_TENSOR, 0, 0 },
	{ "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", K_SPILL, 0, 1 },
	{ "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", K_SPILL, 0, 1 },
};

/* Details-page display names: the same quantities as raw_sources (checked on
 * the import_raw/import_details pairs of tests/fixtures/h200). */
static const struct display {
	const char *section, *name;
	int key;
} display_sources[] = {
	{ "GPU Speed Of Light Throughput", "Duration", K_DURATION },
	{ "GPU Speed Of Light Throughput", "Compute (SM) Throughput", K_SM },
	{ "GPU Speed Of Light Throughput", "Memory Throughput", K_MEM },
	{ "GPU Speed Of Light Throughput", "DRAM Throughput", K_DRAM },
	{ "GPU Speed Of Light Throughput", "L1/TEX Cache Throughput", K_L1 },
	{ "GPU Speed Of Light Throughput", "L2 Cache Throughput", K_L2 },
	{ "Occupancy", "Achieved Occupancy", K_ACHIEVED },
	{ "Occupancy", "Theoretical Occupancy", K_THEORETICAL },
	{ "Launch Statistics", "Registers Per Thread", K_REGS },
	{ "Launch Statistics", "Block Size", K_BLOCK },
	{ "Launch Statistics", "Grid Size", K_GRID },
	{ "Launch Statistics", "Waves Per SM", K_WAVES },
	{ "Compute Workload Analysis", "Executed Ipc Active", K_IPC },
	{ "Memory Workload Analysis", "L1/TEX Hit Rate", K_L1HIT },
	{ "Memory Workload Analysis", "L2 Hit Rate", K_L2HIT },
};
#define DISPLAY_RANK 10		/* a raw metric of the same launch wins */

/* ---- accumulators: exact up to ACC_KEEP values, then a reservoir ---- */

struct acc {
	double *v;
	uint32_t n, cap;
	uint64_t seen;
	double min, max, sum;
	uint64_t rng, next;	/* reservoir: the next value that replaces one */
	double w;
};

/* xorshift64: deterministic, so a run is reproducible */
static uint64_t
acc_rand(struct acc *a)
{
	a->rng ^= a->rng << 13;
	a->rng ^= a->rng >> 7;
	a->rng ^= a->rng << 17;
	return a->rng;
}

static double
acc_unit(struct acc *a)		/* uniform in (0, 1) */
{
	return ((double)(acc_rand(a) >> 11) + 0.5) / 9007199254740992.0;
}

/* Algorithm L (Li 1994): skip straight to the next value that enters the
 * sample, so a full accumulator costs a compare per value, not a division. */
static void
acc_skip(struct acc *a)
{
	a->next += (uint64_t)floor(log(acc_unit(a)) / log1p(-a->w)) + 1;
}

static int
acc_add(struct acc *a, double x)
{
	if (a->seen == 0) {
		a->min = a->max = x;
		a->rng = 0x9e3779b97f4a7c15ULL;
	} else {
		if (x < a->min)
			a->min = x;
		if (x > a->max)
			a->max = x;
	}
	a->seen++;
	a->sum += x;
	if (a->n == ACC_KEEP) {
		if (a->seen == a->next) {
			a->v[acc_rand(a) % ACC_KEEP] = x;
			a->w *= exp(log(acc_unit(a)) / ACC_KEEP);
			acc_skip(a);
		}
		return 0;
	}
	if (a->n == a->cap) {
		uint32_t cap = a->cap ? a->cap * 2 : 4;
		double *nv = realloc(a->v, cap * sizeof(*nv));

		if (nv == NULL)
			return -1;
		a->v = nv;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	if (a->n == ACC_KEEP) {
		a->w = exp(log(acc_unit(a)) / ACC_KEEP);
		a->next = a->seen;
		acc_skip(a);
	}
	return 0;
}

static void
swapd(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* The k-th smallest of v[0..n) (quickselect, reorders v). */
static double
select_k(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double p = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				swapd(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

static double
median(double *v, size_t n)
{
	double hi = select_k(v, n, n / 2), lo;
	size_t i;

	if (n % 2)
		return hi;
	lo = v[0];	/* the largest of the lower half */
	for (i = 1; i < n / 2; i++)
		if (v[i] > lo)
			lo = v[i];
	return (lo + hi) / 2;
}

/* ---- kernels and their metrics ---- */

struct metric {
	char *name;
	char *unit;		/* base unit, or the unknown unit as printed */
	uint64_t hash;		/* of name: kept for the table's growth and probes */
	int known;
};

/*
 * A metric's value in a kept launch, in 32 bits: CELL_ABSENT; a decimal
 * number as printed in base units (bit 30 sign, bits 26-29 the digits after
 * the point, bits 0-25 all the digits), decoded by the same exact division
 * the parser does; or CELL_ESC | i, the i-th double of the block (any other
 * number, already scaled).  Most ncu values fit the decimal form, so a launch
 * of 2,238 metrics is ~10 KB instead of ~18 KB of doubles.
 */
#define CELL_ABSENT 0xffffffffu
#define CELL_ESC 0x80000000u
#define CELL_NEG 0x40000000u
#define CELL_MANT 0x03ffffffu

struct block {			/* one kept launch */
	uint32_t cap;		/* bytes after the header */
	uint32_t ncells, nover;
	uint32_t heap;		/* from malloc (a replacement), else in the arena */
	double over[];		/* nover doubles, then ncells cells */
};

struct idrange {
	long long lo, hi;
};

struct kernel {
	char *name;
	size_t namelen;
	uint64_t hash;
	long block[3], grid[3];
	int have_block, have_grid;
	char *device, *cc;
	size_t launches;	/* (file, ID) launches */
	double total_dur;
	struct acc *keys;	/* by key id */
	size_t nkeys;
	struct metric *m;
	size_t nm, mcap;
	struct block **samp;	/* the kept launches, at most ACC_KEEP */
	uint32_t nsamp;
	uint64_t rng, next;	/* launch reservoir, as in struct acc */
	double w;
	uint32_t *mslot;	/* open addressing: index + 1, 0 empty */
	size_t mslots;
	struct idrange *ids;	/* distinct IDs, sorted ranges */
	size_t nids, idcap;
	char **unknown;
	size_t nunknown;
	int *colmap;		/* raw page: column -> metric index, for file colfile */
	size_t colfile;
	char *jname;		/* the name as a JSON string, for metrics_extracted.jsonl */
	int jstate;		/* 0 not yet, 1 jname set, -1 jansson refuses the name */
	double *med;		/* kernel_medians(): by metric index */
	struct metric **order;	/* the metrics with a value, by name */
	size_t nmed;
};

struct col {			/* a metric column of a raw page */
	double scale;
	char *unit;
	int known;
	int key, rank, sum;	/* summary source, key -1 when none */
};

struct launch {
	int open;
	int keep;		/* in the kernel's sample: cells are stored */
	long long id;
	struct kernel *k;
	uint32_t *cells;
	size_t ncells, cellcap;
	double *over;
	size_t nover, overcap;
	double *val;
	int *rank;		/* -1: not set */
	json_t *all;
};

struct ex {
	struct kp_arena arena;	/* the kernels' sample blocks */
	int short_maps;		/* kernels' metrics: the key ones (metrics_all.json has all) */
	struct kernel **k;
	size_t nk, kcap;
	struct kernel **kslot;
	size_t kslots;
	char **keyname;		/* key id -> name ("stalls.<reason>" for stalls) */
	size_t nkeys, keycap;
	int all_metrics;
	int (*emit)(json_t *rec, void *arg, struct kp_err *err);
	void *arg;
	json_t *inputs;
	/* the file being read */
	const char *path;
	size_t file;
	struct col *cols;
	size_t ncols;
	size_t *keycols;	/* the columns that feed summary keys */
	size_t nkeycols;
	struct launch l;
	size_t file_launches;
	/* metrics_extracted.jsonl written here without jansson (jsonl_launch) */
	FILE *jfp;
	const char *jfpath;
	char *jpd;		/* profile_dir as a JSON string, or NULL */
	char *jpath;		/* the file being read as a JSON string */
	int jpath_state;	/* as kernel.jstate */
	char **jkey;		/* key id -> JSON string of its name under summary[.stalls] */
	size_t *korder;		/* key ids in jansson's sorted order */
	size_t nkorder;		/* keys that jkey and korder cover */
	int jkeys_bad;		/* a key that jansson would refuse: use jansson */
	char *out;		/* one record */
	size_t outcap;
};

static uint64_t
hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h;
}

static int
nomem(struct kp_err *err)
{
	return kp_errf(err, KP_EXIT_ENV, "out of memory");
}

/* Intern a summary key; its id or -1. */
static int
key_id(struct ex *x, const char *name)
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
	size_t n = strlen(metric), pl = strlen(STALL_PRE), sl = strlen(STALL_SUF);
	char buf[256];

	if (n <= pl + sl || n - pl - sl >= sizeof(buf) - 8 ||
	    strncmp(metric, STALL_PRE, pl) != 0 || strcmp(metric + n - sl, STALL_SUF) != 0)
		return -2;
	snprintf(buf, sizeof(buf), "stalls.%.*s", (int)(n - pl - sl), metric + pl);
	return key_id(x, buf);
}

/* The summary source of a raw metric name: key id (-2 none, -1 nomem). */
static int
raw_source(struct ex *x, const char *metric, int *rank, int *sum)
{
	size_t i;

	*rank = 0;
	*sum = 0;
	for (i = 0; i < sizeof(raw_sources) / sizeof(raw_sources[0]); i++)
		if (strcmp(raw_sources[i].metric, metric) == 0) {
			*rank = raw_sources[i].rank;
			*sum = raw_sources[i].sum;
			return raw_sources[i].key;
		}
	return stall_key(x, metric);
}

int
kp_metric_feeds_summary(const char *metric)
{
	size_t i, n = strlen(metric), pl = strlen(STALL_PRE), sl = strlen(STALL_SUF);

	for (i = 0; i < sizeof(raw_sources) / sizeof(raw_sources[0]); i++)
		if (strcmp(raw_sources[i].metric, metric) == 0)
			return 1;
	return n > pl + sl && strncmp(metric, STALL_PRE, pl) == 0 &&
	    strcmp(metric + n - sl, STALL_SUF) == 0;
}

static int
display_source(const char *section, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(display_sources) / sizeof(display_sources[0]); i++)
		if (strcmp(display_sources[i].section, section) == 0 &&
		    strcmp(display_sources[i].name, name) == 0)
			return display_sources[i].key;
	return -2;
}

static void
kernel_free(struct kernel *k)
{
	size_t i;

	if (k == NULL)
		return;
	for (i = 0; i < k->nm; i++) {
		free(k->m[i].name);
		free(k->m[i].unit);
	}
	for (i = 0; i < k->nsamp; i++)
		if (k->samp[i] != NULL && k->samp[i]->heap)
			free(k->samp[i]);
	free(k->samp);
	for (i = 0; i < k->nkeys; i++)
		free(k->keys[i].v);
	for (i = 0; i < k->nunknown; i++)
		free(k->unknown[i]);
	free(k->unknown);
	free(k->keys);
	free(k->m);
	free(k->mslot);
	free(k->ids);
	free(k->colmap);
	free(k->device);
	free(k->cc);
	free(k->jname);
	free(k->med);
	free(k->order);
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

static struct kernel *
kernel_get(struct ex *x, const char *name, size_t len)
{
	uint64_t h = hash(name, len);
	struct kernel *k;
	size_t j;

	if (x->kslots == 0 && kslot_grow(x) < 0)
		return NULL;
	for (j = h & (x->kslots - 1); (k = x->kslot[j]) != NULL; j = (j + 1) & (x->kslots - 1))
		if (k->hash == h && k->namelen == len && memcmp(k->name, name, len) == 0)
			return k;
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
			kernel_free(k);
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
mslot_grow(struct kernel *k)
{
	size_t n = k->mslots ? k->mslots * 2 : 256, i;
	uint32_t *ns = calloc(n, sizeof(*ns));

	if (ns == NULL)
		return -1;
	for (i = 0; i < k->nm; i++) {
		size_t j = k->m[i].hash & (n - 1);

		while (ns[j] != 0)
			j = (j + 1) & (n - 1);
		ns[j] = (uint32_t)i + 1;
	}
	free(k->mslot);
	k->mslot = ns;
	k->mslots = n;
	return 0;
}

/* The index of a kernel's metric, created with its unit; -1 out of memory. */
static long
metric_get(struct kernel *k, const char *name, const char *unit, int known)
{
	uint64_t h = hash(name, strlen(name));
	size_t j;
	struct metric *m;

	if (k->mslots == 0 && mslot_grow(k) < 0)
		return -1;
	for (j = h & (k->mslots - 1); k->mslot[j] != 0; j = (j + 1) & (k->mslots - 1)) {
		m = &k->m[k->mslot[j] - 1];
		if (m->hash == h && strcmp(m->name, name) == 0)
			return (long)k->mslot[j] - 1;
	}
	if (k->nm == k->mcap) {
		size_t cap = k->mcap ? k->mcap * 2 : 64;
		struct metric *nm = realloc(k->m, cap * sizeof(*nm));

		if (nm == NULL)
			return -1;
		k->m = nm;
		k->mcap = cap;
	}
	m = &k->m[k->nm];
	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	m->unit = strdup(unit);
	m->hash = h;
	m->known = known;
	if (m->name == NULL || m->unit == NULL) {
		free(m->name);
		free(m->unit);
		return -1;
	}
	k->mslot[j] = (uint32_t)++k->nm;
	if (k->nm * 2 > k->mslots && mslot_grow(k) < 0)
		return -1;
	return (long)k->nm - 1;
}

static int
kernel_unknown_unit(struct kernel *k, const char *unit)
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

static int
kernel_add_id(struct kernel *k, long long id)
{
	size_t lo = 0, hi = k->nids, i;

	/* the common case: the next ID after the last range */
	if (k->nids > 0 && k->ids[k->nids - 1].hi + 1 == id) {
		k->ids[k->nids - 1].hi = id;
		return 0;
	}
	while (lo < hi) {	/* first range with hi >= id - 1 */
		size_t mid = (lo + hi) / 2;

		if (k->ids[mid].hi < id - 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	if (i < k->nids && k->ids[i].lo <= id + 1) {
		if (id < k->ids[i].lo)
			k->ids[i].lo = id;
		if (id > k->ids[i].hi) {
			k->ids[i].hi = id;
			if (i + 1 < k->nids && k->ids[i + 1].lo == id + 1) {
				k->ids[i].hi = k->ids[i + 1].hi;
				memmove(&k->ids[i + 1], &k->ids[i + 2],
				    (k->nids - i - 2) * sizeof(*k->ids));
				k->nids--;
			}
		}
		return 0;
	}
	if (k->nids == k->idcap) {
		size_t cap = k->idcap ? k->idcap * 2 : 4;
		struct idrange *n = realloc(k->ids, cap * sizeof(*n));

		if (n == NULL)
			return -1;
		k->ids = n;
		k->idcap = cap;
	}
	memmove(&k->ids[i + 1], &k->ids[i], (k->nids - i) * sizeof(*k->ids));
	k->ids[i].lo = k->ids[i].hi = id;
	k->nids++;
	return 0;
}

static int
kernel_keys_fit(struct ex *x, struct kernel *k)
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

/* ---- numbers as JSON ---- */

static json_t *
jnum(double v)
{
	if (isfinite(v) && v == rint(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	if (!isfinite(v))
		return json_null();
	return json_real(v);
}

static int
jset(json_t *o, const char *key, json_t *v)
{
	return v == NULL ? -1 : json_object_set_new(o, key, v);
}

/* Put value under "key" or, for "stalls.reason", under o["stalls"]["reason"]. */
static int
jset_key(json_t *o, const char *key, json_t *v)
{
	json_t *s;

	if (strncmp(key, "stalls.", 7) != 0)
		return jset(o, key, v);
	if ((s = json_object_get(o, "stalls")) == NULL) {
		if (jset(o, "stalls", json_object()) < 0) {
			json_decref(v);
			return -1;
		}
		s = json_object_get(o, "stalls");
	}
	return jset(s, key + 7, v);
}

/* ---- launches ---- */

static void
launch_reset(struct ex *x)
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
}

/* Cells up to metric m, the new ones absent; -1 out of memory. */
static int
cells_fit(struct launch *l, size_t m)
{
	if (m < l->ncells)
		return 0;
	if (m >= l->cellcap) {
		size_t cap = l->cellcap ? l->cellcap : 256;
		uint32_t *nc;

		while (m >= cap)
			cap *= 2;
		if ((nc = realloc(l->cells, cap * sizeof(*nc))) == NULL)
			return -1;
		l->cells = nc;
		l->cellcap = cap;
	}
	memset(l->cells + l->ncells, 0xff, (m + 1 - l->ncells) * sizeof(*l->cells));
	l->ncells = m + 1;
	return 0;
}

static const double p10[16] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };

static double
cell_value(const struct block *b, uint32_t c)
{
	double v;

	if (c & CELL_ESC)
		return b->over[c & ~CELL_ESC];
	v = (double)(c & CELL_MANT) / p10[(c >> 26) & 15];
	return c & CELL_NEG ? -v : v;
}

/*
 * [-]digits with commas and one point: the correctly rounded double, as
 * strtod gives it.  Digits below 2^53 with at most 22 after the point: one
 * division of exact doubles (Clinger's fast path); up to 2^64:
 * kp_decimal_exact(); -1 otherwise.
 */
static int
wide_decimal(const char *s, size_t len, double *out)
{
	static const double e[] = { 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
	size_t i = s[0] == '-';
	uint64_t acc = 0;
	unsigned nfrac = 0, dot = 0;

	int wide = 0;

	for (; i < len; i++) {
		uint64_t d = (uint64_t)(unsigned char)s[i] - '0';

		if (d < 10) {
			if (acc > (UINT64_MAX - 9) / 10)
				return -1;
			acc = acc * 10 + d;
			nfrac += dot;
			wide |= acc >= (uint64_t)1 << 53;
		} else if (s[i] == '.' && !dot) {
			dot = 1;
		} else if (s[i] != ',' || dot) {
			return -1;
		}
	}
	if (!wide && nfrac <= 22)
		*out = (double)acc / (nfrac < 16 ? p10[nfrac] : e[nfrac - 16]);
	else if (kp_decimal_exact(acc, nfrac, out) < 0)
		return -1;
	if (s[0] == '-')
		*out = -*out;
	return 0;
}

/*
 * The rest of cell_parse: a decimal too wide for a cell, a scaled unit, or
 * anything kp_parse_number takes; the value is kept as a double of the launch.
 */
static int
cell_slow(struct launch *l, const char *s, size_t len, double scale, int wide,
    uint32_t *cell, double *out)
{
	double v;

	if (!(wide && wide_decimal(s, len, &v) == 0)) {
		if (kp_parse_number(s, len, &v) != KP_NUM_OK || !isfinite(v))
			return 0;
		v *= scale;
	}
	*out = v;
	if (!l->keep)
		return 1;
	if (l->nover == l->overcap) {
		size_t cap = l->overcap ? l->overcap * 2 : 64;
		double *no = realloc(l->over, cap * sizeof(*no));

		if (no == NULL)
			return -1;
		l->over = no;
		l->overcap = cap;
	}
	*cell = CELL_ESC | (uint32_t)l->nover;
	l->over[l->nover++] = v;
	return 1;
}

/*
 * A numeric cell, scaled: 1 with its cell and value, 0 when it is not a
 * number (kp_parse_number), -1 out of memory.  The fast path, small enough
 * to be inlined in the row loop, takes what ncu prints in base units
 * ([-]digits with thousands commas and one point, up to 2^26 - 1 in all);
 * its value, one correctly rounded division of exact doubles, is the one
 * kp_parse_number and strtod give.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
cell_parse(struct launch *l, const char *s, size_t len, double scale, uint32_t *cell,
    double *out)
{
	size_t i = 0;
	uint32_t acc = 0, nfrac = 0, neg = 0, dot = 0;
	double v;

	if (scale != 1.0 || len == 0)
		return cell_slow(l, s, len, scale, 0, cell, out);
	if (s[0] == '-')
		neg = i = 1;
	if (i == len || (unsigned)(unsigned char)s[i] - '0' >= 10)
		return cell_slow(l, s, len, scale, 0, cell, out);
	for (; i < len; i++) {
		uint32_t d = (uint32_t)(unsigned char)s[i] - '0';

		if (d < 10) {
			acc = acc * 10 + d;
			nfrac += dot;
			if (acc > CELL_MANT)
				break;
		} else if (s[i] == '.' && !dot) {
			dot = 1;
		} else if (s[i] != ',' || dot) {
			break;
		}
	}
	if (i < len || nfrac >= 16)
		return cell_slow(l, s, len, scale, i < len && acc > CELL_MANT, cell, out);
	*cell = neg << 30 | nfrac << 26 | acc;
	v = (double)acc / p10[nfrac];
	*out = neg ? -v : v;
	return 1;
}

/* Algorithm L over a kernel's launches, as acc_skip */
static uint64_t
k_rand(struct kernel *k)
{
	k->rng ^= k->rng << 13;
	k->rng ^= k->rng >> 7;
	k->rng ^= k->rng << 17;
	return k->rng;
}

static double
k_unit(struct kernel *k)
{
	return ((double)(k_rand(k) >> 11) + 0.5) / 9007199254740992.0;
}

static void
k_skip(struct kernel *k)
{
	k->next += (uint64_t)floor(log(k_unit(k)) / log1p(-k->w)) + 1;
}

/*
 * Keep the launch's cells in the kernel's sample; -1 out of memory.  The
 * first ACC_KEEP blocks come from the arena; a replacement reuses its slot's
 * block when it fits, else takes one from malloc (freed when replaced), so
 * memory stays bounded however many launches are replaced.
 */
static int
launch_keep(struct launch *l, struct kernel *k, struct kp_arena *arena)
{
	size_t slot, need = l->nover * sizeof(double) + l->ncells * sizeof(uint32_t);
	struct block *b;

	if (k->nsamp < ACC_KEEP) {
		if (k->samp == NULL && (k->samp = calloc(ACC_KEEP, sizeof(*k->samp))) == NULL)
			return -1;
		slot = k->nsamp;
	} else {
		slot = k_rand(k) % ACC_KEEP;
	}
	b = k->samp[slot];
	if (need > UINT32_MAX / 2)
		return -1;
	if (b == NULL && (b = kp_arena_alloc(arena, sizeof(*b) + need)) != NULL) {
		b->cap = (uint32_t)need;
		b->heap = 0;
		k->samp[slot] = b;
	}
	if (b == NULL || b->cap < need) {
		struct block *nb = malloc(sizeof(*nb) + need);

		if (nb == NULL)
			return -1;
		if (b != NULL && b->heap)
			free(b);
		b = nb;
		b->cap = (uint32_t)need;
		b->heap = 1;
		k->samp[slot] = b;
	}
	b->ncells = (uint32_t)l->ncells;
	b->nover = (uint32_t)l->nover;
	if (l->nover > 0)
		memcpy(b->over, l->over, l->nover * sizeof(double));
	if (l->ncells > 0)
		memcpy(b->over + l->nover, l->cells, l->ncells * sizeof(uint32_t));
	if (k->nsamp < ACC_KEEP) {
		if (++k->nsamp == ACC_KEEP) {
			k->rng = 0x9e3779b97f4a7c15ULL;
			k->w = exp(log(k_unit(k)) / ACC_KEEP);
			k->next = k->launches + 1;
			k_skip(k);
		}
	} else {
		k->w *= exp(log(k_unit(k)) / ACC_KEEP);
		k_skip(k);
	}
	return 0;
}

static void
launch_put(struct ex *x, int key, int rank, int sum, double v)
{
	if (x->l.rank[key] < 0) {
		x->l.val[key] = v;
		x->l.rank[key] = rank;
	} else if (sum) {
		x->l.val[key] += v;
	} else if (rank < x->l.rank[key]) {
		x->l.val[key] = v;
		x->l.rank[key] = rank;
	}
}

static int
launch_start(struct ex *x, struct kernel *k, long long id, struct kp_err *err)
{
	launch_reset(x);
	x->l.open = 1;
	x->l.k = k;
	x->l.id = id;
	/* launches counts the ones before this one */
	x->l.keep = k->nsamp < ACC_KEEP || k->launches + 1 == k->next;
	if (x->l.keep && k->nm > 0 && cells_fit(&x->l, k->nm - 1) < 0)
		return nomem(err);
	if (x->all_metrics && (x->l.all = json_object()) == NULL)
		return nomem(err);
	return 0;
}

/*
 * ---- metrics_extracted.jsonl without jansson ----
 *
 * A launch record is always the same few keys, so it is formatted here into
 * one buffer and written with one fwrite, byte for byte as
 * json_dumpf(JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) writes
 * it: strings are escaped once, by jansson itself, and kept; summary keys
 * are kept in jansson's sorted order; numbers follow jnum() and jansson's
 * real format.  Anything jansson would refuse (a name that is not UTF-8)
 * leaves the record to the jansson path, which reports it as before.
 */

/* s as jansson writes it as a JSON string, malloc'd; NULL if it refuses. */
static char *
jesc(const char *s)
{
	json_t *j = json_string(s);
	char *d;

	if (j == NULL)
		return NULL;
	d = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
	json_decref(j);
	return d;
}

/* jansson's key order (strcmp), "stalls.x" sorting as "stalls", then "x" */
static int
keycmp(const char *a, const char *b)
{
	int sa = strncmp(a, "stalls.", 7) == 0, sb = strncmp(b, "stalls.", 7) == 0, r;

	r = strcmp(sa ? "stalls" : a, sb ? "stalls" : b);
	return r != 0 || !sa || !sb ? r : strcmp(a + 7, b + 7);
}

/* Escape and sort the keys added since the last call; -1 out of memory. */
static int
jkeys_update(struct ex *x)
{
	size_t j, id;
	char **nk;
	size_t *no;

	if ((nk = realloc(x->jkey, x->nkeys * sizeof(*nk))) == NULL)
		return -1;
	x->jkey = nk;
	if ((no = realloc(x->korder, x->nkeys * sizeof(*no))) == NULL)
		return -1;
	x->korder = no;
	for (; x->nkorder < x->nkeys; x->nkorder++) {
		const char *name = x->keyname[x->nkorder];

		if (strcmp(name, "stalls") == 0)
			x->jkeys_bad = 1;
		if ((x->jkey[x->nkorder] = jesc(strncmp(name, "stalls.", 7) == 0 ?
		    name + 7 : name)) == NULL)
			x->jkeys_bad = 1;
		/* insertion into the sorted ids: a few dozen keys */
		id = x->nkorder;
		for (j = id; j > 0 && keycmp(x->keyname[x->korder[j - 1]], name) > 0; j--)
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
		k->jstate = (k->jname = jesc(k->name)) != NULL ? 1 : -1;
	if (x->jpath_state == 0)
		x->jpath_state = (x->jpath = jesc(x->path)) != NULL ? 1 : -1;
	if (x->nkorder != x->nkeys && jkeys_update(x) < 0)
		x->jkeys_bad = 1;
	return k->jstate == 1 && x->jpath_state == 1 && !x->jkeys_bad;
}

static char *
put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

static char *
put_ll(char *p, long long v)
{
	char t[24], *e = t + sizeof(t);
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
	size_t n;

	do
		*--e = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*p++ = '-';
	n = (size_t)(t + sizeof(t) - e);
	memcpy(p, e, n);
	return p + n;
}

/* jansson's real: "%.15g", ".0" if it looks like an integer, no '+' or
 * leading zeros in the exponent (jsonp_dtostr) */
static char *
put_real_printf(char *p, double v)
{
	char buf[100], *start, *end;
	size_t len;

	len = (size_t)snprintf(buf, sizeof(buf), "%.15g", v);
	if (strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL) {
		buf[len++] = '.';
		buf[len++] = '0';
		buf[len] = '\0';
	}
	if ((start = strchr(buf, 'e')) != NULL) {
		start++;
		end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, len - (size_t)(end - buf));
			len -= (size_t)(end - start);
		}
	}
	memcpy(p, buf, len);
	return p + len;
}

/*
 * A finite non-integral double as jansson writes it with precision 15.  The
 * fast case: |v| is the double nearest to r / 10^k, r < 10^15; "%.15g" then
 * prints exactly that decimal (15 digits survive decimal -> double ->
 * decimal), and the first such k has no trailing zero.  Below 10^-4 "%g"
 * switches to an exponent: printf does those.
 */
static char *
put_real(char *p, double v)
{
	double a = fabs(v), r;
	char d[24];
	int k, nd, x;

	for (k = 1; k <= 15; k++) {
		r = rint(a * p10[k]);
		if (r >= 1e15)
			break;
		if (r / p10[k] != a)
			continue;
		nd = (int)(put_ll(d, (long long)r) - d);
		x = nd - 1 - k;	/* the decimal exponent */
		if (x < -4)
			break;
		if (v < 0)
			*p++ = '-';
		if (x >= 0) {
			memcpy(p, d, (size_t)x + 1);
			p += x + 1;
			*p++ = '.';
			memcpy(p, d + x + 1, (size_t)k);
			return p + k;
		}
		*p++ = '0';
		*p++ = '.';
		for (; x < -1; x++)
			*p++ = '0';
		memcpy(p, d, (size_t)nd);
		return p + nd;
	}
	return put_real_printf(p, v);
}

/* as jnum() then json_dumpf */
static char *
put_num(char *p, double v)
{
	if (isfinite(v) && v == rint(v) && fabs(v) < 9e15)
		return put_ll(p, (long long)v);
	if (!isfinite(v))
		return put_str(p, "null");
	return put_real(p, v);
}

/* The launch's record, as emit_file() would write it; -1 with err. */
static int
jsonl_launch(struct ex *x, struct kernel *k, struct kp_err *err)
{
	size_t i, need, n;
	char *p;
	int stalls = 0, first = 1, sfirst = 1;

	need = 160 + strlen(x->jpath) + strlen(k->jname) + (x->jpd ? strlen(x->jpd) : 0);
	for (i = 0; i < x->nkeys; i++)
		need += strlen(x->jkey[i]) + 40;
	if (need > x->outcap) {
		char *no = realloc(x->out, need);

		if (no == NULL)
			return nomem(err);
		x->out = no;
		x->outcap = need;
	}
	p = put_str(x->out, "{\"file\":");
	p = put_str(p, x->jpath);
	p = put_str(p, ",\"id\":");
	p = put_ll(p, x->l.id);
	p = put_str(p, ",\"kernel\":");
	p = put_str(p, k->jname);
	p = put_str(p, ",\"kind\":\"launch\",");
	if (x->jpd != NULL) {
		p = put_str(p, "\"profile_dir\":");
		p = put_str(p, x->jpd);
		*p++ = ',';
	}
	p = put_str(p, "\"summary\":{");
	for (i = 0; i < x->nkeys; i++) {
		size_t id = x->korder[i];
		int st;

		if (x->l.rank[id] < 0)
			continue;
		st = strncmp(x->keyname[id], "stalls.", 7) == 0;
		if (stalls && !st) {
			*p++ = '}';
			stalls = 0;
		}
		if (st && !stalls) {
			if (!first)
				*p++ = ',';
			first = 0;
			p = put_str(p, "\"stalls\":{");
			stalls = sfirst = 1;
		}
		if (st ? !sfirst : !first)
			*p++ = ',';
		if (st)
			sfirst = 0;
		else
			first = 0;
		p = put_str(p, x->jkey[id]);
		*p++ = ':';
		p = put_num(p, x->l.val[id]);
	}
	if (stalls)
		*p++ = '}';
	p = put_str(p, "}}\n");
	n = (size_t)(p - x->out);
	if (fwrite(x->out, 1, n, x->jfp) != n)
		return kp_errf(err, KP_EXIT_ENV, "%s: %s", x->jfpath, strerror(errno ? errno : EIO));
	return 0;
}

static int
launch_end(struct ex *x, struct kp_err *err)
{
	struct kernel *k = x->l.k;
	json_t *rec = NULL, *sum = NULL;
	size_t i;

	if (!x->l.open)
		return 0;
	if (kernel_keys_fit(x, k) < 0 || kernel_add_id(k, x->l.id) < 0 ||
	    (x->l.keep && launch_keep(&x->l, k, &x->arena) < 0))
		return nomem(err);
	k->launches++;
	x->file_launches++;
	if (x->jfp != NULL && x->l.all == NULL && jsonl_ready(x, k)) {
		int r;

		for (i = 0; i < x->nkeys; i++) {
			if (x->l.rank[i] < 0)
				continue;
			if (acc_add(&k->keys[i], x->l.val[i]) < 0)
				return nomem(err);
			if (i == K_DURATION)
				k->total_dur += x->l.val[i];
		}
		r = jsonl_launch(x, k, err);
		launch_reset(x);
		return r;
	}
	if ((sum = json_object()) == NULL)
		return nomem(err);
	for (i = 0; i < x->nkeys; i++) {
		if (x->l.rank[i] < 0)
			continue;
		if (acc_add(&k->keys[i], x->l.val[i]) < 0 ||
		    jset_key(sum, x->keyname[i], jnum(x->l.val[i])) < 0)
			goto fail;
		if (i == K_DURATION)
			k->total_dur += x->l.val[i];
	}
	if ((rec = json_pack("{s:s, s:I, s:s, s:s, s:O}", "kind", "launch", "id",
	    (json_int_t)x->l.id, "kernel", k->name, "file", x->path, "summary", sum)) == NULL)
		goto fail;
	if (x->l.all != NULL && json_object_set(rec, "metrics", x->l.all) < 0)
		goto fail;
	json_decref(sum);
	launch_reset(x);
	if (x->emit != NULL && x->emit(rec, x->arg, err) < 0) {
		json_decref(rec);
		return -1;
	}
	json_decref(rec);
	return 0;
fail:
	json_decref(sum);
	json_decref(rec);
	return nomem(err);
}

static int
launch_all_metric(struct ex *x, const char *name, double v, const char *unit)
{
	if (x->l.all == NULL)
		return 0;
	return jset(x->l.all, name, json_pack("{s:o, s:s}", "value", jnum(v), "unit", unit));
}

/* ---- cells ---- */

static int
field_is(const struct kp_csv *c, size_t i, const char *s)
{
	const struct kp_field *f = kp_csv_field(c, i);

	return f != NULL && strcmp(f->s, s) == 0;
}

static long
header_index(const struct kp_csv *c, const char *name)
{
	size_t i;

	for (i = 0; i < kp_csv_nfields(c); i++)
		if (field_is(c, i, name))
			return (long)i;
	return -1;
}

/* What a first record says the file is. */
static const char *
page_of(const struct kp_csv *c)
{
	const struct kp_field *f0 = kp_csv_field(c, 0);

	if (field_is(c, 0, "ID") && field_is(c, 1, "Process ID")) {
		if (header_index(c, "Section Name") >= 0 && header_index(c, "Metric Name") >= 0 &&
		    header_index(c, "Metric Unit") >= 0 && header_index(c, "Metric Value") >= 0)
			return "details";
		return "raw";
	}
	if (f0 == NULL)
		return "unknown";
	if (strcmp(f0->s, "Kernel Name") == 0 || strcmp(f0->s, "File Path") == 0 ||
	    strcmp(f0->s, "Address") == 0 || strcmp(f0->s, "# Address") == 0 ||
	    strcmp(f0->s, "Line No") == 0 || strcmp(f0->s, "Source") == 0)
		return "source";
	if (field_is(c, 0, "Process ID") && header_index(c, "Invocations") >= 0)
		return "summary";
	if (strcmp(f0->s, "Launch Attribute") == 0)
		return "session";
	return "unknown";
}

static int
not_a_page(const struct kp_csv *c, const char *page, struct kp_err *err)
{
	const char *what = "not ncu CSV of the raw or details page";

	if (strcmp(page, "source") == 0)
		what = "an ncu source page (--page source), not the raw or details page";
	else if (strcmp(page, "summary") == 0)
		what = "an ncu --print-summary page, not the raw or details page";
	else if (strcmp(page, "session") == 0)
		what = "an ncu session page (--page session), not the raw or details page";
	return kp_errf(err, KP_EXIT_DATA, "%s:%lu: %s", kp_csv_name(c), kp_csv_line(c), what);
}

static int
no_records(const struct kp_csv *c, struct kp_err *err)
{
	const char *e = kp_csv_last_error_line(c);

	if (e != NULL && strncmp(e, "==ERROR==", 9) == 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: no CSV: ncu reported: %s",
		    kp_csv_name(c), kp_csv_noise_lines(c), e);
	if (kp_csv_noise_lines(c) == 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:1: empty file", kp_csv_name(c));
	return kp_errf(err, KP_EXIT_DATA, "%s:%lu: no CSV records (%lu lines of other output%s%s)",
	    kp_csv_name(c), kp_csv_noise_lines(c), kp_csv_noise_lines(c),
	    e ? "; last: " : "", e ? e : "");
}

static int
parse_id(const struct kp_csv *c, size_t i, long long *id, struct kp_err *err)
{
	const struct kp_field *f = kp_csv_field(c, i);
	double v;

	if (f == NULL || kp_parse_number(f->s, f->len, &v) != KP_NUM_OK || v != rint(v) ||
	    v < 0 || v > 9e15)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: bad launch ID \"%s\"", kp_csv_name(c),
		    kp_csv_line(c), f ? f->s : "");
	*id = (long long)v;
	return 0;
}

/* The launch-level columns every page has: kernel, block, grid, device, cc. */
struct fixed {
	long id, name, block, grid, cc, device;
};

static void
fixed_find(const struct kp_csv *c, struct fixed *fx)
{
	fx->id = header_index(c, "ID");
	fx->name = header_index(c, "Kernel Name");
	fx->block = header_index(c, "Block Size");
	fx->grid = header_index(c, "Grid Size");
	fx->cc = header_index(c, "CC");
	fx->device = header_index(c, "device__attribute_display_name");
}

static int
kernel_fill(struct kernel *k, const struct kp_csv *c, const struct fixed *fx)
{
	const struct kp_field *f;

	if (!k->have_block && fx->block >= 0 && (f = kp_csv_field(c, (size_t)fx->block)) != NULL)
		k->have_block = kp_parse_dim3(f->s, k->block) == 0;
	if (!k->have_grid && fx->grid >= 0 && (f = kp_csv_field(c, (size_t)fx->grid)) != NULL)
		k->have_grid = kp_parse_dim3(f->s, k->grid) == 0;
	if (k->cc == NULL && fx->cc >= 0 && (f = kp_csv_field(c, (size_t)fx->cc)) != NULL &&
	    f->len > 0 && (k->cc = strdup(f->s)) == NULL)
		return -1;
	if (k->device == NULL && fx->device >= 0 &&
	    (f = kp_csv_field(c, (size_t)fx->device)) != NULL && f->len > 0 &&
	    (k->device = strdup(f->s)) == NULL)
		return -1;
	return 0;
}

/* The kernel of a row; the last one is cached (rows of a kernel come together). */
static struct kernel *
row_kernel(struct ex *x, const struct kp_csv *c, const struct fixed *fx, struct kp_err *err)
{
	const struct kp_field *f = kp_csv_field(c, (size_t)fx->name);
	struct kernel *k;

	if (f == NULL || f->len == 0) {
		kp_errf(err, KP_EXIT_DATA, "%s:%lu: no kernel name", kp_csv_name(c),
		    kp_csv_line(c));
		return NULL;
	}
	if (kp_utf8_check(f->s, f->len) != f->len) {
		/* JSON cannot hold it: say so, instead of "out of memory" later */
		kp_errf(err, KP_EXIT_DATA, "%s:%lu: kernel name is not valid UTF-8", kp_csv_name(c),
		    kp_csv_line(c));
		return NULL;
	}
	if ((k = kernel_get(x, f->s, f->len)) == NULL || kernel_fill(k, c, fx) < 0)
		nomem(err);
	return k;
}

/* ---- the raw page ---- */

static void
cols_free(struct ex *x)
{
	size_t i;

	for (i = 0; i < x->ncols; i++)
		free(x->cols[i].unit);
	free(x->cols);
	x->cols = NULL;
	x->ncols = 0;
	free(x->keycols);
	x->keycols = NULL;
	x->nkeycols = 0;
}

static int
raw_units(struct ex *x, struct kp_csv *c, char **hdr, size_t nh, size_t first,
    struct kp_err *err)
{
	/* a page has thousands of columns and a few dozen distinct units */
	struct { const char *s; struct kp_unit u; } seen[32];
	size_t i, j, nseen = 0;

	if ((x->cols = calloc(nh, sizeof(*x->cols))) == NULL ||
	    (x->keycols = calloc(nh, sizeof(*x->keycols))) == NULL)
		return nomem(err);
	x->ncols = nh;
	for (i = 0; i < nh; i++) {
		const struct kp_field *f = kp_csv_field(c, i);
		struct kp_unit u;
		struct col *cl = &x->cols[i];

		cl->key = -2;
		if (i < first)
			continue;
		for (j = 0; j < nseen && strcmp(seen[j].s, f->s) != 0; j++)
			;
		if (j < nseen)
			u = seen[j].u;
		else {
			kp_unit_parse(f->s, &u);
			if (nseen < sizeof seen / sizeof seen[0]) {
				seen[nseen].s = f->s;	/* the units record stays in place */
				seen[nseen++].u = u;
			}
		}
		cl->scale = u.scale;
		cl->known = u.known;
		if ((cl->unit = strdup(u.known ? u.base : f->s)) == NULL)
			return nomem(err);
		if ((cl->key = raw_source(x, hdr[i], &cl->rank, &cl->sum)) == -1)
			return nomem(err);
		if (cl->key >= 0)
			x->keycols[x->nkeycols++] = i;
	}
	return 0;
}

static int
raw_colmap(struct kernel *k, struct ex *x, char **hdr, size_t first, struct kp_err *err)
{
	size_t i;

	free(k->colmap);
	if ((k->colmap = malloc(x->ncols * sizeof(*k->colmap))) == NULL)
		return nomem(err);
	for (i = 0; i < x->ncols; i++) {
		long m = -1;

		if (i >= first && (m = metric_get(k, hdr[i], x->cols[i].unit,
		    x->cols[i].known)) < 0)
			return nomem(err);
		k->colmap[i] = (int)m;
		if (i >= first && !x->cols[i].known &&
		    kernel_unknown_unit(k, x->cols[i].unit) < 0)
			return nomem(err);
	}
	k->colfile = x->file;
	return 0;
}

static int
raw_row(struct ex *x, struct kp_csv *c, const struct fixed *fx, char **hdr, size_t first,
    struct kp_err *err)
{
	size_t i, nf = kp_csv_nfields(c);
	const struct kp_field *fields;
	const struct col *cols;
	const int *colmap;
	uint32_t *cells;
	struct kernel *k;
	long long id;

	if (nf != x->ncols)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: %zu fields, the header has %zu "
		    "(truncated or not one ncu page?)", kp_csv_name(c), kp_csv_line(c), nf,
		    x->ncols);
	if (parse_id(c, (size_t)fx->id, &id, err) < 0 ||
	    (k = row_kernel(x, c, fx, err)) == NULL)
		return -1;
	if (k->colfile != x->file && raw_colmap(k, x, hdr, first, err) < 0)
		return -1;
	if (launch_start(x, k, id, err) < 0)
		return -1;
	if (!x->l.keep && x->l.all == NULL) {
		/* not in the sample: only the summary keys are needed */
		for (i = 0; i < x->nkeycols; i++) {
			const struct kp_field *f = kp_csv_field(c, x->keycols[i]);
			const struct col *cl = &x->cols[x->keycols[i]];
			uint32_t cell;
			double v;

			if (cell_parse(&x->l, f->s, f->len, cl->scale, &cell, &v) > 0)
				launch_put(x, cl->key, cl->rank, cl->sum, v);
		}
		return launch_end(x, err);
	}
	/* the hot loop: every cell of a kept launch (locals: no reloads through x) */
	fields = kp_csv_field(c, 0);
	cols = x->cols;
	colmap = k->colmap;
	cells = x->l.keep ? x->l.cells : NULL;
	for (i = first; i < nf; i++) {
		const struct kp_field *f = &fields[i];
		const struct col *cl = &cols[i];
		uint32_t cell;
		double v;
		int r;

		if ((r = cell_parse(&x->l, f->s, f->len, cl->scale, &cell, &v)) == 0)
			continue;
		if (r < 0)
			return nomem(err);
		if (cells != NULL)
			cells[colmap[i]] = cell;
		if (cl->key >= 0)
			launch_put(x, cl->key, cl->rank, cl->sum, v);
		if (x->l.all != NULL && launch_all_metric(x, hdr[i], v, cl->unit) < 0)
			return nomem(err);
	}
	return launch_end(x, err);
}

static int
read_raw(struct ex *x, struct kp_csv *c, struct kp_err *err)
{
	struct fixed fx;
	size_t nh = kp_csv_nfields(c), i, first;
	char **hdr;
	int r, rc = -1;

	fixed_find(c, &fx);
	if (fx.name < 0 || fx.id < 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: raw page without a \"Kernel Name\" "
		    "column", kp_csv_name(c), kp_csv_line(c));
	if ((hdr = calloc(nh, sizeof(*hdr))) == NULL)
		return nomem(err);
	/* Metric columns follow "CC" (the launch columns come first). */
	first = fx.cc >= 0 ? (size_t)fx.cc + 1 : (size_t)fx.name + 1;
	for (i = 0; i < nh; i++)
		if ((hdr[i] = strdup(kp_csv_field(c, i)->s)) == NULL) {
			nomem(err);
			goto out;
		}
	if ((r = kp_csv_next(c, err)) < 0)
		goto out;
	if (r == 0 || kp_csv_nfields(c) != nh || kp_csv_field(c, (size_t)fx.id)->len != 0) {
		kp_errf(err, KP_EXIT_DATA, "%s:%lu: raw page without its units row (truncated?)",
		    kp_csv_name(c), kp_csv_line(c));
		goto out;
	}
	if (raw_units(x, c, hdr, nh, first, err) < 0)
		goto out;
	while ((r = kp_csv_next(c, err)) == 1)
		if (raw_row(x, c, &fx, hdr, first, err) < 0)
			goto out;
	if (r == 0)
		rc = 0;
out:
	for (i = 0; i < nh; i++)
		free(hdr[i]);
	free(hdr);
	cols_free(x);
	return rc;
}

/* ---- the details page ---- */

struct details {
	struct fixed fx;
	long sec, name, unit, value;
	char lastunit[64];
	struct kp_unit u;
	char key[512];
};

static int
details_row(struct ex *x, struct kp_csv *c, struct details *d, struct kp_err *err)
{
	const struct kp_field *sec, *name, *unit, *val;
	struct kernel *k;
	long long id;
	double v;
	long m;
	uint32_t cell = CELL_ABSENT;
	int key, rank = DISPLAY_RANK, sum = 0;

	if (parse_id(c, (size_t)d->fx.id, &id, err) < 0)
		return -1;
	if (kp_csv_nfields(c) <= (size_t)d->name)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: %zu fields, too few for a details "
		    "row (truncated?)", kp_csv_name(c), kp_csv_line(c), kp_csv_nfields(c));
	if (!x->l.open || x->l.id != id) {
		if (launch_end(x, err) < 0 || (k = row_kernel(x, c, &d->fx, err)) == NULL ||
		    launch_start(x, k, id, err) < 0)
			return -1;
	}
	k = x->l.k;
	sec = kp_csv_field(c, (size_t)d->sec);
	name = kp_csv_field(c, (size_t)d->name);
	unit = kp_csv_field(c, (size_t)d->unit);
	val = kp_csv_field(c, (size_t)d->value);
	if (val == NULL || name->len == 0 || kp_parse_number(val->s, val->len, &v) != KP_NUM_OK ||
	    !isfinite(v))
		return 0;	/* a rule row, or a value that is not a number */
	if (unit == NULL)
		unit = val;	/* never: Metric Unit precedes Metric Value */
	if (strcmp(unit->s, d->lastunit) != 0 || d->lastunit[0] == '\0') {
		kp_unit_parse(unit->s, &d->u);
		snprintf(d->lastunit, sizeof(d->lastunit), "%s", unit->s);
	}
	snprintf(d->key, sizeof(d->key), "%s/%s", sec->s, name->s);
	if ((m = metric_get(k, d->key, d->u.known ? d->u.base : unit->s, d->u.known)) < 0 ||
	    cell_parse(&x->l, val->s, val->len, d->u.scale, &cell, &v) < 0 ||
	    (x->l.keep && cells_fit(&x->l, (size_t)m) < 0))
		return nomem(err);
	if (x->l.keep)
		x->l.cells[m] = cell;
	if (!d->u.known && kernel_unknown_unit(k, unit->s) < 0)
		return nomem(err);
	if (strcmp(sec->s, CLI_SECTION) == 0)
		key = raw_source(x, name->s, &rank, &sum);
	else
		key = display_source(sec->s, name->s);
	if (key == -1)
		return nomem(err);
	if (key >= 0)
		launch_put(x, key, rank, sum, v);
	if (launch_all_metric(x, d->key, v, k->m[m].unit) < 0)
		return nomem(err);
	return 0;
}

static int
read_details(struct ex *x, struct kp_csv *c, struct kp_err *err)
{
	struct details d;
	int r;

	memset(&d, 0, sizeof(d));
	fixed_find(c, &d.fx);
	d.sec = header_index(c, "Section Name");
	d.name = header_index(c, "Metric Name");
	d.unit = header_index(c, "Metric Unit");
	d.value = header_index(c, "Metric Value");
	if (d.fx.name < 0)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: details page without a \"Kernel "
		    "Name\" column", kp_csv_name(c), kp_csv_line(c));
	while ((r = kp_csv_next(c, err)) == 1)
		if (details_row(x, c, &d, err) < 0)
			return -1;
	if (r < 0 || launch_end(x, err) < 0)
		return -1;
	return 0;
}

/* ---- one file ---- */

static int
read_file(struct ex *x, const char *path, struct kp_err *err)
{
	struct kp_csv *c;
	const char *page;
	int r;

	if (strcmp(path, "-") == 0)
		c = kp_csv_open(stdin, "<stdin>");
	else
		c = kp_csv_open_path(path, err);
	if (c == NULL)
		return strcmp(path, "-") == 0 ? nomem(err) : -1;
	x->path = kp_csv_name(c);
	x->file_launches = 0;
	launch_reset(x);
	if ((r = kp_csv_next(c, err)) <= 0) {
		if (r == 0)
			no_records(c, err);
		kp_csv_close(c);
		return -1;
	}
	page = page_of(c);
	if (strcmp(page, "raw") == 0)
		r = read_raw(x, c, err);
	else if (strcmp(page, "details") == 0)
		r = read_details(x, c, err);
	else
		r = not_a_page(c, page, err);
	if (r == 0 && x->file_launches == 0)
		r = kp_errf(err, KP_EXIT_DATA, "%s:%lu: %s page without any launch (truncated?)",
		    kp_csv_name(c), kp_csv_line(c), page);
	if (r == 0 && json_array_append_new(x->inputs, json_pack("{s:s, s:s, s:I}", "path",
	    x->path, "page", page, "launches", (json_int_t)x->file_launches)) < 0)
		r = nomem(err);
	launch_reset(x);
	x->path = NULL;
	free(x->jpath);
	x->jpath = NULL;
	x->jpath_state = 0;
	kp_csv_close(c);
	return r;
}

const char *
kp_metrics_page(const char *path, struct kp_err *err)
{
	static const char *const pages[] = { "raw", "details", "source", "summary",
		"session" };
	struct kp_csv *c;
	const char *page = NULL, *p;
	size_t i;
	int r;

	if ((c = kp_csv_open_path(path, err)) == NULL)
		return NULL;
	if ((r = kp_csv_next(c, err)) == 0)
		no_records(c, err);
	if (r == 1) {
		p = page_of(c);
		page = "unknown";
		for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
			if (strcmp(p, pages[i]) == 0)
				page = pages[i];
	}
	kp_csv_close(c);
	return page;
}

/* ---- the summary ---- */

static json_t *
acc_median(struct acc *a)
{
	return jnum(median(a->v, a->n));
}

/* The summary lists at most this many launch IDs per kernel. */
#define KP_IDS_LISTED 1024

static json_t *
ids_json(const struct kernel *k)
{
	json_t *a = json_array();
	size_t i;
	long long id;

	for (i = 0; a != NULL && i < k->nids; i++)
		for (id = k->ids[i].lo; id <= k->ids[i].hi; id++) {
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

/* Distinct launch IDs of a kernel (the ranges added up). */
static unsigned long long
ids_count(const struct kernel *k)
{
	unsigned long long n = 0;
	size_t i;

	for (i = 0; i < k->nids; i++)
		n += (unsigned long long)(k->ids[i].hi - k->ids[i].lo) + 1;
	return n;
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
 * The medians of a kernel's metrics over its kept launches, TILE metrics at
 * a time: each block gives TILE adjacent cells, gathered into one column of
 * values per metric.
 */
#define TILE 64
static int
by_name(const void *a, const void *b)
{
	return strcmp((*(struct metric *const *)a)->name, (*(struct metric *const *)b)->name);
}

/*
 * Each metric's median over the kept launches (k->med, by metric index) and
 * the metrics that have one, in name order (k->order): jansson dumps an
 * object's keys in the order they were set, and metrics_all.json is written
 * in that order.  Computed once; -1 out of memory.
 */
static int
kernel_medians(struct kernel *k)
{
	double *col;
	size_t cnt[TILE], m0, j, s, colsize;
	int mapped;

	if (k->med != NULL || k->nm == 0 || k->nsamp == 0)
		return 0;
	/* up to 512 KB, written whole: faulted in at once when big */
	colsize = (size_t)TILE * k->nsamp * sizeof(*col);
	mapped = colsize >= ((size_t)128 << 10) && (col = kp_populated(colsize)) != NULL;
	if ((!mapped && (col = malloc(colsize)) == NULL) ||
	    (k->med = malloc(k->nm * sizeof(*k->med))) == NULL ||
	    (k->order = malloc(k->nm * sizeof(*k->order))) == NULL) {
		if (mapped)
			kp_populated_free(col, colsize);
		else
			free(col);
		return -1;
	}
	for (m0 = 0; m0 < k->nm; m0 += TILE) {
		size_t nt = k->nm - m0 < TILE ? k->nm - m0 : TILE;

		memset(cnt, 0, sizeof(cnt));
		for (s = 0; s < k->nsamp; s++) {
			const struct block *b = k->samp[s];
			const uint32_t *cells = (const uint32_t *)(b->over + b->nover);
			size_t end = b->ncells < m0 + nt ? b->ncells : m0 + nt;

			for (j = m0; j < end; j++)
				if (cells[j] != CELL_ABSENT)
					col[(j - m0) * k->nsamp + cnt[j - m0]++] =
					    cell_value(b, cells[j]);
		}
		for (j = 0; j < nt; j++) {
			if (cnt[j] == 0)
				continue;
			k->med[m0 + j] = median(col + j * k->nsamp, cnt[j]);
			k->order[k->nmed++] = &k->m[m0 + j];
		}
	}
	if (mapped)
		kp_populated_free(col, colsize);
	else
		free(col);
	qsort(k->order, k->nmed, sizeof(*k->order), by_name);
	return 0;
}

/* The medians into met and units: all of them, or the key metrics only. */
static int
metrics_json(struct kernel *k, json_t *met, json_t *units, int key_only)
{
	size_t j;

	if (kernel_medians(k) < 0)
		return -1;
	for (j = 0; j < k->nmed; j++) {
		const struct metric *m = k->order[j];

		if (key_only && !kp_key_metric(m->name))
			continue;
		if (jset(met, m->name, jnum(k->med[m - k->m])) < 0 ||
		    jset(units, m->name, json_string(m->unit)) < 0)
			return -1;
	}
	return 0;
}

static json_t *
kernel_json(struct ex *x, struct kernel *k)
{
	json_t *o, *sum, *spread, *met, *units, *unk;
	char *fn;
	size_t i;
	int sampled = 0;

	if ((fn = kp_kernel_function(k->name)) == NULL)
		return NULL;
	o = json_pack("{s:s, s:s, s:I, s:o}", "name", k->name, "function", fn, "launches",
	    (json_int_t)k->launches, "ids", ids_json(k));
	free(fn);
	if (o != NULL && ids_count(k) > KP_IDS_LISTED)
		json_object_set_new(o, "ids_truncated", json_true());
	sum = json_object();
	spread = json_object();
	met = json_object();
	units = json_object();
	unk = json_array();
	if (o == NULL || !sum || !spread || !met || !units || !unk)
		goto fail;
	if (k->have_block && jset(o, "block", json_pack("[I,I,I]", (json_int_t)k->block[0],
	    (json_int_t)k->block[1], (json_int_t)k->block[2])) < 0)
		goto fail;
	if (k->have_grid && jset(o, "grid", json_pack("[I,I,I]", (json_int_t)k->grid[0],
	    (json_int_t)k->grid[1], (json_int_t)k->grid[2])) < 0)
		goto fail;
	if (k->device && jset(o, "device", json_string(k->device)) < 0)
		goto fail;
	if (k->cc && jset(o, "cc", json_string(k->cc)) < 0)
		goto fail;
	for (i = 0; i < k->nkeys; i++) {
		struct acc *a = &k->keys[i];

		if (a->seen == 0)
			continue;
		sampled |= a->seen > a->n;
		if (jset_key(sum, x->keyname[i], acc_median(a)) < 0)
			goto fail;
		if (k->launches > 1 && jset_key(spread, x->keyname[i], json_pack("{s:o, s:o}",
		    "min", jnum(a->min), "max", jnum(a->max))) < 0)
			goto fail;
	}
	sampled |= k->launches > k->nsamp;
	if (metrics_json(k, met, units, x->short_maps) < 0 ||
	    jset(o, "metrics_count", json_integer((json_int_t)k->nmed)) < 0)
		goto fail;
	if (k->nunknown > 1)
		qsort(k->unknown, k->nunknown, sizeof(*k->unknown), cmpstr);
	for (i = 0; i < k->nunknown; i++)
		if (json_array_append_new(unk, json_string(k->unknown[i])) < 0)
			goto fail;
	if (json_object_set_new(o, "summary", sum) < 0 ||
	    (k->launches > 1 ? json_object_set_new(o, "spread", spread) :
	    (json_decref(spread), 0)) < 0 ||
	    json_object_set_new(o, "metrics", met) < 0 ||
	    json_object_set_new(o, "units", units) < 0 ||
	    json_object_set_new(o, "unknown_units", unk) < 0 ||
	    jset(o, "median", json_string(sampled ? "sampled" : "exact")) < 0)
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

static json_t *
summary_json(struct ex *x, struct kp_err *err)
{
	json_t *s, *ks;
	size_t i, primary = 0;
	double best = -1;
	size_t most = 0;
	int have_dur = 0;

	if ((ks = json_array()) == NULL)
		return nomem(err), NULL;
	for (i = 0; i < x->nk; i++) {
		struct kernel *k = x->k[i];

		if (json_array_append_new(ks, kernel_json(x, k)) < 0) {
			json_decref(ks);
			return nomem(err), NULL;
		}
		if (k->nkeys > K_DURATION && k->keys[K_DURATION].seen > 0) {
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
	s = json_pack("{s:s, s:O, s:o, s:I}", "schema", "kp-metrics-summary/2", "inputs",
	    x->inputs, "kernels", ks, "primary", (json_int_t)primary);
	if (s != NULL && x->short_maps &&
	    json_object_set_new(s, "metrics_all", json_string(KP_METRICS_ALL)) < 0) {
		json_decref(s);
		s = NULL;
	}
	if (s == NULL)
		nomem(err);
	return s;
}

/*
 * metrics_all.json written from the kernels' medians, without building 4,400
 * jansson objects per kernel: byte for byte what json_dumpf(JSON_INDENT(2) |
 * JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) writes for {"kernels": [{"metrics",
 * "name", "units"}], "schema"} (names escaped by jansson itself, numbers by
 * put_num(), as for metrics_extracted.jsonl; tests/unit/check_summary.c
 * compares the two on real captures).
 */
/* s as a JSON string: directly when it needs no escape, else by jansson. */
static int
put_jstr(FILE *fp, const char *s)
{
	const unsigned char *p;
	char *e;

	for (p = (const unsigned char *)s; *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\'; p++)
		;
	if (*p == '\0') {
		putc('"', fp);
		fputs(s, fp);
		putc('"', fp);
		return 0;
	}
	if ((e = jesc(s)) == NULL)
		return -1;
	fputs(e, fp);
	free(e);
	return 0;
}

/* A kernel's "metrics" (values) or "units" map, indented as jansson does. */
static int
write_map(FILE *fp, const struct kernel *k, int units, const char *path, struct kp_err *err)
{
	char num[64];
	size_t j;

	fputs(units ? "      \"units\": {" : "      \"metrics\": {", fp);
	for (j = 0; j < k->nmed; j++) {
		const struct metric *m = k->order[j];

		fputs(j > 0 ? ",\n        " : "\n        ", fp);
		if (put_jstr(fp, m->name) < 0)
			return kp_errf(err, KP_EXIT_DATA, "%s: a metric name jansson refuses", path);
		fputs(": ", fp);
		if (units) {
			if (put_jstr(fp, m->unit) < 0)
				return kp_errf(err, KP_EXIT_DATA, "%s: a unit jansson refuses", path);
		} else {
			*put_num(num, k->med[m - k->m]) = '\0';
			fputs(num, fp);
		}
	}
	fputs(k->nmed > 0 ? "\n      }" : "}", fp);
	return 0;
}

static int
write_all(struct ex *x, FILE *fp, const char *path, struct kp_err *err)
{
	size_t i;

	fputs("{\n  \"kernels\": [", fp);
	for (i = 0; i < x->nk; i++) {
		struct kernel *k = x->k[i];

		if (kernel_medians(k) < 0)
			return nomem(err);
		fputs(i > 0 ? ",\n    {\n" : "\n    {\n", fp);
		if (write_map(fp, k, 0, path, err) < 0)
			return -1;
		fputs(",\n      \"name\": ", fp);
		if (put_jstr(fp, k->name) < 0)
			return kp_errf(err, KP_EXIT_DATA, "%s: a kernel name jansson refuses", path);
		fputs(",\n", fp);
		if (write_map(fp, k, 1, path, err) < 0)
			return -1;
		fputs("\n    }", fp);
	}
	fputs(x->nk > 0 ? "\n  ],\n" : "],\n", fp);
	fputs("  \"schema\": \"kp-metrics-all/1\"\n}\n", fp);
	if (ferror(fp))
		return kp_errf(err, KP_EXIT_ENV, "%s: %s", path, strerror(errno ? errno : EIO));
	return 0;
}

static void
ex_free(struct ex *x)
{
	size_t i;

	for (i = 0; i < x->nk; i++)
		kernel_free(x->k[i]);
	kp_arena_free(&x->arena);
	for (i = 0; i < x->nkeys; i++)
		free(x->keyname[i]);
	free(x->keyname);
	for (i = 0; i < x->nkorder; i++)
		free(x->jkey[i]);
	free(x->jkey);
	free(x->korder);
	free(x->out);
	free(x->jpath);
	free(x->jpd);
	free(x->k);
	free(x->kslot);
	free(x->l.val);
	free(x->l.rank);
	free(x->l.cells);
	free(x->l.over);
	json_decref(x->l.all);
	json_decref(x->inputs);
	cols_free(x);
}

struct jsonl_out {
	FILE *fp;
	const char *profile_dir;
	const char *path;
};

static int emit_file(json_t *, void *, struct kp_err *);

static json_t *
extract(const char *const *paths, size_t npaths, int all_metrics,
    int (*emit)(json_t *, void *, struct kp_err *), void *arg, struct kp_atomic *all,
    struct kp_err *err)
{
	struct ex x;
	json_t *s = NULL;
	size_t i;

	memset(&x, 0, sizeof(x));
	x.all_metrics = all_metrics;
	x.short_maps = all != NULL;
	x.emit = emit;
	x.arg = arg;
	if (emit == emit_file) {	/* launch records written by jsonl_launch */
		const struct jsonl_out *o = arg;

		x.jfp = o->fp;
		x.jfpath = o->path;
		if (o->profile_dir != NULL && (x.jpd = jesc(o->profile_dir)) == NULL)
			x.jfp = NULL;
	}
	if ((x.inputs = json_array()) == NULL) {
		nomem(err);
		goto out;
	}
	for (i = 0; i < NFIXED; i++)
		if (key_id(&x, fixed_keys[i]) < 0) {
			nomem(err);
			goto out;
		}
	if (npaths == 0) {
		kp_errf(err, KP_EXIT_USAGE, "no input file");
		goto out;
	}
	for (i = 0; i < npaths; i++) {
		x.file = i;
		if (read_file(&x, paths[i], err) < 0)
			goto out;
	}
	s = summary_json(&x, err);
	if (s != NULL && all != NULL && write_all(&x, all->fp, all->path, err) < 0) {
		json_decref(s);
		s = NULL;
	}
out:
	ex_free(&x);
	return s;
}

static int
emit_array(json_t *rec, void *arg, struct kp_err *err)
{
	if (json_array_append(arg, rec) < 0)
		return nomem(err);
	return 0;
}

json_t *
kp_extract_files(const char *const *paths, size_t npaths, int all_metrics,
    json_t **launches_out, struct kp_err *err)
{
	json_t *arr = NULL, *s;

	if (launches_out != NULL) {
		*launches_out = NULL;
		if ((arr = json_array()) == NULL)
			return nomem(err), NULL;
	}
	s = extract(paths, npaths, all_metrics, arr ? emit_array : NULL, arr, NULL, err);
	if (s == NULL)
		json_decref(arr);
	else if (launches_out != NULL)
		*launches_out = arr;
	return s;
}

static int
emit_file(json_t *rec, void *arg, struct kp_err *err)
{
	struct jsonl_out *o = arg;

	if (o->profile_dir != NULL && jset(rec, "profile_dir", json_string(o->profile_dir)) < 0)
		return nomem(err);
	if (json_dumpf(rec, o->fp, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) != 0 ||
	    putc('\n', o->fp) == EOF)
		return kp_errf(err, KP_EXIT_ENV, "%s: %s", o->path, strerror(errno ? errno : EIO));
	return 0;
}

/*
 * Three files, all or none: each is written to a temporary name first and the
 * three are renamed into place only when all are written.  The summary
 * returned is the one written, with the key metrics only.
 */
json_t *
kp_extract_to_dir(const char *const *paths, size_t npaths, const char *outdir,
    const char *profile_dir, int all_metrics, struct kp_err *err)
{
	struct kp_atomic a, b, c;	/* aborting one unopened or committed is a no-op */
	struct jsonl_out o;
	char *jpath = NULL, *spath = NULL, *apath = NULL;
	json_t *s = NULL;
	int made = 0;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	if (!kp_is_dir(outdir)) {
		if (kp_mkdirs(outdir, err) < 0)
			return NULL;
		made = 1;
	}
	jpath = kp_path_join(outdir, "metrics_extracted.jsonl");
	spath = kp_path_join(outdir, "metrics_summary.json");
	apath = kp_path_join(outdir, KP_METRICS_ALL);
	if (jpath == NULL || spath == NULL || apath == NULL) {
		nomem(err);
		goto out;
	}
	if (kp_atomic_open(&a, jpath, err) < 0 || kp_atomic_open(&b, apath, err) < 0)
		goto out;
	o.fp = a.fp;
	o.profile_dir = profile_dir;
	o.path = jpath;
	if ((s = extract(paths, npaths, all_metrics, emit_file, &o, &b, err)) == NULL)
		goto out;
	if (kp_atomic_open(&c, spath, err) < 0 || kp_atomic_put_json(&c, s, JSON_INDENT(2) |
	    JSON_SORT_KEYS | JSON_REAL_PRECISION(15), err) < 0 || kp_atomic_commit(&b, err) < 0)
		goto fail;
	if (kp_atomic_commit(&c, err) < 0) {
		unlink(apath);
		goto fail;
	}
	if (kp_atomic_commit(&a, err) < 0) {
		unlink(spath);
		unlink(apath);
		goto fail;
	}
	goto out;
fail:
	json_decref(s);
	s = NULL;
out:
	kp_atomic_abort(&c);
	kp_atomic_abort(&b);
	kp_atomic_abort(&a);
	if (s == NULL && made)
		rmdir(outdir);
	free(jpath);
	free(spath);
	free(apath);
	return s;
}
