/* source_evidence.h: a kernel's source page summed up as evidence for
 * kp-decide (lib/source_evidence.c). */
#ifndef KP_SOURCE_EVIDENCE_H
#define KP_SOURCE_EVIDENCE_H

#include "kp_diag.h"

#include <stdio.h>
#include <jansson.h>

struct kp_err;

/*
 * Read one source page (sass or cuda,sass view) and sum it up, each SASS
 * instruction once: a "kp-source-evidence/1" object with samples,
 * stall_samples {reason: n}, unattributed_samples, kind_samples {tensor,
 * atomic, barrier, fp64, xu, shared, global, local, fma, branch, other: n},
 * threads_per_inst, shared_wavefronts(_ideal), global_sectors(_ideal) and
 * divergent_branches (the last four only where the page has the columns).
 * NULL with err (KP_EXIT_DATA) when the input is no source page.
 */
json_t *kp_source_evidence_read(FILE *fp, const char *name, struct kp_err *err);

/* The same, a row at a time, for a reader that goes through the page anyway
 * (kp_hotspots_read_ev): new after kp_src_open, add every row kp_src_next
 * gives, result at the end (a new object, NULL out of memory).  add: -1 out
 * of memory. */
struct kp_src;
struct kp_src_row;
struct kp_evidence;
struct kp_evidence *kp_evidence_new(struct kp_src *s);
int kp_evidence_add(struct kp_evidence *e, const struct kp_src_row *r);
/* Whether a row of function at address was counted: 1 yes, 0 no, -1 out of
 * memory. */
int kp_evidence_has(struct kp_evidence *e, const char *function, const char *address);
json_t *kp_evidence_result(const struct kp_evidence *e, const struct kp_src *s);
void kp_evidence_free(struct kp_evidence *e);

/* The kind of a SASS family ("HGMMA" -> "tensor", "RED" -> "atomic"), or NULL. */
const char *kp_sass_kind(const char *family);

#endif
