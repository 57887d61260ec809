/*
 * tests/bench/merge.c: kp_merge_raw alone, as kp-collect calls it, for the
 * bench (tests/bench/run.sh) and the same-bytes test (tests/unit/check_merge.c
 * uses the library directly).  Usage: merge OUT STAGE=FILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_collect.h"
#include "kp_diag.h"

int
main(int argc, char *argv[])
{
	const char **paths, **stages;
	struct kp_err err;
	int i, n = argc - 2;

	if (n < 1) {
		fprintf(stderr, "usage: merge out.csv stage=file...\n");
		return 2;
	}
	paths = calloc((size_t)n, sizeof(*paths));
	stages = calloc((size_t)n, sizeof(*stages));
	if (paths == NULL || stages == NULL)
		return 4;
	for (i = 0; i < n; i++) {
		char *eq = strchr(argv[i + 2], '=');

		if (eq == NULL)
			return 2;
		*eq = '\0';
		stages[i] = argv[i + 2];
		paths[i] = eq + 1;
	}
	if (kp_merge_raw(paths, stages, (size_t)n, argv[1], &err) < 0) {
		fprintf(stderr, "merge: %s\n", err.msg);
		return 1;
	}
	free(paths);
	free(stages);
	return 0;
}
