/* profile.h: The layout of a profile folder: every artifact's
 * name and place, and the stage table.  Owner: lib/profile.c.  No file name of
 * a profile is spelled anywhere else. */
#ifndef KP_PROFILE_H
#define KP_PROFILE_H

#include "kp_diag.h"

/* ---- artifacts ---- */

#define KP_DETAILS "details"	/* the folder of the raw and derived files */
#define KP_NCU_PATH_FILE "ncu_path"	/* OUTPUT_ROOT/ncu_path: the ncu that sudo -n runs */

enum kp_artifact {
	KP_ART_TARGET,		/* profile-target.yaml */
	KP_ART_MANIFEST,	/* run_manifest.yaml */
	KP_ART_COMMANDS,	/* commands.sh */
	KP_ART_REPORT,		/* final_report.md */
	KP_ART_ENVIRONMENT,	/* details/00_environment.txt */
	KP_ART_RAW_BASIC,	/* details/01_basic_raw.csv: the stages' raw pages, in */
	KP_ART_RAW_SOL,		/* the order of enum kp_stage (kp_stage_artifact) */
	KP_ART_RAW_MEMORY, KP_ART_RAW_COMPUTE, KP_ART_RAW_OCCUPANCY, KP_ART_RAW_ROOFLINE,
	KP_ART_RAW_SOURCE, KP_ART_RAW_FULL,
	KP_ART_DISCOVERY_RAW,	/* details/00_discovery_raw.csv */
	KP_ART_CANDIDATES,	/* details/kernel_candidates.json */
	KP_ART_METRICS_RAW,	/* details/metrics_raw.csv */
	KP_ART_SUMMARY,		/* details/metrics_summary.json */
	KP_ART_METRICS_ALL,	/* details/metrics_all.json */
	KP_ART_EXTRACTED,	/* details/metrics_extracted.jsonl */
	KP_ART_HOTSPOTS,	/* details/source_hotspots.csv */
	KP_ART_SOURCE_EVIDENCE,	/* details/source_evidence.json */
	KP_ART_NCU_DETAILS,	/* details/ncu_details.csv: ncu's details page (its rules) */
	KP_ART_DECISION,	/* details/bottleneck_decision.json */
	KP_ART_COMPARISON,	/* comparison/comparison.json */
	KP_ART_REGRESSION,	/* comparison/regression_report.md */
	KP_ART_KERNELS_CMP,	/* comparison/kernels_comparison.json */
	KP_ART_KERNELS_REPORT,	/* comparison/kernels_report.md */
	KP_ART_TREND,		/* comparison/trend.md */
	KP_ART_PLOT_SCRIPT,	/* visual/profile_summary.gp */
	KP_ART_ROOFLINE_DAT,	/* visual/roofline.dat */
	KP_ART_IMPORT_SESSION,	/* details/import_session.csv: its session page */
	KP_ART_IMPORT_SUMMARY,	/* details/import_summary.csv: its kernels (no match) */
	KP_NARTIFACTS
};

const char *kp_artifact_name(enum kp_artifact a);	/* "metrics_summary.json" */
const char *kp_artifact_rel(enum kp_artifact a);	/* "details/metrics_summary.json" */
char *kp_artifact_path(const char *profile_dir, enum kp_artifact a);	/* malloc'd */
/* Artifact a's file name in the folder of file: source_evidence.json beside
 * the source_hotspots.csv at file, wherever that is; malloc'd, NULL when out
 * of memory. */
char *kp_artifact_beside(const char *file, enum kp_artifact a);
/* The folder part of a path: "a" of "a/b", "/" of "/b", "." of "b"; malloc'd. */
char *kp_path_dir(const char *path);

/* ---- the ranks of a job a launcher starts (kp-rank-exec(1)) ---- */

/* "DIR/rank<N>": where rank N of a job writes its stage files (DIR: the
 * profile's details folder); malloc'd. */
char *kp_rank_dir(const char *details, long rank);
/* The per-rank pattern of a file "DIR/NAME": "DIR/rank%r/NAME", every '%' of
 * DIR and NAME doubled; malloc'd.  kp_rank_expand() makes it one rank's path. */
char *kp_rank_pattern(const char *path);
/* A pattern with %r replaced by the rank and %% by %; NULL + err (KP_EXIT_USAGE)
 * for any other '%' sequence.  malloc'd. */
char *kp_rank_expand(const char *pattern, long rank, struct kp_err *err);

/* ---- the stages: id, number, raw file (in details/), ncu selection ---- */

enum kp_stage {
	KP_STAGE_BASIC, KP_STAGE_SOL, KP_STAGE_MEMORY, KP_STAGE_COMPUTE,
	KP_STAGE_OCCUPANCY, KP_STAGE_ROOFLINE, KP_STAGE_SOURCE, KP_STAGE_FULL,
	KP_NSTAGES
};

/* "basic", "speed-of-light", ...; the file name "01_basic_raw.csv", ... */
const char *kp_stage_id(enum kp_stage s);
const char *kp_stage_file(enum kp_stage s);
const char *kp_stage_rel(enum kp_stage s);	/* "details/01_basic_raw.csv" */
enum kp_artifact kp_stage_artifact(enum kp_stage s);	/* KP_ART_RAW_BASIC + s */
int kp_stage_parse(const char *id, enum kp_stage *out);	/* 0 or -1 */

/*
 * Parse "--stages": "auto", "all" or a comma list of stage ids.  *mask gets a
 * bit per stage, *autop 1 for auto (mask then holds basic only).  -1 + err
 * (KP_EXIT_USAGE) naming the unknown stage.
 */
int kp_stages_parse(const char *spec, unsigned *mask, int *autop, struct kp_err *err);

/* The selection words of a stage ("--section", "SpeedOfLight", ...), NULL-ended. */
const char *const *kp_stage_selection(enum kp_stage s);

#endif
