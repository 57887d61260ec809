/* source_pipe.h: the source page's records parsed on a thread of their own. */
#ifndef SOURCE_PIPE_H
#define SOURCE_PIPE_H

#include <stddef.h>

#include "kp_diag.h"
#include "kp_source.h"

/*
 * A producer thread calls next(arg, row, err) for every row of the page
 * and copies each, with its strings and values, into a batch; the caller
 * takes them from kp_src_pipe_next() in the same order, each valid until
 * its next call (as kp_src_next promises).  So the read, scan and parse of
 * the CSV run beside what the caller does with the rows.
 *
 * next is called on the producer thread only, from the start on; *labgen
 * is what it counts up whenever the rows' file or function strings change
 * (read on that thread, after each call).  nval: the values each row has;
 * vals is where next may read the row's values to (row->val then points
 * there), nval doubles of the batch.
 */
typedef int kp_src_next_fn(void *arg, double *vals, struct kp_src_row *row,
    struct kp_err *err);

struct kp_src_pipe;
/* NULL when out of memory or when no thread can be started (errno says). */
struct kp_src_pipe *kp_src_pipe_start(kp_src_next_fn *next, void *arg,
    const unsigned long *labgen, size_t nval);
/* 1: *row filled; 0: end; -1: the error next gave at this point, in *err. */
int kp_src_pipe_next(struct kp_src_pipe *p, struct kp_src_row *row, struct kp_err *err);
/* Stops the thread (it ends its batch first) and frees the batches. */
void kp_src_pipe_stop(struct kp_src_pipe *p);

#endif
