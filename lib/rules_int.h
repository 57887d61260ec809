/* rules_int.h: the rules module's private structures, shared by rules.c (the
 * loader) and rules_eval.c (the engine).  Not part of libkp's API. */
#ifndef KP_RULES_INT_H
#define KP_RULES_INT_H

#include <stddef.h>

#include <jansson.h>

enum kp_op { KP_OP_GT, KP_OP_GE, KP_OP_LT, KP_OP_LE, KP_OP_EQ, KP_OP_NE };
enum kp_sev { KP_SEV_HIGH, KP_SEV_MEDIUM, KP_SEV_LOW };

struct kp_cond {
	char *metric;
	enum kp_op op;
	double value;
};

/* A next action: always given, or only when its conditions hold (all of all,
 * one of any; a condition on an absent metric does not hold). */
struct kp_action {
	char *text;		/* may hold {metric} placeholders */
	struct kp_cond *all, *any;
	size_t nall, nany;
};

struct kp_rule {
	char *id;		/* a taxonomy class */
	enum kp_sev severity;
	double weight;
	struct kp_cond *all, *any;
	size_t nall, nany;
	struct kp_cond *unless;	/* measured and holding: the cause is ruled out */
	size_t nunless;
	char *evidence;		/* text with {metric} placeholders */
	struct kp_action *actions;
	size_t nactions;
	size_t *outranks;	/* indexes of rules (classes) this one explains */
	size_t noutranks;
	char **gain;		/* metrics (fractions of time) whose first present one is
				 * the finding's estimated gain */
	size_t ngain;
	int keep_at_roofline;	/* at_roofline: keep (else demote) */
	int line;
};

struct kp_followup {
	double memory_dominant_pct, sm_dominant_pct, low_occupancy_pct;
	double occupancy_gap_ratio, low_both_pct, low_ipc;
	int have;		/* the file has followup: (its only source) */
};

struct kp_rules {
	char *path;
	struct kp_followup fu;
	double roofline_pct;	/* a unit at or above this is the kernel's roofline */
	json_t *src;		/* borrowed: source evidence for the next decisions */
	json_t *ncu_rules;	/* borrowed: ncu's guided-analysis results */
	json_t *ncu_map;	/* ncu rule name -> kp class (owned) */
	json_t *sections;	/* evidence_sections: ncu section -> [metric prefix] */
	struct kp_rule *rules;
	size_t nrules;
	int builtin;		/* rules is kp_rules_builtin's: not freed */
};

/*
 * The shipped rules file compiled in (build/gen/rules_builtin.c, written by
 * tools/rules-embed.c from references/rules/bottleneck_rules.yaml): a file
 * whose bytes are yaml's is loaded from these structures, without libfyaml,
 * which costs half of kp-decide's run on one kernel.  yaml NULL: none (the
 * generator itself).  ncu_map and sections are compact JSON text.
 */
struct kp_err;

struct kp_rules_builtin {
	const char *yaml;
	size_t ylen;
	struct kp_followup fu;
	double roofline_pct;
	struct kp_rule *rules;
	size_t nrules;
	const char *ncu_map, *sections;
};
extern const struct kp_rules_builtin kp_rules_builtin;

/* A rules file's text parsed (what kp_rules_load does when it is not the
 * built-in one); errors name path and the line. */
struct kp_rules *kp_rules_parse(const char *path, const char *text, size_t len,
    struct kp_err *err);

/* The evaluation context of one kernel (rules_eval.c, rules_derive.c). */
struct ctx {
	json_t *kernel, *summary, *stalls, *metrics;
	json_t *src;		/* source evidence (kp-source-evidence/1) or NULL */
	json_t *used;		/* metrics_used */
	json_t *missing;	/* every metric a rule needed and did not find */
	int partial;		/* metrics is the short map (kp_summary_partial) */
	int missed;		/* a look-up missed in the short map */
	double stall_sum;
	int have_stall_sum;
	int specs_tried;
	double specs_sm;	/* SM count from gpu_specs.yaml, 0 if unknown */
};

int kp_rules_num(json_t *j, double *out);
/* A summary key, "stalls.<reason>" or an ncu metric of the kernel; 0 or -1. */
int kp_rules_raw(struct ctx *c, const char *name, double *out);
/* Any metric name a rule may use (derived ones too), recorded in metrics_used. */
int kp_rules_value(struct ctx *c, const char *name, double *out);
/* rules_derive.c: the pipe, unit, source-page and gain quantities; 1 when name
 * is one of them (*rc 0 present, -1 absent), else 0. */
int kp_rules_derive_more(struct ctx *c, const char *name, double *out, int *rc);
/* The words for a text placeholder ({busiest_pipe}, {busiest_unit}), or NULL. */
const char *kp_rules_derive_text(struct ctx *c, const char *name);
/* The inputs of a derived quantity of rules_derive.c, for "missing ..." texts. */
const char *kp_rules_derive_inputs(const char *name);

int kp_json_array_has_string(json_t *a, const char *s);

extern const char *const kp_rule_classes[];	/* NULL-terminated taxonomy */
const char *kp_op_name(enum kp_op op);
const char *kp_sev_name(enum kp_sev s);

#endif
