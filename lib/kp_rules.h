/* kp_rules.h: Bottleneck rules (references/rules/bottleneck_rules.yaml):
 * load, evaluate, and the follow-up thresholds shared with kp-collect.
 * Owner: the rules module (lib/rules*.c). */
#ifndef KP_RULES_H
#define KP_RULES_H

#include <stddef.h>

#include <jansson.h>

#include "kp_diag.h"

struct kp_rules;

/* Load and validate a rules file; errors name the rule and the line (KP_EXIT_DATA). */
struct kp_rules *kp_rules_load(const char *path, struct kp_err *err);
/* The installed default rules (kp_datafile("rules/bottleneck_rules.yaml")). */
struct kp_rules *kp_rules_load_default(struct kp_err *err);
void kp_rules_free(struct kp_rules *r);

/*
 * Evaluate the rules on one kernel object of a metrics summary, with optional
 * hotspot rows (a JSON array of source_hotspots rows, may be NULL).  Returns
 * the decision object (the content of bottleneck_decision.json, see kp-decide(1)).
 */
json_t *kp_rules_decide(struct kp_rules *r, json_t *kernel, json_t *hotspots,
    struct kp_err *err);

/*
 * The same for a kernel of a summary loaded from summary_path: when a metric
 * is missing from the short map of metrics_summary.json, metrics_all.json is
 * read into the summary (kp_summary_load_all) and the rules run again.
 */
json_t *kp_rules_decide_summary(struct kp_rules *r, json_t *summary, const char *summary_path,
    json_t *kernel, json_t *hotspots, struct kp_err *err);

/*
 * Evidence beyond the metrics for the next decisions (both borrowed, may be
 * NULL): the source page's summary (kp-source-evidence/1, from kp-hotspots)
 * and ncu's own rule results (kp_ncu_rules_read).
 */
void kp_rules_set_evidence(struct kp_rules *r, json_t *src, json_t *ncu_rules);

/*
 * The ncu sections (the rules file's evidence_sections) that measure what the
 * rules needed and did not find in kernel: a new JSON array of section names,
 * possibly empty; *missing (may be NULL) gets the metric names they cover.
 * The source page's quantities (src.*) are not asked for: the source pass
 * gives them.
 */
json_t *kp_rules_evidence_sections(struct kp_rules *r, json_t *kernel, json_t **missing,
    struct kp_err *err);

/*
 * The ncu sections of the rules file's evidence_sections whose metric name
 * prefixes match metric, in the file's order: a new JSON array, possibly empty
 * (a src.* quantity comes from the source page, never from a section).
 */
json_t *kp_rules_metric_sections(const struct kp_rules *r, const char *metric);

/*
 * kp-collect's follow-up stage after basic, from the same thresholds:
 * "memory", "compute", "occupancy" or "speed-of-light".  why receives the
 * numbers behind the choice ("memory_throughput_pct 89.5 >= 60 ...").
 * The thresholds are the rules file's followup: (their only source); with r
 * NULL or a file without followup: NULL, and why says so.
 */
const char *kp_rules_followup(struct kp_rules *r, json_t *kernel, char *why, size_t whylen);

#endif
