/* kp_source.h: see kp.h.  Declarations of the source module. */
#ifndef KP_SOURCE_H
#define KP_SOURCE_H

/*
 * source.c: a streaming reader of `ncu --page source --csv` output.
 *
 * Three layouts exist, told apart by the first records:
 *   sass       "Kernel Name",NAME then "Address","Source",METRICS...; one row per
 *              SASS instruction.  ncu may print a launch's block twice.
 *   cuda,sass  per source file "File Path",F / "Function Name",N, then a header
 *              "Line No","Source","Address","Source",METRICS...; a source-line row
 *              (Line No set) followed by its SASS rows (Line No empty), "..." rows
 *              between runs.  Inlined code is listed under both the header line
 *              and the calling line.
 *   ptx        "Line No","Source"[,METRICS...]; ncu 2025.3 prints no metrics here.
 * Every block (a "Kernel Name" or "File Path" record with its rows) is reported
 * by KP_SRC_BLOCK before its rows.
 */
enum kp_src_kind { KP_SRC_SASS = 1, KP_SRC_CUDA_SASS, KP_SRC_PTX };
enum kp_src_ev { KP_SRC_BLOCK = 1, KP_SRC_LINE, KP_SRC_INSN };

struct kp_src_row {
	enum kp_src_ev ev;
	const char *file;	/* "File Path" of the block, "" when none */
	const char *function;	/* "Function Name" / "Kernel Name", "" when none */
	long line;		/* source or PTX line number, 0 when none */
	const char *text;	/* source/PTX text (LINE) or SASS text (INSN) */
	const char *address;	/* INSN: "0x...", else "" */
	const double *val;	/* kp_src_nmetrics() values; NAN where "-", "" or text */
	unsigned long csvline;	/* line of the record in the input */
};

struct kp_src;
/* Reads up to the first header; KP_EXIT_DATA when the input is not a source page,
 * KP_EXIT_NOSOURCE when it holds only ncu's "No lineinfo" warning (no table). */
struct kp_src *kp_src_open(FILE *fp, const char *name, struct kp_err *err);
enum kp_src_kind kp_src_kind(const struct kp_src *s);
const char *kp_src_kind_name(enum kp_src_kind k);	/* "sass", "cuda,sass", "ptx" */
const char *kp_src_name(const struct kp_src *s);
size_t kp_src_nmetrics(const struct kp_src *s);
const char *kp_src_metric(const struct kp_src *s, size_t i);
int kp_src_metric_index(const struct kp_src *s, const char *name);	/* -1 if absent */
/* Whether column i holds numbers (not "Address Space", "Access Operation", ...). */
int kp_src_metric_numeric(const struct kp_src *s, size_t i);
/* 1: *row filled (valid until the next call); 0: end; -1: error. */
int kp_src_next(struct kp_src *s, struct kp_src_row *row, struct kp_err *err);
void kp_src_close(struct kp_src *s);

/* The SASS mnemonic family of an instruction text: "@!P0 HMMA.16816.F32 R0, .."
 * -> "HMMA".  buf gets the family ("" when none); returns buf. */
char *kp_sass_opcode(const char *text, char *buf, size_t n);
/* What a SASS family does, one short phrase ("HGMMA" -> "warpgroup matrix
 * multiply-accumulate on the tensor cores ..."); NULL for a family not listed. */
const char *kp_sass_describe(const char *op);
/* 1 for a tensor-core family (HMMA, HGMMA, IMMA, DMMA, QGMMA, UTCHMMA, ... and the
 * WARPGROUP arrive/wait that orders HGMMA). */
int kp_sass_is_tensor(const char *op);
/* The PTX mnemonic with its modifiers: "@%p1 ld.global.f32 %f1, [%rd1];" ->
 * "ld.global.f32"; "" for directives, labels, braces and blank lines. */
char *kp_ptx_opcode(const char *text, char *buf, size_t n);
/* ncu's source-page stall column ("stall_short_sb") -> the reason name of the
 * smsp__average_warps_issue_stalled_<reason> metrics ("short_scoreboard").
 * Unknown stall_X -> X; NULL when col is no all-samples stall column. */
const char *kp_stall_reason(const char *col, char *buf, size_t n);

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
