/*
 * Unit tests for metrics.c: every summary value of every real raw or details
 * capture equals the value in the CSV.  The expected values are computed here
 * independently of metrics.c: the cells are found by column or by (section,
 * name) with a lookup of this file's own, parsed with strtod after removing
 * the thousands separators, scaled with a tiny unit table of this file's own,
 * and the median over a kernel's launches is taken here.
 */
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_metrics.h"
#include "kp_summary.h"
#include "metrics_int.h"

/* key -> its sources, in order (raw metric names, then "Section/Name"). */
static const struct {
	const char *key;
	int sum;
	const char *src[4];
} keys[] = {
	{ "duration_ns", 0, { "gpu__time_duration.sum",
	    "GPU Speed Of Light Throughput/Duration" } },
	{ "sm_throughput_pct", 0, { "sm__throughput.avg.pct_of_peak_sustained_elapsed",
	    "GPU Speed Of Light Throughput/Compute (SM) Throughput" } },
	{ "memory_throughput_pct", 0, {
	    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
	    "GPU Speed Of Light Throughput/Memory Throughput" } },
	{ "dram_throughput_pct", 0, { "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
	    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
	    "GPU Speed Of Light Throughput/DRAM Throughput" } },
	{ "l1tex_throughput_pct", 0, { "l1tex__throughput.avg.pct_of_peak_sustained_active",
	    "GPU Speed Of Light Throughput/L1/TEX Cache Throughput" } },
	{ "l2_throughput_pct", 0, { "lts__throughput.avg.pct_of_peak_sustained_elapsed",
	    "GPU Speed Of Light Throughput/L2 Cache Throughput" } },
	{ "achieved_occupancy_pct", 0, { "sm__warps_active.avg.pct_of_peak_sustained_active",
	    "Occupancy/Achieved Occupancy" } },
	{ "theoretical_occupancy_pct", 0, { "sm__maximum_warps_per_active_cycle_pct",
	    "Occupancy/Theoretical Occupancy" } },
	{ "registers_per_thread", 0, { "launch__registers_per_thread",
	    "Launch Statistics/Registers Per Thread" } },
	{ "block_size", 0, { "launch__block_size", "Launch Statistics/Block Size" } },
	{ "grid_size", 0, { "launch__grid_size", "Launch Statistics/Grid Size" } },
	{ "waves_per_sm", 0, { "launch__waves_per_multiprocessor",
	    "Launch Statistics/Waves Per SM" } },
	{ "ipc", 0, { "sm__inst_executed.avg.per_cycle_active",
	    "Compute Workload Analysis/Executed Ipc Active" } },
	{ "shared_bank_conflicts", 1, {
	    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
	    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum" } },
	{ "l1tex_hit_rate_pct", 0, { "l1tex__t_sector_hit_rate.pct",
	    "Memory Workload Analysis/L1/TEX Hit Rate" } },
	{ "l2_hit_rate_pct", 0, { "lts__t_sector_hit_rate.pct",
	    "Memory Workload Analysis/L2 Hit Rate" } },
	{ "tensor_pipe_pct", 0, {
	    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active" } },
	{ "local_spill_requests", 1, { "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
	    "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum" } },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))
#define MAXL 512
#define MAXCELLS 96

/* One launch as the test reads it: only the cells the summary may use. */
struct tl {
	char kernel[8192];
	long id;
	int ncell;
	char *name[MAXCELLS];
	double val[MAXCELLS];
};

static double
tscale(const char *unit)
{
	if (strcmp(unit, "ns") == 0)
		return 1;
	if (strcmp(unit, "us") == 0 || strcmp(unit, "usecond") == 0)
		return 1e3;
	if (strcmp(unit, "ms") == 0 || strcmp(unit, "msecond") == 0)
		return 1e6;
	if (strcmp(unit, "s") == 0 || strcmp(unit, "second") == 0)
		return 1e9;
	if (strcmp(unit, "nsecond") == 0)
		return 1;
	/* everything else the summary uses is %, a count or a ratio */
	return 1;
}

static int
tnum(const char *s, double *v)
{
	char buf[128], *e;
	size_t n = 0;

	if (*s == '\0' || strcmp(s, "n/a") == 0 || strcmp(s, "-") == 0)
		return -1;
	for (; *s && n < sizeof(buf) - 1; s++)
		if (*s != ',')
			buf[n++] = *s;
	buf[n] = '\0';
	*v = strtod(buf, &e);
	return *e == '\0' ? 0 : -1;
}

static int
wanted(const char *name)
{
	size_t i, j;

	if (strncmp(name, "smsp__average_warps_issue_stalled_", 34) == 0 &&
	    strstr(name, "_per_issue_active.ratio") != NULL)
		return 1;
	for (i = 0; i < NKEYS; i++)
		for (j = 0; j < 4 && keys[i].src[j]; j++)
			if (strcmp(keys[i].src[j], name) == 0)
				return 1;
	return 0;
}

static void
tl_put(struct tl *l, const char *name, const char *cell, const char *unit)
{
	double v;

	if (!wanted(name) || tnum(cell, &v) < 0)
		return;
	ck_assert_int_lt(l->ncell, MAXCELLS);
	l->name[l->ncell] = strdup(name);
	l->val[l->ncell++] = v * tscale(unit);
}

/* Read a page independently: launches in *out, returns their number. */
static int
tread(const char *path, struct tl *out)
{
	struct kp_err err;
	struct kp_csv *c = kp_csv_open_path(path, &err);
	char **hdr = NULL, **unit = NULL;
	size_t nh = 0, i;
	int n = 0, details = 0, r;
	long iname = -1, isec = -1, imn = -1, imu = -1, imv = -1;

	ck_assert_ptr_nonnull(c);
	while ((r = kp_csv_next(c, &err)) == 1) {
		size_t nf = kp_csv_nfields(c);
		const char *id = kp_csv_field(c, 0)->s;

		if (hdr == NULL) {
			nh = nf;
			hdr = calloc(nh, sizeof(*hdr));
			for (i = 0; i < nh; i++) {
				const char *h = kp_csv_field(c, i)->s;

				hdr[i] = strdup(h);
				if (strcmp(h, "Kernel Name") == 0)
					iname = (long)i;
				if (strcmp(h, "Section Name") == 0)
					isec = (long)i, details = 1;
				if (strcmp(h, "Metric Name") == 0)
					imn = (long)i;
				if (strcmp(h, "Metric Unit") == 0)
					imu = (long)i;
				if (strcmp(h, "Metric Value") == 0)
					imv = (long)i;
			}
			continue;
		}
		if (!details && unit == NULL) {	/* the units row */
			unit = calloc(nh, sizeof(*unit));
			for (i = 0; i < nh; i++)
				unit[i] = strdup(kp_csv_field(c, i)->s);
			continue;
		}
		if (details && n > 0 && out[n - 1].id == atol(id)) {
			struct tl *l = &out[n - 1];
			char name[512];

			if ((long)nf <= imv)
				continue;	/* a rule row */
			if (strcmp(kp_csv_field(c, (size_t)isec)->s,
			    "Command line profiler metrics") == 0)
				snprintf(name, sizeof(name), "%s", kp_csv_field(c, (size_t)imn)->s);
			else
				snprintf(name, sizeof(name), "%s/%s", kp_csv_field(c, (size_t)isec)->s,
				    kp_csv_field(c, (size_t)imn)->s);
			tl_put(l, name, kp_csv_field(c, (size_t)imv)->s,
			    kp_csv_field(c, (size_t)imu)->s);
			continue;
		}
		ck_assert_int_lt(n, MAXL);
		memset(&out[n], 0, sizeof(out[n]));
		out[n].id = atol(id);
		snprintf(out[n].kernel, sizeof(out[n].kernel), "%s",
		    kp_csv_field(c, (size_t)iname)->s);
		if (details) {
			n++;
			/* the first row of a launch holds a metric too: reread it */
			if ((long)nf > imv) {
				char name[512];

				if (strcmp(kp_csv_field(c, (size_t)isec)->s,
				    "Command line profiler metrics") == 0)
					snprintf(name, sizeof(name), "%s",
					    kp_csv_field(c, (size_t)imn)->s);
				else
					snprintf(name, sizeof(name), "%s/%s",
					    kp_csv_field(c, (size_t)isec)->s,
					    kp_csv_field(c, (size_t)imn)->s);
				tl_put(&out[n - 1], name, kp_csv_field(c, (size_t)imv)->s,
				    kp_csv_field(c, (size_t)imu)->s);
			}
			continue;
		}
		for (i = 0; i < nh && i < nf; i++)
			tl_put(&out[n], hdr[i], kp_csv_field(c, i)->s, unit[i]);
		n++;
	}
	ck_assert_int_eq(r, 0);
	for (i = 0; i < nh; i++) {
		free(hdr[i]);
		if (unit)
			free(unit[i]);
	}
	free(hdr);
	free(unit);
	kp_csv_close(c);
	return n;
}

static void
tl_free(struct tl *l, int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < l[i].ncell; j++)
			free(l[i].name[j]);
}

static int
tl_get(const struct tl *l, const char *name, double *v)
{
	int j;

	for (j = 0; j < l->ncell; j++)
		if (strcmp(l->name[j], name) == 0) {
			*v = l->val[j];
			return 0;
		}
	return -1;
}

/* The value of a summary key in one launch, by the first source present. */
static int
tkey(const struct tl *l, size_t k, double *v)
{
	size_t j;
	int have = 0;
	double x;

	*v = 0;
	for (j = 0; j < 4 && keys[k].src[j]; j++) {
		if (tl_get(l, keys[k].src[j], &x) < 0)
			continue;
		if (!keys[k].sum) {
			*v = x;
			return 0;
		}
		*v += x;
		have = 1;
	}
	return have ? 0 : -1;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
tmedian(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmpd);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
close_enough(const char *file, const char *what, double got, double want)
{
	ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want) + 1e-12,
	    "%s: %s: got %.17g, the CSV says %.17g", file, what, got, want);
}

/* Compare one kernel's summary with the launches read independently. */
static void
check_kernel(const char *file, json_t *k, struct tl *l, int n)
{
	const char *name = json_string_value(json_object_get(k, "name"));
	json_t *sum = json_object_get(k, "summary");
	double v[MAXL], got, lo, hi;
	int i, m, nl = 0, exact;
	size_t kk;

	for (i = 0; i < n; i++)
		nl += strcmp(l[i].kernel, name) == 0;
	ck_assert_msg(nl > 0, "%s: kernel %s not in the CSV", file, name);
	ck_assert_int_eq(json_integer_value(json_object_get(k, "launches")), nl);
	/* past the sample's size (64 launches) a median is one of the sample's:
	 * within the launches' range */
	exact = strcmp(json_string_value(json_object_get(k, "median")), "exact") == 0;
	ck_assert_int_eq(exact, nl <= 64);
	for (kk = 0; kk < NKEYS; kk++) {
		for (i = m = 0; i < n; i++)
			if (strcmp(l[i].kernel, name) == 0 && tkey(&l[i], kk, &v[m]) == 0)
				m++;
		if (m == 0) {
			ck_assert_msg(json_object_get(sum, keys[kk].key) == NULL,
			    "%s: %s present but no source in the CSV", file, keys[kk].key);
			continue;
		}
		ck_assert_msg(kp_summary_value(k, keys[kk].key, &got) == 0, "%s: %s absent",
		    file, keys[kk].key);
		if (exact) {
			close_enough(file, keys[kk].key, got, tmedian(v, m));
			continue;
		}
		tmedian(v, m);
		lo = v[0];
		hi = v[m - 1];
		ck_assert_msg(got >= lo && got <= hi, "%s: %s: %g outside [%g, %g]", file,
		    keys[kk].key, got, lo, hi);
	}
	/* stalls: every reason of the CSV, none more */
	{
		json_t *st = json_object_get(sum, "stalls"), *x;
		const char *reason;
		size_t nst = 0;

		json_object_foreach(st, reason, x) {
			char metric[256];

			snprintf(metric, sizeof(metric),
			    "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio", reason);
			for (i = m = 0; i < n; i++)
				if (strcmp(l[i].kernel, name) == 0 && tl_get(&l[i], metric, &v[m]) == 0)
					m++;
			ck_assert_msg(m > 0, "%s: stall %s not in the CSV", file, reason);
			if (exact)
				close_enough(file, reason, json_number_value(x), tmedian(v, m));
			nst++;
		}
		for (i = 0; i < n; i++) {
			size_t c = 0;
			int j;

			if (strcmp(l[i].kernel, name) != 0)
				continue;
			for (j = 0; j < l[i].ncell; j++)
				c += strncmp(l[i].name[j], "smsp__average", 13) == 0;
			ck_assert_msg(c <= nst, "%s: %zu stall metrics, summary has %zu", file, c,
			    nst);
		}
	}
}

static void
check_file(const char *path)
{
	static struct tl l[MAXL];
	struct kp_err err;
	json_t *s, *k, *launches = NULL;
	const char *paths[1] = { path };
	int n = tread(path, l);
	size_t i;

	s = kp_extract_files(paths, 1, 0, &launches, &err);
	ck_assert_msg(s != NULL, "%s: %s", path, err.msg);
	ck_assert_int_eq(json_array_size(launches), n);
	json_array_foreach(json_object_get(s, "kernels"), i, k)
		check_kernel(path, k, l, n);
	tl_free(l, n);
	json_decref(launches);
	json_decref(s);
}

static int
is_source_or_other(const char *p)
{
	return strstr(p, "source") != NULL || strstr(p, "session") != NULL ||
	    strstr(p, "summary") != NULL;
}

/* Every raw/details capture of tests/fixtures/h200. */
START_TEST(test_metrics_every_capture_matches_csv)
{
	static const char *const pats[] = { "/h200/*/*_raw*.csv", "/h200/*/*_details*.csv",
		"/h200/*/*_raw_*.log", "/h200/*/basic_raw_200.csv" };
	glob_t g;
	size_t i, p, done = 0;

	for (p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		char pat[4096];

		snprintf(pat, sizeof(pat), "%s%s", KP_FIXTURES, pats[p]);
		ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
		for (i = 0; i < g.gl_pathc; i++) {
			if (is_source_or_other(g.gl_pathv[i]))
				continue;
			check_file(g.gl_pathv[i]);
			done++;
		}
		globfree(&g);
	}
	/* 4 workloads x (7 stages x 2 pages + import pair + 2 baseunits) + 3
	 * discovery + torch_mix basic_raw_200 (matched twice by the patterns) */
	ck_assert_uint_ge(done, 4 * 18 + 3 + 1);
}
END_TEST

static json_t *
extract1(const char *rel, json_t **launches)
{
	struct kp_err err;
	char path[4096];
	const char *paths[1] = { path };
	json_t *s;

	snprintf(path, sizeof(path), "%s/h200/%s", KP_FIXTURES, rel);
	s = kp_extract_files(paths, 1, 0, launches, &err);
	ck_assert_msg(s != NULL, "%s", err.msg);
	return s;
}

/* The bar, values read off hgemm_v0/basic_raw.csv by hand. */
START_TEST(test_metrics_hgemm_v0_basic_raw_bar)
{
	json_t *s = extract1("hgemm_v0/basic_raw.csv", NULL), *k = kp_summary_primary(s);
	double v;

	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(json_string_value(json_object_get(k, "function")), "hgemm_byzj_v0");
	ck_assert_int_eq(kp_summary_value(k, "block_size", &v), 0);
	ck_assert_double_eq(v, 256);	/* launch__block_size "256" */
	ck_assert_int_eq(kp_summary_value(k, "registers_per_thread", &v), 0);
	ck_assert_double_eq(v, 32);	/* launch__registers_per_thread "32" */
	ck_assert_int_eq(kp_summary_value(k, "sm_throughput_pct", &v), 0);
	ck_assert_double_eq_tol(v, 80.74, 1e-9);	/* sm__throughput.avg.pct... "80.74" */
	ck_assert_int_eq(kp_summary_value(k, "duration_ns", &v), 0);
	ck_assert_double_eq(v, 1918432);	/* gpu__time_duration.sum "1,918,432" ns */
	/* --set basic has no sm__inst_executed.avg.per_cycle_active: absent, not 0 */
	ck_assert_int_eq(kp_summary_value(k, "ipc", &v), -1);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(k, "block"), 0)), 16);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(k, "grid"), 0)), 128);
	ck_assert_str_eq(json_string_value(json_object_get(k, "device")), "NVIDIA H200");
	ck_assert_str_eq(json_string_value(json_object_get(k, "cc")), "9.0");
	ck_assert_str_eq(json_string_value(json_object_get(k, "median")), "exact");
	json_decref(s);

	/* full_raw has the IPC: sm__inst_executed.avg.per_cycle_active "3.08" */
	s = extract1("hgemm_v0/full_raw.csv", NULL);
	ck_assert_int_eq(kp_summary_value(kp_summary_primary(s), "ipc", &v), 0);
	ck_assert_double_eq_tol(v, 3.08, 1e-9);
	ck_assert_int_eq(kp_summary_value(kp_summary_primary(s), "stalls.long_scoreboard", &v), 0);
	ck_assert_double_eq_tol(v, 3.35, 1e-9);
	/* a full metric name through "metrics", in base units */
	ck_assert_int_eq(kp_summary_value(kp_summary_primary(s),
	    "dram__cycles_elapsed.avg.per_second", &v), 0);
	ck_assert_double_eq_tol(v, 3.2e9, 0.01e9);
	json_decref(s);
}
END_TEST

/* stream_triad/full_raw.csv: 3 launches, durations 187,520 / 187,776 /
 * 187,872 ns (gpu__time_duration.sum of IDs 0, 1, 2). */
START_TEST(test_metrics_stream_triad_three_launches)
{
	json_t *launches, *s = extract1("stream_triad/full_raw.csv", &launches);
	json_t *k = kp_summary_primary(s), *sp;
	double v;

	ck_assert_int_eq(json_integer_value(json_object_get(k, "launches")), 3);
	ck_assert_int_eq(json_array_size(json_object_get(k, "ids")), 3);
	ck_assert_int_eq(json_array_size(launches), 3);
	ck_assert_int_eq(kp_summary_value(k, "duration_ns", &v), 0);
	ck_assert_double_eq(v, 187776);
	sp = json_object_get(json_object_get(k, "spread"), "duration_ns");
	ck_assert_double_eq(json_number_value(json_object_get(sp, "min")), 187520);
	ck_assert_double_eq(json_number_value(json_object_get(sp, "max")), 187872);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(launches, 2),
	    "kind")), "launch");
	json_decref(launches);
	json_decref(s);
}
END_TEST

/* torch_mix: the primary is the kernel with the largest total duration,
 * summed here from the CSV independently. */
START_TEST(test_metrics_torch_mix_primary)
{
	static struct tl l[MAXL];
	char path[4096];
	json_t *s = extract1("torch_mix/basic_raw_200.csv", NULL), *k;
	int n, i, j, best = -1;
	double tot[MAXL], bestv = -1, v;

	snprintf(path, sizeof(path), "%s/h200/torch_mix/basic_raw_200.csv", KP_FIXTURES);
	n = tread(path, l);
	ck_assert_int_eq(n, 200);
	for (i = 0; i < n; i++) {
		tot[i] = 0;
		for (j = 0; j < n; j++)
			if (strcmp(l[i].kernel, l[j].kernel) == 0 &&
			    tl_get(&l[j], "gpu__time_duration.sum", &v) == 0)
				tot[i] += v;
		if (tot[i] > bestv)
			bestv = tot[i], best = i;
	}
	ck_assert_uint_gt(json_array_size(json_object_get(s, "kernels")), 5);
	k = kp_summary_primary(s);
	ck_assert_str_eq(json_string_value(json_object_get(k, "name")), l[best].kernel);
	tl_free(l, n);
	json_decref(s);
}
END_TEST

/* One run, two pages: the details page rounds what the raw page prints. */
START_TEST(test_metrics_import_raw_and_details_agree)
{
	static const char *const dirs[] = { "hgemm_v0", "hgemm_v1", "stream_triad",
		"triton_hgemm" };
	size_t d, kk;

	for (d = 0; d < 4; d++) {
		char a[256], b[256];
		json_t *sa, *sb, *ka, *kb;
		double x, y;
		int compared = 0;

		snprintf(a, sizeof(a), "%s/import_raw.csv", dirs[d]);
		snprintf(b, sizeof(b), "%s/import_details.csv", dirs[d]);
		sa = extract1(a, NULL);
		sb = extract1(b, NULL);
		ka = kp_summary_primary(sa);
		kb = kp_summary_primary(sb);
		ck_assert_str_eq(json_string_value(json_object_get(ka, "name")),
		    json_string_value(json_object_get(kb, "name")));
		for (kk = 0; kk < NKEYS; kk++) {
			if (kp_summary_value(kb, keys[kk].key, &y) < 0)
				continue;
			ck_assert_msg(kp_summary_value(ka, keys[kk].key, &x) == 0, "%s %s",
			    dirs[d], keys[kk].key);
			/* two decimals in the scaled unit: 1.91 ms vs 1.914912 ms */
			ck_assert_msg(fabs(x - y) <= fmax(0.006, 0.003 * fabs(x)),
			    "%s: %s raw %g details %g", dirs[d], keys[kk].key, x, y);
			compared++;
		}
		ck_assert_int_ge(compared, 13);
		json_decref(sa);
		json_decref(sb);
	}
}
END_TEST

/* Stage files are kept apart: the same ID in two files is two launches. */
START_TEST(test_metrics_files_not_mixed)
{
	struct kp_err err;
	char a[4096], b[4096];
	const char *paths[2] = { a, b };
	json_t *s, *k, *launches;
	double v;

	snprintf(a, sizeof(a), "%s/h200/hgemm_v0/basic_raw.csv", KP_FIXTURES);
	snprintf(b, sizeof(b), "%s/h200/hgemm_v0/memory_raw.csv", KP_FIXTURES);
	s = kp_extract_files(paths, 2, 1, &launches, &err);
	ck_assert_ptr_nonnull(s);
	k = kp_summary_primary(s);
	ck_assert_int_eq(json_integer_value(json_object_get(k, "launches")), 2);
	ck_assert_int_eq(json_array_size(json_object_get(k, "ids")), 1);
	ck_assert_int_eq(json_array_size(launches), 2);
	/* sm__throughput only in basic_raw (80.74): the median of the one launch */
	ck_assert_int_eq(kp_summary_value(k, "sm_throughput_pct", &v), 0);
	ck_assert_double_eq_tol(v, 80.74, 1e-9);
	/* --all-metrics: every metric with value and unit */
	ck_assert_ptr_nonnull(json_object_get(json_object_get(json_array_get(launches, 0),
	    "metrics"), "gpu__time_duration.sum"));
	ck_assert_uint_eq(json_array_size(json_object_get(s, "inputs")), 2);
	json_decref(launches);
	json_decref(s);
}
END_TEST

START_TEST(test_metrics_function_names)
{
	static const char *const cases[][2] = {
		{ "hgemm_byzj_v0(const __half *, int)", "hgemm_byzj_v0" },
		{ "hgemm_byzj_v0", "hgemm_byzj_v0" },
		{ "void f<(int)3>(float)", "void f<(int)3>" },
		{ "Functor::operator()(int) ", "Functor::operator()" },
		{ "void k<8, at::F(at::T &)::[lambda() (instance 2)]>(int, T2)",
		  "void k<8, at::F(at::T &)::[lambda() (instance 2)]>" },
		{ "odd)", "odd)" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *f = kp_kernel_function(cases[i][0]);

		ck_assert_str_eq(f, cases[i][1]);
		free(f);
	}
}
END_TEST

static const char *
page_err(const char *text, struct kp_err *err)
{
	char path[] = "/tmp/check_metrics.XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	const char *paths[1] = { path };
	json_t *s;

	fputs(text, fp);
	fclose(fp);
	s = kp_extract_files(paths, 1, 0, NULL, err);
	unlink(path);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(err->status, KP_EXIT_DATA);
	return err->msg;
}

START_TEST(test_metrics_bad_inputs_are_data_errors)
{
	struct kp_err err;
	const char *hdr = "\"ID\",\"Process ID\",\"Kernel Name\",\"CC\",\"m\"\n";
	char buf[512];

	ck_assert_ptr_nonnull(strstr(page_err("", &err), "empty file"));
	ck_assert_ptr_nonnull(strstr(page_err("==PROF== hi\n", &err), "no CSV records"));
	ck_assert_ptr_nonnull(strstr(page_err("==ERROR== The application returned an error\n",
	    &err), "ncu reported: ==ERROR=="));
	ck_assert_ptr_nonnull(strstr(page_err("\"Line No\",\"Source\"\n", &err),
	    "source page"));
	ck_assert_ptr_nonnull(strstr(page_err("\"Launch Attribute\",\"Value\"\n", &err),
	    "session page"));
	ck_assert_ptr_nonnull(strstr(page_err("\"hello\"\n", &err), "not ncu CSV"));
	ck_assert_ptr_nonnull(strstr(page_err(hdr, &err), "units row"));
	snprintf(buf, sizeof(buf), "%s\"\",\"\",\"\",\"\",\"ns\"\n", hdr);
	ck_assert_ptr_nonnull(strstr(page_err(buf, &err), "without any launch"));
	snprintf(buf, sizeof(buf), "%s\"\",\"\",\"\",\"\",\"ns\"\n\"0\",\"1\",\"k\"\n", hdr);
	ck_assert_ptr_nonnull(strstr(page_err(buf, &err), ":3: 3 fields"));
	snprintf(buf, sizeof(buf), "%s\"\",\"\",\"\",\"\",\"ns\"\n\"0\",\"1\",\"k\",\"9.0\",\"1,0", hdr);
	ck_assert_ptr_nonnull(strstr(page_err(buf, &err), "truncated"));
}
END_TEST

/*
 * mx_jesc's own quoting of plain names is what jansson writes, byte by byte:
 * the names below, then every byte value at every place of a 40-byte name
 * (the 16-byte steps and the tail of the plain check).
 */
START_TEST(test_metrics_jesc_is_janssons)
{
	static const char *const names[] = {
		"", "a", "dram__bytes_read.sum", "sm__x.avg.pct_of_peak_sustained_elapsed",
		"k<float, 4>(int *, const at::Tensor &) [lambda() (instance 1)]", "a/b", "caf\xc3\xa9",
		"\x7f", "tab\there", "q\"q", "back\\slash", "\xff",
	};
	const size_t nn = sizeof names / sizeof names[0];
	char s[41];
	size_t i;

	for (i = 0; i < nn + 255 * 40; i++) {
		const char *n = i < nn ? names[i] : s;
		json_t *j;
		char *want, *got;

		if (i >= nn) {
			memset(s, 'x', 40);
			s[40] = '\0';
			s[(i - nn) % 40] = (char)((i - nn) / 40 + 1);
		}
		j = json_string(n);
		want = j != NULL ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
		got = mx_jesc(n);
		ck_assert_msg((want == NULL) == (got == NULL), "%zu: refused by one only", i);
		if (want != NULL)
			ck_assert_msg(strcmp(got, want) == 0, "%zu: %s, jansson %s", i, got, want);
		free(want);
		free(got);
		json_decref(j);
	}
}
END_TEST

/* Unknown units are kept unscaled and listed; known ones become base units. */
START_TEST(test_metrics_units_and_unknown_units)
{
	struct kp_err err;
	char path[] = "/tmp/check_metrics.XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	const char *paths[1] = { path };
	json_t *s, *k;
	double v;

	fputs("\"ID\",\"Process ID\",\"Kernel Name\",\"CC\",\"gpu__time_duration.sum\","
	    "\"x\",\"y\"\n\"\",\"\",\"\",\"\",\"ms\",\"furlong\",\"Gbyte/s\"\n"
	    "\"0\",\"1\",\"k(int)\",\"9.0\",\"1.5\",\"2\",\"1,000.5\"\n", fp);
	fclose(fp);
	s = kp_extract_files(paths, 1, 0, NULL, &err);
	unlink(path);
	ck_assert_msg(s != NULL, "%s", err.msg);
	k = kp_summary_primary(s);
	ck_assert_int_eq(kp_summary_value(k, "duration_ns", &v), 0);
	ck_assert_double_eq_tol(v, 1.5e6, 1e-6);
	ck_assert_int_eq(kp_summary_value(k, "x", &v), 0);
	ck_assert_double_eq(v, 2);
	ck_assert_int_eq(kp_summary_value(k, "y", &v), 0);
	ck_assert_double_eq_tol(v, 1000.5e9, 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(k, "units"), "y")),
	    "byte/s");
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(k,
	    "unknown_units"), 0)), "furlong");
	json_decref(s);
}
END_TEST

/* Past 64 launches the median comes from a reservoir: flagged "sampled". */
START_TEST(test_metrics_many_launches_sampled)
{
	struct kp_err err;
	char path[] = "/tmp/check_metrics.XXXXXX";
	int fd = mkstemp(path), i;
	FILE *fp = fdopen(fd, "w");
	const char *paths[1] = { path };
	json_t *s, *k, *sp;
	double v;

	fputs("\"ID\",\"Process ID\",\"Kernel Name\",\"CC\",\"gpu__time_duration.sum\"\n"
	    "\"\",\"\",\"\",\"\",\"ns\"\n", fp);
	for (i = 0; i < 3001; i++)
		fprintf(fp, "\"%d\",\"1\",\"k\",\"9.0\",\"%d\"\n", i, i);
	fclose(fp);
	s = kp_extract_files(paths, 1, 0, NULL, &err);
	unlink(path);
	ck_assert_ptr_nonnull(s);
	k = kp_summary_primary(s);
	ck_assert_str_eq(json_string_value(json_object_get(k, "median")), "sampled");
	/* 3001 distinct IDs: the first 1024 are listed, and the summary says so */
	ck_assert_int_eq(json_array_size(json_object_get(k, "ids")), 1024);
	ck_assert(json_is_true(json_object_get(k, "ids_truncated")));
	ck_assert_int_eq(json_integer_value(json_object_get(k, "launches")), 3001);
	ck_assert_int_eq(kp_summary_value(k, "duration_ns", &v), 0);
	ck_assert_double_le(fabs(v - 1500), 150);	/* a sample's median, near 1500 */
	sp = json_object_get(json_object_get(k, "spread"), "duration_ns");
	ck_assert_double_eq(json_number_value(json_object_get(sp, "min")), 0);
	ck_assert_double_eq(json_number_value(json_object_get(sp, "max")), 3000);
	json_decref(s);
}
END_TEST

/* Each number form ncu prints, and some it might, in the cells of sampled launches. */
START_TEST(test_metrics_cells_keep_every_number_form)
{
	static const struct {
		const char *name, *unit, *v[3];
		double median;
	} col[] = {
		{ "m_small", "", { "1.25", "-3.5", "2" }, 1.25 },
		{ "m_big", "byte", { "123,456,789", "98,765,432", "1,000,000,007" }, 123456789 },
		{ "m_wide", "", { "12,345,678,901,234,567,890", "1", "2" }, 2 },
		{ "m_frac", "", { "0.000123", "0.5", "1." }, 0.5 },
		{ "m_exp", "", { "1.5e3", "2e3", "-1" }, 1500 },
		{ "m_absent", "", { "n/a", "7", "-" }, 7 },
		{ "m_scaled", "usecond", { "1.5", "2.5", "3.5" }, 2500 },
		{ "m_neg", "", { "-1,234,567,890.5", "-0.25", "-7" }, -7 },
	};
	struct kp_err err;
	char path[] = "/tmp/check_metrics.XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	const char *paths[1] = { path };
	json_t *s, *k;
	size_t i, j;
	double v;

	fputs("\"ID\",\"Process ID\",\"Kernel Name\",\"CC\"", fp);
	for (i = 0; i < sizeof(col) / sizeof(col[0]); i++)
		fprintf(fp, ",\"%s\"", col[i].name);
	fputs("\n\"\",\"\",\"\",\"\"", fp);
	for (i = 0; i < sizeof(col) / sizeof(col[0]); i++)
		fprintf(fp, ",\"%s\"", col[i].unit);
	for (j = 0; j < 3; j++) {
		fprintf(fp, "\n\"%zu\",\"1\",\"k\",\"9.0\"", j);
		for (i = 0; i < sizeof(col) / sizeof(col[0]); i++)
			fprintf(fp, ",\"%s\"", col[i].v[j]);
	}
	fputs("\n", fp);
	fclose(fp);
	s = kp_extract_files(paths, 1, 0, NULL, &err);
	unlink(path);
	ck_assert_msg(s != NULL, "%s", err.msg);
	k = kp_summary_primary(s);
	for (i = 0; i < sizeof(col) / sizeof(col[0]); i++) {
		ck_assert_msg(kp_summary_value(k, col[i].name, &v) == 0, "%s", col[i].name);
		ck_assert_msg(v == col[i].median, "%s: %.17g, expected %.17g", col[i].name, v,
		    col[i].median);
	}
	json_decref(s);
}
END_TEST

/* path read as standard input ("-"): a pipe's launches are packed (cells.c) */
static json_t *
extract_stdin(const char *path, int all, struct kp_err *err)
{
	const char *dash[1] = { "-" };

	ck_assert_ptr_nonnull(freopen(path, "r", stdin));
	return kp_extract_files(dash, 1, all, NULL, err);
}

/*
 * Many kernels whose kept records pass MX_TEXT: most launches are parsed and
 * packed as they are read, against the first packed launch (the reference),
 * the rest at the end of the file; every kernel's medians are its own.
 */
START_TEST(test_metrics_packed_cells_many_kernels)
{
	enum { NM = 9 };
	/*
	 * Columns m5 .. m8: the same length in every launch, the last byte not
	 * (a field with the reference's bytes is not parsed again, its cell copied).
	 */
	static const char *const v[3][NM] = {
		{ "1.25", "123,456,789", "12,345,678,901,234,567,890", "n/a", "0.000000000000001",
		    "12345", "10", "1", "1234.567" },
		{ "-3.5", "98,765,432", "1", "7", "67,108,863", "12346", "11", "2", "1234.568" },
		{ "2", "1,000,000,007", "2", "-", "67,108,864", "12347", "12", "3", "1234.566" },
	};
	static const double med[NM] = { 1.25, 123456789, 2, 7, 67108863, 12346, 11, 2, 1234.567 };
	enum { NK = 3000 };
	struct kp_err err;
	char path[] = "/tmp/check_metrics.XXXXXX";
	int fd = mkstemp(path), i, j, c, n;
	FILE *fp = fdopen(fd, "w");
	json_t *s, *ks;
	double x;

	fputs("\"ID\",\"Process ID\",\"Kernel Name\",\"CC\"", fp);
	for (c = 0; c < NM; c++)
		fprintf(fp, ",\"m%d\"", c);
	fputs(",\"kp\",\"kq\"\n\"\",\"\",\"\",\"\",\"\",\"byte\"", fp);
	for (c = 2; c < NM + 2; c++)
		fputs(",\"\"", fp);
	fputs("\n", fp);
	for (j = 0; j < 3; j++)
		for (i = 0; i < NK; i++) {
			fprintf(fp, "\"%d\",\"1\",\"kernel_%d\",\"9.0\"", j * NK + i, i);
			for (c = 0; c < NM; c++)
				/* kernel i's launch j holds row (i + j) % 3: no two the same */
				fprintf(fp, ",\"%s\"", v[(i + j) % 3][c]);
			/* kp the kernel's own; kq the same in a seventh of them (and
			 * in the reference launch): medians of cells packed as 0 */
			fprintf(fp, ",\"%d\",\"%d.5\"\n", i, i % 7);
		}
	fclose(fp);
	/* a pipe: packed (a small file's cells stay flat, test_metrics_flat_as_packed) */
	s = extract_stdin(path, 0, &err);
	unlink(path);
	ck_assert_msg(s != NULL, "%s", err.msg);
	ks = json_object_get(s, "kernels");
	ck_assert_int_eq(json_array_size(ks), NK);
	for (i = 0; i < NK; i++) {
		json_t *k = json_array_get(ks, (size_t)i);
		char m[16];

		for (c = 0; c < NM; c++) {
			snprintf(m, sizeof(m), "m%d", c);
			ck_assert_msg(kp_summary_value(k, m, &x) == 0, "kernel %d %s", i, m);
			ck_assert_msg(x == med[c], "kernel %d %s: %.17g, expected %.17g", i, m, x,
			    med[c]);
		}
		ck_assert_int_eq(kp_summary_value(k, "kp", &x), 0);
		n = atoi(json_string_value(json_object_get(k, "name")) + 7);
		ck_assert_msg(x == n, "kernel %d: kp %.17g", n, x);
		ck_assert_int_eq(kp_summary_value(k, "kq", &x), 0);
		ck_assert_msg(x == n % 7 + 0.5, "kernel %d: kq %.17g", n, x);
	}
	json_decref(s);
}
END_TEST

/* Past 64 launches the sample is of whole launches: two columns equal in
 * every launch have equal medians (a sample of 64 launches of 0..4999: within
 * 1000 of 2500), and every launch's keys are still seen (min, max exact). */
START_TEST(test_metrics_sample_is_whole_launches)
{
	struct kp_err err;
	char path[] = "/tmp/check_metrics.XXXXXX";
	int fd = mkstemp(path), i;
	FILE *fp = fdopen(fd, "w");
	const char *paths[1] = { path };
	json_t *s, *k, *sp;
	double a, b, d;

	fputs("\"ID\",\"Process ID\",\"Kernel Name\",\"CC\",\"gpu__time_duration.sum\","
	    "\"a\",\"b\"\n\"\",\"\",\"\",\"\",\"ns\",\"\",\"\"\n", fp);
	for (i = 0; i < 5000; i++)
		fprintf(fp, "\"%d\",\"1\",\"k\",\"9.0\",\"%d\",\"%d\",\"%d\"\n", i, i, (i * 7919) % 5000,
		    (i * 7919) % 5000);
	fclose(fp);
	s = kp_extract_files(paths, 1, 0, NULL, &err);
	unlink(path);
	ck_assert_ptr_nonnull(s);
	k = kp_summary_primary(s);
	ck_assert_str_eq(json_string_value(json_object_get(k, "median")), "sampled");
	ck_assert_int_eq(kp_summary_value(k, "a", &a), 0);
	ck_assert_int_eq(kp_summary_value(k, "b", &b), 0);
	ck_assert_double_eq(a, b);
	ck_assert_double_le(fabs(a - 2500), 1000);
	ck_assert_int_eq(kp_summary_value(k, "duration_ns", &d), 0);
	ck_assert_double_le(fabs(d - 2500), 1000);
	sp = json_object_get(json_object_get(k, "spread"), "duration_ns");
	ck_assert_double_eq(json_number_value(json_object_get(sp, "min")), 0);
	ck_assert_double_eq(json_number_value(json_object_get(sp, "max")), 4999);
	json_decref(s);
}
END_TEST

/*
 * The two header lines of a synthetic raw page: ID .. CC, the duration in
 * usecond, then nm metrics m00 .. whose every kbyte-th (from 1) is in Kbyte.
 */
static void
synthetic_header(FILE *fp, int nm, int kbyte)
{
	int c;

	fputs("\"ID\",\"Process ID\",\"Kernel Name\",\"CC\",\"gpu__time_duration.sum\"", fp);
	for (c = 0; c < nm; c++)
		fprintf(fp, ",\"m%02d\"", c);
	fputs("\n\"\",\"\",\"\",\"\",\"usecond\"", fp);
	for (c = 0; c < nm; c++)
		fputs(c % kbyte == 1 ? ",\"Kbyte\"" : ",\"\"", fp);
	fputs("\n", fp);
}

/* Kernel k's metrics in ma are in mb with the same numbers (a and b name
 * the two runs in the message). */
static void
same_metrics(json_t *ma, json_t *mb, size_t k, const char *a, const char *b)
{
	const char *name;
	json_t *v;

	json_object_foreach(ma, name, v) {
		json_t *w = json_object_get(mb, name);

		ck_assert_msg(w != NULL, "kernel %zu: %s only in one", k, name);
		ck_assert_msg(json_number_value(v) == json_number_value(w),
		    "kernel %zu %s: %.17g %s, %.17g %s", k, name, json_number_value(v), a,
		    json_number_value(w), b);
	}
}

/*
 * Launches kept as text are parsed at the end (settle), on two threads when
 * they are many: 4 kernels of 1,000 launches (about 240 left as text) give
 * the medians that parsing every launch at once gives (--all-metrics keeps
 * none as text), numbers with doubles of their own and scaled units too.
 */
START_TEST(test_metrics_settled_as_parsed)
{
	enum { NK = 4, NL = 1000, NM = 40 };
	struct kp_err err;
	char path[] = "/tmp/check_metrics.XXXXXX";
	int fd = mkstemp(path), i, c;
	FILE *fp = fdopen(fd, "w");
	const char *paths[1] = { path };
	json_t *a, *b;
	size_t k;

	ck_assert_ptr_nonnull(fp);
	synthetic_header(fp, NM, 5);
	for (i = 0; i < NK * NL; i++) {
		unsigned h = (unsigned)i * 2654435761u;

		fprintf(fp, "\"%d\",\"1\",\"kernel_%d\",\"9.0\",\"%u.%03u\"", i, i % NK, h % 97,
		    h % 1000);
		for (c = 0; c < NM; c++) {
			unsigned v = (h >> (c % 16)) ^ (unsigned)c * 40503u;

			if (c % 7 == 0)	/* the same in every launch of a kernel */
				fprintf(fp, ",\"%d\"", i % NK + c);
			else if (c % 7 == 3)	/* past a cell's mantissa: a double */
				fprintf(fp, ",\"%u%06u\"", v % 1000 + 1, v % 999983);
			else if (c % 7 == 5)
				fprintf(fp, ",\"-%u.%02u\"", v % 5000, v % 100);
			else
				fprintf(fp, ",\"%u\"", v % 100000);
		}
		fputs("\n", fp);
	}
	fclose(fp);
	a = kp_extract_files(paths, 1, 0, NULL, &err);
	ck_assert_msg(a != NULL, "%s", err.msg);
	b = kp_extract_files(paths, 1, 1, NULL, &err);
	unlink(path);
	ck_assert_msg(b != NULL, "%s", err.msg);
	ck_assert_uint_eq(json_array_size(json_object_get(a, "kernels")), NK);
	for (k = 0; k < NK; k++) {
		json_t *ka = json_array_get(json_object_get(a, "kernels"), k),
		    *kb = json_array_get(json_object_get(b, "kernels"), k);
		json_t *ma = json_object_get(ka, "metrics"), *mb = json_object_get(kb, "metrics");

		ck_assert_str_eq(json_string_value(json_object_get(ka, "median")), "sampled");
		ck_assert_uint_ge(json_object_size(ma), NM);
		same_metrics(ma, mb, k, "settled", "parsed");
	}
	json_decref(a);
	json_decref(b);
}
END_TEST

/*
 * A small regular file's kept cells stay flat (x->flat), a pipe's are packed
 * against the reference launch: both give every kernel's every median, for
 * cells of every form (decimals, doubles of their own, absent, scaled, the
 * reference's runs), kernels kept whole and one sampled (its replacements
 * settled from text), and the medians of kernels computed ahead on two
 * threads as of one.
 */
START_TEST(test_metrics_flat_as_packed)
{
	enum { NK = 6, NM = 30 };
	struct kp_err err;
	char path[] = "/tmp/check_metrics.XXXXXX";
	int fd = mkstemp(path), i, c;
	FILE *fp = fdopen(fd, "w");
	const char *paths[1] = { path };
	json_t *a, *b, *ka, *kb;
	size_t k;

	ck_assert_ptr_nonnull(fp);
	synthetic_header(fp, NM, 6);
	/* kernel 0 has 400 launches (sampled), the others 20 to 70 */
	for (i = 0; i < 800; i++) {
		unsigned h = (unsigned)i * 2654435761u;
		int kn = i % 2 == 0 ? 0 : 1 + (int)(h % 97) % (NK - 1);

		fprintf(fp, "\"%d\",\"1\",\"kernel_%d\",\"9.0\",\"%u.%03u\"", i, kn, h % 97,
		    h % 1000);
		for (c = 0; c < NM; c++) {
			unsigned v = (h >> (c % 16)) ^ (unsigned)c * 40503u;

			if (c % 8 == 0)	/* the same in every launch */
				fprintf(fp, ",\"%d\"", c);
			else if (c % 8 == 2)	/* the same in every launch of a kernel */
				fprintf(fp, ",\"%d.5\"", kn + c);
			else if (c % 8 == 3)	/* past a cell's mantissa: a double */
				fprintf(fp, ",\"%u%06u\"", v % 1000 + 1, v % 999983);
			else if (c % 8 == 4)	/* absent in some launches */
				fputs(v % 3 == 0 ? ",\"n/a\"" : v % 3 == 1 ? ",\"-\"" : ",\"12\"", fp);
			else if (c % 8 == 5)
				fprintf(fp, ",\"-%u.%02u\"", v % 5000, v % 100);
			else if (c % 8 == 6)	/* a few values, often the reference's */
				fprintf(fp, ",\"%u\"", v % 3);
			else
				fprintf(fp, ",\"%u\"", v % 100000);
		}
		fputs("\n", fp);
	}
	fclose(fp);
	a = kp_extract_files(paths, 1, 0, NULL, &err);
	ck_assert_msg(a != NULL, "%s", err.msg);
	b = extract_stdin(path, 0, &err);
	unlink(path);
	ck_assert_msg(b != NULL, "%s", err.msg);
	ka = json_object_get(a, "kernels");
	kb = json_object_get(b, "kernels");
	ck_assert_uint_eq(json_array_size(ka), NK);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ka, 0), "median")),
	    "sampled");
	for (k = 0; k < NK; k++) {
		json_t *ma = json_object_get(json_array_get(ka, k), "metrics"),
		    *mb = json_object_get(json_array_get(kb, k), "metrics");

		ck_assert_uint_ge(json_object_size(ma), NM);
		ck_assert_uint_eq(json_object_size(ma), json_object_size(mb));
		same_metrics(ma, mb, k, "flat", "packed");
	}
	ck_assert(json_equal(ka, kb));
	json_decref(a);
	json_decref(b);
}
END_TEST

/*
 * The text blocks' room (cells.c): MX_BUDGET while every kernel keeps
 * MX_KEEP launches, else MX_TEXT; in a small file only a launch that
 * replaces one of a full sample may wait as text.
 */
START_TEST(test_metrics_text_room)
{
	struct ex *x = calloc(1, sizeof(*x));
	struct kernel *k = calloc(1, sizeof(*k));
	size_t ntext = 4096;

	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(k);
	x->keep = MX_KEEP;
	x->bytes = 30000;	/* 15 kernels of 2,000 bytes */
	ck_assert_uint_eq(mx_text_cap(x), MX_BUDGET);
	x->bytes = 3000000;	/* a thousand kernels: the budget binds */
	x->keep = 1;
	ck_assert_uint_eq(mx_text_cap(x), MX_TEXT);
	x->keep = MX_KEEP - 1;
	ck_assert_uint_eq(mx_text_cap(x), MX_TEXT);

	x->keep = MX_KEEP;
	x->bytes = 30000;
	x->text_used = MX_TEXT;	/* MX_TEXT taken */
	x->l.slot = 0;
	k->nsamp = 10;		/* filling its sample: within MX_TEXT only */
	ck_assert_int_eq(mx_text_room(x, k, ntext), 0);
	x->text_used = 0;
	ck_assert_int_eq(mx_text_room(x, k, ntext), 0);	/* a small file: parse it now */
	x->big_file = 1;
	ck_assert_int_eq(mx_text_room(x, k, ntext), 1);
	x->big_file = 0;
	x->text_used = MX_TEXT;
	k->nsamp = MX_KEEP;	/* a replacement: within the cap (no block to reuse) */
	ck_assert_ptr_nonnull(k->samp = calloc(MX_KEEP, sizeof(*k->samp)));
	ck_assert_int_eq(mx_text_room(x, k, ntext), 1);
	x->text_used = mx_text_cap(x) - ntext;
	ck_assert_int_eq(mx_text_room(x, k, ntext), 0);
	free(k->samp);
	free(k);
	free(x);
}
END_TEST

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *b = NULL;
	size_t cap = 0, n = 0, r;

	if (fp == NULL)
		return NULL;
	do {
		if (n == cap && (b = realloc(b, cap = cap ? 2 * cap : 65536)) == NULL)
			break;
		r = fread(b + n, 1, cap - n, fp);
		n += r;
	} while (r > 0);
	fclose(fp);
	*len = n;
	return b;
}

/*
 * metrics_extracted.jsonl, formatted without jansson, holds the bytes
 * jansson writes for the same launch records (kp_extract_files); 0 when the
 * file is not a page kp-extract reads, 1 when it matched.
 */
static int
jsonl_as_jansson(const char *path, const char *dir)
{
	static const char pd[] = "/p \"d\"\\x\xc3\xa9\n";
	struct kp_err err;
	json_t *launches, *s1;
	char *want = NULL, *got, jpath[256];
	size_t wlen = 0, glen, j;
	FILE *w;

	if ((s1 = kp_extract_files(&path, 1, 0, &launches, &err)) == NULL)
		return 0;
	ck_assert_ptr_nonnull(w = open_memstream(&want, &wlen));
	for (j = 0; j < json_array_size(launches); j++) {
		json_t *rec = json_array_get(launches, j);

		json_object_set_new(rec, "profile_dir", json_string(pd));
		ck_assert_int_eq(json_dumpf(rec, w, JSON_COMPACT | JSON_SORT_KEYS |
		    JSON_REAL_PRECISION(15)), 0);
		fputc('\n', w);
	}
	fclose(w);
	ck_assert_int_eq(kp_extract_to_dir(&path, 1, dir, pd, 0, NULL, NULL, &err), 0);
	snprintf(jpath, sizeof(jpath), "%s/metrics_extracted.jsonl", dir);
	ck_assert_ptr_nonnull(got = slurp(jpath, &glen));
	ck_assert_msg(glen == wlen && memcmp(got, want, wlen) == 0,
	    "%s: metrics_extracted.jsonl differs from jansson's:\n%.300s\n%.300s", path, got,
	    want);
	free(got);
	free(want);
	json_decref(launches);
	json_decref(s1);
	unlink(jpath);
	snprintf(jpath, sizeof(jpath), "%s/metrics_summary.json", dir);
	unlink(jpath);
	return 1;
}

/* ... on every raw and details capture (summary keys, stalls, reals, integers) */
START_TEST(test_metrics_jsonl_as_jansson_writes_it)
{
	glob_t g;
	size_t i, nfiles = 0;
	char dir[] = "/tmp/kp-check-jsonl.XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(glob(KP_FIXTURES "/h200/*/*_raw*.csv", 0, NULL, &g), 0);
	ck_assert_int_eq(glob(KP_FIXTURES "/h200/*/*_details*.csv", GLOB_APPEND, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++)
		nfiles += (size_t)jsonl_as_jansson(g.gl_pathv[i], dir);
	ck_assert_uint_ge(nfiles, 40);
	globfree(&g);
	rmdir(dir);
}
END_TEST

/* ... and on every number form: signs, tiny, huge, long fractions, exponents */
START_TEST(test_metrics_jsonl_number_forms_as_jansson)
{
	static const char *const v[] = { "-1.5", "0.00001234", "0.0001234", "1e-7",
	    "123456789012.345", "1,234.5", "3.14159265358979", "1e300", "-0", "0.1",
	    "2.5e15", "9007199254740993.5", "-0.000099", "1.0000000000000002", "12",
	    "6.02214076e23", "-7.25", "0.3333333333333333", "1e21" };
	char dir[] = "/tmp/kp-check-jsonl.XXXXXX", path[600];
	size_t i, n = sizeof(v) / sizeof(v[0]);
	FILE *fp;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/in.csv", dir);
	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	fputs("\"ID\",\"Process ID\",\"Kernel Name\",\"CC\",\"gpu__time_duration.sum\","
	    "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
	    "\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\","
	    "\"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio\"\n"
	    "\"\",\"\",\"\",\"\",\"nsecond\",\"%\",\"\",\"\"\n", fp);
	for (i = 0; i < n; i++)
		fprintf(fp, "\"%zu\",\"1\",\"k<%zu>\",\"9.0\",\"%s\",\"%s\",\"%s\",\"%s\"\n", i, i % 3,
		    v[i], v[(i + 1) % n], v[(i + 2) % n], v[(i + 5) % n]);
	fclose(fp);
	ck_assert_int_eq(jsonl_as_jansson(path, dir), 1);
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * mx_put_dec writes what mx_put_num writes: for decimal cells (mantissas of
 * every digit count up to CELL_MANT, 0-15 digits after the point, trailing
 * zeros, both signs, values below 10^-4) with their own value, with a value
 * that is not theirs (a sum), and for CELL_ABSENT and CELL_ESC cells.
 */
START_TEST(test_metrics_put_dec_as_put_num)
{
	uint64_t seed = 0x243f6a8885a308d3ULL;
	char got[128], want[128], *e;
	size_t i;

	for (i = 0; i < 300000; i++) {
		uint32_t m, f, neg, cell;
		double v;

		mx_rand(&seed);
		m = (uint32_t)(seed % ((uint64_t)CELL_MANT + 1));
		if ((seed >> 40) % 4 == 0)	/* few digits, trailing zeros */
			m = (uint32_t)((seed >> 20) % 1000) * (uint32_t)pow(10, (double)((seed >> 50) % 5));
		if (m > CELL_MANT)
			m = CELL_MANT;
		f = (uint32_t)((seed >> 32) % 16);
		neg = (uint32_t)((seed >> 63) & 1);
		cell = neg << 30 | f << 26 | m;
		v = (double)m / pow(10, (double)f);
		if (neg)
			v = -v;
		switch ((seed >> 36) % 8) {
		case 0:	/* a sum: not the cell's value */
			v += 0.25;
			break;
		case 1:
			cell = CELL_ABSENT;
			break;
		case 2:
			cell = CELL_ESC | 3;
			break;
		}
		e = mx_put_dec(got, v, cell);
		*e = '\0';
		e = mx_put_num(want, v);
		*e = '\0';
		ck_assert_msg(strcmp(got, want) == 0, "cell %08x %.17g: %s, mx_put_num %s", cell, v,
		    got, want);
	}
}
END_TEST

/*
 * Every metric's median is the middle value or the mean of the two middle
 * ones, computed here from strtod: for columns of one form (found among
 * the cells by medians.c), mixed forms, signs, doubles of their own and one
 * value, odd and even counts of kept launches, small and large files.
 */
START_TEST(test_metrics_medians_of_cells)
{
	enum { NK = 5, NM = 6, NL = 64 };
	static const int nl[NK] = { 1, 7, 8, 13, NL };
	static char val[NK][NL][NM][40];
	struct kp_err err;
	char path[] = "/tmp/check_metrics.XXXXXX";
	int fd = mkstemp(path), k, l, c;
	FILE *fp = fdopen(fd, "w");
	const char *paths[1] = { path };
	uint64_t seed = 0xa4093822299f31d0ULL;
	json_t *s, *ks;
	double v[NL], x;

	ck_assert_ptr_nonnull(fp);
	fputs("\"ID\",\"Process ID\",\"Kernel Name\",\"CC\"", fp);
	for (c = 0; c < NM; c++)
		fprintf(fp, ",\"m%d\"", c);
	fputs("\n\"\",\"\",\"\",\"\"", fp);
	for (c = 0; c < NM; c++)
		fputs(",\"\"", fp);
	fputs("\n", fp);
	for (k = 0; k < NK; k++)
		for (l = 0; l < nl[k]; l++) {
			fprintf(fp, "\"%d\",\"1\",\"kernel_%d\",\"9.0\"", k * NL + l, k);
			for (c = 0; c < NM; c++) {
				char *b = val[k][l][c];

				mx_rand(&seed);
				if (c == 0)	/* one form: two digits after the point */
					snprintf(b, 40, "%u.%02u", (unsigned)(seed % 50), (unsigned)(seed >> 20) % 100);
				else if (c == 1)	/* integers, some repeated */
					snprintf(b, 40, "%u", (unsigned)(seed % 9));
				else if (c == 2)	/* mixed forms */
					snprintf(b, 40, seed % 2 ? "%u.5" : "%u.25", (unsigned)(seed >> 8) % 7);
				else if (c == 3)	/* signs */
					snprintf(b, 40, "%s%u.%u", seed % 3 ? "-" : "", (unsigned)(seed >> 8) % 9,
					    (unsigned)(seed >> 16) % 10);
				else if (c == 4)	/* wider than a cell: doubles */
					snprintf(b, 40, "%u%09u", (unsigned)(seed % 7) + 1, (unsigned)(seed >> 30) % 1000);
				else	/* 14 digits after the point: the mean's has 15 */
					snprintf(b, 40, "0.%014u", (unsigned)(seed % 3) * 7);
				fprintf(fp, ",\"%s\"", b);
			}
			fputs("\n", fp);
		}
	fclose(fp);
	s = kp_extract_files(paths, 1, 0, NULL, &err);
	unlink(path);
	ck_assert_msg(s != NULL, "%s", err.msg);
	ks = json_object_get(s, "kernels");
	ck_assert_uint_eq(json_array_size(ks), NK);
	for (k = 0; k < NK; k++) {
		json_t *kj = json_array_get(ks, (size_t)k);
		int n = atoi(json_string_value(json_object_get(kj, "name")) + 7), m = nl[n];

		for (c = 0; c < NM; c++) {
			char name[16];
			double want;

			for (l = 0; l < m; l++)
				v[l] = strtod(val[n][l][c], NULL);
			want = tmedian(v, m);
			snprintf(name, sizeof(name), "m%d", c);
			ck_assert_int_eq(kp_summary_value(kj, name, &x), 0);
			ck_assert_msg(x == want, "kernel %d %s: %.17g, expected %.17g", n, name, x, want);
		}
	}
	json_decref(s);
}
END_TEST

/*
 * mx_put_med writes what mx_put_num writes for a median given with its
 * decimal (medians.c): a decimal cell's value, the mean of two decimal
 * cells of one form (most are no double's nearest, where put_real() ends
 * in printf), and decimals that are not the value's.
 */
START_TEST(test_metrics_put_med_as_put_num)
{
	uint64_t seed = 0x13198a2e03707344ULL, dec;
	char got[128], want[128], *e;
	size_t i;

	for (i = 0; i < 300000; i++) {
		uint32_t a, b, f, neg;
		double v;

		mx_rand(&seed);
		a = (uint32_t)(seed % ((uint64_t)CELL_MANT + 1));
		b = (uint32_t)((seed >> 26) % ((uint64_t)CELL_MANT + 1));
		if ((seed >> 40) % 4 == 0) {	/* few digits, near each other */
			a = (uint32_t)((seed >> 20) % 10000);
			b = a + (uint32_t)((seed >> 52) % 3);
		}
		f = (uint32_t)((seed >> 32) % 16);
		neg = (uint32_t)((seed >> 63) & 1);
		if ((seed >> 36) % 2 == 0) {	/* one cell's value */
			v = mx_cell_dec(neg << 30 | f << 26 | a);
			dec = (uint64_t)a << 5 | (uint64_t)f << 1 | neg;
		} else {	/* the mean of two, as cells_median() makes it */
			if (f == 15)
				f = 14;
			v = (mx_cell_dec(f << 26 | a) + mx_cell_dec(f << 26 | b)) / 2;
			dec = (uint64_t)5 * ((uint64_t)a + b) << 5 | (uint64_t)(f + 1) << 1;
		}
		switch ((seed >> 44) % 8) {
		case 0:	/* not the value's */
			v += 0.25;
			break;
		case 1:
			v = nextafter(nextafter(v, INFINITY), INFINITY);
			break;
		case 2:
			dec = MX_NODEC;
			break;
		}
		e = mx_put_med(got, v, dec);
		*e = '\0';
		e = mx_put_num(want, v);
		*e = '\0';
		ck_assert_msg(strcmp(got, want) == 0, "decimal %llx %.17g: %s, mx_put_num %s",
		    (unsigned long long)dec, v, got, want);
	}
}
END_TEST

/*
 * mx_put_num and mx_put_ll write what jansson writes for mx_jnum(v) at
 * precision 15: every digit count of integers and of r / 10^k (the pairs
 * and the single leading digit, the point moved into the digits or after
 * "0." and zeros), signs, the exponent forms below 10^-4 and past 10^15.
 */
START_TEST(test_metrics_put_num_as_jansson)
{
	static const double fixed[] = { 0, -0.0, 1, 9, 10, 99, 100, 101, 0.5, 0.05, 0.0001,
	    0.00012, 0.00001, 1e-5, 1.5e-7, 123.456, -123.456, 8999999999999999.0, 9e15,
	    1e15 + 0.5, 1e16, 1e21, 1e300, 0.1 + 0.2, 1.0 / 3, 2.0 / 3, 999999999999999.9,
	    12345678901234.5, 0.999999999999999, 5e-324, INFINITY, -INFINITY, NAN };
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t i, n = sizeof fixed / sizeof fixed[0];
	char got[128], *e;

	for (i = 0; i < n + 200000; i++) {
		double v;
		json_t *j;
		char *want;

		if (i < n) {
			v = fixed[i];
		} else {
			unsigned long long r;
			int k, nd;

			mx_rand(&seed);
			nd = 1 + (int)(seed % 17);	/* digits of r */
			k = (int)((seed >> 8) % 19);	/* digits after the point */
			r = (seed >> 16) % (unsigned long long)pow(10, nd);
			v = (double)r / pow(10, k);
			if ((seed >> 60) & 1)
				v = -v;
			if (((seed >> 56) & 15) == 0)
				v = (double)(long long)(seed >> 12) * (((seed >> 61) & 1) ? -1.0 : 1.0);
		}
		e = mx_put_num(got, v);
		*e = '\0';
		j = mx_jnum(v);
		ck_assert_ptr_nonnull(want = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT |
		    JSON_REAL_PRECISION(15)));
		ck_assert_msg(strcmp(got, want) == 0, "%.17g: %s, jansson %s", v, got, want);
		free(want);
		json_decref(j);
	}
	for (i = 0; i < 64; i++) {	/* every digit count, both signs, of mx_put_ll */
		long long v = (long long)i * 12345679LL;

		if (i < 19)
			v = (long long)pow(10, (double)i) - (long long)(i % 2);
		else if (i < 38)
			v = 1 - (long long)pow(10, (double)(i - 19));
		char want[32];

		if (i == 62)
			v = LLONG_MAX;
		if (i == 63)
			v = LLONG_MIN;
		e = mx_put_ll(got, v);
		*e = '\0';
		snprintf(want, sizeof want, "%lld", v);
		ck_assert_str_eq(got, want);
	}
}
END_TEST

static Suite *
metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_metrics_every_capture_matches_csv);
	tcase_add_test(tc, test_metrics_hgemm_v0_basic_raw_bar);
	tcase_add_test(tc, test_metrics_stream_triad_three_launches);
	tcase_add_test(tc, test_metrics_torch_mix_primary);
	tcase_add_test(tc, test_metrics_import_raw_and_details_agree);
	tcase_add_test(tc, test_metrics_files_not_mixed);
	tcase_add_test(tc, test_metrics_function_names);
	tcase_add_test(tc, test_metrics_bad_inputs_are_data_errors);
	tcase_add_test(tc, test_metrics_units_and_unknown_units);
	tcase_add_test(tc, test_metrics_jesc_is_janssons);
	tcase_add_test(tc, test_metrics_many_launches_sampled);
	tcase_add_test(tc, test_metrics_cells_keep_every_number_form);
	tcase_add_test(tc, test_metrics_packed_cells_many_kernels);
	tcase_add_test(tc, test_metrics_sample_is_whole_launches);
	tcase_add_test(tc, test_metrics_jsonl_as_jansson_writes_it);
	tcase_add_test(tc, test_metrics_jsonl_number_forms_as_jansson);
	tcase_add_test(tc, test_metrics_put_num_as_jansson);
	tcase_add_test(tc, test_metrics_put_dec_as_put_num);
	tcase_add_test(tc, test_metrics_put_med_as_put_num);
	tcase_add_test(tc, test_metrics_medians_of_cells);
	tcase_add_test(tc, test_metrics_text_room);
	tcase_add_test(tc, test_metrics_settled_as_parsed);
	tcase_add_test(tc, test_metrics_flat_as_packed);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(metrics_suite)
