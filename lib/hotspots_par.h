/* hotspots_par.h: a large source page read in parts on threads (lib/hotspots_par.c). */
#ifndef HOTSPOTS_PAR_H
#define HOTSPOTS_PAR_H

#include <stddef.h>
#include <stdio.h>

struct agg;
struct kp_err;
struct hs_parts;

/*
 * The parts the page of fp (a regular file, read from where fp is) is read
 * in: KP_SOURCE_PARTS=n asks for n (1: none) on any page; by default one a
 * CPU (8 at most) for a page of 16 MiB or more, 4 MiB a part at least.  A
 * part begins where a block's labels name its file and function.  NULL:
 * read in one part (fp is left as it was either way).
 */
struct hs_parts *hs_parts_plan(FILE *fp, const char *name);
/* A reader of part 0, for g->src of hs_parts_read(); NULL + err on failure. */
struct kp_src *hs_parts_open_head(struct hs_parts *P, struct kp_err *err);
size_t hs_parts_count(const struct hs_parts *P);
/*
 * Reads part 0 into g (g->src from hs_parts_open_head(), g->nm, g->ev set) and
 * the others beside it, then adds theirs to g.  0: g holds what one reader of
 * the whole page would; 1: it does not (an error on the way, a value that is
 * no integer in [0, 2^53), a part that does not begin a launch copy, a block
 * that repeats one of an earlier part, an instruction the evidence did not
 * see in part 0): g is to be freed and the page read in one part; -1: out of
 * memory (err).
 */
int hs_parts_read(struct hs_parts *P, struct agg *g, struct kp_err *err);
void hs_parts_free(struct hs_parts *P);

#endif
