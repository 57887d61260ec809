/*
 * rules.c: load and validate a bottleneck rules file (schema
 * kp-bottleneck-rules/1, see references/rules/bottleneck_rules.yaml and
 * kp-decide(1)).  Every error names the file, the line and the rule:
 * FILE:LINE: rule "<id>": message (KP_EXIT_DATA).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libfyaml.h>

#include "kp_arena.h"
#include "kp_atomic.h"
#include "kp_diag.h"
#include "kp_rules.h"
#include "kp_yaml.h"
#include "rules_int.h"

const char *const kp_rule_classes[] = {
	"memory_bandwidth_bound", "memory_latency_bound", "poor_memory_coalescing",
	"shared_memory_bank_conflict", "compute_pipeline_bound", "tensor_core_underuse",
	"occupancy_limited", "under_filled_grid", "latency_hiding_failure",
	"register_spill", "synchronization_bound", "divergence_bound",
	"l1_throughput_bound", "latency_bound", "atomic_contention", NULL
};

static const char *const opnames[] = { ">", ">=", "<", "<=", "==", "!=" };
static const char *const sevnames[] = { "high", "medium", "low" };

const char *
kp_op_name(enum kp_op op)
{
	return opnames[op];
}

const char *
kp_sev_name(enum kp_sev s)
{
	return sevnames[s];
}

/* The loader's state: the file name and the rule being read, for messages. */
struct ld {
	const char *path;
	const char *id;		/* current rule id, or NULL */
	size_t idx;		/* current rule, 1-based; 0 outside rules */
	struct kp_err *err;
	struct kp_arena strs;	/* scalars' text (scalar()) */
};

static int
fail(struct ld *l, struct fy_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(struct ld *l, struct fy_node *n, const char *fmt, ...)
{
	char msg[768], who[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (l->id != NULL)
		snprintf(who, sizeof(who), "rule \"%.120s\": ", l->id);
	else if (l->idx > 0)
		snprintf(who, sizeof(who), "rule #%zu: ", l->idx);
	else
		who[0] = '\0';
	return kp_errf(l->err, KP_EXIT_DATA, "%s:%d: %s%s", l->path,
	    n != NULL ? kp_yaml_line(n) : 1, who, msg);
}

/*
 * A scalar's text, NUL-terminated in l->strs (freed with the load).  Not
 * fy_node_get_scalar0(): that formats and keeps a copy in every node, a fifth
 * of libfyaml's work on the rules file (callgrind).  NULL: not a scalar, or
 * out of memory.
 */
static const char *
scalar(struct ld *l, struct fy_node *n)
{
	const char *s;
	size_t len;

	if (n == NULL || !fy_node_is_scalar(n) || (s = fy_node_get_scalar(n, &len)) == NULL)
		return NULL;
	return kp_arena_strndup(&l->strs, s, len);
}

/* A plain (unquoted) scalar that is a finite number. */
static int
number(struct ld *l, struct fy_node *n, const char *what, double *out)
{
	const char *s = scalar(l, n);
	char *end;

	if (s == NULL || fy_node_get_style(n) != FYNS_PLAIN || *s == '\0')
		return fail(l, n, "%s: expected a number", what);
	*out = strtod(s, &end);
	if (*end != '\0' || !isfinite(*out))
		return fail(l, n, "%s: expected a number, not \"%.60s\"", what, s);
	return 0;
}

static int
string(struct ld *l, struct fy_node *n, const char *what, char **out)
{
	const char *s = scalar(l, n);

	if (s == NULL)
		return fail(l, n, "%s: expected a string", what);
	if ((*out = strdup(s)) == NULL)
		return fail(l, n, "out of memory");
	return 0;
}

static int
class_index(const char *s)
{
	int i;

	for (i = 0; kp_rule_classes[i] != NULL; i++)
		if (strcmp(kp_rule_classes[i], s) == 0)
			return i;
	return -1;
}

/* Every key of mapping n must be one of keys (NULL-terminated). */
static int
known_keys(struct ld *l, struct fy_node *n, const char *const *keys, const char *where)
{
	struct fy_node_pair *p;
	void *it = NULL;
	size_t i;

	while ((p = fy_node_mapping_iterate(n, &it)) != NULL) {
		struct fy_node *k = fy_node_pair_key(p);
		const char *s = scalar(l, k);

		if (s == NULL)
			return fail(l, k, "%s: keys must be strings", where);
		for (i = 0; keys[i] != NULL; i++)
			if (strcmp(keys[i], s) == 0)
				break;
		if (keys[i] == NULL)
			return fail(l, k, "%s: unknown key \"%.60s\"", where, s);
	}
	return 0;
}

static struct fy_node *
get(struct fy_node *map, const char *key)
{
	return fy_node_mapping_lookup_by_string(map, key, (size_t)-1);
}

static int
load_followup(struct ld *l, struct fy_node *n, struct kp_followup *fu)
{
	static const char *const keys[] = { "memory_dominant_pct", "sm_dominant_pct",
		"low_occupancy_pct", "occupancy_gap_ratio", "low_both_pct", "low_ipc", NULL };
	double *dst[] = { &fu->memory_dominant_pct, &fu->sm_dominant_pct,
		&fu->low_occupancy_pct, &fu->occupancy_gap_ratio, &fu->low_both_pct,
		&fu->low_ipc };
	const char *missing = NULL;
	size_t i;

	fu->have = 0;
	if (n == NULL)
		return 0;	/* a rules file for kp-decide only: no follow-up choice */
	if (!fy_node_is_mapping(n))
		return fail(l, n, "followup: expected a mapping");
	if (known_keys(l, n, keys, "followup") == -1)
		return -1;
	for (i = 0; keys[i] != NULL; i++) {
		struct fy_node *v = get(n, keys[i]);
		char what[64];

		snprintf(what, sizeof(what), "followup.%s", keys[i]);
		if (v == NULL && missing == NULL)
			missing = keys[i];
		if (v != NULL && number(l, v, what, dst[i]) == -1)
			return -1;
	}
	if (missing != NULL)	/* no built-in value to fall back on */
		return fail(l, n, "followup: no %s (the thresholds live only in the rules"
		    " file)", missing);
	fu->have = 1;
	return 0;
}

/* Zeroed room for the items of the list n in *room (NULL when it has none). */
static int
list_room(struct ld *l, struct fy_node *n, size_t size, void **room)
{
	size_t cap = (size_t)fy_node_sequence_item_count(n);

	*room = NULL;
	if (cap > 0 && (*room = calloc(cap, size)) == NULL)
		return fail(l, n, "out of memory");
	return 0;
}

static int
load_conds(struct ld *l, struct fy_node *n, const char *what, struct kp_cond **out,
    size_t *nout)
{
	static const char *const keys[] = { "metric", "op", "value", NULL };
	struct fy_node *c;
	void *it = NULL, *room;

	*out = NULL;
	*nout = 0;
	if (n == NULL)
		return 0;
	if (!fy_node_is_sequence(n))
		return fail(l, n, "%s: expected a list of {metric, op, value}", what);
	if (list_room(l, n, sizeof(**out), &room) == -1)
		return -1;
	*out = room;
	while ((c = fy_node_sequence_iterate(n, &it)) != NULL) {
		struct kp_cond *k = &(*out)[*nout];
		const char *op;
		size_t i;

		if (!fy_node_is_mapping(c))
			return fail(l, c, "%s: expected {metric, op, value}", what);
		if (known_keys(l, c, keys, "condition") == -1)
			return -1;
		if (get(c, "metric") == NULL)
			return fail(l, c, "condition: missing \"metric\"");
		if (string(l, get(c, "metric"), "metric", &k->metric) == -1)
			return -1;
		(*nout)++;	/* owned from here on, freed with the rule */
		if (k->metric[0] == '\0' || strpbrk(k->metric, " \t{}") != NULL)
			return fail(l, get(c, "metric"), "metric: not a metric name: \"%.60s\"",
			    k->metric);
		if ((op = scalar(l, get(c, "op"))) == NULL)
			return fail(l, get(c, "op") ? get(c, "op") : c,
			    "condition on %.80s: missing \"op\"", k->metric);
		for (i = 0; i < sizeof(opnames) / sizeof(opnames[0]); i++)
			if (strcmp(op, opnames[i]) == 0)
				break;
		if (i == sizeof(opnames) / sizeof(opnames[0]))
			return fail(l, get(c, "op"),
			    "unknown op \"%.20s\" (one of > >= < <= == !=)", op);
		k->op = (enum kp_op)i;
		if (get(c, "value") == NULL)
			return fail(l, c, "condition on %.80s: missing \"value\"", k->metric);
		if (number(l, get(c, "value"), "value", &k->value) == -1)
			return -1;
	}
	return 0;
}

static int
load_strings(struct ld *l, struct fy_node *n, const char *what, char ***out, size_t *nout)
{
	struct fy_node *c;
	void *it = NULL, *room;

	*out = NULL;
	*nout = 0;
	if (!fy_node_is_sequence(n))
		return fail(l, n, "%s: expected a list of strings", what);
	if (list_room(l, n, sizeof(**out), &room) == -1)
		return -1;
	for (*out = room; (c = fy_node_sequence_iterate(n, &it)) != NULL; (*nout)++)
		if (string(l, c, what, &(*out)[*nout]) == -1)
			return -1;
	return 0;
}

static int check_placeholders(struct ld *l, struct fy_node *n, const char *s,
    const char *what);

/* next_actions: each item a string, or {text, when: {all, any}} for an action
 * that applies only when its conditions hold. */
static int
load_actions(struct ld *l, struct fy_node *n, struct kp_action **out, size_t *nout)
{
	static const char *const keys[] = { "text", "when", NULL };
	static const char *const whenkeys[] = { "all", "any", NULL };
	struct fy_node *c, *w;
	void *it = NULL, *room;

	*out = NULL;
	*nout = 0;
	if (!fy_node_is_sequence(n))
		return fail(l, n, "next_actions: expected a list of strings or {text, when}");
	if (list_room(l, n, sizeof(**out), &room) == -1)
		return -1;
	for (*out = room; (c = fy_node_sequence_iterate(n, &it)) != NULL;) {
		struct kp_action *a = &(*out)[(*nout)++];	/* owned from here on, freed
								 * with the rule */

		if (!fy_node_is_mapping(c)) {
			if (string(l, c, "next_actions", &a->text) == -1)
				return -1;
			continue;
		}
		if (known_keys(l, c, keys, "next action") == -1)
			return -1;
		if (get(c, "text") == NULL)
			return fail(l, c, "next action: missing \"text\"");
		if (string(l, get(c, "text"), "text", &a->text) == -1 ||
		    check_placeholders(l, get(c, "text"), a->text, "next action") == -1)
			return -1;
		if ((w = get(c, "when")) == NULL)
			return fail(l, c, "next action: missing \"when\" (a plain string"
			    " is an action that always applies)");
		if (!fy_node_is_mapping(w))
			return fail(l, w, "when: expected a mapping with all: and/or any:");
		if (known_keys(l, w, whenkeys, "when") == -1)
			return -1;
		if (load_conds(l, get(w, "all"), "when.all", &a->all, &a->nall) == -1 ||
		    load_conds(l, get(w, "any"), "when.any", &a->any, &a->nany) == -1)
			return -1;
		if (a->nall + a->nany == 0)
			return fail(l, w, "when: no conditions");
	}
	return 0;
}

/* Placeholders are {name}: braces must pair and hold a metric name. */
static int
check_placeholders(struct ld *l, struct fy_node *n, const char *s, const char *what)
{
	const char *o, *c;

	while ((o = strchr(s, '{')) != NULL) {
		if ((c = strchr(o + 1, '}')) == NULL || c == o + 1 ||
		    memchr(o + 1, '{', (size_t)(c - o - 1)) != NULL)
			return fail(l, n, "%s: unbalanced or empty {placeholder}", what);
		s = c + 1;
	}
	if (strchr(s, '}') != NULL)
		return fail(l, n, "%s: unbalanced or empty {placeholder}", what);
	return 0;
}

static int
load_rule(struct ld *l, struct fy_node *n, struct kp_rule *r, char ***outranks,
    size_t *noutranks)
{
	static const char *const keys[] = { "id", "severity", "weight", "when", "evidence",
		"next_actions", "outranks", "gain", "at_roofline", "unless", NULL };
	static const char *const whenkeys[] = { "all", "any", NULL };
	struct fy_node *v, *w;
	const char *s;
	size_t i;

	r->line = kp_yaml_line(n);
	if (!fy_node_is_mapping(n))
		return fail(l, n, "expected a mapping");
	if ((v = get(n, "id")) == NULL)
		return fail(l, n, "missing \"id\"");
	if (string(l, v, "id", &r->id) == -1)
		return -1;
	l->id = r->id;
	if (known_keys(l, n, keys, "rule") == -1)
		return -1;
	if (class_index(r->id) < 0)
		return fail(l, v, "unknown class (see kp-decide(1) for the taxonomy)");
	if ((v = get(n, "severity")) == NULL)
		return fail(l, n, "missing \"severity\"");
	if ((s = scalar(l, v)) == NULL)
		return fail(l, v, "severity: expected high, medium or low");
	for (i = 0; i < 3; i++)
		if (strcmp(s, sevnames[i]) == 0)
			break;
	if (i == 3)
		return fail(l, v, "severity: expected high, medium or low, not \"%.20s\"", s);
	r->severity = (enum kp_sev)i;
	if ((v = get(n, "weight")) == NULL)
		return fail(l, n, "missing \"weight\"");
	if (number(l, v, "weight", &r->weight) == -1)
		return -1;
	if (r->weight <= 0)
		return fail(l, v, "weight: must be greater than 0");
	if ((w = get(n, "when")) == NULL)
		return fail(l, n, "missing \"when\"");
	if (!fy_node_is_mapping(w))
		return fail(l, w, "when: expected a mapping with all: and/or any:");
	if (known_keys(l, w, whenkeys, "when") == -1)
		return -1;
	if (load_conds(l, get(w, "all"), "when.all", &r->all, &r->nall) == -1 ||
	    load_conds(l, get(w, "any"), "when.any", &r->any, &r->nany) == -1)
		return -1;
	if (r->nall + r->nany == 0)
		return fail(l, w, "when: no conditions");
	if (load_conds(l, get(n, "unless"), "unless", &r->unless, &r->nunless) == -1)
		return -1;
	if ((v = get(n, "evidence")) == NULL)
		return fail(l, n, "missing \"evidence\"");
	if (string(l, v, "evidence", &r->evidence) == -1 ||
	    check_placeholders(l, v, r->evidence, "evidence") == -1)
		return -1;
	if ((v = get(n, "next_actions")) == NULL)
		return fail(l, n, "missing \"next_actions\"");
	if (load_actions(l, v, &r->actions, &r->nactions) == -1)
		return -1;
	if ((v = get(n, "gain")) != NULL &&
	    load_strings(l, v, "gain", &r->gain, &r->ngain) == -1)
		return -1;
	if ((v = get(n, "at_roofline")) != NULL) {
		if ((s = scalar(l, v)) == NULL || (strcmp(s, "keep") != 0 && strcmp(s, "demote") != 0))
			return fail(l, v, "at_roofline: expected keep or demote");
		r->keep_at_roofline = strcmp(s, "keep") == 0;
	}
	if ((v = get(n, "outranks")) != NULL) {
		if (load_strings(l, v, "outranks", outranks, noutranks) == -1)
			return -1;
		for (i = 0; i < *noutranks; i++) {
			if (class_index((*outranks)[i]) < 0)
				return fail(l, v, "outranks: unknown class \"%.60s\"",
				    (*outranks)[i]);
			if (strcmp((*outranks)[i], r->id) == 0)
				return fail(l, v, "outranks: a class cannot outrank itself");
		}
	}
	return 0;
}

static void
free_strings(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void
free_rule(struct kp_rule *r)
{
	size_t i;

	free(r->id);
	for (i = 0; i < r->nall; i++)
		free(r->all[i].metric);
	for (i = 0; i < r->nany; i++)
		free(r->any[i].metric);
	for (i = 0; i < r->nunless; i++)
		free(r->unless[i].metric);
	free(r->all);
	free(r->any);
	free(r->unless);
	free(r->evidence);
	for (i = 0; i < r->nactions; i++) {
		struct kp_action *a = &r->actions[i];
		size_t k;

		free(a->text);
		for (k = 0; k < a->nall; k++)
			free(a->all[k].metric);
		for (k = 0; k < a->nany; k++)
			free(a->any[k].metric);
		free(a->all);
		free(a->any);
	}
	free(r->actions);
	free_strings(r->gain, r->ngain);
	free(r->outranks);
}

void
kp_rules_free(struct kp_rules *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nrules && !r->builtin; i++)
		free_rule(&r->rules[i]);
	if (!r->builtin)
		free(r->rules);
	free(r->path);
	json_decref(r->ncu_map);
	json_decref(r->sections);
	free(r);
}

/* Depth-first search for a cycle in the outranks graph; 0 white, 1 grey, 2 black. */
static int
cyclic(struct kp_rules *r, size_t i, char *mark)
{
	size_t k;

	if (mark[i] == 1)
		return 1;
	if (mark[i] == 2)
		return 0;
	mark[i] = 1;
	for (k = 0; k < r->rules[i].noutranks; k++)
		if (cyclic(r, r->rules[i].outranks[k], mark))
			return 1;
	mark[i] = 2;
	return 0;
}

/* Resolve class names of outranks to rule indexes; classes without a rule are dropped. */
static int
link_outranks(struct ld *l, struct kp_rules *r, struct fy_node **nodes, char ***names,
    size_t *nnames)
{
	size_t i, j, k;
	char *mark;

	for (i = 0; i < r->nrules; i++) {
		struct kp_rule *a = &r->rules[i];

		if (nnames[i] == 0)
			continue;
		if ((a->outranks = calloc(nnames[i], sizeof(size_t))) == NULL)
			return kp_errf(l->err, KP_EXIT_DATA, "out of memory");
		for (k = 0; k < nnames[i]; k++)
			for (j = 0; j < r->nrules; j++)
				if (strcmp(names[i][k], r->rules[j].id) == 0)
					a->outranks[a->noutranks++] = j;
	}
	if ((mark = calloc(r->nrules, 1)) == NULL)
		return kp_errf(l->err, KP_EXIT_DATA, "out of memory");
	for (i = 0; i < r->nrules; i++) {
		memset(mark, 0, r->nrules);
		if (cyclic(r, i, mark)) {
			free(mark);
			l->id = r->rules[i].id;
			return fail(l, get(nodes[i], "outranks"),
			    "outranks: a cycle (a cause cannot also be its own symptom)");
		}
	}
	free(mark);
	return 0;
}

static int
load_rules(struct ld *l, struct fy_node *seq, struct kp_rules *r)
{
	struct fy_node **nodes = NULL, *n;
	char ***names = NULL;
	size_t *nnames = NULL, cap, i, j;
	void *it = NULL;
	int rc = -1;

	if (seq == NULL)
		return fail(l, NULL, "missing \"rules\"");
	if (!fy_node_is_sequence(seq))
		return fail(l, seq, "rules: expected a list");
	cap = (size_t)fy_node_sequence_item_count(seq);
	if (cap == 0)
		return fail(l, seq, "rules: empty list");
	r->rules = calloc(cap, sizeof(*r->rules));
	nodes = calloc(cap, sizeof(*nodes));
	names = calloc(cap, sizeof(*names));
	nnames = calloc(cap, sizeof(*nnames));
	if (r->rules == NULL || nodes == NULL || names == NULL || nnames == NULL) {
		kp_errf(l->err, KP_EXIT_DATA, "out of memory");
		goto out;
	}
	while ((n = fy_node_sequence_iterate(seq, &it)) != NULL) {
		l->idx = r->nrules + 1;
		l->id = NULL;
		nodes[r->nrules] = n;
		r->nrules++;
		if (load_rule(l, n, &r->rules[r->nrules - 1], &names[r->nrules - 1],
		    &nnames[r->nrules - 1]) == -1)
			goto out;
		for (j = 0; j + 1 < r->nrules; j++)
			if (strcmp(r->rules[j].id, r->rules[r->nrules - 1].id) == 0) {
				fail(l, get(n, "id"), "duplicate rule (first at line %d)",
				    r->rules[j].line);
				goto out;
			}
	}
	rc = link_outranks(l, r, nodes, names, nnames);
out:
	for (i = 0; i < cap && names != NULL && nnames != NULL; i++)
		free_strings(names[i], nnames[i]);
	free(names);
	free(nnames);
	free(nodes);
	return rc;
}

/* roofline_pct: a number in (0, 100]; 80 when absent. */
static int
load_roofline(struct ld *l, struct fy_node *n, struct kp_rules *r)
{
	r->roofline_pct = 80;
	if (n == NULL)
		return 0;
	if (number(l, n, "roofline_pct", &r->roofline_pct) == -1)
		return -1;
	if (r->roofline_pct <= 0 || r->roofline_pct > 100)
		return fail(l, n, "roofline_pct: must be in (0, 100]");
	return 0;
}

/* ncu_rules: {NcuRuleName: kp_class, ...}: which class an ncu rule names. */
static int
load_ncu_map(struct ld *l, struct fy_node *n, struct kp_rules *r)
{
	struct fy_node_pair *p;
	void *it = NULL;
	const char *k, *v;

	r->ncu_map = json_object();
	if (n == NULL)
		return 0;
	if (!fy_node_is_mapping(n))
		return fail(l, n, "ncu_rules: expected a mapping of ncu rule names to classes");
	while ((p = fy_node_mapping_iterate(n, &it)) != NULL) {
		k = scalar(l, fy_node_pair_key(p));
		v = scalar(l, fy_node_pair_value(p));
		if (k == NULL || v == NULL)
			return fail(l, fy_node_pair_key(p), "ncu_rules: expected NAME: class");
		if (class_index(v) < 0)
			return fail(l, fy_node_pair_value(p), "ncu_rules: unknown class \"%.60s\"", v);
		json_object_set_new(r->ncu_map, k, json_string(v));
	}
	return 0;
}

/* evidence_sections: {Section: [metric name prefix, ...]}: the ncu sections that
 * measure what the rules name, for kp-collect's follow-up pass. */
static int
load_sections(struct ld *l, struct fy_node *n, struct kp_rules *r)
{
	struct fy_node_pair *p;
	void *it = NULL;
	char **v;
	size_t nv, i;
	const char *k;

	r->sections = json_object();
	if (n == NULL)
		return 0;
	if (!fy_node_is_mapping(n))
		return fail(l, n, "evidence_sections: expected a mapping of sections to metric prefixes");
	while ((p = fy_node_mapping_iterate(n, &it)) != NULL) {
		json_t *arr = json_array();

		if ((k = scalar(l, fy_node_pair_key(p))) == NULL) {
			json_decref(arr);
			return fail(l, fy_node_pair_key(p), "evidence_sections: expected a section name");
		}
		if (load_strings(l, fy_node_pair_value(p), "evidence_sections", &v, &nv) == -1) {
			json_decref(arr);
			return -1;
		}
		for (i = 0; i < nv; i++)
			json_array_append_new(arr, json_string(v[i]));
		free_strings(v, nv);
		json_object_set_new(r->sections, k, arr);
	}
	return 0;
}

json_t *
kp_rules_metric_sections(const struct kp_rules *r, const char *metric)
{
	json_t *out = json_array(), *pre, *m;
	const char *sec;
	size_t i;

	json_object_foreach(r->sections, sec, pre)
		json_array_foreach(pre, i, m) {
			const char *p = json_string_value(m);

			if (p != NULL && strncmp(metric, p, strlen(p)) == 0) {
				json_array_append_new(out, json_string(sec));
				break;
			}
		}
	return out;
}

void
kp_rules_set_evidence(struct kp_rules *r, json_t *src, json_t *ncu_rules)
{
	r->src = src;
	r->ncu_rules = ncu_rules;
}

struct kp_rules *
kp_rules_parse(const char *path, const char *text, size_t len, struct kp_err *err)
{
	static const char *const keys[] = { "schema", "followup", "roofline_pct", "ncu_rules",
		"evidence_sections", "rules", NULL };
	struct fy_document *d;
	struct fy_node *root, *v;
	struct kp_rules *r;
	struct ld l = { path, NULL, 0, err, { NULL, 0, 0 } };
	const char *s;

	if ((d = kp_yaml_load_string(text, len, path, err)) == NULL)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL || (r->path = strdup(path)) == NULL) {
		free(r);
		fy_document_destroy(d);
		kp_errf(err, KP_EXIT_DATA, "out of memory");
		return NULL;
	}
	root = fy_document_root(d);
	if (!fy_node_is_mapping(root)) {
		fail(&l, root, "expected a mapping with schema:, followup: and rules:");
		goto bad;
	}
	if (known_keys(&l, root, keys, "top level") == -1)
		goto bad;
	v = get(root, "schema");
	if ((s = scalar(&l, v)) == NULL || strcmp(s, "kp-bottleneck-rules/1") != 0) {
		fail(&l, v ? v : root, "schema: expected kp-bottleneck-rules/1");
		goto bad;
	}
	if (load_followup(&l, get(root, "followup"), &r->fu) == -1 ||
	    load_rules(&l, get(root, "rules"), r) == -1 ||
	    load_roofline(&l, get(root, "roofline_pct"), r) == -1 ||
	    load_ncu_map(&l, get(root, "ncu_rules"), r) == -1 ||
	    load_sections(&l, get(root, "evidence_sections"), r) == -1)
		goto bad;
	fy_document_destroy(d);
	kp_arena_free(&l.strs);
	return r;
bad:
	fy_document_destroy(d);
	kp_arena_free(&l.strs);
	kp_rules_free(r);
	return NULL;
}

/* The built-in rules (struct kp_rules_builtin) under path's name. */
static struct kp_rules *
from_builtin(const char *path, struct kp_err *err)
{
	const struct kp_rules_builtin *b = &kp_rules_builtin;
	struct kp_rules *r;

	if ((r = calloc(1, sizeof(*r))) == NULL || (r->path = strdup(path)) == NULL) {
		free(r);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	r->builtin = 1;
	r->fu = b->fu;
	r->roofline_pct = b->roofline_pct;
	r->rules = b->rules;
	r->nrules = b->nrules;
	r->ncu_map = json_loads(b->ncu_map, 0, NULL);
	r->sections = json_loads(b->sections, 0, NULL);
	if (r->ncu_map == NULL || r->sections == NULL) {
		kp_rules_free(r);
		kp_errf(err, KP_EXIT_ENV, "out of memory");
		return NULL;
	}
	return r;
}

struct kp_rules *
kp_rules_load(const char *path, struct kp_err *err)
{
	struct kp_rules *r;
	size_t len;
	char *text;

	if ((text = kp_read_file(path, &len, err)) == NULL)
		return NULL;
	if (kp_rules_builtin.yaml != NULL && len == kp_rules_builtin.ylen &&
	    memcmp(text, kp_rules_builtin.yaml, len) == 0)
		r = from_builtin(path, err);
	else
		r = kp_rules_parse(path, text, len, err);
	free(text);
	return r;
}

struct kp_rules *
kp_rules_load_default(struct kp_err *err)
{
	struct kp_rules *r;
	char *p;

	if ((p = kp_datafile("rules/bottleneck_rules.yaml", err)) == NULL)
		return NULL;
	r = kp_rules_load(p, err);
	free(p);
	return r;
}
