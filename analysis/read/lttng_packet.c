/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The layout is the same for LTTng's kernel and userspace tracers on little-endian
 * machines: magic, uuid, stream class id, stream instance id, then the context's times,
 * content and packet sizes (bits), sequence number and events discarded, 80 bytes in all.
 */
#include "lttng_packet.h"

#define CTF_MAGIC   0xc1fc1fc1U
#define HEADER_SIZE 80

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

bool an_lttng_packet_at(FILE *f, uint64_t off, uint64_t size, struct an_lttng_packet *p)
{
	unsigned char h[HEADER_SIZE];
	uint64_t content, packet;

	if (off + HEADER_SIZE > size || fseeko(f, (off_t)off, SEEK_SET) != 0 ||
	    fread(h, 1, sizeof(h), f) != sizeof(h) || le(h, 4) != CTF_MAGIC)
		return false;
	content = le(h + 48, 8);
	packet = le(h + 56, 8);
	if (packet % 8 || packet / 8 < HEADER_SIZE || content > packet || packet / 8 > size - off)
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
