/* kp_shellwords.h: POSIX-shell words without expansion (lib/shellwords.c). */
#ifndef KP_SHELLWORDS_H
#define KP_SHELLWORDS_H

#include <jansson.h>

#include "kp_diag.h"

/* Split a command line the way a POSIX shell splits words (quotes, backslashes),
 * never expanding anything.  Returns a JSON array of strings or NULL+err. */
json_t *kp_shell_split(const char *line, struct kp_err *err);
/* Quote one word for a POSIX shell (malloc'd). */
char *kp_shell_quote(const char *word);

/* Escape every regex metacharacter of s (malloc'd). */
char *kp_regex_escape(const char *s);

/* The argv array as one line a POSIX shell reads back as the same words (malloc'd). */
char *kp_shell_join(json_t *argv);

#endif
