/* SPDX-License-Identifier: GPL-2.0-only */
/* An alert's cause as data: what cannot be concluded added, a link's crossing found, freed. */
#include <stdlib.h>

#include "an.h"
#include "chain.h"

void an_cause_note(struct an_cause *c, char *s)
{
	char **slot = s ? an_vec_push(&c->notes) : NULL;

	if (slot)
		*slot = s;
	else
		free(s);
}

size_t an_crossings_followed(const struct an_cause *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->crossings.n; i++)
		n += AN_AT(&c->crossings, struct an_crossing, i)->peer != NULL;
	return n;
}

const struct an_crossing *an_crossing_of(const struct an_cause *c, size_t link)
{
	for (size_t i = 0; i < c->crossings.n; i++)
		if (AN_AT(&c->crossings, struct an_crossing, i)->link == link)
			return AN_AT(&c->crossings, struct an_crossing, i);
	return NULL;
}

void an_cause_free(struct an_cause *c)
{
	an_vec_free(&c->timeline);
	an_vec_free(&c->links);
	an_strs_free(&c->notes);
	an_vec_free(&c->crossings);
	an_strs_free(&c->stack.frames);
	free(c->story);
}
