/* Unit tests for source.c: the streaming reader of ncu's source page. */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_check.h"
#include "kp_csv.h"
#include "kp_number.h"
#include "kp_diag.h"
#include "kp_source.h"

static struct kp_src *
open_path(const char *rel, FILE **fp, struct kp_err *err)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", KP_FIXTURES, rel);
	*fp = fopen(path, "rb");
	ck_assert_ptr_nonnull(*fp);
	return kp_src_open(*fp, path, err);
}

START_TEST(test_source_cuda_sass_blocks_lines_insns)
{
	struct kp_err err;
	struct kp_src_row r;
	FILE *fp;
	struct kp_src *s = open_path("h200/hgemm_v0/source_cuda_sass.csv", &fp, &err);
	int blocks = 0, lines = 0, insns = 0, all;
	double line24 = -1;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(kp_src_kind(s), KP_SRC_CUDA_SASS);
	all = kp_src_metric_index(s, "Warp Stall Sampling (All Samples)");
	ck_assert_int_eq(all, 0);	/* the 5th column, after Line No,Source,Address,Source */
	while (kp_src_next(s, &r, &err) == 1) {
		if (r.ev == KP_SRC_BLOCK) {
			blocks++;
			/* csv lines 5 and 60: "File Path" cuda_fp16.hpp, then bench_gemm.cu */
			ck_assert_str_eq(r.file, blocks == 1 ?
			    "/usr/local/cuda/targets/x86_64-linux/include/cuda_fp16.hpp" :
			    "/src/kp-capture/bench_gemm.cu");
			ck_assert(strncmp(r.function, "hgemm_byzj_v0(", 14) == 0);
		} else if (r.ev == KP_SRC_LINE) {
			lines++;
			if (r.line == 24)	/* csv line 137: "24","acc += ...","-","-","124071" */
				line24 = r.val[all];
		} else {
			insns++;
			ck_assert(strncmp(r.address, "0x", 2) == 0);
		}
	}
	ck_assert_int_eq(blocks, 2);
	/* grep -c '^"[0-9][0-9]*","' = 13 lines; grep -c '^"","","0x' = 179 SASS rows */
	ck_assert_int_eq(lines, 13);
	ck_assert_int_eq(insns, 179);
	ck_assert(line24 == 124071);
	kp_src_close(s);
	fclose(fp);
}
END_TEST

START_TEST(test_source_sass_page_and_import_extra_column)
{
	struct kp_err err;
	struct kp_src_row r;
	FILE *fp;
	struct kp_src *s = open_path("h200/hgemm_v0/import_source_sass.csv", &fp, &err);
	int n = 0, ie;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(kp_src_kind(s), KP_SRC_SASS);
	/* the imported page has "Derivative Avg. Predicated-On Threads Executed" */
	ck_assert_int_ge(kp_src_metric_index(s, "Derivative Avg. Predicated-On Threads Executed"), 0);
	ie = kp_src_metric_index(s, "Instructions Executed");
	ck_assert_int_ge(ie, 0);
	ck_assert_int_eq(kp_src_next(s, &r, &err), 1);
	ck_assert_int_eq(r.ev, KP_SRC_BLOCK);
	while (kp_src_next(s, &r, &err) == 1) {
		ck_assert_int_eq(r.ev, KP_SRC_INSN);
		ck_assert_int_eq(r.line, 0);
		n++;
	}
	ck_assert_int_eq(n, 144);	/* grep -c '^"0x' */
	kp_src_close(s);
	fclose(fp);
}
END_TEST

START_TEST(test_source_ptx_page_has_no_metrics)
{
	struct kp_err err;
	FILE *fp;
	struct kp_src *s = open_path("h200/hgemm_v0/source_ptx.csv", &fp, &err);

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(kp_src_kind(s), KP_SRC_PTX);
	ck_assert_uint_eq(kp_src_nmetrics(s), 0);
	kp_src_close(s);
	fclose(fp);
}
END_TEST

START_TEST(test_source_raw_page_is_rejected)
{
	struct kp_err err;
	FILE *fp;
	struct kp_src *s = open_path("h200/hgemm_v0/full_raw.csv", &fp, &err);

	ck_assert_ptr_null(s);
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "not an ncu source page"));
	fclose(fp);
}
END_TEST

START_TEST(test_source_missing_values_are_nan)
{
	const char *t = "\"Kernel Name\",\"k\",\n\"Address\",\"Source\",\"Instructions Executed\",\"Address Space\"\n"
	    "\"0x10\",\"  NOP\",\"-\",\"Global(2)\"\n\"...\",\"...\",\"-\",\"-\"\n";
	FILE *fp = fmemopen((void *)t, strlen(t), "r");
	struct kp_err err;
	struct kp_src_row r;
	struct kp_src *s = kp_src_open(fp, "mem", &err);

	ck_assert_ptr_nonnull(s);
	ck_assert(!kp_src_metric_numeric(s, 1));
	ck_assert(kp_src_metric_numeric(s, 0));
	ck_assert_int_eq(kp_src_next(s, &r, &err), 1);
	ck_assert_int_eq(kp_src_next(s, &r, &err), 1);
	ck_assert_str_eq(r.text, "  NOP");
	ck_assert(isnan(r.val[0]));
	ck_assert_int_eq(kp_src_next(s, &r, &err), 0);	/* the "..." row is skipped */
	kp_src_close(s);
	fclose(fp);
}
END_TEST

/*
 * The values kp_src gives (its lazy reading: unsplit records, digits read on
 * the way) are what splitting every record and kp_parse_number give, bit for
 * bit, on fp's page; fp is read twice.
 */
static void
assert_values_as_split(FILE *fp, const char *name)
{
	struct kp_err err;
	struct kp_src_row r;
	struct kp_src *s;
	struct kp_csv *c;
	size_t i, fixed, nm;
	int rows = 0, rc;

	rewind(fp);
	ck_assert_ptr_nonnull(s = kp_src_open(fp, name, &err));
	fixed = kp_src_kind(s) == KP_SRC_CUDA_SASS ? 4 : 2;
	nm = kp_src_nmetrics(s);
	/* kp_src reads ahead: collect its rows' values first */
	{
		double *all = NULL;
		unsigned long *lines = NULL;
		size_t n = 0, j;

		while ((rc = kp_src_next(s, &r, &err)) == 1) {
			if (r.ev == KP_SRC_BLOCK)
				continue;
			ck_assert_ptr_nonnull(all = realloc(all, (n + 1) * nm * sizeof(*all)));
			ck_assert_ptr_nonnull(lines = realloc(lines, (n + 1) * sizeof(*lines)));
			memcpy(all + n * nm, r.val, nm * sizeof(*all));
			lines[n++] = r.csvline;
		}
		ck_assert_int_eq(rc, 0);
		kp_src_close(s);
		rewind(fp);
		ck_assert_ptr_nonnull(c = kp_csv_open(fp, name));
		for (j = 0; j < n; j++) {
			while ((rc = kp_csv_next(c, &err)) == 1 && kp_csv_line(c) < lines[j])
				;
			ck_assert_int_eq(rc, 1);
			ck_assert_uint_eq(kp_csv_line(c), lines[j]);
			for (i = 0; i < nm; i++) {
				const struct kp_field *f = kp_csv_field(c, fixed + i);
				double want = NAN, got = all[j * nm + i];

				if (f != NULL && kp_parse_number(f->s, f->len, &want) != KP_NUM_OK)
					want = NAN;
				ck_assert_msg((isnan(want) && isnan(got)) ||
				    memcmp(&want, &got, sizeof(want)) == 0,
				    "%s:%lu: column %zu: %.17g, split %.17g", name, lines[j], i,
				    got, want);
			}
			rows++;
		}
		kp_csv_close(c);
		free(all);
		free(lines);
	}
	ck_assert_int_gt(rows, 0);
}

/*
 * A page written to a temporary file, its values checked against the split
 * (assert_values_as_split), and opened again from its start; *fpp is the
 * file, for the caller to close after the reader.
 */
static struct kp_src *
page_as_split(const char *page, size_t n, const char *name, FILE **fpp)
{
	FILE *fp = tmpfile();
	struct kp_err err;
	struct kp_src *s;

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(page, 1, n, fp), n);
	assert_values_as_split(fp, name);
	rewind(fp);
	ck_assert_ptr_nonnull(s = kp_src_open(fp, name, &err));
	*fpp = fp;
	return s;
}

START_TEST(test_source_values_as_split_on_fixtures)
{
	static const char *const pages[] = { "hgemm_v0/source_cuda_sass.csv",
		"hgemm_v0/source_sass.csv", "hgemm_v1/source_cuda_sass.csv",
		"stream_triad/source_cuda_sass.csv", "triton_hgemm/source_cuda_sass.csv",
		"hgemm_v0_basic_import/import_source_cuda_sass.csv", NULL };
	char path[1024];
	FILE *fp;
	int i;

	for (i = 0; pages[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/h200/%s", KP_FIXTURES, pages[i]);
		if ((fp = fopen(path, "rb")) == NULL)
			continue;
		assert_values_as_split(fp, path);
		fclose(fp);
	}
}
END_TEST

/* Values the fast path must leave to kp_parse_number, records kp_csv splits
 * (a quote inside the text, a CR), and the last field. */
START_TEST(test_source_values_as_split_odd_cells)
{
	static const char page[] =
	    "\"Kernel Name\",\"k\"\n"
	    "\"Address\",\"Source\",\"a\",\"b\",\"c\",\"d\",\"e\",\"f\"\n"
	    "\"0x10\",\"FFMA R1, R2\",\"0\",\"611\",\"1,234\",\"-5\",\"0.5\",\"7\"\n"
	    "\"0x20\",\"LDG\",\"-\",\"\",\"n/a\",\"0012\",\"123456789012345\",\"1234567890123456\"\n"
	    "\"0x30\",\"LDG\",\" 7\",\"7 \",\"1e3\",\"x1\",\"99999999999999999999\",\"-\"\n"
	    "\"0x40\",\"say \"\"hi\"\"\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\"\n"
	    "\"0x50\",\"STG\",\"8\",\"9\",\"10\",\"11\",\"12\",\"13\"\r\n"
	    "\"0x60\",\"STG\",\"1\",\"2\"\n"
	    "\"0x70\",\"STG\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\"\n"
	    /* digits read eight at a time: every length, bytes just past '0'..'9' */
	    "\"0x80\",\"X\",\"16777216\",\"536870912\",\"12:5\",\"00000000\",\"1/2\",\"99999999\"\n"
	    "\"0x90\",\"X\",\"9\",\"12345678\",\"123456789012\",\"1234567\",\"4294967295\","
	    "\"18446744073709551615\"\n"
	    "\"0xa0\",\"X\",\"0\",\"10\",\"100\",\"1000000\",\"10000000\",\"100000000\"\n"
	    "\"0xb0\",\"X\",\"12345670\",\"1234567 \",\"1234567.5\",\"87654321,\",\"7e1\",\"9\"\n";
	struct kp_err err;
	struct kp_src_row r;
	struct kp_src *s;
	FILE *fp;
	int n = 0;

	s = page_as_split(page, sizeof(page) - 1, "odd", &fp);
	while (kp_src_next(s, &r, &err) == 1) {
		if (r.ev != KP_SRC_INSN)
			continue;
		n++;
		if (n == 1) {
			ck_assert(r.val[0] == 0 && r.val[1] == 611 && r.val[2] == 1234 &&
			    r.val[3] == -5 && r.val[4] == 0.5 && r.val[5] == 7);
			ck_assert_str_eq(r.text, "FFMA R1, R2");
		} else if (n == 2) {
			ck_assert(isnan(r.val[0]) && isnan(r.val[1]) && isnan(r.val[2]));
			ck_assert(r.val[3] == 12 && r.val[4] == 123456789012345.0 &&
			    r.val[5] == 1234567890123456.0);
		} else if (n == 4)
			ck_assert_str_eq(r.text, "say \"hi\"");
		else if (n == 5)
			ck_assert(r.val[5] == 13);
		else if (n == 6)
			ck_assert(r.val[1] == 2 && isnan(r.val[2]));
		else if (n == 7)
			ck_assert(r.val[5] == 6);
		else if (n == 8)
			ck_assert(r.val[0] == 16777216 && r.val[1] == 536870912 &&
			    isnan(r.val[2]) && r.val[3] == 0 && isnan(r.val[4]) &&
			    r.val[5] == 99999999);
	}
	ck_assert_int_eq(n, 11);
	kp_src_close(s);
	fclose(fp);
}
END_TEST

/*
 * Runs of one-byte fields (read four at a time when the columns are the
 * metrics in order): digits, "-", and the bytes just past '0' .. '9' and
 * others that are no number, at every offset from the row's first value.
 * Rows 0x60 .. 0x90 end a run with a longer field after 0, 1, 2 and 3 of
 * a group of four (read as one-byte fields, then that field in full), and
 * with two longer fields in a row.
 */
START_TEST(test_source_values_as_split_one_byte_runs)
{
	static const char page[] =
	    "\"Kernel Name\",\"k\"\n"
	    "\"Address\",\"Source\",\"m0\",\"m1\",\"m2\",\"m3\",\"m4\",\"m5\",\"m6\",\"m7\","
	    "\"m8\",\"m9\",\"m10\",\"m11\",\"m12\"\n"
	    "\"0x10\",\"X\",\"0\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\",\"-\",\"x\",\"4\"\n"
	    "\"0x20\",\"X\",\"-\",\"/\",\":\",\"5\",\" \",\"9\",\"0\",\"a\",\"-\",\".\",\"+\",\"2\",\"-\"\n"
	    "\"0x30\",\"X\",\"10\",\"1\",\"2\",\"3\",\"4\",\"55\",\"6\",\"7\",\"8\",\"9\",\"0\",\"1\",\"2\"\n"
	    "\"0x40\",\"X\",\"1\",\"2\",\"3\",\"44\",\"5\",\"6\",\"7\",\"8\",\"-\",\"9\",\"10\",\"11\",\"\"\n"
	    "\"0x50\",\"X\",\"7\",\"-\",\"\",\"8\",\"9\",\"1\",\"2\",\"0.5\",\"3\",\"4\",\"5\",\"6\",\"7\"\n"
	    "\"0x60\",\"X\",\"1\",\"22\",\"3\",\"-\",\"5\",\"666\",\"7\",\"8\",\"9\",\"-\",\"1.5\",\"1\",\"2\"\n"
	    "\"0x70\",\"X\",\"1\",\"2\",\"333\",\"4\",\"5\",\"6\",\"7\",\"8\",\"-\",\"12345678901\",\"1\",\"2\",\"3\"\n"
	    "\"0x80\",\"X\",\"-\",\"2\",\"3\",\"4444\",\"55\",\"6\",\"7\",\"8\",\"9\",\"n/a\",\"1\",\"2\",\"3\"\n"
	    "\"0x90\",\"X\",\"9\",\"8\",\"7\",\"-\",\"6\",\"5\",\"4\",\"33\",\"2\",\"1\",\"0\",\"-\",\"99\"\n";
	struct kp_err err;
	struct kp_src_row r;
	struct kp_src *s;
	FILE *fp;
	int n = 0, i;

	s = page_as_split(page, sizeof(page) - 1, "runs", &fp);
	while (kp_src_next(s, &r, &err) == 1) {
		if (r.ev != KP_SRC_INSN)
			continue;
		if (++n == 1) {
			for (i = 0; i < 10; i++)
				ck_assert(r.val[i] == i);
			ck_assert(isnan(r.val[10]) && isnan(r.val[11]) && r.val[12] == 4);
		} else if (n == 2)
			ck_assert(isnan(r.val[0]) && isnan(r.val[1]) && isnan(r.val[2]) &&
			    r.val[3] == 5 && isnan(r.val[4]) && r.val[5] == 9 && r.val[6] == 0 &&
			    isnan(r.val[7]) && isnan(r.val[9]) && isnan(r.val[10]) &&
			    r.val[11] == 2);
	}
	ck_assert_int_eq(n, 9);
	kp_src_close(s);
	fclose(fp);
}
END_TEST

/*
 * A row's values are stored over the last row's (not cleared first when the
 * columns are the metrics in order): after a row of numbers, one of none in
 * each way a field can be none (one byte, empty, a word, "n/a") leaves no
 * number behind; 16 digits (past the fast path) and the words that are
 * numbers to kp_parse_number ("inf", "NaN", "Infinity") stay numbers.
 */
START_TEST(test_source_values_none_over_numbers)
{
	static const char page[] =
	    "\"Kernel Name\",\"k\"\n"
	    "\"Address\",\"Source\",\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"\n"
	    "\"0x10\",\"X\",\"1\",\"22\",\"333\",\"4444\",\"55555555\",\"666666666\","
	    "\"7\",\"8\",\"9\"\n"
	    "\"0x20\",\"X\",\"-\",\"\",\"Load\",\"Global(2)\",\"1234567890123456\",\"n/a\","
	    "\"x\",\"-\",\"-\"\n"
	    "\"0x30\",\"X\",\"1\",\"22\",\"333\",\"4444\",\"55555555\",\"666666666\","
	    "\"7\",\"8\",\"9\"\n"
	    "\"0x40\",\"X\",\"inf\",\"NaN\",\"Infinity\",\"-inf\",\"Shared\",\"-\",\"-\","
	    "\"-\",\"\"\n";
	struct kp_err err;
	struct kp_src_row r;
	struct kp_src *s;
	FILE *fp;
	int n = 0, i;

	s = page_as_split(page, sizeof(page) - 1, "none", &fp);
	while (kp_src_next(s, &r, &err) == 1) {
		if (r.ev != KP_SRC_INSN)
			continue;
		if (++n == 2) {
			for (i = 0; i < 9; i++)
				if (i != 4)
					ck_assert_msg(isnan(r.val[i]), "column %d", i);
			ck_assert(r.val[4] == 1234567890123456.0);
		}
		else if (n == 4) {
			ck_assert(isinf(r.val[0]) && r.val[0] > 0 && isnan(r.val[1]));
			ck_assert(isinf(r.val[2]) && isinf(r.val[3]) && r.val[3] < 0);
			for (i = 4; i < 9; i++)
				ck_assert(isnan(r.val[i]));
		}
	}
	ck_assert_int_eq(n, 4);
	kp_src_close(s);
	fclose(fp);
}
END_TEST

/* A block's header in another order than the first one's, with and without
 * a name given twice: each column goes to the first metric of its name. */
START_TEST(test_source_header_order_and_twice_named_columns)
{
	static const char *const pages[] = {
	    "\"Kernel Name\",\"k\"\n\"Address\",\"Source\",\"a\",\"b\",\"c\"\n"
	    "\"0x10\",\"X\",\"1\",\"2\",\"3\"\n"
	    "\"Kernel Name\",\"k2\"\n\"Address\",\"Source\",\"c\",\"a\",\"b\"\n"
	    "\"0x10\",\"X\",\"1\",\"2\",\"3\"\n",
	    "\"Kernel Name\",\"k\"\n\"Address\",\"Source\",\"a\",\"b\",\"a\"\n"
	    "\"0x10\",\"X\",\"1\",\"2\",\"3\"\n"
	    "\"Kernel Name\",\"k2\"\n\"Address\",\"Source\",\"b\",\"a\",\"a\"\n"
	    "\"0x10\",\"X\",\"1\",\"2\",\"3\"\n",
	};
	/* per page, per row: the values of metrics 0, 1, 2 (-1: NAN) */
	static const double want[2][2][3] = {
		{ { 1, 2, 3 }, { 2, 3, 1 } },
		{ { 3, 2, -1 }, { 3, 1, -1 } },	/* a later "a" overwrites */
	};
	struct kp_err err;
	struct kp_src_row r;
	struct kp_src *s;
	FILE *fp;
	int p, row, k;

	for (p = 0; p < 2; p++) {
		fp = fmemopen((void *)pages[p], strlen(pages[p]), "r");
		ck_assert_ptr_nonnull(fp);
		ck_assert_ptr_nonnull(s = kp_src_open(fp, "mem", &err));
		ck_assert_uint_eq(kp_src_nmetrics(s), 3);
		row = 0;
		while (kp_src_next(s, &r, &err) == 1) {
			if (r.ev != KP_SRC_INSN)
				continue;
			ck_assert_int_lt(row, 2);
			for (k = 0; k < 3; k++)
				ck_assert_msg(want[p][row][k] < 0 ? isnan(r.val[k]) :
				    r.val[k] == want[p][row][k], "page %d row %d metric %d: %g", p,
				    row, k, r.val[k]);
			row++;
		}
		ck_assert_int_eq(row, 2);
		kp_src_close(s);
		fclose(fp);
	}
}
END_TEST

/*
 * Headers again: the same bytes as the last one (taken as they were), and
 * the first one's bytes back after another order (read again, not reused).
 */
START_TEST(test_source_repeated_headers)
{
	static const char page[] =
	    "\"Kernel Name\",\"k\"\n\"Address\",\"Source\",\"a\",\"b\",\"c\"\n"
	    "\"0x10\",\"X\",\"1\",\"2\",\"3\"\n"
	    "\"Kernel Name\",\"k2\"\n\"Address\",\"Source\",\"c\",\"a\",\"b\"\n"
	    "\"0x10\",\"X\",\"1\",\"2\",\"3\"\n"
	    "\"Kernel Name\",\"k3\"\n\"Address\",\"Source\",\"a\",\"b\",\"c\"\n"
	    "\"0x10\",\"X\",\"1\",\"2\",\"3\"\n"
	    "\"Kernel Name\",\"k4\"\n\"Address\",\"Source\",\"a\",\"b\",\"c\"\n"
	    "\"0x10\",\"X\",\"1\",\"2\",\"3\"\n"
	    "\"Kernel Name\",\"k5\"\n\"Address\",\"Source\",\"c\",\"a\",\"b\"\n"
	    "\"0x10\",\"X\",\"1\",\"2\",\"3\"\n";
	static const double want[5][3] = {
		{ 1, 2, 3 }, { 2, 3, 1 }, { 1, 2, 3 }, { 1, 2, 3 }, { 2, 3, 1 },
	};
	struct kp_err err;
	struct kp_src_row r;
	struct kp_src *s;
	FILE *fp = fmemopen((void *)page, strlen(page), "r");
	int row = 0, k;

	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_nonnull(s = kp_src_open(fp, "mem", &err));
	while (kp_src_next(s, &r, &err) == 1) {
		if (r.ev != KP_SRC_INSN)
			continue;
		ck_assert_int_lt(row, 5);
		for (k = 0; k < 3; k++)
			ck_assert_msg(r.val[k] == want[row][k], "row %d metric %d: %g", row, k,
			    r.val[k]);
		row++;
	}
	ck_assert_int_eq(row, 5);
	kp_src_close(s);
	fclose(fp);
}
END_TEST

/*
 * kp_src_val_into(): each row's values land in the caller's buffer, the same
 * as the reader's own would hold; NULL gives the reader's own back.
 */
START_TEST(test_source_val_into)
{
	struct kp_err err;
	struct kp_src_row ra, rb;
	struct kp_src *a, *b;
	FILE *fa = fopen(KP_FIXTURES "/h200/hgemm_v0/source_cuda_sass.csv", "r"),
	    *fb = fopen(KP_FIXTURES "/h200/hgemm_v0/source_cuda_sass.csv", "r");
	double *buf[2];
	size_t nm, rows = 0, i;
	int r;

	ck_assert_ptr_nonnull(fa);
	ck_assert_ptr_nonnull(fb);
	ck_assert_ptr_nonnull(a = kp_src_open(fa, "a", &err));
	ck_assert_ptr_nonnull(b = kp_src_open(fb, "b", &err));
	nm = kp_src_nmetrics(a);
	ck_assert_uint_gt(nm, 10);
	ck_assert_ptr_nonnull(buf[0] = malloc(nm * sizeof(double)));
	ck_assert_ptr_nonnull(buf[1] = malloc(nm * sizeof(double)));
	for (;;) {
		double *into = buf[rows % 2];

		/* rows 0-99 into the buffers by turns, then the reader's own */
		kp_src_val_into(b, rows < 100 ? into : NULL);
		r = kp_src_next(a, &ra, &err);
		ck_assert_int_eq(kp_src_next(b, &rb, &err), r);
		if (r != 1)
			break;
		ck_assert_int_eq(ra.ev, rb.ev);
		if (ra.ev != KP_SRC_LINE && ra.ev != KP_SRC_INSN)
			continue;
		ck_assert(rows < 100 ? rb.val == into : rb.val != buf[0] && rb.val != buf[1]);
		for (i = 0; i < nm; i++)
			ck_assert(isnan(ra.val[i]) ? isnan(rb.val[i]) : ra.val[i] == rb.val[i]);
		rows++;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_gt(rows, 150);
	kp_src_close(a);
	kp_src_close(b);
	fclose(fa);
	fclose(fb);
	free(buf[0]);
	free(buf[1]);
}
END_TEST

START_TEST(test_sass_opcode_family_and_predicates)
{
	char b[24];

	ck_assert_str_eq(kp_sass_opcode("@!P0  PRMT R27, RZ, 0x7610, R27", b, sizeof(b)), "PRMT");
	ck_assert_str_eq(kp_sass_opcode("      HMMA.16816.F32 R4, R8, R12, R4", b, sizeof(b)), "HMMA");
	ck_assert_str_eq(kp_sass_opcode("@UP0 HGMMA.64x128x16.F32 R24, gdesc[UR4], R24", b, sizeof(b)), "HGMMA");
	ck_assert_str_eq(kp_sass_opcode("  UTMALDG.2D [UR8], [UR4]", b, sizeof(b)), "UTMALDG");
	ck_assert_str_eq(kp_sass_opcode("  BAR.SYNC.DEFER_BLOCKING 0x0", b, sizeof(b)), "BAR");
	ck_assert_str_eq(kp_sass_opcode("  EXIT", b, sizeof(b)), "EXIT");
	/* a word in source text is never an opcode (the Python tool matched "bar") */
	ck_assert_str_eq(kp_sass_opcode("float bar = foo(x); // BAR", b, sizeof(b)), "");
	ck_assert_str_eq(kp_sass_opcode("bar.sync 0;", b, sizeof(b)), "");
	ck_assert_str_eq(kp_sass_opcode("BARx", b, sizeof(b)), "");
}
END_TEST

START_TEST(test_ptx_opcode)
{
	char b[48];

	ck_assert_str_eq(kp_ptx_opcode("\t@%p1 ld.global.nc.v4.f32 {%f1, %f2}, [%rd4];", b, sizeof(b)),
	    "ld.global.nc.v4.f32");
	ck_assert_str_eq(kp_ptx_opcode(".visible .entry _Z6kernelv(", b, sizeof(b)), "");
	ck_assert_str_eq(kp_ptx_opcode("$L__BB0_2:", b, sizeof(b)), "");
	ck_assert_str_eq(kp_ptx_opcode("bar.sync \t0;", b, sizeof(b)), "bar.sync");
}
END_TEST

START_TEST(test_sass_tensor_families_and_descriptions)
{
	ck_assert_int_eq(kp_sass_is_tensor("HGMMA"), 1);
	ck_assert_int_eq(kp_sass_is_tensor("HMMA"), 1);
	ck_assert_int_eq(kp_sass_is_tensor("IMMA"), 1);
	ck_assert_int_eq(kp_sass_is_tensor("DMMA"), 1);
	ck_assert_int_eq(kp_sass_is_tensor("QGMMA"), 1);
	ck_assert_int_eq(kp_sass_is_tensor("UTCHMMA"), 1);
	ck_assert_int_eq(kp_sass_is_tensor("FFMA"), 0);
	ck_assert_int_eq(kp_sass_is_tensor(""), 0);
	ck_assert_ptr_nonnull(strstr(kp_sass_describe("HGMMA"), "tensor cores"));
	ck_assert_ptr_nonnull(strstr(kp_sass_describe("UTMALDG"), "TMA"));
	ck_assert_ptr_nonnull(kp_sass_describe("ATOM"));	/* the first of the table */
	{
		/* the ops the kept captures' top rows name, each found (the
		 * lookup is a binary search: a misplaced entry is missed) */
		static const char *const top[] = { "ATOMG", "CCTL", "SHF", "UISETP", "MOVM",
			"VIADD", "ULDC", "REDG", "NANOSLEEP", "IDP", "VOTE", NULL };
		size_t t;

		for (t = 0; top[t] != NULL; t++)
			ck_assert_msg(kp_sass_describe(top[t]) != NULL, "%s", top[t]);
	}
	ck_assert_ptr_nonnull(kp_sass_describe("WARPSYNC"));	/* the last */
	ck_assert_ptr_null(kp_sass_describe("NOSUCHOP"));
}
END_TEST

START_TEST(test_stall_reason_names)
{
	char b[32];

	/* the names of smsp__average_warps_issue_stalled_*_per_issue_active.ratio in
	 * tests/fixtures/h200/hgemm_v0/full_raw.csv */
	ck_assert_str_eq(kp_stall_reason("stall_short_sb", b, sizeof(b)), "short_scoreboard");
	ck_assert_str_eq(kp_stall_reason("stall_long_sb", b, sizeof(b)), "long_scoreboard");
	ck_assert_str_eq(kp_stall_reason("stall_mio", b, sizeof(b)), "mio_throttle");
	ck_assert_str_eq(kp_stall_reason("stall_lg", b, sizeof(b)), "lg_throttle");
	ck_assert_str_eq(kp_stall_reason("stall_math", b, sizeof(b)), "math_pipe_throttle");
	ck_assert_str_eq(kp_stall_reason("stall_dispatch", b, sizeof(b)), "dispatch_stall");
	ck_assert_str_eq(kp_stall_reason("stall_imc", b, sizeof(b)), "imc_miss");
	ck_assert_str_eq(kp_stall_reason("stall_no_inst", b, sizeof(b)), "no_instruction");
	ck_assert_str_eq(kp_stall_reason("stall_sleep", b, sizeof(b)), "sleeping");
	ck_assert_str_eq(kp_stall_reason("stall_tex", b, sizeof(b)), "tex_throttle");
	ck_assert_str_eq(kp_stall_reason("stall_future_thing", b, sizeof(b)), "future_thing");
	ck_assert_ptr_null(kp_stall_reason("stall_mio (Not Issued)", b, sizeof(b)));
	ck_assert_ptr_null(kp_stall_reason("Instructions Executed", b, sizeof(b)));
}
END_TEST

/*
 * Every row of fp (its values as bits), with KP_SOURCE_THREAD=mode: what
 * kp_src_open and kp_src_next give, one line a row, and how it ended.
 */
static char *
rows_text(FILE *fp, const char *name, const char *mode, size_t *nrows)
{
	char *buf = NULL;
	size_t len = 0, i, nm;
	FILE *out = open_memstream(&buf, &len);
	struct kp_err err;
	struct kp_src_row r;
	struct kp_src *s;
	int rc;

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(setenv("KP_SOURCE_THREAD", mode, 1), 0);
	rewind(fp);
	*nrows = 0;
	if ((s = kp_src_open(fp, name, &err)) == NULL) {
		fprintf(out, "open %d %s\n", err.status, err.msg);
		fclose(out);
		return buf;
	}
	nm = kp_src_nmetrics(s);
	while ((rc = kp_src_next(s, &r, &err)) == 1) {
		fprintf(out, "%d|%s|%s|%lu|%ld|%s|%s|%lu|", (int)r.ev, r.file, r.function,
		    r.fngen, r.line, r.text, r.address, r.csvline);
		for (i = 0; i < nm; i++) {
			unsigned long long b;

			memcpy(&b, &r.val[i], sizeof(b));
			fprintf(out, "%llx,", b);
		}
		fputc('\n', out);
		(*nrows)++;
	}
	fprintf(out, "end %d %d %s\n", rc, rc < 0 ? err.status : 0, rc < 0 ? err.msg : "");
	kp_src_close(s);
	fclose(out);
	return buf;
}

static void
assert_thread_same(FILE *fp, const char *name, size_t *nrows)
{
	size_t n0, n1;
	char *a = rows_text(fp, name, "0", &n0), *b = rows_text(fp, name, "1", &n1);

	ck_assert_uint_eq(n0, n1);
	ck_assert_msg(strcmp(a, b) == 0, "%s: the rows read on a thread differ", name);
	*nrows = n0;
	free(a);
	free(b);
}

/* The rows handed over from the parse thread (source_pipe.c) are the rows
 * read in line: every source page of the fixtures, field for field. */
START_TEST(test_source_thread_same_rows_on_fixtures)
{
	glob_t g;
	size_t i, n, pages = 0, rows = 0;

	ck_assert_int_eq(glob(KP_FIXTURES "/*/*/*source*.csv", 0, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++) {
		FILE *fp = fopen(g.gl_pathv[i], "rb");

		ck_assert_ptr_nonnull(fp);
		assert_thread_same(fp, g.gl_pathv[i], &n);
		rows += n;
		pages += n > 0;
		fclose(fp);
	}
	globfree(&g);
	ck_assert_uint_ge(pages, 20);
	ck_assert_uint_gt(rows, 5000);
}
END_TEST

/*
 * A page of many batches: hgemm_v0's blocks 12 times (2,448 records), a row
 * whose source text (40 KB) passes a batch's strings, a "File Path" without a
 * new function, then a record no source page has: the same rows, then the
 * same error, on the thread and off it; and a page closed early.
 */
START_TEST(test_source_thread_batches_long_rows_and_error)
{
	char path[1024], *page = NULL, *big;
	size_t plen = 0, n, i, body;
	FILE *in, *fp;
	struct kp_err err;
	struct kp_src_row r;
	struct kp_src *s;
	long at;

	snprintf(path, sizeof(path), "%s/h200/hgemm_v0/source_cuda_sass.csv", KP_FIXTURES);
	ck_assert_ptr_nonnull(in = fopen(path, "rb"));
	ck_assert_int_eq(fseek(in, 0, SEEK_END), 0);
	ck_assert_int_gt(at = ftell(in), 0);
	ck_assert_ptr_nonnull(page = malloc((size_t)at + 1));
	rewind(in);
	ck_assert_uint_eq(fread(page, 1, (size_t)at, in), (size_t)at);
	fclose(in);
	plen = (size_t)at;
	/* from the first "File Path" record on: the blocks */
	ck_assert_ptr_nonnull(big = strstr(page, "\"File Path\""));
	body = (size_t)(big - page);
	ck_assert_ptr_nonnull(fp = tmpfile());
	fwrite(page, 1, plen, fp);
	for (i = 0; i < 11; i++)
		fwrite(page + body, 1, plen - body, fp);
	ck_assert_ptr_nonnull(big = malloc(40001));
	memset(big, 'x', 40000);
	big[40000] = '\0';
	fprintf(fp, "\"7\",\"%s\",\"-\",\"-\",\"5\"\n", big);
	fprintf(fp, "\"File Path\",\"/src/other.cu\"\n\"8\",\"y = 1;\",\"-\",\"-\",\"6\"\n");
	fprintf(fp, "\"Surprise\",\"no such record\"\n");
	fflush(fp);
	assert_thread_same(fp, "many.csv", &n);
	ck_assert_uint_gt(n, 2048);	/* past two batches of 1,024 */
	{
		size_t n1;
		char *t = rows_text(fp, "many.csv", "1", &n1);

		ck_assert_ptr_nonnull(strstr(t, "|/src/other.cu|"));
		ck_assert_ptr_nonnull(strstr(t, big));
		ck_assert_ptr_nonnull(strstr(t, "end -1 3 many.csv:"));
		free(t);
	}
	/* closed after a few rows, the thread still parsing */
	ck_assert_int_eq(setenv("KP_SOURCE_THREAD", "1", 1), 0);
	rewind(fp);
	ck_assert_ptr_nonnull(s = kp_src_open(fp, "many.csv", &err));
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(kp_src_next(s, &r, &err), 1);
	kp_src_close(s);
	fclose(fp);
	free(big);
	free(page);
}
END_TEST

static Suite *
source_suite(void)
{
	Suite *s = suite_create("source");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_source_cuda_sass_blocks_lines_insns);
	tcase_add_test(tc, test_source_sass_page_and_import_extra_column);
	tcase_add_test(tc, test_source_ptx_page_has_no_metrics);
	tcase_add_test(tc, test_source_raw_page_is_rejected);
	tcase_add_test(tc, test_source_missing_values_are_nan);
	tcase_add_test(tc, test_source_values_as_split_on_fixtures);
	tcase_add_test(tc, test_source_values_as_split_odd_cells);
	tcase_add_test(tc, test_source_values_as_split_one_byte_runs);
	tcase_add_test(tc, test_source_values_none_over_numbers);
	tcase_add_test(tc, test_source_header_order_and_twice_named_columns);
	tcase_add_test(tc, test_source_repeated_headers);
	tcase_add_test(tc, test_source_val_into);
	tcase_add_test(tc, test_sass_opcode_family_and_predicates);
	tcase_add_test(tc, test_ptx_opcode);
	tcase_add_test(tc, test_stall_reason_names);
	tcase_add_test(tc, test_sass_tensor_families_and_descriptions);
	tcase_add_test(tc, test_source_thread_same_rows_on_fixtures);
	tcase_add_test(tc, test_source_thread_batches_long_rows_and_error);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(source_suite)
