/* Unit tests for hotspots.c: aggregation, ranking, stall reasons, classes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_diag.h"
#include "kp_hotspots.h"
#include "source_evidence.h"

static struct kp_hotspots *
read_fixture(const char *rel, const struct kp_hs_opts *o)
{
	char path[1024];
	struct kp_err err;
	struct kp_hotspots *h;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", KP_FIXTURES, rel);
	fp = fopen(path, "rb");
	ck_assert_ptr_nonnull(fp);
	h = kp_hotspots_read(fp, path, o, &err);
	fclose(fp);
	ck_assert_msg(h != NULL, "%s", err.msg);
	return h;
}

static struct kp_hotspots *
read_string(const char *t, struct kp_err *err)
{
	FILE *fp = fmemopen((void *)t, strlen(t), "r");
	struct kp_hotspots *h = kp_hotspots_read(fp, "mem", NULL, err);

	fclose(fp);
	return h;
}

/* The evidence summed while ranking is kp_source_evidence_read's, page by
 * page (sass, cuda,sass, an import, ptx without metrics), and the ranking
 * is the one kp_hotspots_read gives. */
START_TEST(test_hotspots_evidence_in_the_same_pass)
{
	static const char *const pages[] = { "hgemm_v0/source_cuda_sass.csv",
		"hgemm_v0/source_sass.csv", "hgemm_v0/source_ptx.csv",
		"hgemm_v1/source_sass.csv", "stream_triad/source_cuda_sass.csv",
		"triton_hgemm/source_cuda_sass.csv",
		"hgemm_v0_basic_import/import_source_cuda_sass.csv", NULL };
	char path[1024];
	struct kp_err err;
	struct kp_hotspots *h, *h2;
	json_t *ev, *want, *seen = json_object();
	FILE *fp;
	size_t j;
	int i, n = 0;

	for (i = 0; pages[i] != NULL; i++) {
		snprintf(path, sizeof(path), "%s/h200/%s", KP_FIXTURES, pages[i]);
		if ((fp = fopen(path, "rb")) == NULL)
			continue;
		want = kp_source_evidence_read(fp, path, &err);
		ck_assert_msg(want != NULL, "%s", err.msg);
		rewind(fp);
		h = kp_hotspots_read_ev(fp, path, NULL, &ev, &err);
		ck_assert_msg(h != NULL, "%s", err.msg);
		ck_assert_msg(json_equal(ev, want), "%s", path);
		rewind(fp);
		ck_assert_ptr_nonnull(h2 = kp_hotspots_read(fp, path, NULL, &err));
		ck_assert_uint_eq(h->n, h2->n);
		for (j = 0; j < h->n; j++)
			ck_assert(h->rows[j].value == h2->rows[j].value ||
			    (isnan(h->rows[j].value) && isnan(h2->rows[j].value)));
		json_object_set(seen, json_string_value(json_object_get(want, "view")), want);
		kp_hotspots_free(h);
		kp_hotspots_free(h2);
		json_decref(ev);
		json_decref(want);
		fclose(fp);
		n++;
	}
	ck_assert_int_ge(n, 5);
	ck_assert_uint_eq(json_object_size(seen), 3);	/* sass, cuda,sass, ptx */
	json_decref(seen);
	/* not a source page: neither */
	fp = fmemopen((void *)"\"ID\",\"x\"\n\"1\",\"2\"\n", 16, "r");
	ev = json_true();
	ck_assert_ptr_null(kp_hotspots_read_ev(fp, "mem", NULL, &ev, &err));
	ck_assert_ptr_null(ev);
	fclose(fp);
}
END_TEST

/* Two launch copies of a cuda,sass block, each listing one instruction twice
 * under a line: each copy counts it once (a duplicate a copy), the copies
 * add up in the instruction and in the function's total. */
START_TEST(test_hotspots_copies_count_an_instruction_once)
{
	static const char hdr[] = "\"Line No\",\"Source\",\"Address\",\"Source\","
	    "\"Warp Stall Sampling (All Samples)\",\"stall_long_sb\"\n";
	char t[4096];
	struct kp_err err;
	struct kp_hotspots *h;
	size_t n = 0, j;
	int c, seen = 0;

	for (c = 0; c < 2; c++) {
		n += (size_t)snprintf(t + n, sizeof t - n, "\"File Path\",\"/a.cu\"\n"
		    "\"Function Name\",\"k(int)\"\n%s", hdr);
		n += (size_t)snprintf(t + n, sizeof t - n,
		    "\"7\",\"x = y;\",\"-\",\"-\",\"%d\",\"1\"\n"
		    "\"\",\"\",\"0x10\",\"LDG R1\",\"30\",\"20\"\n"
		    "\"\",\"\",\"0x20\",\"FFMA R2\",\"%d\",\"1\"\n"
		    "\"\",\"\",\"0x10\",\"LDG R1\",\"30\",\"20\"\n", 40 + c, 10 + c);
	}
	ck_assert_msg((h = read_string(t, &err)) != NULL, "%s", err.msg);
	ck_assert_uint_eq(h->copies, 2);
	ck_assert_uint_eq(h->duplicates, 2);	/* 0x10 twice in each copy */
	ck_assert(h->total == 60 + 21);		/* each instruction once a copy */
	for (j = 0; j < h->n; j++)
		if (h->rows[j].level == KP_HS_INSN) {
			ck_assert(h->rows[j].value == (strcmp(h->rows[j].address, "0x10") == 0 ?
			    60 : 21));
			seen++;
		}
	ck_assert_int_eq(seen, 2);
	kp_hotspots_free(h);
}
END_TEST

/*
 * Addresses of every length from 2 to 18 bytes, and pairs that differ only
 * in their last byte (at 8, 15 and 16 bytes, where the compare of two
 * words ends) side by side: three launch copies, the second with each two
 * neighbours swapped (where the first copy's layout guesses a row's
 * instruction, it guesses its neighbour): each address sums its own three
 * values.
 */
START_TEST(test_hotspots_addresses_of_every_length)
{
	static const char *const addr[] = { "0x", "0x1", "0x12", "0x123", "0x1234",
		"0x12345", "0x123456", "0x123457", "0x1234567", "0x12345678",
		"0x123456789", "0x123456789a", "0x123456789ab", "0x123456789abc",
		"0x123456789abcd", "0x123456789abce", "0x123456789abcde",
		"0x123456789abcdf", "0x123456789abcdef", "0x123456789abcdef0", NULL };
	static const char hdr[] = "\"Line No\",\"Source\",\"Address\",\"Source\","
	    "\"Warp Stall Sampling (All Samples)\",\"stall_long_sb\"\n";
	static char t[16384];
	struct kp_hs_opts o = { NULL, 0, 100 };	/* every instruction of the line */
	struct kp_err err;
	struct kp_hotspots *h;
	size_t n = 0, j, na = 0;
	int c, k, seen = 0;
	FILE *fp;

	while (addr[na] != NULL)
		na++;
	ck_assert_uint_eq(na % 2, 0);
	for (c = 0; c < 3; c++) {
		n += (size_t)snprintf(t + n, sizeof t - n, "\"File Path\",\"/a.cu\"\n"
		    "\"Function Name\",\"k(int)\"\n%s\"7\",\"x = y;\",\"-\",\"-\",\"1\",\"1\"\n",
		    hdr);
		for (j = 0; j < na; j++) {
			k = (int)(c == 1 ? j ^ 1 : j);
			n += (size_t)snprintf(t + n, sizeof t - n,
			    "\"\",\"\",\"%s\",\"LDG R1\",\"%d\",\"0\"\n", addr[k],
			    (k + 1) * (c == 0 ? 1 : c == 1 ? 100 : 10000));
		}
	}
	ck_assert(n < sizeof t);
	fp = fmemopen(t, n, "r");
	h = kp_hotspots_read(fp, "mem", &o, &err);
	fclose(fp);
	ck_assert_msg(h != NULL, "%s", err.msg);
	ck_assert_uint_eq(h->copies, 3);
	ck_assert_uint_eq(h->duplicates, 0);
	for (j = 0; j < h->n; j++) {
		if (h->rows[j].level != KP_HS_INSN)
			continue;
		for (k = 0; addr[k] != NULL && strcmp(addr[k], h->rows[j].address) != 0; k++)
			;
		ck_assert_msg(addr[k] != NULL, "%s", h->rows[j].address);
		ck_assert_msg(h->rows[j].value == 10101.0 * (k + 1), "%s: %g",
		    h->rows[j].address, h->rows[j].value);
		seen++;
	}
	ck_assert_int_eq(seen, (int)na);
	kp_hotspots_free(h);
}
END_TEST

/*
 * "-" is no value: summed over launch copies it leaves the other copy's
 * number, whichever copy comes first, in every column (eight of them: the
 * sums go four columns at a time where the CPU allows).
 */
START_TEST(test_hotspots_dash_leaves_the_other_copy)
{
	static const char hdr[] = "\"Line No\",\"Source\",\"Address\",\"Source\","
	    "\"Warp Stall Sampling (All Samples)\",\"Warp Stall Sampling (Not-issued Samples)\","
	    "\"stall_long_sb\",\"stall_math\",\"stall_wait\",\"stall_barrier\",\"stall_mio\","
	    "\"stall_lg\"\n";
	static const char *const cell[2][3] = { { "5", "-", "-" }, { "-", "3", "-" } };
	char t[8192];
	struct kp_err err;
	struct kp_hotspots *h;
	size_t n = 0, j;
	int c, k, r, seen = 0;

	for (c = 0; c < 2; c++) {
		n += (size_t)snprintf(t + n, sizeof t - n, "\"File Path\",\"/a.cu\"\n"
		    "\"Function Name\",\"k(int)\"\n%s\"7\",\"x = y;\",\"-\",\"-\"", hdr);
		for (k = 0; k < 8; k++)
			n += (size_t)snprintf(t + n, sizeof t - n, ",\"%d\"", 9 + c);
		for (r = 0; r < 3; r++) {
			n += (size_t)snprintf(t + n, sizeof t - n,
			    "\n\"\",\"\",\"0x%d0\",\"FFMA R%d\"", r + 1, r);
			for (k = 0; k < 8; k++)
				n += (size_t)snprintf(t + n, sizeof t - n, ",\"%s\"", cell[c][r]);
		}
		n += (size_t)snprintf(t + n, sizeof t - n, "\n");
	}
	ck_assert_msg((h = read_string(t, &err)) != NULL, "%s", err.msg);
	ck_assert_uint_eq(h->copies, 2);
	for (j = 0; j < h->n; j++) {
		const char *a = h->rows[j].address;

		if (h->rows[j].level != KP_HS_INSN)
			continue;
		seen++;
		ck_assert_msg(strcmp(a, "0x30") != 0, "0x30 has no samples: not a hotspot");
		ck_assert_msg(h->rows[j].value == (strcmp(a, "0x10") == 0 ? 5 : 3),
		    "%s: %g", a, h->rows[j].value);
	}
	ck_assert_int_eq(seen, 2);
	ck_assert_msg(h->total == 8, "total %g", h->total);
	kp_hotspots_free(h);
}
END_TEST

START_TEST(test_hotspots_hgemm_v0_inner_product_line_first)
{
	struct kp_hotspots *h = read_fixture("h200/hgemm_v0/source_cuda_sass.csv", NULL);
	const struct kp_hotspot *r = &h->rows[0];

	/* source_cuda_sass.csv line 137: "24","acc += __half2float(As[threadIdx.y][k]) *
	 * __half2float(Bs[k][threadIdx.x]);","-","-","124071" -- the largest line row of
	 * bench_gemm.cu; 20 of its 68 SASS rows are LDS (Shared(20) Load(20)). */
	ck_assert_int_eq(r->level, KP_HS_LINE);
	ck_assert_int_eq(r->rank, 1);
	ck_assert_str_eq(r->source_file, "/src/kp-capture/bench_gemm.cu");
	ck_assert_int_eq(r->line, 24);
	ck_assert(r->value == 124071);
	ck_assert_str_eq(r->sass_opcode, "LDS");
	ck_assert_str_eq(r->stall_reason, "mio_throttle");
	/* no shared conflicts: L1 Wavefronts Shared Excessive is 0 on that line */
	ck_assert_str_eq(r->bottleneck_class, "memory_bandwidth_bound");
	ck_assert_ptr_nonnull(strstr(r->evidence, "124071 of "));
	/* then at most 3 instruction rows of line 24, best first */
	ck_assert_int_eq(h->rows[1].level, KP_HS_INSN);
	ck_assert_int_eq(h->rows[1].line, 24);
	ck_assert_int_eq(h->rows[1].rank, 1);
	/* "0x7f37757a0340","LDS.U16 R28, [R20]": 21054 samples, 17853 of them stall_barrier */
	ck_assert_str_eq(h->rows[1].address, "0x7f37757a0340");
	ck_assert(h->rows[1].value == 21054);
	ck_assert_str_eq(h->rows[1].stall_reason, "barrier");
	ck_assert_str_eq(h->rows[1].bottleneck_class, "synchronization_bound");
	ck_assert_int_eq(h->rows[4].level, KP_HS_LINE);
	ck_assert_int_eq(h->rows[4].rank, 2);
	kp_hotspots_free(h);
}
END_TEST

START_TEST(test_hotspots_producer_on_same_line_is_named)
{
	struct kp_hs_opts o = { NULL, 2, 3 };
	struct kp_hotspots *h = read_fixture("h200/hgemm_v0/source_cuda_sass.csv", &o);
	const struct kp_hotspot *r = &h->rows[4];

	/* line 20 (As[...] = A[...]): its STS at 0x7f37757a0310 waits (long_sb) on the
	 * LDG at 0x7f37757a0280 of the same line */
	ck_assert_int_eq(r->line, 20);
	ck_assert_str_eq(r->stall_reason, "long_scoreboard");
	ck_assert_str_eq(r->bottleneck_class, "memory_latency_bound");
	ck_assert_ptr_nonnull(strstr(r->evidence, "waits on LDG at 0x7f37757a0280 on the same line"));
	ck_assert_uint_eq(h->n, 8);	/* 2 lines, 3 instructions each */
	kp_hotspots_free(h);
}
END_TEST

START_TEST(test_hotspots_stream_triad_sums_copies)
{
	struct kp_hotspots *h = read_fixture("h200/stream_triad/source_cuda_sass.csv", NULL);

	/* line 55 in the 3 copies (csv lines 97, 247, 397): 22077 + 22007 + 21999 */
	ck_assert_int_eq(h->rows[0].line, 55);
	ck_assert(h->rows[0].value == 66083);
	ck_assert_uint_eq(h->copies, 3);
	ck_assert_str_eq(h->rows[0].stall_reason, "long_scoreboard");
	kp_hotspots_free(h);
}
END_TEST

START_TEST(test_hotspots_sass_repeated_blocks_count_once)
{
	struct kp_hotspots *h = read_fixture("h200/stream_triad/source_sass.csv", NULL);

	/* 6 "Kernel Name" blocks, pairwise equal: 3 copies, 3 repeats */
	ck_assert_uint_eq(h->copies, 3);
	ck_assert_uint_ge(h->duplicates, 3);
	/* a sass page ranks address ranges, each with its instructions under it */
	ck_assert_int_eq(h->rows[0].level, KP_HS_RANGE);
	ck_assert_str_eq(h->rows[0].address, "0x7f3bd37a0150-0x7f3bd37a0280");
	ck_assert_int_eq(h->rows[0].line, 0);
	ck_assert_str_eq(h->rows[0].confidence, "low");
	ck_assert_str_eq(h->rows[0].sass_opcode, "FFMA");
	ck_assert_int_eq(h->rows[1].level, KP_HS_INSN);
	ck_assert_int_eq(h->rows[1].rank, 1);
	ck_assert_str_eq(h->rows[1].address, "0x7f3bd37a0230");
	kp_hotspots_free(h);
}
END_TEST

/*
 * A block is a repeat only when every value is: 13 values a row (three
 * 32-byte steps of the checksum's wide path and a tail), one block changed
 * in its last value, one with its first four values and the next four
 * swapped.
 */
START_TEST(test_hotspots_repeat_needs_every_value)
{
	static const int vals[4][13] = {
		{ 50, 1, 2, 3, 7, 8, 9, 4, 5, 6, 0, 11, 13 },
		{ 50, 1, 2, 3, 7, 8, 9, 4, 5, 6, 0, 11, 13 },
		{ 50, 1, 2, 3, 7, 8, 9, 4, 5, 6, 0, 11, 14 },
		{ 7, 8, 9, 4, 50, 1, 2, 3, 5, 6, 0, 11, 13 },
	};
	char t[8192];
	struct kp_err err;
	struct kp_hotspots *h;
	size_t n = 0;
	int b, j;

	for (b = 0; b < 4; b++) {
		n += (size_t)snprintf(t + n, sizeof t - n, "\"Kernel Name\",\"k(int)\"\n"
		    "\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\"");
		for (j = 1; j < 13; j++)
			n += (size_t)snprintf(t + n, sizeof t - n, ",\"m%d\"", j);
		n += (size_t)snprintf(t + n, sizeof t - n, "\n\"0x10\",\"FFMA R1, R2, R3, R4\"");
		for (j = 0; j < 13; j++)
			n += (size_t)snprintf(t + n, sizeof t - n, ",\"%d\"", vals[b][j]);
		n += (size_t)snprintf(t + n, sizeof t - n, "\n");
	}
	ck_assert_msg((h = read_string(t, &err)) != NULL, "%s", err.msg);
	ck_assert_uint_eq(h->copies, 3);
	ck_assert_uint_eq(h->duplicates, 1);
	ck_assert(h->total == 50 + 50 + 7);
	kp_hotspots_free(h);
}
END_TEST

START_TEST(test_hotspots_triton_rows_carry_py_lines)
{
	struct kp_hotspots *h = read_fixture("h200/triton_hgemm/source_cuda_sass.csv", NULL);
	size_t i;

	/* one block: "File Path","/src/kp-capture/bench_triton_hgemm.py" */
	for (i = 0; i < h->n; i++) {
		ck_assert_str_eq(h->rows[i].source_file, "/src/kp-capture/bench_triton_hgemm.py");
		ck_assert_int_gt(h->rows[i].line, 0);
		ck_assert_str_ne(h->rows[i].confidence, "best_effort");
		ck_assert_str_eq(h->rows[i].function, "hgemm_byzj_v0");
	}
	/* "18","for k in range(0, K, BK):" has 976 samples, the most of any line */
	ck_assert_int_eq(h->rows[0].line, 18);
	ck_assert(h->rows[0].value == 976);
	kp_hotspots_free(h);
}
END_TEST

START_TEST(test_hotspots_triton_without_py_line_is_best_effort)
{
	const char *t = "\"File Path\",\"/tmp/k.ttgir\"\n\"Function Name\",\"k\"\n"
	    "\"Line No\",\"Source\",\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\",\"stall_wait\"\n"
	    "\"7\",\"%0 = tt.load\",\"-\",\"-\",\"40\",\"40\"\n"
	    "\"\",\"\",\"0x10\",\"  FFMA R1, R2, R3, R4\",\"40\",\"40\"\n";
	struct kp_err err;
	struct kp_hotspots *h = read_string(t, &err);

	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h->rows[0].confidence, "best_effort");
	kp_hotspots_free(h);
}
END_TEST

START_TEST(test_hotspots_word_bar_in_source_is_not_an_opcode)
{
	/* the old Python tool matched the word "bar" in the source text as BAR */
	const char *t = "\"File Path\",\"/x/k.cu\"\n\"Function Name\",\"k()\"\n"
	    "\"Line No\",\"Source\",\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\",\"stall_barrier\",\"stall_math\"\n"
	    "\"3\",\"float bar = bar_scale * x; // bar\",\"-\",\"-\",\"100\",\"0\",\"90\"\n"
	    "\"\",\"\",\"0x10\",\"  FFMA R1, R2, R3, R4\",\"100\",\"0\",\"90\"\n";
	struct kp_err err;
	struct kp_hotspots *h = read_string(t, &err);

	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h->rows[0].sass_opcode, "FFMA");
	ck_assert_str_eq(h->rows[0].stall_reason, "math_pipe_throttle");
	ck_assert_str_eq(h->rows[0].bottleneck_class, "compute_pipeline_bound");
	ck_assert_str_eq(h->rows[0].confidence, "high");
	kp_hotspots_free(h);
}
END_TEST

START_TEST(test_hotspots_no_samples_is_unavailable)
{
	const char *t = "\"Kernel Name\",\"k\",\n\"Address\",\"Source\",\"Warp Stall Sampling (All Samples)\"\n"
	    "\"0x10\",\"  FFMA R1, R2, R3, R4\",\"0\"\n";
	struct kp_err err;
	struct kp_hotspots *h = read_string(t, &err);

	ck_assert_ptr_nonnull(h);
	ck_assert_uint_eq(h->n, 1);
	ck_assert_int_eq(h->rows[0].level, KP_HS_UNAVAILABLE);
	ck_assert_str_eq(h->rows[0].confidence, "none");
	ck_assert(isnan(h->rows[0].value));
	kp_hotspots_free(h);
}
END_TEST

START_TEST(test_hotspots_unknown_metric_is_usage_error)
{
	struct kp_hs_opts o = { "Access Operation", 20, 3 };
	char path[1024];
	struct kp_err err;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/h200/hgemm_v0/source_sass.csv", KP_FIXTURES);
	fp = fopen(path, "rb");
	ck_assert_ptr_null(kp_hotspots_read(fp, path, &o, &err));
	ck_assert_int_eq(err.status, KP_EXIT_USAGE);
	fclose(fp);
}
END_TEST

START_TEST(test_hotspot_classes)
{
	ck_assert_str_eq(kp_hotspot_class("LDS", "short_scoreboard", 1), "shared_memory_bank_conflict");
	ck_assert_str_eq(kp_hotspot_class("LDSM", "short_scoreboard", 0), "memory_latency_bound");
	ck_assert_str_eq(kp_hotspot_class("STS", "mio_throttle", 1), "shared_memory_bank_conflict");
	ck_assert_str_eq(kp_hotspot_class("UTMALDG", "long_scoreboard", 0), "memory_latency_bound");
	ck_assert_str_eq(kp_hotspot_class("LDG", "lg_throttle", 0), "memory_bandwidth_bound");
	ck_assert_str_eq(kp_hotspot_class("HGMMA", "wait", 0), "compute_pipeline_bound");
	ck_assert_str_eq(kp_hotspot_class("HMMA", "math_pipe_throttle", 0), "compute_pipeline_bound");
	ck_assert_str_eq(kp_hotspot_class("BAR", "", 0), "synchronization_bound");
	ck_assert_str_eq(kp_hotspot_class("FFMA", "barrier", 0), "synchronization_bound");
	ck_assert_str_eq(kp_hotspot_class("LDL", "long_scoreboard", 0), "register_spill");
	ck_assert_str_eq(kp_hotspot_class("STL", "", 0), "register_spill");
	ck_assert_str_eq(kp_hotspot_class("BSSY", "branch_resolving", 0), "divergence_bound");
	ck_assert_str_eq(kp_hotspot_class("MUFU", "math_pipe_throttle", 0), "compute_pipeline_bound");
	ck_assert_str_eq(kp_hotspot_class("IMAD", "wait", 0), "compute_pipeline_bound");
	ck_assert_str_eq(kp_hotspot_class("STG", "wait", 0), "");
	ck_assert_str_eq(kp_hotspot_class("FFMA", "no_instruction", 0), "latency_bound");
	ck_assert_str_eq(kp_hotspot_class("LDC", "imc_miss", 0), "latency_bound");
	ck_assert_str_eq(kp_hotspot_class("MUFU", "short_scoreboard", 0), "latency_bound");
	/* a consumer whose producer was not found may wait on a shared load */
	ck_assert_str_eq(kp_hotspot_class("FFMA", "short_scoreboard", 0), "");
	ck_assert_str_eq(kp_hotspot_class("FFMA", "dispatch_stall", 0), "");
	/* an atomic, or (the producer's op is passed) a CCTL or add waiting on
	 * one; shared atomics too, whose same-word replays look like conflicts;
	 * a fence's wait stays synchronization */
	ck_assert_str_eq(kp_hotspot_class("ATOMG", "long_scoreboard", 0), "atomic_contention");
	ck_assert_str_eq(kp_hotspot_class("RED", "lg_throttle", 0), "atomic_contention");
	ck_assert_str_eq(kp_hotspot_class("ATOMS", "short_scoreboard", 1), "atomic_contention");
	ck_assert_str_eq(kp_hotspot_class("ATOMG", "membar", 0), "synchronization_bound");
	ck_assert_str_eq(kp_hotspot_class("NANOSLEEP", "", 0), "synchronization_bound");
	ck_assert_str_eq(kp_hotspot_class("LDG", "sleeping", 0), "synchronization_bound");
}
END_TEST

START_TEST(test_hotspots_csv_quotes_fields)
{
	struct kp_hs_opts o = { NULL, 1, 0 };
	struct kp_hotspots *h = read_fixture("h200/hgemm_v0/source_cuda_sass.csv", &o);
	struct kp_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_int_eq(kp_hotspots_write_csv(fp, h, &err), 0);
	fclose(fp);
	ck_assert(strncmp(buf, "source_file,line,function,sass_opcode,ptx_opcode,metric,value,"
	    "stall_reason,bottleneck_class,confidence,evidence\n/src/kp-capture/bench_gemm.cu,24,"
	    "\"hgemm_byzj_v0(const __half *, const __half *, __half *, int, int, int)\",LDS,,", 179) == 0);
	free(buf);
	kp_hotspots_free(h);
}
END_TEST

/* A written CSV read back: quoted commas, quotes and newlines, CRLF, blank lines;
 * a short record is named by the line it begins on. */
START_TEST(test_hotspots_csv_reads_back_what_it_writes)
{
	char path[] = "/tmp/kp-check-hscsv-XXXXXX";
	const char *hdr = "source_file,line,function,sass_opcode,ptx_opcode,metric,value,"
	    "stall_reason,bottleneck_class,confidence,evidence";
	char text[1024];
	struct kp_err err;
	json_t *rows;
	FILE *fp;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(fp = fdopen(fd, "w"));
	fprintf(fp, "%s\r\n\na.cu,7,\"f(int, int)\",LDG,,m,12,long_scoreboard,x,high,"
	    "\"say \"\"two\"\"\nlines\"\r\n\nb.cu,8,g,,,m,1.5,,,low,e\n", hdr);
	fclose(fp);
	ck_assert_msg((rows = kp_hs_csv_load(path, 1, &err)) != NULL, "%s", err.msg);
	ck_assert_uint_eq(json_array_size(rows), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 0), "function")),
	    "f(int, int)");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 0), "evidence")),
	    "say \"two\"\nlines");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(rows, 0), "line")), 7);
	ck_assert(json_real_value(json_object_get(json_array_get(rows, 1), "value")) == 1.5);
	json_decref(rows);
	ck_assert_ptr_nonnull(rows = kp_hs_csv_load(path, 0, &err));
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 1), "value")),
	    "1.5");
	json_decref(rows);

	snprintf(text, sizeof text, "%s\na.cu,7,\"two\nlines\",,,m,1,,,,e\nb.cu,8,g\n", hdr);
	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
	ck_assert_ptr_null(kp_hs_csv_load(path, 0, &err));
	ck_assert_int_eq(err.status, KP_EXIT_DATA);
	ck_assert_str_eq(strstr(err.msg, ":4:"), ":4: 3 fields, the header has 11");

	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	fputs("source_file,line\n", fp);
	fclose(fp);
	ck_assert_ptr_null(kp_hs_csv_load(path, 0, &err));
	ck_assert_str_eq(strstr(err.msg, ":1:"), ":1: not a source_hotspots.csv header");
	unlink(path);
}
END_TEST

/* zoo/gemm_bf16/source_sass.csv: "0x7f061b7a4000","HGMMA.64x64x16.F32.BF16 ...": 10586
 * samples, stall_mio 608, stall_wait 89, selected 63, not_selected 18 (9808 in no
 * stall column); L1 Conflicts Shared N-Way 8 with L1 Wavefronts Shared 9093504 equal
 * to L1 Wavefronts Shared Ideal: the access width, no conflict. */
START_TEST(test_hotspots_hgemma_honest_rows)
{
	struct kp_hotspots *h = read_fixture("h200/zoo/gemm_bf16/source_sass.csv", NULL);
	const struct kp_hotspot *r = NULL;
	size_t i;

	ck_assert_int_eq(h->rows[0].level, KP_HS_RANGE);
	ck_assert_str_eq(h->rows[0].sass_opcode, "HGMMA");
	ck_assert_str_eq(h->rows[0].bottleneck_class, "compute_pipeline_bound");
	ck_assert_ptr_nonnull(strstr(h->rows[0].evidence, "tensor-core work (HGMMA: "));
	for (i = 0; i < h->n; i++) {
		ck_assert_msg(strstr(h->rows[i].evidence, "bank conflict") == NULL, "row %zu: %s",
		    i, h->rows[i].evidence);
		if (strcmp(h->rows[i].address, "0x7f061b7a4000") == 0)
			r = &h->rows[i];
	}
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->stall_reason, "mio_throttle");
	ck_assert(r->samples == 10586 && r->stall_samples == 608 && r->unattributed == 9808);
	ck_assert_ptr_nonnull(strstr(r->evidence, "stall mio_throttle 608 of 10586 samples (5.7%)"));
	ck_assert_ptr_nonnull(strstr(r->evidence, "unattributed 9808 of 10586 samples (92.7%"));
	/* 6% of the stalled samples do not decide the class; the tensor op does */
	ck_assert_str_eq(r->bottleneck_class, "compute_pipeline_bound");
	kp_hotspots_free(h);
}
END_TEST

/* Every named stall reason carries its share, on every recorded library page. */
START_TEST(test_hotspots_named_reason_has_share)
{
	static const char *const pages[] = { "h200/zoo/gemm_bf16/source_sass.csv",
		"h200/zoo/conv/source_sass.csv", "h200/zoo/layernorm/source_sass.csv",
		"h200/hgemm_v0/source_cuda_sass.csv", "h200/stream_triad/source_sass.csv" };
	size_t p, i;

	for (p = 0; p < sizeof(pages) / sizeof(pages[0]); p++) {
		struct kp_hotspots *h = read_fixture(pages[p], NULL);

		for (i = 0; i < h->n; i++) {
			const struct kp_hotspot *r = &h->rows[i];
			char want[64];

			if (r->stall_reason[0] == '\0')
				continue;
			snprintf(want, sizeof(want), "stall %s %.0f of %.0f samples (", r->stall_reason,
			    r->stall_samples, r->samples);
			ck_assert_msg(strstr(r->evidence, want) != NULL, "%s row %zu: %s", pages[p], i,
			    r->evidence);
			if (r->unattributed > 0)
				ck_assert_ptr_nonnull(strstr(r->evidence, "unattributed "));
		}
		kp_hotspots_free(h);
	}
}
END_TEST

START_TEST(test_hotspots_conflict_only_above_ideal)
{
	const char *head = "\"Kernel Name\",\"k\",\n\"Address\",\"Source\",\"Warp Stall Sampling "
	    "(All Samples)\",\"L1 Conflicts Shared N-Way\",\"L1 Wavefronts Shared\",\"L1 Wavefronts "
	    "Shared Ideal\",\"stall_short_sb\"\n";
	char t[1024];
	struct kp_err err;
	struct kp_hotspots *h;

	/* 8-way, wavefronts equal to the ideal: no conflict */
	snprintf(t, sizeof(t), "%s\"0x10\",\"  LDS R1, [R2]\",\"100\",\"8\",\"64\",\"64\",\"90\"\n",
	    head);
	h = read_string(t, &err);
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h->rows[0].bottleneck_class, "memory_latency_bound");
	ck_assert_ptr_null(strstr(h->rows[0].evidence, "conflict"));
	kp_hotspots_free(h);
	/* wavefronts twice the ideal: 64 above it */
	snprintf(t, sizeof(t), "%s\"0x10\",\"  LDS R1, [R2]\",\"100\",\"2\",\"128\",\"64\",\"90\"\n",
	    head);
	h = read_string(t, &err);
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h->rows[0].bottleneck_class, "shared_memory_bank_conflict");
	ck_assert_ptr_nonnull(strstr(h->rows[0].evidence,
	    "shared bank conflicts: 64 wavefronts above the ideal"));
	kp_hotspots_free(h);
}
END_TEST

/* ncu's cuda,sass page of a kernel without lineinfo is its warning line alone. */
START_TEST(test_hotspots_no_lineinfo_page_is_nosource)
{
	char path[1024];
	struct kp_err err;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/h200/zoo/gemm_bf16/source_cuda_sass.csv", KP_FIXTURES);
	fp = fopen(path, "rb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_null(kp_hotspots_read(fp, path, NULL, &err));
	fclose(fp);
	ck_assert_int_eq(err.status, KP_EXIT_NOSOURCE);
	ck_assert_ptr_nonnull(strstr(err.msg, "no lineinfo for "
	    "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT"));
	ck_assert_ptr_nonnull(strstr(err.msg, "-lineinfo"));
	ck_assert_ptr_nonnull(strstr(err.msg, "--print-source sass"));
}
END_TEST

static Suite *
hotspots_suite(void)
{
	Suite *s = suite_create("hotspots");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_hotspots_hgemm_v0_inner_product_line_first);
	tcase_add_test(tc, test_hotspots_evidence_in_the_same_pass);
	tcase_add_test(tc, test_hotspots_copies_count_an_instruction_once);
	tcase_add_test(tc, test_hotspots_addresses_of_every_length);
	tcase_add_test(tc, test_hotspots_dash_leaves_the_other_copy);
	tcase_add_test(tc, test_hotspots_producer_on_same_line_is_named);
	tcase_add_test(tc, test_hotspots_stream_triad_sums_copies);
	tcase_add_test(tc, test_hotspots_sass_repeated_blocks_count_once);
	tcase_add_test(tc, test_hotspots_repeat_needs_every_value);
	tcase_add_test(tc, test_hotspots_triton_rows_carry_py_lines);
	tcase_add_test(tc, test_hotspots_triton_without_py_line_is_best_effort);
	tcase_add_test(tc, test_hotspots_word_bar_in_source_is_not_an_opcode);
	tcase_add_test(tc, test_hotspots_no_samples_is_unavailable);
	tcase_add_test(tc, test_hotspots_unknown_metric_is_usage_error);
	tcase_add_test(tc, test_hotspot_classes);
	tcase_add_test(tc, test_hotspots_csv_quotes_fields);
	tcase_add_test(tc, test_hotspots_csv_reads_back_what_it_writes);
	tcase_add_test(tc, test_hotspots_hgemma_honest_rows);
	tcase_add_test(tc, test_hotspots_named_reason_has_share);
	tcase_add_test(tc, test_hotspots_conflict_only_above_ideal);
	tcase_add_test(tc, test_hotspots_no_lineinfo_page_is_nosource);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(hotspots_suite)
