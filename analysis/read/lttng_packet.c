/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The layout is the same for LTTng's kernel and userspace tracers on little-endian
 * machines since 2.8 (stream_instance_id, packet_seq_num): magic, uuid, stream class id,
 * stream instance id, then the context's times, content and packet sizes (bits), sequence
 * number and events discarded, 80 bytes in all.
 */
#include <stdlib.h>
#include <string.h>

#include "an.h"
#include "lttng_packet.h"
#include "regular.h"

#define CTF_MAGIC   0xc1fc1fc1U
#define HEADER_SIZE 80

#define TSDL_MAGIC  0x75d11d57U
#define META_HEADER 37 /* magic, uuid[16], checksum, content_size, packet_size, 5 bytes */
/* The trace's declarations and environment come first: this much of its text says. */
#define META_HEAD   (64u << 10)

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

bool an_lttng_packet_at(FILE *f, uint64_t off, uint64_t size, struct an_lttng_packet *p)
{
	static const int unset_at[] = {32, 40, 64, 72}; /* times, sequence number, count */
	unsigned char h[HEADER_SIZE];
	uint64_t content, packet;

	if (off + HEADER_SIZE > size || fseeko(f, (off_t)off, SEEK_SET) != 0 ||
	    fread(h, 1, sizeof(h), f) != sizeof(h) || le(h, 4) != CTF_MAGIC)
		return false;
	content = le(h + 48, 8);
	packet = le(h + 56, 8);
	/* A content smaller than the header and context it holds: babeltrace2 fails there,
	 * and ends the reading of every stream, not of this one. */
	if (packet % 8 || packet / 8 < HEADER_SIZE || content < 8 * HEADER_SIZE ||
	    content > packet || packet / 8 > size - off)
		return false;
	/* All ones is babeltrace2 2.0's "unset": there, it asserts and aborts. */
	for (size_t i = 0; i < sizeof(unset_at) / sizeof(unset_at[0]); i++)
		if (le(h + unset_at[i], 8) == UINT64_MAX)
			return false;
	*p = (struct an_lttng_packet){
		.class_id = le(h + 20, 4),
		.id = le(h + 24, 8),
		.begin = le(h + 32, 8),
		.end = le(h + 40, 8),
		.bytes = packet / 8,
		.seq = le(h + 64, 8),
		.discarded = le(h + 72, 8),
	};
	return true;
}

/* The first META_HEAD bytes of trace dir's metadata as text, packet headers left out. */
static char *metadata_head(const char *dir)
{
	char *path = an_asprintf("%s/metadata", dir), *text = calloc(1, META_HEAD + 1);
	FILE *f = path ? an_fopen_regular(path, NULL) : NULL;
	unsigned char h[META_HEADER];
	size_t len = 0;

	if (!f || !text) {
		free(text);
		text = NULL;
	} else if (fread(h, 1, 4, f) == 4 && le(h, 4) == TSDL_MAGIC) {
		long at = 0;

		while (len < META_HEAD && fseek(f, at, SEEK_SET) == 0 &&
		       fread(h, 1, META_HEADER, f) == META_HEADER && le(h, 4) == TSDL_MAGIC) {
			uint64_t content = le(h + 24, 4) / 8, packet = le(h + 28, 4) / 8, n;

			if (content < META_HEADER || packet < content)
				break;
			n = content - META_HEADER < META_HEAD - len ? content - META_HEADER
								    : META_HEAD - len;
			len += fread(text + len, 1, n, f);
			at += (long)packet;
		}
	} else if (fseek(f, 0, SEEK_SET) == 0) {
		len = fread(text, 1, META_HEAD, f);
	}
	if (f)
		fclose(f);
	if (text)
		text[len] = 0;
	free(path);
	return text;
}

/* The number after "key = " in text; -1: none. */
static long env_number(const char *text, const char *key)
{
	const char *at = strstr(text, key);

	return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

bool an_trace_is_lttng(const char *dir)
{
	char *text = metadata_head(dir);
	long major, minor;
	bool yes = false;

	if (text && (strstr(text, "tracer_name = \"lttng-modules\";") ||
		     strstr(text, "tracer_name = \"lttng-ust\";"))) {
		major = env_number(text, "tracer_major = ");
		minor = env_number(text, "tracer_minor = ");
		yes = (major > 2 || (major == 2 && minor >= 8)) &&
		      strstr(text, "stream_instance_id") && strstr(text, "packet_seq_num");
	}
	free(text);
	return yes;
}
