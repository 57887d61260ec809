/* kp_plot.h: The plot module: the panel data of a profile folder
 * (lib/plot.c), the gnuplot script and data files that draw them
 * (lib/plot_gp.c), and running gnuplot safely (lib/plot_run.c).
 * Owner: kp-plot. */
#ifndef KP_PLOT_H
#define KP_PLOT_H

#include <stddef.h>

#include <jansson.h>

#include "kp_diag.h"

enum kp_panel {
	KP_PANEL_SOL,		/* speed of light: SM, memory, DRAM, L1/TEX, L2 */
	KP_PANEL_OCCUPANCY,	/* theoretical and achieved occupancy, limiter */
	KP_PANEL_ROOFLINE,	/* FLOP/s against DRAM arithmetic intensity */
	KP_PANEL_STALLS,	/* top warp stall reasons */
	KP_PANEL_HOTSPOTS,	/* top source lines by share of samples */
	KP_PANEL_COMPARISON,	/* before/after of key metrics */
	KP_PANEL_N
};

#define KP_PLOT_ROWS 8		/* bars per panel at most */
#define KP_PLOT_POINTS 6	/* roofline points (precisions) at most */
#define KP_PLOT_CEILINGS 7	/* roofline compute ceilings at most */

struct kp_plot_row {
	char label[80];		/* bar label (tic text) */
	double v;		/* the bar's value */
	double v2;		/* comparison: the current value; else unused */
	char note[96];		/* text printed next to the bar */
};

struct kp_plot_panel {
	const char *name;	/* "speed_of_light", "occupancy", ... (static) */
	const char *title;	/* the panel's heading (static) */
	int filled;		/* 1 when it has data to draw */
	char reason[240];	/* empty panel: why, and what collects it */
	char remark[240];	/* filled panel: a line of context drawn inside it */
	char remark2[240];	/* a second line */
	char title_note[240];	/* a second line under the heading */
	size_t n;
	struct kp_plot_row row[KP_PLOT_ROWS];
};

struct kp_plot_point {
	char label[40];		/* precision: "fp32", "tensor fp16/bf16" ... */
	double flops;		/* achieved FLOP/s */
	double ai;		/* FLOP per DRAM byte */
};

struct kp_plot_ceiling {
	char label[40];
	double flops;		/* peak FLOP/s */
};

struct kp_plot {
	char title[480];
	struct kp_plot_panel panel[KP_PANEL_N];
	/* roofline */
	double dram_bytes_per_s;	/* achieved */
	double bandwidth;		/* peak byte/s from gpu_specs, 0 unknown */
	size_t npoints, nceilings;
	struct kp_plot_point point[KP_PLOT_POINTS];
	struct kp_plot_ceiling ceiling[KP_PLOT_CEILINGS];
};

/*
 * Collect the panels from the profile folder dir (comparison/comparison.json)
 * and its details folder (metrics_summary.json, required; source_hotspots.csv,
 * bottleneck_decision.json, optional).  specs is the loaded gpu_specs (may be
 * NULL: the roofline then has no ceilings).  A missing optional artifact leaves
 * its panel empty with a reason; a malformed one is an error (KP_EXIT_DATA).
 */
int kp_plot_collect(struct kp_plot *p, const char *dir, const char *details, json_t *specs,
    struct kp_err *err);

/* The panels as a JSON object {name: {"filled": bool, "reason": "..."}} (new ref). */
json_t *kp_plot_panels_json(const struct kp_plot *p);

/*
 * Write visdir/profile_summary.gp and the data files visdir/NAME.dat (each whole or
 * not at all), byte-identical for the same panels.  format is "png" or "svg".
 * The script draws into the gnuplot variable kp_output when it is set (gnuplot
 * -e "kp_output='FILE'"), else into profile_summary.png (.svg) beside it.
 */
int kp_plot_write(const struct kp_plot *p, const char *visdir, const char *format,
    struct kp_err *err);

/* The gnuplot program to run: $KP_GNUPLOT if set, else "gnuplot" found on PATH.
 * Returns a malloc'd absolute or PATH-found path, or NULL when it is not an
 * executable file (err: KP_EXIT_ENV, with the install command). */
char *kp_plot_find_gnuplot(struct kp_err *err);

/*
 * Run gnuplot (fork/execv, no shell) in visdir on script (a name in visdir),
 * drawing into out (an absolute path or one relative to visdir); gnuplot's
 * stdout goes to stderr, its stdin is /dev/null.  0 when it exited 0; -1 and
 * err (KP_EXIT_ENV) otherwise.
 */
int kp_plot_run(const char *gnuplot, const char *visdir, const char *script, const char *out,
    struct kp_err *err);

/* Check a drawn image: non-empty, PNG signature and IHDR (width, height out,
 * may be NULL) or an SVG document.  0 ok, -1 and err (KP_EXIT_ENV). */
int kp_plot_check_image(const char *path, const char *format, long *width, long *height,
    struct kp_err *err);

#endif
