/*
 * kp-rank-exec: the per-rank wrapper a launcher (torchrun, mpirun, srun)
 * starts in place of the job's command.  It reads its rank from the
 * launcher's variables and execs the profiler with the command on the ranks
 * listed, the command itself on the others.  It execs, never forks: the
 * launcher's signals and the exit status go straight through.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_ranks.h"
#include "profile.h"

static const char synopsis[] =
    "usage: kp-rank-exec [--ranks LIST] [--log-file PATTERN] -- PROFILER [OPTION ...] --\n"
    "                    COMMAND [ARG ...]\n";

enum { O_RANKS = 256, O_LOG };

static const struct option longopts[] = {
	{ "ranks", required_argument, NULL, O_RANKS },
	{ "log-file", required_argument, NULL, O_LOG },
	KP_OPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

/* File-level, so that what they hold stays reachable when a failure exits. */
static json_t *ranks;
static char **av, *path;

static const char *
env(const char *name)
{
	return getenv(name);
}

int
main(int argc, char **argv)
{
	const char *ranks_s = "0", *log = NULL, *var = NULL;
	const char *const *v;
	struct kp_err err;
	static char errbuf[1024];
	char **cmd, names[128];
	long rank;
	int ch, i, sep, rc;

	/* every rank shares the launcher's stderr: a message goes out in one write */
	setvbuf(stderr, errbuf, _IOLBF, sizeof(errbuf));
	kp_init(argv[0], synopsis);
	/* "+": options end at the first word that is not one (the profiler's own follow) */
	while ((ch = kp_getopt(argc, argv, "+h", longopts)) != -1) {
		switch (ch) {
		case O_RANKS: ranks_s = optarg; break;
		case O_LOG: log = optarg; break;
		}
	}
	argc -= optind;
	argv += optind;
	for (sep = 0; sep < argc && strcmp(argv[sep], "--") != 0; sep++)
		;
	if (sep == 0 || sep >= argc - 1)
		kp_usage(KP_EXIT_USAGE);	/* no profiler, or no "--" and command after it */
	cmd = argv + sep + 1;
	if ((ranks = kp_ranks_parse(ranks_s, &err)) == NULL)
		kp_die(KP_EXIT_USAGE, "--ranks: %s", err.msg);
	if (log != NULL && (path = kp_rank_expand(log, 0, &err)) == NULL)
		kp_die(KP_EXIT_USAGE, "--log-file: %s", err.msg);
	free(path);
	path = NULL;

	if ((rc = kp_rank_from_env(env, &rank, &var, &err)) < 0)
		kp_die_err(&err);
	if (rc == 1) {
		names[0] = '\0';
		for (v = kp_rank_vars; *v != NULL; v++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			    v == kp_rank_vars ? "" : ", ", *v);
		kp_die(KP_EXIT_ENV, "no rank: none of %s is set (run it under a launcher: "
		    "torchrun, mpirun, srun)", names);
	}
	if (!kp_ranks_has(ranks, rank)) {
		json_decref(ranks);
		ranks = NULL;
		execvp(cmd[0], cmd);
		kp_die(KP_EXIT_TARGET, "rank %ld (%s): cannot execute %s:", rank, var, cmd[0]);
	}
	json_decref(ranks);
	ranks = NULL;
	/* the profiler's words, its log file (this rank's), the command */
	if ((av = calloc((size_t)argc + 3, sizeof(*av))) == NULL)
		kp_die(KP_EXIT_ENV, "out of memory");
	for (i = 0; i < sep; i++)
		av[i] = argv[i];
	if (log != NULL) {
		if ((path = kp_rank_expand(log, rank, &err)) == NULL)
			kp_die_err(&err);
		av[i++] = "--log-file";
		av[i++] = path;
	}
	for (; *cmd != NULL; cmd++)
		av[i++] = *cmd;
	av[i] = NULL;
	execvp(av[0], av);
	kp_die(KP_EXIT_TARGET, "rank %ld (%s): cannot execute %s:", rank, var, av[0]);
}
