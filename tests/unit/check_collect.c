/* Unit tests for collect.c: stages, ncu argv, what ncu's log means, the run record. */
#include <fcntl.h>
#include <jansson.h>
#include <libfyaml.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kp_check.h"
#include "kp_atomic.h"
#include "kp_collect.h"
#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_proc.h"
#include "kp_yaml.h"
#include "ncu.h"
#include "profile.h"

static json_t *
target(const char *runtime)
{
	return json_pack("{s:{s:s, s:[s,s], s:s}, s:{s:s, s:s, s:s}, s:{s:i, s:i, s:s, s:[s,s]}}",
	    "target", "executable", "./bench", "args", "--kernel", "v0", "runtime", runtime,
	    "kernel", "name", "hgemm_byzj_v0", "filter_mode", "regex", "filter",
	    ".*hgemm_byzj_v0.*",
	    "profiling", "warmup_skip", 5, "launch_count", 2, "clock_control", "none",
	    "extra_profiler_options", "--cache-control", "all");
}

/* The argv as one string of words separated by '|'. */
static char *
joined(json_t *a)
{
	static char buf[4096];
	json_t *w;
	size_t i;

	buf[0] = '\0';
	json_array_foreach(a, i, w) {
		if (i > 0)
			strcat(buf, "|");
		strcat(buf, json_string_value(w));
	}
	return buf;
}

START_TEST(test_stages_parse)
{
	struct kp_err err;
	unsigned m;
	int a;

	ck_assert_int_eq(kp_stages_parse("auto", &m, &a, &err), 0);
	ck_assert_int_eq(a, 1);
	ck_assert_uint_eq(m, 1u << KP_STAGE_BASIC);
	ck_assert_int_eq(kp_stages_parse("all", &m, &a, &err), 0);
	ck_assert_uint_eq(m, (1u << KP_NSTAGES) - 1);
	ck_assert_int_eq(kp_stages_parse("memory,speed-of-light,occupancy", &m, &a, &err), 0);
	ck_assert_uint_eq(m, (1u << KP_STAGE_MEMORY) | (1u << KP_STAGE_SOL) |
	    (1u << KP_STAGE_OCCUPANCY));
	ck_assert_int_eq(a, 0);
	ck_assert_int_eq(kp_stages_parse("basic,nope", &m, &a, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "\"nope\""));
	ck_assert_int_eq(kp_stages_parse(",", &m, &a, &err), -1);
	ck_assert_str_eq(kp_stage_file(KP_STAGE_OCCUPANCY), "05_occupancy_launch_raw.csv");
	ck_assert_str_eq(kp_stage_id(KP_STAGE_SOL), "speed-of-light");
}
END_TEST

START_TEST(test_stage_argv_order_and_filter)
{
	struct kp_err err;
	json_t *t = target("native"), *pre = json_pack("[s]", "/usr/local/cuda/bin/ncu");
	json_t *a = kp_stage_argv(t, KP_STAGE_MEMORY, pre, "/p/details/03.csv", NULL, &err);

	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(joined(a), "/usr/local/cuda/bin/ncu|--csv|--page|raw|--log-file|"
	    "/p/details/03.csv|--kernel-name-base|demangled|-k|regex:.*hgemm_byzj_v0.*|"
	    "--launch-skip|5|--launch-count|2|--clock-control|none|"
	    "--section|MemoryWorkloadAnalysis|--section|MemoryWorkloadAnalysis_Chart|"
	    "--section|MemoryWorkloadAnalysis_Tables|--cache-control|all|./bench|--kernel|v0");
	json_decref(a);
	json_decref(t);
	json_decref(pre);
}
END_TEST

START_TEST(test_stage_argv_python_and_source)
{
	struct kp_err err;
	json_t *t = target("python-triton"), *pre = json_pack("[s,s,s]", "sudo", "-n", "/x/ncu");
	json_t *a;

	json_object_set_new(json_object_get(t, "analysis") ? json_object_get(t, "analysis") :
	    (json_object_set_new(t, "analysis", json_object()), json_object_get(t, "analysis")),
	    "source_views", json_pack("[s]", "ptx"));
	a = kp_stage_argv(t, KP_STAGE_SOURCE, pre, "L", NULL, &err);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(strstr(joined(a), "sudo|-n|/x/ncu|--csv|--page|source|--log-file|L|"
	    "--target-processes|all|"));
	ck_assert_ptr_nonnull(strstr(joined(a), "--section|SourceCounters|--print-source|"
	    "cuda,sass,ptx|"));
	json_decref(a);
	json_decref(t);
	json_decref(pre);
}
END_TEST

START_TEST(test_source_argv_takes_the_view)
{
	struct kp_err err;
	json_t *t = target("native"), *pre = json_pack("[s]", "ncu");
	json_t *a = kp_source_argv(t, pre, "L", "sass", &err);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(strstr(joined(a), "ncu|--csv|--page|source|--log-file|L|"));
	ck_assert_ptr_nonnull(strstr(joined(a), "--section|SourceCounters|--print-source|sass|"));
	json_decref(a);
	a = kp_stage_argv(t, KP_STAGE_SOURCE, pre, "L", NULL, &err);
	ck_assert_ptr_nonnull(strstr(joined(a), "--print-source|cuda,sass|"));
	json_decref(a);
	ck_assert_int_eq(kp_ncu_has_lineinfo(KP_FIXTURES "/h200/hgemm_v0/source_cuda_sass.csv"), 1);
	ck_assert_int_eq(kp_ncu_has_lineinfo(KP_FIXTURES "/h200/hgemm_v0/source_sass.csv"), 0);
	ck_assert_int_eq(kp_ncu_has_lineinfo(KP_FIXTURES "/no/such.csv"), 0);
	json_decref(t);
	json_decref(pre);
}
END_TEST

START_TEST(test_stage_argv_filter_modes)
{
	struct kp_err err;
	json_t *t = target("native"), *pre = json_pack("[s]", "ncu"), *k, *a;

	k = json_object_get(t, "kernel");
	json_object_set_new(k, "filter_mode", json_string("exact"));
	json_object_set_new(k, "filter", json_string("hgemm_byzj_v0"));
	a = kp_stage_argv(t, KP_STAGE_BASIC, pre, "L", NULL, &err);
	ck_assert_ptr_nonnull(strstr(joined(a), "|--kernel-name-base|function|-k|hgemm_byzj_v0|"));
	json_decref(a);
	json_object_set_new(k, "filter_mode", json_string("kernel-id"));
	json_object_set_new(k, "filter", json_string("::hgemm_byzj_v0:3"));
	a = kp_stage_argv(t, KP_STAGE_BASIC, pre, "L", NULL, &err);
	ck_assert_ptr_nonnull(strstr(joined(a), "|--kernel-id|::hgemm_byzj_v0:3|"));
	ck_assert_ptr_null(strstr(joined(a), "--launch-skip"));
	json_decref(a);
	json_object_set_new(k, "filter_mode", json_string("nvtx-range"));
	json_object_set_new(k, "nvtx_range", json_string("step@train"));
	a = kp_stage_argv(t, KP_STAGE_BASIC, pre, "L", NULL, &err);
	ck_assert_ptr_nonnull(strstr(joined(a), "|--nvtx|--nvtx-include|step@train|"));
	json_decref(a);
	json_object_set_new(k, "filter_mode", json_string("glob"));
	ck_assert_ptr_null(kp_stage_argv(t, KP_STAGE_BASIC, pre, "L", NULL, &err));
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	json_decref(t);
	json_decref(pre);
}
END_TEST

START_TEST(test_roofline_sections_from_list)
{
	struct kp_err err;
	char *text = kp_read_file(KP_FIXTURES "/h200/device/list_sections.txt", NULL, &err);
	json_t *r = kp_roofline_sections(text), *few;

	ck_assert_uint_eq(json_array_size(r), 6);
	ck_assert_str_eq(json_string_value(json_array_get(r, 1)), "SpeedOfLight_RooflineChart");
	few = kp_roofline_sections("SpeedOfLight_HierarchicalHalfRooflineChart   GPU ...\n");
	ck_assert_uint_eq(json_array_size(few), 3);
	ck_assert_str_eq(json_string_value(json_array_get(few, 2)),
	    "SpeedOfLight_HierarchicalHalfRooflineChart");
	json_decref(r);
	json_decref(few);
	free(text);
}
END_TEST

static struct kp_ncu_verdict
classify(const char *log, const char *out, int status)
{
	struct kp_proc_result r;
	struct kp_ncu_verdict v;

	memset(&r, 0, sizeof(r));
	r.exited = 1;
	r.exit_status = status;
	kp_ncu_classify(log, out, &r, &v);
	return v;
}

START_TEST(test_classify_nomatch_exits_zero)
{
	struct kp_ncu_verdict v = classify(KP_FIXTURES "/h200/gemm_discovery/nomatch.stdout",
	    NULL, 0);

	ck_assert_int_eq(v.outcome, KP_OUT_NOMATCH);
	ck_assert_uint_eq(json_array_size(v.kernels), 5);
	ck_assert_str_eq(json_string_value(json_array_get(v.kernels, 4)), "stream_triad");
	ck_assert_str_eq(kp_outcome_status(v.outcome), "no-kernel-matched");
	ck_assert_int_eq(kp_outcome_exit(v.outcome), KP_EXIT_NOMATCH);
	json_decref(v.kernels);
}
END_TEST

START_TEST(test_classify_badexe_and_ok)
{
	struct kp_ncu_verdict v = classify(KP_FIXTURES "/h200/gemm_discovery/badexe.stdout",
	    NULL, 1);

	ck_assert_int_eq(v.outcome, KP_OUT_TARGET);
	ck_assert_ptr_nonnull(strstr(v.reason, "does not exist"));
	v = classify(KP_FIXTURES "/h200/hgemm_v0/basic_raw_baseunits.log",
	    KP_FIXTURES "/h200/hgemm_v0/basic_raw_baseunits.appstdout", 0);
	ck_assert_int_eq(v.outcome, KP_OUT_OK);
	v = classify(KP_FIXTURES "/h200/hgemm_v0/basic_raw_baseunits.log", NULL, 2);
	ck_assert_int_eq(v.outcome, KP_OUT_TARGET);
	ck_assert_str_eq(v.reason, "ncu exited with status 2");
}
END_TEST

START_TEST(test_classify_permission)
{
	char path[] = "/tmp/kp-cls-XXXXXX";
	int fd = mkstemp(path);
	const char *perm = "==PROF== Connected to process 1 (/x)\n==ERROR== ERR_NVGPUCTRPERM - "
	    "The user does not have permission to access NVIDIA GPU Performance Counters on "
	    "the target device 0.\n";
	struct kp_ncu_verdict v;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, perm, strlen(perm)), (int)strlen(perm));
	close(fd);
	v = classify(path, NULL, 0);
	ck_assert_int_eq(v.outcome, KP_OUT_NOPERM);
	ck_assert_int_eq(kp_outcome_exit(v.outcome), KP_EXIT_PRIV);
	/* sudo -n wanting a password says so on stderr, captured with the workload's */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "sudo: a password is required\n", 29), 29);
	close(fd);
	v = classify(NULL, path, 1);
	ck_assert_int_eq(v.outcome, KP_OUT_NOPERM);
	unlink(path);
}
END_TEST

START_TEST(test_classify_timeout_and_interrupt)
{
	struct kp_proc_result r;
	struct kp_ncu_verdict v;

	memset(&r, 0, sizeof(r));
	r.timed_out = 1;
	r.signal = 15;
	kp_ncu_classify(NULL, NULL, &r, &v);
	ck_assert_int_eq(v.outcome, KP_OUT_TARGET);
	ck_assert_str_eq(v.reason, "timed out");
	r.interrupted = 1;
	kp_ncu_classify(NULL, NULL, &r, &v);
	ck_assert_int_eq(v.outcome, KP_OUT_INTR);
	ck_assert_int_eq(kp_outcome_exit(v.outcome), KP_EXIT_INTR);
}
END_TEST

static const char *const nasty[] = { "./bench", "it's \"q\"", "$(rm -rf /); echo `id`",
	"a b", "*;|&<>", "key: value", "- dash", "#hash", "\\back\\", "", NULL };

START_TEST(test_manifest_yaml_roundtrip)
{
	struct kp_err err;
	char dir[] = "/tmp/kp-man-XXXXXX", *path;
	json_t *argv = json_array(), *m, *back;
	struct fy_document *d;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; nasty[i] != NULL; i++)
		json_array_append_new(argv, json_string(nasty[i]));
	m = json_pack("{s:s, s:s, s:{s:O}, s:[{s:s, s:O, s:i, s:f}]}", "schema",
	    "kp-run-manifest/1", "status", "complete", "target", "command", argv, "runs",
	    "stage", "basic", "argv", argv, "exit_status", 0, "duration_s", 3.25);
	path = kp_path_join(dir, "run_manifest.yaml");
	ck_assert_int_eq(kp_manifest_write(m, path, &err), 0);
	d = kp_yaml_load(path, &err);
	ck_assert_ptr_nonnull(d);
	back = kp_yaml_to_json(fy_document_root(d));
	ck_assert(json_equal(json_object_get(json_object_get(back, "target"), "command"), argv));
	ck_assert(json_equal(json_object_get(json_array_get(json_object_get(back, "runs"), 0),
	    "argv"), argv));
	fy_document_destroy(d);
	json_decref(back);
	json_decref(m);
	json_decref(argv);
	unlink(path);
	rmdir(dir);
	free(path);
}
END_TEST

START_TEST(test_commands_sh_reproduces_argv)
{
	struct kp_err err;
	char dir[] = "/tmp/kp-cmd-XXXXXX", *path, *out, cmd[512], *text;
	json_t *argv = json_pack("[s]", "printf"), *runs;
	size_t i;
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	json_array_append_new(argv, json_string("<%s>\\n"));
	for (i = 0; nasty[i] != NULL; i++)
		json_array_append_new(argv, json_string(nasty[i]));
	runs = json_pack("[{s:s, s:O, s:s, s:{s:s}}]", "stage", "basic", "argv", argv, "cwd",
	    dir, "env", "KP_X", "a 'b'");
	path = kp_path_join(dir, "commands.sh");
	ck_assert_int_eq(kp_commands_write(runs, path, &err), 0);
	snprintf(cmd, sizeof(cmd), "sh %s > %s/out", path, dir);
	ck_assert_int_eq(system(cmd), 0);
	out = kp_path_join(dir, "out");
	text = kp_read_file(out, NULL, &err);
	/* every word came through whole */
	ck_assert_str_eq(text, "<./bench>\n<it's \"q\">\n<$(rm -rf /); echo `id`>\n<a b>\n"
	    "<*;|&<>>\n<key: value>\n<- dash>\n<#hash>\n<\\back\\>\n<>\n");
	fp = popen("command -v bash", "r");
	if (fp != NULL && fgetc(fp) != EOF) {
		snprintf(cmd, sizeof(cmd), "bash -n %s", path);
		ck_assert_int_eq(system(cmd), 0);
	}
	if (fp != NULL)
		pclose(fp);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(text);
	free(out);
	free(path);
	json_decref(runs);
	json_decref(argv);
}
END_TEST

START_TEST(test_merge_one_row_per_launch)
{
	struct kp_err err;
	const char *paths[] = { KP_FIXTURES "/h200/stream_triad/basic_raw.csv",
		KP_FIXTURES "/h200/stream_triad/memory_raw.csv" };
	const char *names[] = { "basic", "memory" };
	char path[] = "/tmp/kp-merge-XXXXXX";
	int fd = mkstemp(path), rc, rows = 0;
	struct kp_csv *c;
	long dram = -1, stages = -1, launch = -1;
	size_t i;

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(kp_merge_raw(paths, names, 2, path, &err), 0);
	c = kp_csv_open_path(path, &err);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "ID");
	for (i = 0; i < kp_csv_nfields(c); i++) {
		if (strcmp(kp_csv_field(c, i)->s, "Stages") == 0)
			stages = (long)i;
		if (strcmp(kp_csv_field(c, i)->s, "Launch") == 0)
			launch = (long)i;
		/* a memory-only metric */
		if (strcmp(kp_csv_field(c, i)->s, "dram__bytes_read.sum") == 0)
			dram = (long)i;
	}
	ck_assert_int_ge(stages, 0);
	ck_assert_int_ge(dram, 0);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);	/* units */
	ck_assert_str_eq(kp_csv_field(c, 0)->s, "");
	while ((rc = kp_csv_next(c, &err)) == 1) {
		char want[16];
		snprintf(want, sizeof(want), "%d", rows);
		ck_assert_str_eq(kp_csv_field(c, (size_t)stages)->s, "basic;memory");
		ck_assert_str_eq(kp_csv_field(c, (size_t)launch)->s, want);
		ck_assert_uint_gt(kp_csv_field(c, (size_t)dram)->len, 0);
		rows++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(rows, 3);	/* three launches profiled in each stage */
	kp_csv_close(c);
	ck_assert_int_eq(kp_merge_raw((const char *[]){ KP_FIXTURES "/h200/hgemm_v0/source_sass.csv" },
	    names, 1, path, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	unlink(path);
}
END_TEST

/* A cell holding quotes and commas (a templated kernel name, a string
 * literal in a launch argument) comes out of the merge as it went in. */
START_TEST(test_merge_keeps_quoted_cells)
{
	static const char csv[] = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
	    "\"\",\"\",\"ns\"\n"
	    "\"0\",\"k<\"\"a,b\"\">(\"\"\"\")\",\"1,024\"\n";
	struct kp_err err;
	char in[] = "/tmp/kp-mergeq-XXXXXX", out[] = "/tmp/kp-mergeo-XXXXXX";
	const char *names[] = { "basic" };
	int fi = mkstemp(in), fo = mkstemp(out);
	struct kp_csv *c;

	ck_assert_int_ge(fi, 0);
	ck_assert_int_ge(fo, 0);
	ck_assert_int_eq(write(fi, csv, sizeof csv - 1), (ssize_t)(sizeof csv - 1));
	close(fi);
	close(fo);
	ck_assert_msg(kp_merge_raw((const char *[]){ in }, names, 1, out, &err) == 0, "%s", err.msg);
	c = kp_csv_open_path(out, &err);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_int_eq(kp_csv_next(c, &err), 1);
	ck_assert_str_eq(kp_csv_field(c, 1)->s, "k<\"a,b\">(\"\")");
	ck_assert_str_eq(kp_csv_field(c, 2)->s, "1,024");
	ck_assert_str_eq(kp_csv_field(c, 4)->s, "basic");
	ck_assert_int_eq(kp_csv_next(c, &err), 0);
	kp_csv_close(c);
	unlink(in);
	unlink(out);
}
END_TEST

static Suite *
collect_suite(void)
{
	Suite *s = suite_create("collect");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_stages_parse);
	tcase_add_test(tc, test_stage_argv_order_and_filter);
	tcase_add_test(tc, test_stage_argv_python_and_source);
	tcase_add_test(tc, test_source_argv_takes_the_view);
	tcase_add_test(tc, test_stage_argv_filter_modes);
	tcase_add_test(tc, test_roofline_sections_from_list);
	tcase_add_test(tc, test_classify_nomatch_exits_zero);
	tcase_add_test(tc, test_classify_badexe_and_ok);
	tcase_add_test(tc, test_classify_permission);
	tcase_add_test(tc, test_classify_timeout_and_interrupt);
	tcase_add_test(tc, test_manifest_yaml_roundtrip);
	tcase_add_test(tc, test_commands_sh_reproduces_argv);
	tcase_add_test(tc, test_merge_one_row_per_launch);
	tcase_add_test(tc, test_merge_keeps_quoted_cells);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(collect_suite)
