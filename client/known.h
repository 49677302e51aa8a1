/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What latencyd knew of a snapshot when it recorded it (the kernel stacks it named at alert
 * time, the block devices' names), read from show-snapshot's reply by latencyd's own codec
 * of the catalog entry, and lent to the analysis as its struct an_known.
 */
#ifndef LATENCYCTL_KNOWN_H
#define LATENCYCTL_KNOWN_H

#include "analysis.h"
#include "entry.h"

struct json_object;

/* The decoded entry owns the strings; the arrays only point into it. */
struct snapshot_known {
	struct catalog_entry entry;
	struct an_known_disk *disks;
	struct an_known_stack *stacks;
	struct an_known known;
};

/*
 * K (zeroed) from show-snapshot's REPLY: 0, -EINVAL (not an entry), -ENOMEM. What cannot be
 * read is left out. snapshot_known_free() either way.
 */
int snapshot_known_read(struct snapshot_known *k, struct json_object *reply);
void snapshot_known_free(struct snapshot_known *k);

#endif /* LATENCYCTL_KNOWN_H */
