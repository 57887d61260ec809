/* kp_target.h: see kp.h.  profile-target.yaml: build, validate, load, write.
 * Owner: the target module (lib/target*.c, lib/shellwords.c, lib/request.c). */
#ifndef KP_TARGET_H
#define KP_TARGET_H

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
int kp_target_write(json_t *target, const char *path, struct kp_err *err);	/* atomic YAML */

/* Split a command line the way a POSIX shell splits words (quotes, backslashes),
 * never expanding anything.  Returns a JSON array of strings or NULL+err. */
json_t *kp_shell_split(const char *line, struct kp_err *err);
/* Quote one word for a POSIX shell (malloc'd). */
char *kp_shell_quote(const char *word);

/* Escape every regex metacharacter of s (malloc'd). */
char *kp_regex_escape(const char *s);

#endif
