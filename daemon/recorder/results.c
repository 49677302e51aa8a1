// SPDX-License-Identifier: GPL-2.0-only
/*
 * The waiter's results on their way to the main loop: a list under the waiter's
 * priority-inheriting mutex, and an eventfd that sd-event watches. The thread appends, the
 * main loop takes the whole list at once, and gives the results back to the waiter's pool
 * when done with them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "waiter_internal.h"

#define SMALL_SIZE (sizeof(struct waiter_result) + sizeof(struct cause))
#define LARGE_SIZE (sizeof(struct waiter_result) + MAX_CAUSES * sizeof(struct cause))
#define POOL_BYTES (WAITER_POOL_SMALL * SMALL_SIZE + WAITER_POOL_LARGE * LARGE_SIZE)

struct waiter_result *waiter_result_new(enum waiter_result_kind kind, size_t n)
{
	struct waiter_result *r = calloc(1, sizeof(*r) + n * sizeof(r->causes[0]));

	if (r) {
		r->kind = kind;
		r->cap = n;
	}
	return r;
}

int waiter_pool_new(struct waiter *w)
{
	unsigned char *p;

	/*
	 * Written through, not left to calloc(): pages touched now are locked now
	 * (realtime.lock_memory), not at the first alert.
	 */
	p = w->pool_mem = malloc(POOL_BYTES);
	if (!p)
		return -ENOMEM;
	memset(p, 0, POOL_BYTES);
	for (size_t i = 0; i < WAITER_POOL_SMALL; i++, p += SMALL_SIZE) {
		struct waiter_result *r = (struct waiter_result *)p;

		r->cap = 1;
		r->next = w->pool_small;
		w->pool_small = r;
	}
	for (size_t i = 0; i < WAITER_POOL_LARGE; i++, p += LARGE_SIZE) {
		struct waiter_result *r = (struct waiter_result *)p;

		r->cap = MAX_CAUSES;
		r->next = w->pool_large;
		w->pool_large = r;
	}
	return 0;
}

void waiter_pool_free(struct waiter *w)
{
	free(w->pool_mem);
	w->pool_mem = NULL;
	w->pool_small = w->pool_large = NULL;
}

struct waiter_result *waiter_result_get(struct waiter *w, enum waiter_result_kind kind, size_t n)
{
	struct waiter_result *r, **pool = n > 1 ? &w->pool_large : &w->pool_small;
	size_t cap;

	pthread_mutex_lock(&w->lock);
	r = *pool;
	if (r)
		*pool = r->next;
	else
		w->stats.pool_empty++;
	pthread_mutex_unlock(&w->lock);
	if (!r)
		return waiter_result_new(kind, n);
	/* The causes are written before n counts them: only the rest starts clear. */
	cap = r->cap;
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->pool = w;
	r->cap = cap;
	return r;
}

/* R goes back to its waiter's pool. */
static void pool_put(struct waiter_result *r)
{
	struct waiter *w = r->pool;
	struct waiter_result **pool = r->cap > 1 ? &w->pool_large : &w->pool_small;

	pthread_mutex_lock(&w->lock);
	r->next = *pool;
	*pool = r;
	pthread_mutex_unlock(&w->lock);
}

void waiter_poke(struct waiter *w)
{
	uint64_t one = 1;

	if (write(w->done_fd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow in practice; the main loop reads it. */
	}
}

void waiter_push(struct waiter *w, struct waiter_result *res)
{
	pthread_mutex_lock(&w->lock);
	res->next = NULL;
	*w->tail = res;
	w->tail = &res->next;
	pthread_mutex_unlock(&w->lock);
	waiter_poke(w);
}

void waiter_tell(struct waiter *w, uint64_t *counter)
{
	pthread_mutex_lock(&w->lock);
	(*counter)++;
	pthread_mutex_unlock(&w->lock);
	waiter_poke(w);
}

void waiter_nomem(struct waiter *w)
{
	waiter_tell(w, &w->stats.nomem);
}

struct waiter_result *waiter_take_results(struct waiter *w)
{
	struct waiter_result *list;
	uint64_t v;

	if (read(w->done_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing new, the list is checked anyway. */
	}
	pthread_mutex_lock(&w->lock);
	list = w->head;
	w->head = NULL;
	w->tail = &w->head;
	pthread_mutex_unlock(&w->lock);
	return list;
}

void waiter_result_free(struct waiter_result *r)
{
	while (r) {
		struct waiter_result *next = r->next;

		flight_output_put(r->output);
		if (r->pool)
			pool_put(r);
		else
			free(r);
		r = next;
	}
}
