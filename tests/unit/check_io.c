/* Unit tests for atomic.c, jsonl.c, yaml.c and diag.c. */
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_check.h"
#include "kp_arena.h"
#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_jsonl.h"
#include "kp_utf8.h"
#include "kp_yaml.h"
#include "profile.h"

static char tmpdir[64];

static void
setup(void)
{
	strcpy(tmpdir, "/tmp/kp-unit-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_atomic_commit_and_abort)
{
	struct kp_err err;
	struct kp_atomic a;
	char *p = kp_path_join(tmpdir, "out.txt");
	char *got;

	ck_assert_int_eq(kp_write_file_atomic(p, "old\n", 4, &err), 0);
	ck_assert_int_eq(kp_atomic_open(&a, p, &err), 0);
	fputs("half-written", a.fp);
	kp_atomic_abort(&a);
	got = kp_read_file(p, NULL, &err);
	ck_assert_str_eq(got, "old\n");	/* a failed run keeps the good file */
	free(got);
	ck_assert_int_eq(kp_atomic_open(&a, p, &err), 0);
	fputs("new\n", a.fp);
	ck_assert_int_eq(kp_atomic_commit(&a, &err), 0);
	got = kp_read_file(p, NULL, &err);
	ck_assert_str_eq(got, "new\n");
	free(got);
	free(p);
}
END_TEST

START_TEST(test_atomic_unwritable_folder)
{
	struct kp_err err;

	ck_assert_int_eq(kp_write_file_atomic("/nonexistent/dir/x", "a", 1, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/dir/x"));
}
END_TEST

START_TEST(test_mkdirs_nested)
{
	struct kp_err err;
	char *p = kp_path_join(tmpdir, "a/b/c");

	ck_assert_int_eq(kp_mkdirs(p, &err), 0);
	ck_assert(kp_is_dir(p));
	ck_assert_int_eq(kp_mkdirs(p, &err), 0);
	free(p);
}
END_TEST

START_TEST(test_jsonl_read_records_and_errors)
{
	struct kp_err err;
	const char *s = "{\"profile_dir\":\"p/1\",\"x\":1}\n\n{\"y\":2}\n[1]\n{bad\n";
	FILE *fp = fmemopen((void *)s, strlen(s), "r");
	struct kp_jsonl *r = kp_jsonl_open(fp, "in.jsonl");
	json_t *j;

	ck_assert_int_eq(kp_jsonl_next(r, &j, &err), 1);
	ck_assert_str_eq(kp_record_profile_dir(j), "p/1");
	json_decref(j);
	ck_assert_int_eq(kp_jsonl_next(r, &j, &err), 1);
	ck_assert_ptr_null(kp_record_profile_dir(j));
	json_decref(j);
	ck_assert_int_eq(kp_jsonl_next(r, &j, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "in.jsonl:4: a record must be a JSON object"));
	ck_assert_int_eq(kp_jsonl_next(r, &j, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "in.jsonl:5:"));
	kp_jsonl_close(r);
	fclose(fp);
}
END_TEST

START_TEST(test_jsonl_write_compact_sorted)
{
	struct kp_err err;
	char buf[256] = { 0 };
	FILE *fp = fmemopen(buf, sizeof(buf), "w");
	json_t *o = json_pack("{s:i, s:s, s:f}", "b", 2, "a", "x", "c", 1.5);

	ck_assert_int_eq(kp_jsonl_write(fp, o, &err), 0);
	fclose(fp);
	ck_assert_str_eq(buf, "{\"a\":\"x\",\"b\":2,\"c\":1.5}\n");
	json_decref(o);
}
END_TEST

START_TEST(test_yaml_error_names_file_and_line)
{
	struct kp_err err;
	const char *bad = "a: 1\nb: [1, 2\nc: 3\n";

	ck_assert_ptr_null(kp_yaml_load_string(bad, strlen(bad), "t.yaml", &err));
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_msg(strncmp(err.msg, "t.yaml:", 7) == 0, "got %s", err.msg);
	ck_assert_msg(strchr(err.msg + 7, ':') != NULL, "no line:col in %s", err.msg);
}
END_TEST

/* A file's error is "FILE:LINE:COL: ...", never libfyaml's name for its input
 * ("<stream>", "<alloc-@0x...>"); a file of blanks is an empty document. */
START_TEST(test_yaml_file_error_is_file_line_col)
{
	static const char *const texts[] = { "a: 1\nb: [1, 2\nc: 3\n", "", " \n\t\n" };
	struct kp_err err;
	char path[] = "/tmp/kp-check-yaml-XXXXXX", want[64];
	size_t i;

	for (i = 0; i < 3; i++) {
		int fd = mkstemp(path);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, texts[i], strlen(texts[i])), (int)strlen(texts[i]));
		close(fd);
		ck_assert_ptr_null(kp_yaml_load(path, &err));
		unlink(path);
		ck_assert_int_eq(err.status, KP_EXIT_DATA);
		if (i == 0)
			snprintf(want, sizeof(want), "%s:", path);
		else
			snprintf(want, sizeof(want), "%s: empty YAML document", path);
		ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "got %s", err.msg);
		/* the line (libfyaml puts an unclosed bracket at the end: 4) and column */
		ck_assert_msg(i > 0 || sscanf(err.msg + strlen(want), "%*d:%*d: %c", want) == 1,
		    "got %s", err.msg);
		ck_assert_msg(strchr(err.msg, '<') == NULL, "got %s", err.msg);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
}
END_TEST

/* libfyaml 0.7.12 loops for ever on a directive with a byte that is not UTF-8
 * (found by tests/fuzz; the inputs are kept as tests/fuzz/seeds/NAME/regress-...). */
START_TEST(test_yaml_not_utf8_is_refused_first)
{
	static const struct { const char *text, *msg; } cases[] = {
		{ "%tru\x9c\x8due", "t.yaml:1:5: not valid UTF-8 (byte 0x9c)" },
		{ "%a\x98\n---\na: 1\n", "t.yaml:1:3: not valid UTF-8 (byte 0x98)" },
		{ "a: 1\nb: \xff\n", "t.yaml:2:4: not valid UTF-8 (byte 0xff)" },
		{ "a: \xc0\xaf\n", "t.yaml:1:4: not valid UTF-8 (byte 0xc0)" },	/* overlong */
		{ "a: \xed\xa0\x80\n", "t.yaml:1:4: not valid UTF-8 (byte 0xed)" },	/* surrogate */
	};
	struct kp_err err;
	struct fy_document *d;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_ptr_null(kp_yaml_load_string(cases[i].text, strlen(cases[i].text),
		    "t.yaml", &err));
		ck_assert_int_eq(err.status, KP_EXIT_DATA);
		ck_assert_str_eq(err.msg, cases[i].msg);
	}
	/* UTF-8 itself is fine */
	{
		const char *good = "a: \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n";

		d = kp_yaml_load_string(good, strlen(good), "t.yaml", &err);
	}
	ck_assert_ptr_nonnull(d);
	fy_document_destroy(d);
}
END_TEST

/* A NUL byte: libfyaml ended the scalar there and dropped the rest of the line. */
START_TEST(test_yaml_nul_byte_is_refused)
{
	static const char text[] = "kernel:\n  name: hgemm_byzj_v0\0ignored\n";
	static const char late[] = "a: 1\nb: \xff\0\n";	/* the first bad byte is named */
	struct kp_err err;

	ck_assert_ptr_null(kp_yaml_load_string(text, sizeof text - 1, "t.yaml", &err));
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_str_eq(err.msg, "t.yaml:2:22: a NUL byte (YAML is text)");
	ck_assert_ptr_null(kp_yaml_load_string(late, sizeof late - 1, "t.yaml", &err));
	ck_assert_str_eq(err.msg, "t.yaml:2:4: not valid UTF-8 (byte 0xff)");
}
END_TEST

START_TEST(test_yaml_lookup_and_lines)
{
	struct kp_err err;
	const char *s = "kernel:\n  name: hgemm\n  count: 3\nlist:\n  - a\n";
	struct fy_document *d = kp_yaml_load_string(s, strlen(s), "t.yaml", &err);
	char *name;

	ck_assert_ptr_nonnull(d);
	name = kp_yaml_str(d, "/kernel/name");
	ck_assert_str_eq(name, "hgemm");
	free(name);
	ck_assert_ptr_null(kp_yaml_str(d, "/kernel/missing"));
	ck_assert_int_eq(kp_yaml_line(kp_yaml_node(d, "/kernel/count")), 3);
	ck_assert_int_eq(kp_yaml_line(kp_yaml_node(d, "/list")), 5);
	fy_document_destroy(d);
}
END_TEST

START_TEST(test_yaml_round_trip_hostile_strings)
{
	struct kp_err err;
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:b, s:f, s:[s,s]}",
	    "quote", "say \"hi\"", "colon", "a: b", "backslash", "C:\\dir\\x",
	    "unicode", "h\xc3\xa9llo \xe2\x9c\x93", "looks_like_bool", "true",
	    "n", 42, "flag", 1, "r", 2.5, "argv", "--m", "4096 # not a comment");
	struct fy_document *d = kp_json_to_yaml(j, &err);
	char *p = kp_path_join(tmpdir, "t.yaml");
	struct fy_document *back;
	json_t *j2;

	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(kp_yaml_write_atomic(d, p, &err), 0);
	back = kp_yaml_load(p, &err);
	ck_assert_ptr_nonnull(back);
	j2 = kp_yaml_to_json(fy_document_root(back));
	ck_assert_msg(json_equal(j, j2), "round trip changed the data");
	json_decref(j);
	json_decref(j2);
	fy_document_destroy(d);
	fy_document_destroy(back);
	free(p);
}
END_TEST

START_TEST(test_strtonum_bounds)
{
	struct kp_err err;
	long long v;

	ck_assert_int_eq(kp_strtonum("20", 1, 100, &v, &err), 0);
	ck_assert_int_eq(v, 20);
	ck_assert_int_eq(kp_strtonum("0", 1, 100, &v, &err), -1);
	ck_assert_int_eq(kp_strtonum("12abc", 1, 100, &v, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_USAGE);
	ck_assert_int_eq(kp_strtonum("", 1, 100, &v, &err), -1);
}
END_TEST

/* An artifact beside another file: the other's folder, the artifact's own name. */
START_TEST(test_artifact_beside)
{
	static const char *const cases[][2] = {
		{ "p/details/source_hotspots.csv", "p/details/source_evidence.json" },
		{ "/tmp/x/hot.csv", "/tmp/x/source_evidence.json" },
		{ "hot.csv", "./source_evidence.json" },
		{ "/hot.csv", "/source_evidence.json" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p = kp_artifact_beside(cases[i][0], KP_ART_SOURCE_EVIDENCE);

		ck_assert_ptr_nonnull(p);
		ck_assert_str_eq(p, cases[i][1]);
		free(p);
	}
}
END_TEST

/* kp_args_text: the first argument that is not UTF-8, named by its option. */
START_TEST(test_args_text)
{
	static const char *const skip[] = { "--check", NULL };
	char *ok[] = { "p", "--kernel", "k", "--check", "x\xff", "--check=y\xff", NULL };
	char *opt[] = { "p", "--kernel", "k\xff", NULL };
	char *word[] = { "p", "--args", "a", "--kernel", "b\xfe", NULL };
	char *joined[] = { "p", "--kernel=\xc3", NULL };
	struct kp_err err;

	ck_assert_int_eq(kp_args_text(6, ok, skip, &err), 0);
	ck_assert_int_eq(kp_args_text(3, opt, skip, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_USAGE);
	ck_assert_str_eq(err.msg, "--kernel: \"k\\xff\" is not UTF-8 (byte 0xff at offset 1): "
	    "it cannot be kept as text; nothing was written or run");
	ck_assert_int_eq(kp_args_text(5, word, skip, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "--args: word 3, \"b\\xfe\", is not UTF-8"));
	ck_assert_int_eq(kp_args_text(2, joined, skip, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "\"--kernel=\\xc3\" is not UTF-8 (byte 0xc3 at offset 9)"));
}
END_TEST

/* A signal while a temporary is open: it is removed, the exit is 128+n. */
START_TEST(test_atomic_temporary_removed_on_signal)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	char path[128];
	size_t i;

	snprintf(path, sizeof path, "%s/out.json", tmpdir);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		int st, n = 0;
		pid_t pid = fork();
		DIR *d;
		struct dirent *e;

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct kp_atomic a;
			struct kp_err err;

			signal(sigs[i], SIG_DFL);
			kp_tmp_clean_on_signals();
			if (kp_atomic_open(&a, path, &err) < 0)
				_exit(99);
			fputs("half", a.fp);
			fflush(a.fp);
			raise(sigs[i]);
			_exit(98);
		}
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert(WIFEXITED(st));
		ck_assert_int_eq(WEXITSTATUS(st), 128 + sigs[i]);
		ck_assert_ptr_nonnull(d = opendir(tmpdir));
		while ((e = readdir(d)) != NULL)
			n += e->d_name[0] != '.';
		closedir(d);
		ck_assert_int_eq(n, 0);
	}
}
END_TEST

/* Arena pieces: aligned, kept apart, a big one on its own mapping, all freed at once. */
START_TEST(test_arena_pieces_and_strings)
{
	struct kp_arena a = { 0 };
	char *s[400], *big, *after;
	char want[32];
	void *p;
	size_t i;

	for (i = 0; i < 400; i++) {	/* past the first 64 KB chunk */
		snprintf(want, sizeof want, "metric_%zu", i);
		ck_assert_ptr_nonnull(s[i] = kp_arena_strndup(&a, want, strlen(want)));
		ck_assert_ptr_nonnull(p = kp_arena_alloc(&a, 200));
		ck_assert_uint_eq((uintptr_t)p % 16, 0);
		memset(p, 0xff, 200);	/* may not reach a string */
	}
	ck_assert_ptr_nonnull(big = kp_arena_alloc(&a, (size_t)3 << 20));
	ck_assert_uint_eq((uintptr_t)big % 16, 0);
	memset(big, 'x', (size_t)3 << 20);
	ck_assert_ptr_nonnull(after = kp_arena_strndup(&a, "abc\0def", 7));
	ck_assert_int_eq(memcmp(after, "abc\0def", 8), 0);
	for (i = 0; i < 400; i++) {
		snprintf(want, sizeof want, "metric_%zu", i);
		ck_assert_str_eq(s[i], want);
	}
	kp_arena_free(&a);
	ck_assert_ptr_null(a.chunk);
	/* a big piece first, then small ones */
	ck_assert_ptr_nonnull(kp_arena_alloc(&a, (size_t)1 << 20));
	ck_assert_ptr_nonnull(after = kp_arena_strndup(&a, "x", 1));
	ck_assert_str_eq(after, "x");
	kp_arena_free(&a);
}
END_TEST

static Suite *
io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_atomic_commit_and_abort);
	tcase_add_test(tc, test_atomic_unwritable_folder);
	tcase_add_test(tc, test_mkdirs_nested);
	tcase_add_test(tc, test_jsonl_read_records_and_errors);
	tcase_add_test(tc, test_jsonl_write_compact_sorted);
	tcase_add_test(tc, test_yaml_error_names_file_and_line);
	tcase_add_test(tc, test_yaml_not_utf8_is_refused_first);
	tcase_add_test(tc, test_yaml_nul_byte_is_refused);
	tcase_add_test(tc, test_yaml_lookup_and_lines);
	tcase_add_test(tc, test_yaml_round_trip_hostile_strings);
	tcase_add_test(tc, test_strtonum_bounds);
	tcase_add_test(tc, test_args_text);
	tcase_add_test(tc, test_yaml_file_error_is_file_line_col);
	tcase_add_test(tc, test_artifact_beside);
	tcase_add_test(tc, test_atomic_temporary_removed_on_signal);
	tcase_add_test(tc, test_arena_pieces_and_strings);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(io_suite)
