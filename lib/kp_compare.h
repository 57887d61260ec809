/* kp_compare.h: Before/after comparison of metrics summaries
 * (lib/compare.c), used by kp-compare and kp-report. */
#ifndef KP_COMPARE_H
#define KP_COMPARE_H

#include <stdio.h>

#include <jansson.h>

#include "kp_diag.h"

/* Which way a summary key is better: documented in kp-compare(1). */
enum kp_direction {
	KP_DIR_LOWER = -1,	/* lower is better: time, conflicts, spills, stalls */
	KP_DIR_NONE = 0,	/* not judged, reported as "changed" */
	KP_DIR_HIGHER = 1	/* higher is better: occupancy, hit rates, IPC */
};
enum kp_direction kp_compare_direction(const char *key);

/*
 * Find and load a metrics summary: path is a profile folder (its
 * details/metrics_summary.json), a folder holding metrics_summary.json, or the
 * file itself.  *file_out (may be NULL) receives the malloc'd file path and
 * *profile_out (may be NULL) the malloc'd profile folder it belongs to.
 */
json_t *kp_compare_load(const char *path, char **file_out, char **profile_out,
    struct kp_err *err);

/* The "_YYYYMMDD_HHMMSS" timestamp of a profile id or path (its last component),
 * as "YYYYMMDD_HHMMSS" in out[16]; 0 ok, -1 when the id has none. */
int kp_profile_timestamp(const char *id, char out[16]);

/*
 * auto baseline: the newest profile folder of the same output root (the parent of
 * current_dir) whose id timestamp is earlier than the current one's and whose
 * primary kernel has the same function name.  Returns a malloc'd folder path, or
 * NULL with err (KP_EXIT_DATA) saying why; *none (may be NULL) is set to 1 when
 * the search ran and no earlier profile of the kernel exists (a first run), and
 * left alone when it could not search (no id timestamp, unreadable root).
 */
char *kp_compare_auto_baseline(const char *current_dir, const char *function, int *none,
    struct kp_err *err);

/*
 * The comparison object of a first run: the current kernel's values with no
 * baseline, verdict "NO BASELINE", verdict_reason built from why (the text
 * kp_compare_auto_baseline gave) and next_baseline = current_dir.
 */
json_t *kp_compare_first(json_t *current, const char *current_dir, const char *why,
    double tolerance_pct, struct kp_err *err);

/*
 * Compare two kernel objects of metrics summaries (kp_summary_primary()).
 * Returns the comparison object (the content of comparison/comparison.json,
 * schema "kp-comparison/1", see kp-compare(1)): tolerance_pct, rows (metric,
 * baseline, current, change, change_pct, direction, judgment, reason), verdict
 * ("IMPROVEMENT", "REGRESSION", "NO MATERIAL CHANGE"; "NO BASELINE" from
 * kp_compare_first) and verdict_reason.
 * Never divides by a zero baseline: such rows are "not comparable".
 */
json_t *kp_compare_kernels(json_t *baseline, json_t *current, double tolerance_pct,
    struct kp_err *err);

/* Render a comparison object as markdown (regression_report.md); -1 on write error. */
int kp_compare_markdown(json_t *cmp, FILE *fp);

/* Trend over N summaries (array of {"label","timestamp","kernel","primary_class"}
 * objects in time order): markdown table; -1 on write error. */
int kp_compare_trend_markdown(json_t *points, double tolerance_pct, FILE *fp);

#endif
