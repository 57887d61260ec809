/*
 * ncu_rules.c: Nsight Compute's own guided-analysis results, read from a
 * details page (`--page details --csv`): the rows whose "Rule Name" column is
 * set.  kp-decide shows them beside its own findings and says where the two
 * disagree.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "ncu_rules.h"

static int
col(const struct kp_csv *c, const char *name)
{
	size_t i;

	for (i = 0; i < kp_csv_nfields(c); i++)
		if (strcmp(kp_csv_field(c, i)->s, name) == 0)
			return (int)i;
	return -1;
}

static const char *
cell(const struct kp_csv *c, int i)
{
	const struct kp_field *f = i >= 0 ? kp_csv_field(c, (size_t)i) : NULL;

	return f != NULL ? f->s : "";
}

static int
by_speedup(const void *a, const void *b)
{
	double x = json_number_value(json_object_get(*(json_t *const *)a, "estimated_speedup_pct"));
	double y = json_number_value(json_object_get(*(json_t *const *)b, "estimated_speedup_pct"));

	return x < y ? 1 : x > y ? -1 : 0;
}

json_t *
kp_ncu_rules_read(const char *path, struct kp_err *err)
{
	struct kp_csv *c;
	json_t *byname = json_object(), *arr = json_array(), *o, **v = NULL;
	int rn = -1, rt = -1, st = -1, sp = -1, rc;
	const char *k;
	size_t n = 0, i;

	if ((c = kp_csv_open_path(path, err)) == NULL) {
		json_decref(byname);
		json_decref(arr);
		return NULL;
	}
	while ((rc = kp_csv_next(c, err)) == 1) {
		const char *name;
		char *end;
		double s;

		if (rn < 0) {
			if ((rn = col(c, "Rule Name")) < 0) {
				kp_errf(err, KP_EXIT_DATA, "%s:%lu: not an ncu details page (no "
				    "\"Rule Name\" column)", path, kp_csv_line(c));
				rc = -1;
				break;
			}
			rt = col(c, "Rule Type");
			st = col(c, "Estimated Speedup Type");
			sp = col(c, "Estimated Speedup");
			continue;
		}
		name = cell(c, rn);
		if (name[0] == '\0')
			continue;
		s = strtod(cell(c, sp), &end);
		if (end == cell(c, sp))
			s = 0;
		o = json_object_get(byname, name);
		if (o != NULL && json_number_value(json_object_get(o,
		    "estimated_speedup_pct")) >= s)
			continue;
		json_object_set_new(byname, name, json_pack("{s:s, s:s, s:s, s:f}", "rule", name,
		    "type", cell(c, rt), "speedup_type", cell(c, st), "estimated_speedup_pct", s));
	}
	kp_csv_close(c);
	if (rc < 0) {
		json_decref(byname);
		json_decref(arr);
		return NULL;
	}
	if ((v = calloc(json_object_size(byname) + 1, sizeof(*v))) == NULL) {
		json_decref(byname);
		json_decref(arr);
		kp_errf(err, KP_EXIT_ENV, "%s: out of memory", path);
		return NULL;
	}
	json_object_foreach(byname, k, o)
		v[n++] = o;
	qsort(v, n, sizeof(*v), by_speedup);
	for (i = 0; i < n; i++)
		json_array_append(arr, v[i]);
	free(v);
	json_decref(byname);
	return arr;
}
