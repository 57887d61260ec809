/*
 * ranks.c: jobs a launcher starts.  The rank of a process comes from the
 * launcher's own variables, tried in one documented order; the ranks to
 * profile are a short list of numbers; torchrun needs --no-python to start
 * kp-rank-exec; and a filter that would select an NCCL kernel is found here
 * (a profiled rank that replays a collective kernel waits for peers that are
 * not replaying it).  Nothing here reads the environment by itself.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_ranks.h"

/* torchrun sets RANK (and LOCAL_RANK), Open MPI OMPI_COMM_WORLD_RANK, MPICH
 * and Intel MPI PMI_RANK, Slurm's srun SLURM_PROCID.  A global rank before a
 * local one: LOCAL_RANK is the rank only on a single node. */
const char *const kp_rank_vars[] = {
	"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK", NULL
};

/* A rank number: digits only, 0..KP_RANK_MAX. */
static int
rank_number(const char *s, long *out)
{
	long v = 0;
	const char *p;

	if (*s == '\0' || strlen(s) > 7)
		return -1;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	if (v > KP_RANK_MAX)
		return -1;
	*out = v;
	return 0;
}

int
kp_rank_from_env(const char *(*get)(const char *), long *rank, const char **var,
    struct kp_err *err)
{
	const char *const *v;
	const char *s;

	for (v = kp_rank_vars; *v != NULL; v++) {
		if ((s = get(*v)) == NULL || *s == '\0')
			continue;
		if (rank_number(s, rank) < 0)
			return kp_errf(err, KP_EXIT_ENV, "%s=\"%.40s\" is not a rank (0..%d)", *v, s,
			    KP_RANK_MAX);
		*var = *v;
		return 0;
	}
	return 1;
}

json_t *
kp_ranks_parse(const char *s, struct kp_err *err)
{
	json_t *a = json_array();
	const char *p = s, *comma;
	char word[32];
	long v;

	if (a == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	for (;;) {
		size_t n;

		comma = strchr(p, ',');
		n = comma != NULL ? (size_t)(comma - p) : strlen(p);
		snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) ? n : sizeof(word) - 1),
		    p);
		if (n >= sizeof(word) || rank_number(word, &v) < 0) {
			kp_errf(err, KP_EXIT_USAGE, "\"%.*s\" is not a rank (0..%d)", (int)(n > 40 ?
			    40 : n), p, KP_RANK_MAX);
			goto bad;
		}
		if (kp_ranks_has(a, v)) {
			kp_errf(err, KP_EXIT_USAGE, "rank %ld is listed twice", v);
			goto bad;
		}
		if (json_array_size(a) == KP_RANKS_MAX) {
			kp_errf(err, KP_EXIT_USAGE, "more than %d ranks", KP_RANKS_MAX);
			goto bad;
		}
		json_array_append_new(a, json_integer(v));
		if (comma == NULL)
			return a;
		p = comma + 1;
	}
bad:
	json_decref(a);
	return NULL;
}

char *
kp_ranks_text(json_t *ranks)
{
	size_t i, n = json_array_size(ranks);
	char *s = malloc(n * 9 + 1), *o = s;

	if (s == NULL)
		return NULL;
	*s = '\0';
	for (i = 0; i < n; i++)
		o += sprintf(o, "%s%lld", i > 0 ? "," : "",
		    (long long)json_integer_value(json_array_get(ranks, i)));
	return s;
}

int
kp_ranks_has(json_t *ranks, long rank)
{
	json_t *v;
	size_t i;

	json_array_foreach(ranks, i, v)
		if (json_is_integer(v) && json_integer_value(v) == rank)
			return 1;
	return 0;
}

static const char *
base_name(const char *s)
{
	const char *b = strrchr(s, '/');

	return b != NULL ? b + 1 : s;
}

int
kp_launcher_has(json_t *words, const char *w)
{
	json_t *v;
	size_t i;

	json_array_foreach(words, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), w) == 0)
			return 1;
	return 0;
}

int
kp_launcher_is_torchrun(json_t *words)
{
	const char *w0 = json_string_value(json_array_get(words, 0));
	json_t *v;
	size_t i;

	if (w0 == NULL)
		return 0;
	if (strcmp(base_name(w0), "torchrun") == 0)
		return 1;
	if (strncmp(base_name(w0), "python", 6) != 0)
		return 0;
	json_array_foreach(words, i, v) {
		const char *m = json_string_value(json_array_get(words, i + 1));

		if (json_is_string(v) && strcmp(json_string_value(v), "-m") == 0 && m != NULL &&
		    (strcmp(m, "torch.distributed.run") == 0 ||
		    strcmp(m, "torch.distributed.launch") == 0))
			return 1;
	}
	return 0;
}

/* Kernel names of NCCL as ncu shows them: function names and demangled ones. */
static const char *const nccl_samples[] = {
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL",
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096UL>)",
	"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
	"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096UL>)",
	"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096UL>)",
	"ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096UL>)",
	NULL
};

/* The sample a regex (ncu's "regex:" prefix allowed) matches anywhere, or NULL. */
static const char *
regex_selects(const char *re)
{
	const char *const *s;
	const char *p;
	regex_t rx;

	if (strncmp(re, "regex:", 6) == 0)
		re += 6;
	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0) {
		/* not POSIX (ncu takes more): only the word itself counts */
		for (p = re; *p != '\0'; p++)
			if (strncasecmp(p, "nccl", 4) == 0)
				return nccl_samples[0];
		return NULL;
	}
	for (s = nccl_samples; *s != NULL; s++)
		if (regexec(&rx, *s, 0, NULL, 0) == 0)
			break;
	regfree(&rx);
	return *s;
}

/* --kernel-id CTX:STREAM:[OP:]NAME:INVOCATION: its name part (NAME may be
 * regex:EXPR, whose ':'s are its own); an empty name is any kernel. */
static const char *
kernel_id_selects(const char *id)
{
	const char *rx = strstr(id, "regex:"), *last = strrchr(id, ':'), *prev;
	char name[512];

	if (last == NULL)
		return NULL;
	if (rx != NULL && rx < last) {
		snprintf(name, sizeof(name), "%.*s", (int)(last - rx), rx);
		return regex_selects(name);
	}
	for (prev = last; prev > id && prev[-1] != ':'; prev--)
		;
	if (prev == id)
		return NULL;	/* not the CTX:STREAM:NAME:INVOCATION form */
	if (prev == last)
		return nccl_samples[0];	/* no name: any kernel */
	return strncasecmp(prev, "nccl", 4) == 0 ? nccl_samples[0] : NULL;
}

const char *
kp_filter_selects_nccl(const char *mode, const char *filter, const char *name)
{
	int has_f = filter != NULL && *filter != '\0';
	const char *const *s;

	if (mode == NULL)
		mode = "regex";
	if (strcmp(mode, "nvtx-range") == 0)
		return NULL;
	if (strcmp(mode, "kernel-id") == 0)
		return has_f ? kernel_id_selects(filter) : NULL;
	if (!has_f && name != NULL && *name != '\0') {
		/* the label alone: ".*NAME.*" escaped, i.e. NAME anywhere (exact: itself) */
		if (strcmp(mode, "exact") == 0)
			return strncasecmp(name, "nccl", 4) == 0 ? nccl_samples[0] : NULL;
		for (s = nccl_samples; *s != NULL; s++)
			if (strstr(*s, name) != NULL)
				return *s;
		return NULL;
	}
	if (!has_f)
		return nccl_samples[0];	/* no filter: every kernel */
	if (strcmp(mode, "exact") == 0)
		return strncasecmp(filter, "nccl", 4) == 0 ? nccl_samples[0] : NULL;
	return regex_selects(filter);
}
