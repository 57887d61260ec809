/*
 * target.c: profile-target.yaml (kp-target(5)).  In memory a target is a JSON
 * tree with the file's sections and keys.  One table below lists every known
 * field with its type, allowed values and default; validation walks it, fills
 * defaults, and names the file, line and field of the first problem.  Unknown
 * keys are kept (a newer kp may have written them).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_ranks.h"
#include "kp_shellwords.h"
#include "kp_target.h"
#include "kp_yaml.h"

enum ftype {
	F_STR,		/* string */
	F_STR_NULL,	/* string or null */
	F_ENUM,		/* string, one of allowed */
	F_ENUM_NULL,	/* null or one of allowed */
	F_INT,		/* integer in [min, max] */
	F_NUM,		/* number >= 0, kept as a real */
	F_BOOL,
	F_STRLIST,	/* list of strings */
	F_ENUMLIST,	/* list of strings, each one of allowed */
	F_STRMAP,	/* mapping of names to scalars (kept as strings) */
	F_NOTELIST,	/* list of strings or {text, reason} mappings */
	F_WORDS,	/* list of words, or one string split into words (no shell) */
	F_RANKLIST	/* list of distinct rank numbers (or one number) */
};

struct field {
	const char *sec;	/* "" top level, "target", "target.python", ... */
	const char *key;
	enum ftype type;
	const char *allowed;	/* "a|b|c" for enums */
	const char *def;	/* default as JSON text; NULL: required */
	long long min, max;
};

#define STAGES "basic|speed-of-light|memory|compute|occupancy|roofline|source|full"

/* One row a field; the default is JSON text, derived from the type where it can be. */
#define F(sec, key, type, allowed, def, min, max) { sec, key, type, allowed, def, min, max }
#define STR(sec, key, def)		F(sec, key, F_STR, NULL, "\"" def "\"", 0, 0)
#define STR_REQUIRED(sec, key)		F(sec, key, F_STR, NULL, NULL, 0, 0)
#define STR_NULL(sec, key)		F(sec, key, F_STR_NULL, NULL, "null", 0, 0)
#define ENUM(sec, key, allowed, def)	F(sec, key, F_ENUM, allowed, "\"" def "\"", 0, 0)
#define INT(sec, key, def, min, max)	F(sec, key, F_INT, NULL, #def, min, max)
#define NUM(sec, key, def)		F(sec, key, F_NUM, NULL, #def, 0, 0)
#define BOOL(sec, key, def)		F(sec, key, F_BOOL, NULL, #def, 0, 0)
#define STRLIST(sec, key)		F(sec, key, F_STRLIST, NULL, "[]", 0, 0)
#define ENUMLIST(sec, key, allowed)	F(sec, key, F_ENUMLIST, allowed, "[]", 0, 0)
#define STRMAP(sec, key)		F(sec, key, F_STRMAP, NULL, "{}", 0, 0)
#define NOTELIST(sec, key)		F(sec, key, F_NOTELIST, NULL, "[]", 0, 0)
#define WORDS(sec, key)			F(sec, key, F_WORDS, NULL, "[]", 0, 0)
#define RANKLIST(sec, key, def)		F(sec, key, F_RANKLIST, NULL, def, 0, KP_RANK_MAX)

static const struct field fields[] = {
	INT("", "schema_version", 1, 1, 1),

	ENUM("target", "runtime", "native|python|python-triton", "native"),
	STR_REQUIRED("target", "executable"),
	STRLIST("target", "args"),
	STR("target", "working_directory", "."),
	STRMAP("target", "env"),
	STR_NULL("target", "stdin"),
	INT("target", "timeout_seconds", 600, 0, 604800),
	WORDS("target", "launcher"),
	RANKLIST("target", "ranks", "[0]"),

	STR_NULL("target.python", "interpreter"),
	ENUM("target.python", "entry_kind", "none|script|module|command", "none"),
	STR_NULL("target.python", "script"),
	STR_NULL("target.python", "module"),
	ENUM("target.python", "jit_framework", "none|triton|torch", "none"),

	BOOL("runtime_options", "triton_enabled", false),
	STR_NULL("runtime_options", "triton_kernel_hint"),
	ENUM("runtime_options", "triton_autotune_policy",
	    "none|warmup|pinned|profile-all", "none"),
	BOOL("runtime_options", "jit_warmup_required", false),
	INT("runtime_options", "recommended_warmup_skip", 10, 0, 1000000),
	ENUM("runtime_options", "source_mapping_expectation",
	    "cuda-lineinfo|triton-python|sass-only|unknown", "unknown"),
	STRLIST("runtime_options", "notes"),

	STR_NULL("kernel", "name"),
	ENUM("kernel", "filter_mode", "exact|regex|kernel-id|nvtx-range", "regex"),
	STR_NULL("kernel", "filter"),
	STR_NULL("kernel", "profile_id"),
	STR_NULL("kernel", "nvtx_range"),
	BOOL("kernel", "allow_discovery_fallback", true),

	ENUM("profiling", "backend", "ncu", "ncu"),
	ENUM("profiling", "initial_level", STAGES, "basic"),
	ENUM("profiling", "warmup_policy", "launch-skip|jit-autotune-skip|none",
	    "launch-skip"),
	INT("profiling", "warmup_skip", 10, 0, 1000000),
	INT("profiling", "launch_count", 1, 1, 100000),
	BOOL("profiling", "enable_source_mapping", false),
	BOOL("profiling", "enable_visual_report", false),
	STRLIST("profiling", "extra_profiler_options"),
	STR("profiling", "ncu_bin", ""),
	STR("profiling", "output_root", "./profile"),
	ENUM("profiling", "clock_control", "base|none", "base"),

	ENUM("privilege", "mode", "none|full_sudo", "none"),
	ENUM("privilege", "password_storage", "forbidden", "forbidden"),

	BOOL("discovery", "enabled_when_filter_missing", true),
	BOOL("discovery", "fallback_when_kernel_filter_misses", true),
	INT("discovery", "max_candidates", 10, 1, 10000),
	ENUM("discovery", "rank_by", "total_duration|launches|mean_duration",
	    "total_duration"),

	BOOL("analysis", "collect_memory", false),
	BOOL("analysis", "collect_compute", false),
	BOOL("analysis", "collect_occupancy", false),
	BOOL("analysis", "collect_roofline", false),
	BOOL("analysis", "collect_source", false),
	ENUMLIST("analysis", "source_views", "cuda|ptx|sass"),
	BOOL("analysis", "enable_bottleneck_decision_engine", true),
	BOOL("analysis", "enable_regression_compare", false),
	STR_NULL("analysis", "compare_baseline"),
	NUM("analysis", "random_variation_tolerance_pct", 2.0),
	BOOL("analysis", "generate_source_hotspots_table", false),

	BOOL("visualization", "enabled", false),
	ENUM("visualization", "format", "png|svg", "png"),

	STRLIST("notes", "user_requirements"),
	NOTELIST("notes", "unsupported_or_deferred_requirements"),
	STRLIST("notes", "original_requirements"),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* Where errors point: the file name and, when loading, its YAML document. */
struct ctx {
	const char *name;
	struct fy_document *doc;
	struct kp_err *err;
};

/* "/target/python/script" for ("target.python", "script"). */
static void
ypath(char *buf, size_t n, const char *sec, const char *key)
{
	char *p;

	snprintf(buf, n, "%s%s%s%s", *sec ? "/" : "", sec, key ? "/" : "", key ? key : "");
	for (p = buf; *p; p++)
		if (*p == '.')
			*p = '/';
}

/* The line of the key KEY in section SEC, 0 when absent. */
static int
key_line(struct ctx *c, const char *sec, const char *key)
{
	char path[256];
	struct fy_node *map;
	struct fy_node_pair *pair;
	void *it = NULL;
	size_t n, kl = strlen(key);

	ypath(path, sizeof(path), sec, NULL);
	map = kp_yaml_node(c->doc, *sec ? path : "/");
	while (map != NULL && fy_node_is_mapping(map) &&
	    (pair = fy_node_mapping_iterate(map, &it)) != NULL) {
		struct fy_node *k = fy_node_pair_key(pair);
		const char *ks = k && fy_node_is_scalar(k) ? fy_node_get_scalar(k, &n) : NULL;

		if (ks != NULL && n == kl && memcmp(ks, key, kl) == 0)
			return kp_yaml_line(k);
	}
	return 0;
}

static int __attribute__((format(printf, 4, 5)))
fail(struct ctx *c, const char *sec, const char *key, const char *fmt, ...)
{
	char path[256], field[256], msg[640];
	int line = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(field, sizeof(field), "%s%s%s", sec, *sec && key ? "." : "", key ? key : "");
	if (c->doc != NULL) {
		struct fy_node *n;

		ypath(path, sizeof(path), sec, key);
		if ((n = kp_yaml_node(c->doc, path)) == NULL) {
			ypath(path, sizeof(path), sec, NULL);
			n = *sec ? kp_yaml_node(c->doc, path) : NULL;
		}
		line = n ? kp_yaml_line(n) : 0;
		if (line == 0 && key != NULL)	/* an empty [] or {}: the key's line */
			line = key_line(c, sec, key);
	}
	if (c->name && line > 0)
		return kp_errf(c->err, KP_EXIT_DATA, "%s:%d: %s: %s", c->name, line, field, msg);
	if (c->name)
		return kp_errf(c->err, KP_EXIT_DATA, "%s: %s: %s", c->name, field, msg);
	return kp_errf(c->err, KP_EXIT_DATA, "%s: %s", field, msg);
}

/*
 * An environment variable's name: [A-Za-z_][A-Za-z0-9_]*.  Anything else reaches
 * env(1) and a shell as something else than a name ("X --split-string=...").
 */
int
kp_env_name_valid(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (!(ch == '_' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
		    (ch >= '0' && ch <= '9')))
			return 0;
	}
	return 1;
}

/* target.env: a name that is not one, reported at its own line. */
static int
bad_env_name(struct ctx *c, const char *key)
{
	struct fy_node *map = c->doc ? kp_yaml_node(c->doc, "/target/env") : NULL;
	struct fy_node_pair *pair;
	void *it = NULL;
	int line = 0;
	char shown[160];
	size_t i, j = 0, kl = strlen(key), n;

	/* by hand: fy_node_mapping_lookup_key_by_string() parses the key as YAML */
	while (map != NULL && fy_node_is_mapping(map) &&
	    (pair = fy_node_mapping_iterate(map, &it)) != NULL) {
		struct fy_node *k = fy_node_pair_key(pair);
		const char *ks = k && fy_node_is_scalar(k) ? fy_node_get_scalar(k, &n) : NULL;

		if (ks != NULL && n == kl && memcmp(ks, key, kl) == 0) {
			line = kp_yaml_line(k);
			break;
		}
	}

	/* the name as a C-ish string: controls escaped, cut when long */
	for (i = 0; key[i] != '\0' && j + 5 < sizeof shown; i++) {
		unsigned char ch = (unsigned char)key[i];

		if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\')
			j += (size_t)snprintf(shown + j, sizeof shown - j, "\\x%02x", ch);
		else
			shown[j++] = (char)ch;
	}
	shown[j] = '\0';
	if (line > 0)
		return kp_errf(c->err, KP_EXIT_DATA, "%s:%d: target.env: \"%s%s\" is not a variable "
		    "name ([A-Za-z_][A-Za-z0-9_]*)", c->name ? c->name : "<target>", line, shown,
		    key[i] ? "..." : "");
	return fail(c, "target", "env", "\"%s%s\" is not a variable name ([A-Za-z_][A-Za-z0-9_]*)",
	    shown, key[i] ? "..." : "");
}

static const char *
type_name(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "a mapping";
	case JSON_ARRAY: return "a list";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Is s one of "a|b|c"? */
static int
one_of(const char *s, const char *allowed)
{
	size_t n = strlen(s);
	const char *p = allowed, *bar;

	for (;;) {
		bar = strchr(p, '|');
		if ((size_t)(bar ? bar - p : (ptrdiff_t)strlen(p)) == n && strncmp(p, s, n) == 0)
			return 1;
		if (bar == NULL)
			return 0;
		p = bar + 1;
	}
}

static void
list_allowed(char *buf, size_t n, const char *allowed)
{
	char *p;

	snprintf(buf, n, "%s", allowed);
	for (p = buf; *p; p++)
		if (*p == '|')
			*p = ',';
}

static int
bad_enum(struct ctx *c, const struct field *f, const char *s)
{
	char list[256], shown[256];
	json_t *j = json_string(s);
	char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	char *o = shown;
	const char *a;

	/* "a, b, c" */
	list_allowed(list, sizeof(list), f->allowed);
	for (a = list; *a && o < shown + sizeof(shown) - 3; a++) {
		*o++ = *a;
		if (*a == ',')
			*o++ = ' ';
	}
	*o = '\0';
	fail(c, f->sec, f->key, "%s is not one of %s", q ? q : "?", shown);
	free(q);
	json_decref(j);
	return -1;
}

static int
bad_type(struct ctx *c, const struct field *f, const char *want, json_t *v)
{
	char *q = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

	fail(c, f->sec, f->key, "expected %s, got %s%s%s", want, type_name(v),
	    q && !json_is_null(v) ? " " : "", q && !json_is_null(v) ? q : "");
	free(q);
	return -1;
}

static int
check_str_list(struct ctx *c, const struct field *f, json_t *v)
{
	json_t *x;
	size_t i;

	if (!json_is_array(v))
		return bad_type(c, f, "a list of strings", v);
	json_array_foreach(v, i, x) {
		if (!json_is_string(x))
			return bad_type(c, f, "a list of strings", x);
		if (f->type == F_ENUMLIST && !one_of(json_string_value(x), f->allowed))
			return bad_enum(c, f, json_string_value(x));
	}
	return 0;
}

/* A list of words, or one string split into words as a POSIX shell would
 * (quotes, no expansion); kept as the list. */
static int
check_words(struct ctx *c, const struct field *f, json_t *sec, json_t *v)
{
	struct kp_err e;
	json_t *w, *x;
	size_t i;

	if (json_is_string(v)) {
		if ((w = kp_shell_split(json_string_value(v), &e)) == NULL)
			return fail(c, f->sec, f->key, "%s", e.msg);
		json_object_set_new(sec, f->key, w);
		v = w;
	}
	if (!json_is_array(v))
		return bad_type(c, f, "a list of words or one string", v);
	json_array_foreach(v, i, x) {
		if (!json_is_string(x))
			return bad_type(c, f, "a list of words", x);
		if (json_string_length(x) == 0)
			return fail(c, f->sec, f->key, "word %zu is empty", i + 1);
	}
	return 0;
}

/* A list of distinct ranks 0..max, at most KP_RANKS_MAX; one number is a list of one. */
static int
check_ranks(struct ctx *c, const struct field *f, json_t *sec, json_t *v)
{
	json_t *x, *seen;
	size_t i;

	if (json_is_integer(v)) {
		json_t *one = json_pack("[O]", v);
		json_object_set_new(sec, f->key, one);
		v = one;
	}
	if (!json_is_array(v))
		return bad_type(c, f, "a list of rank numbers", v);
	if (json_array_size(v) == 0)
		return fail(c, f->sec, f->key, "empty: name at least one rank (default [0])");
	if (json_array_size(v) > KP_RANKS_MAX)
		return fail(c, f->sec, f->key, "%zu ranks: at most %d are profiled at once",
		    json_array_size(v), KP_RANKS_MAX);
	seen = json_array();
	json_array_foreach(v, i, x) {
		if (!json_is_integer(x)) {
			json_decref(seen);
			return bad_type(c, f, "rank numbers", x);
		}
		if (json_integer_value(x) < f->min || json_integer_value(x) > f->max) {
			json_decref(seen);
			return fail(c, f->sec, f->key, "%lld is out of range %lld..%lld",
			    (long long)json_integer_value(x), f->min, f->max);
		}
		if (kp_ranks_has(seen, (long)json_integer_value(x))) {
			json_decref(seen);
			return fail(c, f->sec, f->key, "rank %lld is listed twice",
			    (long long)json_integer_value(x));
		}
		json_array_append(seen, x);
	}
	json_decref(seen);
	return 0;
}

static int
check_field(struct ctx *c, const struct field *f, json_t *sec, json_t *v)
{
	const char *key;
	json_t *x;
	size_t i;

	switch (f->type) {
	case F_STR:
		if (!json_is_string(v))
			return bad_type(c, f, "a string", v);
		if (f->def == NULL && json_string_length(v) == 0)
			return fail(c, f->sec, f->key, "must not be empty");
		return 0;
	case F_STR_NULL:
		return json_is_string(v) || json_is_null(v) ? 0 : bad_type(c, f, "a string", v);
	case F_ENUM_NULL:
		if (json_is_null(v))
			return 0;
		/* FALLTHROUGH */
	case F_ENUM:
		if (!json_is_string(v))
			return bad_type(c, f, "a string", v);
		if (!one_of(json_string_value(v), f->allowed))
			return bad_enum(c, f, json_string_value(v));
		return 0;
	case F_INT:
		if (!json_is_integer(v))
			return bad_type(c, f, "an integer", v);
		if (json_integer_value(v) < f->min || json_integer_value(v) > f->max)
			return fail(c, f->sec, f->key, "%lld is out of range %lld..%lld",
			    (long long)json_integer_value(v), f->min, f->max);
		return 0;
	case F_NUM:
		if (!json_is_number(v))
			return bad_type(c, f, "a number", v);
		if (json_number_value(v) < 0)
			return fail(c, f->sec, f->key, "%g is negative", json_number_value(v));
		if (json_is_integer(v))	/* one type in memory: 2 and 2.0 are the same */
			json_object_set_new(sec, f->key, json_real(json_number_value(v)));
		return 0;
	case F_BOOL:
		return json_is_boolean(v) ? 0 : bad_type(c, f, "true or false", v);
	case F_STRLIST:
	case F_ENUMLIST:
		return check_str_list(c, f, v);
	case F_STRMAP:
		if (!json_is_object(v))
			return bad_type(c, f, "a mapping of NAME: VALUE", v);
		json_object_foreach(v, key, x) {
			char buf[64];

			if (!kp_env_name_valid(key, strlen(key)))
				return bad_env_name(c, key);
			if (json_is_string(x))
				continue;
			if (json_is_integer(x))
				snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(x));
			else if (json_is_boolean(x))
				snprintf(buf, sizeof(buf), "%s", json_is_true(x) ? "true" : "false");
			else
				return bad_type(c, f, "string values", x);
			/* Environment values are strings: CUDA_VISIBLE_DEVICES: 0 means "0". */
			json_object_set_new(v, key, json_string(buf));
		}
		return 0;
	case F_WORDS:
		return check_words(c, f, sec, v);
	case F_RANKLIST:
		return check_ranks(c, f, sec, v);
	case F_NOTELIST:
		if (!json_is_array(v))
			return bad_type(c, f, "a list", v);
		json_array_foreach(v, i, x) {
			if (json_is_string(x))
				continue;
			if (!json_is_object(x) || !json_is_string(json_object_get(x, "text")))
				return bad_type(c, f, "strings or {text, reason} mappings", x);
		}
		return 0;
	}
	return 0;
}

/* The object for a section path ("target.python"), created when absent. */
static json_t *
section(struct ctx *c, json_t *root, const char *sec, int *bad)
{
	char name[64], *p, *save = NULL;
	char shown[64];
	json_t *o = root, *n;

	*bad = 0;
	if (*sec == '\0')
		return root;
	snprintf(name, sizeof(name), "%s", sec);
	shown[0] = '\0';
	for (p = strtok_r(name, ".", &save); p; p = strtok_r(NULL, ".", &save)) {
		if (shown[0])
			strncat(shown, ".", sizeof(shown) - strlen(shown) - 1);
		strncat(shown, p, sizeof(shown) - strlen(shown) - 1);
		n = json_object_get(o, p);
		if (n == NULL || json_is_null(n)) {
			/* "section:" with nothing under it reads as null: treat as empty. */
			json_object_set_new(o, p, json_object());
			n = json_object_get(o, p);
		} else if (!json_is_object(n)) {
			char *q = json_dumps(n, JSON_ENCODE_ANY | JSON_COMPACT);
			fail(c, shown, NULL, "expected a mapping, got %s%s%s", type_name(n),
			    q ? " " : "", q ? q : "");
			free(q);
			*bad = 1;
			return NULL;
		}
		o = n;
	}
	return o;
}

static int
check_privilege(struct ctx *c, json_t *priv)
{
	const char *key;
	json_t *v;

	json_object_foreach(priv, key, v) {
		char low[128];
		size_t i;

		for (i = 0; key[i] && i < sizeof(low) - 1; i++)
			low[i] = (char)tolower((unsigned char)key[i]);
		low[i] = '\0';
		if (strstr(low, "password") && strcmp(key, "password_storage") != 0)
			return fail(c, "privilege", key,
			    "refused: kp never stores a password (use passwordless sudo)");
	}
	v = json_object_get(priv, "password_storage");
	if (json_is_string(v) && strcmp(json_string_value(v), "forbidden") != 0)
		return fail(c, "privilege", "password_storage",
		    "\"%s\" is refused: kp never stores a password; only \"forbidden\" is allowed",
		    json_string_value(v));
	return 0;
}

static int
check_kernel(struct ctx *c, json_t *k)
{
	const char *mode = json_string_value(json_object_get(k, "filter_mode"));
	json_t *id = json_object_get(k, "profile_id");

	if (json_is_string(id) && !kp_profile_id_valid(json_string_value(id)))
		return fail(c, "kernel", "profile_id",
		    "\"%s\" is not a valid profile id (only A-Z a-z 0-9 _ . -, no \"..\")",
		    json_string_value(id));
	if (mode == NULL)
		return 0;
	if (strcmp(mode, "nvtx-range") == 0 && !json_is_string(json_object_get(k, "nvtx_range")))
		return fail(c, "kernel", "nvtx_range", "required when filter_mode is nvtx-range");
	if ((strcmp(mode, "exact") == 0 || strcmp(mode, "kernel-id") == 0) &&
	    !json_is_string(json_object_get(k, "filter")))
		return fail(c, "kernel", "filter", "required when filter_mode is %s", mode);
	return 0;
}

/*
 * A job a launcher starts: ranks other than [0] need a launcher; the launcher
 * is a program, not an option; ncu's own options hold no "--" (kp-rank-exec
 * ends them there); and the filter selects no NCCL kernel: the profiled rank
 * replays every kernel it profiles while the others wait in the collective.
 */
static int
check_launcher(struct ctx *c, json_t *root)
{
	json_t *tg = json_object_get(root, "target"), *k = json_object_get(root, "kernel");
	json_t *l = json_object_get(tg, "launcher"), *ranks = json_object_get(tg, "ranks");
	json_t *x = json_object_get(json_object_get(root, "profiling"), "extra_profiler_options");
	const char *nccl, *fl = json_string_value(json_object_get(k, "filter"));

	if (json_array_size(l) == 0) {
		if (json_array_size(ranks) != 1 || !kp_ranks_has(ranks, 0))
			return fail(c, "target", "ranks", "needs target.launcher (ranks are those "
			    "of a job a launcher starts)");
		return 0;
	}
	if (json_string_value(json_array_get(l, 0))[0] == '-')
		return fail(c, "target", "launcher", "\"%s\" is an option: the first word is the "
		    "launcher program (torchrun, mpirun, srun ...)",
		    json_string_value(json_array_get(l, 0)));
	if (kp_launcher_has(x, "--"))
		return fail(c, "profiling", "extra_profiler_options", "\"--\" is refused with "
		    "target.launcher: it ends ncu's options for kp-rank-exec");
	nccl = kp_filter_selects_nccl(json_string_value(json_object_get(k, "filter_mode")), fl,
	    json_string_value(json_object_get(k, "name")));
	if (nccl != NULL)
		return fail(c, "kernel", fl != NULL && *fl != '\0' ? "filter" : "name",
		    "%s%s%s would select NCCL kernels too (it matches %s): with target.launcher "
		    "kp profiles no NCCL kernel (the profiled rank replays it while the other "
		    "ranks wait in the collective); name the kernel you want",
		    fl != NULL && *fl != '\0' ? "\"" : "", fl != NULL && *fl != '\0' ? fl :
		    "no filter", fl != NULL && *fl != '\0' ? "\"" : "", nccl);
	return 0;
}

static int
check_tree(struct ctx *c, json_t *root)
{
	size_t i;

	if (!json_is_object(root)) {
		if (c->name)
			return kp_errf(c->err, KP_EXIT_DATA, "%s: expected a mapping of sections, got %s",
			    c->name, type_name(root));
		return kp_errf(c->err, KP_EXIT_DATA, "expected a mapping of sections, got %s",
		    type_name(root));
	}
	if (json_is_object(json_object_get(root, "privilege")) &&
	    check_privilege(c, json_object_get(root, "privilege")) != 0)
		return -1;
	for (i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];
		json_t *sec, *v, *def;
		int bad;

		if ((sec = section(c, root, f->sec, &bad)) == NULL)
			return -1;
		v = json_object_get(sec, f->key);
		if (v == NULL) {
			if (f->def == NULL)
				return fail(c, f->sec, f->key, "missing (required)");
			def = json_loads(f->def, JSON_DECODE_ANY, NULL);
			json_object_set_new(sec, f->key, def);
			continue;
		}
		if (check_field(c, f, sec, v) != 0)
			return -1;
	}
	if (check_kernel(c, json_object_get(root, "kernel")) != 0)
		return -1;
	return check_launcher(c, root);
}

int
kp_target_validate(json_t *target, struct kp_err *err)
{
	struct ctx c = { NULL, NULL, err };

	return check_tree(&c, target);
}

json_t *
kp_target_load(const char *path, struct kp_err *err)
{
	struct fy_document *d;
	struct ctx c;
	const char *base;
	json_t *t;

	if ((d = kp_yaml_load(path, err)) == NULL)
		return NULL;
	t = kp_yaml_to_json(fy_document_root(d));
	base = path;
	c.name = base;
	c.doc = d;
	c.err = err;
	if (t == NULL || check_tree(&c, t) != 0) {
		json_decref(t);
		fy_document_destroy(d);
		return NULL;
	}
	fy_document_destroy(d);
	return t;
}

/* A copy of the target with the known sections and keys in schema order,
 * unknown ones after them, so the file reads the same way every time. */
static json_t *
ordered(json_t *t)
{
	json_t *out = json_object(), *o, *src;
	const char *key;
	json_t *v;
	size_t i;

	for (i = 0; i < NFIELDS; i++) {
		const struct field *f = &fields[i];
		char name[64], *p, *save = NULL;

		o = out;
		src = t;
		snprintf(name, sizeof(name), "%s", f->sec);
		for (p = strtok_r(name, ".", &save); p && src; p = strtok_r(NULL, ".", &save)) {
			src = json_object_get(src, p);
			if (json_object_get(o, p) == NULL)
				json_object_set_new(o, p, json_object());
			o = json_object_get(o, p);
		}
		if (src && (v = json_object_get(src, f->key)) != NULL)
			json_object_set(o, f->key, v);
	}
	/* Unknown keys, at every level that holds known ones. */
	json_object_foreach(t, key, v) {
		if (json_object_get(out, key) == NULL) {
			json_object_set(out, key, v);
			continue;
		}
		if (json_is_object(v)) {
			const char *k2;
			json_t *v2;

			o = json_object_get(out, key);
			json_object_foreach(v, k2, v2) {
				json_t *have = json_object_get(o, k2);
				if (have == NULL)
					json_object_set(o, k2, v2);
				else if (json_is_object(v2) && json_is_object(have)) {
					const char *k3;
					json_t *v3;
					json_object_foreach(v2, k3, v3)
						if (json_object_get(have, k3) == NULL)
							json_object_set(have, k3, v3);
				}
			}
		}
	}
	return out;
}

int
kp_target_write(json_t *target, const char *path, struct kp_err *err)
{
	return kp_target_write_out(target, path, KP_OUT_DERIVED, err);
}

int
kp_target_write_out(json_t *target, const char *path, int how, struct kp_err *err)
{
	struct fy_document *d;
	json_t *o;
	int rc;

	if (kp_target_validate(target, err) != 0)
		return -1;
	if ((o = ordered(target)) == NULL)
		return kp_errf(err, KP_EXIT_ENV, "out of memory");
	d = kp_json_to_yaml(o, err);
	json_decref(o);
	if (d == NULL)
		return -1;
	rc = kp_yaml_write_out(d, path, how, err);
	fy_document_destroy(d);
	return rc;
}

int
kp_profile_id_valid(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > KP_PROFILE_ID_MAX || id[0] == '.' || id[0] == '-')
		return 0;
	if (strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
		return 0;
	return strstr(id, "..") == NULL;
}

char *
kp_profile_id_stem(const char *kernel)
{
	size_t n = strlen(kernel), i, j = 0;
	char *s;

	if ((s = malloc(n + 8)) == NULL)
		return NULL;
	for (i = 0; i < n && j < 64; i++) {
		char ch = kernel[i];

		if (!isalnum((unsigned char)ch) && ch != '-' && ch != '.')
			ch = '_';
		if (ch == '.' && j > 0 && s[j - 1] == '.')
			continue;	/* never ".." */
		if (ch == '_' && j > 0 && s[j - 1] == '_')
			continue;
		if (j == 0 && (ch == '.' || ch == '-' || ch == '_'))
			continue;
		s[j++] = ch;
	}
	while (j > 0 && (s[j - 1] == '_' || s[j - 1] == '.' || s[j - 1] == '-'))
		j--;
	if (j == 0) {
		strcpy(s, "kernel");
		return s;
	}
	s[j] = '\0';
	return s;
}

const char *
kp_target_str(json_t *target, const char *section, const char *key)
{
	json_t *v = json_object_get(json_object_get(target, section), key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}
