/* kp_metrics.h: kp-extract's engine: ncu raw/details CSV -> summary
 * (lib/metrics.c, csvpage.c, summary_write.c and the files of metrics_int.h). */
#ifndef KP_METRICS_H
#define KP_METRICS_H

#include <stddef.h>

#include <jansson.h>

#include "kp_diag.h"

/*
 * Read ncu CSV files (raw or details page, one file per stage; auto-detected)
 * in one streaming pass each and return the metrics summary object
 * (schema "kp-metrics-summary/2", documented in kp-extract(1)), every metric
 * in each kernel's "metrics".  Launches of
 * different files are kept apart (a launch is identified by file + ID).
 * When launches_out is not NULL it receives a new JSON array with one object
 * per launch (the metrics_extracted.jsonl records, without profile_dir);
 * all_metrics adds every metric of the launch to those records.
 */
json_t *kp_extract_files(const char *const *paths, size_t npaths, int all_metrics,
    json_t **launches_out, struct kp_err *err);

/*
 * The same, written to OUTDIR/metrics_summary.json (each kernel's "metrics"
 * and "units" cut to the key metrics, kp_key_metric; "metrics_all" names the
 * other file), OUTDIR/metrics_all.json (schema "kp-metrics-all/1": the
 * kernels in the same order with every metric) and
 * OUTDIR/metrics_extracted.jsonl atomically (all three or none), a kernel at
 * a time: memory does not grow with the kernels or the launches.
 * profile_dir (may be NULL) is added to every JSONL record.  Once the three
 * are in place, each (may be NULL) is called for every kernel in the
 * summary's order with the kernel's object as written but for its "metrics",
 * "units", "metrics_count" and "ids", and whether it is the summary's
 * "primary" (a borrowed reference; -1 from each stops the calls).  Returns 0,
 * or -1 with err.
 */
int kp_extract_to_dir(const char *const *paths, size_t npaths, const char *outdir,
    const char *profile_dir, int all_metrics,
    int (*each)(json_t *kernel, int primary, void *arg, struct kp_err *err), void *arg,
    struct kp_err *err);

/* What the first CSV record of a file says it is: "raw", "details", "source",
 * "summary", "session" or "unknown"; NULL with err when the file cannot be read
 * or holds no CSV record. */
const char *kp_metrics_page(const char *path, struct kp_err *err);

/* A kernel name without its parameter list (the last top-level parenthesised
 * group), malloc'd: "f<int>(int, float)" -> "f<int>". */
char *kp_kernel_function(const char *name);

#endif
