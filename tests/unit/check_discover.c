/* Unit tests for discover.c: ranking kernels from a discovery capture. */
#include <string.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_diag.h"
#include "kp_discover.h"

static json_t *
cand(json_t *root, size_t i)
{
	return json_array_get(json_object_get(root, "candidates"), i);
}

static const char *
sget(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

START_TEST(test_discover_gemm_ranked_by_total_time)
{
	struct kp_err err;
	json_t *r = kp_discover_file(KP_FIXTURES "/h200/gemm_discovery/discovery_raw.csv", NULL,
	    &err);
	double t0, t1;

	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(sget(r, "schema"), "kp-kernel-candidates/1");
	ck_assert_int_eq(json_integer_value(json_object_get(r, "launches")), 27);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "candidates")), 5);
	ck_assert_str_eq(sget(cand(r, 0), "function"), "hgemm_byzj_v0");
	ck_assert_int_eq(json_integer_value(json_object_get(cand(r, 0), "launches")), 6);
	/* durations are in ns (the capture says "ns"), sorted by total */
	t0 = json_real_value(json_object_get(cand(r, 0), "total_duration_ns"));
	t1 = json_real_value(json_object_get(cand(r, 1), "total_duration_ns"));
	ck_assert(t0 > t1);
	ck_assert_double_eq_tol(t0, 11490016.0, 0.5);
	ck_assert_int_eq(json_integer_value(json_object_get(r, "chosen")), 0);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(cand(r, 0), "grid"),
	    0)), 128);
	json_decref(r);
}
END_TEST

START_TEST(test_discover_hint_ranks_first)
{
	struct kp_err err;
	json_t *r = kp_discover_file(KP_FIXTURES "/h200/gemm_discovery/discovery_raw.csv",
	    "Stream_Triad", &err);

	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(sget(cand(r, 0), "function"), "stream_triad");
	ck_assert(json_is_true(json_object_get(cand(r, 0), "hint_match")));
	ck_assert_ptr_nonnull(strstr(sget(r, "reason"), "Stream_Triad"));
	json_decref(r);
}
END_TEST

START_TEST(test_discover_function_strips_return_type_and_params)
{
	struct kp_err err;
	json_t *r = kp_discover_file(KP_FIXTURES "/h200/triton_discovery/discovery_raw.csv",
	    NULL, &err), *c;
	size_t i;
	int saw_cutlass = 0;

	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(sget(cand(r, 0), "function"), "hgemm_byzj_v0");
	json_array_foreach(json_object_get(r, "candidates"), i, c)
		if (strcmp(sget(c, "function"),
		    "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>") == 0)
			saw_cutlass = 1;
	ck_assert(saw_cutlass);
	json_decref(r);
}
END_TEST

START_TEST(test_discover_rejects_non_raw_pages)
{
	struct kp_err err;

	ck_assert_ptr_null(kp_discover_file(KP_FIXTURES "/h200/hgemm_v0/source_sass.csv", NULL,
	    &err));
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_null(kp_discover_file(KP_FIXTURES "/nonexistent.csv", NULL, &err));
}
END_TEST

static Suite *
discover_suite(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_discover_gemm_ranked_by_total_time);
	tcase_add_test(tc, test_discover_hint_ranks_first);
	tcase_add_test(tc, test_discover_function_strips_return_type_and_params);
	tcase_add_test(tc, test_discover_rejects_non_raw_pages);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(discover_suite)
