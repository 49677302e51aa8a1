// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine's block devices by number, for the catalog: block events carry only a dev_t,
 * and the analysis, run later or elsewhere, should say "vda" (LTTng's statedump, which has
 * the names, is written once at session start and soon overwritten in a flight recorder).
 * /sys/dev/block/MAJ:MIN links to the device's directory, named as the kernel names it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"

int kernel_disks(const char *dir, void (*fn)(const char *dev, const char *name, void *arg),
		 void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char path[PATH_MAX], target[PATH_MAX];
		const char *name;
		unsigned maj, min;
		char end;
		ssize_t len;

		if (sscanf(e->d_name, "%u:%u%c", &maj, &min, &end) != 2)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		name = strrchr(target, '/');
		fn(e->d_name, name ? name + 1 : target, arg);
		n++;
	}
	closedir(d);
	return n;
}

static void add_disk(const char *dev, const char *name, void *arg)
{
	struct kdisks *d = arg;

	if (d->n == KDISKS_MAX)
		return;
	snprintf(d->v[d->n].dev, sizeof(d->v[d->n].dev), "%s", dev);
	snprintf(d->v[d->n].name, sizeof(d->v[d->n].name), "%.31s", name);
	d->n++;
}

void kdisks_read(const char *sysfs_root, struct kdisks *d)
{
	char dir[PATH_MAX];

	d->n = 0;
	snprintf(dir, sizeof(dir), "%s/dev/block", sysfs_root);
	kernel_disks(dir, add_disk, d);
}

const char *kdisks_dev(const struct kdisks *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].name, name) == 0)
			return d->v[i].dev;
	return NULL;
}

const char *kdisks_name(const struct kdisks *d, const char *dev)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->v[i].dev, dev) == 0)
			return d->v[i].name;
	return "";
}

int kdisks_announce(const char *sysfs_root, uint64_t *signature)
{
	char path[PATH_MAX], line[96];
	struct kdisks *d;
	int fd, n = 0, len;

	snprintf(path, sizeof(path), "%s/kernel/latency_tracker/device_names", sysfs_root);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = malloc(sizeof(*d));
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	kdisks_read(sysfs_root, d);
	*signature = kdisks_signature_of(d);
	/* One write a device: a name the module refuses (a character it does not take) costs
	 * that device only. */
	for (size_t i = 0; i < d->n; i++) {
		len = snprintf(line, sizeof(line), "%s %s\n", d->v[i].dev, d->v[i].name);
		if (len > 0 && (size_t)len < sizeof(line) && write(fd, line, (size_t)len) == len)
			n++;
	}
	free(d);
	close(fd);
	return n;
}

uint64_t kdisks_signature_of(const struct kdisks *d)
{
	uint64_t sum = 0;

	/* A sum of each device's hash: the order readdir() gives does not count. */
	for (size_t i = 0; i < d->n; i++) {
		uint64_t h = 0xcbf29ce484222325ULL;

		for (const char *p = d->v[i].dev; *p; p++)
			h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
		for (const char *p = d->v[i].name; *p; p++)
			h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
		sum += h;
	}
	return sum;
}

uint64_t kdisks_signature(const char *sysfs_root)
{
	struct kdisks *d = malloc(sizeof(*d));
	uint64_t sum;

	if (!d)
		return 0;
	kdisks_read(sysfs_root, d);
	sum = kdisks_signature_of(d);
	free(d);
	return sum;
}
