/* jsonl.c: the records programs pass along a pipeline, one JSON object a line. */
#include <errno.h>
#include <math.h>
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

/*
 * A record formatted here, byte for byte as json_dumpf(JSON_COMPACT |
 * JSON_SORT_KEYS | JSON_REAL_PRECISION(10)) writes it, where its strings
 * need no escape: jansson steps through every string's UTF-8 a character
 * at a time, and kp-extract's kernel records hold two names of kernels,
 * a kilobyte or more each.  Objects, arrays, strings of printable ASCII
 * other than '"' and '\\', integers, reals, true, false and null; anything
 * else gives -1 (jansson writes it).
 */
struct ob {
	char *p;
	size_t n, cap;
};

static int
ob_room(struct ob *b, size_t n)
{
	char *np;
	size_t cap;

	if (b->cap - b->n >= n)
		return 0;
	cap = b->cap ? b->cap : 1024;
	while (cap - b->n < n)
		cap *= 2;
	if ((np = realloc(b->p, cap)) == NULL)
		return -1;
	b->p = np;
	b->cap = cap;
	return 0;
}

static int
ob_put(struct ob *b, const char *s, size_t n)
{
	if (ob_room(b, n) < 0)
		return -1;
	memcpy(b->p + b->n, s, n);
	b->n += n;
	return 0;
}

/* s as a JSON string when it needs no escape (jansson's bytes then), else -1 */
static int
ob_str(struct ob *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f || s[i] == '"' ||
		    s[i] == '\\')
			return -1;
	if (ob_room(b, n + 2) < 0)
		return -1;
	b->p[b->n++] = '"';
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n++] = '"';
	return 0;
}

/* v as jansson's jsonp_dtostr() at precision 10 */
static int
ob_real(struct ob *b, double v)
{
	char buf[64], *start, *end;
	int r;
	size_t len;

	if (!isfinite(v) || (r = snprintf(buf, sizeof(buf), "%.10g", v)) < 0 ||
	    (size_t)r >= sizeof(buf) - 3)
		return -1;
	len = (size_t)r;
	if (strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL) {
		buf[len++] = '.';
		buf[len++] = '0';
		buf[len] = '\0';
	}
	/* no '+' nor leading zeros in the exponent */
	if ((start = strchr(buf, 'e')) != NULL) {
		start++;
		end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, len - (size_t)(end - buf));
			len -= (size_t)(end - start);
		}
	}
	return ob_put(b, buf, len);
}

static int
key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int ob_value(struct ob *b, json_t *v, int depth);

/* an object's members in the order of their keys (jansson's JSON_SORT_KEYS) */
static int
ob_object(struct ob *b, json_t *o, int depth)
{
	const char *stack[32], **keys = stack, *k;
	size_t n = json_object_size(o), i = 0;
	json_t *v;
	int rc = -1;

	if (n > sizeof(stack) / sizeof(stack[0]) && (keys = malloc(n * sizeof(*keys))) == NULL)
		return -1;
	json_object_foreach(o, k, v) {
		if (i == n || strlen(k) != json_object_iter_key_len(json_object_key_to_iter(k)))
			goto out;	/* a key with a NUL: jansson's */
		keys[i++] = k;
	}
	if (i != n)
		goto out;
	qsort(keys, n, sizeof(*keys), key_cmp);
	if (ob_put(b, "{", 1) < 0)
		goto out;
	for (i = 0; i < n; i++)
		if ((i > 0 && ob_put(b, ",", 1) < 0) || ob_str(b, keys[i], strlen(keys[i])) < 0 ||
		    ob_put(b, ":", 1) < 0 || ob_value(b, json_object_get(o, keys[i]), depth + 1) < 0)
			goto out;
	rc = ob_put(b, "}", 1);
out:
	if (keys != stack)
		free(keys);
	return rc;
}

static int
ob_value(struct ob *b, json_t *v, int depth)
{
	char buf[32];
	size_t i;
	int r;

	if (v == NULL || depth > 32)
		return -1;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return ob_object(b, v, depth);
	case JSON_ARRAY:
		if (ob_put(b, "[", 1) < 0)
			return -1;
		for (i = 0; i < json_array_size(v); i++)
			if ((i > 0 && ob_put(b, ",", 1) < 0) ||
			    ob_value(b, json_array_get(v, i), depth + 1) < 0)
				return -1;
		return ob_put(b, "]", 1);
	case JSON_STRING:
		return ob_str(b, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		r = snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return r < 0 || (size_t)r >= sizeof(buf) ? -1 : ob_put(b, buf, (size_t)r);
	case JSON_REAL:
		return ob_real(b, json_real_value(v));
	case JSON_TRUE:
		return ob_put(b, "true", 4);
	case JSON_FALSE:
		return ob_put(b, "false", 5);
	case JSON_NULL:
		return ob_put(b, "null", 4);
	}
	return -1;
}

int
kp_jsonl_write(FILE *fp, json_t *obj, struct kp_err *err)
{
	struct ob b = { NULL, 0, 0 };
	int r;

	if (json_is_object(obj) && ob_value(&b, obj, 0) == 0 && ob_put(&b, "\n", 1) == 0)
		r = fwrite(b.p, 1, b.n, fp) == b.n ? 0 : -1;
	else
		r = json_dumpf(obj, fp, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(10)) != 0 ||
		    fputc('\n', fp) == EOF ? -1 : 0;
	free(b.p);
	if (r < 0)
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
