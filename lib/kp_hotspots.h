/* kp_hotspots.h: ranked hotspots of a source page and their CSV
 * (lib/hotspots.c, hotspots_agg.c, hotspots_rank.c, hotspots_csv.c). */
#ifndef KP_HOTSPOTS_H
#define KP_HOTSPOTS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_source.h"

/*
 * hotspots.c: ranked hotspots of one kernel's source page.
 */
/* LINE: a source line (cuda,sass, ptx); RANGE: an address range of a sass page
 * (between branches and branch targets); INSN: an instruction under either. */
enum kp_hs_level { KP_HS_LINE = 1, KP_HS_INSN, KP_HS_UNAVAILABLE, KP_HS_RANGE };

struct kp_hotspot {
	enum kp_hs_level level;
	int rank;		/* of the top-level row (instructions: their line's) */
	char *source_file;	/* "" when unknown */
	long line;		/* 0 when unknown */
	char *function;
	char *sass_opcode;
	char *ptx_opcode;
	char *metric;
	double value;		/* NAN for the unavailable row */
	char *stall_reason;	/* "" when none */
	const char *bottleneck_class;	/* a kp-decide taxonomy id or "" */
	const char *confidence;	/* high, medium, low, best_effort, none */
	char *evidence;
	char *address;		/* instruction: "0x..."; range: "0xA-0xB"; "" otherwise */
	double samples;		/* the row's warp stall samples (0 when none) */
	double stall_samples;	/* of them, stall_reason's; NAN when no reason is named */
	double unattributed;	/* of them, those no stall column of the page holds */
};

struct kp_hotspots {
	enum kp_src_kind kind;
	struct kp_hotspot *rows;
	size_t n;
	double total;		/* the kernel's total of the metric */
	size_t copies;		/* launch copies aggregated */
	size_t duplicates;	/* repeated blocks ignored */
	size_t parts;		/* the parts the page was read in, on threads (1: one) */
};

struct kp_hs_opts {
	const char *metric;	/* NULL: "Warp Stall Sampling (All Samples)" */
	int top;		/* top-level rows, default 20 */
	int per_line;		/* instructions under a line, default 3 */
};

#define KP_HS_DEFAULT_METRIC "Warp Stall Sampling (All Samples)"

/* Read one source page and rank it.  An unknown metric is KP_EXIT_USAGE (the
 * valid names are kp_src_metric_numeric() columns of kp_src_open()); a page without samples gives one
 * KP_HS_UNAVAILABLE row. */
struct kp_hotspots *kp_hotspots_read(FILE *fp, const char *name,
    const struct kp_hs_opts *o, struct kp_err *err);
/* The same, and with evidence non-NULL the page's kp_source_evidence_read()
 * object summed in the same pass into *evidence (NULL where that would be
 * NULL, and whenever this returns NULL). */
struct kp_hotspots *kp_hotspots_read_ev(FILE *fp, const char *name,
    const struct kp_hs_opts *o, json_t **evidence, struct kp_err *err);
/* One KP_HS_UNAVAILABLE row saying why. */
struct kp_hotspots *kp_hotspots_unavailable(const char *metric, const char *why);
void kp_hotspots_free(struct kp_hotspots *h);
/* Bottleneck class from the opcode family of the waiting instruction (or of
 * its producer), the stall reason and whether shared accesses conflict. */
const char *kp_hotspot_class(const char *opcode, const char *reason, int conflicts);
/* The CSV (header and rows, RFC 4180) to fp; -1 on a write error. */
int kp_hotspots_write_csv(FILE *fp, const struct kp_hotspots *h, struct kp_err *err);
/* A "hotspot" record; profile_dir may be NULL. */
json_t *kp_hotspot_json(const struct kp_hotspot *r, const char *profile_dir);

/*
 * hotspots_csv.c: source_hotspots.csv read back, its one reader.  The header
 * must be kp_hs_cols in order; every record has KP_HSC_N cells (RFC 4180);
 * blank lines are skipped; errors name the file and the line (KP_EXIT_DATA).
 */
enum kp_hs_col { KP_HSC_FILE, KP_HSC_LINE, KP_HSC_FUNC, KP_HSC_SASS, KP_HSC_PTX,
	KP_HSC_METRIC, KP_HSC_VALUE, KP_HSC_REASON, KP_HSC_CLASS, KP_HSC_CONF, KP_HSC_EVID,
	KP_HSC_N };
extern const char *const kp_hs_cols[KP_HSC_N];	/* the header, as written */
struct kp_hs_csv;
/* Reads the whole file and checks its header. */
struct kp_hs_csv *kp_hs_csv_open(const char *path, struct kp_err *err);
/* 1: *f holds the KP_HSC_N cells of the next record (valid until the next call);
 * 0: end; -1: a record with another number of cells. */
int kp_hs_csv_next(struct kp_hs_csv *r, const char ***f, struct kp_err *err);
unsigned long kp_hs_csv_line(const struct kp_hs_csv *r);	/* where the record began */
void kp_hs_csv_close(struct kp_hs_csv *r);
/* The rows as objects keyed by column; with numbers, a cell that is a finite
 * number is a JSON number (integers as integers), else every cell is a string. */
json_t *kp_hs_csv_load(const char *path, int numbers, struct kp_err *err);

#endif
