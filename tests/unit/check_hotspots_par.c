/*
 * Unit tests for hotspots_par.c: a page read in parts gives what one reading
 * gives, and where it could not (a fraction, a repeat across parts, an
 * instruction the first part's evidence did not see, a part that begins no
 * launch copy), the page is read in one part.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_diag.h"
#include "kp_hotspots.h"
#include "kp_source.h"

/* hgemm_v0's cuda,sass page: two blocks a launch (cuda_fp16.hpp, bench_gemm.cu) */
#define FIXTURE KP_FIXTURES "/h200/hgemm_v0/source_cuda_sass.csv"
#define COPIES 30

static char **lines;
static size_t nlines, bstart[16], nblocks;

static void
load(void)
{
	FILE *fp = fopen(FIXTURE, "r");
	char *l = NULL;
	size_t cap = 0;

	ck_assert_ptr_nonnull(fp);
	nlines = nblocks = 0;
	lines = NULL;
	while (getline(&l, &cap, fp) > 0) {
		lines = realloc(lines, (nlines + 1) * sizeof(*lines));
		ck_assert_ptr_nonnull(lines);
		if (strncmp(l, "\"File Path\",", 12) == 0) {
			ck_assert_uint_lt(nblocks, 15);
			bstart[nblocks++] = nlines;
		}
		lines[nlines++] = strdup(l);
	}
	bstart[nblocks] = nlines;
	free(l);
	fclose(fp);
	ck_assert_uint_eq(nblocks, 2);
}

static void
unload(void)
{
	while (nlines > 0)
		free(lines[--nlines]);
	free(lines);
	lines = NULL;
}

/*
 * Line l with the first metric of a data row moved by add ("N.5" where frac);
 * with addr, an instruction's address replaced by it.
 */
static void
put_line(FILE *o, const char *l, long add, int frac, const char *addr)
{
	const char *p = l, *a;
	char *e;
	long v;
	int k;

	if (l[0] != '"' || !(isdigit((unsigned char)l[1]) || l[1] == '"')) {
		fputs(l, o);
		return;
	}
	if (addr != NULL && (a = strstr(l, "\"0x")) != NULL) {
		fwrite(l, 1, (size_t)(a - l) + 1, o);
		fputs(addr, o);
		fputs(strchr(a + 1, '"'), o);
		return;
	}
	for (k = 0; k < 4 && p != NULL; k++)
		if ((p = strstr(p, "\",\"")) != NULL)
			p += 3;
	if (p == NULL || !isdigit((unsigned char)*p) || (v = strtol(p, &e, 10), *e != '"')) {
		fputs(l, o);
		return;
	}
	fwrite(l, 1, (size_t)(p - l), o);
	fprintf(o, frac ? "%ld.5" : "%ld", v + add);
	fputs(e, o);
}

enum how { PLAIN, FRACTION, REPEAT, NEWINSN, MISALIGNED };

/* Block b with its first metric moved by add; mutated as how asks where last. */
static void
put_block(FILE *o, size_t b, long add, enum how how, int last)
{
	size_t i;
	int frac = last && how == FRACTION, moved = 0;

	for (i = bstart[b]; i < bstart[b + 1]; i++) {
		const char *addr = NULL;

		if (last && how == NEWINSN && b == 1 && !moved &&
		    strncmp(lines[i], "\"\",\"\",\"0x", 9) == 0) {
			addr = "0x7ffff00000f0";
			moved = 1;
		}
		put_line(o, lines[i], add, frac && i > bstart[b] + 3, addr);
		if (frac && i > bstart[b] + 3)
			frac = 0;
	}
}

/* A page of COPIES launches in a temporary file; its path in path. */
static void
make_page(char *path, size_t n, enum how how)
{
	FILE *o;
	int fd, c;

	snprintf(path, n, "/tmp/kp-check-par-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	o = fdopen(fd, "w");
	ck_assert_ptr_nonnull(o);
	for (c = 0; c < COPIES; c++) {
		int last = c == COPIES - 1;
		long add = how == REPEAT && last ? 0 : c;

		put_block(o, 0, add, how, last);
		put_block(o, 1, add, how, last);
		if (how == MISALIGNED)	/* the next copy begins at bench_gemm.cu again */
			put_block(o, 1, add + 1000, how, last);
	}
	ck_assert_int_eq(fclose(o), 0);
}

struct read {
	struct kp_hotspots *h;
	char *csv, *ev;
};

static struct read
read_parts(const char *path, const char *parts, int evidence)
{
	struct read r = { NULL, NULL, NULL };
	struct kp_err err;
	json_t *ev = NULL;
	size_t len;
	FILE *fp, *m;

	setenv("KP_SOURCE_PARTS", parts, 1);
	fp = fopen(path, "rb");
	ck_assert_ptr_nonnull(fp);
	r.h = kp_hotspots_read_ev(fp, path, NULL, evidence ? &ev : NULL, &err);
	fclose(fp);
	ck_assert_msg(r.h != NULL, "%s", err.msg);
	m = open_memstream(&r.csv, &len);
	ck_assert_int_eq(kp_hotspots_write_csv(m, r.h, &err), 0);
	fclose(m);
	if (evidence) {
		ck_assert_ptr_nonnull(ev);
		r.ev = json_dumps(ev, JSON_SORT_KEYS | JSON_COMPACT);
		json_decref(ev);
	}
	unsetenv("KP_SOURCE_PARTS");
	return r;
}

static void
read_free(struct read *r)
{
	kp_hotspots_free(r->h);
	free(r->csv);
	free(r->ev);
}

/* The page read in three parts and in one: the same; want_parts: the parts kept. */
static void
same_as_one(enum how how, int evidence, size_t want_parts)
{
	char path[64];
	struct read one, three;

	load();
	make_page(path, sizeof(path), how);
	unload();
	one = read_parts(path, "1", evidence);
	three = read_parts(path, "3", evidence);
	unlink(path);
	ck_assert_uint_eq(one.h->parts, 1);
	ck_assert_uint_eq(three.h->parts, want_parts);
	ck_assert_str_eq(three.csv, one.csv);
	ck_assert_uint_eq(three.h->copies, one.h->copies);
	ck_assert_uint_eq(three.h->duplicates, one.h->duplicates);
	ck_assert(three.h->total == one.h->total);
	if (evidence)
		ck_assert_str_eq(three.ev, one.ev);
	read_free(&one);
	read_free(&three);
}

START_TEST(test_parts_give_one_readings_sums)
{
	same_as_one(PLAIN, 1, 3);
	same_as_one(PLAIN, 0, 3);
}
END_TEST

START_TEST(test_parts_fraction_reads_in_one)
{
	same_as_one(FRACTION, 0, 1);
}
END_TEST

START_TEST(test_parts_repeat_across_parts_reads_in_one)
{
	same_as_one(REPEAT, 0, 1);
}
END_TEST

START_TEST(test_parts_new_instruction_needs_one_for_evidence)
{
	same_as_one(NEWINSN, 1, 1);
	same_as_one(NEWINSN, 0, 3);	/* without evidence nothing else depends on it */
}
END_TEST

START_TEST(test_parts_not_beginning_a_copy_read_in_one)
{
	same_as_one(MISALIGNED, 0, 1);
}
END_TEST

/* Sums of non-negative integers below 2^53 are the same in any order; the
 * page says whether all its values were such. */
START_TEST(test_source_exact_values)
{
	static const char *const pages[] = {
		"\"Address\",\"Source\",\"Instructions Executed\"\n\"0x10\",\"NOP\",\"7\"\n",
		"\"Address\",\"Source\",\"Instructions Executed\"\n\"0x10\",\"NOP\",\"7.5\"\n",
		"\"Address\",\"Source\",\"Instructions Executed\"\n\"0x10\",\"NOP\",\"-3\"\n",
		"\"Address\",\"Source\",\"Instructions Executed\"\n\"0x10\",\"NOP\",\"1e300\"\n",
		"\"Address\",\"Source\",\"Instructions Executed\"\n\"0x10\",\"NOP\",\"12345678901234567\"\n",
	};
	static const int exact[] = { 1, 0, 0, 0, 0 };
	struct kp_src_row row;
	struct kp_err err;
	size_t i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		FILE *fp = fmemopen((void *)pages[i], strlen(pages[i]), "r");
		struct kp_src *s = kp_src_open(fp, "mem", &err);

		ck_assert_msg(s != NULL, "%s", err.msg);
		while (kp_src_next(s, &row, &err) == 1)
			;
		ck_assert_msg(kp_src_exact(s) == exact[i], "page %zu", i);
		kp_src_close(s);
		fclose(fp);
	}
}
END_TEST

static Suite *
par_suite(void)
{
	Suite *s = suite_create("hotspots_par");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parts_give_one_readings_sums);
	tcase_add_test(tc, test_parts_fraction_reads_in_one);
	tcase_add_test(tc, test_parts_repeat_across_parts_reads_in_one);
	tcase_add_test(tc, test_parts_new_instruction_needs_one_for_evidence);
	tcase_add_test(tc, test_parts_not_beginning_a_copy_read_in_one);
	tcase_add_test(tc, test_source_exact_values);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(par_suite)
