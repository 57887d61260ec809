/* jsonl.c: the records programs pass along a pipeline, one JSON object a line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_jsonl.h"

struct kp_jsonl {
	FILE *fp;
	char *name;
	char *line;
	size_t cap;
	unsigned long lineno;
};

struct kp_jsonl *
kp_jsonl_open(FILE *fp, const char *name)
{
	struct kp_jsonl *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	r->fp = fp;
	if ((r->name = strdup(name ? name : "<stdin>")) == NULL) {
		free(r);
		return NULL;
	}
	return r;
}

int
kp_jsonl_next(struct kp_jsonl *r, json_t **out, struct kp_err *err)
{
	ssize_t n;
	json_error_t je;
	json_t *j;

	for (;;) {
		size_t i;
		int blank = 1;

		errno = 0;
		n = getline(&r->line, &r->cap, r->fp);
		if (n < 0) {
			if (ferror(r->fp))
				return kp_errf(err, KP_EXIT_DATA, "%s: read error: %s", r->name,
				    strerror(errno ? errno : EIO));
			return 0;
		}
		r->lineno++;
		for (i = 0; i < (size_t)n; i++)
			if (r->line[i] != ' ' && r->line[i] != '\t' && r->line[i] != '\n' &&
			    r->line[i] != '\r') {
				blank = 0;
				break;
			}
		if (!blank)
			break;
	}
	j = json_loadb(r->line, (size_t)n, JSON_REJECT_DUPLICATES, &je);
	if (j == NULL)
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu:%d: %s", r->name, r->lineno,
		    je.column, je.text);
	if (!json_is_object(j)) {
		json_decref(j);
		return kp_errf(err, KP_EXIT_DATA, "%s:%lu: a record must be a JSON object",
		    r->name, r->lineno);
	}
	*out = j;
	return 1;
}

unsigned long
kp_jsonl_line(const struct kp_jsonl *r)
{
	return r->lineno;
}

void
kp_jsonl_close(struct kp_jsonl *r)
{
	if (r == NULL)
		return;
	free(r->line);
	free(r->name);
	free(r);
}

int
kp_jsonl_write(FILE *fp, json_t *obj, struct kp_err *err)
{
	if (json_dumpf(obj, fp, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10)) != 0 ||
	    fputc('\n', fp) == EOF)
		return kp_errf(err, KP_EXIT_ENV, "write error: %s", strerror(errno ? errno : EIO));
	return 0;
}

int
kp_jsonl_put(FILE *fp, json_t *rec, const char *profile_dir, struct kp_err *err)
{
	int rc;

	if (rec == NULL || (profile_dir != NULL &&
	    json_object_set_new(rec, "profile_dir", json_string(profile_dir)) < 0)) {
		json_decref(rec);
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	}
	rc = kp_jsonl_write(fp, rec, err);
	json_decref(rec);
	return rc;
}

const char *
kp_record_profile_dir(json_t *rec)
{
	json_t *v = json_object_get(rec, "profile_dir");

	return json_is_string(v) ? json_string_value(v) : NULL;
}

char *
kp_jsonl_first_profile_dir(FILE *fp, const char *name, struct kp_err *err)
{
	struct kp_jsonl *r;
	json_t *rec;
	char *dir = NULL;
	int rc;

	if ((r = kp_jsonl_open(fp, name)) == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	while ((rc = kp_jsonl_next(r, &rec, err)) == 1) {
		const char *d = kp_record_profile_dir(rec);

		if (d != NULL && dir == NULL)
			dir = strdup(d);
		json_decref(rec);
	}
	if (rc < 0) {
		free(dir);
		dir = NULL;
	} else if (dir == NULL)
		kp_errf(err, KP_EXIT_DATA, "%s: no record with a \"profile_dir\"", name);
	kp_jsonl_close(r);
	return dir;
}

json_t *
kp_json_load_file(const char *path, struct kp_err *err)
{
	json_error_t je;
	json_t *j;
	char *buf;
	size_t len;

	/* One read, then json_loadb: json_load_file reads a byte at a time. */
	if ((buf = kp_read_file(path, &len, err)) == NULL)
		return NULL;
	j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (j == NULL) {
		if (je.line < 1)
			kp_errf(err, KP_EXIT_DATA, "%s: %s", path, je.text);
		else
			kp_errf(err, KP_EXIT_DATA, "%s:%d:%d: %s", path, je.line, je.column,
			    je.text);
	}
	return j;
}
