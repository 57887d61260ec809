/* kp_target.h: profile-target.yaml: build, validate, load, write (lib/target.c). */
#ifndef KP_TARGET_H
#define KP_TARGET_H

#include <stddef.h>

#include <jansson.h>

#include "kp_diag.h"

/*
 * The target is held in memory as a JSON tree with the same sections and keys
 * as the YAML file (schema in kp-target(5)).  kp_target_load() parses the YAML,
 * validates every known field (type, allowed values) and fills defaults; an
 * error names the file, the line and the field:
 *   profile-target.yaml:12: kernel.filter_mode: "regexp" is not one of ...
 * privilege.password_storage must be "forbidden".
 */
json_t *kp_target_load(const char *path, struct kp_err *err);
int kp_target_validate(json_t *target, struct kp_err *err);	/* same checks, no lines */
/* Is s[0..n) an environment variable name, [A-Za-z_][A-Za-z0-9_]*? */
int kp_env_name_valid(const char *s, size_t n);
int kp_target_write(json_t *target, const char *path, struct kp_err *err);	/* atomic YAML */
/* The same to a path the user named (how: KP_OUT_NAMED, see kp_out_open). */
int kp_target_write_out(json_t *target, const char *path, int how, struct kp_err *err);
/* target.SECTION.KEY when it is a string (borrowed), else NULL. */
const char *kp_target_str(json_t *target, const char *section, const char *key);

/* ---- additions of the target module ---- */
/* kp_target_validate() and kp_target_load() also fill every absent known field
 * with its default (kp-target(5)); unknown keys are kept as they are. */

/* A profile id: only [A-Za-z0-9_.-], no "..", not starting with '.' or '-',
 * at most KP_PROFILE_ID_MAX bytes.  1 valid, 0 not. */
#define KP_PROFILE_ID_MAX 200
int kp_profile_id_valid(const char *id);
/* A kernel name made into the start of a profile id (malloc'd, never empty). */
char *kp_profile_id_stem(const char *kernel);

#endif
