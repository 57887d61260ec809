/* kp_source.h: the streaming reader of ncu's source page (lib/source.c). */
#ifndef KP_SOURCE_H
#define KP_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kp_csv.h"
#include "kp_diag.h"

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
	unsigned long fngen;	/* the same for two rows of one source: the same function */
	long line;		/* source or PTX line number, 0 when none */
	const char *text;	/* source/PTX text (LINE) or SASS text (INSN) */
	const char *address;	/* INSN: "0x...", else "" */
	const double *val;	/* kp_src_nmetrics() values; NAN where "-", "" or text */
	unsigned long csvline;	/* line of the record in the input */
	uint64_t digest;	/* LINE, INSN: a hash of the record's bytes; 0 none */
};

struct kp_src;
/* Reads up to the first header; KP_EXIT_DATA when the input is not a source page,
 * KP_EXIT_NOSOURCE when it holds only ncu's "No lineinfo" warning (no table). */
struct kp_src *kp_src_open(FILE *fp, const char *name, struct kp_err *err);
/* The same from what rd(arg) gives (kp_csv_open_read). */
struct kp_src *kp_src_open_read(kp_csv_read_fn *rd, void *arg, const char *name,
    struct kp_err *err);
enum kp_src_kind kp_src_kind(const struct kp_src *s);
const char *kp_src_kind_name(enum kp_src_kind k);	/* "sass", "cuda,sass", "ptx" */
const char *kp_src_name(const struct kp_src *s);
size_t kp_src_nmetrics(const struct kp_src *s);
/*
 * The values of the rows kp_src_next() gives from now on are read into val
 * (kp_src_nmetrics() of them, the caller's till it says otherwise) instead
 * of the reader's own buffer; NULL: the reader's own again.  Where the rows
 * are parsed on a thread of their own, their values stay where it put them.
 */
void kp_src_val_into(struct kp_src *s, double *val);
/* 1 while every value read was an integer in [0, 2^53) (or none): their sums
 * are the same in any order as long as they stay below 2^53. */
int kp_src_exact(const struct kp_src *s);
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

#endif
