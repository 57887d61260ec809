/*
 * Unit tests for source_evidence.c: each SASS instruction counts once, by
 * its whole "function@address" key however long the name, however the
 * look-up is done (split by function, or whole for keys that hold a '@' of
 * their own).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_diag.h"
#include "source_evidence.h"

/* The page's rows: function, address (one "Kernel Name" block each). */
static const char *const rows[][2] = {
	{ "k", "0x10" }, { "k", "0x20" }, { "k", "0x10" },	/* 0x10 twice: once */
	{ "j", "0x10" },					/* another function */
	{ "k@0x1", "0x2" }, { "k", "0x1@0x2" },			/* one key: once */
	{ "k", "0x1@0x3" }, { "k@0x1", "0x3" },			/* the same, in turn */
	{ "LONG", "0x10" }, { "LONG", "0x20" },			/* 1,100 bytes: two keys */
	{ "LONG", "0x10" },					/* seen */
	{ "MID", "0x10" }, { "MID", "0x20" },			/* 1,022 bytes */
	{ "k", "0x20" }, { "j", "0x10" },			/* seen */
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const char *
fname(const char *f, char *lng, char *mid)
{
	return strcmp(f, "LONG") == 0 ? lng : strcmp(f, "MID") == 0 ? mid : f;
}

START_TEST(test_evidence_counts_each_key_once)
{
	char lng[1101], mid[1018], key[2048], (*keys)[2048] = calloc(NROWS, 2048);
	size_t len = 0, cap = 65536, i, j, distinct = 0;
	char *t = malloc(cap);
	struct kp_err err;
	json_t *e;
	FILE *fp;

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(keys);
	memset(lng, 'L', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	memset(mid, 'M', sizeof(mid) - 1);	/* 1017 + "@0x10": 1022, "@0x20" too */
	mid[sizeof(mid) - 1] = '\0';
	for (i = 0; i < NROWS; i++) {
		const char *f = fname(rows[i][0], lng, mid);

		len += (size_t)snprintf(t + len, cap - len, "\"Kernel Name\",\"%s\"\n"
		    "\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\"\n"
		    "\"%s\",\"FFMA R1\",\"%zu\"\n", f, rows[i][1], i + 1);
		/* the count: distinct whole keys (snprintf into 1024 once cut them) */
		snprintf(key, sizeof(key), "%s@%s", f, rows[i][1]);
		for (j = 0; j < distinct && strcmp(keys[j], key) != 0; j++)
			;
		if (j == distinct)
			strcpy(keys[distinct++], key);
	}
	ck_assert_uint_eq(distinct, 9);	/* k:0x10,0x20  j:0x10  two '@' keys  LONG x2  MID x2 */
	ck_assert_ptr_nonnull(fp = fmemopen(t, len, "r"));
	e = kp_source_evidence_read(fp, "mem", &err);
	ck_assert_msg(e != NULL, "%s", err.msg);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "instructions")), (json_int_t)distinct);
	/* the samples of the first row of each key: 1+2+4+5+7+9+10+12+13 */
	ck_assert(json_real_value(json_object_get(e, "samples")) == 63);
	json_decref(e);
	fclose(fp);
	free(keys);
	free(t);
}
END_TEST

/*
 * Launch copies that list a function's addresses in the first copy's order,
 * then out of it, with new ones between: each address counts once, at its
 * first row, whatever the order (fn_addr's guess of the next address is
 * only a guess).
 */
START_TEST(test_evidence_copies_in_and_out_of_order)
{
	static const char *const copies[] = { "10 20 30", "10 20 30", "30 10 40 20",
		"20 50 10", "10 20 30 40 50", "60 60 10" };
	char t[8192];
	size_t len = 0, i, n = 0;
	double want = 0;
	char seen[8][8];
	size_t nseen = 0, j;
	struct kp_err err;
	json_t *e;
	FILE *fp;

	for (i = 0; i < sizeof(copies) / sizeof(copies[0]); i++) {
		char buf[64], *a, *save = NULL;

		len += (size_t)snprintf(t + len, sizeof(t) - len, "\"Kernel Name\",\"k\"\n"
		    "\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\"\n");
		snprintf(buf, sizeof(buf), "%s", copies[i]);
		for (a = strtok_r(buf, " ", &save); a != NULL; a = strtok_r(NULL, " ", &save)) {
			n++;
			len += (size_t)snprintf(t + len, sizeof(t) - len,
			    "\"0x%s\",\"FFMA R1\",\"%zu\"\n", a, n);
			for (j = 0; j < nseen && strcmp(seen[j], a) != 0; j++)
				;
			if (j == nseen) {
				snprintf(seen[nseen++], sizeof(seen[0]), "%s", a);
				want += (double)n;
			}
		}
	}
	ck_assert_uint_eq(nseen, 6);
	ck_assert_ptr_nonnull(fp = fmemopen(t, len, "r"));
	e = kp_source_evidence_read(fp, "mem", &err);
	ck_assert_msg(e != NULL, "%s", err.msg);
	ck_assert_int_eq(json_integer_value(json_object_get(e, "instructions")), 6);
	/* first rows: 0x10 1, 0x20 2, 0x30 3, 0x40 9, 0x50 12, 0x60 19 */
	ck_assert(want == 46);
	ck_assert(json_real_value(json_object_get(e, "samples")) == want);
	json_decref(e);
	fclose(fp);
}
END_TEST

static Suite *
source_evidence_suite(void)
{
	Suite *s = suite_create("source_evidence");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_evidence_counts_each_key_once);
	tcase_add_test(tc, test_evidence_copies_in_and_out_of_order);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(source_evidence_suite)
