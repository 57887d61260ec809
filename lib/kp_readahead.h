/* kp_readahead.h: a thread that reads a file ahead of its parser (lib/readahead.c). */
#ifndef KP_READAHEAD_H
#define KP_READAHEAD_H

#include <stddef.h>

/*
 * A ring of buffers filled by read(2) on a second thread, so that the
 * kernel's copy out of the page cache runs beside the parse instead of
 * before it.  Each buffer has room bytes before its data (for the caller's
 * record carried over from the buffer before) and tail bytes after it.
 */
struct kp_ra;

/*
 * hook, when not NULL, runs on the thread once a buffer is read and before
 * the parser may have it: hook(arg, slot, data, n) for each buffer with data
 * (n bytes at data; the tail after them readable).  It may read only those
 * bytes, and write only what the parser reads after kp_ra_next() for slot.
 */
typedef void kp_ra_hook(void *arg, int slot, const char *data, size_t n);
/* NULL when out of memory or no thread can be started (errno says). */
struct kp_ra *kp_ra_start(int fd, size_t chunk, size_t room, size_t tail, kp_ra_hook *hook,
    void *arg);
/*
 * The next buffer, waiting for it: its slot, its start (*base; the data at
 * *base + room) and its data's size (*n, 0 at end of input).  The buffer is
 * the caller's until kp_ra_done().  -1 on a read error (errno says which).
 */
int kp_ra_next(struct kp_ra *ra, int *slot, char **base, size_t *n);
void kp_ra_done(struct kp_ra *ra, int slot);
/* Stops the thread and frees every buffer. */
void kp_ra_stop(struct kp_ra *ra);

#endif
