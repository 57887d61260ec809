/* kp_sha256.h: SHA-256 (FIPS 180-4) of a buffer or a file, for recording
 * which report an import read (lib/sha256.c).  No library dependency. */
#ifndef KP_SHA256_H
#define KP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "kp_diag.h"

struct kp_sha256 {
	uint32_t h[8];
	uint64_t bytes;		/* message length so far */
	unsigned char blk[64];
	size_t fill;		/* bytes waiting in blk */
};

void kp_sha256_init(struct kp_sha256 *c);
void kp_sha256_update(struct kp_sha256 *c, const void *data, size_t n);
/* The digest as 64 lowercase hex digits and a NUL; c is spent. */
void kp_sha256_hex(struct kp_sha256 *c, char hex[65]);
/* The digest of a whole file; 0, or -1 + err (KP_EXIT_DATA naming the file). */
int kp_sha256_file(const char *path, char hex[65], struct kp_err *err);

#endif
