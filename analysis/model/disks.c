// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block devices by name: "vda (254:0)" reads better than the dev_t the block events carry.
 * Names come from the snapshot itself, its names channel (the module's
 * latency_tracker_device_name, written by latencyd as its session starts, or LTTng's
 * statedump), else from the list latencyd wrote into the snapshot's catalog entry when it
 * recorded it (an_known).
 */
#include <stdio.h>
#include <string.h>

#include "an.h"
#include "analysis.h"

void an_disk_add(struct an_log *log, uint32_t dev, const char *name)
{
	struct an_disk *d;

	log->disks.size = sizeof(struct an_disk);
	for (size_t i = 0; i < log->disks.n; i++)
		if (AN_AT(&log->disks, struct an_disk, i)->dev == dev)
			return; /* the first name wins: the trace's own, over the catalog's */
	d = an_vec_push(&log->disks);
	if (!d)
		return;
	d->dev = dev;
	snprintf(d->name, sizeof(d->name), "%s", name);
	an_utf8_mend(d->name);
}

void an_disks_from_known(struct an_log *log, const struct an_known *known)
{
	if (!known)
		return;
	for (size_t i = 0; i < known->n_disks; i++)
		if (known->disks[i].name)
			an_disk_add(log, known->disks[i].dev, known->disks[i].name);
}

const char *an_disk_name(const struct an_log *log, uint32_t dev)
{
	for (size_t i = 0; i < log->disks.n; i++)
		if (AN_AT(&log->disks, struct an_disk, i)->dev == dev)
			return AN_AT(&log->disks, struct an_disk, i)->name;
	return NULL;
}

void an_disk_text(const struct an_log *log, uint32_t dev, char *buf, size_t size)
{
	const char *name = an_disk_name(log, dev);

	if (name)
		snprintf(buf, size, "%s (%u:%u)", name, dev >> 20, dev & 0xfffff);
	else
		snprintf(buf, size, "%u:%u", dev >> 20, dev & 0xfffff);
}
