/*
 * rules-embed: a build step, not an installed program.  Parses a rules file
 * (kp-bottleneck-rules/1) with the rules module's own loader and writes C
 * that defines kp_rules_builtin (lib/rules_int.h): the file's bytes and the
 * structures kp_rules_parse() built from them.  kp_rules_load() uses those
 * structures when a file's bytes are the same, so the shipped rules are
 * never parsed at run time; any other file still is.
 *
 * usage: rules-embed RULES.yaml OUT.c   (OUT.c written whole or not at all)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_rules.h"
#include "rules_int.h"

/* The generator is linked without a built-in set: kp_rules_load() parses. */
const struct kp_rules_builtin kp_rules_builtin = { NULL, 0, { 0, 0, 0, 0, 0, 0, 0 }, 0,
	NULL, 0, NULL, NULL };

/* a literal's bytes, its length by sizeof */
#define PUTS(o, s) put((o), (s), sizeof(s) - 1)

struct out {
	char *buf;
	size_t len, cap;
	int bad;
};

static void
put(struct out *o, const char *s, size_t n)
{
	char *nb;

	if (o->bad)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 65536;

		while (o->len + n + 1 > cap)
			cap *= 2;
		if ((nb = realloc(o->buf, cap)) == NULL) {
			o->bad = 1;
			return;
		}
		o->buf = nb;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void
putf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
putf(struct out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		o->bad = 1;
		return;
	}
	put(o, tmp, (size_t)n);
}

/* A C string literal of s[0..n): printable ASCII as is, the rest in octal. */
static void
lit(struct out *o, const char *s, size_t n)
{
	size_t i;

	PUTS(o, "\"");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			putf(o, "\\%c", c);
		else if (c == '\n')
			PUTS(o, "\\n");
		else if (c == '\t')
			PUTS(o, "\\t");
		else if (c >= 0x20 && c < 0x7f && c != '?')
			put(o, (const char *)&c, 1);
		else
			putf(o, "\\%03o", c);
	}
	PUTS(o, "\"");
}

static void
str(struct out *o, const char *s)
{
	if (s == NULL)
		PUTS(o, "NULL");
	else
		lit(o, s, strlen(s));
}

/* A double that reads back to the same bits. */
static void
num(struct out *o, double v)
{
	putf(o, "%.17g", v);
}

static const char *const opsyms[] = { "KP_OP_GT", "KP_OP_GE", "KP_OP_LT", "KP_OP_LE", "KP_OP_EQ",
	"KP_OP_NE" };
static const char *const sevsyms[] = { "KP_SEV_HIGH", "KP_SEV_MEDIUM", "KP_SEV_LOW" };

/* conds as a static array named <name>; the expression to point at it. */
static void
conds(struct out *o, const char *name, const struct kp_cond *c, size_t n)
{
	size_t i;

	if (n == 0)
		return;
	putf(o, "static struct kp_cond %s[] = {\n", name);
	for (i = 0; i < n; i++) {
		PUTS(o, "\t{ ");
		str(o, c[i].metric);
		putf(o, ", %s, ", opsyms[c[i].op]);
		num(o, c[i].value);
		PUTS(o, " },\n");
	}
	PUTS(o, "};\n");
}

static void
ref(struct out *o, const char *name, size_t n)
{
	if (n == 0)
		PUTS(o, "NULL");
	else
		put(o, name, strlen(name));
}

static void
rule(struct out *o, const struct kp_rule *r, size_t i)
{
	char a[64], b[64], u[64];
	size_t k;

	snprintf(a, sizeof(a), "r%zu_all", i);
	snprintf(b, sizeof(b), "r%zu_any", i);
	snprintf(u, sizeof(u), "r%zu_unless", i);
	conds(o, a, r->all, r->nall);
	conds(o, b, r->any, r->nany);
	conds(o, u, r->unless, r->nunless);
	for (k = 0; k < r->nactions; k++) {
		char x[64], y[64];

		snprintf(x, sizeof(x), "r%zu_a%zu_all", i, k);
		snprintf(y, sizeof(y), "r%zu_a%zu_any", i, k);
		conds(o, x, r->actions[k].all, r->actions[k].nall);
		conds(o, y, r->actions[k].any, r->actions[k].nany);
	}
	if (r->nactions > 0) {
		putf(o, "static struct kp_action r%zu_actions[] = {\n", i);
		for (k = 0; k < r->nactions; k++) {
			const struct kp_action *ac = &r->actions[k];
			char x[64], y[64];

			snprintf(x, sizeof(x), "r%zu_a%zu_all", i, k);
			snprintf(y, sizeof(y), "r%zu_a%zu_any", i, k);
			PUTS(o, "\t{ .text = ");
			str(o, ac->text);
			PUTS(o, ", .all = ");
			ref(o, x, ac->nall);
			PUTS(o, ", .any = ");
			ref(o, y, ac->nany);
			putf(o, ", .nall = %zu, .nany = %zu },\n", ac->nall, ac->nany);
		}
		PUTS(o, "};\n");
	}
	if (r->noutranks > 0) {
		putf(o, "static size_t r%zu_outranks[] = {", i);
		for (k = 0; k < r->noutranks; k++)
			putf(o, " %zu,", r->outranks[k]);
		PUTS(o, " };\n");
	}
	if (r->ngain > 0) {
		putf(o, "static char *r%zu_gain[] = {", i);
		for (k = 0; k < r->ngain; k++) {
			PUTS(o, " ");
			str(o, r->gain[k]);
			PUTS(o, ",");
		}
		PUTS(o, " };\n");
	}
}

static void
rule_init(struct out *o, const struct kp_rule *r, size_t i)
{
	char n[64];

	PUTS(o, "\t{ .id = ");
	str(o, r->id);
	putf(o, ", .severity = %s, .weight = ", sevsyms[r->severity]);
	num(o, r->weight);
	snprintf(n, sizeof(n), "r%zu_all", i);
	PUTS(o, ",\n\t  .all = ");
	ref(o, n, r->nall);
	snprintf(n, sizeof(n), "r%zu_any", i);
	PUTS(o, ", .any = ");
	ref(o, n, r->nany);
	snprintf(n, sizeof(n), "r%zu_unless", i);
	putf(o, ", .nall = %zu, .nany = %zu, .unless = ", r->nall, r->nany);
	ref(o, n, r->nunless);
	putf(o, ", .nunless = %zu,\n\t  .evidence = ", r->nunless);
	str(o, r->evidence);
	snprintf(n, sizeof(n), "r%zu_actions", i);
	PUTS(o, ",\n\t  .actions = ");
	ref(o, n, r->nactions);
	snprintf(n, sizeof(n), "r%zu_outranks", i);
	putf(o, ", .nactions = %zu, .outranks = ", r->nactions);
	ref(o, n, r->noutranks);
	snprintf(n, sizeof(n), "r%zu_gain", i);
	putf(o, ", .noutranks = %zu, .gain = ", r->noutranks);
	ref(o, n, r->ngain);
	putf(o, ", .ngain = %zu,\n\t  .keep_at_roofline = %d, .line = %d },\n", r->ngain,
	    r->keep_at_roofline, r->line);
}

static void
json_text(struct out *o, json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (s == NULL) {
		o->bad = 1;
		return;
	}
	str(o, s);
	free(s);
}

int
main(int argc, char *argv[])
{
	struct kp_err err;
	struct kp_rules *r;
	struct out o = { NULL, 0, 0, 0 };
	size_t len, i, from;
	char *text;
	int rc;

	kp_setprogname(argv[0]);
	if (argc != 3) {
		fprintf(stderr, "usage: rules-embed RULES.yaml OUT.c\n");
		return KP_EXIT_USAGE;
	}
	if ((text = kp_read_file(argv[1], &len, &err)) == NULL ||
	    (r = kp_rules_parse(argv[1], text, len, &err)) == NULL) {
		fprintf(stderr, "rules-embed: %s\n", err.msg);
		free(text);
		return err.status;
	}
	PUTS(&o, "/* Written by tools/rules-embed.c from ");
	put(&o, argv[1], strlen(argv[1]));
	PUTS(&o, ": do not edit. */\n#include <stddef.h>\n\n#include \"rules_int.h\"\n\n");
	PUTS(&o, "static const char yaml[] =\n");
	for (from = 0, i = 0; i < len; i++)
		if (text[i] == '\n' || i + 1 == len) {
			PUTS(&o, "    ");
			lit(&o, text + from, i + 1 - from);
			PUTS(&o, "\n");
			from = i + 1;
		}
	if (len == 0)
		PUTS(&o, "    \"\"\n");
	PUTS(&o, "    ;\n\n");
	for (i = 0; i < r->nrules; i++)
		rule(&o, &r->rules[i], i);
	PUTS(&o, "\nstatic struct kp_rule rules[] = {\n");
	for (i = 0; i < r->nrules; i++)
		rule_init(&o, &r->rules[i], i);
	PUTS(&o, "};\n\nconst struct kp_rules_builtin kp_rules_builtin = {\n\t.yaml = yaml, "
	    ".ylen = sizeof(yaml) - 1,\n\t.fu = { ");
	num(&o, r->fu.memory_dominant_pct);
	PUTS(&o, ", ");
	num(&o, r->fu.sm_dominant_pct);
	PUTS(&o, ", ");
	num(&o, r->fu.low_occupancy_pct);
	PUTS(&o, ", ");
	num(&o, r->fu.occupancy_gap_ratio);
	PUTS(&o, ", ");
	num(&o, r->fu.low_both_pct);
	PUTS(&o, ", ");
	num(&o, r->fu.low_ipc);
	putf(&o, ", %d },\n\t.roofline_pct = ", r->fu.have);
	num(&o, r->roofline_pct);
	putf(&o, ",\n\t.rules = rules, .nrules = %zu,\n\t.ncu_map = ", r->nrules);
	json_text(&o, r->ncu_map);
	PUTS(&o, ",\n\t.sections = ");
	json_text(&o, r->sections);
	PUTS(&o, ",\n};\n");
	kp_rules_free(r);
	free(text);
	if (o.bad) {
		free(o.buf);
		fprintf(stderr, "rules-embed: out of memory\n");
		return KP_EXIT_ENV;
	}
	rc = kp_write_file_atomic(argv[2], o.buf, o.len, &err);
	free(o.buf);
	if (rc < 0) {
		fprintf(stderr, "rules-embed: %s\n", err.msg);
		return err.status;
	}
	return 0;
}
