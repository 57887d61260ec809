/*



 */
#ifndef KP_REPORT_INT_H
#define KP_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>
#include "kp_diag.h"
#include "profile.h"

struct kp_err;
struct kp_summary_file;

/* Everything the report is made from: the folder's artifacts, loaded once. */
struct rep {
	const char *dir;
	FILE *fp;
	json_t *target, *manifest, *summary, *kernel, *decision, *hotspots, *cmp;
	struct kp_summary_file *sumf;	/* holds summary: only kernel is built */
	int decision_fallback;	/* classified here from the summary */
	char *commands;		/* commands.sh */
	int have_env, have_visual, have_comparison;
	char fallback_why[256];
};

/* ---- report_load.c ---- */
/* The string (rep_jstr) or the value (rep_jget) at a dotted path, or NULL. */
const char *rep_jstr(json_t *o, const char *path);
/* The distinct launches of a summary kernel (its "ids"), or 0 when unknown
 * (no ids, or ids_truncated): "launches" counts each pass's measurement. */
long long rep_distinct_launches(json_t *kernel);
json_t *rep_jget(json_t *o, const char *path);
/* A scalar as text (numbers and booleans too, written into buf), or NULL. */
const char *rep_jtext(json_t *v, char *buf, size_t len);
/* A hotspot field as text, in one of 8 rotating static buffers. */
const char *rep_hf(json_t *h, const char *key);
/* Whether dir/rel is a file or a folder. */
int rep_exists_in(const char *dir, const char *rel);
/* Load every artifact of r->dir into r; -1 with err on a malformed one. */
int rep_load_all(struct rep *r, struct kp_err *err);
void rep_free(struct rep *r);

/* ---- report.c: Markdown pieces ---- */
/* s as the text of a table cell ('|' escaped, newlines made spaces). */
void rep_put_cell(FILE *fp, const char *s);
/* "[details/x.json](details/x.json)": a link to an artifact of the folder. */
void rep_link(struct rep *r, enum kp_artifact a);
/* "_Missing: WHAT. Why: WHY. Collect it with: HOW._" */
void rep_missing(struct rep *r, const char *what, const char *why, const char *how);

/* ---- report_run.c: the sections about the run ---- */
void rep_sec_target(struct rep *r);
void rep_sec_filter(struct rep *r);
void rep_sec_profiler(struct rep *r);
void rep_sec_commands(struct rep *r);
void rep_sec_collected(struct rep *r);
void rep_sec_next(struct rep *r);
void rep_sec_comparison(struct rep *r);
void rep_sec_visual(struct rep *r);
/* How many stage CSV files the folder holds. */
int rep_stage_count(struct rep *r);

/* ---- report_ranks.c: a job a launcher started (the manifest's job) ---- */
void rep_sec_ranks(struct rep *r);

/* ---- report_verdict.c: the verdict of bottleneck_decision.json ---- */
void rep_sec_classification(struct rep *r);
/* "Nsight Compute's rules", only when the decision holds ncu's. */
void rep_sec_ncu(struct rep *r);
/* The limitation lines of the decision (partially evaluated rules, missing
 * metrics and the pass that would measure them); whether it wrote any. */
int rep_verdict_limitations(struct rep *r);

/* ---- report_findings.c: the sections about the kernel ---- */
void rep_sec_evidence(struct rep *r);
void rep_sec_hotspots(struct rep *r);
void rep_sec_hypotheses(struct rep *r);
void rep_sec_confidence(struct rep *r);
void rep_sec_limitations(struct rep *r);

#endif
