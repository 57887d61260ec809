/*
 * source_evidence.c: what a kernel's source page says as a whole, for
 * kp-decide: warp-stall samples by reason, the samples that carry no reason,
 * threads executed per instruction, shared-memory wavefronts against their
 * ideal, global sectors against their ideal, and the samples of each kind of
 * instruction (tensor, atomic, barrier, FP64, ...).
 *
 * Each SASS instruction counts once: the cuda,sass view lists an inlined
 * instruction under several source lines, and ncu may print a launch's sass
 * block twice, so instructions are told apart by function and address.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_source.h"
#include "kp_strmap.h"
#include "source_evidence.h"

/* Instruction kinds by SASS family; the first matching prefix wins. */
static const struct opkind {
	const char *prefix, *kind;
} opkinds[] = {
	{ "HGMMA", "tensor" }, { "HMMA", "tensor" }, { "IMMA", "tensor" },
	{ "IGMMA", "tensor" }, { "QGMMA", "tensor" }, { "DMMA", "tensor" },
	{ "BMMA", "tensor" }, { "BGMMA", "tensor" }, { "WGMMA", "tensor" },
	{ "ATOMS", "atomic" }, { "ATOMG", "atomic" }, { "ATOM", "atomic" },
	{ "REDG", "atomic" }, { "REDAS", "atomic" }, { "RED", "atomic" },
	{ "BAR", "barrier" }, { "WARPSYNC", "barrier" }, { "SYNCS", "barrier" },
	{ "DFMA", "fp64" }, { "DADD", "fp64" }, { "DMUL", "fp64" }, { "DSETP", "fp64" },
	{ "MUFU", "xu" },
	{ "LDSM", "shared" }, { "LDS", "shared" }, { "STS", "shared" },
	{ "LDGSTS", "global" }, { "LDG", "global" }, { "STG", "global" },
	{ "UTMALDG", "global" }, { "UBLKCP", "global" },
	{ "LDL", "local" }, { "STL", "local" },
	{ "FFMA", "fma" }, { "FMUL", "fma" }, { "FADD", "fma" }, { "HFMA2", "fma" },
	{ "HMUL2", "fma" }, { "HADD2", "fma" },
	{ "BRA", "branch" }, { "BSSY", "branch" }, { "BSYNC", "branch" },
};

const char *
kp_sass_kind(const char *family)
{
	size_t i, n;

	for (i = 0; i < sizeof(opkinds) / sizeof(opkinds[0]); i++) {
		n = strlen(opkinds[i].prefix);
		if (strncmp(family, opkinds[i].prefix, n) == 0)
			return opkinds[i].kind;
	}
	return NULL;
}

struct cols {
	int samples, inst, thread_inst, wf, wf_ideal, sec, sec_ideal, divergent;
	int lsb;		/* the long-scoreboard stall column, or -1 */
	int nstall;
	int stall[64];
	char reason[64][48];
};

static double
at(const struct kp_src_row *r, int i)
{
	return i >= 0 && !isnan(r->val[i]) ? r->val[i] : 0;
}

static void
find_cols(struct kp_src *s, struct cols *c)
{
	size_t i;

	c->samples = kp_src_metric_index(s, "Warp Stall Sampling (All Samples)");
	c->inst = kp_src_metric_index(s, "Instructions Executed");
	c->thread_inst = kp_src_metric_index(s, "Thread Instructions Executed");
	c->wf = kp_src_metric_index(s, "L1 Wavefronts Shared");
	c->wf_ideal = kp_src_metric_index(s, "L1 Wavefronts Shared Ideal");
	c->sec = kp_src_metric_index(s, "L2 Theoretical Sectors Global");
	c->sec_ideal = kp_src_metric_index(s, "L2 Theoretical Sectors Global Ideal");
	c->divergent = kp_src_metric_index(s, "Divergent Branches");
	c->nstall = 0;
	c->lsb = -1;
	for (i = 0; i < kp_src_nmetrics(s) && c->nstall < 64; i++)
		if (kp_stall_reason(kp_src_metric(s, i), c->reason[c->nstall],
		    sizeof(c->reason[0])) != NULL) {
			if (strcmp(c->reason[c->nstall], "long_scoreboard") == 0)
				c->lsb = (int)i;
			c->stall[c->nstall++] = (int)i;
		}
}

struct tally {
	double samples, attributed, inst, thread_inst, wf, wf_ideal, sec, sec_ideal, divergent;
	double staging;		/* long-scoreboard samples on shared stores */
	double stall[64];
	json_t *kinds;		/* kind -> samples */
	size_t instructions;
	size_t tma, gmma;	/* asynchronous copies, warpgroup MMAs */
	double fma_inst;	/* fused multiply-adds executed (FFMA, HFMA2) */
	double load_inst;	/* global and shared loads executed */
};

/*
 * Asynchronous copies into shared memory (Hopper's TMA and bulk copies,
 * Ampere's cp.async: LDGSTS) and Hopper's warpgroup MMAs, by family.  A
 * kernel that has both (cuBLAS, CUTLASS sm90, Triton's tl.dot pipelines)
 * overlaps its loads with its MMAs inside each warp.
 */
static const char *const tma_fam[] = { "UTMALDG", "UTMASTG", "UTMAPF", "UBLKCP", "LDGSTS", NULL };
static const char *const gmma_fam[] = { "HGMMA", "IGMMA", "QGMMA", "BGMMA", NULL };

/*
 * The multiply-adds a matrix product is made of, and the loads that bring
 * its operands (global, shared, ldmatrix, copies into shared memory); not
 * local memory (spills) nor constants (coefficients).
 */
static const char *const fma_fam[] = { "FFMA", "HFMA2", NULL };
static const char *const load_fam[] = { "LDG", "LDS", "LDSM", "LDGSTS", "LD", "TLD", "TEX",
	NULL };

static int
in_families(const char *fam, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(fam, *list) == 0)
			return 1;
	return 0;
}

static int
add_kind(struct tally *t, const char *kind, double v)
{
	json_t *o = json_object_get(t->kinds, kind);
	double have = o != NULL ? json_number_value(o) : 0;

	return json_object_set_new(t->kinds, kind, json_real(have + v));
}

static int
count(struct tally *t, const struct cols *c, const struct kp_src_row *r)
{
	char fam[32];
	const char *kind;
	double v = at(r, c->samples);
	int i;

	t->instructions++;
	t->samples += v;
	t->inst += at(r, c->inst);
	t->thread_inst += at(r, c->thread_inst);
	t->wf += at(r, c->wf);
	t->wf_ideal += at(r, c->wf_ideal);
	t->sec += at(r, c->sec);
	t->sec_ideal += at(r, c->sec_ideal);
	t->divergent += at(r, c->divergent);
	for (i = 0; i < c->nstall; i++) {
		t->stall[i] += at(r, c->stall[i]);
		t->attributed += at(r, c->stall[i]);
	}
	kind = kp_sass_kind(kp_sass_opcode(r->text, fam, sizeof(fam)));
	t->tma += in_families(fam, tma_fam);
	t->gmma += in_families(fam, gmma_fam);
	if (in_families(fam, fma_fam))
		t->fma_inst += at(r, c->inst);
	else if (in_families(fam, load_fam))
		t->load_inst += at(r, c->inst);
	/* a shared store that waits on long scoreboard waits for the global
	 * load that feeds it: a tile staged through registers */
	if (strncmp(fam, "STS", 3) == 0)
		t->staging += at(r, c->lsb);
	if (v > 0 && add_kind(t, kind != NULL ? kind : "other", v) != 0)
		return -1;
	return 0;
}

static json_t *
result(const struct kp_src *s, const struct cols *c, const struct tally *t)
{
	json_t *o = json_object(), *st = json_object();
	int i;

	for (i = 0; i < c->nstall; i++)
		if (t->stall[i] > 0)
			json_object_set_new(st, c->reason[i], json_real(t->stall[i]));
	json_object_set_new(o, "schema", json_string("kp-source-evidence/1"));
	json_object_set_new(o, "view", json_string(kp_src_kind_name(kp_src_kind(s))));
	json_object_set_new(o, "instructions", json_integer((json_int_t)t->instructions));
	json_object_set_new(o, "samples", json_real(t->samples));
	json_object_set_new(o, "stall_samples", st);
	/* The page's reason columns need not add up to its sample count. */
	json_object_set_new(o, "unattributed_samples",
	    json_real(t->samples > t->attributed ? t->samples - t->attributed : 0));
	json_object_set_new(o, "kind_samples", json_incref(t->kinds));
	/* instructions, sampled or not: what the kernel is built from */
	json_object_set_new(o, "async_copy_instructions", json_integer((json_int_t)t->tma));
	json_object_set_new(o, "async_mma_instructions", json_integer((json_int_t)t->gmma));
	if (c->inst >= 0) {
		json_object_set_new(o, "fma_instructions_executed", json_real(t->fma_inst));
		json_object_set_new(o, "load_instructions_executed", json_real(t->load_inst));
	}
	if (c->inst >= 0 && c->thread_inst >= 0 && t->inst > 0)
		json_object_set_new(o, "threads_per_inst", json_real(t->thread_inst / t->inst));
	if (c->wf >= 0 && c->wf_ideal >= 0) {
		json_object_set_new(o, "shared_wavefronts", json_real(t->wf));
		json_object_set_new(o, "shared_wavefronts_ideal", json_real(t->wf_ideal));
	}
	if (c->sec >= 0 && c->sec_ideal >= 0) {
		json_object_set_new(o, "global_sectors", json_real(t->sec));
		json_object_set_new(o, "global_sectors_ideal", json_real(t->sec_ideal));
	}
	if (c->divergent >= 0)
		json_object_set_new(o, "divergent_branches", json_real(t->divergent));
	if (c->lsb >= 0)
		json_object_set_new(o, "staging_samples", json_real(t->staging));
	return o;
}

/*
 * An instruction counts once by its "function@address" key, whole however
 * long the name (a C++ kernel's runs to thousands of bytes).  A key with
 * its only '@' between the two is looked up as the address among its
 * function's: the function found by comparing with the last one's name
 * instead of hashing a name of hundreds of bytes a row.  Any other key (with
 * a '@' of its own, so that another pair could write it) goes to the
 * whole-key map, which no such split key can equal.
 */
struct fnseen {
	char *name;
	struct kp_strmap addrs;	/* its addresses -> their place in seq */
	char **seq;		/* ... in the order first seen */
	size_t nseq, cseq;
	size_t pos;		/* where the next row's address is expected in seq */
};

struct kp_evidence {
	struct kp_strmap seen;	/* the other "function@address" keys counted */
	struct kp_strmap fnmap;	/* function name -> fns */
	struct fnseen *fns;
	size_t nfns, cfns;
	size_t last;		/* fns index of the last row's function */
	unsigned long lastgen;	/* ... and its kp_src_row.fngen */
	int last_at;		/* its name holds a '@' */
	struct tally t;
	struct cols c;
	char *key;		/* the whole key, grown to fit */
	size_t ckey;
};

struct kp_evidence *
kp_evidence_new(struct kp_src *s)
{
	struct kp_evidence *e = calloc(1, sizeof(*e));

	if (e == NULL || (e->t.kinds = json_object()) == NULL) {
		free(e);
		return NULL;
	}
	e->last = (size_t)-1;
	find_cols(s, &e->c);
	return e;
}

/* The address map of the row's function: 0, or -1 out of memory. */
static int
fn_seen(struct kp_evidence *e, const struct kp_src_row *row)
{
	const char *name = row->function;
	size_t v = e->nfns;
	int r;

	if (e->last != (size_t)-1 && (e->lastgen == row->fngen ||
	    strcmp(e->fns[e->last].name, name) == 0)) {
		e->lastgen = row->fngen;
		return 0;
	}
	if ((r = kp_strmap_get_put(&e->fnmap, name, &v)) < 0)
		return -1;
	if (r == 0) {
		if (e->nfns == e->cfns) {
			size_t c = e->cfns ? e->cfns * 2 : 8;
			struct fnseen *n = realloc(e->fns, c * sizeof(*n));

			if (n == NULL)
				return -1;
			e->fns = n;
			e->cfns = c;
		}
		memset(&e->fns[e->nfns], 0, sizeof(e->fns[0]));
		if ((e->fns[e->nfns].name = strdup(name)) == NULL)
			return -1;
		e->nfns++;
	}
	e->last = v;
	e->lastgen = row->fngen;
	e->last_at = strchr(name, '@') != NULL;
	return 0;
}

/*
 * Row r's address among function f's: counted when new.  A launch copy lists
 * a function's addresses in the order the first copy did, so the address
 * after the last row's is tried first (one compare, no hash); a miss looks
 * it up, and the next row is tried after where it was found.
 */
static int
fn_addr(struct kp_evidence *e, struct fnseen *f, const struct kp_src_row *r)
{
	size_t v = f->nseq;
	int rc;

	if (f->pos < f->nseq && strcmp(f->seq[f->pos], r->address) == 0) {
		f->pos++;
		return 0;
	}
	if ((rc = kp_strmap_get_put(&f->addrs, r->address, &v)) < 0)
		return -1;
	f->pos = v + 1;
	if (rc == 1)
		return 0;
	if (f->nseq == f->cseq) {
		size_t c = f->cseq ? f->cseq * 2 : 64;
		char **n = realloc(f->seq, c * sizeof(*n));

		if (n == NULL)
			return -1;
		f->seq = n;
		f->cseq = c;
	}
	if ((f->seq[f->nseq] = strdup(r->address)) == NULL)
		return -1;
	f->nseq++;
	return count(&e->t, &e->c, r);
}

/* "function@address" in e->key, grown to fit: 0, or -1 out of memory. */
static int
whole_key(struct kp_evidence *e, const char *function, const char *address)
{
	size_t lf = strlen(function), la = strlen(address);

	if (lf + la + 2 > e->ckey) {
		size_t cap = e->ckey ? e->ckey : 256;
		char *k;

		while (cap < lf + la + 2)
			cap *= 2;
		if ((k = realloc(e->key, cap)) == NULL)
			return -1;
		e->key = k;
		e->ckey = cap;
	}
	memcpy(e->key, function, lf);
	e->key[lf] = '@';
	memcpy(e->key + lf + 1, address, la + 1);
	return 0;
}

/* Whether function (at says its name holds a '@') and address split into
 * the function's address map rather than the whole-key map. */
static int
split_key(int at, const char *address)
{
	return !at && strchr(address, '@') == NULL;
}

int
kp_evidence_add(struct kp_evidence *e, const struct kp_src_row *r)
{
	size_t dummy = 0;
	int rc;

	if (r->ev != KP_SRC_INSN || r->address[0] == '\0')
		return 0;
	if (fn_seen(e, r) < 0)
		return -1;
	if (split_key(e->last_at, r->address))
		return fn_addr(e, &e->fns[e->last], r);
	if (whole_key(e, r->function, r->address) < 0 ||
	    (rc = kp_strmap_get_put(&e->seen, e->key, &dummy)) < 0)
		return -1;
	if (rc == 1)
		return 0;
	return count(&e->t, &e->c, r);
}

int
kp_evidence_has(struct kp_evidence *e, const char *function, const char *address)
{
	size_t v;

	if (kp_strmap_get(&e->fnmap, function, &v) != 1)
		return 0;
	if (split_key(strchr(function, '@') != NULL, address))
		return kp_strmap_get(&e->fns[v].addrs, address, &v);
	if (whole_key(e, function, address) < 0)
		return -1;
	return kp_strmap_get(&e->seen, e->key, &v);
}

json_t *
kp_evidence_result(const struct kp_evidence *e, const struct kp_src *s)
{
	return result(s, &e->c, &e->t);
}

void
kp_evidence_free(struct kp_evidence *e)
{
	if (e == NULL)
		return;
	json_decref(e->t.kinds);
	kp_strmap_free(&e->seen);
	kp_strmap_free(&e->fnmap);
	while (e->nfns > 0) {
		e->nfns--;
		free(e->fns[e->nfns].name);
		kp_strmap_free(&e->fns[e->nfns].addrs);
		while (e->fns[e->nfns].nseq > 0)
			free(e->fns[e->nfns].seq[--e->fns[e->nfns].nseq]);
		free(e->fns[e->nfns].seq);
	}
	free(e->fns);
	free(e->key);
	free(e);
}

json_t *
kp_source_evidence_read(FILE *fp, const char *name, struct kp_err *err)
{
	struct kp_src_row r;
	struct kp_evidence *e = NULL;
	struct kp_src *s;
	json_t *o = NULL;
	int rc;

	if ((s = kp_src_open(fp, name, err)) == NULL)
		return NULL;
	if ((e = kp_evidence_new(s)) == NULL)
		goto nomem;
	while ((rc = kp_src_next(s, &r, err)) == 1)
		if (kp_evidence_add(e, &r) < 0)
			goto nomem;
	if (rc < 0)
		goto out;
	if ((o = kp_evidence_result(e, s)) == NULL)
		goto nomem;
	goto out;
nomem:
	kp_errf(err, KP_EXIT_ENV, "%s: out of memory", name);
out:
	kp_evidence_free(e);
	kp_src_close(s);
	return o;
}
