/*
 * kp_varint.h: unsigned LEB128 varints, seven bits a byte, low first (the
 * packed launch cells of cells.c and the ID ranges of idset.c).
 */
#ifndef KP_VARINT_H
#define KP_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* The varint at *pp, *pp moved past it (the caller knows one is there). */
static inline uint64_t
kp_varint_get(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	unsigned sh = 0;

	for (;; sh += 7) {
		v |= (uint64_t)(*p & 0x7f) << sh;
		if (!(*p++ & 0x80))
			break;
	}
	*pp = p;
	return v;
}

/* v at p (room for 10 bytes); the bytes written. */
static inline size_t
kp_varint_put(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		p[n++] = (unsigned char)(v | 0x80);
	p[n++] = (unsigned char)v;
	return n;
}

#endif
