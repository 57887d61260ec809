/*
 * report.c: final_report.md from the artifacts of one profile folder.
 *
 * Every section is always written; when its data is missing it says what is
 * missing, why, and which program or stage collects it.  Nothing depends on the
 * clock or the environment: the same folder gives the same report.  Large raw
 * output is linked by its path inside the profile folder, never pasted.
 *
 * This file renders the sections in order; report_load.c reads the folder,
 * report_run.c, report_verdict.c and report_findings.c write the sections.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_report.h"
#include "profile.h"
#include "report_int.h"

/* The cell text of s with '|' and newlines made table-safe. */
void
rep_put_cell(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", fp);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', fp);
		else
			fputc(*s, fp);
	}
}

void
rep_link(struct rep *r, enum kp_artifact a)
{
	fprintf(r->fp, "[%s](%s)", kp_artifact_rel(a), kp_artifact_rel(a));
}

void
rep_missing(struct rep *r, const char *what, const char *why, const char *how)
{
	fprintf(r->fp, "_Missing: %s. Why: %s. Collect it with: %s._\n", what, why, how);
}

char *
kp_report_render(const char *dir, struct kp_err *err)
{
	struct rep r;
	char *buf = NULL;
	size_t len = 0;
	const char *fn;

	memset(&r, 0, sizeof r);
	r.dir = dir;
	if (!kp_is_dir(dir)) {
		if (kp_is_file(dir))
			kp_errf(err, KP_EXIT_DATA, "%s: not a profile folder (a file)", dir);
		else {
			errno = ENOENT;
			kp_errno(err, KP_EXIT_DATA, dir);
		}
		return NULL;
	}
	if (rep_load_all(&r, err) < 0) {
		rep_free(&r);
		return NULL;
	}
	if ((r.fp = open_memstream(&buf, &len)) == NULL) {
		kp_errno(err, KP_EXIT_ENV, "open_memstream");
		rep_free(&r);
		return NULL;
	}
	fn = r.kernel ? rep_jstr(r.kernel, "function") : rep_jstr(r.target, "kernel.name");
	fprintf(r.fp, "# Kernel profile: %s\n\n", fn ? fn : "unknown kernel");
	fprintf(r.fp, "Profile folder: `%s`. Written by kp-report from the artifacts in this"
	    " folder; every number below is read from the file it links.\n\n", dir);
	rep_sec_target(&r);
	rep_sec_ranks(&r);
	rep_sec_filter(&r);
	rep_sec_profiler(&r);
	rep_sec_commands(&r);
	rep_sec_collected(&r);
	rep_sec_classification(&r);
	rep_sec_ncu(&r);
	rep_sec_evidence(&r);
	rep_sec_hotspots(&r);
	rep_sec_hypotheses(&r);
	rep_sec_confidence(&r);
	rep_sec_limitations(&r);
	rep_sec_next(&r);
	if (r.have_comparison)
		rep_sec_comparison(&r);
	if (r.have_visual)
		rep_sec_visual(&r);
	if (fclose(r.fp) != 0) {
		kp_errno(err, KP_EXIT_ENV, "open_memstream");
		free(buf);
		buf = NULL;
	}
	rep_free(&r);
	return buf;
}

char *
kp_report_write(const char *dir, struct kp_err *err)
{
	char *text = kp_report_render(dir, err), *path;

	if (text == NULL)
		return NULL;
	if ((path = kp_artifact_path(dir, KP_ART_REPORT)) == NULL) {
		free(text);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	if (kp_write_file_atomic(path, text, strlen(text), err) < 0) {
		free(path);
		path = NULL;
	}
	free(text);
	return path;
}
