/* kp_ranks.h: jobs a launcher starts (torchrun, mpirun, srun): which rank a
 * process is, the list of ranks to profile, what the launcher needs, and
 * whether a kernel filter would select NCCL's kernels (lib/ranks.c).  Pure:
 * nothing here reads the environment by itself, runs or prints anything. */
#ifndef KP_RANKS_H
#define KP_RANKS_H

#include <jansson.h>

#include "kp_diag.h"

#define KP_RANKS_MAX 64		/* ranks profiled at once */
#define KP_RANK_MAX 1000000	/* the largest rank number */

/* The variables a rank is read from, in the order they are tried (kp-rank-exec(1)):
 * RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, LOCAL_RANK; NULL-ended. */
extern const char *const kp_rank_vars[];

/*
 * The rank of a process whose environment get() reads (getenv, or a table in a
 * test): the first variable of kp_rank_vars that is set and not empty.
 * Returns 0 (*rank, *var the variable's name), 1 when none is set, -1 + err
 * (KP_EXIT_ENV) when the first one set is not a number 0..KP_RANK_MAX.
 */
int kp_rank_from_env(const char *(*get)(const char *name), long *rank, const char **var,
    struct kp_err *err);

/* "1" or "0,2,3": a JSON array of distinct integers 0..KP_RANK_MAX, at most
 * KP_RANKS_MAX, in the order given; NULL + err (KP_EXIT_USAGE) naming the bad word. */
json_t *kp_ranks_parse(const char *s, struct kp_err *err);
/* The same list as text, "0,2,3" (malloc'd). */
char *kp_ranks_text(json_t *ranks);
/* Is rank in the array? */
int kp_ranks_has(json_t *ranks, long rank);

/* Is the launcher (an array of words) torchrun (torchrun, python -m
 * torch.distributed.run or torch.distributed.launch)?  Then the program it
 * starts must be an executable, not a Python script: it needs --no-python. */
int kp_launcher_is_torchrun(json_t *words);
/* Does the launcher already have the word w? */
int kp_launcher_has(json_t *words, const char *w);

/*
 * Would the kernel filter (mode exact | regex | kernel-id | nvtx-range, the
 * filter, the kernel's label) select a kernel of NCCL?  The filter is tried on
 * sample NCCL kernel names (ncclDevKernel_AllReduce_Sum_f32_RING_LL, ...) the
 * way kp hands it to ncu: a label alone is the regex .*NAME.*; no filter at all
 * selects every kernel; a regex matches anywhere (POSIX extended; one that does
 * not compile counts when it holds "nccl" in any case); nvtx-range never.
 * Returns the sample name that matched (static), or NULL.
 */
const char *kp_filter_selects_nccl(const char *mode, const char *filter, const char *name);

#endif
