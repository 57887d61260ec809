/* kp_hash.h: a fast 64-bit hash of bytes, for telling repeats apart (lib/hash.c). */
#ifndef KP_HASH_H
#define KP_HASH_H

#include <stddef.h>
#include <stdint.h>

/* n bytes at p into h (a seed, or the last value when chaining). */
uint64_t kp_hash64(const void *p, size_t n, uint64_t h);

#endif
