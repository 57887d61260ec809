/*
 * Unit tests for summary.c: the short metrics_summary.json and metrics_all.json
 * written from a real capture, read back whole, and the errors of a broken pair.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_jsonl.h"
#include "kp_metrics.h"
#include "kp_summary.h"

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

/* Write the pair into a new folder; returns the summary's path (static). */
static const char *
write_pair(char *dir)
{
	static char sp[256];
	struct kp_err err;
	const char *paths[1] = { FULL_RAW };
	int r;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	r = kp_extract_to_dir(paths, 1, dir, NULL, 0, NULL, NULL, &err);
	ck_assert_msg(r == 0, "%s", r == 0 ? "" : err.msg);
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

/* What json_dumpf would write for the whole maps of an in-memory summary. */
static char *
jansson_all(json_t *whole)
{
	json_t *ks = json_array(), *k, *o;
	size_t i;
	char *d;

	json_array_foreach(json_object_get(whole, "kernels"), i, k)
		json_array_append_new(ks, json_pack("{s:O, s:O, s:O}", "name",
		    json_object_get(k, "name"), "metrics", json_object_get(k, "metrics"),
		    "units", json_object_get(k, "units")));
	o = json_pack("{s:s, s:o}", "schema", "kp-metrics-all/1", "kernels", ks);
	d = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
	json_decref(o);
	return d;
}

/* kp_extract_to_dir's each(): the light kernels in s["kernels"], s["primary"]. */
static int
collect(json_t *k, int primary, void *arg, struct kp_err *err)
{
	json_t *s = arg, *ks = json_object_get(s, "kernels");

	(void)err;
	if (ks == NULL) {
		json_object_set_new(s, "kernels", json_array());
		ks = json_object_get(s, "kernels");
	}
	ck_assert_ptr_null(json_object_get(k, "metrics"));
	ck_assert_ptr_null(json_object_get(k, "ids"));
	ck_assert_ptr_nonnull(json_object_get(k, "summary"));
	if (primary)
		json_object_set_new(s, "primary", json_integer((json_int_t)json_array_size(ks)));
	json_array_append(ks, k);
	return 0;
}

/* metrics_summary.json as streamed is jansson's dump of the in-memory summary. */
static void
assert_summary_is_dump(const char *input)
{
	char dir[] = "/tmp/check_summary.XXXXXX", path[512], *d, *f;
	const char *paths[1] = { input };
	struct kp_err err;
	json_t *e, *ek;
	size_t i;

	ck_assert_ptr_nonnull(e = kp_extract_files(paths, 1, 0, NULL, &err));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(kp_extract_to_dir(paths, 1, dir, NULL, 0, NULL, NULL, &err), 0);
	json_array_foreach(json_object_get(e, "kernels"), i, ek) {
		json_t *m = json_object_get(ek, "metrics"), *u = json_object_get(ek, "units"), *v;
		const char *name;
		void *tmp;

		json_object_foreach_safe(m, tmp, name, v)
			if (!kp_key_metric(name)) {
				json_object_del(u, name);
				json_object_del(m, name);
			}
	}
	json_object_set_new(e, "metrics_all", json_string(KP_METRICS_ALL));
	d = json_dumps(e, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
	snprintf(path, sizeof path, "%s/metrics_summary.json", dir);
	f = kp_read_file(path, NULL, &err);
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strlen(f) == strlen(d) + 1 && strncmp(f, d, strlen(d)) == 0 &&
	    f[strlen(d)] == '\n', "%s: metrics_summary.json is not jansson's dump:\n%s\n--\n%s",
	    input, f, d);
	free(d);
	free(f);
	json_decref(e);
	rm_pair(dir);
}

/*
 * What the captures lack: IDs past the listed 1,024 (ids_truncated), unknown
 * units (one to escape), stall keys beside others, a name to escape, a
 * kernel of one launch (no spread) and one without any key.
 */
START_TEST(test_summary_file_of_odd_kernels)
{
	char path[] = "/tmp/check_summary.XXXXXX";
	int fd = mkstemp(path), i;
	FILE *fp = fdopen(fd, "w");

	ck_assert_ptr_nonnull(fp);
	fputs("\"ID\",\"Process ID\",\"Kernel Name\",\"CC\",\"Block Size\",\"Grid Size\","
	    "\"gpu__time_duration.sum\","
	    "\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\","
	    "\"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio\","
	    "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"x\",\"y\"\n"
	    "\"\",\"\",\"\",\"\",\"\",\"\",\"ns\",\"\",\"\",\"%\",\"furlong\",\"fur\"\"long\\\\\"\n", fp);
	for (i = 0; i < 3001; i++)
		fprintf(fp, "\"%d\",\"1\",\"k(int)\",\"9.0\",\"(256, 1, 1)\",\"(%d, 1, 1)\","
		    "\"%d\",\"%d.5\",\"0.%d\",\"%d.25\",\"%d\",\"-%d\"\n", i, 1 + i % 7, i,
		    i % 11, i % 13, i % 100, i, i);
	fputs("\"3001\",\"1\",\"caf\xc3\xa9 \\\"q\\\"(\"\"x\"\")\",\"9.0\",\"\",\"\",\"1.5\",\"\","
	    "\"\",\"n/a\",\"7\",\"1e300\"\n", fp);
	fputs("\"3002\",\"1\",\"nokeys\",\"9.0\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"\n", fp);
	fclose(fp);
	assert_summary_is_dump(path);
	unlink(path);
}
END_TEST

/*
 * On real captures (one kernel, three launches, several kernels, a details
 * page): metrics_all.json is byte for byte jansson's dump of every metric,
 * and metrics_summary.json's maps are exactly the key metrics of it.
 */
START_TEST(test_summary_files_of_real_captures)
{
	static const char *const inputs[] = {
		"/h200/hgemm_v0/full_raw.csv", "/h200/stream_triad/full_raw.csv",
		"/h200/torch_mix/basic_raw_200.csv", "/h200/triton_hgemm/full_raw.csv",
		"/h200/hgemm_v0/full_details.csv",
	};
	size_t t;

	for (t = 0; t < sizeof inputs / sizeof inputs[0]; t++) {
		char dir[] = "/tmp/check_summary.XXXXXX", path[512], *want, *got;
		const char *paths[1] = { path };
		struct kp_err err;
		json_t *w, *s, *sh, *all, *k;
		size_t i, len;

		snprintf(path, sizeof path, "%s%s", KP_FIXTURES, inputs[t]);
		ck_assert_ptr_nonnull(w = kp_extract_files(paths, 1, 0, NULL, &err));
		ck_assert_ptr_nonnull(mkdtemp(dir));
		ck_assert_ptr_nonnull(s = json_object());
		ck_assert_int_eq(kp_extract_to_dir(paths, 1, dir, NULL, 0, collect, s, &err), 0);
		snprintf(path, sizeof path, "%s/metrics_all.json", dir);
		ck_assert_ptr_nonnull(got = kp_read_file(path, &len, &err));
		want = jansson_all(w);
		ck_assert_msg(strcmp(got, want) == 0 || (strlen(want) + 1 == len &&
		    strncmp(got, want, len - 1) == 0 && got[len - 1] == '\n'),
		    "%s: metrics_all.json differs from jansson's dump", inputs[t]);
		ck_assert_ptr_nonnull(all = kp_json_load_file(path, &err));
		snprintf(path, sizeof path, "%s/metrics_summary.json", dir);
		ck_assert_ptr_nonnull(sh = kp_json_load_file(path, &err));
		{	/* the file streamed a kernel at a time is jansson's dump of the
			 * in-memory summary with short maps */
			json_t *e = json_deep_copy(w), *ek;
			char *d, *f = kp_read_file(path, NULL, &err);

			json_array_foreach(json_object_get(e, "kernels"), i, ek) {
				json_t *m = json_object_get(ek, "metrics"), *u = json_object_get(ek,
				    "units"), *v;
				const char *name;
				void *tmp;

				json_object_foreach_safe(m, tmp, name, v)
					if (!kp_key_metric(name)) {
						json_object_del(u, name);
						json_object_del(m, name);
					}
			}
			json_object_set_new(e, "metrics_all", json_string(KP_METRICS_ALL));
			d = json_dumps(e, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
			ck_assert_ptr_nonnull(d);
			ck_assert_ptr_nonnull(f);
			ck_assert_msg(strlen(f) == strlen(d) + 1 && strncmp(f, d, strlen(d)) == 0 &&
			    f[strlen(d)] == '\n', "%s: metrics_summary.json is not jansson's dump",
			    inputs[t]);
			/* each kernel handed back once, in order, primary as in the file */
			ck_assert_uint_eq(json_array_size(json_object_get(s, "kernels")),
			    json_array_size(json_object_get(sh, "kernels")));
			ck_assert(json_equal(json_object_get(s, "primary"), json_object_get(sh,
			    "primary")));
			free(d);
			free(f);
			json_decref(e);
		}
		ck_assert_str_eq(json_string_value(json_object_get(sh, "metrics_all")),
		    KP_METRICS_ALL);
		json_array_foreach(json_object_get(sh, "kernels"), i, k) {
			json_t *ak = json_array_get(json_object_get(all, "kernels"), i);
			json_t *am = json_object_get(ak, "metrics"), *v;
			const char *name;
			size_t nkey = 0;

			ck_assert(json_equal(json_object_get(ak, "name"), json_object_get(k, "name")));
			ck_assert_int_eq(json_integer_value(json_object_get(k, "metrics_count")),
			    json_object_size(am));
			json_object_foreach(am, name, v) {
				json_t *sv = json_object_get(json_object_get(k, "metrics"), name);

				if (kp_key_metric(name)) {
					ck_assert_msg(sv != NULL && json_equal(sv, v), "%s", name);
					nkey++;
				} else
					ck_assert_msg(sv == NULL, "%s kept", name);
			}
			ck_assert_uint_eq(json_object_size(json_object_get(k, "metrics")), nkey);
			ck_assert_uint_eq(json_object_size(json_object_get(k, "units")), nkey);
			/* the same summary keys as the in-memory extraction */
			ck_assert(json_equal(json_object_get(json_array_get(json_object_get(s,
			    "kernels"), i), "summary"), json_object_get(json_array_get(
			    json_object_get(w, "kernels"), i), "summary")));
		}
		/* the full capture: 2,207 metrics, a short map of a few dozen */
		if (t == 0) {
			k = kp_summary_primary(sh);
			ck_assert_int_eq(json_integer_value(json_object_get(k, "metrics_count")), 2207);
			ck_assert_uint_gt(json_object_size(json_object_get(k, "metrics")), 50);
			ck_assert_uint_lt(json_object_size(json_object_get(k, "metrics")), 200);
			ck_assert(kp_summary_partial(k));
			ck_assert(!kp_summary_partial(kp_summary_primary(w)));
		}
		free(got);
		free(want);
		json_decref(w);
		json_decref(s);
		json_decref(sh);
		json_decref(all);
		rm_pair(dir);
	}
}
END_TEST

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
	tcase_add_test(tc, test_summary_files_of_real_captures);
	tcase_add_test(tc, test_summary_file_of_odd_kernels);
	tcase_add_test(tc, test_summary_load_all_restores_the_whole);
	tcase_add_test(tc, test_summary_load_all_errors);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(summary_suite)
