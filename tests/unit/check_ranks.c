/* Unit tests for ranks.c and the rank paths of profile.c: the rank read from a
 * launcher's variables, rank lists, torchrun, and filters that select NCCL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_check.h"
#include "kp_diag.h"
#include "kp_ranks.h"
#include "profile.h"

/* A fake environment: NAME=VALUE pairs, NULL-ended. */
static const char *const *fake_env;

static const char *
get(const char *name)
{
	const char *const *e;
	size_t n = strlen(name);

	for (e = fake_env; e != NULL && *e != NULL; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static long
rank_of(const char *const *env, const char **var)
{
	struct kp_err err;
	long r = -1;

	fake_env = env;
	ck_assert_int_eq(kp_rank_from_env(get, &r, var, &err), 0);
	return r;
}

START_TEST(test_rank_order_global_before_local)
{
	static const char *const torch[] = { "LOCAL_RANK=0", "RANK=3", NULL };
	static const char *const ompi[] = { "SLURM_PROCID=0", "OMPI_COMM_WORLD_RANK=2", NULL };
	static const char *const pmi[] = { "SLURM_PROCID=5", "PMI_RANK=4", NULL };
	static const char *const slurm[] = { "LOCAL_RANK=1", "SLURM_PROCID=7", NULL };
	static const char *const local[] = { "LOCAL_RANK=1", NULL };
	static const char *const empty_rank[] = { "RANK=", "LOCAL_RANK=6", NULL };
	const char *var = NULL;

	ck_assert_int_eq(rank_of(torch, &var), 3);
	ck_assert_str_eq(var, "RANK");
	ck_assert_int_eq(rank_of(ompi, &var), 2);
	ck_assert_str_eq(var, "OMPI_COMM_WORLD_RANK");
	ck_assert_int_eq(rank_of(pmi, &var), 4);
	ck_assert_str_eq(var, "PMI_RANK");
	ck_assert_int_eq(rank_of(slurm, &var), 7);
	ck_assert_str_eq(var, "SLURM_PROCID");
	ck_assert_int_eq(rank_of(local, &var), 1);
	ck_assert_str_eq(var, "LOCAL_RANK");
	ck_assert_int_eq(rank_of(empty_rank, &var), 6);	/* an empty variable is unset */
}
END_TEST

START_TEST(test_rank_missing_and_malformed)
{
	static const char *const none[] = { "WORLD_SIZE=2", NULL };
	static const char *const bad[] = { "RANK=1x", "LOCAL_RANK=0", NULL };
	static const char *const neg[] = { "RANK=-1", NULL };
	struct kp_err err;
	const char *var = NULL;
	long r = -1;

	fake_env = none;
	ck_assert_int_eq(kp_rank_from_env(get, &r, &var, &err), 1);
	fake_env = bad;
	ck_assert_int_eq(kp_rank_from_env(get, &r, &var, &err), -1);
	ck_assert_int_eq(err.status, KP_EXIT_ENV);
	ck_assert_ptr_nonnull(strstr(err.msg, "RANK=\"1x\""));
	fake_env = neg;
	ck_assert_int_eq(kp_rank_from_env(get, &r, &var, &err), -1);
}
END_TEST

START_TEST(test_ranks_parse)
{
	struct kp_err err;
	json_t *a = kp_ranks_parse("2,0,11", &err);
	char *s;

	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(json_array_size(a), 3);
	ck_assert_int_eq(json_integer_value(json_array_get(a, 0)), 2);
	ck_assert(kp_ranks_has(a, 11));
	ck_assert(!kp_ranks_has(a, 1));
	s = kp_ranks_text(a);
	ck_assert_str_eq(s, "2,0,11");
	free(s);
	json_decref(a);
	ck_assert_ptr_null(kp_ranks_parse("1,1", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "twice"));
	ck_assert_ptr_null(kp_ranks_parse("1,", &err));
	ck_assert_ptr_null(kp_ranks_parse("a", &err));
	ck_assert_ptr_null(kp_ranks_parse("-1", &err));
	ck_assert_ptr_null(kp_ranks_parse("", &err));
	ck_assert_int_eq(err.status, KP_EXIT_USAGE);
}
END_TEST

START_TEST(test_launcher_torchrun)
{
	json_t *t = json_pack("[s,s,s]", "/opt/torch/.venv/bin/torchrun", "--nproc-per-node", "2");
	json_t *m = json_pack("[s,s,s]", "python3", "-m", "torch.distributed.run");
	json_t *mpi = json_pack("[s,s,s]", "mpirun", "-np", "4");
	json_t *py = json_pack("[s,s]", "python3", "train.py");

	ck_assert(kp_launcher_is_torchrun(t));
	ck_assert(kp_launcher_is_torchrun(m));
	ck_assert(!kp_launcher_is_torchrun(mpi));
	ck_assert(!kp_launcher_is_torchrun(py));
	ck_assert(kp_launcher_has(mpi, "-np"));
	ck_assert(!kp_launcher_has(mpi, "--no-python"));
	json_decref(t);
	json_decref(m);
	json_decref(mpi);
	json_decref(py);
}
END_TEST

START_TEST(test_filter_selects_nccl)
{
	/* regexes that select NCCL kernels, and ones that do not */
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("regex", ".*", NULL));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("regex", "regex:.*", NULL));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("regex", "AllReduce", NULL));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("regex", "^nccl", NULL));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("regex", "Kernel", NULL));
	ck_assert_ptr_null(kp_filter_selects_nccl("regex", ".*hgemm_byzj_v0.*", NULL));
	ck_assert_ptr_null(kp_filter_selects_nccl("regex", "^gemm", NULL));
	/* a regex POSIX cannot compile: only the word counts */
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("regex", "(?i)NCCL", NULL));
	ck_assert_ptr_null(kp_filter_selects_nccl("regex", "(?!x)gemm", NULL));
	/* no filter: every kernel; the label alone is .*NAME.* */
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("regex", NULL, NULL));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl(NULL, "", NULL));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("regex", NULL, "nccl"));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("regex", NULL, "Sum_f32"));
	ck_assert_ptr_null(kp_filter_selects_nccl("regex", NULL, "matmul"));
	/* exact names, kernel ids, NVTX ranges */
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("exact",
	    "ncclDevKernel_AllReduce_Sum_f32_RING_LL", NULL));
	ck_assert_ptr_null(kp_filter_selects_nccl("exact", "hgemm_byzj_v0", NULL));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("kernel-id", "::ncclDevKernel_Generic:1",
	    NULL));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("kernel-id", ":::3", NULL));
	ck_assert_ptr_nonnull(kp_filter_selects_nccl("kernel-id", ":7:regex:^nccl:2", NULL));
	ck_assert_ptr_null(kp_filter_selects_nccl("kernel-id", ":7:regex:^gemm:2", NULL));
	ck_assert_ptr_null(kp_filter_selects_nccl("kernel-id", "::hgemm_byzj_v0:2", NULL));
	ck_assert_ptr_null(kp_filter_selects_nccl("nvtx-range", "step/", NULL));
	ck_assert_str_eq(kp_filter_selects_nccl("regex", "AllReduce_Sum_f32_RING_LL$", NULL),
	    "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
}
END_TEST

START_TEST(test_rank_paths)
{
	struct kp_err err;
	char *d = kp_rank_dir("/p/details", 3), *pat, *x;

	ck_assert_str_eq(d, "/p/details/rank3");
	free(d);
	pat = kp_rank_pattern("/p/100%/details/.01_basic_raw.csv.7.tmp");
	ck_assert_str_eq(pat, "/p/100%%/details/rank%r/.01_basic_raw.csv.7.tmp");
	x = kp_rank_expand(pat, 12, &err);
	ck_assert_str_eq(x, "/p/100%/details/rank12/.01_basic_raw.csv.7.tmp");
	free(x);
	free(pat);
	pat = kp_rank_pattern("f.csv");
	ck_assert_str_eq(pat, "rank%r/f.csv");
	free(pat);
	ck_assert_ptr_null(kp_rank_expand("a%d", 1, &err));
	ck_assert_ptr_null(kp_rank_expand("a%", 1, &err));
	ck_assert_int_eq(err.status, KP_EXIT_USAGE);
}
END_TEST

static Suite *
ranks_suite(void)
{
	Suite *s = suite_create("ranks");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_rank_order_global_before_local);
	tcase_add_test(tc, test_rank_missing_and_malformed);
	tcase_add_test(tc, test_ranks_parse);
	tcase_add_test(tc, test_launcher_torchrun);
	tcase_add_test(tc, test_filter_selects_nccl);
	tcase_add_test(tc, test_rank_paths);
	suite_add_tcase(s, tc);
	return s;
}

KP_CHECK_MAIN(ranks_suite)
