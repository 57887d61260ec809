/* ncu_rules.h: Nsight Compute's guided-analysis rule results from a details
 * page (lib/ncu_rules.c). */
#ifndef KP_NCU_RULES_H
#define KP_NCU_RULES_H

#include "kp_diag.h"

#include <jansson.h>

struct kp_err;

/*
 * The rule results of a details CSV, one per rule name (its largest estimated
 * speedup), largest first: [{rule, type, speedup_type, estimated_speedup_pct}].
 * NULL with err: unreadable (KP_EXIT_DATA/ENV) or no "Rule Name" column.
 */
json_t *kp_ncu_rules_read(const char *path, struct kp_err *err);

#endif
