/*
 * yaml.c: libfyaml used the way its authors intend: documents built with our
 * own parse configuration (so a malformed file becomes one "file:line:col:"
 * message instead of text libfyaml prints itself), look-ups by path, and YAML
 * written through the emitter, never with printf.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_utf8.h"
#include "kp_yaml.h"

struct capture {
	char msg[768];
	int have;
};

static void
capture_out(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	struct capture *cap = user;
	size_t n;

	(void)diag;
	if (cap->have)
		return;
	/* Keep the first line of the first message. */
	while (len > 0 && (buf[0] == '\n' || buf[0] == ' ')) {
		buf++;
		len--;
	}
	for (n = 0; n < len && buf[n] != '\n'; n++)
		;
	if (n == 0)
		return;
	if (n >= sizeof(cap->msg))
		n = sizeof(cap->msg) - 1;
	memcpy(cap->msg, buf, n);
	cap->msg[n] = '\0';
	cap->have = 1;
}

/*
 * YAML is Unicode text: a file that is not UTF-8 is refused before libfyaml sees
 * it.  libfyaml 0.7.12 (Debian 12) also loops forever on a directive line
 * holding a byte that is not UTF-8 ("%a\x98"; found by tests/fuzz).  A NUL byte
 * is refused too: libfyaml ends the scalar there and drops the rest of the line
 * ("name: hgemm_byzj_v0\0ignored" read as hgemm_byzj_v0), so what kp ran would
 * not be what the file says.
 */
static int
not_text(const char *name, const char *text, size_t len, struct kp_err *err)
{
	size_t bad = kp_utf8_check(text, len), i, line = 1, col = 1;
	const char *nul = memchr(text, '\0', bad);

	if (nul != NULL)
		bad = (size_t)(nul - text);
	if (bad == len)
		return 0;
	for (i = 0; i < bad; i++)
		if (text[i] == '\n')
			line++, col = 1;
		else
			col++;
	if (nul != NULL)
		return kp_errf(err, KP_EXIT_DATA, "%s:%zu:%zu: a NUL byte (YAML is text)", name,
		    line, col);
	return kp_errf(err, KP_EXIT_DATA, "%s:%zu:%zu: not valid UTF-8 (byte 0x%02x)", name,
	    line, col, (unsigned char)text[bad]);
}

static struct fy_document *
build(const char *path, const char *text, size_t len, const char *name, struct kp_err *err)
{
	struct fy_diag_cfg dcfg;
	struct fy_diag *diag;
	struct fy_parse_cfg pcfg;
	struct capture cap;
	struct fy_document *d;
	char *buf = NULL;
	size_t i;
	int blank;

	/* A file is read once: checked as text, then handed to libfyaml, which
	 * frees it with the document. */
	if (path != NULL) {
		if ((buf = kp_read_file(path, &len, err)) == NULL)
			return NULL;
		text = buf;
	}
	if (not_text(name, text, len, err) < 0) {
		free(buf);
		return NULL;
	}
	for (i = 0; i < len && strchr(" \t\r\n", text[i]) != NULL && text[i] != '\0'; i++)
		;
	blank = i == len;
	memset(&cap, 0, sizeof(cap));
	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = capture_out;
	dcfg.user = &cap;
	dcfg.colorize = false;
	dcfg.show_source = false;
	dcfg.show_position = true;
	dcfg.show_type = false;
	dcfg.show_module = false;
	dcfg.level = FYET_ERROR;
	if ((diag = fy_diag_create(&dcfg)) == NULL) {
		free(buf);
		kp_errf(err, KP_EXIT_ENV, "%s: cannot set up the YAML parser", name);
		return NULL;
	}
	memset(&pcfg, 0, sizeof(pcfg));
	pcfg.flags = FYPCF_QUIET | FYPCF_DEFAULT_VERSION_AUTO;
	pcfg.diag = diag;
	if (buf != NULL) {
		/* buf is libfyaml's now, freed with its input even when the
		 * parse fails (valgrind: freeing it here is a double free) */
		d = fy_document_build_from_malloc_string(&pcfg, buf, len);
	} else
		d = fy_document_build_from_string(&pcfg, text, len);
	if (d == NULL || fy_document_root(d) == NULL) {
		/* libfyaml says "<input>:<line>:<col>: message" (position 1-based),
		 * its input named "<stream>" or "<alloc-@0x...>": the file's name
		 * stands there instead.  A message without a position is its own
		 * internals ("<  0: 0>: fy_parse_load_document() failed"). */
		const char *m = cap.msg + strspn(cap.msg, " "), *q;

		if (*m == '<' && (q = strstr(m, ">:")) != NULL && isdigit((unsigned char)q[2]))
			m = q + 2;
		if (blank)
			kp_errf(err, KP_EXIT_DATA, "%s: empty YAML document", name);
		else if (cap.have && isdigit((unsigned char)*m))
			kp_errf(err, KP_EXIT_DATA, "%s:%s", name, m);
		else if (cap.have && *m != '<')
			kp_errf(err, KP_EXIT_DATA, "%s: %s", name, m);
		else if (d != NULL)
			kp_errf(err, KP_EXIT_DATA, "%s: empty YAML document", name);
		else
			kp_errf(err, KP_EXIT_DATA, "%s: not valid YAML", name);
		fy_document_destroy(d);
		fy_diag_destroy(diag);
		return NULL;
	}
	fy_diag_destroy(diag);
	return d;
}

struct fy_document *
kp_yaml_load(const char *path, struct kp_err *err)
{
	return build(path, NULL, 0, path, err);
}

struct fy_document *
kp_yaml_load_string(const char *text, size_t len, const char *name, struct kp_err *err)
{
	return build(NULL, text, len, name ? name : "<string>", err);
}

struct fy_node *
kp_yaml_node(struct fy_document *d, const char *path)
{
	struct fy_node *root = fy_document_root(d);

	if (root == NULL)
		return NULL;
	return fy_node_by_path(root, path, (size_t)-1, FYNWF_DONT_FOLLOW);
}

char *
kp_yaml_str(struct fy_document *d, const char *path)
{
	struct fy_node *n = kp_yaml_node(d, path);
	const char *s;
	size_t len;
	char *out;

	if (n == NULL || !fy_node_is_scalar(n))
		return NULL;
	if ((s = fy_node_get_scalar(n, &len)) == NULL)
		return NULL;
	if ((out = malloc(len + 1)) == NULL)
		return NULL;
	memcpy(out, s, len);
	out[len] = '\0';
	return out;
}

int
kp_yaml_line(struct fy_node *n)
{
	struct fy_token *t = NULL;
	const struct fy_mark *m;
	void *it = NULL;

	while (n != NULL && t == NULL) {
		if (fy_node_is_scalar(n)) {
			/* a scalar can lack a token (invalid UTF-8 around it): no line */
			if ((t = fy_node_get_scalar_token(n)) == NULL)
				return 0;
		} else if (fy_node_is_mapping(n)) {
			struct fy_node_pair *p = fy_node_mapping_iterate(n, &it);
			if (p == NULL)
				return 0;
			n = fy_node_pair_key(p);
			it = NULL;
		} else if (fy_node_is_sequence(n)) {
			n = fy_node_sequence_iterate(n, &it);
			it = NULL;
		} else
			return 0;
	}
	if (t == NULL || (m = fy_token_start_mark(t)) == NULL)
		return 0;
	return m->line + 1;
}

int
kp_yaml_write_atomic(struct fy_document *d, const char *path, struct kp_err *err)
{
	return kp_yaml_write_out(d, path, KP_OUT_DERIVED, err);
}

int
kp_yaml_write_out(struct fy_document *d, const char *path, int how, struct kp_err *err)
{
	char *s = fy_emit_document_to_string(d, FYECF_MODE_BLOCK | FYECF_WIDTH_INF |
	    FYECF_INDENT_2);
	int rc;

	if (s == NULL)
		return kp_errf(err, KP_EXIT_ENV, "%s: cannot emit YAML", path);
	rc = kp_out_write(path, s, strlen(s), how, err);
	free(s);
	return rc;
}

/* A plain scalar's type by the YAML 1.2 core schema; quoted scalars are strings. */
static json_t *
scalar_to_json(struct fy_node *n)
{
	size_t len;
	const char *s = fy_node_get_scalar(n, &len);
	enum fy_node_style st = fy_node_get_style(n);
	char buf[64], *end;

	if (s == NULL)
		return json_null();
	if (st != FYNS_PLAIN)
		return json_stringn(s, len);
	if (len == 0 || (len == 1 && s[0] == '~') || (len == 4 && memcmp(s, "null", 4) == 0))
		return json_null();
	if ((len == 4 && memcmp(s, "true", 4) == 0) || (len == 4 && memcmp(s, "True", 4) == 0))
		return json_true();
	if ((len == 5 && memcmp(s, "false", 5) == 0) || (len == 5 && memcmp(s, "False", 5) == 0))
		return json_false();
	if (len < sizeof(buf)) {
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (strspn(buf, "+-0123456789") == len) {
			long long v;
			errno = 0;
			v = strtoll(buf, &end, 10);
			if (*end == '\0' && errno == 0)
				return json_integer(v);
		}
		if (strspn(buf, "+-0123456789.eE") == len) {
			double v = strtod(buf, &end);
			if (*end == '\0' && end != buf && isfinite(v))
				return json_real(v);
		}
	}
	return json_stringn(s, len);
}

json_t *
kp_yaml_to_json(struct fy_node *n)
{
	void *it = NULL;

	if (n == NULL)
		return json_null();
	if (fy_node_is_scalar(n))
		return scalar_to_json(n);
	if (fy_node_is_sequence(n)) {
		json_t *a = json_array();
		struct fy_node *item;

		while ((item = fy_node_sequence_iterate(n, &it)) != NULL)
			json_array_append_new(a, kp_yaml_to_json(item));
		return a;
	}
	if (fy_node_is_mapping(n)) {
		json_t *o = json_object();
		struct fy_node_pair *p;

		while ((p = fy_node_mapping_iterate(n, &it)) != NULL) {
			struct fy_node *k = fy_node_pair_key(p);
			size_t kl;
			const char *ks;
			char *key;

			if (k == NULL || !fy_node_is_scalar(k))
				continue;
			ks = fy_node_get_scalar(k, &kl);
			if ((key = strndup(ks, kl)) == NULL)
				continue;
			json_object_set_new(o, key, kp_yaml_to_json(fy_node_pair_value(p)));
			free(key);
		}
		return o;
	}
	return json_null();
}

/* Does a string need quoting so that it reads back as the same string? */
static int
needs_quotes(const char *s, size_t len)
{
	struct fy_document *d;
	json_t *j;
	int same = 0;
	char *doc;
	size_t i;

	if (len == 0)
		return 1;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("_./-", s[i]) == NULL)
			return 1;
	/* Plain words that YAML would read as another type. */
	if ((doc = malloc(len + 1)) == NULL)
		return 1;
	memcpy(doc, s, len);
	doc[len] = '\0';
	d = fy_document_build_from_string(NULL, doc, len);
	if (d != NULL) {
		j = scalar_to_json(fy_document_root(d));
		same = json_is_string(j) && strcmp(json_string_value(j), doc) == 0;
		json_decref(j);
		fy_document_destroy(d);
	}
	free(doc);
	return !same;
}

/* A string scalar that reads back as the same string, whatever it holds. */
static struct fy_node *
str_node(struct fy_document *d, const char *s, size_t len)
{
	json_t *tmp;
	char *q;
	struct fy_node *n;

	if (!needs_quotes(s, len))
		return fy_node_create_scalar_copy(d, s, len);
	/* A JSON string is a valid YAML double-quoted scalar. */
	tmp = json_stringn(s, len);
	q = json_dumps(tmp, JSON_ENCODE_ANY);
	/* The document takes ownership of q (libfyaml keeps pointing into it). */
	n = q ? fy_node_build_from_malloc_string(d, q, strlen(q)) : NULL;
	if (n == NULL)
		free(q);
	json_decref(tmp);
	return n;
}

static struct fy_node *
json_to_node(struct fy_document *d, json_t *j)
{
	char buf[64];
	struct fy_node *n;
	const char *key;
	json_t *v;
	size_t i;

	switch (json_typeof(j)) {
	case JSON_OBJECT:
		n = fy_node_create_mapping(d);
		json_object_foreach(j, key, v)
			fy_node_mapping_append(n, str_node(d, key, strlen(key)), json_to_node(d, v));
		return n;
	case JSON_ARRAY:
		n = fy_node_create_sequence(d);
		json_array_foreach(j, i, v)
			fy_node_sequence_append(n, json_to_node(d, v));
		return n;
	case JSON_STRING:
		return str_node(d, json_string_value(j), json_string_length(j));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(j));
		return fy_node_create_scalar_copy(d, buf, strlen(buf));
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%.10g", json_real_value(j));
		if (strspn(buf, "-0123456789") == strlen(buf))
			strcat(buf, ".0");
		return fy_node_create_scalar_copy(d, buf, strlen(buf));
	case JSON_TRUE:
		return fy_node_create_scalar(d, "true", 4);
	case JSON_FALSE:
		return fy_node_create_scalar(d, "false", 5);
	default:
		return fy_node_create_scalar(d, "null", 4);
	}
}

struct fy_document *
kp_json_to_yaml(json_t *j, struct kp_err *err)
{
	struct fy_document *d = fy_document_create(NULL);

	if (d == NULL) {
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	fy_document_set_root(d, json_to_node(d, j));
	return d;
}
