/*
 * Unit tests for summary.c: the short metrics_summary.json and metrics_all.json
 * written from a real capture, read back whole, and the errors of a broken pair.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kp_check.h"

#define FULL_RAW KP_FIXTURES "/h200/hgemm_v0/full_raw.csv"

static json_t *
whole(void)
{
	const char *paths[1] = { FULL_RAW };
	struct kp_err err;
	json_t *s = kp_extract_files(paths, 1, 0, NULL, &err);

	ck_assert_msg(s != NULL, "%s", s ? "" : err.msg);
	return s;
}

START_TEST(test_summary_key_metric)
{
	/* a summary source, a stall ratio, a launch__ metric, one the rules read */
	ck_assert(kp_key_metric("gpu__time_duration.sum"));
	ck_assert(kp_key_metric("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"));
	ck_assert(kp_key_metric("launch__occupancy_limit_registers"));
	ck_assert(kp_key_metric("smsp__warps_eligible.avg.per_cycle_active"));
	ck_assert(kp_key_metric("device__attribute_multiprocessor_count"));
	/* not read by kp: only in metrics_all.json */
	ck_assert(!kp_key_metric("dram__bytes_read.sum"));
	ck_assert(!kp_key_metric("smsp__average_warps_issue_stalled_barrier_per_warp_active.pct"));
	ck_assert(!kp_key_metric("smsp__average_warps_issue_stalled_"));
	ck_assert(!kp_key_metric(""));
}
END_TEST

START_TEST(test_summary_split_keeps_every_metric)
{
	json_t *s = whole(), *sh, *all, *k, *sk, *ak, *v;
	const char *name;
	size_t n_short = 0;

	ck_assert_int_eq(kp_summary_split(s, &sh, &all), 0);
	k = json_array_get(json_object_get(s, "kernels"), 0);
	sk = json_array_get(json_object_get(sh, "kernels"), 0);
	ak = json_array_get(json_object_get(all, "kernels"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(all, "schema")), "kp-metrics-all/1");
	ck_assert_str_eq(json_string_value(json_object_get(sh, "metrics_all")), KP_METRICS_ALL);
	ck_assert_ptr_null(json_object_get(s, "metrics_all"));	/* the input is untouched */
	/* the capture: 2,207 metrics, every one in metrics_all.json */
	ck_assert_int_eq(json_object_size(json_object_get(k, "metrics")), 2207);
	ck_assert_int_eq(json_integer_value(json_object_get(k, "metrics_count")), 2207);
	ck_assert(json_equal(json_object_get(ak, "metrics"), json_object_get(k, "metrics")));
	ck_assert(json_equal(json_object_get(ak, "units"), json_object_get(k, "units")));
	ck_assert(json_equal(json_object_get(ak, "name"), json_object_get(k, "name")));
	/* the short map: exactly the key metrics, with the same values */
	json_object_foreach(json_object_get(k, "metrics"), name, v) {
		json_t *sv = json_object_get(json_object_get(sk, "metrics"), name);

		if (kp_key_metric(name)) {
			ck_assert_msg(sv != NULL && json_equal(sv, v), "%s", name);
			n_short++;
		} else
			ck_assert_msg(sv == NULL, "%s kept", name);
	}
	ck_assert_uint_eq(json_object_size(json_object_get(sk, "metrics")), n_short);
	ck_assert_uint_eq(json_object_size(json_object_get(sk, "units")), n_short);
	ck_assert_uint_gt(n_short, 50);
	ck_assert_uint_lt(n_short, 200);
	ck_assert(kp_summary_partial(sk));
	ck_assert(!kp_summary_partial(k));
	/* the summary itself is the same */
	ck_assert(json_equal(json_object_get(sk, "summary"), json_object_get(k, "summary")));
	json_decref(s);
	json_decref(sh);
	json_decref(all);
}
END_TEST

/* Write the pair into a new folder; returns the summary's path (static). */
static const char *
write_pair(char *dir)
{
	static char sp[256];
	struct kp_err err;
	const char *paths[1] = { FULL_RAW };
	json_t *s;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	s = kp_extract_to_dir(paths, 1, dir, NULL, 0, &err);
	ck_assert_msg(s != NULL, "%s", s ? "" : err.msg);
	json_decref(s);
	snprintf(sp, sizeof sp, "%s/metrics_summary.json", dir);
	return sp;
}

static void
rm_pair(const char *dir)
{
	char p[300];

	snprintf(p, sizeof p, "%s/metrics_summary.json", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/metrics_all.json", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/metrics_extracted.jsonl", dir);
	unlink(p);
	rmdir(dir);
}

START_TEST(test_summary_load_all_restores_the_whole)
{
	char dir[] = "/tmp/check_summary.XXXXXX";
	const char *sp = write_pair(dir);
	struct kp_err err;
	json_t *w = whole(), *s = kp_json_load_file(sp, &err), *k;
	double v;

	ck_assert_ptr_nonnull(s);
	k = kp_summary_primary(s);
	ck_assert(kp_summary_partial(k));
	ck_assert_int_eq(kp_summary_value(k, "dram__bytes_read.sum", &v), -1);
	ck_assert_int_eq(kp_summary_value(k, "launch__registers_per_thread", &v), 0);
	ck_assert_double_eq(v, 32);
	ck_assert_int_eq(kp_summary_load_all(s, sp, &err), 0);
	ck_assert(!kp_summary_partial(k));
	ck_assert_ptr_null(json_object_get(s, "metrics_all"));
	/* every metric of the capture, as written (15 significant digits) */
	ck_assert_uint_eq(json_object_size(json_object_get(k, "metrics")),
	    json_object_size(json_object_get(kp_summary_primary(w), "metrics")));
	{
		char ap[300];
		json_t *a;

		snprintf(ap, sizeof ap, "%s/metrics_all.json", dir);
		ck_assert_ptr_nonnull(a = kp_json_load_file(ap, &err));
		ck_assert(json_equal(json_object_get(k, "metrics"), json_object_get(
		    json_array_get(json_object_get(a, "kernels"), 0), "metrics")));
		json_decref(a);
	}
	ck_assert_int_eq(kp_summary_value(k, "dram__bytes_read.sum", &v), 0);
	ck_assert(v > 0);
	/* a second call is a no-op */
	ck_assert_int_eq(kp_summary_load_all(s, sp, &err), 0);
	json_decref(s);
	json_decref(w);
	rm_pair(dir);
}
END_TEST

START_TEST(test_summary_load_all_errors)
{
	char dir[] = "/tmp/check_summary.XXXXXX", ap[300];
	const char *sp = write_pair(dir);
	struct kp_err err;
	json_t *s;
	FILE *fp;

	snprintf(ap, sizeof ap, "%s/metrics_all.json", dir);
	/* a name that leaves the folder */
	s = kp_json_load_file(sp, &err);
	json_object_set_new(s, "metrics_all", json_string("../metrics_all.json"));
	ck_assert_int_eq(kp_summary_load_all(s, sp, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "must be a file name"));
	json_decref(s);
	/* another summary's metrics: kernel count differs */
	fp = fopen(ap, "w");
	fputs("{\"schema\": \"kp-metrics-all/1\", \"kernels\": []}\n", fp);
	fclose(fp);
	s = kp_json_load_file(sp, &err);
	ck_assert_int_eq(kp_summary_load_all(s, sp, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "not the metrics of"));
	json_decref(s);
	/* missing */
	unlink(ap);
	s = kp_json_load_file(sp, &err);
	ck_assert_int_eq(kp_summary_load_all(s, sp, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "metrics_all.json: missing"));
	/* the summary is left as it was */
	ck_assert(kp_summary_partial(kp_summary_primary(s)));
	json_decref(s);
	rm_pair(dir);
}
END_TEST

static Suite *
summary_suite(void)
{
	Suite *s = suite_create("summary");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_summary_key_metric);
	tcase_add_test(tc, test_summary_split_keeps_every_metric);
	tcase_add_test(tc, test_summary_load_all_restores_the_whole);
	tcase_add_test(tc, test_summary_load_all_errors);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(summary_suite)
