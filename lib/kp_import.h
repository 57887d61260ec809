/* kp_import.h: what an existing Nsight Compute report holds, read from the
 * pages `ncu --import` prints (lib/import.c).  It runs nothing. */
#ifndef KP_IMPORT_H
#define KP_IMPORT_H

#include <jansson.h>

#include "kp_diag.h"

/* The launch rows of a raw or details page: CSV records whose first field
 * (ID) is a number; 0 for a page without any, -1 when it cannot be read. */
long kp_import_page_rows(const char *csv_path);

/* The sections a details page names ("Section Name"), each once, in the order
 * they first appear: a JSON array of strings, or NULL + err. */
json_t *kp_import_sections(const char *details_csv, struct kp_err *err);
/* 1 when the sections hold ncu's Source Counters (the source page has data). */
int kp_import_has_source(json_t *sections);
/* 1 when every section is one of ncu's basic set (SpeedOfLight, LaunchStats,
 * Occupancy, WorkloadDistribution): the report is a basic one. */
int kp_import_basic_only(json_t *sections);

/* The attributes of the session page (--page session): every "name","value"
 * row of its blocks (Launch Settings, Session Info, Device Attributes), the
 * first value of a name kept: a JSON object of strings, or NULL + err. */
json_t *kp_import_session(const char *session_csv, struct kp_err *err);

/* The kernel names of a per-kernel summary (--print-summary per-kernel
 * --csv), each once, in order: a JSON array, or NULL + err. */
json_t *kp_import_kernels(const char *summary_csv, struct kp_err *err);

#endif
