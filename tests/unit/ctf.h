/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small snapshot written by hand for the reader's tests: two CTF 1.8 traces like a
 * session's (kernel/ and ust/uid/0/64-bit/), with sched_switch events in stream files
 * named CHANNEL_CPU, one of them without any event.
 */
#ifndef LATENCYD_TEST_CTF_H
#define LATENCYD_TEST_CTF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tests.h"

/* The clock's offset: event times are CTF_ORIGIN_NS + their timestamp. */
#define CTF_ORIGIN_NS (1700000000LL * 1000000000LL)

/* The trace, its clock and its one stream (events follow), as LTTng writes them. */
#define CTF_METADATA_HEAD                                                                          \
	"/* CTF 1.8 */\n"                                                                          \
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"                 \
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"               \
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"                 \
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"                 \
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"               \
	"trace {\n"                                                                                \
	"	major = 1; minor = 8; byte_order = le;\n"                                                \
	"	packet.header := struct { uint32_t magic; uint32_t stream_id; };\n"                      \
	"};\n"                                                                                     \
	"clock { name = \"monotonic\"; freq = 1000000000; offset_s = 1700000000; absolute = "      \
	"true; };\n"                                                                               \
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; "  \
	"} := clock_t;\n"                                                                          \
	"stream {\n"                                                                               \
	"	id = 0;\n"                                                                               \
	"	event.header := struct { uint32_t id; clock_t timestamp; };\n"                           \
	"	packet.context := struct {\n"                                                            \
	"		uint64_t packet_size; uint64_t content_size; uint32_t cpu_id;\n"                        \
	"	};\n"                                                                                    \
	"};\n"

static const char ctf_metadata[] =
	CTF_METADATA_HEAD "event {\n"
			  "	name = \"sched_switch\"; id = 0; stream_id = 0;\n"
			  "	fields := struct {\n"
			  "		string prev_comm; int32_t prev_tid; int32_t prev_prio;\n"
			  "		int64_t prev_state;\n"
			  "		string next_comm; int32_t next_tid; int32_t next_prio;\n"
			  "	};\n"
			  "};\n";

static inline void ctf_put(FILE *f, const void *p, size_t n)
{
	ASSERT_EQ(fwrite(p, 1, n, f), n);
}

/*
 * DIR/NAME: one packet of CPU with a switch from tid 100 to tid 200 at each of TS[0..N).
 * The packet's size is in its context, as LTTng writes it: a file cut short is a packet cut
 * short, which babeltrace2 refuses to index (the reader salvages the rest of the trace).
 */
static inline void ctf_stream(const char *dir, const char *name, uint32_t cpu, const uint64_t *ts,
			      size_t n)
{
	const uint32_t header[2] = {0xc1fc1fc1, 0};
	const int32_t prev[2] = {100, 20}, next[2] = {200, 20};
	const int64_t state = 1;
	const uint32_t id = 0;
	uint64_t bits[2];
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w+b");
	ASSERT_TRUE(f);
	ctf_put(f, header, sizeof(header));
	ctf_put(f, bits, sizeof(bits)); /* written below */
	ctf_put(f, &cpu, sizeof(cpu));
	for (size_t i = 0; i < n; i++) {
		ctf_put(f, &id, sizeof(id));
		ctf_put(f, &ts[i], sizeof(ts[i]));
		ctf_put(f, "sender", 7);
		ctf_put(f, prev, sizeof(prev));
		ctf_put(f, &state, sizeof(state));
		ctf_put(f, "receiver", 9);
		ctf_put(f, next, sizeof(next));
	}
	bits[0] = bits[1] = (uint64_t)ftell(f) * 8;
	ASSERT_EQ(fseek(f, sizeof(header), SEEK_SET), 0);
	ctf_put(f, bits, sizeof(bits));
	ASSERT_EQ(fclose(f), 0);
}

static inline void ctf_trace_dir(const char *dir)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	ctf_put(f, ctf_metadata, strlen(ctf_metadata));
	ASSERT_EQ(fclose(f), 0);
}

static inline void ctf_mkdirs(const char *root, const char *const *dirs)
{
	char path[512];

	for (; *dirs; dirs++) {
		snprintf(path, sizeof(path), "%s/%s", root, *dirs);
		ASSERT_EQ(mkdir(path, 0755), 0);
	}
}

/*
 * Under ROOT (it exists): kernel/ with flight_0 (3 events), flight_1 (2) and flight_2 (no
 * event), ust/uid/0/64-bit/ with flight_0 (1 event): 6 events in 4 streams, 2 traces.
 */
#define CTF_EVENTS  6
#define CTF_STREAMS 4
#define CTF_TRACES  2
static inline void ctf_snapshot(const char *root)
{
	static const char *const dirs[] = {"kernel",	       "ust", "ust/uid", "ust/uid/0",
					   "ust/uid/0/64-bit", NULL};
	static const uint64_t k0[] = {1000, 2000, 3000}, k1[] = {1500, 2500}, u0[] = {1200};
	char kernel[512], ust[512];

	ctf_mkdirs(root, dirs);
	snprintf(kernel, sizeof(kernel), "%s/kernel", root);
	snprintf(ust, sizeof(ust), "%s/ust/uid/0/64-bit", root);
	ctf_trace_dir(kernel);
	ctf_trace_dir(ust);
	ctf_stream(kernel, "flight_0", 0, k0, 3);
	ctf_stream(kernel, "flight_1", 1, k1, 2);
	ctf_stream(kernel, "flight_2", 2, NULL, 0);
	ctf_stream(ust, "flight_0", 0, u0, 1);
}

#endif /* LATENCYD_TEST_CTF_H */
