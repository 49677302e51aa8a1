// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block devices by name: "vda (254:0)" reads better than the dev_t the block events carry.
 * Names come from LTTng's statedump when the snapshot still holds it (it is written once,
 * at session start, and the flight recorder overwrites it), else from the list latencyd
 * writes into the snapshot's catalog entry when it records it.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "an.h"

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
}

void an_disks_from_entry(struct an_log *log, struct json_object *entry)
{
	struct json_object *disks = NULL;

	if (!entry || !json_object_object_get_ex(entry, "disks", &disks) ||
	    !json_object_is_type(disks, json_type_object))
		return;
	json_object_object_foreach(disks, key, val)
	{
		unsigned maj, min;
		char end;

		if (sscanf(key, "%u:%u%c", &maj, &min, &end) == 2 && maj < 4096 &&
		    min < (1U << 20) && json_object_is_type(val, json_type_string))
			an_disk_add(log, maj << 20 | min, json_object_get_string(val));
	}
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
