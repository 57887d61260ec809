/* Unit tests for request.c: free-text requirements to target fields. */
#include <string.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_diag.h"
#include "kp_request.h"

static json_t *
parse(const char *text)
{
	struct kp_err err;
	json_t *texts = json_pack("[s]", text), *r = kp_request_parse(texts, &err);

	ck_assert_msg(r != NULL, "%s", err.msg);
	json_decref(texts);
	return r;
}

/* fields.<key> as "true", "false", a string, or "absent". */
static const char *
field(json_t *r, const char *key)
{
	json_t *v = json_object_get(json_object_get(r, "fields"), key);

	if (v == NULL)
		return "absent";
	if (json_is_string(v))
		return json_string_value(v);
	return json_is_true(v) ? "true" : "false";
}

START_TEST(test_request_hgemm_example)
{
	json_t *r = parse("with visual report, source and roofline");

	ck_assert_str_eq(field(r, "visual"), "true");
	ck_assert_str_eq(field(r, "source"), "true");
	ck_assert_str_eq(field(r, "roofline"), "true");
	ck_assert_str_eq(field(r, "sudo"), "absent");
	ck_assert_str_eq(field(r, "memory"), "absent");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "not_understood")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(r, "unsupported")), 0);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(r, "original"), 0)),
	    "with visual report, source and roofline");
	json_decref(r);
}
END_TEST

START_TEST(test_request_negations)
{
	json_t *r = parse("no sudo, without visual report or source; skip roofline. "
	    "don't compare, disable bottleneck rules, do not collect memory");

	ck_assert_str_eq(field(r, "sudo"), "false");
	ck_assert_str_eq(field(r, "visual"), "false");
	ck_assert_str_eq(field(r, "source"), "false");	/* "or" carries the "without" */
	ck_assert_str_eq(field(r, "roofline"), "false");
	ck_assert_str_eq(field(r, "compare"), "false");
	ck_assert_str_eq(field(r, "bottleneck"), "false");
	ck_assert_str_eq(field(r, "memory"), "false");
	json_decref(r);
	/* "and" does not carry a negation: "no sudo and roofline" wants roofline. */
	r = parse("no sudo and roofline, with occupancy");
	ck_assert_str_eq(field(r, "sudo"), "false");
	ck_assert_str_eq(field(r, "roofline"), "true");
	ck_assert_str_eq(field(r, "occupancy"), "true");
	json_decref(r);
	r = parse("use sudo");
	ck_assert_str_eq(field(r, "sudo"), "true");
	json_decref(r);
}
END_TEST

START_TEST(test_request_out_of_scope_has_reasons)
{
	json_t *r = parse("timeline with nsys; CPU time, dataloader stalls, launch gaps, "
	    "NCCL communication, multi-GPU scaling, end-to-end latency, roofline");
	json_t *u = json_object_get(r, "unsupported"), *v;
	size_t i;

	ck_assert_uint_eq(json_array_size(u), 7);
	json_array_foreach(u, i, v) {
		ck_assert(json_is_string(json_object_get(v, "text")));
		ck_assert(json_string_length(json_object_get(v, "reason")) > 10);
	}
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(u, 0), "text")),
	    "timeline with nsys");
	ck_assert_str_eq(field(r, "roofline"), "true");
	json_decref(r);
	/* Asking for no timeline is not a request for one. */
	r = parse("no timeline");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "unsupported")), 0);
	json_decref(r);
}
END_TEST

START_TEST(test_request_password_is_redacted)
{
	json_t *r = parse("with sudo, my password is hunter2; roofline");
	char *dump = json_dumps(r, 0);

	ck_assert_ptr_null(strstr(dump, "hunter2"));
	ck_assert_str_eq(field(r, "sudo"), "true");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(r, "original"), 0)),
	    "with sudo, my password [redacted]");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
	    json_object_get(r, "unsupported"), 0), "text")), "my password [redacted]");
	free(dump);
	json_decref(r);
	dump = kp_request_redact("PASSWORD=s3cr3t");
	ck_assert_str_eq(dump, "PASSWORD [redacted]");
	free(dump);
	dump = kp_request_redact("no secrets here");
	ck_assert_str_eq(dump, "no secrets here");
	free(dump);
}
END_TEST

START_TEST(test_request_not_understood_is_kept)
{
	json_t *r = parse("with roofline, make it purple and fast");
	json_t *n = json_object_get(r, "not_understood");

	ck_assert_uint_eq(json_array_size(n), 2);
	ck_assert_str_eq(json_string_value(json_array_get(n, 0)), "make it purple");
	ck_assert_str_eq(json_string_value(json_array_get(n, 1)), "fast");
	json_decref(r);
}
END_TEST

START_TEST(test_request_other_fields)
{
	json_t *r = parse("full, compare against ./profile/v0_20260101_000000, microbenchmark, "
	    "triton, pin autotune configs, svg plot, SASS and PTX source, unlocked clocks, "
	    "memory and compute and occupancy, bottleneck rules");
	json_t *views = json_object_get(json_object_get(r, "fields"), "source_views");

	ck_assert_str_eq(field(r, "full"), "true");
	ck_assert_str_eq(field(r, "compare"), "true");
	ck_assert_str_eq(field(r, "baseline"), "./profile/v0_20260101_000000");
	ck_assert_str_eq(field(r, "microbenchmark"), "true");
	ck_assert_str_eq(field(r, "triton"), "true");
	ck_assert_str_eq(field(r, "autotune"), "pinned");
	ck_assert_str_eq(field(r, "visual"), "true");
	ck_assert_str_eq(field(r, "format"), "svg");
	ck_assert_str_eq(field(r, "source"), "true");
	ck_assert_uint_eq(json_array_size(views), 2);
	ck_assert_str_eq(json_string_value(json_array_get(views, 0)), "sass");
	ck_assert_str_eq(json_string_value(json_array_get(views, 1)), "ptx");
	ck_assert_str_eq(field(r, "clock_control"), "none");
	ck_assert_str_eq(field(r, "memory"), "true");
	ck_assert_str_eq(field(r, "compute"), "true");
	ck_assert_str_eq(field(r, "occupancy"), "true");
	ck_assert_str_eq(field(r, "bottleneck"), "true");
	ck_assert_uint_eq(json_array_size(json_object_get(r, "not_understood")), 0);
	json_decref(r);
	r = parse("without autotuning");
	ck_assert_str_eq(field(r, "autotune"), "pinned");
	json_decref(r);
	r = parse("include autotune launches");
	ck_assert_str_eq(field(r, "autotune"), "profile-all");
	json_decref(r);
}
END_TEST

static Suite *
request_suite(void)
{
	Suite *s = suite_create("request");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_request_hgemm_example);
	tcase_add_test(tc, test_request_negations);
	tcase_add_test(tc, test_request_out_of_scope_has_reasons);
	tcase_add_test(tc, test_request_password_is_redacted);
	tcase_add_test(tc, test_request_not_understood_is_kept);
	tcase_add_test(tc, test_request_other_fields);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(request_suite)
