/* kp_request.h: free-text requirements to target fields (lib/request.c). */
#ifndef KP_REQUEST_H
#define KP_REQUEST_H

#include <jansson.h>

#include "kp_diag.h"

/*
 * request.c: free-text requirements ("with visual report, source and roofline",
 * "no sudo") to fields.  texts is an array of strings.  Returns
 *   {"fields": {"visual": true, "source": true, "source_views": ["sass"], ...},
 *    "unsupported": [{"text": ..., "reason": ...}],
 *    "not_understood": ["..."],
 *    "original": ["<each text, a password value redacted>"]}
 * Field keys: visual format source source_views roofline memory compute
 * occupancy full compare baseline bottleneck microbenchmark triton autotune
 * sudo clock_control (present only when the text mentions them).
 */
json_t *kp_request_parse(json_t *texts, struct kp_err *err);
/* A copy of text with whatever follows the word "password" replaced (malloc'd). */
char *kp_request_redact(const char *text);

#endif
