/* kp_collect.h: the record of a kp-collect run (lib/collect.c). */
#ifndef KP_COLLECT_H
#define KP_COLLECT_H

#include <stddef.h>

#include <jansson.h>

#include "kp_diag.h"

/* ---- collect.c: the record of a run ---- */

/* Write YAML of a JSON tree (run_manifest.yaml) atomically. */
int kp_manifest_write(json_t *manifest, const char *path, struct kp_err *err);

/*
 * commands.sh: "#!/bin/sh", a comment, then for each run: cd to its working
 * directory and its argv, every word shell-quoted, env as VAR=value words.
 * runs: array of {argv, cwd, env, output}.  Written atomically.
 */
int kp_commands_write(json_t *runs, const char *path, struct kp_err *err);
char *kp_commands_text(json_t *runs, struct kp_err *err);	/* malloc'd */

/*
 * details/metrics_raw.csv: the raw-page stage files merged, one row per launch.
 * A launch is keyed by kernel name and its order among that kernel's rows in a
 * stage file (the k-th profiled launch of a kernel is the same launch in every
 * stage of one run: same filter, same skip).  Columns: the union of the stages'
 * columns in first-seen order, then "Launch" and "Stages"; a value comes from
 * the first stage (in the given order) that has the column.  Units row kept.
 */
int kp_merge_raw(const char *const *paths, const char *const *stages, size_t n,
    const char *out, struct kp_err *err);

#endif
