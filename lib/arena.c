/*
 * arena.c: memory handed out in pieces and given back all at once.
 *
 * For kp-extract's launch sample: a thousand blocks of ~10 KB each, written
 * once.  From malloc, every fresh page of them costs a page fault, and on a
 * virtual machine a fault costs more than filling the page; an arena maps
 * its chunks with MAP_POPULATE, so the kernel fills each chunk in one call.
 * Chunks start small (a one-launch file stays cheap) and double to 256 KiB
 * (populated whole: a bigger one would hold pages nothing uses yet).
 * kp_populated() is one such mapping on its own, for a big buffer that will
 * be written whole (the CSV reader's, the medians' columns).
 */
#include <sys/mman.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kp_arena.h"

/*
 * Under AddressSanitizer every piece is its own malloc, linked into the
 * arena and freed with it: ASan checks the bounds of heap blocks, not of
 * pieces of a mapping, and the CSV reader and the launch blocks are what the
 * fuzzers and the sanitizer run exercise.
 */
#if defined(__SANITIZE_ADDRESS__)
#define KP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KP_ASAN 1
#endif
#endif

#define FIRST_CHUNK ((size_t)64 << 10)
#define MAX_CHUNK ((size_t)256 << 10)

#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif

struct chunk {
	struct chunk *next;
	size_t size;		/* of the mapping, this header included */
};
_Static_assert(sizeof(struct chunk) % 16 == 0, "pieces follow a chunk header 16-aligned");

#ifdef KP_ASAN
static void *
piece(struct kp_arena *a, size_t n, size_t align)
{
	struct chunk *c;

	(void)align;	/* malloc's alignment; the header is 16 bytes */
	if (n > SIZE_MAX - sizeof(*c) || (c = malloc(sizeof(*c) + n)) == NULL)
		return NULL;
	c->next = a->chunk;
	c->size = sizeof(*c) + n;
	a->chunk = c;
	return c + 1;
}
#else
/* n bytes at a multiple of align (a power of two, at most 16) */
static void *
piece(struct kp_arena *a, size_t n, size_t align)
{
	struct chunk *c;
	size_t size, at;
	void *p;

	if (n > MAX_CHUNK / 2) {	/* a mapping of its own, behind the current chunk */
		if (n > SIZE_MAX - 2 * sizeof(struct chunk))
			return NULL;
		size = n + sizeof(struct chunk);
		if ((p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0)) == MAP_FAILED)
			return NULL;
		c = p;
		c->size = size;
		if (a->chunk == NULL) {
			c->next = NULL;
			a->chunk = c;
			a->used = size;	/* full: the next piece starts a chunk */
		} else {
			c->next = ((struct chunk *)a->chunk)->next;
			((struct chunk *)a->chunk)->next = c;
		}
		return c + 1;
	}
	at = (a->used + align - 1) & ~(align - 1);
	if (a->chunk == NULL || at + n > ((struct chunk *)a->chunk)->size) {
		size = a->next_size ? a->next_size : FIRST_CHUNK;
		while (size < n + sizeof(struct chunk) + 16)
			size *= 2;
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		c = p;
		c->next = a->chunk;
		c->size = size;
		a->chunk = c;
		at = sizeof(struct chunk);
		a->next_size = size < MAX_CHUNK ? size * 2 : MAX_CHUNK;
	}
	a->used = at + n;
	return (char *)a->chunk + at;
}
#endif

void *
kp_arena_alloc(struct kp_arena *a, size_t n)
{
	return piece(a, n, 16);
}

char *
kp_arena_strndup(struct kp_arena *a, const char *s, size_t n)
{
	char *d;

	if (n == SIZE_MAX || (d = piece(a, n + 1, 1)) == NULL)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

void *
kp_populated(size_t n)
{
#ifdef KP_ASAN
	return calloc(1, n);
#else
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
#endif
}

void
kp_populated_free(void *p, size_t n)
{
#ifdef KP_ASAN
	(void)n;
	free(p);
#else
	if (p != NULL)
		munmap(p, n);
#endif
}

void
kp_arena_free(struct kp_arena *a)
{
	struct chunk *c = a->chunk, *next;

	for (; c != NULL; c = next) {
		next = c->next;
#ifdef KP_ASAN
		free(c);
#else
		munmap(c, c->size);
#endif
	}
	a->chunk = NULL;
	a->used = a->next_size = 0;
}
