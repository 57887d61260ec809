/* rules_int.h: the rules module's private structures, shared by rules.c (the
 * loader) and rules_eval.c (the engine).  Not part of libkp's API. */
#ifndef KP_RULES_INT_H
#define KP_RULES_INT_H

enum kp_op { KP_OP_GT, KP_OP_GE, KP_OP_LT, KP_OP_LE, KP_OP_EQ, KP_OP_NE };
enum kp_sev { KP_SEV_HIGH, KP_SEV_MEDIUM, KP_SEV_LOW };

struct kp_cond {
	char *metric;
	enum kp_op op;
	double value;
};

struct kp_rule {
	char *id;		/* a taxonomy class */
	enum kp_sev severity;
	double weight;
	struct kp_cond *all, *any;
	size_t nall, nany;
	char *evidence;		/* text with {metric} placeholders */
	char **actions;
	size_t nactions;
	size_t *outranks;	/* indexes of rules (classes) this one explains */
	size_t noutranks;
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
	struct kp_rule *rules;
	size_t nrules;
};

extern const char *const kp_rule_classes[];	/* NULL-terminated taxonomy */
const char *kp_op_name(enum kp_op op);
const char *kp_sev_name(enum kp_sev s);

#endif
