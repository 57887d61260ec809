/*
 * report_ranks.c: the report's section about a job a launcher started: the
 * launcher, the ranks profiled (the primary's kernel is what the rest of the
 * report is about), each rank's kernel and GPU time, and with several ranks
 * the same kernel compared across them with kp-compare's rules (compare.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_compare.h"
#include "kp_diag.h"
#include "kp_fmt.h"
#include "kp_summary.h"
#include "profile.h"
#include "report_int.h"

/* A rank's summary, from PROFILE/details/rank<N>/, or NULL. */
static json_t *
rank_summary(struct rep *r, long rank, char **dir_rel)
{
	char *d = kp_rank_dir(KP_DETAILS, rank), *abs = d != NULL ? kp_path_join(r->dir, d) : NULL;
	struct kp_err err;
	json_t *s = abs != NULL && kp_is_dir(abs) ? kp_compare_load(abs, NULL, NULL, &err) : NULL;

	*dir_rel = d;
	free(abs);
	return s;
}

static void
put_words(FILE *fp, json_t *words)
{
	json_t *w;
	size_t i;

	json_array_foreach(words, i, w)
		fprintf(fp, "%s%s", i > 0 ? " " : "", json_is_string(w) ? json_string_value(w) : "?");
}

/* Rank cur's kernel against the primary's: the verdict and the rows beyond noise. */
static void
compare_rank(struct rep *r, long prim, json_t *pk, long rank, json_t *ck, double tol)
{
	struct kp_err err;
	json_t *cmp = kp_compare_kernels(pk, ck, tol, &err), *row;
	size_t i, shown = 0;
	char b[64], c[64], p[32];

	if (cmp == NULL) {
		fprintf(r->fp, "- Rank %ld against rank %ld: not compared (%s)\n", rank, prim, err.msg);
		return;
	}
	fprintf(r->fp, "- Rank %ld against rank %ld: **%s**", rank, prim,
	    rep_jstr(cmp, "verdict") ? rep_jstr(cmp, "verdict") : "?");
	json_array_foreach(json_object_get(cmp, "rows"), i, row) {
		const char *j = rep_jstr(row, "judgment"), *m = rep_jstr(row, "metric");
		json_t *bv = json_object_get(row, "baseline"), *cv = json_object_get(row, "current");
		json_t *pc = json_object_get(row, "change_pct");

		if (j == NULL || m == NULL || (strcmp(j, "improved") != 0 &&
		    strcmp(j, "regressed") != 0) || !json_is_number(bv) || !json_is_number(cv))
			continue;
		if (shown++ == 5)
			break;
		kp_fmt_unit(b, sizeof(b), json_number_value(bv), kp_summary_key_unit(m));
		kp_fmt_unit(c, sizeof(c), json_number_value(cv), kp_summary_key_unit(m));
		fprintf(r->fp, "%s `%s` %s -> %s (%s)", shown == 1 ? ":" : ";", m, b, c,
		    json_is_number(pc) ? kp_fmt_change_pct(p, sizeof(p), json_number_value(pc)) :
		    "?");
	}
	fprintf(r->fp, "%s\n", shown == 0 ? " (no metric beyond the tolerance)" : "");
	json_decref(cmp);
}

void
rep_sec_ranks(struct rep *r)
{
	json_t *job = rep_jget(r->manifest, "job"), *ranks = rep_jget(job, "ranks_profiled"), *v;
	json_t *sums[64], *kern[64];
	json_t *tol = rep_jget(r->target, "analysis.random_variation_tolerance_pct");
	long prim, rk[64];
	size_t i, n;
	char *dirs[64], t[64];

	if (!json_is_object(job) || json_array_size(ranks) == 0)
		return;
	n = json_array_size(ranks) < 64 ? json_array_size(ranks) : 64;
	prim = (long)json_integer_value(json_array_get(ranks, 0));
	fprintf(r->fp, "## Ranks\n\nA job of `");
	put_words(r->fp, json_object_get(job, "launcher"));
	fprintf(r->fp, "`: profiled rank%s ", n > 1 ? "s" : "");
	json_array_foreach(ranks, i, v)
		fprintf(r->fp, "%s%lld", i > 0 ? ", " : "", (long long)json_integer_value(v));
	fprintf(r->fp, " under ncu (through kp-rank-exec); the ranks not listed ran without it. "
	    "Rank %ld is the primary: the rest of this report is about its kernel "
	    "(`details/` holds its stage files; each profiled rank's are in its own folder). "
	    "The other ranks waited in their collectives while a profiled rank replayed its "
	    "kernels; kp changed no timeout of the job.\n\n", prim);
	fprintf(r->fp, "| rank | kernel | GPU time (median) | folder |\n| --- | --- | --- | --- |\n");
	for (i = 0; i < n; i++) {
		double d;

		rk[i] = (long)json_integer_value(json_array_get(ranks, i));
		sums[i] = rank_summary(r, rk[i], &dirs[i]);
		kern[i] = sums[i] != NULL ? kp_summary_primary(sums[i]) : NULL;
		fprintf(r->fp, "| %ld%s | ", rk[i], i == 0 ? " (primary)" : "");
		rep_put_cell(r->fp, kern[i] != NULL && rep_jstr(kern[i], "function") ?
		    rep_jstr(kern[i], "function") : "no summary");
		fprintf(r->fp, " | %s | `%s/` |\n", kern[i] != NULL &&
		    kp_summary_value(kern[i], "duration_ns", &d) == 0 ?
		    kp_fmt_unit(t, sizeof(t), d, "ns") : "-", dirs[i] != NULL ? dirs[i] : "?");
	}
	fputc('\n', r->fp);
	if (n > 1 && kern[0] != NULL) {
		double tp = json_is_number(tol) ? json_number_value(tol) : 2.0;

		fprintf(r->fp, "The same kernel across ranks, judged as kp-compare judges a change "
		    "(tolerance %.1f %%, rank %ld the baseline):\n\n", tp, prim);
		for (i = 1; i < n; i++) {
			if (kern[i] == NULL) {
				fprintf(r->fp, "- Rank %ld: no metrics summary in `%s/`\n", rk[i],
				    dirs[i] != NULL ? dirs[i] : "?");
				continue;
			}
			compare_rank(r, prim, kern[0], rk[i], kern[i], tp);
		}
		fprintf(r->fp, "\nEvery metric: `kp-compare --baseline %s/%s --current %s/%s`.\n\n",
		    r->dir, dirs[0] != NULL ? dirs[0] : "?", r->dir, dirs[1] != NULL ? dirs[1] : "?");
	}
	for (i = 0; i < n; i++) {
		json_decref(sums[i]);
		free(dirs[i]);
	}
}
