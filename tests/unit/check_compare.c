/* Unit tests for compare.c: judgments, the verdict, profile ids. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_compare.h"
#include "kp_diag.h"

static json_t *
kernel(const char *summary, const char *spread)
{
	char buf[1024];
	json_error_t je;
	json_t *k;

	snprintf(buf, sizeof buf, "{\"name\":\"k\",\"function\":\"k\",\"launches\":1,"
	    "\"summary\":%s%s%s}", summary, spread ? ",\"spread\":" : "", spread ? spread : "");
	k = json_loads(buf, 0, &je);
	ck_assert_msg(k != NULL, "%s", je.text);
	return k;
}

static json_t *
row_of(json_t *cmp, const char *metric)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(cmp, "rows"), i, r)
		if (strcmp(json_string_value(json_object_get(r, "metric")), metric) == 0)
			return r;
	return NULL;
}

static const char *
judged(json_t *cmp, const char *metric)
{
	json_t *r = row_of(cmp, metric);

	ck_assert_msg(r != NULL, "no row %s", metric);
	return json_string_value(json_object_get(r, "judgment"));
}

static json_t *
compare(const char *b, const char *c, double tol)
{
	struct kp_err err;
	json_t *kb = kernel(b, NULL), *kc = kernel(c, NULL);
	json_t *cmp = kp_compare_kernels(kb, kc, tol, &err);

	ck_assert_ptr_nonnull(cmp);
	json_decref(kb);
	json_decref(kc);
	return cmp;
}

START_TEST(test_compare_directions)
{
	ck_assert_int_eq(kp_compare_direction("duration_ns"), KP_DIR_LOWER);
	ck_assert_int_eq(kp_compare_direction("stalls.long_scoreboard"), KP_DIR_LOWER);
	ck_assert_int_eq(kp_compare_direction("shared_bank_conflicts"), KP_DIR_LOWER);
	ck_assert_int_eq(kp_compare_direction("achieved_occupancy_pct"), KP_DIR_HIGHER);
	ck_assert_int_eq(kp_compare_direction("ipc"), KP_DIR_HIGHER);
	ck_assert_int_eq(kp_compare_direction("dram_throughput_pct"), KP_DIR_NONE);
	ck_assert_int_eq(kp_compare_direction("sm_throughput_pct"), KP_DIR_NONE);
}
END_TEST

START_TEST(test_compare_faster_is_improvement)
{
	json_t *cmp = compare("{\"duration_ns\":1918432,\"ipc\":2}",
	    "{\"duration_ns\":627968,\"ipc\":1}", 2);

	ck_assert_str_eq(judged(cmp, "duration_ns"), "improved");
	ck_assert_str_eq(judged(cmp, "ipc"), "regressed");
	ck_assert_str_eq(json_string_value(json_object_get(cmp, "verdict")), "IMPROVEMENT");
	json_decref(cmp);
	cmp = compare("{\"duration_ns\":627968}", "{\"duration_ns\":1918432}", 2);
	ck_assert_str_eq(json_string_value(json_object_get(cmp, "verdict")), "REGRESSION");
	json_decref(cmp);
}
END_TEST

START_TEST(test_compare_tolerance_is_noise)
{
	json_t *cmp = compare("{\"duration_ns\":1000,\"stalls\":{\"barrier\":1}}",
	    "{\"duration_ns\":1019,\"stalls\":{\"barrier\":1.03}}", 2);

	ck_assert_str_eq(judged(cmp, "duration_ns"), "within noise");
	ck_assert_str_eq(judged(cmp, "stalls.barrier"), "regressed");
	ck_assert_str_eq(json_string_value(json_object_get(cmp, "verdict")), "NO MATERIAL CHANGE");
	json_decref(cmp);
}
END_TEST

START_TEST(test_compare_zero_and_missing_baseline_never_divide)
{
	json_t *cmp = compare("{\"duration_ns\":0,\"local_spill_requests\":0}",
	    "{\"duration_ns\":5,\"local_spill_requests\":0,\"ipc\":1}", 2);
	json_t *r = row_of(cmp, "duration_ns");

	ck_assert_str_eq(judged(cmp, "duration_ns"), "not comparable");
	ck_assert_str_eq(json_string_value(json_object_get(r, "reason")), "zero baseline");
	ck_assert(json_is_null(json_object_get(r, "change_pct")));
	ck_assert_str_eq(judged(cmp, "local_spill_requests"), "within noise");
	ck_assert_str_eq(json_string_value(json_object_get(row_of(cmp, "ipc"), "reason")),
	    "missing baseline");
	ck_assert_ptr_null(row_of(cmp, "grid_size"));
	json_decref(cmp);
}
END_TEST

START_TEST(test_compare_tripled_conflicts_regress)
{
	json_t *cmp = compare("{\"shared_bank_conflicts\":100}", "{\"shared_bank_conflicts\":300}", 2);

	ck_assert_str_eq(judged(cmp, "shared_bank_conflicts"), "regressed");
	/* duration absent: the other metrics decide */
	ck_assert_str_eq(json_string_value(json_object_get(cmp, "verdict")), "REGRESSION");
	json_decref(cmp);
}
END_TEST

START_TEST(test_compare_overlapping_ranges_are_noise)
{
	struct kp_err err;
	json_t *b = kernel("{\"duration_ns\":1000}", "{\"duration_ns\":{\"min\":900,\"max\":1150}}");
	json_t *c = kernel("{\"duration_ns\":1100}", "{\"duration_ns\":{\"min\":1050,\"max\":1200}}");
	json_t *cmp = kp_compare_kernels(b, c, 2, &err);

	ck_assert_str_eq(judged(cmp, "duration_ns"), "within noise");
	ck_assert_str_eq(json_string_value(json_object_get(row_of(cmp, "duration_ns"), "reason")),
	    "launch ranges overlap");
	json_decref(cmp);
	json_decref(b);
	json_decref(c);
}
END_TEST

START_TEST(test_compare_profile_timestamp)
{
	char ts[16];

	ck_assert_int_eq(kp_profile_timestamp("profile/hgemm_byzj_v0_20261202_140000", ts), 0);
	ck_assert_str_eq(ts, "20261202_140000");
	ck_assert_int_eq(kp_profile_timestamp("k_20261202_140000_2", ts), 0);
	ck_assert_str_eq(ts, "20261202_140000");
	ck_assert_int_eq(kp_profile_timestamp("k_2026120_140000", ts), -1);
	ck_assert_int_eq(kp_profile_timestamp("20261202_140000", ts), -1);
	ck_assert_int_eq(kp_profile_timestamp("", ts), -1);
}
END_TEST

START_TEST(test_compare_markdown_has_verdict_and_table)
{
	json_t *cmp = compare("{\"duration_ns\":2000}", "{\"duration_ns\":1000}", 2);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_int_eq(kp_compare_markdown(cmp, fp), 0);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(buf, "Verdict: **IMPROVEMENT**"));
	ck_assert_ptr_nonnull(strstr(buf, "| `duration_ns` | lower | 2.00 us | 1.00 us | -1.00 us | -50.0 % | improved"));
	free(buf);
	json_decref(cmp);
}
END_TEST

START_TEST(test_compare_first_run_has_no_baseline)
{
	struct kp_err err;
	json_t *k = kernel("{\"duration_ns\":1000}", NULL);
	json_t *cmp = kp_compare_first(k, "profile/k_20261202_120000", "no earlier profile", 2,
	    &err);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	ck_assert_ptr_nonnull(cmp);
	ck_assert_str_eq(json_string_value(json_object_get(cmp, "verdict")), "NO BASELINE");
	ck_assert_str_eq(json_string_value(json_object_get(cmp, "next_baseline")),
	    "profile/k_20261202_120000");
	ck_assert_str_eq(judged(cmp, "duration_ns"), "not comparable");
	fp = open_memstream(&buf, &len);
	ck_assert_int_eq(kp_compare_markdown(cmp, fp), 0);
	fclose(fp);
	ck_assert_ptr_nonnull(strstr(buf, "Verdict: **NO BASELINE**: no baseline yet: no earlier"
	    " profile; profile/k_20261202_120000 will be the baseline"));
	ck_assert_ptr_nonnull(strstr(buf, "## No baseline yet"));
	ck_assert_ptr_null(strstr(buf, "## Metrics that explain the change"));
	free(buf);
	json_decref(cmp);
	json_decref(k);
}
END_TEST

START_TEST(test_compare_auto_baseline_none_is_a_first_run)
{
	struct kp_err err;
	int none = 0;
	char tmpl[] = "/tmp/kp-compare-XXXXXX", cur[64];

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	snprintf(cur, sizeof cur, "%s/k_20261202_120000", tmpl);
	ck_assert_ptr_null(kp_compare_auto_baseline(cur, "k", &none, &err));
	ck_assert_int_eq(none, 1);
	none = 0;
	snprintf(cur, sizeof cur, "%s/k_no_timestamp", tmpl);
	ck_assert_ptr_null(kp_compare_auto_baseline(cur, "k", &none, &err));
	ck_assert_int_eq(none, 0);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	rmdir(tmpl);
}
END_TEST

static Suite *
compare_suite(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_compare_directions);
	tcase_add_test(tc, test_compare_faster_is_improvement);
	tcase_add_test(tc, test_compare_tolerance_is_noise);
	tcase_add_test(tc, test_compare_zero_and_missing_baseline_never_divide);
	tcase_add_test(tc, test_compare_tripled_conflicts_regress);
	tcase_add_test(tc, test_compare_overlapping_ranges_are_noise);
	tcase_add_test(tc, test_compare_profile_timestamp);
	tcase_add_test(tc, test_compare_markdown_has_verdict_and_table);
	tcase_add_test(tc, test_compare_first_run_has_no_baseline);
	tcase_add_test(tc, test_compare_auto_baseline_none_is_a_first_run);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(compare_suite)
