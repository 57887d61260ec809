/*
 * Unit tests for jsonskim.c: the nodes of a text, the refusals, and the
 * promise the skim is for: a text it takes, jansson takes with the same values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_atomic.h"
#include "kp_jsonskim.h"
#include "kp_metrics.h"

#define FLAGS JSON_REJECT_DUPLICATES

/* Remove a folder kp_extract_to_dir wrote. */
static void
rm_dir(const char *dir)
{
	static const char *const f[] = { "metrics_summary.json", "metrics_all.json",
		"metrics_extracted.jsonl", NULL };
	char p[300];
	int i;

	for (i = 0; f[i] != NULL; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, f[i]);
		unlink(p);
	}
	rmdir(dir);
}

static long
skim(const char *s, int depth, struct kp_jskim_node **nd)
{
	return kp_jskim(s, strlen(s), depth, nd);
}

static int
takes(const char *s)
{
	struct kp_jskim_node *nd;
	long n = skim(s, 3, &nd);

	free(nd);
	return n >= 0;
}

START_TEST(test_jsonskim_nodes)
{
	const char *t = " {\"a\": 1, \"k\": [ {\"name\": \"x\\n\", \"m\": {\"z\": null}}, 2.5e-3 ],"
	    " \"s\": \"\xc3\xa9\", \"b\": true} \n";
	struct kp_jskim_node *nd;
	long n = skim(t, 3, &nd);

	ck_assert_int_eq(n, 8);	/* "z" is at depth 4 */
	ck_assert_int_eq(nd[0].parent, -1);
	ck_assert_int_eq((int)nd[0].klen, 1);
	ck_assert(memcmp(nd[0].key, "a", 1) == 0);
	ck_assert(nd[0].vlen == 1 && nd[0].val[0] == '1' && nd[0].type == 'n');
	ck_assert(nd[1].parent == -1 && nd[1].type == '[' && nd[1].klen == 1);
	ck_assert(nd[1].val[nd[1].vlen - 1] == ']');
	/* the kernel-like element, its members, then the number */
	ck_assert(nd[2].parent == 1 && nd[2].key == NULL && nd[2].type == '{');
	ck_assert(nd[3].parent == 2 && nd[3].klen == 4 && memcmp(nd[3].key, "name", 4) == 0);
	ck_assert(nd[3].type == '"' && nd[3].vlen == 5);
	ck_assert(nd[4].parent == 2 && nd[4].type == '{');	/* "m": depth 3 */
	ck_assert(nd[5].parent == 1 && nd[5].type == 'n' && nd[5].vlen == 6);
	ck_assert(nd[6].type == '"' && nd[6].vlen == 4);
	ck_assert(nd[7].type == 't' && nd[7].vlen == 4);
	free(nd);
	/* depth 1: the top members only */
	ck_assert_int_eq(skim(t, 1, &nd), 4);
	free(nd);
	ck_assert_int_eq(skim("{}", 2, &nd), 0);
	free(nd);
}
END_TEST

/* {"a": [[...]]} with d levels of arrays. */
static char *
nest(char *buf, int d)
{
	int n = snprintf(buf, 10, "{\"a\":");

	memset(buf + n, '[', (size_t)d);
	memset(buf + n + d, ']', (size_t)d);
	strcpy(buf + n + 2 * d, "}");
	return buf;
}

START_TEST(test_jsonskim_refuses)
{
	static const char *const bad[] = {
		"", "[1]", "1", "\"s\"", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1} x",
		"{\"a\":1}{}", "{a:1}", "{\"a\":[1,]}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}",
		"{\"a\":1e}", "{\"a\":1e+}", "{\"a\":-}", "{\"a\":+1}", "{\"a\":tru}",
		"{\"a\":nul}", "{\"a\":True}", "{\"a\":1,\"a\":2}",
		"{\"a\":{\"b\":1,\"b\":1}}",
		/* jansson's refusals: a control character, bad UTF-8 and escapes */
		"{\"a\":\"x\ty\"}", "{\"a\":\"\xc3\"}", "{\"a\":\"\xc0\x80\"}",
		"{\"a\":\"\xed\xa0\x80\"}", "{\"a\":\"\xf4\x90\x80\x80\"}", "{\"a\":\"\xff\"}",
		"{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\u0000\"}",
		/* what the skim leaves to jansson */
		"{\"a\\n\":1}", "{\"a\":\"\\ud83d\\ude00\"}", "{\"a\":1234567890123456789}",
		"{\"a\":1e100}", "{\"a\":\"x}", NULL
	};
	char deep[200];
	json_t *j;
	int i;

	for (i = 0; bad[i] != NULL; i++)
		ck_assert_msg(!takes(bad[i]), "took %s", bad[i]);
	/* 64 levels are taken, 65 left to jansson */
	ck_assert(takes(nest(deep, 64)));
	ck_assert(!takes(nest(deep, 65)));
	j = json_loads(nest(deep, 65), FLAGS, NULL);
	ck_assert_ptr_nonnull(j);	/* jansson takes it: only left to it */
	json_decref(j);
}
END_TEST

/* More keys than the pairwise check takes: the hash table's duplicates. */
START_TEST(test_jsonskim_duplicates_among_many)
{
	char t[4096];
	size_t n;
	json_t *j;
	int i, dup;

	for (dup = -1; dup < 40; dup++) {	/* key dup named as the one before it */
		n = (size_t)snprintf(t, sizeof t, "{\"o\":{");
		for (i = 0; i < 40; i++)
			n += (size_t)snprintf(t + n, sizeof t - n, "%s\"sm__metric_%d.sum\":%d",
			    i ? "," : "", i == dup ? i - 1 : i, i);
		snprintf(t + n, sizeof t - n, "}}");
		ck_assert_msg(takes(t) == (dup <= 0), "dup %d: %s", dup, t);
		j = json_loads(t, FLAGS, NULL);
		ck_assert((j != NULL) == (dup <= 0));
		json_decref(j);
	}
}
END_TEST

/* Every value the skim notes is jansson's whole parse of the same member. */
static void
assert_nodes_match(const char *t, size_t len)
{
	struct kp_jskim_node *nd;
	json_t *whole = json_loadb(t, len, FLAGS, NULL), *v, *w;
	long n = kp_jskim(t, len, 1, &nd), i;
	char key[512];

	ck_assert(n >= 0);
	ck_assert_ptr_nonnull(whole);
	ck_assert_int_eq((long)json_object_size(whole), n);
	for (i = 0; i < n; i++) {
		ck_assert(nd[i].klen < sizeof key);
		memcpy(key, nd[i].key, nd[i].klen);
		key[nd[i].klen] = '\0';
		w = json_object_get(whole, key);
		v = json_loadb(nd[i].val, nd[i].vlen, FLAGS | JSON_DECODE_ANY, NULL);
		ck_assert_msg(v != NULL && json_equal(v, w), "member %s", key);
		json_decref(v);
	}
	json_decref(whole);
	free(nd);
}

/* A text the skim takes, jansson takes: thousands of one-byte changes to a
 * real metrics_summary.json (hgemm_v0's, 8 KB), and its values match. */
START_TEST(test_jsonskim_takes_only_what_jansson_takes)
{
	static const char subst[] = "{}[]\",:\\0123456789.-+eEtfnul \n\t\x01\x80\xc3\xa9";
	const char *paths[1] = { KP_FIXTURES "/h200/hgemm_v0/basic_raw.csv" };
	char dir[] = "/tmp/check_jsonskim.XXXXXX", sp[300], *t, *m;
	struct kp_err err;
	size_t len, i, pos;
	unsigned seed = 12345;
	int taken = 0, refused = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(kp_extract_to_dir(paths, 1, dir, NULL, 0, NULL, NULL, &err), 0);
	snprintf(sp, sizeof sp, "%s/metrics_summary.json", dir);
	t = kp_read_file(sp, &len, &err);
	ck_assert_msg(t != NULL, "%s", t ? "" : err.msg);
	rm_dir(dir);
	assert_nodes_match(t, len);
	ck_assert_ptr_nonnull(m = malloc(len));
	for (i = 0; i < 2000; i++) {
		struct kp_jskim_node *nd;
		json_t *j;
		long n;

		seed = seed * 1103515245u + 12345u;
		pos = (seed >> 8) % len;
		memcpy(m, t, len);
		seed = seed * 1103515245u + 12345u;
		m[pos] = subst[(seed >> 8) % (sizeof subst - 1)];
		n = kp_jskim(m, len, 3, &nd);
		free(nd);
		j = json_loadb(m, len, FLAGS, NULL);
		ck_assert_msg(n < 0 || j != NULL, "skim took byte %zu = 0x%02x, jansson did not",
		    pos, (unsigned char)m[pos]);
		if (n >= 0)
			taken++;
		else
			refused++;
		json_decref(j);
	}
	ck_assert(taken > 100 && refused > 100);	/* both sides were tried */
	free(m);
	free(t);
}
END_TEST

static Suite *
jsonskim_suite(void)
{
	Suite *s = suite_create("jsonskim");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_jsonskim_nodes);
	tcase_add_test(tc, test_jsonskim_refuses);
	tcase_add_test(tc, test_jsonskim_duplicates_among_many);
	tcase_add_test(tc, test_jsonskim_takes_only_what_jansson_takes);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(jsonskim_suite)
