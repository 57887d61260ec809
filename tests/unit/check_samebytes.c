/*
 * The merge into metrics_raw.csv, kp-extract's metrics_extracted.jsonl and
 * metrics_all.json keep their bytes: FNV-1a 64 of what the jansson-held merge and the 1,024-launch sample
 * wrote (main before the scale work, b94de07^) on real captures: the seven
 * hgemm_v0 stages; torch_mix with itself in reverse order and the discovery
 * page (launches in other orders, kernels missing from a stage).  Not timed:
 * tests/bench/run.sh times them.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_collect.h"
#include "kp_diag.h"
#include "kp_metrics.h"
#include "kp_strmap.h"

#define H KP_FIXTURES "/h200/hgemm_v0/"
#define T KP_FIXTURES "/h200/torch_mix/"

static const char *const stages7[] = { H "basic_raw.csv", H "speed_of_light_raw.csv",
	H "memory_raw.csv", H "compute_raw.csv", H "occupancy_raw.csv", H "roofline_raw.csv",
	H "full_raw.csv" };
static const char *const names7[] = { "s1", "s2", "s3", "s4", "s5", "s6", "s7" };

static uint64_t
file_hash(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char buf[65536];
	uint64_t h = KP_FNV1A_INIT;
	size_t n;

	ck_assert_ptr_nonnull(fp);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		h = kp_fnv1a(buf, n, h);
	fclose(fp);
	return h;
}

static void
same(const char *path, uint64_t want)
{
	uint64_t got = file_hash(path);

	ck_assert_msg(got == want, "%s: FNV-1a 0x%016llxULL, was 0x%016llxULL", path,
	    (unsigned long long)got, (unsigned long long)want);
}

/* torch_mix's rows in reverse order (noise, header and units first). */
static void
reversed(const char *out)
{
	FILE *in = fopen(T "basic_raw_200.csv", "r"), *fp = fopen(out, "w");
	char *line[512], buf[65536];
	size_t n = 0, i, hdr = 0;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(fp);
	while (fgets(buf, sizeof(buf), in) != NULL) {
		if (buf[0] != '"') {
			fputs(buf, fp);
			continue;
		}
		if (hdr < 2) {
			line[n++] = strdup(buf);
			hdr++;
			continue;
		}
		ck_assert_uint_lt(n, 512);
		line[n++] = strdup(buf);
	}
	fputs(line[0], fp);
	fputs(line[1], fp);
	for (i = n; i-- > 2;)
		fputs(line[i], fp);
	for (i = 0; i < n; i++)
		free(line[i]);
	fclose(in);
	fclose(fp);
}

START_TEST(test_samebytes_merge)
{
	struct kp_err err;
	char out[] = "/tmp/check_samebytes.XXXXXX", rev[] = "/tmp/check_samebytes_r.XXXXXX";
	const char *paths[3] = { T "basic_raw_200.csv", rev, T "discovery_raw.csv" };
	const char *names[3] = { "a", "b", "c" };

	close(mkstemp(out));
	close(mkstemp(rev));
	ck_assert_msg(kp_merge_raw(stages7, names7, 7, out, &err) == 0, "%s", err.msg);
	same(out, 0x4303676b74a9ae2aULL);
	reversed(rev);
	ck_assert_msg(kp_merge_raw(paths, names, 3, out, &err) == 0, "%s", err.msg);
	same(out, 0x158d01721d30dde3ULL);
	unlink(out);
	unlink(rev);
}
END_TEST

static void
extract_same(const char *const *paths, size_t n, const uint64_t want[3])
{
	struct kp_err err;
	char dir[] = "/tmp/check_samebytes_d.XXXXXX", p[256];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_msg(kp_extract_to_dir(paths, n, dir, NULL, 0, NULL, NULL, &err) == 0, "%s",
	    err.msg);
	/* metrics_summary.json's short maps follow the rules' key metrics: not here */
	snprintf(p, sizeof(p), "%s/metrics_summary.json", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/metrics_extracted.jsonl", dir);
	same(p, want[1]);
	unlink(p);
	snprintf(p, sizeof(p), "%s/metrics_all.json", dir);
	same(p, want[2]);
	unlink(p);
	rmdir(dir);
}

START_TEST(test_samebytes_extract)
{
	static const uint64_t torch[3] = { 0x33a210de6b4c43bfULL, 0x67f1e0fe9b51663cULL,
		0xa89f375dfc72e3bfULL };
	static const uint64_t hgemm[3] = { 0x60496c116d9373abULL, 0xaa777db45e47f6f1ULL,
		0x19db6c6d5abbf709ULL };
	/* relative paths: the outputs name their inputs */
	static const char *const t[1] = { "torch_mix/basic_raw_200.csv" };
	static const char *const h[7] = { "hgemm_v0/basic_raw.csv",
		"hgemm_v0/speed_of_light_raw.csv", "hgemm_v0/memory_raw.csv",
		"hgemm_v0/compute_raw.csv", "hgemm_v0/occupancy_raw.csv",
		"hgemm_v0/roofline_raw.csv", "hgemm_v0/full_raw.csv" };
	char cwd[4096];

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(KP_FIXTURES "/h200"), 0);
	extract_same(t, 1, torch);
	extract_same(h, 7, hgemm);
	ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

static Suite *
samebytes_suite(void)
{
	Suite *s = suite_create("samebytes");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_samebytes_merge);
	tcase_add_test(tc, test_samebytes_extract);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(samebytes_suite)
