/* kp_arena.h: memory handed out in pieces, freed at once (lib/arena.c). */
#ifndef KP_ARENA_H
#define KP_ARENA_H

#include <stddef.h>

/* ---- arena.c: pieces of memory freed all at once ---- */

struct kp_arena {
	void *chunk;		/* the newest chunk; each links to the one before */
	size_t used, next_size;
};				/* zeroed: empty */

/* n bytes, 16-aligned, or NULL (out of memory); a big n gets a mapping of its own. */
void *kp_arena_alloc(struct kp_arena *a, size_t n);
/* A NUL-terminated copy of the n bytes at s, or NULL (out of memory). */
char *kp_arena_strndup(struct kp_arena *a, const char *s, size_t n);
void kp_arena_free(struct kp_arena *a);
/* n zeroed bytes mapped and faulted in at once (NULL when mmap fails), and back. */
void *kp_populated(size_t n);
void kp_populated_free(void *p, size_t n);

#endif
