/* Unit tests for shellwords.c: POSIX word splitting that never evaluates,
 * quoting for sh, and regex escaping. */
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_diag.h"
#include "kp_shellwords.h"

/* The words of line joined by '|' (for compact assertions). */
static char *
words(const char *line)
{
	static char out[1024];
	struct kp_err err;
	json_t *a = kp_shell_split(line, &err), *v;
	size_t i;

	ck_assert_msg(a != NULL, "split failed: %s", err.msg);
	out[0] = '\0';
	json_array_foreach(a, i, v) {
		if (i > 0)
			strcat(out, "|");
		strcat(out, json_string_value(v));
	}
	json_decref(a);
	return out;
}

START_TEST(test_shell_split_blanks_and_quotes)
{
	ck_assert_str_eq(words("  ./bench   --m 4096\t--k\n1 "), "./bench|--m|4096|--k|1");
	ck_assert_str_eq(words("a 'b c' \"d e\" f\\ g"), "a|b c|d e|f g");
	ck_assert_str_eq(words("x'y'\"z\"w"), "xyzw");
	ck_assert_str_eq(words("'' \"\""), "|");
	ck_assert_str_eq(words(""), "");
}
END_TEST

START_TEST(test_shell_split_double_quote_escapes)
{
	/* Inside "...", only \ " $ ` are escaped; other backslashes stay. */
	ck_assert_str_eq(words("\"a\\\"b\" \"\\$HOME\" \"\\`x\\`\" \"\\\\\" \"\\n\""),
	    "a\"b|$HOME|`x`|\\|\\n");
	/* Inside '...', nothing is escaped. */
	ck_assert_str_eq(words("'a\\b' 'it'\\''s'"), "a\\b|it's");
	ck_assert_str_eq(words("a\\\nb"), "ab");	/* line continuation */
}
END_TEST

START_TEST(test_shell_split_never_evaluates)
{
	ck_assert_str_eq(words("./x $(touch pwned) `id` a;b c|d e&&f >g <h *"),
	    "./x|$(touch|pwned)|`id`|a;b|c|d|e&&f|>g|<h|*");
	ck_assert_str_eq(words("\"$(rm -rf /)\" '$HOME' # not a comment"),
	    "$(rm -rf /)|$HOME|#|not|a|comment");
}
END_TEST

START_TEST(test_shell_split_unterminated_quote_is_error)
{
	struct kp_err err;

	ck_assert_ptr_null(kp_shell_split("./x 'abc", &err));
	ck_assert_int_eq(err.status, KP_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "unterminated single quote at column 5"));
	ck_assert_ptr_null(kp_shell_split("./x \"abc\\\"", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "unterminated double quote"));
	ck_assert_ptr_null(kp_shell_split("./x \\", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "backslash"));
}
END_TEST

START_TEST(test_shell_quote_round_trip)
{
	static const char *const hostile[] = { "plain", "a b", "it's", "", "$(x)", "a\"b",
	    "back\\slash", "semi;colon", "new\nline", "'", "ünïcode", NULL };
	json_t *a = json_array(), *b;
	struct kp_err err;
	char *line, *q;
	size_t i;

	for (i = 0; hostile[i]; i++)
		json_array_append_new(a, json_string(hostile[i]));
	line = kp_shell_join(a);
	ck_assert_ptr_nonnull(line);
	b = kp_shell_split(line, &err);
	ck_assert_ptr_nonnull(b);
	ck_assert_msg(json_equal(a, b), "round trip of %s", line);
	q = kp_shell_quote("plain-word_1.2/x");
	ck_assert_str_eq(q, "plain-word_1.2/x");
	free(q);
	q = kp_shell_quote("it's");
	ck_assert_str_eq(q, "'it'\\''s'");
	free(q);
	free(line);
	json_decref(a);
	json_decref(b);
}
END_TEST

/* ".*<escaped>.*" as a POSIX ERE must match s and not a near miss. */
static void
assert_matches_only(const char *s, const char *near_miss)
{
	char *e = kp_regex_escape(s), pat[512];
	regex_t re;

	snprintf(pat, sizeof(pat), "^.*%s.*$", e);
	ck_assert_int_eq(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
	ck_assert_msg(regexec(&re, s, 0, NULL, 0) == 0, "%s does not match %s", pat, s);
	ck_assert_msg(regexec(&re, near_miss, 0, NULL, 0) != 0, "%s matches %s", pat, near_miss);
	regfree(&re);
	free(e);
}

START_TEST(test_regex_escape_metacharacters)
{
	char *e = kp_regex_escape("a.b^c$d|e?f*g+h(i)j[k]l{m}n\\o");

	ck_assert_str_eq(e, "a\\.b\\^c\\$d\\|e\\?f\\*g\\+h\\(i\\)j\\[k\\]l\\{m\\}n\\\\o");
	free(e);
	assert_matches_only("operator()<float>", "operator<float>");
	assert_matches_only("operator()<float>", "operatorX<float>");
	assert_matches_only("void k<1.5f>(float*, int[4])", "void k<125f>(float, int4)");
	assert_matches_only("a|b", "a");
	assert_matches_only("x{2}", "xx");
	assert_matches_only("^$.?+*", "anything");
	assert_matches_only("back\\slash", "backslash");
}
END_TEST

/* A byte that is not UTF-8 cannot become a JSON word: refused, not dropped. */
START_TEST(test_shell_split_refuses_non_utf8)
{
	struct kp_err err;

	ck_assert_ptr_null(kp_shell_split("./bench in\xffput", &err));
	ck_assert_int_eq(err.status, KP_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "not UTF-8 (byte 0xff at offset 10)"));
}
END_TEST

static Suite *
shellwords_suite(void)
{
	Suite *s = suite_create("shellwords");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_shell_split_refuses_non_utf8);
	tcase_add_test(tc, test_shell_split_blanks_and_quotes);
	tcase_add_test(tc, test_shell_split_double_quote_escapes);
	tcase_add_test(tc, test_shell_split_never_evaluates);
	tcase_add_test(tc, test_shell_split_unterminated_quote_is_error);
	tcase_add_test(tc, test_shell_quote_round_trip);
	tcase_add_test(tc, test_regex_escape_metacharacters);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(shellwords_suite)
