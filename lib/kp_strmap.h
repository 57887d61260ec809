/* kp_strmap.h: a string -> index hash table and the FNV-1a hash (lib/strmap.c). */
#ifndef KP_STRMAP_H
#define KP_STRMAP_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a, 64 bits: start from KP_FNV1A_INIT, chain by passing the last value. */
#define KP_FNV1A_INIT 1469598103934665603ULL
uint64_t kp_fnv1a(const void *p, size_t n, uint64_t h);

/* Zeroed is empty.  Keys are copied. */
struct kp_strmap {
	char **key;
	size_t *val;
	size_t cap, n;
};

/* 1 found (*v set), 0 inserted with *v, -1 out of memory. */
int kp_strmap_get_put(struct kp_strmap *m, const char *k, size_t *v);
/* 1 found (*v set), 0 not there. */
int kp_strmap_get(const struct kp_strmap *m, const char *k, size_t *v);
/* Remove every key, keeping the table's room. */
void kp_strmap_clear(struct kp_strmap *m);
/* Remove every key and free the table; m is empty again. */
void kp_strmap_free(struct kp_strmap *m);

#endif
