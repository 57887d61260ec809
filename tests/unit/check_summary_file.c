/*
 * Unit tests for summary_file.c: a metrics_summary.json built only for the
 * kernels asked for gives those kernels as a whole parse does, names the
 * others, and fails or falls back exactly as kp_json_load_file does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_atomic.h"
#include "kp_jsonl.h"
#include "kp_metrics.h"
#include "kp_summary.h"
#include "kp_summary_file.h"

static char dir[] = "/tmp/check_summary_file.XXXXXX";
static char sp[300], other[300];

static void
setup(void)
{
	const char *paths[1] = { KP_FIXTURES "/h200/torch_mix/basic_raw_200.csv" };
	struct kp_err err;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(kp_extract_to_dir(paths, 1, dir, NULL, 0, NULL, NULL, &err), 0);
	snprintf(sp, sizeof sp, "%s/metrics_summary.json", dir);
	snprintf(other, sizeof other, "%s/other.json", dir);
}

static void
teardown(void)
{
	static const char *const f[] = { "metrics_summary.json", "metrics_all.json",
		"metrics_extracted.jsonl", "other.json", NULL };
	char p[400];
	int i;

	for (i = 0; f[i] != NULL; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, f[i]);
		unlink(p);
	}
	rmdir(dir);
	strcpy(dir, "/tmp/check_summary_file.XXXXXX");
}

static void
write_text(const char *path, const char *s, size_t len)
{
	FILE *fp = fopen(path, "w");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(s, 1, len, fp), len);
	ck_assert_int_eq(fclose(fp), 0);
}

START_TEST(test_summary_file_kernels_as_a_whole_parse)
{
	struct kp_err err;
	json_t *whole = kp_json_load_file(sp, &err), *ks, *wk, *k, *v;
	struct kp_summary_file *f = kp_summary_open(sp, &err);
	const char *key;
	size_t i;

	ck_assert_ptr_nonnull(whole);
	ck_assert_msg(f != NULL, "%s", f ? "" : err.msg);
	ks = json_object_get(f->summary, "kernels");
	ck_assert_uint_eq(json_array_size(ks), 15);
	ck_assert_uint_eq(f->nk, 15);
	/* the summary's own members as they are, "kernels" aside */
	json_object_foreach(whole, key, v)
		if (strcmp(key, "kernels") != 0)
			ck_assert_msg(json_equal(v, json_object_get(f->summary, key)), "%s", key);
	ck_assert_uint_eq(json_object_size(whole), json_object_size(f->summary));
	/* unbuilt: the name and the function only */
	json_array_foreach(ks, i, k) {
		wk = json_array_get(json_object_get(whole, "kernels"), i);
		ck_assert_uint_eq(json_object_size(k), 2);
		ck_assert(json_equal(json_object_get(k, "name"), json_object_get(wk, "name")));
		ck_assert(json_equal(json_object_get(k, "function"),
		    json_object_get(wk, "function")));
	}
	/* built: equal to the whole parse's, once */
	for (i = 0; i < 15; i += 7) {
		k = kp_summary_kernel(f, i, &err);
		ck_assert_ptr_nonnull(k);
		ck_assert(json_equal(k, json_array_get(json_object_get(whole, "kernels"), i)));
		ck_assert_ptr_eq(kp_summary_kernel(f, i, &err), k);
		ck_assert_ptr_eq(json_array_get(ks, i), k);
	}
	ck_assert_ptr_null(kp_summary_kernel(f, 15, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "no kernel 15"));
	kp_summary_close(f);
	json_decref(whole);
}
END_TEST

/* kp_summary_load_all on the stubs fills the built kernel as on a whole parse. */
START_TEST(test_summary_file_load_all)
{
	struct kp_err err;
	json_t *whole = kp_json_load_file(sp, &err), *k;
	struct kp_summary_file *f = kp_summary_open(sp, &err);

	ck_assert_ptr_nonnull(whole);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(k = kp_summary_kernel(f, 6, &err));
	ck_assert_int_eq(kp_summary_load_all(whole, sp, &err), 0);
	ck_assert_int_eq(kp_summary_load_all(f->summary, sp, &err), 0);
	ck_assert(json_object_size(json_object_get(k, "metrics")) > 500);
	ck_assert(json_equal(k, json_array_get(json_object_get(whole, "kernels"), 6)));
	kp_summary_close(f);
	json_decref(whole);
}
END_TEST

/* Broken texts fail with kp_json_load_file's own message; texts the skim
 * leaves to jansson are read whole. */
START_TEST(test_summary_file_falls_back)
{
	struct kp_err err, err2;
	struct kp_summary_file *f;
	size_t len;
	char *t, *p, *q, *u;
	json_t *whole;

	ck_assert_ptr_nonnull(t = kp_read_file(sp, &len, &err));
	/* a duplicate key deep in a kernel no one asks for */
	p = strstr(strstr(t, "\"kernels\""), "\"summary\": {");
	ck_assert_ptr_nonnull(p);
	q = strchr(p + 12, '"');
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(u = malloc(len + 32));
	memcpy(u, t, (size_t)(q - t));
	memcpy(u + (q - t), "\"x\": 1, \"x\": 2, ", 16);
	memcpy(u + (q - t) + 16, q, len - (size_t)(q - t));
	write_text(other, u, len + 16);
	free(u);
	ck_assert_ptr_null(kp_json_load_file(other, &err2));
	ck_assert_ptr_null(kp_summary_open(other, &err));
	ck_assert_str_eq(err.msg, err2.msg);
	ck_assert_ptr_nonnull(strstr(err.msg, "duplicate"));
	/* not JSON at all, and a missing file */
	write_text(other, "{\"kernels\": [", 13);
	ck_assert_ptr_null(kp_json_load_file(other, &err2));
	ck_assert_ptr_null(kp_summary_open(other, &err));
	ck_assert_str_eq(err.msg, err2.msg);
	unlink(other);
	ck_assert_ptr_null(kp_json_load_file(other, &err2));
	ck_assert_ptr_null(kp_summary_open(other, &err));
	ck_assert_str_eq(err.msg, err2.msg);
	free(t);
	/* an escaped key: jansson's to read, all of it built */
	t = "{\"kernels\": [{\"na\\u006de\": \"k\", \"summary\": {}}], \"primary\": 0}";
	write_text(other, t, strlen(t));
	ck_assert_ptr_nonnull(f = kp_summary_open(other, &err));
	ck_assert_ptr_nonnull(whole = kp_json_load_file(other, &err));
	ck_assert(json_equal(whole, f->summary));
	ck_assert_ptr_eq(kp_summary_kernel(f, 0, &err),
	    json_array_get(json_object_get(f->summary, "kernels"), 0));
	ck_assert_str_eq(json_string_value(json_object_get(kp_summary_kernel(f, 0, &err),
	    "name")), "k");
	json_decref(whole);
	kp_summary_close(f);
	/* "kernels" not an array, and elements that are not objects: as they are */
	t = "{\"kernels\": [1, {\"name\": \"a\"}, null], \"primary\": 1}";
	write_text(other, t, strlen(t));
	ck_assert_ptr_nonnull(f = kp_summary_open(other, &err));
	ck_assert_ptr_nonnull(whole = kp_json_load_file(other, &err));
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(f->summary,
	    "kernels"), 0)), 1);
	ck_assert_ptr_nonnull(kp_summary_kernel(f, 1, &err));
	ck_assert(json_equal(whole, f->summary));
	json_decref(whole);
	kp_summary_close(f);
	t = "{\"kernels\": {\"a\": 1}}";
	write_text(other, t, strlen(t));
	ck_assert_ptr_nonnull(f = kp_summary_open(other, &err));
	ck_assert_ptr_null(kp_summary_kernel(f, 0, &err));
	ck_assert(json_is_object(json_object_get(f->summary, "kernels")));
	kp_summary_close(f);
}
END_TEST

static Suite *
summary_file_suite(void)
{
	Suite *s = suite_create("summary_file");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_summary_file_kernels_as_a_whole_parse);
	tcase_add_test(tc, test_summary_file_load_all);
	tcase_add_test(tc, test_summary_file_falls_back);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(summary_file_suite)
