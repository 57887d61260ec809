/*
 * Unit tests for the rules module (rules.c, rules_eval.c): loading and
 * validating rules files, the classification of the four captured H200
 * kernels, scoring (causes over symptoms), not-evaluated rules, hotspots and
 * kp-collect's follow-up choice.
 *
 * The kernel objects below are written by hand in the metrics summary's
 * layout, with values copied from tests/fixtures/h200/<kernel>/full_raw.csv
 * (the *_kernel objects: summary keys, stalls and the few full metrics the
 * rules use) and basic_raw.csv (the *_basic objects: what --set basic gives).
 * Percentages and counts are ncu's numbers unchanged.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_atomic.h"
#include "rules_int.h"
#include "kp_diag.h"
#include "kp_hotspots.h"
#include "kp_rules.h"

static const char hgemm_v0_kernel[] =
    "{\"device\": \"NVIDIA H200\", \"function\": \"hgemm_v0\", \"metrics\": {\"l1tex__data_pipe_lsu_wavefr"
    "onts_mem_shared_op_ld.sum\": 335683986.0, \"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st"
    ".sum\": 34375815.0, \"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\": 33554432.0, \"l1tex__"
    "t_sectors_pipe_lsu_mem_global_op_ld.sum\": 67108864.0, \"launch__occupancy_limit_blocks\": 32"
    ".0, \"launch__occupancy_limit_registers\": 8.0, \"launch__occupancy_limit_shared_mem\": 16.0, "
    "\"launch__occupancy_limit_warps\": 8.0, \"launch__sm_count\": 132.0, \"sm__inst_executed_pipe_f"
    "ma_type_fp16.avg.pct_of_peak_sustained_active\": 53.93, \"sm__inst_executed_pipe_tensor_op_h"
    "mma.avg.pct_of_peak_sustained_active\": 0.01, \"smsp__thread_inst_executed_per_inst_executed"
    ".ratio\": 32.0, \"smsp__warps_eligible.avg.per_cycle_active\": 4.84}, \"name\": \"hgemm_v0\", \"su"
    "mmary\": {\"achieved_occupancy_pct\": 97.53, \"block_size\": 256.0, \"dram_throughput_pct\": 0.19"
    ", \"grid_size\": 16384.0, \"ipc\": 3.08, \"l1tex_throughput_pct\": 89.62, \"l2_throughput_pct\": 1"
    "9.83, \"local_spill_requests\": 0.0, \"memory_throughput_pct\": 89.19, \"registers_per_thread\":"
    " 32.0, \"shared_bank_conflicts\": 961049.0, \"sm_throughput_pct\": 80.59, \"stalls\": {\"barrier\""
    ": 3.61, \"branch_resolving\": 0.03, \"dispatch_stall\": 0.68, \"drain\": 0.0, \"gmma\": 0.0, \"imc_"
    "miss\": 0.0, \"lg_throttle\": 0.0, \"long_scoreboard\": 3.35, \"math_pipe_throttle\": 1.09, \"memb"
    "ar\": 0.0, \"mio_throttle\": 3.19, \"misc\": 0.0, \"no_instruction\": 0.05, \"not_selected\": 5.28,"
    " \"selected\": 1.0, \"short_scoreboard\": 0.44, \"sleeping\": 0.0, \"tex_throttle\": 0.0, \"wait\": "
    "1.56}, \"tensor_pipe_pct\": 0.01, \"theoretical_occupancy_pct\": 100.0, \"waves_per_sm\": 15.52}"
    "}";
static const char hgemm_v0_basic[] =
    "{\"device\": \"NVIDIA H200\", \"function\": \"hgemm_v0\", \"metrics\": {\"launch__occupancy_limit_blo"
    "cks\": 32.0, \"launch__occupancy_limit_registers\": 8.0, \"launch__occupancy_limit_shared_mem\""
    ": 16.0, \"launch__occupancy_limit_warps\": 8.0, \"launch__sm_count\": 132.0}, \"name\": \"hgemm_v"
    "0\", \"summary\": {\"achieved_occupancy_pct\": 97.56, \"block_size\": 256.0, \"dram_throughput_pct"
    "\": 0.19, \"grid_size\": 16384.0, \"l1tex_throughput_pct\": 89.65, \"l2_throughput_pct\": 20.03, "
    "\"memory_throughput_pct\": 89.37, \"registers_per_thread\": 32.0, \"sm_throughput_pct\": 80.74, "
    "\"theoretical_occupancy_pct\": 100.0, \"waves_per_sm\": 15.52}}";
static const char hgemm_v1_kernel[] =
    "{\"device\": \"NVIDIA H200\", \"function\": \"hgemm_v1\", \"metrics\": {\"l1tex__data_pipe_lsu_wavefr"
    "onts_mem_shared_op_ld.sum\": 0.0, \"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum\": 0"
    ".0, \"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\": 16777216.0, \"l1tex__t_sectors_pipe_"
    "lsu_mem_global_op_ld.sum\": 134217728.0, \"launch__occupancy_limit_blocks\": 32.0, \"launch__o"
    "ccupancy_limit_registers\": 3.0, \"launch__occupancy_limit_shared_mem\": 16.0, \"launch__occup"
    "ancy_limit_warps\": 4.0, \"launch__sm_count\": 132.0, \"sm__inst_executed_pipe_fma_type_fp16.a"
    "vg.pct_of_peak_sustained_active\": 0.0, \"sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_p"
    "eak_sustained_active\": 1.46, \"smsp__thread_inst_executed_per_inst_executed.ratio\": 32.0, \""
    "smsp__warps_eligible.avg.per_cycle_active\": 0.32}, \"name\": \"hgemm_v1\", \"summary\": {\"achiev"
    "ed_occupancy_pct\": 68.55, \"block_size\": 512.0, \"dram_throughput_pct\": 0.57, \"grid_size\": 1"
    "024.0, \"ipc\": 0.43, \"l1tex_throughput_pct\": 99.61, \"l2_throughput_pct\": 16.94, \"local_spil"
    "l_requests\": 0.0, \"memory_throughput_pct\": 96.19, \"registers_per_thread\": 40.0, \"shared_ba"
    "nk_conflicts\": 0.0, \"sm_throughput_pct\": 16.99, \"stalls\": {\"barrier\": 0.0, \"branch_resolvi"
    "ng\": 0.03, \"dispatch_stall\": 0.31, \"drain\": 0.12, \"gmma\": 0.0, \"imc_miss\": 0.01, \"lg_throt"
    "tle\": 11.51, \"long_scoreboard\": 41.73, \"math_pipe_throttle\": 0.07, \"membar\": 0.0, \"mio_thr"
    "ottle\": 36.71, \"misc\": 0.0, \"no_instruction\": 0.05, \"not_selected\": 2.0, \"selected\": 1.0, "
    "\"short_scoreboard\": 6.93, \"sleeping\": 0.0, \"tex_throttle\": 0.0, \"wait\": 2.01}, \"tensor_pip"
    "e_pct\": 4.37, \"theoretical_occupancy_pct\": 75.0, \"waves_per_sm\": 2.59}}";
static const char hgemm_v1_basic[] =
    "{\"device\": \"NVIDIA H200\", \"function\": \"hgemm_v1\", \"metrics\": {\"launch__occupancy_limit_blo"
    "cks\": 32.0, \"launch__occupancy_limit_registers\": 3.0, \"launch__occupancy_limit_shared_mem\""
    ": 16.0, \"launch__occupancy_limit_warps\": 4.0, \"launch__sm_count\": 132.0}, \"name\": \"hgemm_v"
    "1\", \"summary\": {\"achieved_occupancy_pct\": 68.55, \"block_size\": 512.0, \"dram_throughput_pct"
    "\": 0.57, \"grid_size\": 1024.0, \"l1tex_throughput_pct\": 99.61, \"l2_throughput_pct\": 16.95, \""
    "memory_throughput_pct\": 96.12, \"registers_per_thread\": 40.0, \"sm_throughput_pct\": 16.98, \""
    "theoretical_occupancy_pct\": 75.0, \"waves_per_sm\": 2.59}}";
static const char stream_triad_kernel[] =
    "{\"device\": \"NVIDIA H200\", \"function\": \"stream_triad\", \"metrics\": {\"l1tex__data_pipe_lsu_wa"
    "vefronts_mem_shared_op_ld.sum\": 0.0, \"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
    "\": 0.0, \"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\": 1048576.0, \"l1tex__t_sectors_pi"
    "pe_lsu_mem_global_op_ld.sum\": 16777216.0, \"launch__occupancy_limit_blocks\": 32.0, \"launch_"
    "_occupancy_limit_registers\": 10.0, \"launch__occupancy_limit_shared_mem\": 32.0, \"launch__oc"
    "cupancy_limit_warps\": 8.0, \"launch__sm_count\": 132.0, \"sm__inst_executed_pipe_fma_type_fp1"
    "6.avg.pct_of_peak_sustained_active\": 0.0, \"sm__inst_executed_pipe_tensor_op_hmma.avg.pct_o"
    "f_peak_sustained_active\": 0.0, \"smsp__thread_inst_executed_per_inst_executed.ratio\": 32.0,"
    " \"smsp__warps_eligible.avg.per_cycle_active\": 0.07}, \"name\": \"stream_triad\", \"summary\": {\""
    "achieved_occupancy_pct\": 97.01, \"block_size\": 256.0, \"dram_throughput_pct\": 87.29, \"grid_s"
    "ize\": 1056.0, \"ipc\": 0.23, \"l1tex_throughput_pct\": 22.98, \"l2_throughput_pct\": 90.65, \"loc"
    "al_spill_requests\": 0.0, \"memory_throughput_pct\": 87.29, \"registers_per_thread\": 20.0, \"sh"
    "ared_bank_conflicts\": 0.0, \"sm_throughput_pct\": 5.45, \"stalls\": {\"barrier\": 0.0, \"branch_r"
    "esolving\": 0.15, \"dispatch_stall\": 0.03, \"drain\": 0.03, \"gmma\": 0.0, \"imc_miss\": 0.07, \"lg"
    "_throttle\": 0.12, \"long_scoreboard\": 262.94, \"math_pipe_throttle\": 0.09, \"membar\": 0.0, \"m"
    "io_throttle\": 0.11, \"misc\": 0.0, \"no_instruction\": 0.21, \"not_selected\": 0.23, \"selected\":"
    " 1.0, \"short_scoreboard\": 0.04, \"sleeping\": 0.0, \"tex_throttle\": 0.0, \"wait\": 1.71}, \"tens"
    "or_pipe_pct\": 0.0, \"theoretical_occupancy_pct\": 100.0, \"waves_per_sm\": 1.0}}";
static const char stream_triad_basic[] =
    "{\"device\": \"NVIDIA H200\", \"function\": \"stream_triad\", \"metrics\": {\"launch__occupancy_limit"
    "_blocks\": 32.0, \"launch__occupancy_limit_registers\": 10.0, \"launch__occupancy_limit_shared"
    "_mem\": 32.0, \"launch__occupancy_limit_warps\": 8.0, \"launch__sm_count\": 132.0}, \"name\": \"st"
    "ream_triad\", \"summary\": {\"achieved_occupancy_pct\": 96.91, \"block_size\": 256.0, \"dram_throu"
    "ghput_pct\": 87.22, \"grid_size\": 1056.0, \"l1tex_throughput_pct\": 22.97, \"l2_throughput_pct\""
    ": 90.7, \"memory_throughput_pct\": 87.22, \"registers_per_thread\": 20.0, \"sm_throughput_pct\":"
    " 5.48, \"theoretical_occupancy_pct\": 100.0, \"waves_per_sm\": 1.0}}";
static const char triton_hgemm_kernel[] =
    "{\"device\": \"NVIDIA H200\", \"function\": \"triton_hgemm\", \"metrics\": {\"l1tex__data_pipe_lsu_wa"
    "vefronts_mem_shared_op_ld.sum\": 68677.0, \"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st"
    ".sum\": 73237.0, \"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\": 524288.0, \"l1tex__t_sec"
    "tors_pipe_lsu_mem_global_op_ld.sum\": 8388608.0, \"launch__occupancy_limit_blocks\": 32.0, \"l"
    "aunch__occupancy_limit_registers\": 3.0, \"launch__occupancy_limit_shared_mem\": 3.0, \"launch"
    "__occupancy_limit_warps\": 16.0, \"launch__sm_count\": 132.0, \"sm__inst_executed_pipe_fma_typ"
    "e_fp16.avg.pct_of_peak_sustained_active\": 0.0, \"sm__inst_executed_pipe_tensor_op_hmma.avg."
    "pct_of_peak_sustained_active\": 2.04, \"smsp__thread_inst_executed_per_inst_executed.ratio\":"
    " 32.0, \"smsp__warps_eligible.avg.per_cycle_active\": 0.26}, \"name\": \"triton_hgemm\", \"summar"
    "y\": {\"achieved_occupancy_pct\": 11.98, \"block_size\": 128.0, \"dram_throughput_pct\": 11.43, \""
    "grid_size\": 256.0, \"ipc\": 0.87, \"l1tex_throughput_pct\": 55.72, \"l2_throughput_pct\": 48.49,"
    " \"local_spill_requests\": 0.0, \"memory_throughput_pct\": 49.84, \"registers_per_thread\": 166."
    "0, \"shared_bank_conflicts\": 1369.0, \"sm_throughput_pct\": 58.4, \"stalls\": {\"barrier\": 1.36,"
    " \"branch_resolving\": 0.0, \"dispatch_stall\": 1.13, \"drain\": 0.15, \"gmma\": 0.2, \"imc_miss\": "
    "0.03, \"lg_throttle\": 0.14, \"long_scoreboard\": 3.0, \"math_pipe_throttle\": 0.09, \"membar\": 0"
    ".0, \"mio_throttle\": 0.09, \"misc\": 0.0, \"no_instruction\": 0.11, \"not_selected\": 0.18, \"sele"
    "cted\": 1.0, \"short_scoreboard\": 0.1, \"sleeping\": 0.0, \"tex_throttle\": 0.0, \"wait\": 1.15}, "
    "\"tensor_pipe_pct\": 65.28, \"theoretical_occupancy_pct\": 18.75, \"waves_per_sm\": 0.65}}";
static const char triton_hgemm_basic[] =
    "{\"device\": \"NVIDIA H200\", \"function\": \"triton_hgemm\", \"metrics\": {\"launch__occupancy_limit"
    "_blocks\": 32.0, \"launch__occupancy_limit_registers\": 3.0, \"launch__occupancy_limit_shared_"
    "mem\": 3.0, \"launch__occupancy_limit_warps\": 16.0, \"launch__sm_count\": 132.0}, \"name\": \"tri"
    "ton_hgemm\", \"summary\": {\"achieved_occupancy_pct\": 11.98, \"block_size\": 128.0, \"dram_throug"
    "hput_pct\": 11.52, \"grid_size\": 256.0, \"l1tex_throughput_pct\": 55.94, \"l2_throughput_pct\": "
    "48.44, \"memory_throughput_pct\": 51.96, \"registers_per_thread\": 166.0, \"sm_throughput_pct\":"
    " 60.9, \"theoretical_occupancy_pct\": 18.75, \"waves_per_sm\": 0.65}}";

static struct kp_rules *
shipped(void)
{
	struct kp_err err;
	struct kp_rules *r = kp_rules_load(KP_FIXTURES "/../../references/rules/bottleneck_rules.yaml",
	    &err);

	ck_assert_msg(r != NULL, "%s", err.msg);
	return r;
}

static json_t *
kernel(const char *text)
{
	json_error_t je;
	json_t *k = json_loads(text, 0, &je);

	ck_assert_msg(k != NULL, "%s", je.text);
	return k;
}

/* The decision on a kernel with the shipped rules and a source page's
 * evidence (source_evidence.json's keys). */
static json_t *
decide_with_page(const char *text, json_t *src)
{
	struct kp_err err;
	struct kp_rules *r = shipped();
	json_t *k = kernel(text), *d;

	kp_rules_set_evidence(r, src, NULL);
	d = kp_rules_decide(r, k, NULL, &err);
	ck_assert_msg(d != NULL, "%s", err.msg);
	json_decref(k);
	json_decref(src);
	kp_rules_free(r);
	return d;
}

/* The decision on a kernel with the shipped rules (new reference). */
static json_t *
decide(const char *text, json_t *hot)
{
	struct kp_err err;
	struct kp_rules *r = shipped();
	json_t *k = kernel(text), *d = kp_rules_decide(r, k, hot, &err);

	ck_assert_msg(d != NULL, "%s", err.msg);
	json_decref(k);
	kp_rules_free(r);
	return d;
}

static const char *
primary(json_t *d)
{
	return json_string_value(json_object_get(d, "primary"));
}

static json_t *
find(json_t *d, const char *cls)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(d, "findings"), i, f)
		if (strcmp(json_string_value(json_object_get(f, "class")), cls) == 0)
			return f;
	return NULL;
}

/* How many of finding f's next actions hold text. */
static int
actions_with(json_t *f, const char *text)
{
	json_t *a;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(f, "next_actions"), i, a)
		n += strstr(json_string_value(a), text) != NULL;
	return n;
}

static double
evidence_value(json_t *f, const char *metric)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(f, "evidence"), i, e)
		if (strcmp(json_string_value(json_object_get(e, "metric")), metric) == 0)
			return json_real_value(json_object_get(e, "value"));
	ck_abort_msg("no evidence on %s", metric);
	return NAN;
}

START_TEST(test_rules_shipped_file_covers_taxonomy)
{
	struct kp_rules *r = shipped();
	size_t i, j;

	for (i = 0; kp_rule_classes[i] != NULL; i++) {
		for (j = 0; j < r->nrules; j++)
			if (strcmp(r->rules[j].id, kp_rule_classes[i]) == 0)
				break;
		ck_assert_msg(j < r->nrules, "no rule for %s", kp_rule_classes[i]);
	}
	kp_rules_free(r);
}
END_TEST

START_TEST(test_rules_followup_defaults_equal_shipped_file)
{
	struct kp_rules *r = shipped();

	/* One source of truth: the shipped file holds every threshold. */
	ck_assert(r->fu.have);
	ck_assert(r->fu.memory_dominant_pct > 0 && r->fu.sm_dominant_pct > 0);
	ck_assert(r->fu.low_occupancy_pct > 0 && r->fu.occupancy_gap_ratio > 0);
	ck_assert(r->fu.low_both_pct > 0 && r->fu.low_ipc > 0);
	kp_rules_free(r);
}
END_TEST

/*
 * hgemm_v0: fp16 GEMM on CUDA cores.  The fp16 FMA pipe runs at 53.93 % of
 * its peak while the tensor pipe is active 0.01 % of cycles: half-precision
 * matrix math that tensor cores would do.  The high SM throughput (80.59 %,
 * IPC 3.08) is the symptom of doing it on the FMA and LSU pipes.  Bank
 * conflicts are not the cause: 961,049 conflicts over 370,059,801 shared
 * wavefronts is 0.26 %.  (v1, the same GEMM on tensor cores, is 3x faster.)
 */
START_TEST(test_decide_hgemm_v0_tensor_core_underuse)
{
	json_t *d = decide(hgemm_v0_kernel, NULL), *f;

	ck_assert_str_eq(primary(d), "tensor_core_underuse");
	f = find(d, "tensor_core_underuse");
	ck_assert_double_eq_tol(evidence_value(f, "pipe.tensor"), 0.01, 1e-9);
	ck_assert_double_eq_tol(evidence_value(f, "pipe.fp16"), 53.93, 1e-9);
	ck_assert_ptr_nonnull(find(d, "l1_throughput_bound"));	/* L1 89.62 %: the symptom */
	ck_assert_ptr_null(find(d, "shared_memory_bank_conflict"));
	ck_assert_double_eq_tol(json_real_value(json_object_get(json_object_get(d,
	    "metrics_used"), "shared_conflict_share")), 961049.0 / 370059801.0, 1e-12);
	json_decref(d);
}
END_TEST

/*
 * tensor_core_underuse needs a matrix product: FMAs that stream their
 * operands from memory.  hgemm_v0's page has 268,566,528 FFMA and HFMA2 over
 * 369,098,752 global and shared loads (0.73 a load) and keeps the finding; a
 * page of multiply-adds on values already held (1,024 a load, a polynomial)
 * or of conversions with no multiply-add (0 a load) rules it out, naming the
 * quantity.
 */
START_TEST(test_decide_tensor_core_underuse_needs_streamed_operands)
{
	static const struct {
		double fma, loads;
		int kept;
	} pages[] = {
		{ 268566528, 369098752, 1 },	/* hgemm_v0's source page */
		{ 269058048, 8454144, 1 },	/* probe3's half2 outer product: 31.8 */
		{ 4194304.0 * 1024, 4194304, 0 },
		{ 0, 4194304, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		json_t *d = decide_with_page(hgemm_v0_kernel, json_pack("{s:f, s:f, s:f}",
		    "samples", 1000.0, "fma_instructions_executed", pages[i].fma,
		    "load_instructions_executed", pages[i].loads)), *ro;

		ro = json_object_get(d, "ruled_out");
		if (pages[i].kept) {
			ck_assert_str_eq(primary(d), "tensor_core_underuse");
			ck_assert_uint_eq(json_array_size(ro), 0);
		} else {
			ck_assert_ptr_null(find(d, "tensor_core_underuse"));
			ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ro, 0),
			    "class")), "tensor_core_underuse");
			ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(
			    json_array_get(ro, 0), "reason")), "src.fma_per_load = "));
			ck_assert_ptr_nonnull(primary(d));	/* another finding leads */
		}
		json_decref(d);
	}
}
END_TEST

/*
 * A warp request of 16-byte loads one sector off its alignment reads 17
 * sectors, not 16: a DRAM-bound stream stays memory_bandwidth_bound.  Twenty
 * (a fifth wasted at the widest accesses) is poor coalescing, listed below
 * the bandwidth it cannot explain (a fifth of the bytes against DRAM at 85
 * %); at 32 (half wasted) it is the cause and leads.
 */
START_TEST(test_decide_coalescing_needs_a_real_waste)
{
	static const struct {
		int sectors;	/* of 100 requests */
		const char *want;
		int coalescing;	/* a poor_memory_coalescing finding */
	} cases[] = {
		{ 1700, "memory_bandwidth_bound", 0 },
		{ 2000, "memory_bandwidth_bound", 1 },
		{ 3200, "poor_memory_coalescing", 1 },
	};
	char buf[300];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *d;

		snprintf(buf, sizeof(buf), "{\"name\": \"k\", \"summary\": {\"dram_throughput_pct\": 85},"
		    " \"metrics\": {\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\": %d,"
		    " \"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\": 100}}", cases[i].sectors);
		d = decide(buf, NULL);
		ck_assert_str_eq(primary(d), cases[i].want);
		if (cases[i].coalescing)
			ck_assert_ptr_nonnull(find(d, "poor_memory_coalescing"));
		else
			ck_assert_ptr_null(find(d, "poor_memory_coalescing"));
		json_decref(d);
	}
}

/*
 * A cause is raised above a symptom it outranks only when it can explain it:
 * its gain at least a quarter of the symptom's.  128 blocks on 132 SMs leave
 * 3 % idle, which explains no 81 % occupancy gap; a few spills (local
 * requests 0.1 % of all) explain no DRAM-bound stream.  Forty blocks on 132
 * SMs (70 % idle) explain everything.
 */
START_TEST(test_decide_outranks_need_an_explaining_gain)
{
	json_t *d = decide("{\"name\": \"k\", \"summary\": {\"grid_size\": 128,"
	    " \"theoretical_occupancy_pct\": 18.75, \"achieved_occupancy_pct\": 18,"
	    " \"launch__sm_count\": 132}}", NULL);

	ck_assert_str_eq(primary(d), "occupancy_limited");
	ck_assert_ptr_nonnull(find(d, "under_filled_grid"));
	json_decref(d);
	d = decide("{\"name\": \"k\", \"summary\": {\"grid_size\": 40,"
	    " \"theoretical_occupancy_pct\": 18.75, \"achieved_occupancy_pct\": 18,"
	    " \"launch__sm_count\": 132}}", NULL);
	ck_assert_str_eq(primary(d), "under_filled_grid");
	json_decref(d);
	d = decide("{\"name\": \"k\", \"summary\": {\"dram_throughput_pct\": 90,"
	    " \"local_spill_requests\": 10}, \"metrics\": {"
	    "\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\": 10000,"
	    " \"l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum\": 10}}", NULL);
	ck_assert_str_eq(primary(d), "memory_bandwidth_bound");
	ck_assert_ptr_nonnull(find(d, "register_spill"));
	json_decref(d);
}
END_TEST

/*
 * A grid of whole blocks per SM can still leave SMs idle: a last wave of one
 * block, blocks of unequal work.  The SMs' active cycles say so whatever the
 * geometry, less the few thousand cycles every launch fills and drains in: a
 * fifth idle is no finding, nor a 6 us launch idle a third of its cycles.
 */
START_TEST(test_decide_idle_sms_from_active_cycles)
{
	static const char fmt[] = "{\"name\": \"k\", \"summary\": {\"grid_size\": 265,"
	    " \"block_size\": 1024, \"launch__sm_count\": 132, \"waves_per_sm\": 1.0038,"
	    " \"issue_active_pct\": 60, \"busiest_pipe_pct\": 55},"
	    " \"metrics\": {\"sm__cycles_active.avg\": %g, \"sm__cycles_elapsed.avg\": %g}}";
	char buf[512];
	json_t *d, *f;

	snprintf(buf, sizeof(buf), fmt, 1e6, 1.5e6);
	d = decide(buf, NULL);
	ck_assert_str_eq(primary(d), "under_filled_grid");
	f = find(d, "under_filled_grid");
	/* (1.5e6 - 1e6 - 8192) / 1.5e6 */
	ck_assert_double_eq_tol(json_number_value(json_object_get(f, "estimated_gain_pct")),
	    32.8, 0.05);
	ck_assert_int_eq(actions_with(f, "whole number of waves"), 1);
	ck_assert_int_eq(actions_with(f, "split-K"), 0);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(f, "text")), "0.3279 of the kernel's cycles beyond"));
	json_decref(d);
	snprintf(buf, sizeof(buf), fmt, 1.2e6, 1.5e6);
	d = decide(buf, NULL);
	ck_assert_ptr_null(find(d, "under_filled_grid"));
	json_decref(d);
	snprintf(buf, sizeof(buf), fmt, 8000.0, 12000.0);
	d = decide(buf, NULL);
	ck_assert_ptr_null(find(d, "under_filled_grid"));
	json_decref(d);
}
END_TEST

/*
 * A random gather with 12.5 % occupancy wastes seven eighths of every sector
 * it fetches, but with L2 at 30 % and DRAM at 20 % those bytes are not what
 * it waits for: the coalescing gain is the waste times the busiest memory
 * level, and the occupancy gap (the loads in flight) ranks first.  With L2 at
 * 90 % the same waste is the limit and ranks first.
 */
START_TEST(test_decide_coalescing_gain_follows_memory_busy)
{
	static const char fmt[] = "{\"name\": \"k\", \"summary\": {\"l2_throughput_pct\": %g,"
	    " \"dram_throughput_pct\": 20, \"l1tex_throughput_pct\": 25,"
	    " \"theoretical_occupancy_pct\": 12.5, \"achieved_occupancy_pct\": 12,"
	    " \"grid_size\": 528, \"launch__sm_count\": 132},"
	    " \"metrics\": {\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\": 3200,"
	    " \"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\": 100,"
	    " \"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio\": 4}}";
	char buf[700];
	json_t *d, *f;

	snprintf(buf, sizeof(buf), fmt, 30.0);
	d = decide(buf, NULL);
	ck_assert_str_eq(primary(d), "occupancy_limited");
	f = find(d, "poor_memory_coalescing");
	ck_assert_ptr_nonnull(f);
	ck_assert_double_eq_tol(json_number_value(json_object_get(f, "estimated_gain_pct")),
	    26.25, 0.06);
	ck_assert_str_eq(json_string_value(json_object_get(f, "gain_basis")),
	    "coalescing_time_share");
	json_decref(d);
	snprintf(buf, sizeof(buf), fmt, 90.0);
	d = decide(buf, NULL);
	ck_assert_str_eq(primary(d), "poor_memory_coalescing");
	json_decref(d);
}
END_TEST

/*
 * L2 at three quarters of its peak with DRAM idle is a kernel re-reading
 * what L2 holds: memory-bound at L2, with the reuse advice; at two thirds it
 * is not.
 */
START_TEST(test_decide_l2_bound_from_70_pct)
{
	static const char fmt[] = "{\"name\": \"k\", \"summary\": {\"l2_throughput_pct\": %g,"
	    " \"dram_throughput_pct\": 12, \"issue_active_pct\": 30}}";
	char buf[256];
	json_t *d, *f;
	const char *a0;

	snprintf(buf, sizeof(buf), fmt, 76.1);
	d = decide(buf, NULL);
	ck_assert_str_eq(primary(d), "memory_bandwidth_bound");
	f = find(d, "memory_bandwidth_bound");
	a0 = json_string_value(json_array_get(json_object_get(f, "next_actions"), 0));
	ck_assert_ptr_nonnull(strstr(a0, "L2 is the limit (76.1 %)"));
	json_decref(d);
	snprintf(buf, sizeof(buf), fmt, 66.0);
	d = decide(buf, NULL);
	ck_assert_ptr_null(find(d, "memory_bandwidth_bound"));
	json_decref(d);
}
END_TEST

/*
 * A barrier is not the only wait for other threads: warps held at memory
 * fences (__threadfence after each write) or asleep in a spin-wait on a
 * flag wait on the same kind of cause, and a kernel that splits its wait
 * between barriers and fences waits as long as one that spends it at
 * either.  Each case: stalls (barrier, membar, sleeping, long_scoreboard,
 * wait, selected) and IPC 0.8; the advice follows the
 * reason that holds the warps.  Before sync_stall_share only the barrier
 * case had a sync finding (a real fence kernel would read latency_bound,
 * its top stall named, with generic advice).
 */
START_TEST(test_decide_sync_beyond_barriers)
{
	static const struct {
		double barrier, membar, sleeping;
		const char *advice, *not_advice;
		double gain;
	} cases[] = {
		{ 0, 6, 0, "Memory fences hold", "Double-buffer", 60 },
		{ 0, 0, 5, "Sleeping warps hold", "Memory fences hold", 50 },
		{ 2, 2, 0, "Memory fences hold", "Sleeping warps", 40 },
		{ 5, 0, 0, "Double-buffer", "Memory fences hold", 50 },
	};
	static const char fmt[] = "{\"name\": \"k\", \"summary\": {"
	    " \"ipc\": 0.8, \"stalls\": {\"barrier\": %g, \"membar\": %g, \"sleeping\": %g,"
	    " \"long_scoreboard\": %g, \"wait\": 2, \"selected\": 1}}}";
	char buf[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double rest = 10 - 3 - cases[i].barrier - cases[i].membar - cases[i].sleeping;
		json_t *d, *f;

		snprintf(buf, sizeof(buf), fmt, cases[i].barrier, cases[i].membar,
		    cases[i].sleeping, rest);
		d = decide(buf, NULL);
		ck_assert_msg(primary(d) && strcmp(primary(d), "synchronization_bound") == 0,
		    "case %zu: %s", i, primary(d) ? primary(d) : "none");
		f = find(d, "synchronization_bound");
		ck_assert_str_eq(json_string_value(json_object_get(f, "gain_basis")),
		    "sync_exposed_share");
		ck_assert_double_eq_tol(json_number_value(json_object_get(f, "estimated_gain_pct")),
		    cases[i].gain, 0.05);
		ck_assert_msg(actions_with(f, cases[i].advice) > 0, "case %zu: no \"%s\"", i,
		    cases[i].advice);
		ck_assert_msg(actions_with(f, cases[i].not_advice) == 0, "case %zu: \"%s\"", i,
		    cases[i].not_advice);
		json_decref(d);
	}
}
END_TEST

/*
 * latency_bound's advice follows the stall reason that holds the warps: a
 * dependent arithmetic chain ("wait"), constant-cache misses, full memory
 * instruction queues.  Each case puts 0.5 of the stalls on one reason, with
 * no unit busy; only that reason's advice is given, beside the general one.
 */
START_TEST(test_decide_latency_advice_follows_the_stall)
{
	static const struct {
		const char *reason, *advice;
	} cases[] = {
		{ "wait", "Fixed-latency dependencies" },
		{ "imc_miss", "Constant-cache misses" },
		{ "lg_throttle", "memory instruction queues are full" },
		{ "short_scoreboard", "Short-scoreboard waits" },
		{ "no_instruction", "Instruction fetch" },
		{ "branch_resolving", "Branch resolution" },
		{ "drain", "Draining warps" },
	};
	static const char fmt[] = "{\"name\": \"k\", \"metrics\":"
	    " {\"smsp__issue_active.avg.pct_of_peak_sustained_active\": 15}, \"summary\": {"
	    " \"dram_throughput_pct\": 5, \"l2_throughput_pct\": 6, \"l1tex_throughput_pct\": 7,"
	    " \"ipc\": 2.5, \"stalls\": {\"%s\": 5, \"dispatch_stall\": 4, \"selected\": 1}}}";
	char buf[512];
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *d, *f;

		snprintf(buf, sizeof(buf), fmt, cases[i].reason);
		d = decide(buf, NULL);
		f = find(d, "latency_bound");
		ck_assert_msg(f != NULL, "%s: no latency_bound", cases[i].reason);
		ck_assert_msg(actions_with(f, cases[i].advice) > 0, "%s: no \"%s\"",
		    cases[i].reason, cases[i].advice);
		for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
			ck_assert_msg(k == i || actions_with(f, cases[k].advice) == 0, "%s: \"%s\"",
			    cases[i].reason, cases[k].advice);
		json_decref(d);
	}
}
END_TEST

/*
 * With no source page, the bytes the threads used of each sector say how
 * coalesced the accesses are whatever their width: a stride of three floats
 * reads 12 sectors a request (under twenty) but fills each with 10.7 of its
 * 32 bytes, three times the sectors needed, and with its coalesced stores a
 * half of all the bytes moved is waste.  One lane's load of 4 bytes uses 4
 * of its one sector and wastes nothing (a pointer chase by lane 0); a ratio
 * of 0 (loads that bypass the LSU path) says nothing; a few scattered stores
 * beside a coalesced stream waste a sliver of its bytes.  The gain is the
 * waste times how busy DRAM is (85 %): wasted bytes cost time as far as the
 * level carrying them is the limit.
 */
START_TEST(test_decide_coalescing_from_bytes_per_sector)
{
	static const struct {
		double ld[3], st[3];	/* sectors, requests, bytes used a sector */
		const char *want;
		double excess, gain;
	} cases[] = {
		{ { 1200, 100, 32.0 / 3 }, { 0, 0, 0 }, "poor_memory_coalescing", 3, 56.67 },
		{ { 1200, 100, 10.67 }, { 400, 100, 32 }, "poor_memory_coalescing", 3, 42.5 },
		{ { 100, 100, 4 }, { 0, 0, 0 }, "memory_bandwidth_bound", 1, 0 },
		{ { 1600, 100, 16 }, { 0, 0, 0 }, "poor_memory_coalescing", 2, 42.5 },
		{ { 1200, 100, 0 }, { 0, 0, 0 }, "memory_bandwidth_bound", -1, 0 },
		{ { 1e6, 2.5e5, 32 }, { 800, 100, 4 }, "memory_bandwidth_bound", 8, 0 },
	};
	char buf[900];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *d, *f, *e;
		size_t j;
		int seen = 0;

		snprintf(buf, sizeof(buf), "{\"name\": \"k\", \"summary\": {\"dram_throughput_pct\": 85},"
		    " \"metrics\": {\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\": %g,"
		    " \"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\": %g,"
		    " \"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio\": %.17g,"
		    " \"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum\": %g,"
		    " \"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum\": %g,"
		    " \"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio\": %.17g}}",
		    cases[i].ld[0], cases[i].ld[1], cases[i].ld[2],
		    cases[i].st[0], cases[i].st[1], cases[i].st[2]);
		d = decide(buf, NULL);
		ck_assert_str_eq(primary(d), cases[i].want);
		f = find(d, "poor_memory_coalescing");
		if (cases[i].gain > 0) {
			ck_assert_ptr_nonnull(f);
			json_array_foreach(json_object_get(f, "evidence"), j, e)
				if (strcmp(json_string_value(json_object_get(e, "metric")),
				    "sector_excess") == 0) {
					ck_assert_double_eq_tol(json_real_value(json_object_get(e,
					    "value")), cases[i].excess, 1e-3);
					seen = 1;
				}
			ck_assert_int_eq(seen, 1);
			ck_assert_double_eq_tol(json_number_value(json_object_get(f,
			    "estimated_gain_pct")), cases[i].gain, 0.06);
		} else
			ck_assert_ptr_null(f);
		json_decref(d);
	}
}
END_TEST

/*
 * Without a page, the metrics say whether few warps are a pipeline's design:
 * warpgroup MMAs fed by TMA (or cp.async) copies rule occupancy_limited out;
 * MMAs whose copies were not measured leave it standing and ask for the
 * measurement (missing_metrics names async_pipeline, which kp-collect turns
 * into a section); no warpgroup MMA at all measures 0.
 */
START_TEST(test_decide_async_pipeline_from_metrics)
{
	static const struct {
		const char *metrics;
		const char *primary;
		int ruled_out, missing;
	} cases[] = {
		{ "\"sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active\": 12.1,"
		  " \"sm__pipe_tma_cycles_active.avg.pct_of_peak_sustained_elapsed\": 0.98", NULL, 1, 0 },
		{ "\"sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active\": 4.1,"
		  " \"sm__pipe_tma_cycles_active.avg.pct_of_peak_sustained_elapsed\": 0,"
		  " \"smsp__inst_executed_op_ldgsts.sum\": 540672", NULL, 1, 0 },
		{ "\"sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active\": 4.1,"
		  " \"sm__pipe_tma_cycles_active.avg.pct_of_peak_sustained_elapsed\": 0",
		  "occupancy_limited", 0, 1 },
		{ "\"sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active\": 0",
		  "occupancy_limited", 0, 0 },
	};
	char buf[700];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *d, *ro, *miss, *m;
		size_t j;
		int has = 0;

		snprintf(buf, sizeof(buf), "{\"name\": \"k\", \"summary\": {"
		    "\"theoretical_occupancy_pct\": 18.75, \"achieved_occupancy_pct\": 12},"
		    " \"metrics\": {%s}}", cases[i].metrics);
		d = decide(buf, NULL);
		ro = json_object_get(d, "ruled_out");
		if (cases[i].primary == NULL)
			ck_assert_ptr_null(primary(d));
		else
			ck_assert_str_eq(primary(d), cases[i].primary);
		ck_assert_uint_eq(json_array_size(ro), (size_t)cases[i].ruled_out);
		if (cases[i].ruled_out)
			ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(
			    json_array_get(ro, 0), "reason")), "async_pipeline = 1"));
		miss = json_object_get(d, "missing_metrics");
		json_array_foreach(miss, j, m)
			has |= strcmp(json_string_value(m), "async_pipeline") == 0;
		ck_assert_int_eq(has, cases[i].missing);
		json_decref(d);
	}
}
END_TEST

/*
 * Basic's metrics carry no stall reasons, so a latency finding drawn from
 * them had no gain and ranked last: the cycles in which nothing issued are
 * all that hiding latency can win, and stand in until the reasons come.
 */
START_TEST(test_decide_latency_gain_without_stalls)
{
	json_t *d = decide("{\"name\": \"k\", \"summary\": {\"dram_throughput_pct\": 30,"
	    " \"l2_throughput_pct\": 40}, \"metrics\": {"
	    "\"smsp__issue_active.avg.pct_of_peak_sustained_active\": 9.1}}", NULL), *f;

	ck_assert_str_eq(primary(d), "latency_bound");
	f = find(d, "latency_bound");
	ck_assert_str_eq(json_string_value(json_object_get(f, "gain_basis")), "issue_idle_share");
	ck_assert_double_eq_tol(json_number_value(json_object_get(f, "estimated_gain_pct")), 90.9, 0.06);
	json_decref(d);
	d = decide("{\"name\": \"k\", \"summary\": {\"dram_throughput_pct\": 30,"
	    " \"l2_throughput_pct\": 40, \"stalls\": {\"long_scoreboard\": 1, \"wait\": 3}},"
	    " \"metrics\": {\"smsp__issue_active.avg.pct_of_peak_sustained_active\": 9.1}}", NULL);
	f = find(d, "latency_bound");
	ck_assert_str_eq(json_string_value(json_object_get(f, "gain_basis")), "top_stall_share");
	ck_assert_double_eq_tol(json_number_value(json_object_get(f, "estimated_gain_pct")), 75, 0.06);
	json_decref(d);
}
END_TEST

/*
 * Lanes that update the same shared word serialise, and the page counts the
 * replays as shared wavefronts over their ideal, which is what a bank
 * conflict looks like: when both fire, the atomics are named first.
 */
START_TEST(test_decide_atomics_outrank_their_shared_replays)
{
	json_t *d = decide_with_page("{\"name\": \"k\", \"summary\": {\"l1tex_throughput_pct\": 99}}",
	    json_pack("{s:f, s:{s:f, s:f}, s:f, s:f}", "samples", 100.0, "kind_samples",
	    "atomic", 60.0, "shared", 5.0, "shared_wavefronts", 4000.0,
	    "shared_wavefronts_ideal", 500.0)), *f;

	ck_assert_str_eq(primary(d), "atomic_contention");
	f = json_array_get(json_object_get(d, "findings"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(f, "class")),
	    "shared_memory_bank_conflict");
	json_decref(d);
}
END_TEST

/*
 * hgemm_v1: WMMA without shared-memory staging.  L1 is at 99.61 % of its peak
 * while DRAM and L2 idle: every warp reloads its fragments through L1, so the
 * kernel is at the L1 roofline (l1_throughput_bound).  Long-scoreboard stalls
 * (41.73 of 102.48 warps per issue, IPC 0.43) are its symptom, demoted at the
 * roofline.  The kernel already runs its matrix math on the tensor cores (no
 * fp16 on the FMA pipe), so tensor_core_underuse must not fire.
 */
START_TEST(test_decide_hgemm_v1_l1_roofline)
{
	json_t *d = decide(hgemm_v1_kernel, NULL), *f, *p;

	ck_assert_str_eq(primary(d), "l1_throughput_bound");
	f = find(d, "memory_latency_bound");
	ck_assert_ptr_nonnull(f);
	ck_assert_double_eq_tol(evidence_value(f, "stall_share.long_scoreboard"),
	    41.73 / 102.48, 1e-3);
	ck_assert_double_eq_tol(evidence_value(f, "ipc"), 0.43, 1e-9);
	ck_assert_str_eq(json_string_value(json_object_get(f, "severity")), "low");
	ck_assert_ptr_null(find(d, "tensor_core_underuse"));
	p = find(d, "l1_throughput_bound");
	ck_assert(json_real_value(json_object_get(p, "estimated_gain_pct")) >
	    json_real_value(json_object_get(f, "estimated_gain_pct")));
	ck_assert_ptr_nonnull(json_object_get(d, "at_roofline"));
	ck_assert(json_is_object(json_object_get(d, "at_roofline")));
	json_decref(d);
}
END_TEST

/*
 * stream_triad: DRAM at 87.29 % and L2 at 90.65 % of peak: a streaming kernel
 * at the memory system's limit.  Long-scoreboard stalls (0.99 of all) are the
 * symptom, so memory_bandwidth_bound must rank above memory_latency_bound
 * although the latter's own score is higher (its excess is larger).
 */
START_TEST(test_decide_stream_triad_bandwidth)
{
	json_t *d = decide(stream_triad_kernel, NULL), *f, *g;

	ck_assert_str_eq(primary(d), "memory_bandwidth_bound");
	f = find(d, "memory_bandwidth_bound");
	g = find(d, "memory_latency_bound");
	ck_assert_ptr_nonnull(g);
	ck_assert_double_eq_tol(evidence_value(f, "dram_throughput_pct"), 87.29, 1e-9);
	ck_assert_double_eq_tol(json_real_value(json_object_get(f, "score")),
	    json_real_value(json_object_get(g, "score")) + 1, 0.011);
	json_decref(d);
}
END_TEST

/*
 * triton_hgemm: 166 registers per thread and 50 KB of shared memory per block
 * allow 3 blocks (12 warps) per SM: theoretical occupancy 18.75 %, achieved
 * 11.98 %.  The tensor pipe is busy 65.28 % of active cycles, but with so few
 * warps long-scoreboard stalls are 0.34 of all and IPC is 0.87: the register
 * and shared-memory budget (occupancy_limited) explains the latency finding.
 * The grid gives every SM work (256 blocks, 1.94 per SM): not under-filled.
 */
START_TEST(test_decide_triton_occupancy_limited)
{
	json_t *d = decide(triton_hgemm_kernel, NULL), *f;

	ck_assert_str_eq(primary(d), "occupancy_limited");
	f = find(d, "occupancy_limited");
	ck_assert_double_eq_tol(evidence_value(f, "theoretical_occupancy_pct"), 18.75, 1e-9);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(f, "text")),
	    "166 registers per thread"));
	ck_assert_ptr_nonnull(find(d, "compute_pipeline_bound"));
	ck_assert_ptr_null(find(d, "under_filled_grid"));
	ck_assert_double_eq_tol(json_real_value(json_object_get(json_object_get(d,
	    "metrics_used"), "blocks_per_sm")), 256.0 / 132.0, 1e-12);
	json_decref(d);
}
END_TEST

/* stream_triad launched with 16 blocks: 0.12 blocks per SM.  The grid is the
 * cause of everything else, so it ranks first. */
START_TEST(test_decide_under_filled_grid_outranks_everything)
{
	struct kp_err err;
	struct kp_rules *r = shipped();
	json_t *k = kernel(stream_triad_kernel), *s = json_object_get(k, "summary"), *d;

	json_object_set_new(s, "grid_size", json_real(16));
	json_object_set_new(s, "waves_per_sm", json_real(0.02));
	d = kp_rules_decide(r, k, NULL, &err);
	ck_assert_str_eq(primary(d), "under_filled_grid");
	ck_assert_double_eq_tol(evidence_value(find(d, "under_filled_grid"), "blocks_per_sm"),
	    16.0 / 132.0, 1e-12);
	ck_assert_ptr_nonnull(find(d, "memory_bandwidth_bound"));
	json_decref(d);
	json_decref(k);
	kp_rules_free(r);
}
END_TEST

/* Absent metrics: rules do not fire and say what is missing.  Without
 * launch__sm_count (and no device) blocks_per_sm cannot be known.  A rule with
 * a condition false on present data is evaluated (memory_latency_bound: ipc
 * 3 < 2 is false) even though its other metric is missing. */
START_TEST(test_decide_missing_metrics_not_evaluated)
{
	json_t *d = decide("{\"name\": \"k\", \"summary\": {\"sm_throughput_pct\": 12, \"ipc\": 3}}", NULL);
	json_t *ne = json_object_get(d, "not_evaluated"), *e;
	size_t i;
	int seen_grid = 0, seen_bw = 0;

	ck_assert(json_is_null(json_object_get(d, "primary")));
	ck_assert_uint_eq(json_array_size(json_object_get(d, "findings")), 0);
	json_array_foreach(ne, i, e) {
		const char *c = json_string_value(json_object_get(e, "class"));
		const char *why = json_string_value(json_object_get(e, "reason"));

		ck_assert_ptr_nonnull(why);
		ck_assert_int_eq(strncmp(why, "missing ", 8), 0);
		if (strcmp(c, "under_filled_grid") == 0)
			seen_grid = strncmp(why, "missing blocks_per_sm", 21) == 0;
		if (strcmp(c, "memory_bandwidth_bound") == 0)
			seen_bw = strcmp(why, "missing dram_throughput_pct") == 0;
		ck_assert_str_ne(c, "memory_latency_bound");	/* ipc 3 < 2 false: evaluated */
	}
	ck_assert(seen_grid && seen_bw);
	json_decref(d);
}
END_TEST

START_TEST(test_decide_hotspots_of_the_same_class)
{
	struct kp_err err;
	char path[] = "/tmp/kp-check-rules-XXXXXX";
	int fd = mkstemp(path);
	const char *csv = "source_file,line,function,sass_opcode,ptx_opcode,metric,value,"
	    "stall_reason,bottleneck_class,confidence,evidence\n"
	    "\"gemm.cu\",42,hgemm,LDG.E.128,ld.global,stall,41.7,long_scoreboard,"
	    "memory_latency_bound,0.8,\"waits, on loads\"\n"
	    "gemm.cu,50,hgemm,HMMA,mma,stall,1.5,math,l1_throughput_bound,0.4,x\n";
	json_t *hot, *d, *h;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, csv, strlen(csv)), (int)strlen(csv));
	close(fd);
	hot = kp_hs_csv_load(path, 1, &err);
	unlink(path);
	ck_assert_msg(hot != NULL, "%s", err.msg);
	ck_assert_uint_eq(json_array_size(hot), 2);
	d = decide(hgemm_v1_kernel, hot);
	h = json_object_get(find(d, "memory_latency_bound"), "hotspots");
	ck_assert_uint_eq(json_array_size(h), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(h, 0), "line")), 42);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(h, 0), "evidence")),
	    "waits, on loads");
	ck_assert_uint_eq(json_array_size(json_object_get(find(d, "l1_throughput_bound"),
	    "hotspots")), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(find(d, "latency_hiding_failure"),
	    "hotspots")), 0);
	json_decref(d);
	json_decref(hot);
}
END_TEST

/* A rules file from text; returns the error message of the load (or ""). */
static const char *
load_text(const char *text, char *msg, size_t len)
{
	struct kp_err err;
	char path[] = "/tmp/kp-check-rules-XXXXXX";
	int fd = mkstemp(path);
	struct kp_rules *r;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	r = kp_rules_load(path, &err);
	unlink(path);
	if (r != NULL) {
		kp_rules_free(r);
		snprintf(msg, len, "%s", "");
		return msg;
	}
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	/* Drop the temporary file's name: keep ":LINE: ..." */
	snprintf(msg, len, "%s", strchr(err.msg, ':') ? strchr(err.msg, ':') : err.msg);
	return msg;
}

#define HEAD "schema: kp-bottleneck-rules/1\nrules:\n"
#define RULE(id, extra) "  - id: " id "\n    severity: high\n    weight: 5\n" \
	"    when:\n      all:\n        - {metric: ipc, op: \"<\", value: 1}\n" \
	"    evidence: \"ipc {ipc}\"\n    next_actions: [x]\n" extra

START_TEST(test_rules_malformed_files_name_rule_and_line)
{
	char m[1100];

	ck_assert_str_eq(load_text(HEAD RULE("divergence_bound", ""), m, sizeof(m)), "");
	ck_assert_str_eq(load_text(HEAD "  - id: divergence_bound\n    severity: high\n"
	    "    weight: 5\n    when:\n      all:\n        - {metric: ipc, op: \"=>\", value: 1}\n"
	    "    evidence: x\n    next_actions: []\n", m, sizeof(m)),
	    ":8: rule \"divergence_bound\": unknown op \"=>\" (one of > >= < <= == !=)");
	ck_assert_str_eq(load_text(HEAD RULE("slow_kernel", ""), m, sizeof(m)),
	    ":3: rule \"slow_kernel\": unknown class (see kp-decide(1) for the taxonomy)");
	ck_assert_str_eq(load_text(HEAD "  - id: register_spill\n    severity: high\n"
	    "    when: {all: [{metric: ipc, op: \"<\", value: 1}]}\n    evidence: x\n"
	    "    next_actions: []\n", m, sizeof(m)),
	    ":3: rule \"register_spill\": missing \"weight\"");
	ck_assert_str_eq(load_text(HEAD "  - id: register_spill\n    severity: high\n"
	    "    weight: \"5\"\n", m, sizeof(m)),
	    ":5: rule \"register_spill\": weight: expected a number");
	ck_assert_str_eq(load_text(HEAD "  - id: register_spill\n    severity: urgent\n", m,
	    sizeof(m)), ":4: rule \"register_spill\": severity: expected high, medium or low, "
	    "not \"urgent\"");
	ck_assert_str_eq(load_text(HEAD RULE("register_spill", "") RULE("register_spill", ""),
	    m, sizeof(m)), ":11: rule \"register_spill\": duplicate rule (first at line 3)");
	ck_assert_str_eq(load_text(HEAD RULE("register_spill", "    outranks: [divergence_bound]\n")
	    RULE("divergence_bound", "    outranks: [register_spill]\n"), m, sizeof(m)),
	    ":11: rule \"register_spill\": outranks: a cycle (a cause cannot also be its own "
	    "symptom)");
	ck_assert_str_eq(load_text("schema: kp-bottleneck-rules/2\nrules: []\n", m, sizeof(m)),
	    ":1: schema: expected kp-bottleneck-rules/1");
	ck_assert_str_eq(load_text(HEAD "  - severity: high\n", m, sizeof(m)),
	    ":3: rule #1: missing \"id\"");
	ck_assert_str_eq(load_text(HEAD RULE("register_spill", "    colour: red\n"), m,
	    sizeof(m)), ":11: rule \"register_spill\": rule: unknown key \"colour\"");
	ck_assert_str_eq(load_text("schema: kp-bottleneck-rules/1\nfollowup: {low_ipc: x}\n"
	    "rules: []\n", m, sizeof(m)),
	    ":2: followup.low_ipc: expected a number, not \"x\"");
	/* Not YAML at all: libfyaml's own position. */
	ck_assert_int_eq(load_text("rules: [\n", m, sizeof(m))[0], ':');
}
END_TEST


/* A next action with a when applies only when its conditions hold on present
 * metrics; its placeholders are filled; plain strings always apply. */
#define ACTRULE(acts) HEAD "  - id: divergence_bound\n    severity: high\n    weight: 5\n" \
	"    when:\n      all:\n        - {metric: ipc, op: \"<\", value: 1}\n" \
	"    evidence: x\n    next_actions:\n" acts

static json_t *
decide_with(const char *rules, const char *kernel_text)
{
	struct kp_err err;
	char path[] = "/tmp/kp-check-rules-XXXXXX";
	int fd = mkstemp(path);
	struct kp_rules *r;
	json_t *k, *d;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, rules, strlen(rules)), (int)strlen(rules));
	close(fd);
	r = kp_rules_load(path, &err);
	unlink(path);
	ck_assert_msg(r != NULL, "%s", err.msg);
	k = kernel(kernel_text);
	d = kp_rules_decide(r, k, NULL, &err);
	ck_assert_msg(d != NULL, "%s", err.msg);
	json_decref(k);
	kp_rules_free(r);
	return d;
}

START_TEST(test_rules_conditional_next_actions)
{
	static const char acts[] = ACTRULE(
	    "      - text: \"low ipc {ipc}\"\n        when: {all: [{metric: ipc, op: \"<\", value: 0.5}]}\n"
	    "      - text: \"big grid {grid_size}\"\n        when: {any: [{metric: grid_size, op: \">\", value: 10},"
	    " {metric: block_size, op: \">\", value: 1024}]}\n"
	    "      - text: never\n        when: {all: [{metric: waves_per_sm, op: \">\", value: 0}]}\n"
	    "      - always\n");
	json_t *d = decide_with(acts, "{\"name\": \"k\", \"summary\": {\"ipc\": 0.25, \"grid_size\": 64}}");
	json_t *a = json_object_get(find(d, "divergence_bound"), "next_actions");
	char m[600];

	/* ipc < 0.5 holds; grid_size > 10 holds (block_size absent); waves absent: no */
	ck_assert_uint_eq(json_array_size(a), 3);
	ck_assert_str_eq(json_string_value(json_array_get(a, 0)), "low ipc 0.25");
	ck_assert_str_eq(json_string_value(json_array_get(a, 1)), "big grid 64");
	ck_assert_str_eq(json_string_value(json_array_get(a, 2)), "always");
	json_decref(d);
	d = decide_with(acts, "{\"name\": \"k\", \"summary\": {\"ipc\": 0.75, \"grid_size\": 4}}");
	a = json_object_get(find(d, "divergence_bound"), "next_actions");
	ck_assert_uint_eq(json_array_size(a), 1);
	ck_assert_str_eq(json_string_value(json_array_get(a, 0)), "always");
	json_decref(d);
	/* malformed conditional actions name the line */
	ck_assert_str_eq(load_text(ACTRULE("      - when: {all: [{metric: ipc, op: \"<\", value: 1}]}\n"),
	    m, sizeof(m)), ":11: rule \"divergence_bound\": next action: missing \"text\"");
	ck_assert_str_eq(load_text(ACTRULE("      - text: x\n"), m, sizeof(m)),
	    ":11: rule \"divergence_bound\": next action: missing \"when\" (a plain string is an"
	    " action that always applies)");
	ck_assert_str_eq(load_text(ACTRULE("      - text: x\n        when: {all: []}\n"), m, sizeof(m)),
	    ":12: rule \"divergence_bound\": when: no conditions");
	ck_assert_str_eq(load_text(ACTRULE("      - text: x\n        if: y\n"), m, sizeof(m)),
	    ":12: rule \"divergence_bound\": next action: unknown key \"if\"");
	ck_assert_str_eq(load_text(ACTRULE("      - text: \"a {b\"\n        when: {all: [{metric: ipc,"
	    " op: \"<\", value: 1}]}\n"), m, sizeof(m)),
	    ":11: rule \"divergence_bound\": next action: unbalanced or empty {placeholder}");
}
END_TEST

/*
 * unless: a rule whose conditions hold is ruled out, with the reason, when
 * one of its unless-conditions is measured and holds; an unmeasured one
 * rules nothing out.
 */
#define UNLESSRULE(unless) HEAD "  - id: occupancy_limited\n    severity: high\n" \
	"    weight: 5\n    when:\n      all:\n" \
	"        - {metric: theoretical_occupancy_pct, op: \"<\", value: 50}\n" unless \
	"    evidence: x\n    next_actions: []\n"

START_TEST(test_rules_unless_rules_out)
{
	static const char rules[] = UNLESSRULE("    unless:\n"
	    "      - {metric: ipc, op: \">\", value: 3}\n"
	    "      - {metric: grid_size, op: \"<\", value: 2}\n");
	json_t *d;
	char m[600];

	d = decide_with(rules, "{\"name\": \"k\", \"summary\": {\"theoretical_occupancy_pct\": 25,"
	    " \"ipc\": 3.5, \"grid_size\": 64}}");
	ck_assert(json_is_null(json_object_get(d, "primary")));
	ck_assert_uint_eq(json_array_size(json_object_get(d, "findings")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(d, "ruled_out")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(d,
	    "ruled_out"), 0), "class")), "occupancy_limited");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(d,
	    "ruled_out"), 0), "reason")), "its conditions held, but ipc = 3.5 (> 3)");
	json_decref(d);
	/* measured and false, or not measured at all: the finding stands */
	d = decide_with(rules, "{\"name\": \"k\", \"summary\": {\"theoretical_occupancy_pct\": 25,"
	    " \"ipc\": 1}}");
	ck_assert_str_eq(json_string_value(json_object_get(d, "primary")), "occupancy_limited");
	ck_assert_uint_eq(json_array_size(json_object_get(d, "ruled_out")), 0);
	json_decref(d);
	/* the rule's own conditions false: nothing to rule out */
	d = decide_with(rules, "{\"name\": \"k\", \"summary\": {\"theoretical_occupancy_pct\": 75,"
	    " \"ipc\": 3.5}}");
	ck_assert(json_is_null(json_object_get(d, "primary")));
	ck_assert_uint_eq(json_array_size(json_object_get(d, "ruled_out")), 0);
	json_decref(d);
	ck_assert_str_eq(load_text(UNLESSRULE("    unless: 5\n"), m, sizeof(m)),
	    ":9: rule \"occupancy_limited\": unless: expected a list of {metric, op, value}");
	ck_assert_str_eq(load_text(UNLESSRULE("    unless: [ipc]\n"), m, sizeof(m)),
	    ":9: rule \"occupancy_limited\": unless: expected {metric, op, value}");
}
END_TEST

/*
 * Every all-condition must be measured: one that is absent leaves the rule
 * not evaluated even when an any-condition holds (the count of the held
 * any-conditions once stood in for a missing all-condition's).
 */
START_TEST(test_rules_missing_all_condition_with_any_held)
{
	static const char rules[] = HEAD "  - id: memory_latency_bound\n    severity: high\n"
	    "    weight: 7\n    when:\n      all:\n        - {metric: ipc, op: \"<\", value: 2}\n"
	    "      any:\n        - {metric: grid_size, op: \">=\", value: 10}\n"
	    "    evidence: x\n    next_actions: []\n";
	json_t *d, *ne;

	d = decide_with(rules, "{\"name\": \"k\", \"summary\": {\"grid_size\": 64}}");
	ck_assert(json_is_null(json_object_get(d, "primary")));
	ne = json_object_get(d, "not_evaluated");
	ck_assert_uint_eq(json_array_size(ne), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ne, 0), "reason")),
	    "missing ipc");
	json_decref(d);
	d = decide_with(rules, "{\"name\": \"k\", \"summary\": {\"grid_size\": 64, \"ipc\": 1}}");
	ck_assert_str_eq(json_string_value(json_object_get(d, "primary")), "memory_latency_bound");
	json_decref(d);
}
END_TEST

#define SHIPPED KP_FIXTURES "/../../references/rules/bottleneck_rules.yaml"

static void
same_conds(const struct kp_cond *a, const struct kp_cond *b, size_t n, const char *id)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ck_assert_msg(strcmp(a[i].metric, b[i].metric) == 0, "%s: cond %zu", id, i);
		ck_assert_msg(a[i].op == b[i].op, "%s: cond %zu op", id, i);
		ck_assert_msg(memcmp(&a[i].value, &b[i].value, sizeof(double)) == 0,
		    "%s: cond %zu value %.17g vs %.17g", id, i, a[i].value, b[i].value);
	}
}

/* The compiled-in rules (build/gen/rules_builtin.c) are the shipped file's:
 * its bytes, and field for field what parsing the file gives. */
START_TEST(test_builtin_rules_are_the_shipped_file)
{
	struct kp_err err;
	struct kp_rules *p, *b;
	size_t len, i, k;
	char *text = kp_read_file(SHIPPED, &len, &err);

	ck_assert_msg(text != NULL, "%s", err.msg);
	ck_assert_ptr_nonnull(kp_rules_builtin.yaml);
	ck_assert_uint_eq(kp_rules_builtin.ylen, len);
	ck_assert(memcmp(kp_rules_builtin.yaml, text, len) == 0);
	p = kp_rules_parse(SHIPPED, text, len, &err);
	ck_assert_msg(p != NULL, "%s", err.msg);
	b = kp_rules_load(SHIPPED, &err);
	ck_assert_msg(b != NULL, "%s", err.msg);
	ck_assert_int_eq(p->builtin, 0);
	ck_assert_int_eq(b->builtin, 1);
	ck_assert_str_eq(b->path, SHIPPED);
	ck_assert(memcmp(&p->fu, &b->fu, sizeof(p->fu)) == 0);
	ck_assert(p->roofline_pct == b->roofline_pct);
	ck_assert(json_equal(p->ncu_map, b->ncu_map));
	ck_assert(json_equal(p->sections, b->sections));
	ck_assert_uint_eq(p->nrules, b->nrules);
	for (i = 0; i < p->nrules; i++) {
		const struct kp_rule *x = &p->rules[i], *y = &b->rules[i];

		ck_assert_str_eq(x->id, y->id);
		ck_assert_int_eq(x->severity, y->severity);
		ck_assert(x->weight == y->weight);
		ck_assert_uint_eq(x->nall, y->nall);
		ck_assert_uint_eq(x->nany, y->nany);
		same_conds(x->all, y->all, x->nall, x->id);
		same_conds(x->any, y->any, x->nany, x->id);
		ck_assert_uint_eq(x->nunless, y->nunless);
		same_conds(x->unless, y->unless, x->nunless, x->id);
		ck_assert_str_eq(x->evidence, y->evidence);
		ck_assert_uint_eq(x->nactions, y->nactions);
		for (k = 0; k < x->nactions; k++) {
			ck_assert_str_eq(x->actions[k].text, y->actions[k].text);
			ck_assert_uint_eq(x->actions[k].nall, y->actions[k].nall);
			ck_assert_uint_eq(x->actions[k].nany, y->actions[k].nany);
			same_conds(x->actions[k].all, y->actions[k].all, x->actions[k].nall, x->id);
			same_conds(x->actions[k].any, y->actions[k].any, x->actions[k].nany, x->id);
		}
		ck_assert_uint_eq(x->noutranks, y->noutranks);
		for (k = 0; k < x->noutranks; k++)
			ck_assert_uint_eq(x->outranks[k], y->outranks[k]);
		ck_assert_uint_eq(x->ngain, y->ngain);
		for (k = 0; k < x->ngain; k++)
			ck_assert_str_eq(x->gain[k], y->gain[k]);
		ck_assert_int_eq(x->keep_at_roofline, y->keep_at_roofline);
		ck_assert_int_eq(x->line, y->line);
	}
	kp_rules_free(p);
	kp_rules_free(b);
	free(text);
}
END_TEST

/* A rules file that differs from the shipped one by a byte is parsed, not
 * taken for the built-in set: an edited copy means what it says. */
START_TEST(test_edited_rules_file_is_parsed)
{
	struct kp_err err;
	char path[] = "/tmp/kp-check-rules-XXXXXX";
	size_t len;
	char *text = kp_read_file(SHIPPED, &len, &err), *at;
	struct kp_rules *r;
	int fd = mkstemp(path);

	ck_assert_ptr_nonnull(text);
	ck_assert_int_ge(fd, 0);
	/* the same rules but for roofline_pct */
	ck_assert_ptr_nonnull(at = strstr(text, "\nroofline_pct: 80"));
	at[16] = '1';
	ck_assert_int_eq(write(fd, text, len), (int)len);
	close(fd);
	r = kp_rules_load(path, &err);
	unlink(path);
	ck_assert_msg(r != NULL, "%s", err.msg);
	ck_assert_int_eq(r->builtin, 0);
	ck_assert(r->roofline_pct == 81);
	ck_assert_uint_eq(r->nrules, kp_rules_builtin.nrules);
	kp_rules_free(r);
	free(text);
}
END_TEST

/* The sections that measure a metric: every section with a matching prefix, in
 * the file's order; none for a metric no prefix names. */
START_TEST(test_rules_metric_sections)
{
	static const char text[] = "schema: kp-bottleneck-rules/1\nevidence_sections:\n"
	    "  WarpStateStats: [stalls., ipc]\n  ComputeWorkloadAnalysis: [pipe., ipc]\n"
	    "rules:\n" RULE("divergence_bound", "");
	struct kp_err err;
	char path[] = "/tmp/kp-check-rules-XXXXXX";
	int fd = mkstemp(path);
	struct kp_rules *r;
	json_t *a;
	char *s;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	r = kp_rules_load(path, &err);
	unlink(path);
	ck_assert_msg(r != NULL, "%s", err.msg);
	a = kp_rules_metric_sections(r, "ipc");
	s = json_dumps(a, JSON_COMPACT);
	ck_assert_str_eq(s, "[\"WarpStateStats\",\"ComputeWorkloadAnalysis\"]");
	free(s);
	json_decref(a);
	a = kp_rules_metric_sections(r, "stalls.barrier");
	ck_assert_int_eq(json_array_size(a), 1);
	ck_assert_str_eq(json_string_value(json_array_get(a, 0)), "WarpStateStats");
	json_decref(a);
	a = kp_rules_metric_sections(r, "dram_throughput_pct");
	ck_assert_int_eq(json_array_size(a), 0);
	json_decref(a);
	kp_rules_free(r);
	/* The shipped file: the source page's quantities come from no section. */
	r = shipped();
	a = kp_rules_metric_sections(r, "src.shared_excess");
	ck_assert_int_eq(json_array_size(a), 0);
	json_decref(a);
	a = kp_rules_metric_sections(r, "stalls.barrier");
	ck_assert_int_ge(json_array_size(a), 1);
	json_decref(a);
	kp_rules_free(r);
}
END_TEST

static const char *
followup(const char *text, char *why, size_t len)
{
	struct kp_rules *r = shipped();
	json_t *k = kernel(text);
	const char *s = kp_rules_followup(r, k, why, len);

	json_decref(k);
	kp_rules_free(r);
	return s;
}

/*
 * Follow-ups from real basic-set numbers: hgemm_v0's memory units are busiest
 * (L1 89.65 % >= 70 and above SM 80.74 %): memory; hgemm_v1 (L1 99.61 %) and
 * stream_triad (DRAM 87.22 %, L2 90.70 %): memory; triton_hgemm: SM 60.90 %
 * and L1 55.94 % are both under 70, achieved occupancy 11.98 % < 30: occupancy.
 */
START_TEST(test_followup_real_basic_captures)
{
	char why[256];

	ck_assert_str_eq(followup(hgemm_v0_basic, why, sizeof(why)), "memory");
	ck_assert_str_eq(why, "l1tex_throughput_pct 89.65 >= 70 (memory_dominant_pct), "
	    "sm_throughput_pct 80.74");
	ck_assert_str_eq(followup(hgemm_v1_basic, why, sizeof(why)), "memory");
	ck_assert_str_eq(followup(stream_triad_basic, why, sizeof(why)), "memory");
	ck_assert_str_eq(why, "l2_throughput_pct 90.7 >= 70 (memory_dominant_pct), "
	    "sm_throughput_pct 5.48");
	ck_assert_str_eq(followup(triton_hgemm_basic, why, sizeof(why)), "occupancy");
	ck_assert_str_eq(why, "achieved_occupancy_pct 11.98 < 30 (low_occupancy_pct)");
}
END_TEST

START_TEST(test_followup_each_branch)
{
	char why[256];

	ck_assert_str_eq(followup("{\"summary\": {\"sm_throughput_pct\": 85, "
	    "\"memory_throughput_pct\": 40}}", why, sizeof(why)), "compute");
	ck_assert_str_eq(why, "sm_throughput_pct 85 >= 70 (sm_dominant_pct), "
	    "memory_throughput_pct 40");
	ck_assert_str_eq(followup("{\"summary\": {\"sm_throughput_pct\": 50, "
	    "\"memory_throughput_pct\": 40, \"achieved_occupancy_pct\": 40, "
	    "\"theoretical_occupancy_pct\": 100}}", why, sizeof(why)), "occupancy");
	ck_assert_str_eq(why, "achieved_occupancy_pct 40 / theoretical_occupancy_pct 100 = "
	    "0.40 < 0.7 (occupancy_gap_ratio)");
	ck_assert_str_eq(followup("{\"summary\": {\"sm_throughput_pct\": 10, "
	    "\"memory_throughput_pct\": 12, \"achieved_occupancy_pct\": 90, "
	    "\"theoretical_occupancy_pct\": 100, \"ipc\": 0.2}}", why, sizeof(why)), "occupancy");
	ck_assert_ptr_nonnull(strstr(why, "(low_ipc)"));
	ck_assert_str_eq(followup("{\"summary\": {\"sm_throughput_pct\": 50, "
	    "\"memory_throughput_pct\": 45, \"achieved_occupancy_pct\": 90, "
	    "\"theoretical_occupancy_pct\": 100, \"ipc\": 2}}", why, sizeof(why)),
	    "speed-of-light");
	/* Nothing known: speed-of-light, and no crash without a why buffer. */
	ck_assert_str_eq(followup("{\"summary\": {}}", NULL, 0), "speed-of-light");
}
END_TEST

START_TEST(test_followup_without_rules_uses_defaults)
{
	json_t *k = kernel(triton_hgemm_basic);
	struct kp_rules *r = shipped();
	char why[256];

	/* No C copy of the thresholds: without rules there is no choice. */
	ck_assert_ptr_null(kp_rules_followup(NULL, k, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "followup:"));
	ck_assert_str_eq(kp_rules_followup(r, k, NULL, 0), "occupancy");
	kp_rules_free(r);
	json_decref(k);
}
END_TEST

static Suite *
rules_suite(void)
{
	Suite *s = suite_create("rules");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_rules_shipped_file_covers_taxonomy);
	tcase_add_test(tc, test_rules_followup_defaults_equal_shipped_file);
	tcase_add_test(tc, test_decide_hgemm_v0_tensor_core_underuse);
	tcase_add_test(tc, test_decide_tensor_core_underuse_needs_streamed_operands);
	tcase_add_test(tc, test_decide_coalescing_needs_a_real_waste);
	tcase_add_test(tc, test_decide_coalescing_from_bytes_per_sector);
	tcase_add_test(tc, test_decide_outranks_need_an_explaining_gain);
	tcase_add_test(tc, test_decide_idle_sms_from_active_cycles);
	tcase_add_test(tc, test_decide_l2_bound_from_70_pct);
	tcase_add_test(tc, test_decide_sync_beyond_barriers);
	tcase_add_test(tc, test_decide_latency_advice_follows_the_stall);
	tcase_add_test(tc, test_decide_coalescing_gain_follows_memory_busy);
	tcase_add_test(tc, test_decide_latency_gain_without_stalls);
	tcase_add_test(tc, test_decide_async_pipeline_from_metrics);
	tcase_add_test(tc, test_decide_atomics_outrank_their_shared_replays);
	tcase_add_test(tc, test_decide_hgemm_v1_l1_roofline);
	tcase_add_test(tc, test_decide_stream_triad_bandwidth);
	tcase_add_test(tc, test_decide_triton_occupancy_limited);
	tcase_add_test(tc, test_decide_under_filled_grid_outranks_everything);
	tcase_add_test(tc, test_decide_missing_metrics_not_evaluated);
	tcase_add_test(tc, test_decide_hotspots_of_the_same_class);
	tcase_add_test(tc, test_rules_malformed_files_name_rule_and_line);
	tcase_add_test(tc, test_followup_real_basic_captures);
	tcase_add_test(tc, test_followup_each_branch);
	tcase_add_test(tc, test_followup_without_rules_uses_defaults);
	tcase_add_test(tc, test_rules_metric_sections);
	tcase_add_test(tc, test_builtin_rules_are_the_shipped_file);
	tcase_add_test(tc, test_edited_rules_file_is_parsed);
	tcase_add_test(tc, test_rules_conditional_next_actions);
	tcase_add_test(tc, test_rules_unless_rules_out);
	tcase_add_test(tc, test_rules_missing_all_condition_with_any_held);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(rules_suite)
