/*
 * summary_keys.c: the summary keys of metrics_summary.json and the ncu metrics
 * (raw page) or display names (details page) each is taken from.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kp_summary_keys.h"

#define STALL_PRE "smsp__average_warps_issue_stalled_"
#define STALL_SUF "_per_issue_active.ratio"

/* name, base unit, meaning (kp-report's evidence table), where it comes from;
 * the sources themselves are raw_sources and display_sources below. */
const struct kp_summary_key kp_summary_keys[KP_NSKEYS] = {
	{ "duration_ns", "ns", "GPU time of one launch (median over launches)",
	    "gpu__time_duration.sum" },
	{ "sm_throughput_pct", "%", "busiest SM pipeline or unit, % of its peak",
	    "sm__throughput.avg.pct_of_peak_sustained_elapsed" },
	{ "memory_throughput_pct", "%", "busiest memory unit (L1, L2, DRAM), % of its peak",
	    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed" },
	{ "dram_throughput_pct", "%", "DRAM bandwidth used, % of peak",
	    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed, else"
	    " dram__throughput.avg.pct_of_peak_sustained_elapsed" },
	{ "l1tex_throughput_pct", "%", "L1/TEX and shared memory throughput, % of peak",
	    "l1tex__throughput.avg.pct_of_peak_sustained_active" },
	{ "l2_throughput_pct", "%", "L2 throughput, % of peak",
	    "lts__throughput.avg.pct_of_peak_sustained_elapsed" },
	{ "achieved_occupancy_pct", "%", "active warps per SM, % of the hardware maximum",
	    "sm__warps_active.avg.pct_of_peak_sustained_active" },
	{ "theoretical_occupancy_pct", "%", "warps per SM the launch allows, % of the maximum",
	    "sm__maximum_warps_per_active_cycle_pct" },
	{ "registers_per_thread", "register/thread", "registers per thread (limits occupancy)",
	    "launch__registers_per_thread" },
	{ "block_size", "thread", "threads per block", "launch__block_size" },
	{ "grid_size", "block", "blocks in the grid", "launch__grid_size" },
	{ "waves_per_sm", "", "waves of blocks per SM (below 1: the GPU is not filled)",
	    "launch__waves_per_multiprocessor" },
	{ "ipc", "inst/cycle", "instructions issued per cycle per SM",
	    "sm__inst_executed.avg.per_cycle_active" },
	{ "shared_bank_conflicts", "", "shared-memory bank conflicts (serialised accesses)",
	    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum, added" },
	{ "l1tex_hit_rate_pct", "%", "L1/TEX cache hit rate", "l1tex__t_sector_hit_rate.pct" },
	{ "l2_hit_rate_pct", "%", "L2 cache hit rate", "lts__t_sector_hit_rate.pct" },
	{ "tensor_pipe_pct", "%", "tensor-core pipe utilisation, % of peak",
	    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "local_spill_requests", "", "local-memory (register spill) requests",
	    "l1tex__t_requests_pipe_lsu_mem_local_op_{ld,st}.sum, added" },
};

const struct kp_summary_key *
kp_summary_key(const char *name)
{
	size_t i;

	for (i = 0; i < KP_NSKEYS; i++)
		if (strcmp(kp_summary_keys[i].name, name) == 0)
			return &kp_summary_keys[i];
	return NULL;
}


/*
 * The raw page's sources of the keys: metric, key, rank (lower wins within a
 * launch), sum (the sources add up).
 */
#define RAW_SOURCES(X) \
	X("gpu__time_duration.sum", KP_SK_DURATION, 0, 0) \
	X("sm__throughput.avg.pct_of_peak_sustained_elapsed", KP_SK_SM, 0, 0) \
	X("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", KP_SK_MEM, 0, 0) \
	X("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", KP_SK_DRAM, 0, 0) \
	X("dram__throughput.avg.pct_of_peak_sustained_elapsed", KP_SK_DRAM, 1, 0) \
	X("l1tex__throughput.avg.pct_of_peak_sustained_active", KP_SK_L1, 0, 0) \
	X("lts__throughput.avg.pct_of_peak_sustained_elapsed", KP_SK_L2, 0, 0) \
	X("sm__warps_active.avg.pct_of_peak_sustained_active", KP_SK_ACHIEVED, 0, 0) \
	X("sm__maximum_warps_per_active_cycle_pct", KP_SK_THEORETICAL, 0, 0) \
	X("launch__registers_per_thread", KP_SK_REGS, 0, 0) \
	X("launch__block_size", KP_SK_BLOCK, 0, 0) \
	X("launch__grid_size", KP_SK_GRID, 0, 0) \
	X("launch__waves_per_multiprocessor", KP_SK_WAVES, 0, 0) \
	X("sm__inst_executed.avg.per_cycle_active", KP_SK_IPC, 0, 0) \
	X("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", KP_SK_BANK, 0, 1) \
	X("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", KP_SK_BANK, 0, 1) \
	X("l1tex__t_sector_hit_rate.pct", KP_SK_L1HIT, 0, 0) \
	X("lts__t_sector_hit_rate.pct", KP_SK_L2HIT, 0, 0) \
	X("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", KP_SK_TENSOR, 0, 0) \
	X("l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", KP_SK_SPILL, 0, 1) \
	X("l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", KP_SK_SPILL, 0, 1)

#define SRC(m, key, rank, sum) { m, sizeof(m) - 1, key, rank, sum },
static const struct source {
	const char *metric;
	size_t len;
	int key, rank, sum;
} raw_sources[] = { RAW_SOURCES(SRC) };
#undef SRC

/* bit (len % 64) of each source's length: most names are turned away by it */
#define LENBIT(m, key, rank, sum) | (uint64_t)1 << ((sizeof(m) - 1) % 64)
static const uint64_t source_lens = 0 RAW_SOURCES(LENBIT);
#undef LENBIT

/* Details-page display names: the same quantities as raw_sources (checked on
 * the import_raw/import_details pairs of tests/fixtures/h200). */
static const struct display {
	const char *section, *name;
	int key;
} display_sources[] = {
	{ "GPU Speed Of Light Throughput", "Duration", KP_SK_DURATION },
	{ "GPU Speed Of Light Throughput", "Compute (SM) Throughput", KP_SK_SM },
	{ "GPU Speed Of Light Throughput", "Memory Throughput", KP_SK_MEM },
	{ "GPU Speed Of Light Throughput", "DRAM Throughput", KP_SK_DRAM },
	{ "GPU Speed Of Light Throughput", "L1/TEX Cache Throughput", KP_SK_L1 },
	{ "GPU Speed Of Light Throughput", "L2 Cache Throughput", KP_SK_L2 },
	{ "Occupancy", "Achieved Occupancy", KP_SK_ACHIEVED },
	{ "Occupancy", "Theoretical Occupancy", KP_SK_THEORETICAL },
	{ "Launch Statistics", "Registers Per Thread", KP_SK_REGS },
	{ "Launch Statistics", "Block Size", KP_SK_BLOCK },
	{ "Launch Statistics", "Grid Size", KP_SK_GRID },
	{ "Launch Statistics", "Waves Per SM", KP_SK_WAVES },
	{ "Compute Workload Analysis", "Executed Ipc Active", KP_SK_IPC },
	{ "Memory Workload Analysis", "L1/TEX Hit Rate", KP_SK_L1HIT },
	{ "Memory Workload Analysis", "L2 Hit Rate", KP_SK_L2HIT },
};

/* The stall reason of a stall metric (STALL_PRE reason STALL_SUF): its length,
 * *reason pointing into metric; 0 when metric is no stall metric. */
size_t
kp_summary_stall_of_metric(const char *metric, const char **reason)
{
	size_t n = strlen(metric), pl = strlen(STALL_PRE), sl = strlen(STALL_SUF);

	if (n <= pl + sl || strncmp(metric, STALL_PRE, pl) != 0 ||
	    strcmp(metric + n - sl, STALL_SUF) != 0)
		return 0;
	*reason = metric + pl;
	return n - pl - sl;
}

int
kp_summary_key_of_metric(const char *metric, int *rank, int *sum)
{
	size_t i, n = strlen(metric);

	*rank = 0;
	*sum = 0;
	/* a full-set page asks for thousands of metrics: the length turns
	 * nearly all of them away before the bytes are compared */
	if ((source_lens >> (n % 64) & 1) == 0)
		return -2;
	for (i = 0; i < sizeof(raw_sources) / sizeof(raw_sources[0]); i++)
		if (raw_sources[i].len == n && memcmp(raw_sources[i].metric, metric, n) == 0) {
			*rank = raw_sources[i].rank;
			*sum = raw_sources[i].sum;
			return raw_sources[i].key;
		}
	return -2;
}

int
kp_metric_feeds_summary(const char *metric)
{
	const char *reason;
	int rank, sum;

	return kp_summary_key_of_metric(metric, &rank, &sum) >= 0 ||
	    kp_summary_stall_of_metric(metric, &reason) > 0;
}

int
kp_summary_key_of_display(const char *section, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(display_sources) / sizeof(display_sources[0]); i++)
		if (strcmp(display_sources[i].section, section) == 0 &&
		    strcmp(display_sources[i].name, name) == 0)
			return display_sources[i].key;
	return -2;
}
