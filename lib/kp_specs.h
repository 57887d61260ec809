/* kp_specs.h: GPU limits and peaks from
 * references/nvidia/architectures/gpu_specs.yaml (schema kp-gpu-specs/1).
 * Owner: the specs module (lib/specs.c). */
#ifndef KP_SPECS_H
#define KP_SPECS_H

#include <jansson.h>

#include "kp_diag.h"

/* Load the file (NULL path: the installed default) as JSON {"gpus": [...]}. */
json_t *kp_specs_load(const char *path, struct kp_err *err);
/* The entry whose name equals or whose "match" substrings occur in device_name
 * (borrowed), or NULL. */
json_t *kp_specs_find(json_t *specs, const char *device_name);

#endif
