// SPDX-License-Identifier: GPL-2.0-only
/*
 * The waiter's results on their way to the main loop: a list under the waiter's
 * priority-inheriting mutex, and an eventfd that sd-event watches. The thread appends, the
 * main loop takes the whole list at once.
 */
#include <stdlib.h>
#include <unistd.h>

#include "waiter_internal.h"

struct waiter_result *waiter_result_new(enum waiter_result_kind kind, size_t n)
{
	struct waiter_result *r = calloc(1, sizeof(*r) + n * sizeof(r->causes[0]));

	if (r)
		r->kind = kind;
	return r;
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

void waiter_nomem(struct waiter *w)
{
	pthread_mutex_lock(&w->lock);
	w->stats.nomem++;
	pthread_mutex_unlock(&w->lock);
	waiter_poke(w);
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
		free(r);
		r = next;
	}
}
