/* kp_heap.h: the malloc heap faulted in at once (lib/heap.c). */
#ifndef KP_HEAP_H
#define KP_HEAP_H

/*
 * Grow the heap by KP_HEAP_WARM bytes and fault its pages in with one
 * madvise(MADV_POPULATE_WRITE), for a program about to read its inputs.
 * Best effort: without glibc's heap (AddressSanitizer, valgrind) or on a
 * kernel before 5.14 nothing changes.
 */
#define KP_HEAP_WARM ((size_t)1 << 20)
void kp_heap_warm(void);

#endif
