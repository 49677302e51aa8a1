// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analysis does not read catalog entries (analysis/ knows nothing of latencyd): the
 * entry is decoded here, and an_known points into it for as long as the analysis runs.
 */
#include <errno.h>
#include <stdlib.h>

#include "known.h"

static int known_disks(struct snapshot_known *k)
{
	const struct catalog_entry *e = &k->entry;

	if (!e->n_disks)
		return 0;
	k->disks = calloc(e->n_disks, sizeof(*k->disks));
	if (!k->disks)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_disks; i++) {
		struct an_known_disk *d = &k->disks[k->known.n_disks];

		if (catalog_entry_disk(e, i, &d->dev, &d->name))
			k->known.n_disks++;
	}
	k->known.disks = k->disks;
	return 0;
}

static int known_stacks(struct snapshot_known *k)
{
	const struct catalog_entry *e = &k->entry;

	if (!e->n_causes)
		return 0;
	k->stacks = calloc(e->n_causes, sizeof(*k->stacks));
	if (!k->stacks)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_causes; i++) {
		const struct catalog_cause *c = &e->causes[i];

		if (!c->stack || !c->tracker)
			continue;
		k->stacks[k->known.n_stacks++] = (struct an_known_stack){
			.tracker = c->tracker,
			.seq = c->seq,
			.kind = c->stack->kind,
			/* C converts char ** to const char *const * only when told */
			.frames = (const char *const *)c->stack->frames,
			.n_frames = c->stack->n_frames,
		};
	}
	k->known.stacks = k->stacks;
	return 0;
}

int snapshot_known_read(struct snapshot_known *k, struct json_object *reply)
{
	/* No problems reported: what an older or newer latencyd wrote differently is left out,
	 * and the analysis goes on without it. */
	int r = catalog_entry_from_json(reply, &k->entry, NULL, NULL);

	if (r < 0)
		return r;
	r = known_disks(k);
	if (r < 0)
		return r;
	return known_stacks(k);
}

void snapshot_known_free(struct snapshot_known *k)
{
	free(k->disks);
	free(k->stacks);
	catalog_entry_free(&k->entry);
	*k = (struct snapshot_known){0};
}
