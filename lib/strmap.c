/*
 * strmap.c: a string -> index hash table (open addressing, FNV-1a), and the
 * FNV-1a hash itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kp_strmap.h"

uint64_t
kp_fnv1a(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 1099511628211ULL;
	return h;
}

static int
map_grow(struct kp_strmap *m)
{
	struct kp_strmap nm;
	size_t i;

	nm.cap = m->cap ? m->cap * 2 : 256;
	nm.n = 0;
	if ((nm.key = calloc(nm.cap, sizeof(*nm.key))) == NULL ||
	    (nm.val = calloc(nm.cap, sizeof(*nm.val))) == NULL) {
		free(nm.key);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (m->key[i] == NULL)
			continue;
		j = kp_fnv1a(m->key[i], strlen(m->key[i]), KP_FNV1A_INIT) & (nm.cap - 1);
		while (nm.key[j])
			j = (j + 1) & (nm.cap - 1);
		nm.key[j] = m->key[i];
		nm.val[j] = m->val[i];
		nm.n++;
	}
	free(m->key);
	free(m->val);
	*m = nm;
	return 0;
}

/* Where key k is in m (room there), or the empty slot it would take. */
static size_t
map_slot(const struct kp_strmap *m, const char *k)
{
	size_t j = kp_fnv1a(k, strlen(k), KP_FNV1A_INIT) & (m->cap - 1);

	while (m->key[j] && strcmp(m->key[j], k) != 0)
		j = (j + 1) & (m->cap - 1);
	return j;
}

/* 1 found (*v set), 0 inserted with v, -1 out of memory. */
int
kp_strmap_get_put(struct kp_strmap *m, const char *k, size_t *v)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return -1;
	if (m->key[j = map_slot(m, k)] != NULL) {
		*v = m->val[j];
		return 1;
	}
	if ((m->key[j] = strdup(k)) == NULL)
		return -1;
	m->val[j] = *v;
	m->n++;
	return 0;
}

int
kp_strmap_get(const struct kp_strmap *m, const char *k, size_t *v)
{
	size_t j;

	if (m->cap == 0 || m->key[j = map_slot(m, k)] == NULL)
		return 0;
	*v = m->val[j];
	return 1;
}

void
kp_strmap_clear(struct kp_strmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		free(m->key ? m->key[i] : NULL);
		if (m->key)
			m->key[i] = NULL;
	}
	m->n = 0;
}

void
kp_strmap_free(struct kp_strmap *m)
{
	kp_strmap_clear(m);
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
