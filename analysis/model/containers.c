/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The log's containers: growable arrays of fixed-size elements, and an open-addressing map
 * from nonzero 64-bit keys (a tid, a stream, a flow) to 32-bit indexes into those arrays.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an.h"

void *an_vec_push(struct an_vec *vec)
{
	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? vec->cap * 2 : 64;
		void *v = realloc(vec->v, cap * vec->size);

		if (!v)
			return NULL;
		vec->v = v;
		vec->cap = cap;
	}
	return memset((char *)vec->v + vec->n++ * vec->size, 0, vec->size);
}

int an_vec_reserve(struct an_vec *vec, size_t n)
{
	void *v;

	if (n <= vec->cap)
		return 0;
	v = realloc(vec->v, n * vec->size);
	if (!v)
		return -ENOMEM;
	vec->v = v;
	vec->cap = n;
	return 0;
}

void an_vec_free(struct an_vec *vec)
{
	free(vec->v);
	vec->v = NULL;
	vec->n = vec->cap = 0;
}

static inline size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static int map_grow(struct an_map *m)
{
	struct an_map g = {.cap = m->cap ? m->cap * 2 : 256};

	g.keys = calloc(g.cap, sizeof(*g.keys));
	g.vals = calloc(g.cap, sizeof(*g.vals));
	if (!g.keys || !g.vals) {
		free(g.keys);
		free(g.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		for (j = hash64(m->keys[i]) & (g.cap - 1); g.keys[j]; j = (j + 1) & (g.cap - 1))
			;
		g.keys[j] = m->keys[i];
		g.vals[j] = m->vals[i];
	}
	g.n = m->n;
	an_map_free(m);
	*m = g;
	return 0;
}

uint32_t *an_map_find(const struct an_map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t j = hash64(key) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			return &m->vals[j];
	return NULL;
}

uint32_t *an_map_slot(struct an_map *m, uint64_t key, bool *inserted)
{
	uint32_t *v = an_map_find(m, key);
	size_t j;

	*inserted = false;
	if (v)
		return v;
	if ((m->n + 1) * 2 > m->cap && map_grow(m) < 0)
		return NULL;
	for (j = hash64(key) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
		;
	m->keys[j] = key;
	m->vals[j] = 0;
	m->n++;
	*inserted = true;
	return &m->vals[j];
}

void an_map_free(struct an_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
