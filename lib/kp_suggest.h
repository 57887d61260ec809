/* kp_suggest.h: candidate target commands of a repository (lib/suggest.c). */
#ifndef KP_SUGGEST_H
#define KP_SUGGEST_H

#include <jansson.h>

#include "kp_diag.h"

/* suggest.c: candidate target commands found in a repository folder, best first:
 * [{"command": "./build/bench", "score": 60, "evidence": ["..."]}]. */
json_t *kp_suggest_targets(const char *dir, struct kp_err *err);

#endif
