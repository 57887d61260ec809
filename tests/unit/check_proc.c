/* Unit tests for proc.c: children in their own process group, bounded in time. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_proc.h"

static char tmpdir[64];

static void
setup(void)
{
	strcpy(tmpdir, "/tmp/kp-proc-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *
tpath(const char *name)
{
	return kp_path_join(tmpdir, name);
}

START_TEST(test_proc_exit_status_and_output)
{
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *out = tpath("o"), *text;
	struct kp_proc p = { argv, NULL, NULL, out, 0 };
	struct kp_proc_result r;
	struct kp_err err;

	ck_assert_int_eq(kp_proc_run(&p, &r, &err), 0);
	ck_assert_int_eq(r.exited, 1);
	ck_assert_int_eq(r.exit_status, 3);
	ck_assert_int_eq(r.timed_out, 0);
	text = kp_read_file(out, NULL, &err);
	ck_assert_str_eq(text, "out\nerr\n");
	free(text);
	free(out);
}
END_TEST

START_TEST(test_proc_stdin_is_dev_null)
{
	/* cat would wait for a terminal forever; with /dev/null it ends at once. */
	const char *argv[] = { "sh", "-c", "if [ -t 0 ]; then echo tty; fi; cat; echo done", NULL };
	char *out = tpath("o"), *text;
	struct kp_proc p = { argv, NULL, NULL, out, 5 };
	struct kp_proc_result r;
	struct kp_err err;

	ck_assert_int_eq(kp_proc_run(&p, &r, &err), 0);
	ck_assert_int_eq(r.timed_out, 0);
	text = kp_read_file(out, NULL, &err);
	ck_assert_str_eq(text, "done\n");
	free(text);
	free(out);
}
END_TEST

START_TEST(test_proc_timeout_kills_the_group)
{
	char *pidf = tpath("pid"), *text, script[256];
	const char *argv[] = { "sh", "-c", script, NULL };
	struct kp_proc p = { argv, NULL, NULL, NULL, 0.5 };
	struct kp_proc_result r;
	struct kp_err err;
	char procf[64];
	pid_t pid;

	snprintf(script, sizeof(script), "sleep 30 & echo $! > %s; wait", pidf);
	ck_assert_int_eq(kp_proc_run(&p, &r, &err), 0);
	ck_assert_int_eq(r.timed_out, 1);
	ck_assert_int_eq(r.exited, 0);
	ck_assert(r.duration_s < 5);
	text = kp_read_file(pidf, NULL, &err);
	ck_assert_ptr_nonnull(text);
	pid = (pid_t)atol(text);
	ck_assert_int_gt(pid, 0);
	/* the grandchild is gone (or a zombie waiting for init) */
	usleep(100000);
	snprintf(procf, sizeof(procf), "/proc/%ld/stat", (long)pid);
	if (kp_is_file(procf)) {
		char *st = kp_read_file(procf, NULL, &err);
		ck_assert_ptr_nonnull(st);
		ck_assert_ptr_nonnull(strstr(st, ") Z"));
		free(st);
	}
	free(text);
	free(pidf);
}
END_TEST

START_TEST(test_proc_cwd_and_env)
{
	const char *argv[] = { "sh", "-c", "pwd; echo \"$KP_T_VAR\"", NULL };
	char *out = tpath("o"), *text, want[PATH_MAX + 16], real[PATH_MAX];
	json_t *env = json_pack("{s:s}", "KP_T_VAR", "a b'c");
	struct kp_proc p = { argv, NULL, env, out, 0 };
	struct kp_proc_result r;
	struct kp_err err;

	p.cwd = tmpdir;
	ck_assert_int_eq(kp_proc_run(&p, &r, &err), 0);
	ck_assert_int_eq(r.exit_status, 0);
	ck_assert_ptr_nonnull(realpath(tmpdir, real));
	snprintf(want, sizeof(want), "%s\na b'c\n", real);
	text = kp_read_file(out, NULL, &err);
	ck_assert_str_eq(text, want);
	free(text);
	free(out);
	json_decref(env);
}
END_TEST

START_TEST(test_proc_exec_failure_is_reported)
{
	const char *argv[] = { "/nonexistent/program", NULL };
	struct kp_proc p = { argv, NULL, NULL, NULL, 0 };
	struct kp_proc_result r;
	struct kp_err err;

	ck_assert_int_eq(kp_proc_run(&p, &r, &err), 0);
	ck_assert_int_ne(r.exec_errno, 0);
	p.cwd = "/nonexistent/dir";
	argv[0] = "true";
	ck_assert_int_eq(kp_proc_run(&p, &r, &err), 0);
	ck_assert_int_ne(r.exec_errno, 0);
}
END_TEST

START_TEST(test_find_program)
{
	char *p = kp_find_program("sh");

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p[0], '/');
	free(p);
	ck_assert_ptr_null(kp_find_program("/nonexistent/ncu"));
	ck_assert_ptr_null(kp_find_program("/etc/passwd"));	/* not executable */
	ck_assert_ptr_null(kp_find_program("/tmp"));		/* a directory */
}
END_TEST

static Suite *
proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_proc_exit_status_and_output);
	tcase_add_test(tc, test_proc_stdin_is_dev_null);
	tcase_add_test(tc, test_proc_timeout_kills_the_group);
	tcase_add_test(tc, test_proc_cwd_and_env);
	tcase_add_test(tc, test_proc_exec_failure_is_reported);
	tcase_add_test(tc, test_find_program);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(proc_suite)
