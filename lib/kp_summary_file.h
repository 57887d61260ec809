/* kp_summary_file.h: a metrics_summary.json read for one or two of its
 * kernels (lib/summary_file.c). */
#ifndef KP_SUMMARY_FILE_H
#define KP_SUMMARY_FILE_H

#include <stddef.h>

#include <jansson.h>

#include "kp_diag.h"

/*
 * The file checked whole (lib/jsonskim.c) but built only in part: the
 * summary's members but "kernels" as jansson reads them, and in "kernels"
 * an object per kernel holding only its "name" and "function" (those it
 * has) until kp_summary_kernel builds it whole.  That is all
 * kp_summary_load_all and a pick by name read of the other kernels.  A text
 * the skim does not judge is read whole, as kp_json_load_file does, with
 * its errors.
 */
struct kp_summary_file {
	json_t *summary;	/* owned; "kernels" of stubs until built */
	char *text;		/* the file, while a kernel is unbuilt */
	size_t len;
	struct kp_summary_span {
		size_t off, len;	/* len 0: built (or never a stub) */
	} *kspan;
	size_t nk;
	char *path;		/* a copy, for messages */
};

struct kp_summary_file *kp_summary_open(const char *path, struct kp_err *err);

/* Kernel i of "kernels" built whole (borrowed), or NULL with err set: i out
 * of range, or no "kernels" array.  Build the kernels a program reads before
 * kp_summary_load_all puts metrics into them. */
json_t *kp_summary_kernel(struct kp_summary_file *f, size_t i, struct kp_err *err);

void kp_summary_close(struct kp_summary_file *f);

#endif
