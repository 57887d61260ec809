/* kp_jsonskim.h: check a JSON text without building it, and say where its
 * outer values lie (lib/jsonskim.c), so a reader can build only those it uses. */
#ifndef KP_JSONSKIM_H
#define KP_JSONSKIM_H

#include <stddef.h>

/* One value at depth 1..maxdepth (the top object's members are depth 1).
 * parent: the index of the node holding it, -1 for a member of the top object;
 * key: the member's name as written (no quotes, no escapes), klen 0 and key
 * NULL for an array element; type: one of '{', '[', '"', 'n' (a number),
 * 't', 'f', 'z' (null). */
struct kp_jskim_node {
	long parent;
	const char *key;
	size_t klen;
	const char *val;
	size_t vlen;
	int type;
};

/*
 * Check buf as json_loadb(buf, len, JSON_REJECT_DUPLICATES, ...) would and
 * list its values down to maxdepth (1 to 8) in text order.  Returns the
 * number of nodes, with *out malloc'd (the caller frees it), or -1 when the
 * text is not an object that jansson would surely take as it stands: a
 * syntax error, invalid UTF-8, a duplicate key, but also what skimming does
 * not judge and jansson might refuse or read otherwise (an escaped key, a
 * \u escape of a surrogate or of NUL, an integer of more than 18 digits, a
 * number with an exponent of three digits, nesting beyond 64) and running
 * out of memory.  -1 means "parse it whole": jansson then says what is wrong,
 * or reads it; so every text this accepts, jansson accepts with the same values.
 */
long kp_jskim(const char *buf, size_t len, int maxdepth, struct kp_jskim_node **out);

#endif
