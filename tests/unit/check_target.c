/* Unit tests for target.c: profile-target.yaml loaded, validated, written. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_target.h"

static char tmpdir[64];

static void
setup(void)
{
	strcpy(tmpdir, "/tmp/kp-target-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Write text to tmpdir/name; returns the malloc'd path. */
static char *
file(const char *name, const char *text)
{
	struct kp_err err;
	char *p = kp_path_join(tmpdir, name);

	ck_assert_int_eq(kp_write_file_atomic(p, text, strlen(text), &err), 0);
	return p;
}

/* Load text and expect an error containing want. */
static void
load_fails(const char *text, const char *want)
{
	struct kp_err err;
	char *p = file("profile-target.yaml", text);
	json_t *t = kp_target_load(p, &err);

	ck_assert_msg(t == NULL, "loaded, expected: %s", want);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_msg(strstr(err.msg, want) != NULL, "message \"%s\" lacks \"%s\"", err.msg, want);
	free(p);
}

static const char *
str_at(json_t *t, const char *sec, const char *key)
{
	return json_string_value(json_object_get(json_object_get(t, sec), key));
}

static json_int_t
int_at(json_t *t, const char *sec, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(t, sec), key));
}

START_TEST(test_target_minimal_file_gets_defaults)
{
	struct kp_err err;
	char *p = file("t.yaml", "target:\n  executable: ./bench\n");
	json_t *t = kp_target_load(p, &err);

	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_int_eq(json_integer_value(json_object_get(t, "schema_version")), 1);
	ck_assert_int_eq(int_at(t, "target", "timeout_seconds"), 600);
	ck_assert_str_eq(str_at(t, "target", "runtime"), "native");
	ck_assert_str_eq(str_at(t, "profiling", "backend"), "ncu");
	ck_assert_str_eq(str_at(t, "profiling", "initial_level"), "basic");
	ck_assert_str_eq(str_at(t, "profiling", "clock_control"), "base");
	ck_assert_str_eq(str_at(t, "profiling", "ncu_bin"), "");
	ck_assert_int_eq(int_at(t, "profiling", "warmup_skip"), 10);
	ck_assert_int_eq(int_at(t, "profiling", "launch_count"), 1);
	ck_assert_int_eq(int_at(t, "discovery", "max_candidates"), 10);
	ck_assert_str_eq(str_at(t, "discovery", "rank_by"), "total_duration");
	ck_assert(json_real_value(json_object_get(json_object_get(t, "analysis"),
	    "random_variation_tolerance_pct")) == 2.0);
	ck_assert_str_eq(str_at(t, "visualization", "format"), "png");
	ck_assert_str_eq(str_at(t, "privilege", "password_storage"), "forbidden");
	ck_assert_str_eq(str_at(json_object_get(t, "target"), "python", "entry_kind"), "none");
	ck_assert(json_is_array(json_object_get(json_object_get(t, "target"), "args")));
	json_decref(t);
	free(p);
}
END_TEST

START_TEST(test_target_bad_enum_names_line_and_field)
{
	load_fails("schema_version: 1\ntarget:\n  executable: ./b\nkernel:\n  name: k\n"
	    "  filter_mode: regexp\n",
	    "profile-target.yaml:6: kernel.filter_mode: \"regexp\" is not one of exact, regex, "
	    "kernel-id, nvtx-range");
}
END_TEST

START_TEST(test_target_wrong_types_are_errors)
{
	load_fails("target:\n  executable: ./b\n  timeout_seconds: ten\n",
	    ":3: target.timeout_seconds: expected an integer, got a string \"ten\"");
	load_fails("target:\n  executable: ./b\n  args: --m 4096\n",
	    ":3: target.args: expected a list of strings");
	load_fails("target:\n  executable: ./b\nprofiling:\n  enable_visual_report: yes please\n",
	    ":4: profiling.enable_visual_report: expected true or false");
	load_fails("target:\n  executable: ./b\nanalysis: [1, 2]\n",
	    ":3: analysis: expected a mapping");
	load_fails("target:\n  executable: ./b\n  python:\n    entry_kind: egg\n",
	    ":4: target.python.entry_kind: \"egg\" is not one of none, script, module, command");
	load_fails("target:\n  args: []\n", "target.executable: missing (required)");
	load_fails("target:\n  executable: ./b\nprofiling:\n  launch_count: 0\n",
	    ":4: profiling.launch_count: 0 is out of range 1..100000");
	load_fails("target:\n  executable: ./b\nkernel:\n  profile_id: ../etc\n",
	    ":4: kernel.profile_id: \"../etc\" is not a valid profile id");
	load_fails("target:\n  executable: ./b\nkernel:\n  filter_mode: nvtx-range\n",
	    "kernel.nvtx_range: required when filter_mode is nvtx-range");
	load_fails("- just\n- a list\n", "expected a mapping of sections, got a list");
	load_fails("target: {executable: [unclosed\n", "profile-target.yaml:");
	load_fails("schema_version: 2\ntarget:\n  executable: ./b\n",
	    ":1: schema_version: 2 is out of range 1..1");
}
END_TEST

START_TEST(test_target_password_storage_refused)
{
	load_fails("target:\n  executable: ./b\nprivilege:\n  mode: full_sudo\n"
	    "  password_storage: plaintext\n",
	    ":5: privilege.password_storage: \"plaintext\" is refused");
	load_fails("target:\n  executable: ./b\nprivilege:\n  mode: full_sudo\n"
	    "  sudo_password: hunter2\n",
	    ":5: privilege.sudo_password: refused: kp never stores a password");
}
END_TEST

START_TEST(test_target_unknown_keys_kept_env_normalised)
{
	struct kp_err err;
	char *p = file("t.yaml", "target:\n  executable: ./b\n  env:\n    CUDA_VISIBLE_DEVICES: 0\n"
	    "  future_key: 7\nfuture_section:\n  a: b\nanalysis:\n"
	    "  random_variation_tolerance_pct: 3\n");
	json_t *t = kp_target_load(p, &err);

	ck_assert_msg(t != NULL, "%s", err.msg);
	ck_assert_str_eq(str_at(json_object_get(t, "target"), "env", "CUDA_VISIBLE_DEVICES"), "0");
	ck_assert_int_eq(int_at(t, "target", "future_key"), 7);
	ck_assert_str_eq(str_at(t, "future_section", "a"), "b");
	ck_assert(json_is_real(json_object_get(json_object_get(t, "analysis"),
	    "random_variation_tolerance_pct")));
	json_decref(t);
	free(p);
}
END_TEST

START_TEST(test_target_round_trip_hostile_values)
{
	struct kp_err err;
	char *p = kp_path_join(tmpdir, "rt.yaml"), *q = kp_path_join(tmpdir, "rt2.yaml");
	json_t *t, *a, *b;

	t = json_pack("{s:{s:s, s:[s,s,s,s,s], s:{s:s}}, s:{s:s, s:s}, s:{s:[s]}, s:{s:i}}",
	    "target", "executable", "./bench: \"x\"", "args", "a b", "$(touch x)", "'q'",
	    "back\\slash", "ünï: cödé", "env", "FOO", "1", "kernel", "name", "operator()<float>",
	    "filter", ".*operator\\(\\)<float>.*", "notes", "user_requirements", "true",
	    "future", "x", 1);
	ck_assert_int_eq(kp_target_validate(t, &err), 0);
	ck_assert_int_eq(kp_target_write(t, p, &err), 0);
	a = kp_target_load(p, &err);
	ck_assert_msg(a != NULL, "%s", err.msg);
	ck_assert_msg(json_equal(t, a), "first load differs");
	ck_assert_int_eq(kp_target_validate(a, &err), 0);
	ck_assert_int_eq(kp_target_write(a, q, &err), 0);
	b = kp_target_load(q, &err);
	ck_assert_msg(b != NULL, "%s", err.msg);
	ck_assert(json_equal(a, b));
	json_decref(t);
	json_decref(a);
	json_decref(b);
	free(p);
	free(q);
}
END_TEST

START_TEST(test_target_validate_without_file)
{
	struct kp_err err;
	json_t *t = json_pack("{s:{s:s}, s:{s:s}}", "target", "executable", "./b",
	    "visualization", "format", "jpeg");

	ck_assert_int_eq(kp_target_validate(t, &err), -1);
	ck_assert_str_eq(err.msg, "visualization.format: \"jpeg\" is not one of png, svg");
	json_decref(t);
}
END_TEST

START_TEST(test_profile_id_rules)
{
	char *s;

	ck_assert(kp_profile_id_valid("hgemm_byzj_v0_20260101_000000"));
	ck_assert(kp_profile_id_valid("a.b-c_2"));
	ck_assert(!kp_profile_id_valid(""));
	ck_assert(!kp_profile_id_valid("a/b"));
	ck_assert(!kp_profile_id_valid("a..b"));
	ck_assert(!kp_profile_id_valid(".hidden"));
	ck_assert(!kp_profile_id_valid("-rf"));
	ck_assert(!kp_profile_id_valid("sp ace"));
	s = kp_profile_id_stem("void ns::operator()<float>(float*, int)");
	ck_assert_str_eq(s, "void_ns_operator_float_float_int");
	ck_assert(kp_profile_id_valid(s));
	free(s);
	s = kp_profile_id_stem("../..//");
	ck_assert_str_eq(s, "kernel");
	free(s);
	s = kp_profile_id_stem("a...b");
	ck_assert_str_eq(s, "a.b");
	free(s);
}
END_TEST

/* target.env names: only [A-Za-z_][A-Za-z0-9_]* reaches env(1) and commands.sh. */
START_TEST(test_target_env_names)
{
	static const char *const good[] = { "A", "_", "CUDA_VISIBLE_DEVICES", "a1", "_9" };
	static const char *const bad[] = { "", "1X", "X --split-string=touch${IFS}PWNED #",
		"-i", "A-B", "A=B", "A B", "\xc3\xa9", "A\n" };
	size_t i;

	for (i = 0; i < sizeof good / sizeof good[0]; i++)
		ck_assert_msg(kp_env_name_valid(good[i], strlen(good[i])), "%s", good[i]);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!kp_env_name_valid(bad[i], strlen(bad[i])), "%s", bad[i]);
}
END_TEST

START_TEST(test_target_launcher_and_ranks)
{
	struct kp_err err;
	char *p = file("t.yaml", "target:\n  executable: /usr/bin/python3\n"
	    "  launcher: torchrun --nproc-per-node 2\n  ranks: 1\nkernel:\n  name: gemm\n");
	json_t *t = kp_target_load(p, &err), *l, *r;

	ck_assert_msg(t != NULL, "%s", err.msg);
	l = json_object_get(json_object_get(t, "target"), "launcher");
	r = json_object_get(json_object_get(t, "target"), "ranks");
	ck_assert_int_eq(json_array_size(l), 3);	/* one string: split into words */
	ck_assert_str_eq(json_string_value(json_array_get(l, 1)), "--nproc-per-node");
	ck_assert_int_eq(json_array_size(r), 1);	/* one number: a list of one */
	ck_assert_int_eq(json_integer_value(json_array_get(r, 0)), 1);
	json_decref(t);
	free(p);
	/* the defaults: no launcher, rank 0 */
	p = file("t.yaml", "target:\n  executable: ./b\n");
	t = kp_target_load(p, &err);
	ck_assert_int_eq(json_array_size(json_object_get(json_object_get(t, "target"),
	    "launcher")), 0);
	r = json_object_get(json_object_get(t, "target"), "ranks");
	ck_assert_int_eq(json_array_size(r), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(r, 0)), 0);
	json_decref(t);
	free(p);
}
END_TEST

START_TEST(test_target_launcher_errors_name_line)
{
	load_fails("target:\n  executable: ./b\n  ranks: [1]\nkernel:\n  name: k\n",
	    "profile-target.yaml:3: target.ranks: needs target.launcher");
	load_fails("target:\n  executable: ./b\n  launcher: mpirun\n  ranks: [0, 2, 0]\n",
	    ":4: target.ranks: rank 0 is listed twice");
	load_fails("target:\n  executable: ./b\n  launcher: mpirun\n  ranks: []\n",
	    ":4: target.ranks: empty");
	load_fails("target:\n  executable: ./b\n  launcher: mpirun\n  ranks: [-1]\n",
	    ":4: target.ranks: -1 is out of range 0..1000000");
	load_fails("target:\n  executable: ./b\n  launcher: mpirun\n  ranks: [one]\n",
	    ":4: target.ranks: expected rank numbers, got a string");
	load_fails("target:\n  executable: ./b\n  launcher: \"-np 2\"\n",
	    ":3: target.launcher: \"-np\" is an option");
	load_fails("target:\n  executable: ./b\n  launcher: 'srun \"-n 2'\n",
	    ":3: target.launcher: ");
	load_fails("target:\n  executable: ./b\n  launcher: [srun, '']\n",
	    ":3: target.launcher: word 2 is empty");
	/* the filter would select NCCL's kernels: refused with a launcher */
	load_fails("target:\n  executable: ./b\n  launcher: [torchrun]\nkernel:\n"
	    "  filter_mode: regex\n  filter: .*\n",
	    ":6: kernel.filter: \".*\" would select NCCL kernels too (it matches "
	    "ncclDevKernel_AllReduce_Sum_f32_RING_LL)");
	load_fails("target:\n  executable: ./b\n  launcher: [torchrun]\n",
	    "kernel.name: no filter would select NCCL kernels too");
	load_fails("target:\n  executable: ./b\n  launcher: [torchrun]\nkernel:\n  name: k\n"
	    "profiling:\n  extra_profiler_options: [--, x]\n",
	    ":7: profiling.extra_profiler_options: \"--\" is refused");
}
END_TEST

static Suite *
target_suite(void)
{
	Suite *s = suite_create("target");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_target_minimal_file_gets_defaults);
	tcase_add_test(tc, test_target_bad_enum_names_line_and_field);
	tcase_add_test(tc, test_target_wrong_types_are_errors);
	tcase_add_test(tc, test_target_password_storage_refused);
	tcase_add_test(tc, test_target_unknown_keys_kept_env_normalised);
	tcase_add_test(tc, test_target_round_trip_hostile_values);
	tcase_add_test(tc, test_target_validate_without_file);
	tcase_add_test(tc, test_profile_id_rules);
	tcase_add_test(tc, test_target_env_names);
	tcase_add_test(tc, test_target_launcher_and_ranks);
	tcase_add_test(tc, test_target_launcher_errors_name_line);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(target_suite)
