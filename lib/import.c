/*
 * import.c: what an existing report (.ncu-rep) holds, read from the pages
 * that `ncu --import FILE` prints: the launches of a raw or details page, the
 * sections of the details page, the session page's attributes (the ncu that
 * made the report, its command line, the GPU) and the kernels of the
 * per-kernel summary.  The passes themselves are built and run by ncu.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_csv.h"
#include "kp_diag.h"
#include "kp_import.h"

static int
all_digits(const struct kp_field *f)
{
	size_t i;

	if (f == NULL || f->len == 0)
		return 0;
	for (i = 0; i < f->len; i++)
		if (f->s[i] < '0' || f->s[i] > '9')
			return 0;
	return 1;
}

long
kp_import_page_rows(const char *path)
{
	struct kp_err err;
	struct kp_csv *c = kp_csv_open_path(path, &err);
	long n = 0;
	int r;

	if (c == NULL)
		return -1;
	while ((r = kp_csv_next(c, &err)) == 1)
		n += all_digits(kp_csv_field(c, 0));
	kp_csv_close(c);
	return r < 0 ? -1 : n;
}

static int
has_string(json_t *a, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return 1;
	return 0;
}

/* The values of one named column of a page with a header row, each once. */
static json_t *
column_values(const char *path, const char *column, struct kp_err *err)
{
	struct kp_csv *c = kp_csv_open_path(path, err);
	const struct kp_field *f;
	json_t *out;
	long col = -1;
	size_t i;
	int r;

	if (c == NULL)
		return NULL;
	out = json_array();
	while ((r = kp_csv_next(c, err)) == 1) {
		if (col < 0) {
			for (i = 0; i < kp_csv_nfields(c); i++)
				if (strcmp(kp_csv_field(c, i)->s, column) == 0)
					col = (long)i;
			if (col < 0) {
				r = kp_errf(err, KP_EXIT_DATA, "%s:%lu: no \"%s\" column",
				    kp_csv_name(c), kp_csv_line(c), column);
				break;
			}
			continue;
		}
		if ((f = kp_csv_field(c, (size_t)col)) == NULL) {
			r = kp_errf(err, KP_EXIT_DATA, "%s:%lu: %zu fields, no \"%s\" (truncated?)",
			    kp_csv_name(c), kp_csv_line(c), kp_csv_nfields(c), column);
			break;
		}
		if (f->len > 0 && !has_string(out, f->s))
			json_array_append_new(out, json_stringn(f->s, f->len));
	}
	kp_csv_close(c);
	if (r < 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

json_t *
kp_import_sections(const char *details_csv, struct kp_err *err)
{
	return column_values(details_csv, "Section Name", err);
}

json_t *
kp_import_kernels(const char *summary_csv, struct kp_err *err)
{
	return column_values(summary_csv, "Kernel Name", err);
}

int
kp_import_has_source(json_t *sections)
{
	return has_string(sections, "Source Counters") || has_string(sections, "SourceCounters");
}

int
kp_import_basic_only(json_t *sections)
{
	/* ncu 2025.3's basic set (list_sets.txt), as the details page names its
	 * sections: the display name, and the identifier on rule rows. */
	static const char *const basic[] = { "GPU Speed Of Light Throughput", "SpeedOfLight",
		"Launch Statistics", "LaunchStats", "Occupancy",
		"GPU and Memory Workload Distribution", "WorkloadDistribution", NULL };
	const char *const *b;
	json_t *v;
	size_t i;

	json_array_foreach(sections, i, v) {
		for (b = basic; *b != NULL && strcmp(*b, json_string_value(v)) != 0; b++)
			;
		if (*b == NULL)
			return 0;
	}
	return json_array_size(sections) > 0;
}

json_t *
kp_import_session(const char *session_csv, struct kp_err *err)
{
	struct kp_csv *c = kp_csv_open_path(session_csv, err);
	const struct kp_field *k, *v;
	json_t *out;
	int r, skip = 0;

	if (c == NULL)
		return NULL;
	out = json_object();
	while ((r = kp_csv_next(c, err)) == 1) {
		if (kp_csv_nfields(c) != 2)
			continue;
		k = kp_csv_field(c, 0);
		v = kp_csv_field(c, 1);
		/* each block opens with its header row; the Processes block
		 * (id, name) is a table, not attributes */
		if (strcmp(k->s, "Process Id") == 0 || strcmp(k->s, "Launch Attribute") == 0 ||
		    strcmp(k->s, "Session Attribute") == 0 || strcmp(k->s, "Device Attribute") == 0) {
			skip = strcmp(k->s, "Process Id") == 0;
			continue;
		}
		if (!skip && k->len > 0 && json_object_get(out, k->s) == NULL)
			json_object_set_new(out, k->s, json_stringn(v->s, v->len));
	}
	kp_csv_close(c);
	if (r < 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}
