/* Unit tests for report.c: every section, whatever the folder holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kp_check.h"
#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_report.h"
#include "rules_int.h"

static const char *const sections[] = {
	"## Target summary", "## Kernel filter", "## Profiler", "## Commands",
	"## Collected sections", "## Bottleneck classification", "## Evidence table",
	"## Source/SASS/PTX hotspots", "## Optimization hypotheses", "## Confidence",
	"## Limitations", "## Next profiling actions",
};

static char *
tmpdir(void)
{
	char *d = strdup("/tmp/check_report.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void
rmtree(char *d)
{
	char cmd[256];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	ck_assert_int_eq(system(cmd), 0);
	free(d);
}

static void
sections_in_order(const char *text)
{
	const char *p = text;
	size_t i;

	for (i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		const char *q = strstr(p, sections[i]);

		ck_assert_msg(q != NULL, "section %s missing or out of order", sections[i]);
		p = q + 1;
	}
}

static void
put(const char *dir, const char *rel, const char *text)
{
	char *p = kp_path_join(dir, rel);
	struct kp_err err;

	ck_assert_int_eq(kp_write_file_atomic(p, text, strlen(text), &err), 0);
	free(p);
}

START_TEST(test_report_empty_folder_has_every_section)
{
	struct kp_err err;
	char *d = tmpdir(), *t = kp_report_render(d, &err);

	ck_assert_msg(t != NULL, "%s", err.msg);
	sections_in_order(t);
	ck_assert_ptr_nonnull(strstr(t, "_Missing: details/metrics_summary.json"));
	ck_assert_ptr_null(strstr(t, "## Comparison"));
	free(t);
	rmtree(d);
}
END_TEST

START_TEST(test_report_cites_summary_and_hotspot)
{
	struct kp_err err;
	char *d = tmpdir(), *det = kp_path_join(d, "details"), *t;

	ck_assert_int_eq(kp_mkdirs(det, &err), 0);
	put(d, "details/metrics_summary.json", "{\"primary\":0,\"kernels\":[{\"name\":\"k(int)\","
	    "\"function\":\"k\",\"launches\":3,\"summary\":{\"duration_ns\":1918432,"
	    "\"memory_throughput_pct\":89.37}}]}");
	put(d, "details/source_hotspots.csv", "source_file,line,function,sass_opcode,ptx_opcode,"
	    "metric,value,stall_reason,bottleneck_class,confidence,evidence\n"
	    "/src/g.cu,24,k,LDS,,samples,124071,mio_throttle,memory_bandwidth_bound,high,"
	    "\"51.1% of samples, LDS | 61%\"\n");
	put(d, "details/bottleneck_decision.json", "{\"primary\":\"memory_bandwidth_bound\","
	    "\"findings\":[{\"class\":\"memory_bandwidth_bound\",\"severity\":\"high\",\"score\":3,"
	    "\"text\":\"memory 89.37 %\",\"evidence\":[{\"metric\":\"memory_throughput_pct\","
	    "\"value\":89.37,\"op\":\">=\",\"threshold\":60}]}]}");
	t = kp_report_render(d, &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	sections_in_order(t);
	ck_assert_ptr_nonnull(strstr(t, "| `duration_ns` | 1.92 ms (1918432 ns) | ns |"));
	ck_assert_ptr_nonnull(strstr(t, "| `memory_throughput_pct` | 89.4 % (89.37 %) | % |"));
	ck_assert_ptr_nonnull(strstr(t, "memory_bandwidth_bound >= 60 |"));
	ck_assert_ptr_nonnull(strstr(t, "| 1 | g.cu:24 | LDS |"));
	ck_assert_ptr_nonnull(strstr(t, "LDS \\| 61%"));
	ck_assert_ptr_nonnull(strstr(t, "Hotspot: `g.cu:24`"));
	ck_assert_ptr_nonnull(strstr(t, "Primary class: **memory_bandwidth_bound**"));
	ck_assert_ptr_nonnull(strstr(t, "the top hotspot's class: memory_bandwidth_bound, the"
	    " primary's too"));
	free(t);
	/* a primary of another class: the line is read as its symptom or a second cause */
	put(d, "details/bottleneck_decision.json", "{\"primary\":\"l1_throughput_bound\","
	    "\"findings\":[{\"class\":\"l1_throughput_bound\",\"severity\":\"high\","
	    "\"score\":3,\"text\":\"L1 91 %\",\"evidence\":[]}]}");
	t = kp_report_render(d, &err);
	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_ptr_nonnull(strstr(t, "the top hotspot's class: memory_bandwidth_bound, not the"
	    " primary's (l1_throughput_bound)"));
	free(t);
	free(det);
	rmtree(d);
}
END_TEST

START_TEST(test_report_malformed_decision_is_an_error)
{
	struct kp_err err;
	char *d = tmpdir(), *det = kp_path_join(d, "details");

	ck_assert_int_eq(kp_mkdirs(det, &err), 0);
	put(d, "details/bottleneck_decision.json", "[1]");
	ck_assert_ptr_null(kp_report_render(d, &err));
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	free(det);
	rmtree(d);
}
END_TEST

/* Every class of the taxonomy comes with a change to try, its effect and
 * the metric that checks it, not only "duration_ns should drop". */
START_TEST(test_report_every_class_has_a_hypothesis)
{
	struct kp_err err;
	char *d = tmpdir(), *det = kp_path_join(d, "details"), *t;
	char buf[512];
	size_t i;

	ck_assert_int_eq(kp_mkdirs(det, &err), 0);
	for (i = 0; kp_rule_classes[i] != NULL; i++) {
		snprintf(buf, sizeof buf, "{\"primary\":\"%s\",\"findings\":[{\"class\":\"%s\","
		    "\"severity\":\"high\",\"score\":3,\"text\":\"t\",\"evidence\":[]}]}",
		    kp_rule_classes[i], kp_rule_classes[i]);
		put(d, "details/bottleneck_decision.json", buf);
		t = kp_report_render(d, &err);
		ck_assert_msg(t != NULL, "%s", err.msg);
		ck_assert_msg(strstr(t, "   - Change: ") != NULL, "%s: no change", kp_rule_classes[i]);
		ck_assert_msg(strstr(t, "duration_ns should drop") == NULL, "%s: no check",
		    kp_rule_classes[i]);
		free(t);
	}
	free(det);
	rmtree(d);
}
END_TEST

static Suite *
report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_report_empty_folder_has_every_section);
	tcase_add_test(tc, test_report_cites_summary_and_hotspot);
	tcase_add_test(tc, test_report_malformed_decision_is_an_error);
	tcase_add_test(tc, test_report_every_class_has_a_hypothesis);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(report_suite)
