/*
 * report_verdict.c: the report's verdict, from bottleneck_decision.json: the
 * primary class and each finding with its estimated gain (an upper bound and
 * the metric it came from), the roofline and the findings demoted at it, the
 * notes where the sections and the source page disagree, what each finding
 * measured (with values) and what it could not; ncu's own rules beside kp's;
 * and the decision's limits (rules partially evaluated, metrics missing) with
 * the pass that would measure them.
 *
 * A decision written before these keys existed lacks them: each part is then
 * left out, never guessed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_diag.h"
#include "kp_rules.h"
#include "profile.h"
#include "report_int.h"

#define TOP_NCU_RULES 3

static const char *
str_or(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : dflt;
}

/* A percentage of the decision, one decimal as kp-decide rounds it, or NULL. */
static const char *
pct(json_t *v, char *buf, size_t len)
{
	if (!json_is_number(v))
		return NULL;
	snprintf(buf, len, "%.1f", json_number_value(v));
	return buf;
}

/* A value of metrics_used (whose keys hold dots: no dotted look-up), or NULL. */
static json_t *
used(struct rep *r, const char *metric)
{
	return json_object_get(json_object_get(r->decision, "metrics_used"), metric);
}

static int
demoted(json_t *f)
{
	return json_is_true(json_object_get(f, "at_roofline_demoted"));
}

/* ", estimated gain at most 95.7 % of the kernel's time (from `frac.x` = 0.957)" */
static void
put_gain(struct rep *r, json_t *f)
{
	json_t *g = json_object_get(f, "estimated_gain_pct");
	const char *basis = str_or(f, "gain_basis", NULL);
	char a[48], b[48];
	const char *v;

	if (!json_is_number(g))
		return;
	fprintf(r->fp, ", estimated gain at most %s %% of the kernel's time",
	    pct(g, a, sizeof a));
	if (basis == NULL)
		return;
	fprintf(r->fp, " (from `%s`", basis);
	if ((v = rep_jtext(used(r, basis), b, sizeof b)) != NULL)
		fprintf(r->fp, " = %s", v);
	if (demoted(f) && strcmp(basis, "busiest_unit_pct") == 0)
		fprintf(r->fp, ": the headroom left at the roofline");
	fputc(')', r->fp);
}

/* The roofline line: the busiest unit, its share of peak, what was demoted. */
static void
put_roofline(struct rep *r)
{
	json_t *bu = json_object_get(r->decision, "busiest_unit");
	json_t *ar = json_object_get(r->decision, "at_roofline"), *f;
	char p[48], t[48];
	const char *unit = str_or(bu, "unit", "?");
	size_t i, n = 0;

	if (!json_is_object(bu))
		return;
	fprintf(r->fp, "Roofline: the busiest unit is **%s** at %s %% of its peak"
	    " (`busiest_unit`)", unit, pct(json_object_get(bu, "pct"), p, sizeof p) ?
	    p : "?");
	if (!json_is_object(ar)) {
		fprintf(r->fp, "; the kernel is at no unit's roofline, so no finding was"
		    " demoted.\n\n");
		return;
	}
	fprintf(r->fp, ", at or above the %s %% threshold: the kernel is at the %s"
	    " roofline (`at_roofline`).", pct(json_object_get(ar, "threshold_pct"),
	    t, sizeof t) ? t : "?", unit);
	json_array_foreach(json_object_get(r->decision, "findings"), i, f)
		n += demoted(f);
	if (n == 0) {
		fprintf(r->fp, " No finding was demoted: every rule that fired holds at a"
		    " roofline.\n\n");
		return;
	}
	fprintf(r->fp, " Demoted to low severity:");
	n = 0;
	json_array_foreach(json_object_get(r->decision, "findings"), i, f)
		if (demoted(f))
			fprintf(r->fp, "%s %s", n++ ? "," : "", str_or(f, "class", "?"));
	fprintf(r->fp, ". %s a cause that a kernel already saturating a unit"
	    " contradicts (the rule says `at_roofline: demote`), so %s gain is at most"
	    " the unit's headroom (100 %% - %s %%).\n\n", n == 1 ? "It names" : "They name",
	    n == 1 ? "its" : "their", p);
}

/* One finding of the numbered list: class, severity, score, gain, text. */
static void
put_finding(struct rep *r, size_t i, json_t *f)
{
	char sc[32], d[512];
	json_t *dis = json_object_get(f, "disagreement");

	fprintf(r->fp, "%zu. **%s**: severity %s%s, score %s", i + 1, str_or(f, "class", "?"),
	    str_or(f, "severity", "?"), demoted(f) ? " (demoted at the roofline)" : "",
	    rep_jtext(json_object_get(f, "score"), sc, sizeof sc) ? sc : "?");
	put_gain(r, f);
	fprintf(r->fp, ". ");
	rep_put_cell(r->fp, str_or(f, "text", "(no evidence text)"));
	fputc('\n', r->fp);
	if (rep_jtext(dis, d, sizeof d) != NULL) {
		fprintf(r->fp, "   - Disagreement: ");
		rep_put_cell(r->fp, rep_jtext(dis, d, sizeof d));
		fputs(".\n", r->fp);
	}
}

/* The measured metrics of a finding with their values: "`m` = v (>= t)". */
static void
put_measured(struct rep *r, json_t *f)
{
	json_t *names = json_object_get(f, "measured"), *ev = json_object_get(f, "evidence"), *m, *e;
	size_t i, j, n = 0;

	/* A decision without "measured": the conditions that held are all it says. */
	if (!json_is_array(names)) {
		names = json_array();
		json_array_foreach(ev, j, e)
			if (json_is_string(json_object_get(e, "metric")))
				json_array_append(names, json_object_get(e, "metric"));
	} else
		json_incref(names);
	json_array_foreach(names, i, m) {
		const char *name = json_string_value(m), *v = NULL;
		char a[48], t[48];
		json_t *hit = NULL;

		if (name == NULL)
			continue;
		json_array_foreach(ev, j, e)
			if (json_is_string(json_object_get(e, "metric")) &&
			    strcmp(json_string_value(json_object_get(e, "metric")), name) == 0) {
				hit = e;
				break;
			}
		v = rep_jtext(hit != NULL ? json_object_get(hit, "value") : used(r, name), a, sizeof a);
		fprintf(r->fp, "%s`%s` = %s", n++ ? "; " : "", name, v ? v : "?");
		if (hit != NULL && rep_jtext(json_object_get(hit, "threshold"), t, sizeof t))
			fprintf(r->fp, " (%s %s)", str_or(hit, "op", "?"), t);
		else if (hit == NULL)
			fprintf(r->fp, " (not held)");
	}
	if (n == 0)
		fputs("—", r->fp);
	json_decref(names);
}

/* A compact table: per finding, what it measured and what it could not. */
static void
put_measured_table(struct rep *r)
{
	json_t *fs = json_object_get(r->decision, "findings"), *f, *m;
	size_t i, j;

	if (json_array_size(fs) == 0)
		return;
	fprintf(r->fp, "\nWhat each finding measured (values from the decision's `evidence`"
	    " and `metrics_used`, with the threshold of each condition that held) and what"
	    " it could not:\n\n| # | class | measured | not measured |\n| --- | --- | --- | --- |\n");
	json_array_foreach(fs, i, f) {
		json_t *miss = json_object_get(f, "missing");

		fprintf(r->fp, "| %zu | %s | ", i + 1, str_or(f, "class", "?"));
		put_measured(r, f);
		fputs(" | ", r->fp);
		if (!json_is_array(miss))
			fputs("not recorded", r->fp);
		else if (json_array_size(miss) == 0)
			fputs("—", r->fp);
		json_array_foreach(miss, j, m)
			fprintf(r->fp, "%s`%s`", j ? ", " : "", json_string_value(m) ?
			    json_string_value(m) : "?");
		fputs(" |\n", r->fp);
	}
}

void
rep_sec_classification(struct rep *r)
{
	json_t *f, *ne, *ruled = json_object_get(r->decision, "ruled_out");
	size_t i;
	const char *sp;

	fprintf(r->fp, "## Bottleneck classification\n\n");
	if (r->decision == NULL) {
		rep_missing(r, "a bottleneck classification", r->fallback_why,
		    "`kp-extract`, then `kp-decide`");
		fputc('\n', r->fp);
		return;
	}
	if (r->decision_fallback)
		fprintf(r->fp, "Classified here from %s with the default rules (%s is absent;"
		    " kp-decide writes it).\n\n", kp_artifact_rel(KP_ART_SUMMARY),
		    kp_artifact_rel(KP_ART_DECISION));
	else {
		fprintf(r->fp, "From ");
		rep_link(r, KP_ART_DECISION);
		fprintf(r->fp, " (kp-decide)");
		if ((sp = str_or(r->decision, "source_page", NULL)) != NULL) {
			fprintf(r->fp, ", with the source page summed up in ");
			rep_link(r, KP_ART_SOURCE_EVIDENCE);
			fprintf(r->fp, " (view `%s`)", sp);
		}
		fprintf(r->fp, ".\n\n");
	}
	fprintf(r->fp, "Primary class: **%s**\n\n", str_or(r->decision, "primary",
	    "none (no rule fired)"));
	put_roofline(r);
	json_array_foreach(json_object_get(r->decision, "findings"), i, f)
		put_finding(r, i, f);
	if (json_array_size(json_object_get(r->decision, "findings")) > 0 &&
	    json_is_number(json_object_get(json_array_get(json_object_get(r->decision,
	    "findings"), 0), "estimated_gain_pct")))
		fprintf(r->fp, "\nA gain is an upper bound: the share of the kernel's time the"
		    " unit, stall, lanes, sectors or SMs it names account for.\n");
	json_array_foreach(ruled, i, f) {
		fprintf(r->fp, "%s**%s** is ruled out: ", i ? "" : "\n", str_or(f, "class", "?"));
		rep_put_cell(r->fp, str_or(f, "reason", "?"));
		fprintf(r->fp, ".\n");
	}
	put_measured_table(r);
	ne = json_object_get(r->decision, "not_evaluated");
	if (json_array_size(ne) > 0) {
		fprintf(r->fp, "\nNot evaluated (a rule whose metric is absent does not fire):");
		json_array_foreach(ne, i, f)
			fprintf(r->fp, "%s %s (%s)", i ? ";" : "", str_or(f, "class", "?"),
			    str_or(f, "reason", "?"));
		fprintf(r->fp, ".\n");
	}
	fputc('\n', r->fp);
}

void
rep_sec_ncu(struct rep *r)
{
	json_t *ncu = json_object_get(r->decision, "ncu"), *rules, *top, *x;
	const char *tr, *cls;
	char a[48];
	size_t i;

	if (!json_is_object(ncu))
		return;
	rules = json_object_get(ncu, "rules");
	top = json_array_get(rules, 0);
	tr = str_or(ncu, "top_rule", NULL);
	cls = str_or(ncu, "top_rule_class", NULL);
	fprintf(r->fp, "## Nsight Compute's rules\n\nncu's own guided analysis, from its"
	    " details page (kp-decide `--ncu-details`; `ncu` in ");
	rep_link(r, KP_ART_DECISION);
	fprintf(r->fp, ").\n\n");
	if (tr == NULL) {
		fprintf(r->fp, "- ncu reported no rule results.\n\n");
		return;
	}
	fprintf(r->fp, "- Top rule: **%s**", tr);
	if (top != NULL && strcmp(str_or(top, "rule", ""), tr) == 0 &&
	    pct(json_object_get(top, "estimated_speedup_pct"), a, sizeof a))
		fprintf(r->fp, " (estimated speedup %s %%)", a);
	if (cls != NULL)
		fprintf(r->fp, ", which the rules' `ncu_rules` map to **%s**.\n", cls);
	else
		fprintf(r->fp, ", which the rules' `ncu_rules` map to no kp class.\n");
	if (str_or(ncu, "agreement", NULL) != NULL) {
		fprintf(r->fp, "- Agreement with kp: ");
		rep_put_cell(r->fp, str_or(ncu, "agreement", ""));
		fprintf(r->fp, ".\n");
	}
	if (json_array_size(rules) == 0) {
		fputc('\n', r->fp);
		return;
	}
	fprintf(r->fp, "\n| ncu rule | type | estimated speedup |\n| --- | --- | --- |\n");
	json_array_foreach(rules, i, x) {
		const char *st = str_or(x, "speedup_type", "");

		if (i >= TOP_NCU_RULES)
			break;
		fprintf(r->fp, "| %s | %s | ", str_or(x, "rule", "?"), *str_or(x, "type", "") ?
		    str_or(x, "type", "") : "—");
		if (pct(json_object_get(x, "estimated_speedup_pct"), a, sizeof a))
			fprintf(r->fp, "%s %%%s%s%s", a, *st ? " (" : "", st, *st ? ")" : "");
		else
			fputs("—", r->fp);
		fputs(" |\n", r->fp);
	}
	if (json_array_size(rules) > TOP_NCU_RULES)
		fprintf(r->fp, "\n%zu more in the decision's `ncu.rules`.\n",
		    json_array_size(rules) - TOP_NCU_RULES);
	fputc('\n', r->fp);
}

/* What would measure metric, into buf: 1 and "with the ... (how)" when a
 * follow-up pass would; 0 and "is ..." saying why none of kp's would. */
static int
measured_by(struct rep *r, struct kp_rules *rules, const char *metric, char *buf, size_t len)
{
	json_t *secs, *s;
	size_t i, n;

	if (strncmp(metric, "src.", 4) == 0) {
		if (rep_exists_in(r->dir, kp_stage_rel(KP_STAGE_SOURCE))) {
			snprintf(buf, len, "is not on the collected source page, which lacks the"
			    " columns it is made of");
			return 0;
		}
		snprintf(buf, len, "with the source pass (`kp-collect --stages source`, then"
		    " `kp-hotspots`)");
		return 1;
	}
	secs = rules != NULL ? kp_rules_metric_sections(rules, metric) : NULL;
	if (json_array_size(secs) == 0) {
		snprintf(buf, len, "is named by no section of the rules' `evidence_sections`"
		    " (`kp-collect --stages full` collects every section)");
		json_decref(secs);
		return 0;
	}
	snprintf(buf, len, "with the ncu section%s", json_array_size(secs) == 1 ? "" : "s");
	json_array_foreach(secs, i, s) {
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s %s", i ? "," : "", json_string_value(s));
	}
	n = strlen(buf);
	snprintf(buf + n, len - n, " (`kp-collect --stages auto` adds %s to the pass after"
	    " basic)", json_array_size(secs) == 1 ? "it" : "them");
	json_decref(secs);
	return 1;
}

/* The metric a partially_evaluated reason names: "...; not measured: M (...)". */
static void
reason_metric(const char *why, char *buf, size_t len)
{
	const char *p = why != NULL ? strstr(why, "not measured: ") : NULL;

	buf[0] = '\0';
	if (p != NULL) {
		p += strlen("not measured: ");
		snprintf(buf, len, "%.*s", (int)strcspn(p, " ;,"), p);
	}
}

int
rep_verdict_limitations(struct rep *r)
{
	json_t *pe = json_object_get(r->decision, "partially_evaluated");
	json_t *mm = json_object_get(r->decision, "missing_metrics"), *v;
	struct kp_rules *rules;
	struct kp_err e;
	char m[128], where[512];
	size_t i;
	int pass, n;

	if (json_array_size(pe) == 0 && json_array_size(mm) == 0)
		return 0;
	rules = kp_rules_load_default(&e);	/* NULL: no sections to name */
	json_array_foreach(pe, i, v) {
		reason_metric(str_or(v, "reason", NULL), m, sizeof m);
		fprintf(r->fp, "- Partially evaluated: rule %s did not fire on what was"
		    " measured, ", str_or(v, "class", "?"));
		if (m[0] == '\0') {
			fprintf(r->fp, "but a condition was not (");
			rep_put_cell(r->fp, str_or(v, "reason", "?"));
			fprintf(r->fp, ").\n");
			continue;
		}
		pass = measured_by(r, rules, m, where, sizeof where);
		fprintf(r->fp, "but `%s` was not measured%s %s.\n", m,
		    pass ? "; a follow-up pass would measure it" : " and", where);
	}
	if (json_array_size(mm) > 0) {
		fprintf(r->fp, "- Metrics the rules needed and did not find (`missing_metrics`):");
		json_array_foreach(mm, i, v)
			fprintf(r->fp, "%s `%s`", i ? "," : "", json_string_value(v) ?
			    json_string_value(v) : "?");
		fputc('.', r->fp);
		for (pass = 1; pass >= 0; pass--) {	/* what a pass would measure, then not */
			n = 0;
			json_array_foreach(mm, i, v) {
				if (json_string_value(v) == NULL || measured_by(r, rules,
				    json_string_value(v), where, sizeof where) != pass)
					continue;
				if (pass)
					fprintf(r->fp, "%s `%s` %s", n ? "," :
					    " A follow-up pass would measure", json_string_value(v), where);
				else
					fprintf(r->fp, " `%s` %s.", json_string_value(v), where);
				n++;
			}
			if (pass && n > 0)
				fputc('.', r->fp);
		}
		fputc('\n', r->fp);
	}
	kp_rules_free(rules);
	return 1;
}
