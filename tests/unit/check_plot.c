/* Unit tests for the plot module: panel data, script and data files, images, gnuplot. */
#include <stdio.h>
#include <sys/stat.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_plot.h"
#include "kp_specs.h"

static char top[64];

static void
put(const char *rel, const char *text)
{
	char path[256];
	struct kp_err err;

	snprintf(path, sizeof path, "%s/%s", top, rel);
	ck_assert_int_eq(kp_write_file_atomic(path, text, strlen(text), &err), 0);
}

static char *
slurp(const char *rel)
{
	char path[256];
	struct kp_err err;
	char *s;

	snprintf(path, sizeof path, "%s/%s", top, rel);
	s = kp_read_file(path, NULL, &err);
	ck_assert_msg(s != NULL, "%s", path);
	return s;
}

static void
fresh(void)
{
	struct kp_err err;
	char d[128];

	snprintf(top, sizeof top, "/tmp/check_plot.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(top));
	snprintf(d, sizeof d, "%s/p/details", top);
	ck_assert_int_eq(kp_mkdirs(d, &err), 0);
	snprintf(d, sizeof d, "%s/p/comparison", top);
	ck_assert_int_eq(kp_mkdirs(d, &err), 0);
}

static void
cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

/* A summary as docs/artifacts.md describes it, every panel's data present. */
static const char full_summary[] =
    "{\"schema\": \"kp-metrics-summary/1\", \"inputs\": [], \"primary\": 0, \"kernels\": [{"
    "\"name\": \"k(float*)\", \"function\": \"k\", \"launches\": 1, \"ids\": [0],"
    "\"device\": \"Test GPU X1\", \"cc\": \"9.0\","
    "\"summary\": {\"duration_ns\": 2000000, \"sm_throughput_pct\": 80, "
    "\"memory_throughput_pct\": 40.5, \"dram_throughput_pct\": 10, \"l1tex_throughput_pct\": 30,"
    "\"l2_throughput_pct\": 20, \"achieved_occupancy_pct\": 45.5, "
    "\"theoretical_occupancy_pct\": 50,"
    "\"stalls\": {\"selected\": 1, \"not_selected\": 0.5, \"long_scoreboard\": 4,"
    " \"barrier\": 2, \"wait\": 1.5, \"a1\": 0.1, \"a2\": 0.2, \"a3\": 0.3, \"a4\": 0.4,"
    " \"a5\": 0.05, \"zero\": 0}},"
    "\"metrics\": {"
    "\"smsp__cycles_elapsed.avg.per_second\": 1e9,"
    "\"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed\": 100,"
    "\"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed\": 50,"
    "\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed\": 1000,"
    "\"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed\": 0,"
    "\"sm__ops_path_tensor_src_fp16.sum.per_second\": 3e13,"
    "\"dram__bytes.sum.per_second\": 1e11,"
    "\"launch__occupancy_limit_registers\": 4, \"launch__occupancy_limit_warps\": 8,"
    "\"launch__occupancy_limit_shared_mem\": 4, \"launch__occupancy_limit_blocks\": 32},"
    "\"units\": {}, \"unknown_units\": []}]}";

static const char specs_yaml[] =
    "schema: kp-gpu-specs/1\n"
    "gpus:\n"
    "  - name: Test GPU X1\n"
    "    match: [\"X1\"]\n"
    "    memory_bandwidth_bytes_per_s: 1000000000000\n"
    "    peak_fp32_flops: 50000000000000\n"
    "    peak_fp16_flops: 100000000000000\n"
    "    peak_tensor_fp16_flops: 800000000000000\n"
    "    peak_fp64_flops: 25000000000000\n";

static const char hotspots_csv[] =
    "source_file,line,function,sass_opcode,ptx_opcode,metric,value,stall_reason,"
    "bottleneck_class,confidence,evidence\n"
    "/src/a.cu,24,\"k(float*)\",LDS,,Warp Stall Sampling (All Samples),600,mio_throttle,"
    "memory_bandwidth_bound,medium,\"600 of 1000 samples (60.0%); stall mio_throttle 19%\"\n"
    "/src/a.cu,24,\"k(float*)\",LDS,,Warp Stall Sampling (All Samples),500,barrier,"
    "synchronization_bound,high,\"instruction 0x10 of line 24: 500 of 1000 samples (50.0%)\"\n"
    "/inc/h.hpp,7,\"k(float*)\",HADD2,,Warp Stall Sampling (All Samples),300,wait,"
    "compute_pipeline_bound,medium,\"300 of 1000 samples (30.0%)\"\n";

static const char comparison_json[] =
    "{\"schema\": \"kp-comparison/1\", \"tolerance_pct\": 2, \"verdict\": \"IMPROVEMENT\","
    "\"baseline\": {\"function\": \"k0\"}, \"current\": {\"function\": \"k\"},"
    "\"rows\": [{\"metric\": \"sm_throughput_pct\", \"baseline\": 60, \"current\": 80,"
    " \"change_pct\": 33.3333, \"judgment\": \"improved\"},"
    "{\"metric\": \"duration_ns\", \"baseline\": 4000000, \"current\": 2000000,"
    " \"change_pct\": -50, \"judgment\": \"improved\"},"
    "{\"metric\": \"stalls.wait\", \"baseline\": 1, \"current\": 2, \"change_pct\": 100}]}";

static json_t *
load_specs(void)
{
	struct kp_err err;
	char path[128];
	json_t *s;

	put("specs.yaml", specs_yaml);
	snprintf(path, sizeof path, "%s/specs.yaml", top);
	s = kp_specs_load(path, &err);
	ck_assert_msg(s != NULL, "%s", err.msg);
	return s;
}

static void
collect_full(struct kp_plot *p)
{
	struct kp_err err;
	char dir[128], det[128];
	json_t *specs;

	put("p/details/metrics_summary.json", full_summary);
	put("p/details/source_hotspots.csv", hotspots_csv);
	put("p/details/bottleneck_decision.json", "{\"schema\": \"kp-bottleneck-decision/1\","
	    " \"primary\": \"memory_latency_bound\", \"findings\": [{\"class\":"
	    " \"memory_latency_bound\", \"severity\": \"high\"}]}");
	put("p/comparison/comparison.json", comparison_json);
	specs = load_specs();
	snprintf(dir, sizeof dir, "%s/p", top);
	snprintf(det, sizeof det, "%s/p/details", top);
	ck_assert_msg(kp_plot_collect(p, dir, det, specs, &err) == 0, "%s", err.msg);
	json_decref(specs);
}

START_TEST(test_plot_collect_every_panel)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	size_t i;

	fresh();
	collect_full(p);
	for (i = 0; i < KP_PANEL_N; i++)
		ck_assert_msg(p->panel[i].filled, "%s: %s", p->panel[i].name, p->panel[i].reason);
	ck_assert_str_eq(p->title, "k  |  Test GPU X1  |  2.00 ms  |  bottleneck:"
	    " memory_latency_bound (high)");
	ck_assert_uint_eq(p->panel[KP_PANEL_SOL].n, 5);
	ck_assert_str_eq(p->panel[KP_PANEL_SOL].row[3].label, "L1/TEX");
	ck_assert(p->panel[KP_PANEL_SOL].row[1].v == 40.5);
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_occupancy_names_every_smallest_limit)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	const struct kp_plot_panel *pn;

	fresh();
	collect_full(p);
	pn = &p->panel[KP_PANEL_OCCUPANCY];
	ck_assert_uint_eq(pn->n, 2);
	ck_assert(pn->row[0].v == 50 && pn->row[1].v == 45.5);
	ck_assert_str_eq(pn->remark, "limited by registers, shared memory: 4 blocks per SM");
	ck_assert_str_eq(pn->remark2, "block limits per SM: registers 4, shared memory 4,"
	    " warps 8, blocks 32");
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_stalls_top8_without_selected)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	const struct kp_plot_panel *pn;
	size_t i;

	fresh();
	collect_full(p);
	pn = &p->panel[KP_PANEL_STALLS];
	ck_assert_uint_eq(pn->n, 8);
	ck_assert_str_eq(pn->row[0].label, "long_scoreboard");
	ck_assert_str_eq(pn->row[1].label, "barrier");
	ck_assert_str_eq(pn->row[2].label, "wait");
	ck_assert_str_eq(pn->row[3].label, "not_selected (eligible)");
	for (i = 0; i < pn->n; i++) {
		ck_assert_str_ne(pn->row[i].label, "selected");
		ck_assert_str_ne(pn->row[i].label, "a5");	/* ninth: cut */
		if (i > 0)
			ck_assert(pn->row[i].v <= pn->row[i - 1].v);
	}
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_roofline_counts_flops_per_precision)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	size_t i;
	int fp32 = 0, tensor = 0, fp64 = 0;

	fresh();
	collect_full(p);
	ck_assert(p->dram_bytes_per_s == 1e11);
	ck_assert(p->bandwidth == 1e12);
	ck_assert_uint_eq(p->npoints, 2);
	/* fp32: (fadd + fmul + 2 ffma) per cycle x cycles per second */
	ck_assert_str_eq(p->point[0].label, "fp32");
	ck_assert(fabs(p->point[0].flops - 2150e9) < 1);
	ck_assert(fabs(p->point[0].ai - 21.5) < 1e-9);
	ck_assert_str_eq(p->point[1].label, "tensor fp16/bf16");
	ck_assert(p->point[1].flops == 3e13);
	/* fp32, fp16, tensor always; fp64 only with an fp64 point */
	for (i = 0; i < p->nceilings; i++) {
		fp32 += strcmp(p->ceiling[i].label, "fp32") == 0 && p->ceiling[i].flops == 5e13;
		tensor += strcmp(p->ceiling[i].label, "tensor fp16/bf16") == 0;
		fp64 += strcmp(p->ceiling[i].label, "fp64") == 0;
	}
	ck_assert_uint_eq(p->nceilings, 3);
	ck_assert(fp32 == 1 && tensor == 1 && fp64 == 0);
	ck_assert_str_eq(p->panel[KP_PANEL_ROOFLINE].remark,
	    "FLOPs counted: fp32, tensor fp16/bf16; DRAM traffic 100 GB/s");
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_roofline_without_specs_has_no_ceilings)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	struct kp_err err;
	char dir[128], det[128];

	fresh();
	put("p/details/metrics_summary.json", full_summary);
	snprintf(dir, sizeof dir, "%s/p", top);
	snprintf(det, sizeof det, "%s/p/details", top);
	ck_assert_int_eq(kp_plot_collect(p, dir, det, NULL, &err), 0);
	ck_assert(p->panel[KP_PANEL_ROOFLINE].filled);
	ck_assert_uint_eq(p->nceilings, 0);
	ck_assert(p->bandwidth == 0);
	ck_assert_ptr_nonnull(strstr(p->panel[KP_PANEL_ROOFLINE].remark2, "ceilings not drawn"));
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_hotspots_share_of_total_lines_only)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	const struct kp_plot_panel *pn;

	fresh();
	collect_full(p);
	pn = &p->panel[KP_PANEL_HOTSPOTS];
	ck_assert_uint_eq(pn->n, 2);	/* the instruction row is not a line */
	ck_assert_str_eq(pn->row[0].label, "a.cu:24 LDS");
	ck_assert(fabs(pn->row[0].v - 60) < 1e-9);
	ck_assert_str_eq(pn->row[0].note, "60.0 %  mio_throttle");
	ck_assert_str_eq(pn->row[1].label, "h.hpp:7 HADD2");
	ck_assert(fabs(pn->row[1].v - 30) < 1e-9);
	ck_assert_str_eq(pn->title_note, "");
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_comparison_key_metrics_in_order)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	const struct kp_plot_panel *pn;

	fresh();
	collect_full(p);
	pn = &p->panel[KP_PANEL_COMPARISON];
	ck_assert_uint_eq(pn->n, 2);
	ck_assert_str_eq(pn->row[0].label, "duration (% of before)");
	ck_assert(pn->row[0].v == 100 && pn->row[0].v2 == 50);
	ck_assert_str_eq(pn->row[0].note, "4.00 ms -> 2.00 ms (-50.0 %)");
	ck_assert_str_eq(pn->row[1].label, "SM %");
	ck_assert(pn->row[1].v == 60 && pn->row[1].v2 == 80);
	ck_assert_str_eq(pn->title_note, "k0 -> k: IMPROVEMENT");
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_basic_only_says_what_is_missing)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	struct kp_err err;
	char dir[128], det[128];
	json_t *j;

	fresh();
	put("p/details/metrics_summary.json", "{\"kernels\": [{\"name\": \"k\", \"function\":"
	    " \"k\", \"summary\": {\"sm_throughput_pct\": 5, \"achieved_occupancy_pct\": 9},"
	    " \"metrics\": {}}], \"primary\": 0}");
	snprintf(dir, sizeof dir, "%s/p", top);
	snprintf(det, sizeof det, "%s/p/details", top);
	ck_assert_int_eq(kp_plot_collect(p, dir, det, NULL, &err), 0);
	ck_assert(p->panel[KP_PANEL_SOL].filled);
	ck_assert(p->panel[KP_PANEL_OCCUPANCY].filled);
	ck_assert_str_eq(p->panel[KP_PANEL_OCCUPANCY].row[0].note, "n/a");
	ck_assert_str_eq(p->panel[KP_PANEL_STALLS].reason,
	    "no warp-state data: run kp-collect --stages occupancy");
	ck_assert_str_eq(p->panel[KP_PANEL_ROOFLINE].reason,
	    "no roofline data (FLOP counts): run kp-collect --stages roofline");
	ck_assert_str_eq(p->panel[KP_PANEL_HOTSPOTS].reason,
	    "no source data: run kp-collect --stages source, then kp-hotspots");
	ck_assert_str_eq(p->panel[KP_PANEL_COMPARISON].reason,
	    "no comparison: run kp-compare against a baseline profile");
	ck_assert_str_eq(p->title, "k  |  unknown device  |  duration n/a  |  bottleneck:"
	    " not decided (run kp-decide)");
	j = kp_plot_panels_json(p);
	ck_assert(json_is_false(json_object_get(json_object_get(j, "roofline"), "filled")));
	ck_assert(json_is_true(json_object_get(json_object_get(j, "speed_of_light"), "filled")));
	ck_assert_ptr_null(json_object_get(json_object_get(j, "speed_of_light"), "reason"));
	json_decref(j);
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_missing_or_bad_inputs_are_data_errors)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	struct kp_err err;
	char dir[128], det[128];

	fresh();
	snprintf(dir, sizeof dir, "%s/p", top);
	snprintf(det, sizeof det, "%s/p/details", top);
	ck_assert_int_eq(kp_plot_collect(p, dir, det, NULL, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "run kp-extract first"));
	put("p/details/metrics_summary.json", "{\"kernels\": [");
	ck_assert_int_eq(kp_plot_collect(p, dir, det, NULL, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	put("p/details/metrics_summary.json", full_summary);
	put("p/details/source_hotspots.csv", "file,line\nx,1\n");
	ck_assert_int_eq(kp_plot_collect(p, dir, det, NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, ":1: not a source_hotspots.csv header"));
	put("p/details/source_hotspots.csv", "");
	ck_assert_int_eq(kp_plot_collect(p, dir, det, NULL, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, ":1: not a source_hotspots.csv header"));
	put("p/details/source_hotspots.csv", hotspots_csv);
	put("p/comparison/comparison.json", "not json");
	ck_assert_int_eq(kp_plot_collect(p, dir, det, NULL, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_unavailable_hotspot_row_empties_the_panel)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	struct kp_err err;
	char dir[128], det[128];

	fresh();
	put("p/details/metrics_summary.json", full_summary);
	put("p/details/source_hotspots.csv", "source_file,line,function,sass_opcode,ptx_opcode,"
	    "metric,value,stall_reason,bottleneck_class,confidence,evidence\n"
	    ",,k,,,,,,,none,\"the page has no metric columns\"\n");
	snprintf(dir, sizeof dir, "%s/p", top);
	snprintf(det, sizeof det, "%s/p/details", top);
	ck_assert_int_eq(kp_plot_collect(p, dir, det, NULL, &err), 0);
	ck_assert(!p->panel[KP_PANEL_HOTSPOTS].filled);
	ck_assert_str_eq(p->panel[KP_PANEL_HOTSPOTS].reason,
	    "no source hotspots: the page has no metric columns");
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_write_is_byte_identical)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	struct kp_err err;
	char vis[128], *a, *b, *d1, *d2;

	fresh();
	collect_full(p);
	snprintf(vis, sizeof vis, "%s/v1", top);
	ck_assert_int_eq(kp_plot_write(p, vis, "png", &err), 0);
	snprintf(vis, sizeof vis, "%s/v2", top);
	ck_assert_int_eq(kp_plot_write(p, vis, "png", &err), 0);
	a = slurp("v1/profile_summary.gp");
	b = slurp("v2/profile_summary.gp");
	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strstr(a, "if (!exists(\"kp_output\")) kp_output ="
	    " \"profile_summary.png\"\n"));
	ck_assert_ptr_nonnull(strstr(a, "set terminal pngcairo size 1800,1100 font"
	    " \"DejaVu Sans,11\""));
	ck_assert_ptr_nonnull(strstr(a, "\"roofline.dat\" every ::0::0"));
	d1 = slurp("v1/hotspots.dat");
	d2 = slurp("v2/hotspots.dat");
	ck_assert_str_eq(d1, d2);
	ck_assert_ptr_nonnull(strstr(d1, "0 \"a.cu:24 LDS\" 60 0 \"60.0 %  mio_throttle\"\n"));
	free(a);
	free(b);
	free(d1);
	free(d2);
	a = slurp("v1/roofline.dat");
	ck_assert_ptr_nonnull(strstr(a, "0 21.5 2.15e+12 \"fp32\"\n"));
	free(a);
	ck_assert_int_eq(kp_plot_write(p, vis, "svg", &err), 0);
	a = slurp("v2/profile_summary.gp");
	ck_assert_ptr_nonnull(strstr(a, "set terminal svg size 1800,1100"));
	free(a);
	ck_assert_int_eq(kp_plot_write(p, vis, "jpg", &err), -1);
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_script_escapes_names)
{
	struct kp_plot *p = calloc(1, sizeof *p);
	struct kp_err err;
	char vis[128], *a;

	fresh();
	collect_full(p);
	snprintf(p->title, sizeof p->title, "a\"b\\c\nd'e`f`@g");
	snprintf(p->panel[KP_PANEL_STALLS].row[0].label, sizeof p->panel[0].row[0].label,
	    "x\"y");
	snprintf(vis, sizeof vis, "%s/v", top);
	ck_assert_int_eq(kp_plot_write(p, vis, "png", &err), 0);
	a = slurp("v/profile_summary.gp");
	/* single-quoted: no backquote or @macro runs; the quote doubled; the
	 * newline a "\n" constant between two strings */
	ck_assert_ptr_nonnull(strstr(a, "set multiplot title 'a\"b\\c'.\"\\n\".'d''e`f`@g' "));
	free(a);
	a = slurp("v/stalls.dat");
	ck_assert_ptr_nonnull(strstr(a, "0 \"x'y\" 4 "));
	free(a);
	free(p);
	cleanup();
}
END_TEST

START_TEST(test_plot_check_image_reads_png_header)
{
	static const unsigned char png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
		0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0x07, 0x08, 0, 0, 0x04, 0x4c, 8, 2, 0, 0, 0 };
	struct kp_err err;
	char path[128];
	long w = 0, h = 0;

	fresh();
	snprintf(path, sizeof path, "%s/a.png", top);
	ck_assert_int_eq(kp_write_file_atomic(path, (const char *)png, sizeof png, &err), 0);
	ck_assert_int_eq(kp_plot_check_image(path, "png", &w, &h, &err), 0);
	ck_assert_int_eq(w, 1800);
	ck_assert_int_eq(h, 1100);
	ck_assert_int_eq(kp_plot_check_image(path, "svg", NULL, NULL, &err), -1);
	put("b.png", "GIF89a and more bytes than a png header holds");
	snprintf(path, sizeof path, "%s/b.png", top);
	ck_assert_int_eq(kp_plot_check_image(path, "png", &w, &h, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_ENV);
	put("c.png", "");
	snprintf(path, sizeof path, "%s/c.png", top);
	ck_assert_int_eq(kp_plot_check_image(path, "png", &w, &h, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "empty"));
	put("d.svg", "<?xml version=\"1.0\"?>\n<svg width=\"1800\">");
	snprintf(path, sizeof path, "%s/d.svg", top);
	ck_assert_int_eq(kp_plot_check_image(path, "svg", NULL, NULL, &err), 0);
	cleanup();
}
END_TEST

START_TEST(test_plot_find_gnuplot_honours_env)
{
	struct kp_err err;
	char *g, path[128], *old = strdup(getenv("PATH") ? getenv("PATH") : "/bin:/usr/bin");

	fresh();
	setenv("KP_GNUPLOT", "/nonexistent/gnuplot", 1);
	ck_assert_ptr_null(kp_plot_find_gnuplot(&err));
	ck_assert_int_eq(err.status, KP_EXIT_ENV);
	ck_assert_ptr_nonnull(strstr(err.msg, "apt-get install gnuplot-nox"));
	put("fake", "#!/bin/sh\nexit 0\n");
	snprintf(path, sizeof path, "%s/fake", top);
	ck_assert_int_eq(chmod(path, 0755), 0);
	setenv("KP_GNUPLOT", path, 1);
	g = kp_plot_find_gnuplot(&err);
	ck_assert_str_eq(g, path);
	free(g);
	/* a bare name is looked up on PATH */
	setenv("KP_GNUPLOT", "fake", 1);
	setenv("PATH", top, 1);
	g = kp_plot_find_gnuplot(&err);
	ck_assert_str_eq(g, path);
	free(g);
	setenv("PATH", "/nonexistent", 1);
	unsetenv("KP_GNUPLOT");
	ck_assert_ptr_null(kp_plot_find_gnuplot(&err));
	ck_assert_str_eq(err.msg, "gnuplot not found: install it (apt-get install gnuplot-nox)");
	setenv("PATH", old, 1);
	free(old);
	cleanup();
}
END_TEST

START_TEST(test_plot_run_reports_failure_and_arguments)
{
	struct kp_err err;
	char path[128];
	char *args;

	fresh();
	/* a stand-in that records its arguments and working folder */
	put("ok", "#!/bin/sh\nprintf '%s|' \"$@\" > args; pwd >> args\n");
	put("bad", "#!/bin/sh\nexit 1\n");
	snprintf(path, sizeof path, "%s/ok", top);
	ck_assert_int_eq(chmod(path, 0755), 0);
	ck_assert_int_eq(kp_plot_run(path, top, "s.gp", "/x/it's.png", &err), 0);
	args = slurp("args");
	ck_assert_ptr_nonnull(strstr(args, "-e|kp_output='/x/it''s.png'|s.gp|"));
	ck_assert_ptr_nonnull(strstr(args, top));
	free(args);
	snprintf(path, sizeof path, "%s/bad", top);
	ck_assert_int_eq(chmod(path, 0755), 0);
	ck_assert_int_eq(kp_plot_run(path, top, "s.gp", "o.png", &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_ENV);
	ck_assert_ptr_nonnull(strstr(err.msg, "failed (exit status 1)"));
	cleanup();
}
END_TEST

static Suite *
plot_suite(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_plot_collect_every_panel);
	tcase_add_test(tc, test_plot_occupancy_names_every_smallest_limit);
	tcase_add_test(tc, test_plot_stalls_top8_without_selected);
	tcase_add_test(tc, test_plot_roofline_counts_flops_per_precision);
	tcase_add_test(tc, test_plot_roofline_without_specs_has_no_ceilings);
	tcase_add_test(tc, test_plot_hotspots_share_of_total_lines_only);
	tcase_add_test(tc, test_plot_comparison_key_metrics_in_order);
	tcase_add_test(tc, test_plot_basic_only_says_what_is_missing);
	tcase_add_test(tc, test_plot_missing_or_bad_inputs_are_data_errors);
	tcase_add_test(tc, test_plot_unavailable_hotspot_row_empties_the_panel);
	tcase_add_test(tc, test_plot_write_is_byte_identical);
	tcase_add_test(tc, test_plot_script_escapes_names);
	tcase_add_test(tc, test_plot_check_image_reads_png_header);
	tcase_add_test(tc, test_plot_find_gnuplot_honours_env);
	tcase_add_test(tc, test_plot_run_reports_failure_and_arguments);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(plot_suite)
