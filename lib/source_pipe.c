/*
 * source_pipe.c: a source page's rows parsed on a producer thread, handed
 * over in batches (a ring of NBATCH, each BROWS rows with their strings and
 * values), so that the CSV's parse runs beside the caller's merge.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "source_pipe.h"

#define NBATCH 3		/* one being read, one waiting, one being filled */
#define BROWS 1024		/* a batch's rows: 560 KB of values at 70 a row (fewer hand-overs)*/
#define BCHARS (128 << 10)	/* their strings (~60 bytes a row), grown for a row that needs more */

struct batch {
	struct kp_src_row *rows;
	size_t n;
	double *vals;		/* BROWS * nval */
	char *chars;
	size_t nchars, ccap;
	int end;		/* 0: more follow; 1: the page ends after these; -1: an error */
	int full;		/* the caller's to read */
	struct kp_err err;
};

struct kp_src_pipe {
	kp_src_next_fn *next;
	void *arg;
	const unsigned long *labgen;
	size_t nval;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	unsigned prod, cons;	/* the batch each side takes next */
	struct batch b[NBATCH];
	struct batch *cur;	/* the caller's, being read */
	size_t at;
	const double *prev;	/* the last row's values: a block row repeats them */
	double *zero;		/* ... nval zeros before the first row */
};

/* The batch the producer fills next, waiting for it; NULL once told to stop. */
static struct batch *
take_free(struct kp_src_pipe *p)
{
	struct batch *b = &p->b[p->prod];

	pthread_mutex_lock(&p->mu);
	while (b->full && !p->stop)
		pthread_cond_wait(&p->cv, &p->mu);
	if (p->stop)
		b = NULL;
	pthread_mutex_unlock(&p->mu);
	p->prod = (p->prod + 1) % NBATCH;
	return b;
}

static void
set_full(struct kp_src_pipe *p, struct batch *b, int full)
{
	pthread_mutex_lock(&p->mu);
	b->full = full;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static char *
put_str(struct batch *b, const char *s, size_t n)
{
	char *d = b->chars + b->nchars;

	memcpy(d, s, n + 1);
	b->nchars += n + 1;
	return d;
}

/*
 * Row r into batch b, its file and function shared with the batch's rows
 * before it while *p->labgen stays at *gen (*fs, *fn: where they are).
 * 0 added, 1 no room (b has rows: r goes into the next batch), -1 out of
 * memory.
 */
static int
add_row(struct kp_src_pipe *p, struct batch *b, const struct kp_src_row *r, const char **fs,
    const char **fn, unsigned long *gen)
{
	size_t lt = strlen(r->text), la = strlen(r->address), lf = 0, lu = 0, need;
	struct kp_src_row *d;
	int labels = *fs == NULL || *gen != *p->labgen;

	if (labels) {
		lf = strlen(r->file);
		lu = strlen(r->function);
	}
	need = lt + la + 2 + (labels ? lf + lu + 2 : 0);
	if (b->nchars + need > b->ccap) {
		char *nc;

		if (b->n > 0)
			return 1;
		/* the batch's first row: no pointer into the strings yet */
		if ((nc = realloc(b->chars, need)) == NULL)
			return -1;
		b->chars = nc;
		b->ccap = need;
		b->nchars = 0;
	}
	if (labels) {
		*fs = put_str(b, r->file, lf);
		*fn = put_str(b, r->function, lu);
		*gen = *p->labgen;
	}
	d = &b->rows[b->n];
	*d = *r;
	d->file = *fs;
	d->function = *fn;
	d->text = put_str(b, r->text, lt);
	d->address = put_str(b, r->address, la);
	if (r->val != NULL) {
		/*
		 * next read a row's values into this slot; a block row has none
		 * of its own (the reader's are the last row's), and a row put off
		 * from the batch before has them in that one's spare slot
		 */
		double *v = b->vals + b->n * p->nval;
		const double *from = r->ev == KP_SRC_BLOCK ? p->prev : r->val;

		if (from != v)
			memcpy(v, from, p->nval * sizeof(*v));
		d->val = v;
		p->prev = v;
	}
	b->n++;
	return 0;
}

static void *
producer(void *arg)
{
	struct kp_src_pipe *p = arg;
	struct kp_src_row row;
	struct batch *b;
	int have = 0, rc;

	while ((b = take_free(p)) != NULL) {
		const char *fs = NULL, *fn = NULL;
		unsigned long gen = 0;

		b->n = 0;
		b->nchars = 0;
		b->end = 0;
		while (b->n < BROWS) {
			if (!have) {
				if ((rc = p->next(p->arg, b->vals + b->n * p->nval, &row,
				    &b->err)) != 1) {
					b->end = rc == 0 ? 1 : -1;
					break;
				}
				have = 1;
			}
			if ((rc = add_row(p, b, &row, &fs, &fn, &gen)) == 1)
				break;
			if (rc < 0) {
				kp_errf(&b->err, KP_EXIT_ENV, "out of memory");
				b->end = -1;
				break;
			}
			have = 0;
		}
		set_full(p, b, 1);
		if (b->end != 0)
			break;
	}
	return NULL;
}

/* The batches' arrays, the row of zeros and p itself. */
static void
pipe_free(struct kp_src_pipe *p)
{
	size_t i;

	for (i = 0; i < NBATCH; i++) {
		free(p->b[i].rows);
		free(p->b[i].vals);
		free(p->b[i].chars);
	}
	free(p->zero);
	free(p);
}

struct kp_src_pipe *
kp_src_pipe_start(kp_src_next_fn *next, void *arg, const unsigned long *labgen, size_t nval)
{
	struct kp_src_pipe *p;
	size_t i;
	int e;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->next = next;
	p->arg = arg;
	p->labgen = labgen;
	p->nval = nval;
	if ((p->zero = calloc(nval + 1, sizeof(*p->zero))) == NULL) {
		free(p);
		return NULL;
	}
	p->prev = p->zero;
	for (i = 0; i < NBATCH; i++) {
		struct batch *b = &p->b[i];

		b->ccap = BCHARS;
		if ((b->rows = malloc(BROWS * sizeof(*b->rows))) == NULL ||
		    (b->vals = malloc((BROWS * nval + 1) * sizeof(*b->vals))) == NULL ||
		    (b->chars = malloc(b->ccap)) == NULL) {
			errno = ENOMEM;
			goto fail;
		}
	}
	if ((e = pthread_mutex_init(&p->mu, NULL)) != 0) {
		errno = e;
		goto fail;
	}
	if ((e = pthread_cond_init(&p->cv, NULL)) != 0) {
		pthread_mutex_destroy(&p->mu);
		errno = e;
		goto fail;
	}
	if ((e = pthread_create(&p->th, NULL, producer, p)) != 0) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		errno = e;
		goto fail;
	}
	return p;
fail:
	e = errno;
	pipe_free(p);
	errno = e;
	return NULL;
}

int
kp_src_pipe_next(struct kp_src_pipe *p, struct kp_src_row *row, struct kp_err *err)
{
	for (;;) {
		struct batch *b = p->cur;

		if (b != NULL) {
			if (p->at < b->n) {
				*row = b->rows[p->at++];
				return 1;
			}
			if (b->end > 0)
				return 0;
			if (b->end < 0) {
				*err = b->err;
				return -1;
			}
			set_full(p, b, 0);
		}
		b = &p->b[p->cons];
		pthread_mutex_lock(&p->mu);
		while (!b->full)
			pthread_cond_wait(&p->cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
		p->cons = (p->cons + 1) % NBATCH;
		p->cur = b;
		p->at = 0;
	}
}

void
kp_src_pipe_stop(struct kp_src_pipe *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	pipe_free(p);
}
