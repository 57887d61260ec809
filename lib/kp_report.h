/* kp_report.h: final_report.md (lib/report*.c). */
#ifndef KP_REPORT_H
#define KP_REPORT_H

#include "kp_diag.h"

/* ---- report.c: final_report.md ---- */
/*
 * Read every artifact of the profile folder dir (docs/artifacts.md) and render the
 * report (sections in the order of kp-report(1)) as a malloc'd NUL-terminated
 * string.  A missing artifact is not an error: its section says what is missing
 * and which stage or program collects it.  A malformed artifact is (KP_EXIT_DATA).
 * The output depends only on the folder's files (no clock, no environment).
 */
char *kp_report_render(const char *dir, struct kp_err *err);
/* Render and write DIR/final_report.md atomically; returns the malloc'd path. */
char *kp_report_write(const char *dir, struct kp_err *err);

#endif
