/*
 * kp_summary_keys.h: the summary keys of metrics_summary.json ("duration_ns",
 * "sm_throughput_pct", ...) and the ncu metrics each is taken from
 * (lib/summary_keys.c).  Every program that names a key reads it here.
 */
#ifndef KP_SUMMARY_KEYS_H
#define KP_SUMMARY_KEYS_H

#include <stddef.h>

/* The fixed keys, in the summary's order; stall keys ("stalls.<reason>") come
 * on top, one per stall metric of the page. */
enum {
	KP_SK_DURATION, KP_SK_SM, KP_SK_MEM, KP_SK_DRAM, KP_SK_L1, KP_SK_L2,
	KP_SK_ACHIEVED, KP_SK_THEORETICAL, KP_SK_REGS, KP_SK_BLOCK, KP_SK_GRID,
	KP_SK_WAVES, KP_SK_IPC, KP_SK_BANK, KP_SK_L1HIT, KP_SK_L2HIT, KP_SK_TENSOR,
	KP_SK_SPILL, KP_NSKEYS
};
struct kp_summary_key {
	const char *name;	/* "duration_ns" */
	const char *unit;	/* its base unit: "ns", "%", "" for counts and ratios */
	const char *meaning;	/* one line for people */
	const char *source;	/* the ncu metric(s) of the raw page it is taken from */
};
extern const struct kp_summary_key kp_summary_keys[KP_NSKEYS];
/* The fixed key of that name, or NULL (stall keys included). */
const struct kp_summary_key *kp_summary_key(const char *name);

/* The key a raw-page metric feeds (rank: lower wins within a launch; sum: the
 * sources add up), or -2 when it feeds no fixed key. */
int kp_summary_key_of_metric(const char *metric, int *rank, int *sum);
/* The key a details-page row (section, display name) feeds, or -2. */
int kp_summary_key_of_display(const char *section, const char *name);
/* A stall metric's reason: its length, *reason pointing into metric; 0 when
 * metric is no stall metric. */
size_t kp_summary_stall_of_metric(const char *metric, const char **reason);
/* Whether a raw metric name is the source of a summary key (stalls included). */
int kp_metric_feeds_summary(const char *metric);

#endif
