/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fuzz target: the analysis' own readers of a snapshot's bytes, before babeltrace2 sees them
 * (analysis/read/): LTTng's stream packet headers (an_lttng_packet_at()), a stream file's
 * check (an_check_streams()) and its salvage (an_salvage(): its complete packets, by its
 * index or by its headers, copied), and a metadata file's packets and text
 * (an_check_metadata(), an_trace_is_lttng()). The input is written to a trace directory of
 * LTTng's layout and read there.
 *
 * The first byte picks what the rest is: bits 0-1 0 (and 3) a stream file, 1 an index then
 * a stream file (the index's length in the next two bytes, little-endian), 2 a metadata
 * file.
 *
 * What is checked: the headers followed in memory and in the file say the same; a stream
 * file is refused exactly when its packets do not fill it, the refusal naming the file and
 * the byte; what salvage keeps is the file's start, whole packets only (checked again, it
 * passes); a refused metadata says why, naming its file.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "an.h"
#include "lttng_packet.h"
#include "salvage.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[] = "/tmp/fuzz-packet-XXXXXX";
static char trace[64], meta[64], stream[96], index_file[96], meta_file[96];

/* Enough of a metadata for an_trace_is_lttng(): the salvage path reads no more of it. */
static const char lttng_metadata[] =
	"/* CTF 1.8 */\n"
	"trace { major = 1; minor = 8; byte_order = le;\n"
	"	packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id;\n"
	"		uint64_t stream_instance_id; }; };\n"
	"env { tracer_name = \"lttng-ust\"; tracer_major = 2; tracer_minor = 13; };\n"
	"stream { id = 0; packet.context := struct { uint64_t timestamp_begin;\n"
	"	uint64_t timestamp_end; uint64_t content_size; uint64_t packet_size;\n"
	"	uint64_t packet_seq_num; uint64_t events_discarded; uint32_t cpu_id; }; };\n";

static void put(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		abort();
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz-packet: %s left behind\n", root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[128];

	if (!mkdtemp(root))
		abort();
	/* an_salvage() makes its directories under TMPDIR: ours, removed at the end. */
	setenv("TMPDIR", root, 1);
	snprintf(trace, sizeof(trace), "%s/trace", root);
	snprintf(meta, sizeof(meta), "%s/meta", root);
	snprintf(stream, sizeof(stream), "%s/chan_0", trace);
	snprintf(index_file, sizeof(index_file), "%s/index/chan_0.idx", trace);
	snprintf(meta_file, sizeof(meta_file), "%s/metadata", meta);
	snprintf(path, sizeof(path), "%s/index", trace);
	if (mkdir(trace, 0700) < 0 || mkdir(meta, 0700) < 0 || mkdir(path, 0700) < 0)
		abort();
	snprintf(path, sizeof(path), "%s/metadata", trace);
	put(path, lttng_metadata, strlen(lttng_metadata));
	if (!an_trace_is_lttng(trace))
		abort();
	atexit(cleanup);
	return 0;
}

static void fail(const char *what, const char *why)
{
	fprintf(stderr, "fuzz-packet: %s%s%s\n", what, why ? ": " : "", why ? why : "");
	abort();
}

/* Where the packets followed from the start end, in memory; each one inside the bytes. */
static uint64_t packets_end(const uint8_t *p, size_t n)
{
	FILE *f = n ? fmemopen((void *)p, n, "r") : NULL;
	struct an_lttng_packet pk;
	uint64_t end = 0;

	if (!f)
		return 0;
	/* Any offset at all: no crash, and a packet found there fits. */
	for (uint64_t off = 0; off < n && off < 96; off++)
		if (an_lttng_packet_at(f, off, n, &pk) && (pk.bytes < 80 || pk.bytes > n - off))
			fail("a packet past the bytes", NULL);
	while (an_lttng_packet_at(f, end, n, &pk)) {
		if (pk.bytes < 80 || pk.bytes > n - end)
			fail("a packet past the bytes", NULL);
		end += pk.bytes;
	}
	fclose(f);
	return end;
}

/* What salvage kept of the stream (a copy in tmp, or nothing): the start, whole packets. */
static void check_salvaged(const char *tmp, const uint8_t *p, size_t n, uint64_t end)
{
	char path[128], *why = NULL;
	uint8_t *copy;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/chan_0", tmp);
	if (lstat(path, &st) < 0)
		return; /* left out */
	if (!S_ISREG(st.st_mode) || !st.st_size || (uint64_t)st.st_size > n)
		fail("salvage kept other bytes than the file's", NULL);
	if ((uint64_t)st.st_size > end)
		fail("salvage kept a packet its headers do not make whole", NULL);
	copy = malloc((size_t)st.st_size);
	f = fopen(path, "rb");
	if (!copy || !f || fread(copy, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		abort();
	fclose(f);
	if (memcmp(copy, p, (size_t)st.st_size) != 0)
		fail("salvage kept other bytes than the file's start", NULL);
	free(copy);
	/* What babeltrace2 is given again must not be refused again. */
	if (an_check_streams(tmp, &why) < 0)
		fail("the salvaged copy is refused", why);
}

static void stream_file(const uint8_t *p, size_t n, const uint8_t *idx, size_t idx_n)
{
	uint64_t end = packets_end(p, n);
	struct an_vec dropped = AN_VEC(char *);
	char *why = NULL, *tmp = NULL, at[64];
	int r;

	put(stream, p, n);
	if (idx)
		put(index_file, idx, idx_n);
	else
		unlink(index_file);
	r = an_check_streams(trace, &why);
	if ((r < 0) != (n && end < n))
		fail(r < 0 ? "a stream file of whole packets refused"
			   : "a stream file of a packet cut short accepted",
		     why);
	if (r < 0) {
		snprintf(at, sizeof(at), "at byte %llu ", (unsigned long long)end);
		if (!why || strncmp(why, stream, strlen(stream)) != 0 || !strstr(why, at))
			fail("the refusal does not name the file and the byte", why);
		r = an_salvage(trace, false, why, &tmp, &dropped);
		if (r == 0) {
			check_salvaged(tmp, p, n, end);
			an_rm_salvage(tmp);
		} else if (r != -ENOENT) {
			fail("salvage failed", strerror(-r));
		}
		if (dropped.n != 1 || !strstr(*AN_AT(&dropped, char *, 0), "chan_0"))
			fail("salvage does not say what it did with the file", NULL);
	}
	free(tmp);
	free(why);
	an_strs_free(&dropped);
}

static void metadata_file(const uint8_t *p, size_t n)
{
	char *why = NULL;
	int r;

	put(meta_file, p, n);
	r = an_check_metadata(meta, NULL, &why);
	if (r < 0 && (!why || strncmp(why, meta_file, strlen(meta_file)) != 0))
		fail("a refused metadata does not name its file", why);
	if (r == 0 && why)
		fail("an accepted metadata with a reason", why);
	free(why);
	an_trace_is_lttng(meta);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t idx_n;

	if (size < 1)
		return 0;
	switch (data[0] & 3) {
	case 0:
	case 3:
		stream_file(data + 1, size - 1, NULL, 0);
		break;
	case 1:
		if (size < 3)
			return 0;
		idx_n = (size_t)data[1] | (size_t)data[2] << 8;
		if (idx_n > size - 3)
			idx_n = size - 3;
		stream_file(data + 3 + idx_n, size - 3 - idx_n, data + 3, idx_n);
		break;
	case 2:
		metadata_file(data + 1, size - 1);
		break;
	}
	return 0;
}
