/* kp_utf8.h: where a byte string stops being UTF-8 (lib/utf8.c). */
#ifndef KP_UTF8_H
#define KP_UTF8_H

#include <stddef.h>

#include "kp_diag.h"

/* ---- utf8.c ---- */

/* The offset of the first byte of str that is not well-formed UTF-8, or len. */
size_t kp_utf8_check(const char *str, size_t len);
/*
 * A command whose arguments become text (YAML, JSON, a command line kp runs):
 * the first of argv[1..argc) that is not UTF-8, named by its option (or as word N
 * after "--args"/"--"), is a usage error; dropping it would run another command.
 * skip: NULL-terminated options whose values are only file names to read.
 */
int kp_args_text(int argc, char **argv, const char *const *skip, struct kp_err *err);

#endif
