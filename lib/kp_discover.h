/* kp_discover.h: ranking the kernels of a discovery CSV (lib/discover.c). */
#ifndef KP_DISCOVER_H
#define KP_DISCOVER_H

#include <jansson.h>

#include "kp_diag.h"

/* ---- discover.c: ranking kernels from a discovery raw CSV ---- */

/*
 * Read a raw-page CSV (gpu__time_duration.sum, launch__grid_size,
 * launch__block_size, launch__registers_per_thread; any subset) and return the
 * kernel_candidates.json object (schema kp-kernel-candidates/1): one entry per
 * distinct kernel name, ranked by hint match (hint: a case-insensitive
 * substring of the name, or NULL), then total duration, then launches.
 */
json_t *kp_discover_file(const char *path, const char *hint, struct kp_err *err);

#endif
