/* plot_gp.c: the gnuplot script and data files of kp-plot's picture.
 *
 * Everything is written with fixed formats (%.6g), fixed fonts and sizes and no
 * clock, so the same panels give byte-identical files.  The script refers to its
 * data files by bare name: it runs in its own folder. */
#define _GNU_SOURCE	/* open_memstream is POSIX 2008; keep glibc happy */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_fmt.h"
#include "kp_plot.h"
#include "profile.h"

#define WIDTH 1800
#define HEIGHT 1100

/* Fixed colours (Paul Tol's bright and muted schemes). */
#define C_BLUE "#4477aa"
#define C_CYAN "#66ccee"
#define C_GREEN "#228833"
#define C_YELLOW "#ccbb44"
#define C_RED "#ee6677"
#define C_PURPLE "#aa3377"
#define C_GREY "#bbbbbb"
#define C_DARK "#333333"

/*
 * A gnuplot string made of text kp does not control (kernel names, file names,
 * YAML labels): single-quoted, the one form gnuplot neither runs backquotes in
 * nor expands @macros in, with the quote doubled (its only escape).  Controls are
 * dropped; a newline becomes a concatenated "\n" constant, so the line break is
 * kp's own script text, never the caller's.
 */
static void
gp_str(FILE *fp, const char *s)
{
	fputc('\'', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("'.\"\\n\".'", fp);
		else if (c == '\'')
			fputs("''", fp);
		else if (c >= 0x20 && c != 0x7f)
			fputc(c, fp);
	}
	fputc('\'', fp);
}

/* A quoted data-file field: gnuplot has no escape inside one, so '"' becomes '\''. */
static void
dat_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"')
			fputc('\'', fp);
		else if (c >= 0x20 && c != 0x7f)
			fputc(c, fp);
	}
	fputc('"', fp);
}

/* ---- data files ---- */

struct buf {
	char *s;
	size_t len;
	FILE *fp;
};

static int
buf_open(struct buf *b, struct kp_err *err)
{
	b->s = NULL;
	b->len = 0;
	if ((b->fp = open_memstream(&b->s, &b->len)) == NULL)
		return kp_errno(err, KP_EXIT_ENV, "open_memstream");
	return 0;
}

static int
buf_commit(struct buf *b, const char *dir, const char *name, struct kp_err *err)
{
	char *path;
	int rc;

	if (fclose(b->fp) != 0) {
		free(b->s);
		return kp_errno(err, KP_EXIT_ENV, "memory stream");
	}
	if ((path = kp_path_join(dir, name)) == NULL) {
		free(b->s);
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	}
	rc = kp_write_file_atomic(path, b->s, b->len, err);
	free(path);
	free(b->s);
	return rc;
}

/* Bars: "index label value value2 note". */
static void
dat_rows(FILE *fp, const struct kp_plot_panel *pn, const char *what)
{
	size_t i;

	fprintf(fp, "# %s: %s\n", pn->name, what);
	for (i = 0; i < pn->n; i++) {
		const struct kp_plot_row *r = &pn->row[i];

		fprintf(fp, "%zu ", i);
		dat_str(fp, r->label);
		fprintf(fp, " %.6g %.6g ", r->v, r->v2);
		dat_str(fp, r->note);
		fputc('\n', fp);
	}
}

static int
write_data(const struct kp_plot *p, const char *dir, struct kp_err *err)
{
	static const char *const what[KP_PANEL_N] = {
		"index label pct_of_peak unused note",
		"index label pct_of_max_warps unused note",
		"",
		"index reason warps_stalled_per_issued_instruction unused note",
		"index file:line_opcode pct_of_samples unused note",
		"index metric before after note (duration: after as % of before)",
	};
	struct buf b;
	size_t i;
	char name[64];

	for (i = 0; i < KP_PANEL_N; i++) {
		if (i == KP_PANEL_ROOFLINE)
			continue;
		if (buf_open(&b, err) < 0)
			return -1;
		dat_rows(b.fp, &p->panel[i], what[i]);
		snprintf(name, sizeof name, "%s.dat", p->panel[i].name);
		if (buf_commit(&b, dir, name, err) < 0)
			return -1;
	}
	if (buf_open(&b, err) < 0)
		return -1;
	fprintf(b.fp, "# roofline: index flop_per_dram_byte flop_per_s precision"
	    " (dram byte/s %.6g)\n", p->dram_bytes_per_s);
	for (i = 0; i < p->npoints; i++) {
		fprintf(b.fp, "%zu %.6g %.6g ", i, p->point[i].ai, p->point[i].flops);
		dat_str(b.fp, p->point[i].label);
		fputc('\n', b.fp);
	}
	return buf_commit(&b, dir, kp_artifact_name(KP_ART_ROOFLINE_DAT), err);
}

/* ---- script ---- */

/* lm: the left margin in characters (room for tic labels); the title is
 * centred on the panel rather than on the plot area. */
static void
panel_begin(FILE *fp, const struct kp_plot_panel *pn, int col, int row, int lm)
{
	fprintf(fp, "\n# ---- %s ----\nreset\n", pn->name);
	fprintf(fp, "set origin %.6g,%.6g\nset size %.6g,%.6g\n", col / 3.0,
	    row == 0 ? 0.475 : 0.0, 1 / 3.0, 0.475);
	fputs("set title ", fp);
	if (pn->filled && pn->title_note[0] != '\0') {
		char t[sizeof pn->title_note + 128];

		snprintf(t, sizeof t, "%s\n%s", pn->title, pn->title_note);
		gp_str(fp, t);
	} else
		gp_str(fp, pn->title);
	fprintf(fp, " font \",13\" offset %d,0\n", pn->filled && lm > 10 ? -(lm - 10) / 2 : 0);
	if (pn->filled && lm > 0)
		fprintf(fp, "set lmargin %d\n", lm);
	fputs("set style fill solid 0.85 border -1\nset border lw 1 lc rgb \"" C_DARK "\"\n", fp);
	fputs("set tics nomirror\nset key noautotitle\n", fp);
}

static void
label_at(FILE *fp, int tag, const char *text, double x, double y, const char *how)
{
	if (text == NULL || *text == '\0')
		return;
	fprintf(fp, "set label %d ", tag);
	gp_str(fp, text);
	fprintf(fp, " at graph %.6g,%.6g %s\n", x, y, how);
}

static void
panel_empty(FILE *fp, const struct kp_plot_panel *pn)
{
	fputs("unset xtics\nunset ytics\nset border 15 lc rgb \"" C_GREY "\"\n", fp);
	label_at(fp, 1, pn->reason, 0.5, 0.5, "center font \",12\" tc rgb \"" C_DARK "\"");
	fputs("plot [0:1][0:1] NaN\n", fp);
}

/* Vertical bars of percentages (speed of light, occupancy). */
static void
panel_pct_bars(FILE *fp, const struct kp_plot_panel *pn, const char *colour, double top,
    const char *ylabel)
{
	fprintf(fp, "set xrange [-0.6:%.6g]\nset yrange [0:%.6g]\n", pn->n - 0.4, top);
	fputs("set ytics 0,20,100\nset grid ytics lc rgb \"#dddddd\"\nset boxwidth 0.6\n"
	    "set xtics scale 0 font \",12\"\nset ylabel ", fp);
	gp_str(fp, ylabel);
	fputc('\n', fp);
	fprintf(fp, "plot \"%s.dat\" using 1:3:xtic(2) with boxes lc rgb \"%s\","
	    " \"\" using 1:3:5 with labels offset 0,0.9 font \",11\"\n", pn->name, colour);
}

/* Horizontal bars, largest on top (stalls, hotspots). */
static void
panel_hbars(FILE *fp, const struct kp_plot_panel *pn, const char *colour, const char *xlabel)
{
	double max = 0;
	size_t i;

	for (i = 0; i < pn->n; i++)
		if (pn->row[i].v > max)
			max = pn->row[i].v;
	if (!(max > 0))
		max = 1;
	fprintf(fp, "set yrange [%.6g:-0.6]\nset xrange [0:%.6g]\n", pn->n - 0.4, max * 1.75);
	fputs("set ytics scale 0 font \",11\"\nset grid xtics lc rgb \"#dddddd\"\n", fp);
	fputs("set xlabel ", fp);
	gp_str(fp, xlabel);
	fputc('\n', fp);
	fprintf(fp, "plot \"%s.dat\" using ($3/2):1:($3/2):(0.35):ytic(2) with boxxyerror"
	    " lc rgb \"%s\", \"\" using 3:1:5 with labels left offset 0.6,0 font \",10\"\n",
	    pn->name, colour);
}

static void
panel_sol(FILE *fp, const struct kp_plot_panel *pn)
{
	panel_pct_bars(fp, pn, C_BLUE, 112, "% of peak");
}

static void
panel_occupancy(FILE *fp, const struct kp_plot_panel *pn)
{
	label_at(fp, 2, pn->remark, 0.5, 0.93, "center font \",11\"");
	label_at(fp, 3, pn->remark2, 0.5, 0.86, "center font \",10\" tc rgb \"#555555\"");
	panel_pct_bars(fp, pn, C_GREEN, 135, "% of max warps per SM");
}

static void
panel_stalls(FILE *fp, const struct kp_plot_panel *pn)
{
	panel_hbars(fp, pn, C_YELLOW, "warps stalled per issued instruction");
}

static void
panel_hotspots(FILE *fp, const struct kp_plot_panel *pn)
{
	panel_hbars(fp, pn, C_RED, "% of the kernel's warp stall samples (dominant stall reason)");
}

static void
panel_comparison(FILE *fp, const struct kp_plot_panel *pn)
{
	double max = 100;
	size_t i;

	for (i = 0; i < pn->n; i++) {
		if (pn->row[i].v > max)
			max = pn->row[i].v;
		if (pn->row[i].v2 > max)
			max = pn->row[i].v2;
	}
	fputs("set key outside bottom center horizontal font \",10\" samplen 1.5\n", fp);
	fprintf(fp, "set yrange [%.6g:-0.8]\nset xrange [0:%.6g]\n", pn->n - 0.2, max * 1.5);
	fputs("set ytics scale 0 font \",11\"\nset grid xtics lc rgb \"#dddddd\"\n", fp);
	fputs("set xlabel \"% (duration: % of before)\"\n", fp);
	fprintf(fp, "plot \"%s.dat\" using ($3/2):($1-0.19):($3/2):(0.17):ytic(2) with boxxyerror"
	    " lc rgb \"" C_GREY "\" title \"before\", \\\n"
	    "     \"\" using ($4/2):($1+0.19):($4/2):(0.17) with boxxyerror lc rgb \"" C_BLUE
	    "\" title \"after\", \\\n"
	    "     \"\" using 4:($1+0.19):5 with labels left offset 0.6,0 font \",10\"\n",
	    pn->name);
}

static void
sci(char *buf, size_t len, double v, const char *unit)
{
	kp_fmt_unit(buf, len, v, unit);
}

/* The axis ranges: every point, the ridge points and the roof tops in view. */
static void
roof_ranges(const struct kp_plot *p, double *x0, double *x1, double *y0, double *y1)
{
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	size_t i;

	for (i = 0; i < p->npoints; i++) {
		xmin = fmin(xmin, p->point[i].ai);
		xmax = fmax(xmax, p->point[i].ai);
		ymin = fmin(ymin, p->point[i].flops);
		ymax = fmax(ymax, p->point[i].flops);
	}
	for (i = 0; i < p->nceilings; i++) {
		ymax = fmax(ymax, p->ceiling[i].flops);
		if (p->bandwidth > 0) {
			xmin = fmin(xmin, p->ceiling[i].flops / p->bandwidth);
			xmax = fmax(xmax, p->ceiling[i].flops / p->bandwidth);
		}
	}
	*y0 = pow(10, floor(log10(ymin / 3)));
	*y1 = ymax * 40;
	if (p->bandwidth > 0)	/* the memory slope enters at the bottom */
		xmin = fmin(xmin, *y0 / p->bandwidth);
	*x0 = pow(10, floor(log10(xmin)));
	*x1 = pow(10, ceil(log10(xmax * 3)));
}

static void
panel_roofline(FILE *fp, const struct kp_plot *p)
{
	static const char *const pcol[] = { C_RED, C_PURPLE, C_BLUE, C_GREEN, C_CYAN, C_YELLOW };
	static const int ptype[] = { 7, 5, 9, 11, 13, 15 };
	const struct kp_plot_panel *pn = &p->panel[KP_PANEL_ROOFLINE];
	double x0, x1, y0, y1;
	char b[48], t[160], ai[32];
	size_t i;

	roof_ranges(p, &x0, &x1, &y0, &y1);
	fputs("set logscale xy 10\n", fp);
	fprintf(fp, "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n", x0, x1, y0, y1);
	fputs("set format x \"%g\"\nset format y \"%.0s %cFLOP/s\"\nset ytics font \",10\"\n"
	    "set xtics font \",10\"\nset grid xtics ytics lc rgb \"#e4e4e4\"\n", fp);
	fputs("set xlabel \"arithmetic intensity (FLOP per DRAM byte)\"\n", fp);
	fputs("set key top left at graph 0.01,0.9 Left reverse font \",10\" samplen 1"
	    " spacing 1.2\nset samples 800\n", fp);
	label_at(fp, 2, pn->remark, 0.02, 0.96, "left font \",10\"");
	label_at(fp, 3, pn->remark2, 0.02, 0.5, "left font \",10\" tc rgb \"" C_PURPLE "\"");
	for (i = 0; i < p->nceilings; i++) {
		sci(b, sizeof b, p->ceiling[i].flops, "FLOP/s");
		snprintf(t, sizeof t, "%s peak %s", p->ceiling[i].label, b);
		fprintf(fp, "set label %zu ", 10 + i);
		gp_str(fp, t);
		fprintf(fp, " at first %.6g,%.6g right offset -0.5,0.7 font \",9\" tc rgb \"#555555\"\n",
		    x1, p->ceiling[i].flops);
	}
	if (p->bandwidth > 0) {
		double x = y0 / p->bandwidth * 2.5;

		sci(b, sizeof b, p->bandwidth, "byte/s");
		snprintf(t, sizeof t, "DRAM peak %s", b);
		fputs("set label 9 ", fp);
		gp_str(fp, t);
		fprintf(fp, " at first %.6g,%.6g left offset 1,-0.3 font \",9\" tc rgb \"#555555\"\n",
		    x, p->bandwidth * x);
	}
	fprintf(fp, "B = %.6g\n", p->bandwidth);
	fputs("roof(x, peak) = (B > 0 && B * x < peak) ? B * x : peak\n", fp);
	fputs("plot \\\n", fp);
	for (i = 0; i < p->nceilings; i++)
		fprintf(fp, "  roof(x, %.6g) with lines lw 2 dt %d lc rgb \"#777777\" notitle, \\\n",
		    p->ceiling[i].flops, (int)(i % 4) + 1);
	if (p->bandwidth > 0 && p->nceilings == 0)
		fputs("  B * x with lines lw 2 lc rgb \"#777777\" notitle, \\\n", fp);
	for (i = 0; i < p->npoints; i++) {
		sci(b, sizeof b, p->point[i].flops, "FLOP/s");
		snprintf(ai, sizeof ai, p->point[i].ai >= 100 ? "%.0f" : "%.3g", p->point[i].ai);
		snprintf(t, sizeof t, "kernel, %s: %s at %s FLOP/byte", p->point[i].label, b, ai);
		fprintf(fp, "  \"roofline.dat\" every ::%zu::%zu using 2:3 with points pt %d ps 2.2"
		    " lc rgb \"%s\" title ", i, i, ptype[i % 6], pcol[i % 6]);
		gp_str(fp, t);
		fputs(i + 1 < p->npoints ? ", \\\n" : "\n", fp);
	}
}

static void
script(FILE *fp, const struct kp_plot *p, const char *format)
{
	static const int pos[KP_PANEL_N][2] = {
		[KP_PANEL_SOL] = { 0, 0 }, [KP_PANEL_OCCUPANCY] = { 1, 0 },
		[KP_PANEL_ROOFLINE] = { 2, 0 }, [KP_PANEL_STALLS] = { 0, 1 },
		[KP_PANEL_HOTSPOTS] = { 1, 1 }, [KP_PANEL_COMPARISON] = { 2, 1 },
	};
	static const int lmargin[KP_PANEL_N] = {
		[KP_PANEL_SOL] = 0, [KP_PANEL_OCCUPANCY] = 9, [KP_PANEL_ROOFLINE] = 13,
		[KP_PANEL_STALLS] = 22, [KP_PANEL_HOTSPOTS] = 26, [KP_PANEL_COMPARISON] = 26,
	};
	int svg = strcmp(format, "svg") == 0;
	size_t i;

	fputs("# profile_summary.gp: written by kp-plot(1).  Redraw the picture with\n"
	    "#   cd visual && gnuplot profile_summary.gp\n"
	    "# Data: *.dat beside this file.  No timestamps: the same profile gives the same"
	    " script.\n", fp);
	fprintf(fp, "if (!exists(\"kp_output\")) kp_output = \"profile_summary.%s\"\n",
	    svg ? "svg" : "png");
	if (svg)
		fprintf(fp, "set terminal svg size %d,%d font \"DejaVu Sans,11\" noenhanced"
		    " background \"#ffffff\"\n", WIDTH, HEIGHT);
	else
		fprintf(fp, "if (strstrt(GPVAL_TERMINALS, \" pngcairo \") > 0) {\n"
		    "    set terminal pngcairo size %d,%d font \"DejaVu Sans,11\" noenhanced\n"
		    "} else {\n"
		    "    set terminal png size %d,%d font \"DejaVu Sans,11\" noenhanced\n"
		    "}\n", WIDTH, HEIGHT, WIDTH, HEIGHT);
	fputs("set output kp_output\nset encoding utf8\nset multiplot title ", fp);
	gp_str(fp, p->title);
	fputs(" font \",16\"\n", fp);
	for (i = 0; i < KP_PANEL_N; i++) {
		const struct kp_plot_panel *pn = &p->panel[i];

		panel_begin(fp, pn, pos[i][0], pos[i][1], lmargin[i]);
		if (!pn->filled) {
			panel_empty(fp, pn);
			continue;
		}
		switch (i) {
		case KP_PANEL_SOL:
			panel_sol(fp, pn);
			break;
		case KP_PANEL_OCCUPANCY:
			panel_occupancy(fp, pn);
			break;
		case KP_PANEL_ROOFLINE:
			panel_roofline(fp, p);
			break;
		case KP_PANEL_STALLS:
			panel_stalls(fp, pn);
			break;
		case KP_PANEL_HOTSPOTS:
			panel_hotspots(fp, pn);
			break;
		case KP_PANEL_COMPARISON:
			panel_comparison(fp, pn);
			break;
		}
	}
	fputs("\nunset multiplot\nunset output\n", fp);
}

int
kp_plot_write(const struct kp_plot *p, const char *visdir, const char *format,
    struct kp_err *err)
{
	struct buf b;

	if (strcmp(format, "png") != 0 && strcmp(format, "svg") != 0)
		return kp_errf(err, KP_EXIT_USAGE, "%s: unknown format (png or svg)", format);
	if (kp_mkdirs(visdir, err) < 0)
		return -1;
	if (write_data(p, visdir, err) < 0)
		return -1;
	if (buf_open(&b, err) < 0)
		return -1;
	script(b.fp, p, format);
	return buf_commit(&b, visdir, kp_artifact_name(KP_ART_PLOT_SCRIPT), err);
}
