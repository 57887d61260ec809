/*
 * heap.c: the malloc heap faulted in at once.  A run on one kernel's files
 * touches about a megabyte of fresh heap (libfyaml's and jansson's nodes, the
 * metric tables), one page fault at a time.  On the 2-vCPU VM of
 * docs/performance.md a fault costs 9.9 us and a page populated by
 * MADV_POPULATE_WRITE 0.7 us, so kp-decide spent a fifth of its run in
 * faults.  kp_heap_warm() allocates KP_HEAP_WARM bytes from the heap (below
 * the mmap threshold for the moment), populates them and frees them, with
 * the trim threshold raised so that free() leaves them in the heap.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kp_heap.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

void
kp_heap_warm(void)
{
	uintptr_t lo, hi, pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	char *p;

	/* glibc's defaults otherwise: mmap for 128 KiB and more, trim at 128 KiB */
	mallopt(M_MMAP_THRESHOLD, (int)(2 * KP_HEAP_WARM));
	mallopt(M_TRIM_THRESHOLD, (int)(4 * KP_HEAP_WARM));
	if ((p = malloc(KP_HEAP_WARM)) != NULL) {
		lo = ((uintptr_t)p + pg - 1) & ~(pg - 1);
		hi = ((uintptr_t)p + KP_HEAP_WARM) & ~(pg - 1);
		if (hi > lo)
			(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
		free(p);
	}
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}
