/* Unit tests for import.c: what a report holds, read from the pages that the
 * real ncu 2025.3.1 printed for `ncu --import` of an H200 report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_diag.h"
#include "kp_import.h"

#define V0 KP_FIXTURES "/h200/hgemm_v0/"
#define BASIC KP_FIXTURES "/h200/hgemm_v0_basic_import/"

/* The header and units rows of the import's raw page, no launch: what a
 * filter that selects nothing leaves. */
static const char *
header_only(void)
{
	static char path[64];
	char *line = NULL;
	size_t cap = 0;
	FILE *in, *out;
	int i;

	if (path[0] != '\0')
		return path;
	snprintf(path, sizeof(path), "/tmp/kp-import-%ld.csv", (long)getpid());
	in = fopen(V0 "import_raw.csv", "r");
	out = fopen(path, "w");
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	for (i = 0; i < 2 && getline(&line, &cap, in) != -1; i++)
		fputs(line, out);
	free(line);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
	return path;
}

START_TEST(test_import_page_rows)
{
	ck_assert_int_eq(kp_import_page_rows(V0 "import_raw.csv"), 1);
	/* a details page: one row per metric of the one launch */
	ck_assert_int_eq(kp_import_page_rows(V0 "import_details.csv"), 91);
	/* a live page with ==PROF== lines and the workload's output: three launches */
	ck_assert_int_eq(kp_import_page_rows(KP_FIXTURES "/h200/stream_triad/basic_raw.csv"), 3);
	ck_assert_int_eq(kp_import_page_rows(header_only()), 0);
	unlink(header_only());
	ck_assert_int_eq(kp_import_page_rows(V0 "no_such_page.csv"), -1);
}
END_TEST

START_TEST(test_import_sections_full_and_basic)
{
	struct kp_err err;
	json_t *full = kp_import_sections(V0 "import_details.csv", &err);
	json_t *basic = kp_import_sections(BASIC "import_details.csv", &err);

	ck_assert_ptr_nonnull(full);
	ck_assert_ptr_nonnull(basic);
	ck_assert_str_eq(json_string_value(json_array_get(full, 0)),
	    "GPU Speed Of Light Throughput");
	ck_assert_int_eq(json_array_size(full), 15);	/* each once */
	ck_assert_int_eq(kp_import_has_source(full), 1);
	ck_assert_int_eq(kp_import_basic_only(full), 0);
	ck_assert_int_eq(json_array_size(basic), 5);
	ck_assert_int_eq(kp_import_has_source(basic), 0);
	ck_assert_int_eq(kp_import_basic_only(basic), 1);
	json_decref(full);
	json_decref(basic);
	full = json_array();	/* no section at all is not a basic report */
	ck_assert_int_eq(kp_import_basic_only(full), 0);
	json_decref(full);
}
END_TEST

START_TEST(test_import_sections_not_a_details_page)
{
	struct kp_err err;

	ck_assert_ptr_null(kp_import_sections(V0 "import_raw.csv", &err));
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "import_raw.csv:1: no \"Section Name\" column"));
}
END_TEST

START_TEST(test_import_session_attributes)
{
	struct kp_err err;
	json_t *s = kp_import_session(V0 "import_session.csv", &err);

	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(json_string_value(json_object_get(s, "Nsight Compute Target")),
	    "2025.3.1.0 (build 36398880) (public-release)");
	ck_assert_str_eq(json_string_value(json_object_get(s, "display_name")), "NVIDIA H200");
	ck_assert_str_eq(json_string_value(json_object_get(s, "CUDA Version")), "13.0");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(s,
	    "Profiler Command Line")), "--set full --import-source yes"));
	/* block headers and the Processes table are not attributes */
	ck_assert_ptr_null(json_object_get(s, "Session Attribute"));
	ck_assert_ptr_null(json_object_get(s, "Process Id"));
	ck_assert_ptr_null(json_object_get(s, "2613"));
	json_decref(s);
}
END_TEST

START_TEST(test_import_summary_kernels)
{
	struct kp_err err;
	json_t *k = kp_import_kernels(V0 "import_summary.csv", &err);

	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(json_array_size(k), 1);
	ck_assert_str_eq(json_string_value(json_array_get(k, 0)),
	    "hgemm_byzj_v0(const __half *, const __half *, __half *, int, int, int)");
	json_decref(k);
	k = kp_import_kernels(KP_FIXTURES "/h200/gemm_discovery/discovery_summary.csv", &err);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(json_array_size(k), 5);
	json_decref(k);
}
END_TEST

static Suite *
import_suite(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("import");

	tcase_add_test(tc, test_import_page_rows);
	tcase_add_test(tc, test_import_sections_full_and_basic);
	tcase_add_test(tc, test_import_sections_not_a_details_page);
	tcase_add_test(tc, test_import_session_attributes);
	tcase_add_test(tc, test_import_summary_kernels);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(import_suite)
