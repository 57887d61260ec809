/*
 * rules_derive.c: the quantities kp-decide's rules reason with beyond plain
 * metrics: each execution pipe's utilisation and the busiest one, the busiest
 * unit of the whole GPU (for the roofline), what the source page says (stall
 * shares, active threads, wasted sectors and wavefronts, instruction kinds),
 * and the shares of time a finding could win back (its estimated gain).
 * Every quantity names the metrics it is made of (kp_rules_derive_inputs), so
 * a rule that cannot be evaluated says what was not measured.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rules_int.h"

/*
 * The cycles an average SM sits idle in any launch while the grid fills and
 * drains: 3,000 to 5,700 on the kept H100 and H200 captures of launches of
 * 2 to 30 us whatever their grid (about 2.5 us), more in longer ones only as
 * far as their blocks end unevenly.  sm_idle_share leaves them out, so a
 * short launch's ramp is not read as idle SMs a grid change could use.
 */
#define KP_LAUNCH_RAMP_CYCLES 8192.0

/* The execution pipes, each with its metrics in order of preference (the
 * active-cycle figure of the compute sections, then basic's elapsed one). */
static const struct pipe {
	const char *id, *label;
	const char *m[3];
	int busiest;	/* a candidate for the busiest pipe */
} pipes[] = {
	{ "fma", "FMA (FP32)", { "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
	    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
	    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed" }, 1 },
	{ "alu", "ALU (integer, logic, conversions)", {
	    "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
	    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
	    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed" }, 1 },
	{ "fp64", "FP64", { "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
	    "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
	    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed" }, 1 },
	{ "tensor", "tensor", { "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
	    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
	    "tensor_pipe_pct" }, 1 },
	{ "xu", "XU (transcendentals, conversions)", {
	    "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
	    "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed", NULL }, 1 },
	{ "lsu", "LSU (load/store issue)", {
	    "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
	    "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed", NULL }, 1 },
	{ "uniform", "uniform", { "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active",
	    "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_elapsed", NULL }, 1 },
	{ "cbu", "CBU (branches)", { "sm__inst_executed_pipe_cbu.avg.pct_of_peak_sustained_active",
	    NULL, NULL }, 1 },
	{ "fp16", "FMA pipe, fp16 instructions", {
	    "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_active",
	    "sm__inst_executed_pipe_fma_type_fp16.avg.pct_of_peak_sustained_elapsed", NULL }, 0 },
	{ "shared", "FP64/tensor shared pipe", {
	    "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active",
	    "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed", NULL }, 0 },
};
#define NPIPES (sizeof(pipes) / sizeof(pipes[0]))

static const char *const issue_m[] = { "smsp__issue_active.avg.pct_of_peak_sustained_active",
	"sm__issue_active.avg.pct_of_peak_sustained_elapsed",
	"sm__inst_issued.avg.pct_of_peak_sustained_elapsed", NULL };

static const char atomic_max_m[] =
    "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed";

static int
first(struct ctx *c, const char *const *m, size_t n, double *out)
{
	size_t i;

	for (i = 0; i < n && m[i] != NULL; i++)
		if (kp_rules_raw(c, m[i], out) == 0)
			return 0;
	return -1;
}

/*
 * On sm_90 the compiler may issue half of a kernel's fp16x2 multiply-adds as
 * HFMA2.MMA, which runs on the MMA datapath: the tensor pipe's cycles then
 * count scalar fp16 work that is no matrix product.  Basic's matrix-only
 * figure (HMMA, HGMMA, IMMA, ... instructions, no HFMA2.MMA) over the same
 * pass's whole tensor-pipe figure is the share of those cycles that are
 * matrix math; the tensor pipe's utilisation is scaled by it.
 */
static const char tensor_mma_m[] =
    "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed";
/* FP64 matrix instructions (DMMA: cuBLAS's DGEMM on sm_80 and sm_90) are
 * matrix math too, counted apart from the figure above. */
static const char tensor_dmma_m[] =
    "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed";
static const char tensor_all_m[] = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";

static int
pipe_pct(struct ctx *c, const struct pipe *p, double *out)
{
	double mma, dmma, all;

	if (first(c, p->m, 3, out) < 0)
		return -1;
	if (strcmp(p->id, "tensor") == 0 && kp_rules_raw(c, tensor_mma_m, &mma) == 0 &&
	    kp_rules_raw(c, tensor_all_m, &all) == 0) {
		if (kp_rules_raw(c, tensor_dmma_m, &dmma) == 0 && dmma > 0)
			mma += dmma;
		if (all > 0 && mma >= 0 && mma < all)
			*out *= mma / all;
	}
	return 0;
}

static const struct pipe *
busiest_pipe(struct ctx *c, double *out)
{
	const struct pipe *best = NULL;
	double v;
	size_t i;

	for (i = 0; i < NPIPES; i++)
		if (pipes[i].busiest && pipe_pct(c, &pipes[i], &v) == 0 &&
		    (best == NULL || v > *out)) {
			best = &pipes[i];
			*out = v;
		}
	return best;
}

/* The busiest unit of the GPU: a memory level, a pipe or the issue slots. */
static const char *
busiest_unit(struct ctx *c, double *out)
{
	static const struct { const char *key, *label; } mem[] = {
		{ "dram_throughput_pct", "DRAM" }, { "l2_throughput_pct", "L2" },
		{ "l1tex_throughput_pct", "L1/TEX (and shared memory)" },
	};
	const struct pipe *p;
	const char *best = NULL;
	double v;
	size_t i;

	for (i = 0; i < sizeof(mem) / sizeof(mem[0]); i++)
		if (kp_rules_raw(c, mem[i].key, &v) == 0 && (best == NULL || v > *out)) {
			best = mem[i].label;
			*out = v;
		}
	/* the L2 slice whose atomic unit is busiest: atomics to few addresses
	 * serialise there while every average looks idle */
	if (kp_rules_raw(c, atomic_max_m, &v) == 0 && (best == NULL || v > *out)) {
		best = "L2 atomic unit (busiest slice)";
		*out = v;
	}
	if ((p = busiest_pipe(c, &v)) != NULL && (best == NULL || v > *out)) {
		best = p->label;
		*out = v;
	}
	if (first(c, issue_m, 3, &v) == 0 && (best == NULL || v > *out)) {
		best = "issue slots";
		*out = v;
	}
	return best;
}

static int
src_num(struct ctx *c, const char *key, double *out)
{
	return c->src != NULL ? kp_rules_num(json_object_get(c->src, key), out) : -1;
}

static int
src_share(struct ctx *c, const char *map, const char *key, double *out)
{
	double n, tot;

	if (src_num(c, "samples", &tot) != 0 || tot <= 0)
		return -1;
	if (kp_rules_num(json_object_get(json_object_get(c->src, map), key), &n) != 0)
		n = 0;	/* a reason or kind the page never sampled */
	*out = n / tot;
	return 0;
}

static int
src_ratio(struct ctx *c, const char *a, const char *b, double *out)
{
	double x, y;

	if (src_num(c, a, &x) != 0 || src_num(c, b, &y) != 0 || y <= 0)
		return -1;
	*out = x / y;
	return 0;
}

static int
sum_of(struct ctx *c, const char *const *m, double *out)
{
	double v;
	int have = 0;

	*out = 0;
	for (; *m != NULL; m++)
		if (kp_rules_raw(c, *m, &v) == 0) {
			*out += v;
			have = 1;
		}
	return have ? 0 : -1;
}

static double
clamp01(double v)
{
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* The larger of a and b where both are present (ha, hb), else the present
 * one: 0, or -1 when neither is. */
static int
larger_present(int ha, double a, int hb, double b, double *out)
{
	if (!ha && !hb)
		return -1;
	*out = ha && hb ? (a > b ? a : b) : ha ? a : b;
	return 0;
}

/* The stall reason with the largest share: the sections' figures, else the
 * source page's samples.  *out gets its share of all reasons. */
static const char *
top_stall(struct ctx *c, double *out)
{
	static char best[64];
	const char *k;
	json_t *v, *map = c->stalls;
	double sum = 0, max = -1;

	if (!json_is_object(map) || json_object_size(map) == 0)
		map = c->src != NULL ? json_object_get(c->src, "stall_samples") : NULL;
	if (!json_is_object(map))
		return NULL;
	json_object_foreach(map, k, v)
		if (json_is_number(v) && strcmp(k, "selected") != 0) {
			sum += json_number_value(v);
			/* an eligible warp another was picked over waits on nothing */
			if (json_number_value(v) > max && strcmp(k, "not_selected") != 0) {
				max = json_number_value(v);
				snprintf(best, sizeof(best), "%s", k);
			}
		}
	if (max < 0 || sum <= 0)
		return NULL;
	*out = max / sum;
	return best;
}

/*
 * Global sectors moved over those the threads' bytes needed, from the
 * metrics alone (no source page): for loads and stores, the bytes used of
 * each sector (smsp__sass_average_data_bytes_per_sector, 32 when none is
 * wasted) times the sectors is what the threads asked for; a request needs
 * at least one sector, so one lane's load is no waste.  An operation whose
 * ratio is 0 (its loads bypass the LSU path: cp.async, TMA) is left out.
 * *worst gets the worse operation's excess (a stride of 3 floats read and
 * stored whole: 3), *all that of both together (2: the share of the bytes
 * moved that fixing it saves).
 */
static int
sector_excess(struct ctx *c, double *worst, double *all)
{
	static const char *const op[] = { "ld", "st" };
	char m[96];
	double b, s, q, need, tot = 0, ideal = 0;
	size_t i;

	*worst = 0;
	for (i = 0; i < 2; i++) {
		snprintf(m, sizeof(m), "smsp__sass_average_data_bytes_per_sector_mem_global_op_%s.ratio",
		    op[i]);
		if (kp_rules_raw(c, m, &b) != 0 || b <= 0)
			continue;
		snprintf(m, sizeof(m), "l1tex__t_sectors_pipe_lsu_mem_global_op_%s.sum", op[i]);
		if (kp_rules_raw(c, m, &s) != 0 || s <= 0)
			continue;
		snprintf(m, sizeof(m), "l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum", op[i]);
		if (kp_rules_raw(c, m, &q) != 0 || q <= 0)
			continue;
		need = b * s / 32 > q ? b * s / 32 : q;
		if (s / need > *worst)
			*worst = s / need;
		tot += s;
		ideal += need;
	}
	if (ideal <= 0)
		return -1;
	*all = tot / ideal;
	return 0;
}

/*
 * The metrics' view of src.async_pipeline, for a kernel without a page (a
 * library's, or before the source pass): warpgroup MMAs executed and
 * asynchronous copies (the TMA pipe's cycles or instructions, cp.async's
 * LDGSTS).  0 when no warpgroup MMA ran, or none of the copies did where
 * all were measured; absent when the MMAs were not measured, or ran while
 * no copy ran where only some copies were measured.
 */
static int
async_pipeline(struct ctx *c, double *out)
{
	static const char *const gmma[] = {
		"sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
		"sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed", NULL };
	static const char *const tma[] = {
		"sm__pipe_tma_cycles_active.avg.pct_of_peak_sustained_elapsed",
		"sm__inst_executed_pipe_tma.avg.pct_of_peak_sustained_active", NULL };
	static const char *const ldgsts[] = { "smsp__inst_executed_op_ldgsts.sum",
		"sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum", NULL };
	double g, t, l;
	int ht, hl;

	if (first(c, gmma, 2, &g) != 0)
		return -1;
	if (g <= 0)
		return *out = 0, 0;
	ht = sum_of(c, tma, &t) == 0;
	hl = sum_of(c, ldgsts, &l) == 0;
	if ((ht && t > 0) || (hl && l > 0))
		return *out = 1, 0;
	if (ht && hl)
		return *out = 0, 0;
	return -1;
}

/* Warps waiting for other threads: at a barrier for the slowest warp, at a
 * memory fence until earlier writes are visible, asleep in a spin-wait on a
 * flag; the summary's stall shares, else the source page's. */
static int
sync_stall(struct ctx *c, double *out)
{
	static const char *const r[] = { "any_stall_share.barrier", "any_stall_share.membar",
		"any_stall_share.sleeping" };
	double v;
	size_t i;
	int have = 0;

	*out = 0;
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (kp_rules_value(c, r[i], &v) == 0)
			*out += v, have = 1;
	*out = clamp01(*out);
	return have ? 0 : -1;
}

/* A wait at a barrier plus the staging loads the barrier keeps from
 * overlapping anything (a tile loaded, waited for, then met at the
 * barrier): the page's staging share, none without a page. */
static double
plus_staging(struct ctx *c, double wait)
{
	double s;

	if (kp_rules_value(c, "src.staging_share", &s) != 0)
		s = 0;
	return clamp01(wait + s);
}

int
kp_rules_derive_more(struct ctx *c, const char *name, double *out, int *rc)
{
	static const char *const atomreq[] = { "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
		"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", NULL };
	static const char *const allreq[] = { "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
		"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
		"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
		"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", NULL };
	static const char *const localreq[] = { "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
		"l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", NULL };
	static const char *const sharedwf[] = {
		"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
		"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", NULL };
	static const char *const l1sect[] = { "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
		"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
		"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
		"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", NULL };
	double a, b;
	size_t i;

	*rc = -1;
	if (strncmp(name, "pipe.", 5) == 0) {
		for (i = 0; i < NPIPES; i++)
			if (strcmp(pipes[i].id, name + 5) == 0)
				*rc = pipe_pct(c, &pipes[i], out);
	} else if (strcmp(name, "busiest_pipe_pct") == 0) {
		*rc = busiest_pipe(c, out) != NULL ? 0 : -1;
	} else if (strcmp(name, "issue_active_pct") == 0) {
		*rc = first(c, issue_m, 3, out);
	} else if (strcmp(name, "issue_idle_share") == 0) {
		/* cycles in which nothing issued: all that hiding latency can win */
		if (first(c, issue_m, 3, &a) == 0)
			*out = clamp01(1 - a / 100), *rc = 0;
	} else if (strcmp(name, "busiest_unit_pct") == 0) {
		*rc = busiest_unit(c, out) != NULL ? 0 : -1;
	} else if (strncmp(name, "frac.", 5) == 0) {
		if (kp_rules_value(c, name + 5, &a) == 0)
			*out = clamp01(a / 100), *rc = 0;
	} else if (strncmp(name, "src.stall_share.", 16) == 0) {
		*rc = src_share(c, "stall_samples", name + 16, out);
	} else if (strncmp(name, "src.kind_share.", 15) == 0) {
		*rc = src_share(c, "kind_samples", name + 15, out);
	} else if (strcmp(name, "src.unattributed_share") == 0) {
		*rc = src_ratio(c, "unattributed_samples", "samples", out);
	} else if (strcmp(name, "src.staging_share") == 0) {
		*rc = src_ratio(c, "staging_samples", "samples", out);
	} else if (strcmp(name, "barrier_exposed_share") == 0) {
		if (kp_rules_value(c, "any_stall_share.barrier", &a) == 0)
			*out = plus_staging(c, a), *rc = 0;
	} else if (strcmp(name, "sync_stall_share") == 0) {
		*rc = sync_stall(c, out);
	} else if (strcmp(name, "sync_exposed_share") == 0) {
		if (sync_stall(c, &a) == 0)
			*out = plus_staging(c, a), *rc = 0;
	} else if (strcmp(name, "src.async_pipeline") == 0) {
		/* built on asynchronous copies and warpgroup MMAs:
		 * latency hidden inside each warp, few warps by design */
		if (src_num(c, "async_copy_instructions", &a) == 0 &&
		    src_num(c, "async_mma_instructions", &b) == 0)
			*out = a > 0 && b > 0, *rc = 0;
	} else if (strcmp(name, "async_pipeline") == 0) {
		*rc = async_pipeline(c, out);
	} else if (strcmp(name, "src.fma_per_load") == 0) {
		/* FFMA/HFMA2 executed per global or shared load executed: a
		 * matrix product streams its operands (source_evidence.c) */
		if (src_num(c, "fma_instructions_executed", &a) == 0 &&
		    src_num(c, "load_instructions_executed", &b) == 0)
			*out = a / (b > 1 ? b : 1), *rc = 0;
	} else if (strcmp(name, "src.threads_per_inst") == 0) {
		*rc = src_num(c, "threads_per_inst", out);
	} else if (strcmp(name, "src.divergent_branches") == 0) {
		*rc = src_num(c, "divergent_branches", out);
	} else if (strcmp(name, "src.shared_excess") == 0) {
		*rc = src_ratio(c, "shared_wavefronts", "shared_wavefronts_ideal", out);
	} else if (strcmp(name, "src.sector_excess") == 0) {
		*rc = src_ratio(c, "global_sectors", "global_sectors_ideal", out);
	} else if (strcmp(name, "sector_excess") == 0) {
		*rc = sector_excess(c, out, &a);
	} else if (strncmp(name, "any_stall_share.", 16) == 0) {
		char key[96];

		snprintf(key, sizeof(key), "stall_share.%s", name + 16);
		if ((*rc = kp_rules_value(c, key, out)) != 0) {
			snprintf(key, sizeof(key), "src.stall_share.%s", name + 16);
			*rc = kp_rules_value(c, key, out);
		}
	} else if (strcmp(name, "lanes_idle_share") == 0) {
		if (kp_rules_value(c, "threads_per_inst", &a) == 0 ||
		    kp_rules_value(c, "src.threads_per_inst", &a) == 0)
			*out = clamp01(1 - a / 32), *rc = 0;
	} else if (strcmp(name, "sectors_wasted_share") == 0) {
		/* the page's excess, else the metrics' for loads and stores
		 * together (kp_rules_value records sector_excess as used) */
		if ((kp_rules_value(c, "src.sector_excess", &a) == 0 ||
		    (kp_rules_value(c, "sector_excess", &b) == 0 &&
		    sector_excess(c, &b, &a) == 0)) && a > 0)
			*out = clamp01(1 - 1 / a), *rc = 0;
		else {
			/* 16 sectors a request (16-byte accesses) waste the least; the
			 * worse of loads and stores */
			if (kp_rules_value(c, "global_load_sectors_per_request", &a) == 0 && a > 0)
				*out = clamp01(1 - 16 / a), *rc = 0;
			if (kp_rules_value(c, "global_store_sectors_per_request", &b) == 0 && b > 0 &&
			    (*rc != 0 || clamp01(1 - 16 / b) > *out))
				*out = clamp01(1 - 16 / b), *rc = 0;
		}
	} else if (strcmp(name, "bank_conflict_share") == 0) {
		if (kp_rules_value(c, "src.shared_excess", &a) == 0 && a > 0)
			*out = clamp01(1 - 1 / a), *rc = 0;
		else
			*rc = kp_rules_value(c, "shared_conflict_share", out);
	} else if (strcmp(name, "sm_idle_share") == 0) {
		/* measured: the share of the kernel's cycles an average SM held
		 * no warp (a partial last wave, blocks of unequal work, a grid
		 * too small), less the fill and drain every launch pays */
		if (kp_rules_raw(c, "sm__cycles_active.avg", &a) == 0 &&
		    kp_rules_raw(c, "sm__cycles_elapsed.avg", &b) == 0 && b > 0)
			*out = clamp01((b - a - KP_LAUNCH_RAMP_CYCLES) / b), *rc = 0;
	} else if (strcmp(name, "idle_sm_share") == 0) {
		/* the grid's geometry, or the measured idle time if larger */
		if (kp_rules_value(c, "blocks_per_sm", &a) == 0) {
			*out = clamp01(1 - a);
			if (kp_rules_value(c, "waves_per_sm", &b) == 0 && clamp01(1 - b) > *out)
				*out = clamp01(1 - b);
			*rc = 0;
		}
		if (kp_rules_value(c, "sm_idle_share", &a) == 0 && (*rc != 0 || a > *out))
			*out = a, *rc = 0;
	} else if (strcmp(name, "atomic_request_share") == 0) {
		if (sum_of(c, atomreq, &a) == 0 && sum_of(c, allreq, &b) == 0 && b > 0)
			*out = a / b, *rc = 0;
	} else if (strcmp(name, "atomic_inst_share") == 0) {
		if (sum_of(c, atomreq, &a) == 0 &&
		    kp_rules_raw(c, "smsp__inst_executed.sum", &b) == 0 && b > 0)
			*out = a / b, *rc = 0;
	} else if (strcmp(name, "l2_atomic_imbalance") == 0) {
		if (kp_rules_raw(c, "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed", &a) == 0 &&
		    kp_rules_raw(c, "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed", &b) == 0)
			*out = b > 0 ? a / b : (a > 0 ? 1000 : 1), *rc = 0;
	} else if (strcmp(name, "local_request_share") == 0) {
		if (sum_of(c, localreq, &a) == 0 && sum_of(c, allreq, &b) == 0 && a + b > 0)
			*out = a / (a + b), *rc = 0;
	} else if (strcmp(name, "local_time_share") == 0) {
		/* the larger of the source page's samples on local loads and
		 * stores and the local share of requests times the busiest memory
		 * level: spills that fill L2 stall little where they issue */
		int hs = kp_rules_value(c, "src.kind_share.local", &a) == 0, hr;
		double m;

		hr = kp_rules_value(c, "local_request_share", &b) == 0 &&
		    kp_rules_value(c, "memory_busiest_pct", &m) == 0;
		if (hr)
			b *= clamp01(m / 100);
		if ((*rc = larger_present(hs, a, hr, b, out)) == 0)
			*out = clamp01(*out);
	} else if (strcmp(name, "coalescing_time_share") == 0) {
		/* wasted sectors cost time as far as the level that carries them
		 * is busy: the waste share times the busiest of DRAM, L2 and L1
		 * (a dependent gather with idle memory waits on latency, not on
		 * the bytes it throws away) */
		double l1, busy;
		int hm = kp_rules_value(c, "memory_busiest_pct", &b) == 0;
		int hl = kp_rules_raw(c, "l1tex_throughput_pct", &l1) == 0;

		if (larger_present(hm, b, hl, l1, &busy) == 0 &&
		    kp_rules_value(c, "sectors_wasted_share", &a) == 0)
			*out = clamp01(a * clamp01(busy / 100)), *rc = 0;
	} else if (strcmp(name, "memory_busiest_pct") == 0) {
		int hd = kp_rules_raw(c, "dram_throughput_pct", &a) == 0;
		int hl = kp_rules_raw(c, "l2_throughput_pct", &b) == 0;

		*rc = larger_present(hd, a, hl, b, out);
	} else if (strcmp(name, "compute_busy_pct") == 0) {
		int hp = busiest_pipe(c, &a) != NULL, hi = first(c, issue_m, 3, &b) == 0;

		*rc = larger_present(hp, a, hi, b, out);
	} else if (strcmp(name, "top_stall_share") == 0) {
		*rc = top_stall(c, out) != NULL ? 0 : -1;
	} else if (strcmp(name, "atomic_time_share") == 0) {
		/* the larger of the source page's samples on atomic instructions
		 * and the busiest L2 slice's atomic unit: RED instructions do not
		 * stall where they issue, their cost shows in the slice */
		int hs = kp_rules_value(c, "src.kind_share.atomic", &a) == 0;
		int hu = kp_rules_raw(c, atomic_max_m, &b) == 0;

		if ((*rc = larger_present(hs, a, hu, b / 100, out)) == 0)
			*out = clamp01(*out);
	} else if (strcmp(name, "l1_shared_share") == 0) {
		/* shared wavefronts against them plus global and local sectors:
		 * how much of what L1 moves is shared memory (a rough share, a
		 * wavefront carrying up to four sectors) */
		if (sum_of(c, sharedwf, &a) == 0 && sum_of(c, l1sect, &b) == 0 && a + b > 0)
			*out = a / (a + b), *rc = 0;
		else if (src_num(c, "shared_wavefronts", &a) == 0 &&
		    src_num(c, "global_sectors", &b) == 0 && a + b > 0)
			*out = a / (a + b), *rc = 0;
	} else if (strcmp(name, "occupancy_headroom") == 0) {
		if (kp_rules_value(c, "theoretical_occupancy_pct", &a) == 0)
			*out = clamp01(1 - a / 100), *rc = 0;
	} else
		return 0;
	return 1;
}

const char *
kp_rules_derive_text(struct ctx *c, const char *name)
{
	const struct pipe *p;
	double v;

	if (strcmp(name, "busiest_pipe") == 0)
		return (p = busiest_pipe(c, &v)) != NULL ? p->label : "n/a";
	if (strcmp(name, "top_stall") == 0) {
		const char *t = top_stall(c, &v);
		return t != NULL ? t : "n/a";
	}
	if (strcmp(name, "busiest_unit") == 0) {
		const char *u = busiest_unit(c, &v);
		return u != NULL ? u : "n/a";
	}
	return NULL;
}

const char *
kp_rules_derive_inputs(const char *name)
{
	static const char *const d[][2] = {
		{ "pipe.tensor", " (sm__pipe_tensor_cycles_active, the share of it that is matrix instructions: sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active + sm__pipe_tensor_op_dmma_cycles_active)" },
		{ "pipe.", " (the pipe's sm__inst_executed_pipe_* or sm__pipe_*_cycles_active)" },
		{ "busiest_pipe_pct", " (sm__inst_executed_pipe_* / sm__pipe_*_cycles_active)" },
		{ "issue_active_pct", " (smsp__issue_active, sm__issue_active)" },
		{ "issue_idle_share", " (smsp__issue_active, sm__issue_active)" },
		{ "busiest_unit_pct", " (DRAM, L2, L1 throughput, the busiest L2 slice's atomic unit, pipes, issue slots)" },
		{ "atomic_time_share", " (the source page's atomic samples, lts__d_atomic_input_cycles_active.max)" },
		{ "src.async_pipeline", " (the source page's asynchronous copies, TMA or cp.async, and warpgroup MMAs, source_evidence.json)" },
		{ "async_pipeline", " (sm__inst_executed_pipe_tensor_op_gmma, and sm__pipe_tma_cycles_active, sm__inst_executed_pipe_tma or smsp__inst_executed_op_ldgsts)" },
		{ "src.fma_per_load", " (the source page's FFMA and HFMA2 over its global and shared loads, instructions executed)" },
		{ "src.", " (the source page, kp-hotspots' source_evidence.json)" },
		{ "any_stall_share.", " (summary stalls or the source page)" },
		{ "lanes_idle_share", " (threads per instruction, section or source page)" },
		{ "sector_excess", " (smsp__sass_average_data_bytes_per_sector_mem_global_op_{ld,st}.ratio, l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum, l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum)" },
		{ "coalescing_time_share", " (sectors_wasted_share, dram_throughput_pct, l2_throughput_pct, l1tex_throughput_pct)" },
		{ "sectors_wasted_share", " (the source page's L2 sectors vs ideal, the bytes used per sector, or sectors per request)" },
		{ "bank_conflict_share", " (the source page's shared wavefronts vs ideal, or bank conflicts)" },
		{ "sm_idle_share", " (sm__cycles_active.avg, sm__cycles_elapsed.avg)" },
		{ "idle_sm_share", " (grid_size, sm_count, waves, sm__cycles_active.avg)" },
		{ "atomic_request_share", " (l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st,atom,red}.sum)" },
		{ "atomic_inst_share", " (l1tex__t_requests_pipe_lsu_mem_global_op_{atom,red}.sum, smsp__inst_executed.sum)" },
		{ "l2_atomic_imbalance", " (lts__d_atomic_input_cycles_active .max and .avg)" },
		{ "local_request_share", " (l1tex__t_requests_pipe_lsu_mem_local_op_{ld,st}.sum)" },
		{ "occupancy_headroom", " (theoretical_occupancy_pct)" },
		{ "local_time_share", " (the source page's local samples, local and global requests, DRAM and L2 throughput)" },
		{ "barrier_exposed_share", " (barrier stalls, the source page's shared stores waiting on global loads)" },
		{ "sync_stall_share", " (barrier, membar and sleeping stalls: summary stalls or the source page)" },
		{ "sync_exposed_share", " (barrier, membar and sleeping stalls, the source page's shared stores waiting on global loads)" },
		{ "l1_shared_share", " (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum, l1tex__t_sectors_pipe_lsu_mem_{global,local}_op_{ld,st}.sum, or the source page's)" },
		{ "memory_busiest_pct", " (dram_throughput_pct, l2_throughput_pct)" },
		{ "compute_busy_pct", " (the busiest pipe, the issue slots)" },
		{ "top_stall_share", " (summary stalls or the source page's stall samples)" },
	};
	size_t i, n;

	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		n = strlen(d[i][0]);
		if (strncmp(d[i][0], name, n) == 0 && (d[i][0][n - 1] == '.' || name[n] == '\0'))
			return d[i][1];
	}
	return NULL;
}
