/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A stream's trail (decode.h): one mark per entry of the log's tables that a side effect
 * touched, the first or the last time as the merge needs it, never one per event.
 */
#include <stdlib.h>

#include "decode.h"

bool an_trail_grow(struct an_trail *t, enum an_mark_kind kind, size_t i)
{
	struct an_vec *v = &t->marks[kind];

	v->size = sizeof(struct an_mark);
	while (v->n <= i)
		if (!an_vec_push(v))
			return false; /* the merge finds the mark missing and gives up */
	return true;
}

void an_trail_free(struct an_trail *t)
{
	for (size_t k = 0; k <= AN_MARK_DISK; k++)
		an_vec_free(&t->marks[k]);
}
