/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Damaged traces. babeltrace2 refuses a whole trace when one stream file cannot be indexed
 * (a file truncated mid-packet), and loops forever on packetized metadata cut inside a
 * packet. So: metadata packets are checked before babeltrace2 sees them, and a trace whose
 * stream file is refused is read again through a directory of symbolic links to its
 * metadata and its other stream files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "an.h"

#define TSDL_MAGIC  0x75d11d57U
#define META_HEADER 37 /* magic, uuid[16], checksum, content_size, packet_size, 5 bytes */

int an_check_metadata(const char *dir, char **why)
{
	char *path = an_asprintf("%s/metadata", dir);
	unsigned char h[META_HEADER];
	FILE *f = path ? fopen(path, "rb") : NULL;
	long off = 0, size;
	int r = 0;

	if (!f) {
		*why = an_asprintf("%s: %s", path ? path : dir, strerror(errno));
		free(path);
		return -EIO;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	/* Text metadata (no magic) is parsed by babeltrace2 and errors cleanly. */
	while (off < size && fseek(f, off, SEEK_SET) == 0 && fread(h, 1, 4, f) == 4) {
		uint32_t magic = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
				 (uint32_t)h[3] << 24;
		uint32_t content, packet;

		if (magic != TSDL_MAGIC)
			break;
		if (fread(h + 4, 1, META_HEADER - 4, f) != META_HEADER - 4) {
			r = -EBADMSG;
			break;
		}
		content = (uint32_t)h[24] | (uint32_t)h[25] << 8 | (uint32_t)h[26] << 16 |
			  (uint32_t)h[27] << 24;
		packet = (uint32_t)h[28] | (uint32_t)h[29] << 8 | (uint32_t)h[30] << 16 |
			 (uint32_t)h[31] << 24;
		if (packet < 8 * META_HEADER || content > packet || off + packet / 8 > size) {
			r = -EBADMSG;
			break;
		}
		off += packet / 8;
	}
	fclose(f);
	if (r < 0)
		*why = an_asprintf("%s: truncated or damaged metadata packet at byte %ld (file of "
				   "%ld bytes): the trace cannot be decoded",
				   path, off, size);
	free(path);
	return r;
}

static int link_into(const char *tmp, const char *dir, const char *name)
{
	char *from = an_asprintf("%s/%s", dir, name), *to = an_asprintf("%s/%s", tmp, name);
	char *abs = from ? realpath(from, NULL) : NULL;
	int r = abs && to && symlink(abs, to) == 0 ? 0 : -errno;

	free(from);
	free(to);
	free(abs);
	return r ? r : 0;
}

int an_salvage(const char *dir, const char *error, char **tmpdir, struct an_vec *dropped)
{
	const char *base = getenv("TMPDIR");
	DIR *d = opendir(dir);
	struct dirent *de;
	char *tmp = an_asprintf("%s/latency-analysis.XXXXXX", base && *base ? base : "/tmp");
	size_t kept = 0;
	int r = 0;

	*tmpdir = NULL;
	if (!d || !tmp || !mkdtemp(tmp)) {
		r = -errno ? -errno : -ENOMEM;
		goto out;
	}
	while ((de = readdir(d))) {
		char *path = an_asprintf("%s/%s", dir, de->d_name), **slot;
		struct stat st;

		if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (strcmp(de->d_name, "metadata") != 0 && error && strstr(error, path)) {
			slot = an_vec_push(dropped);
			if (slot)
				*slot = path;
			else
				free(path);
			continue;
		}
		free(path);
		if (link_into(tmp, dir, de->d_name) == 0 && strcmp(de->d_name, "metadata") != 0)
			kept++;
	}
	if (!dropped->n || !kept) {
		an_rm_salvage(tmp);
		r = -ENOENT;
		goto out;
	}
	*tmpdir = tmp;
	tmp = NULL;
out:
	if (d)
		closedir(d);
	free(tmp);
	return r;
}

void an_rm_salvage(const char *tmpdir)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *p = an_asprintf("%s/%s", tmpdir, de->d_name);

		if (p && de->d_name[0] != '.')
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(tmpdir);
}
