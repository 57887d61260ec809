/*
 * readahead.c: read(2) on a second thread into a ring of buffers, each
 * handed to the parser whole and given back when it has moved on.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kp_arena.h"
#include "kp_readahead.h"

#define NSLOT 3		/* one parsed, one waiting, one being read */

enum { FREE, FULL, HELD };

struct kp_ra {
	int fd;
	size_t chunk, room, size;
	kp_ra_hook *hook;
	void *arg;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;		/* the parser is done: the thread returns */
	int ended;		/* the parser has seen the end (or an error) */
	int lasterr;		/* ... and this error, or 0 */
	unsigned next;		/* the slot the parser takes next */
	struct {
		char *base;
		size_t n;
		int err;
		int state;
	} s[NSLOT];
};

/* Fill the slot's data: whole chunks, short only at the end of input. */
static void
fill(struct kp_ra *ra, unsigned i)
{
	char *p = ra->s[i].base + ra->room;
	size_t got = 0;
	ssize_t r;

	ra->s[i].err = 0;
	while (got < ra->chunk) {
		if ((r = read(ra->fd, p + got, ra->chunk - got)) > 0)
			got += (size_t)r;
		else if (r == 0)
			break;
		else if (errno != EINTR) {
			ra->s[i].err = errno;
			break;
		}
	}
	ra->s[i].n = got;
}

static void *
reader(void *arg)
{
	struct kp_ra *ra = arg;
	unsigned i;
	int last;

	for (i = 0;; i = (i + 1) % NSLOT) {
		pthread_mutex_lock(&ra->mu);
		while (ra->s[i].state != FREE && !ra->stop)
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->stop) {
			pthread_mutex_unlock(&ra->mu);
			return NULL;
		}
		pthread_mutex_unlock(&ra->mu);
		/* each buffer faulted in here, on first use, not by the parser */
		if (ra->s[i].base == NULL && (ra->s[i].base = kp_populated(ra->size)) == NULL) {
			ra->s[i].err = ENOMEM;
			ra->s[i].n = 0;
		} else
			fill(ra, i);
		last = ra->s[i].n < ra->chunk || ra->s[i].err != 0;
		if (ra->hook != NULL && ra->s[i].n > 0 && ra->s[i].err == 0)
			ra->hook(ra->arg, (int)i, ra->s[i].base + ra->room, ra->s[i].n);
		pthread_mutex_lock(&ra->mu);
		ra->s[i].state = FULL;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		if (last)	/* a short chunk ends the input; the parser sees n 0 next */
			break;
	}
	/* the slot after the short one says "end" without another read */
	i = (i + 1) % NSLOT;
	pthread_mutex_lock(&ra->mu);
	while (ra->s[i].state != FREE && !ra->stop)
		pthread_cond_wait(&ra->cv, &ra->mu);
	if (!ra->stop) {
		ra->s[i].n = 0;
		ra->s[i].err = 0;
		ra->s[i].state = FULL;
		pthread_cond_broadcast(&ra->cv);
	}
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

struct kp_ra *
kp_ra_start(int fd, size_t chunk, size_t room, size_t tail, kp_ra_hook *hook, void *arg)
{
	struct kp_ra *ra;
	int e;

	if ((ra = calloc(1, sizeof(*ra))) == NULL)
		return NULL;
	ra->fd = fd;
	ra->hook = hook;
	ra->arg = arg;
	ra->chunk = chunk;
	ra->room = room;
	ra->size = room + chunk + tail;
	if ((e = pthread_mutex_init(&ra->mu, NULL)) != 0) {
		errno = e;
		goto fail;
	}
	if ((e = pthread_cond_init(&ra->cv, NULL)) != 0) {
		pthread_mutex_destroy(&ra->mu);
		errno = e;
		goto fail;
	}
	if ((e = pthread_create(&ra->th, NULL, reader, ra)) != 0) {
		pthread_cond_destroy(&ra->cv);
		pthread_mutex_destroy(&ra->mu);
		errno = e;
		goto fail;
	}
	return ra;
fail:
	e = errno;
	free(ra);
	errno = e;
	return NULL;
}

int
kp_ra_next(struct kp_ra *ra, int *slot, char **base, size_t *n)
{
	unsigned i = ra->next;

	if (ra->ended) {
		*slot = -1;
		*base = NULL;
		*n = 0;
		if (ra->lasterr != 0) {
			errno = ra->lasterr;
			return -1;
		}
		return 0;
	}
	pthread_mutex_lock(&ra->mu);
	while (ra->s[i].state != FULL)
		pthread_cond_wait(&ra->cv, &ra->mu);
	ra->s[i].state = HELD;
	pthread_mutex_unlock(&ra->mu);
	ra->next = (i + 1) % NSLOT;
	*slot = (int)i;
	*base = ra->s[i].base;
	*n = ra->s[i].n;
	if (ra->s[i].err != 0) {
		ra->ended = 1;
		ra->lasterr = ra->s[i].err;
		kp_ra_done(ra, (int)i);
		*slot = -1;
		errno = ra->lasterr;
		return -1;
	}
	if (ra->s[i].n == 0) {
		ra->ended = 1;
		kp_ra_done(ra, (int)i);
		*slot = -1;
		*base = NULL;
	}
	return 0;
}

void
kp_ra_done(struct kp_ra *ra, int slot)
{
	if (slot < 0 || slot >= NSLOT)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->s[slot].state = FREE;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
}

void
kp_ra_stop(struct kp_ra *ra)
{
	unsigned i;

	if (ra == NULL)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->stop = 1;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_join(ra->th, NULL);
	pthread_cond_destroy(&ra->cv);
	pthread_mutex_destroy(&ra->mu);
	for (i = 0; i < NSLOT; i++)
		if (ra->s[i].base != NULL)
			kp_populated_free(ra->s[i].base, ra->size);
	free(ra);
}
