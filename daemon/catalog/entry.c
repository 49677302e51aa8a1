// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a catalog entry as the analysis wants it: its disks by device number, the cause
 * of an alert by the alert's identity; and its deletion state in words.
 */
#include <errno.h>
#include <inttypes.h>
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

char *catalog_deletion_text(const struct catalog_entry *e)
{
	const char *note = e->deletion_note ? e->deletion_note : "?";
	char *text = NULL;
	int r = 0;

	switch (e->deletion) {
	case CATALOG_DELETION_NONE:
		return NULL;
	case CATALOG_DELETION_UNDELETABLE:
		r = asprintf(&text, "cannot be deleted: %s; kept whole", note);
		break;
	case CATALOG_DELETION_PARTIAL:
		r = asprintf(&text, "deleted in part: cannot delete %s, %" PRIu64 " left", note,
			     e->bytes);
		break;
	case CATALOG_DELETION_PARTIAL_DELETABLE:
		r = asprintf(&text,
			     "left by a deletion that failed part way: %" PRIu64
			     " bytes, deletable now",
			     e->bytes);
		break;
	case CATALOG_DELETION_GONE:
		text = strdup("its directory is gone (removed outside latencyd): 0 bytes");
		break;
	}
	return r < 0 ? NULL : text;
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
