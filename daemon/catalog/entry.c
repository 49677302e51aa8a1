// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a catalog entry as the analysis wants it: its disks by device number, the cause
 * of an alert by the alert's identity.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "proto.h"

bool catalog_entry_disk(const struct catalog_entry *e, size_t i, uint32_t *dev, const char **name)
{
	unsigned maj, min;
	char end;

	if (i >= e->n_disks || !e->disks[i].dev || !e->disks[i].name ||
	    sscanf(e->disks[i].dev, "%u:%u%c", &maj, &min, &end) != 2 || maj >= 4096 ||
	    min >= (1U << 20))
		return false;
	*dev = maj << 20 | min;
	*name = e->disks[i].name;
	return true;
}

const struct catalog_cause *catalog_entry_alert(const struct catalog_entry *e, const char *tracker,
						uint64_t seq)
{
	for (size_t i = 0; i < e->n_causes; i++) {
		const struct catalog_cause *c = &e->causes[i];

		if (c->seq == seq && c->tracker && strcmp(c->tracker, tracker) == 0 && c->reason &&
		    strcmp(c->reason, PROTO_REASON_MANUAL) != 0 &&
		    strcmp(c->reason, PROTO_REASON_PEER) != 0)
			return c;
	}
	return NULL;
}

char *catalog_strdup(const char *s, int *r)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*r = -ENOMEM;
	return d;
}
