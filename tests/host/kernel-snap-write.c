/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel-snap-write DIR SEED: a kernel trace under DIR/kernel as lttng-modules writes one
 * (CTF 1.8, its event and field names), of random system calls (read, pread64, recvfrom,
 * write: durations and returned bytes), interrupt handlers and block requests from one
 * task on one CPU. This host cannot record a kernel session; test-analyze-freq.sh reads
 * what was written with babeltrace2 to know what latencyctl analyze --freq should say. The
 * task's name is $KSW_COMM when set (test-client-escapes.sh: one with terminal controls).
 */
#include <stdlib.h>
#include <string.h>

#include "ctf.h"

enum {
	SWITCH,
	SYS_ENTRY,
	SYS_EXIT = SYS_ENTRY + 4,
	IRQ_ENTRY = SYS_EXIT + 4,
	IRQ_EXIT,
	BLK_ISSUE,
	BLK_COMPLETE
};

static const char *const calls[] = {"read", "pread64", "recvfrom", "write"};

#define TID 4242
#define DEV (8U << 20 | 16)

static const char *comm = "freqapp";

static void metadata(FILE *f)
{
	fputs(ctf_metadata, f); /* sched_switch, id 0 */
	for (int i = 0; i < 4; i++)
		fprintf(f,
			"event { name = \"syscall_entry_%s\"; id = %d; stream_id = 0;\n"
			"	fields := struct { int32_t fd; uint64_t count; }; };\n"
			"event { name = \"syscall_exit_%s\"; id = %d; stream_id = 0;\n"
			"	fields := struct { int64_t ret; }; };\n",
			calls[i], SYS_ENTRY + i, calls[i], SYS_EXIT + i);
	fprintf(f,
		"event { name = \"irq_handler_entry\"; id = %d; stream_id = 0;\n"
		"	fields := struct { int32_t irq; string name; }; };\n"
		"event { name = \"irq_handler_exit\"; id = %d; stream_id = 0;\n"
		"	fields := struct { int32_t irq; int32_t ret; }; };\n"
		"event { name = \"block_rq_issue\"; id = %d; stream_id = 0;\n"
		"	fields := struct { uint32_t dev; uint64_t sector; uint32_t nr_sector;\n"
		"		uint32_t bytes; int32_t tid; uint32_t rwbs; string comm; }; };\n"
		"event { name = \"block_rq_complete\"; id = %d; stream_id = 0;\n"
		"	fields := struct { uint32_t dev; uint64_t sector; uint32_t nr_sector;\n"
		"		int32_t error; uint32_t rwbs; }; };\n",
		IRQ_ENTRY, IRQ_EXIT, BLK_ISSUE, BLK_COMPLETE);
}

static void header(FILE *f, uint32_t id, uint64_t ts)
{
	ctf_put(f, &id, sizeof(id));
	ctf_put(f, &ts, sizeof(ts));
}

static void put32(FILE *f, uint32_t v)
{
	ctf_put(f, &v, sizeof(v));
}

static void put64(FILE *f, uint64_t v)
{
	ctf_put(f, &v, sizeof(v));
}

static void block(FILE *f, uint64_t *t, uint64_t sector)
{
	uint32_t nr = 8u << (rand() % 4), rwbs = rand() % 2 ? 0x4 /* R */ : 0x1 /* W */;

	header(f, BLK_ISSUE, *t);
	put32(f, DEV);
	put64(f, sector);
	put32(f, nr);
	put32(f, nr * 512);
	put32(f, TID);
	put32(f, rwbs);
	ctf_put(f, comm, strlen(comm) + 1);
	*t += 20000 + (uint64_t)(rand() % 5000000);
	header(f, BLK_COMPLETE, *t);
	put32(f, DEV);
	put64(f, sector);
	put32(f, nr);
	put32(f, 0);
	put32(f, rwbs);
}

static void events(FILE *f)
{
	const int32_t sw[3] = {0, 20, TID}; /* prev_tid, prev_prio; next_tid */
	const int64_t state = 0;
	const int32_t prio = 20;
	uint64_t t = 1000;

	header(f, SWITCH, t);
	ctf_put(f, "swapper/0", 10);
	ctf_put(f, sw, 2 * sizeof(int32_t));
	ctf_put(f, &state, sizeof(state));
	ctf_put(f, comm, strlen(comm) + 1);
	ctf_put(f, &sw[2], sizeof(int32_t));
	ctf_put(f, &prio, sizeof(prio));
	for (int i = 0; i < 300; i++) {
		int k = rand() % 4;
		int64_t ret = rand() % 10 ? rand() % 65536 : -11;

		t += 500 + (uint64_t)(rand() % 20000);
		header(f, SYS_ENTRY + k, t);
		put32(f, 3);
		put64(f, 65536);
		t += 1000 + (uint64_t)(rand() % 2000000);
		header(f, SYS_EXIT + k, t);
		put64(f, (uint64_t)ret);
		if (i % 7 == 0) {
			int32_t irq = i % 2 ? 11 : 19, zero = 0;

			t += 300;
			header(f, IRQ_ENTRY, t);
			ctf_put(f, &irq, sizeof(irq));
			ctf_put(f, irq == 11 ? "eth0" : "nvme0q1", irq == 11 ? 5 : 8);
			t += 500 + (uint64_t)(rand() % 50000);
			header(f, IRQ_EXIT, t);
			ctf_put(f, &irq, sizeof(irq));
			ctf_put(f, &zero, sizeof(zero));
		}
		if (i % 11 == 0) {
			t += 300;
			block(f, &t, 1000 + (uint64_t)i * 64);
		}
	}
}

int main(int argc, char **argv)
{
	const uint32_t packet[2] = {0xc1fc1fc1, 0}, cpu = 0;
	char path[512];
	uint64_t bits[2] = {0};
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: kernel-snap-write DIR SEED\n");
		return 2;
	}
	srand((unsigned)strtoul(argv[2], NULL, 10));
	if (getenv("KSW_COMM"))
		comm = getenv("KSW_COMM");
	snprintf(path, sizeof(path), "%s/kernel", argv[1]);
	ASSERT_EQ(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/kernel/metadata", argv[1]);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	metadata(f);
	ASSERT_EQ(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/kernel/chan_0", argv[1]);
	f = fopen(path, "w+b");
	ASSERT_TRUE(f);
	ctf_put(f, packet, sizeof(packet));
	ctf_put(f, bits, sizeof(bits)); /* the packet's size, once known */
	ctf_put(f, &cpu, sizeof(cpu));
	events(f);
	bits[0] = bits[1] = (uint64_t)ftell(f) * 8;
	ASSERT_EQ(fseek(f, sizeof(packet), SEEK_SET), 0);
	ctf_put(f, bits, sizeof(bits));
	ASSERT_EQ(fclose(f), 0);
	return 0;
}
