/*
 * report_load.c: read the artifacts of one profile folder for the report, and
 * classify from the summary with the default rules when kp-decide did not run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_fmt.h"
#include "kp_hotspots.h"
#include "kp_jsonl.h"
#include "kp_rules.h"
#include "kp_summary_file.h"
#include "kp_yaml.h"
#include "profile.h"
#include "report_int.h"

json_t *
rep_jget(json_t *o, const char *path)
{
	char buf[256], *p, *s;
	json_t *v = o;

	snprintf(buf, sizeof buf, "%s", path);
	for (p = strtok_r(buf, ".", &s); p != NULL && v != NULL; p = strtok_r(NULL, ".", &s))
		v = json_object_get(v, p);
	return v;
}

const char *
rep_jstr(json_t *o, const char *path)
{
	json_t *v = rep_jget(o, path);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A scalar as text (numbers and booleans too), or NULL. */
const char *
rep_jtext(json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
		return buf;
	}
	if (json_is_real(v))
		return kp_fmt_num(buf, len, json_real_value(v));
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	return NULL;
}

/* A hotspot field as text: CSV rows hold strings, kp-decide's rows may hold numbers. */
const char *
rep_hf(json_t *h, const char *key)
{
	static char buf[8][64];
	static int next;
	json_t *v = json_object_get(h, key);

	next = (next + 1) % 8;
	return rep_jtext(v, buf[next], sizeof buf[next]);
}

int
rep_exists_in(const char *dir, const char *rel)
{
	char *p = kp_path_join(dir, rel);
	int r = p != NULL && (kp_is_file(p) || kp_is_dir(p));

	free(p);
	return r;
}

static json_t *
load_yaml(const char *dir, const char *rel, struct kp_err *err, int *bad)
{
	char *p = kp_path_join(dir, rel);
	struct fy_document *d;
	json_t *j = NULL;

	if (p != NULL && kp_is_file(p)) {
		if ((d = kp_yaml_load(p, err)) == NULL)
			*bad = 1;
		else {
			j = kp_yaml_to_json(fy_document_root(d));
			fy_document_destroy(d);
		}
	}
	free(p);
	return j;
}

static json_t *
load_json(const char *dir, const char *rel, struct kp_err *err, int *bad)
{
	char *p = kp_path_join(dir, rel);
	json_t *j = NULL;

	if (p != NULL && kp_is_file(p) && (j = kp_json_load_file(p, err)) == NULL)
		*bad = 1;
	free(p);
	return j;
}

/* details/metrics_summary.json with only its primary kernel built (r->kernel). */
static int
load_summary(struct rep *r, struct kp_err *err)
{
	char *p = kp_artifact_path(r->dir, KP_ART_SUMMARY);
	json_t *ks, *pi;
	size_t i;

	if (p == NULL || !kp_is_file(p)) {
		free(p);
		return 0;
	}
	r->sumf = kp_summary_open(p, err);
	free(p);
	if (r->sumf == NULL)
		return -1;
	r->summary = r->sumf->summary;
	ks = json_object_get(r->summary, "kernels");
	pi = json_object_get(r->summary, "primary");
	if (!json_is_array(ks))
		return 0;
	i = json_is_integer(pi) ? (size_t)json_integer_value(pi) : 0;
	if (i < json_array_size(ks) && (r->kernel = kp_summary_kernel(r->sumf, i, err)) == NULL)
		return -1;
	return 0;
}

/* details/source_hotspots.csv as an array of objects keyed by the header. */
static json_t *
load_hotspots(const char *dir, struct kp_err *err, int *bad)
{
	char *p = kp_artifact_path(dir, KP_ART_HOTSPOTS);
	json_t *rows = NULL;

	if (p != NULL && kp_is_file(p) && (rows = kp_hs_csv_load(p, 0, err)) == NULL)
		*bad = 1;
	free(p);
	return rows;
}

static void
classify(struct rep *r)
{
	if (r->decision != NULL)
		return;
	if (r->kernel == NULL) {
		snprintf(r->fallback_why, sizeof r->fallback_why, "there is no %s to classify",
		    kp_artifact_rel(KP_ART_SUMMARY));
		return;
	}
	{
		struct kp_err e;
		struct kp_rules *rules = kp_rules_load_default(&e);

		if (rules != NULL) {
			char *sp = kp_artifact_path(r->dir, KP_ART_SUMMARY);

			r->decision = sp == NULL ? NULL : kp_rules_decide_summary(rules,
			    r->summary, sp, r->kernel, r->hotspots, &e);
			if (sp == NULL)
				kp_errf(&e, KP_EXIT_ENV, "out of memory");
			free(sp);
			kp_rules_free(rules);
		}
		if (r->decision != NULL) {
			r->decision_fallback = 1;
			return;
		}
		snprintf(r->fallback_why, sizeof r->fallback_why, "%s is absent and the default"
		    " rules could not be used (%.160s)", kp_artifact_rel(KP_ART_DECISION), e.msg);
	}
}

void
rep_free(struct rep *r)
{
	json_decref(r->target);
	json_decref(r->manifest);
	kp_summary_close(r->sumf);
	json_decref(r->decision);
	json_decref(r->hotspots);
	json_decref(r->cmp);
	free(r->commands);
}

int
rep_load_all(struct rep *r, struct kp_err *err)
{
	int bad = 0;
	char *p;

	r->target = load_yaml(r->dir, kp_artifact_rel(KP_ART_TARGET), err, &bad);
	if (!bad)
		r->manifest = load_yaml(r->dir, kp_artifact_rel(KP_ART_MANIFEST), err, &bad);
	if (!bad && load_summary(r, err) < 0)
		bad = 1;
	if (!bad)
		r->decision = load_json(r->dir, kp_artifact_rel(KP_ART_DECISION), err, &bad);
	if (!bad)
		r->hotspots = load_hotspots(r->dir, err, &bad);
	if (!bad && rep_exists_in(r->dir, "comparison"))
		r->cmp = load_json(r->dir, kp_artifact_rel(KP_ART_COMPARISON), err, &bad);
	if (bad)
		return -1;
	if (r->summary != NULL && !json_is_array(json_object_get(r->summary, "kernels")))
		return kp_errf(err, KP_EXIT_DATA, "%s/%s: not a metrics summary (no"
		    " \"kernels\" array)", r->dir, kp_artifact_rel(KP_ART_SUMMARY));
	if (r->decision != NULL && !json_is_object(r->decision))
		return kp_errf(err, KP_EXIT_DATA, "%s/%s: not an object", r->dir,
		    kp_artifact_rel(KP_ART_DECISION));
	if ((p = kp_artifact_path(r->dir, KP_ART_COMMANDS)) != NULL && kp_is_file(p) &&
	    (r->commands = kp_read_file(p, NULL, err)) == NULL) {
		free(p);
		return -1;
	}
	free(p);
	r->have_env = rep_exists_in(r->dir, kp_artifact_rel(KP_ART_ENVIRONMENT));
	r->have_visual = rep_exists_in(r->dir, "visual");
	r->have_comparison = rep_exists_in(r->dir, "comparison");
	classify(r);
	return 0;
}

long long
rep_distinct_launches(json_t *kernel)
{
	json_t *ids = json_object_get(kernel, "ids");

	if (!json_is_array(ids) || json_is_true(json_object_get(kernel, "ids_truncated")))
		return 0;
	return (long long)json_array_size(ids);
}
