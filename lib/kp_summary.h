/* kp_summary.h: the metrics summary files written and read back (lib/summary.c). */
#ifndef KP_SUMMARY_H
#define KP_SUMMARY_H

#include <jansson.h>

#include "kp_diag.h"
#include "profile.h"

/* ---- the summary files (summary.c) ---- */

#define KP_METRICS_ALL kp_artifact_name(KP_ART_METRICS_ALL)

/* Whether metrics_summary.json keeps this ncu metric in a kernel's "metrics":
 * a summary key's source, a launch__ metric, or one kp's rules and derived
 * quantities read. */
int kp_key_metric(const char *name);

/* Whether a kernel of a loaded summary lacks metrics that metrics_all.json has. */
int kp_summary_partial(json_t *kernel);

/* Put every metric from the metrics_all.json beside summary_path into the
 * summary's kernels (a no-op for a summary without "metrics_all"). */
int kp_summary_load_all(json_t *summary, const char *summary_path, struct kp_err *err);

/* The primary kernel object of a summary (borrowed), or NULL. */
json_t *kp_summary_primary(json_t *summary);

/* A summary value of a kernel object by key ("duration_ns", "stalls.long_scoreboard",
 * or a full ncu metric name looked up in the kernel's "metrics"); 0 ok, -1 absent. */
int kp_summary_value(json_t *kernel, const char *key, double *out);

#endif
