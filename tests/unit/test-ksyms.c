// SPDX-License-Identifier: GPL-2.0-only
/*
 * ksyms.c: kernel addresses named as the kernel prints them. Against this machine's own
 * /proc/kallsyms (the names of real addresses, found back), and against written files for
 * what a machine cannot be made to show: module symbols, aliases, addresses outside every
 * symbol, and the zeros of kptr_restrict.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "tests.h"

/* A directory of its own for a test's files (test_write_file()); the caller removes it. */
static char *new_dir(void)
{
	char *dir = strdup("/tmp/test-ksyms.XXXXXX");

	ASSERT_TRUE(dir && mkdtemp(dir));
	return dir;
}

/* Removes DIR's kallsyms and modules files, then DIR, and frees its name. */
static void remove_dir(char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/modules", dir);
	unlink(path);
	ASSERT_EQ(rmdir(dir), 0);
	free(dir);
}

static char *write_file(const char *text)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/test-ksyms.XXXXXX");
	f = fdopen(mkstemp(path), "w");
	ASSERT_TRUE(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_written(void)
{
	const char *path = write_file("ffffffff81000000 T _stext\n"
				      "ffffffff81000000 T _text\n"
				      "ffffffff81001000 T io_schedule\n"
				      "ffffffff81001040 d some_data\n"
				      "ffffffff81001100 t bit_wait_io\n"
				      "ffffffff81002000 T _etext\n"
				      "ffffffffc0001000 t ext2_fsync\t[ext2]\n"
				      "ffffffffc0001200 t ext2_sync_file\t[ext2]\n");
	uint64_t addr[] = {0xffffffff81001012, 0xffffffff81001100, 0xffffffffc0001010,
			   0xffffffff80000000, 0xffffffffc0001300, 0xffffffff81001050};
	struct ksym s[6];
	char buf[256];

	ASSERT_EQ(ksyms_resolve(path, addr, 6, s), 3);
	ksym_text(&s[0], false, buf, sizeof(buf));
	/* The size is to the next symbol of any kind: data can follow a function. */
	ASSERT_STREQ(buf, "io_schedule+0x12/0x40");
	ksym_text(&s[1], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "bit_wait_io+0x0/0xf00");
	ksym_text(&s[2], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "ext2_fsync+0x10/0x200 [ext2]");
	/* Below the first symbol, past the last: not named, and said so. */
	ASSERT_TRUE(!s[3].found && !s[4].found);
	ksym_text(&s[3], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "?");
	ksym_text(&s[3], true, buf, sizeof(buf));
	ASSERT_STREQ(buf, "? (0xffffffff80000000)");
	/* Past a function's end, in the data after it: in no function. */
	ASSERT_TRUE(!s[5].found);
	unlink(path);
}

static void test_restricted(void)
{
	const char *path = write_file("0000000000000000 T _stext\n"
				      "0000000000000000 T io_schedule\n");
	uint64_t addr = 0xffffffff81001012;
	struct ksym s;

	ASSERT_EQ(ksyms_resolve(path, &addr, 1, &s), -EPERM);
	unlink(path);
	ASSERT_EQ(ksyms_resolve("/nonexistent/kallsyms", &addr, 1, &s), -ENOENT);
	path = write_file("2\n");
	ASSERT_EQ(ksyms_kptr_restrict(path), 2);
	unlink(path);
	path = write_file("x\n");
	ASSERT_EQ(ksyms_kptr_restrict(path), -EINVAL);
	unlink(path);
}

/* Real addresses of this kernel, a few bytes into functions, are found back by name. */
static void test_this_kernel(void)
{
	FILE *f = fopen(KSYMS_PATH, "re");
	char line[512], names[3][KSYMS_NAME_MAX + 8];
	uint64_t addr[3];
	struct ksym s[3];
	int n = 0;

	if (!f) {
		printf("SKIP: this kernel has no %s\n", KSYMS_PATH);
		return;
	}
	/* Three distinct well-known functions, so that an alias cannot stand in. */
	while (n < 3 && fgets(line, sizeof(line), f)) {
		static const char *const want[] = {"schedule", "io_schedule", "do_sys_poll"};
		unsigned long long a;
		char type, name[KSYMS_NAME_MAX];

		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3 || !a)
			continue;
		for (int i = 0; i < 3; i++)
			if (strcmp(name, want[i]) == 0 && (type == 'T' || type == 't')) {
				addr[n] = a + 4;
				snprintf(names[n], sizeof(names[n]), "%s+0x4/", name);
				n++;
			}
	}
	fclose(f);
	if (n == 0) {
		printf("SKIP: %s shows no addresses here (kptr_restrict)\n", KSYMS_PATH);
		return;
	}
	ASSERT_EQ(ksyms_resolve(KSYMS_PATH, addr, (size_t)n, s), n);
	for (int i = 0; i < n; i++) {
		char buf[256];

		ksym_text(&s[i], false, buf, sizeof(buf));
		ASSERT_TRUE(strncmp(buf, names[i], strlen(names[i])) == 0);
		ASSERT_TRUE(s[i].size > 4);
	}
}

/* Functions that named an address before name the addresses in them from the cache, not
 * the file, until the module list changes; symbols that come and go without a module (BPF)
 * and addresses not found are not kept. */
static void test_cached(void)
{
	uint64_t addr[] = {0xffffffff81001012, 0xffffffffc0001010, 0xffffffffc0100010,
			   0xffffffffc0300000};
	char *dir = new_dir(), syms[PATH_MAX], mods[PATH_MAX], buf[256];
	struct ksyms_cache *kc;
	struct ksym s[4];

	snprintf(syms, sizeof(syms), "%s",
		 test_write_file(dir, "kallsyms",
				 "ffffffff81000000 T _stext\n"
				 "ffffffff81001000 T io_schedule\n"
				 "ffffffff81002000 T _etext\n"
				 "ffffffffc0001000 t ext2_fsync\t[ext2]\n"
				 "ffffffffc0001200 t ext2_sync_file\t[ext2]\n"
				 "ffffffffc0100000 t bpf_prog_1234_handler\t[bpf]\n"
				 "ffffffffc0100100 t bpf_prog_5678_other\t[bpf]\n"));
	snprintf(mods, sizeof(mods), "%s",
		 test_write_file(
			 dir, "modules",
			 "ext2 90112 1 - Live 0xffffffffc0000000\n"
			 "lttng_tracer 3211264 5 lttng_probe_sched, Live 0xffffffffc0400000\n"));
	kc = ksyms_cache_new(syms, mods);
	ASSERT_TRUE(kc);
	ASSERT_EQ(ksyms_cache_resolve(kc, addr, 4, s), 3);
	ksym_text(&s[2], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "bpf_prog_1234_handler+0x10/0x100 [bpf]");
	/* Another kallsyms with the same module list (a use count moved): the kernel's and the
	 * module's names are the cache's; the BPF program's and the unnamed address are read. */
	test_write_file(dir, "kallsyms",
			"ffffffff81000000 T _stext\n"
			"ffffffff81001000 T renamed_io_schedule\n"
			"ffffffff81002000 T _etext\n"
			"ffffffffc0001000 t renamed_fsync\t[ext2]\n"
			"ffffffffc0001200 t ext2_sync_file\t[ext2]\n"
			"ffffffffc0100000 t bpf_prog_9abc_new\t[bpf]\n"
			"ffffffffc0100100 t bpf_prog_5678_other\t[bpf]\n"
			"ffffffffc02ff000 t newfn\t[ext2]\n"
			"ffffffffc0300100 t end\t[ext2]\n");
	test_write_file(dir, "modules",
			"ext2 90112 2 - Live 0xffffffffc0000000\n"
			"lttng_tracer 3211264 7 lttng_probe_sched, Live 0xffffffffc0400000\n");
	ASSERT_EQ(ksyms_cache_resolve(kc, addr, 4, s), 4);
	ksym_text(&s[0], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "io_schedule+0x12/0x1000");
	ksym_text(&s[1], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "ext2_fsync+0x10/0x200 [ext2]");
	ksym_text(&s[2], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "bpf_prog_9abc_new+0x10/0x100 [bpf]");
	ksym_text(&s[3], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "newfn+0x1000/0x1100 [ext2]");
	/* Elsewhere in a function kept (a preempted call's top frame moves): the cache's. */
	ASSERT_EQ(ksyms_cache_resolve(kc, (uint64_t[]){0xffffffff81001abc}, 1, s), 1);
	ksym_text(&s[0], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "io_schedule+0xabc/0x1000");
	/* A module unloaded and another loaded: everything is read again. */
	test_write_file(dir, "modules",
			"ext4 90112 1 - Live 0xffffffffc0000000\n"
			"lttng_tracer 3211264 7 lttng_probe_sched, Live 0xffffffffc0400000\n");
	ASSERT_EQ(ksyms_cache_resolve(kc, addr, 4, s), 4);
	ksym_text(&s[0], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "renamed_io_schedule+0x12/0x1000");
	ksym_text(&s[1], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "renamed_fsync+0x10/0x200 [ext2]");
	/* A symbol followed by a gap (a module's last): its extent is not kept, a BPF program
	 * may be put in the gap later. */
	test_write_file(dir, "kallsyms",
			"ffffffffc0310000 t lastfn\t[ext2]\n"
			"ffffffffc0400000 t next_module_fn\t[ext4]\n");
	ASSERT_EQ(ksyms_cache_resolve(kc, (uint64_t[]){0xffffffffc0310010}, 1, s), 1);
	test_write_file(dir, "kallsyms",
			"ffffffffc0310000 t lastfn\t[ext2]\n"
			"ffffffffc0320000 t bpf_prog_feed_handler\t[bpf]\n"
			"ffffffffc0400000 t next_module_fn\t[ext4]\n");
	ASSERT_EQ(ksyms_cache_resolve(kc, (uint64_t[]){0xffffffffc0320010}, 1, s), 1);
	ksym_text(&s[0], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "bpf_prog_feed_handler+0x10/0xe0000 [bpf]");
	/* No module list to watch: nothing is kept, each call reads the file. */
	unlink(mods);
	test_write_file(dir, "kallsyms",
			"ffffffff81000000 T _stext\n"
			"ffffffff81001000 T second_name\n"
			"ffffffff81002000 T _etext\n");
	ASSERT_EQ(ksyms_cache_resolve(kc, addr, 1, s), 1);
	test_write_file(dir, "kallsyms",
			"ffffffff81000000 T _stext\n"
			"ffffffff81001000 T third_name\n"
			"ffffffff81002000 T _etext\n");
	ASSERT_EQ(ksyms_cache_resolve(kc, addr, 1, s), 1);
	ksym_text(&s[0], false, buf, sizeof(buf));
	ASSERT_STREQ(buf, "third_name+0x12/0x1000");
	/* Errors are ksyms_resolve()'s. */
	unlink(syms);
	ASSERT_EQ(ksyms_cache_resolve(kc, addr, 1, s), -ENOENT);
	ksyms_cache_free(kc);
	remove_dir(dir);
}

/* More functions than the cache keeps: it starts over, every name stays right. */
static void test_cache_full(void)
{
	enum { N = 1300 };
	static char text[N * 48 + 64];
	static uint64_t addr[N];
	static struct ksym s[N];
	struct ksyms_cache *kc;
	char *dir = new_dir(), syms[PATH_MAX], mods[PATH_MAX], buf[256], want[64];
	size_t len = 0;

	for (int i = 0; i < N; i++) {
		addr[i] = 0xffffffff81000000 + (uint64_t)i * 0x100;
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%" PRIx64 " T f%d\n",
					addr[i], i);
		addr[i] += 0x10;
	}
	snprintf(text + len, sizeof(text) - len, "%" PRIx64 " T _etext\n",
		 0xffffffff81000000 + (uint64_t)N * 0x100);
	snprintf(syms, sizeof(syms), "%s", test_write_file(dir, "kallsyms", text));
	snprintf(mods, sizeof(mods), "%s",
		 test_write_file(dir, "modules", "ext2 90112 1 - Live 0xffffffffc0000000\n"));
	kc = ksyms_cache_new(syms, mods);
	ASSERT_TRUE(kc);
	for (int round = 0; round < 2; round++) {
		/* In reverse: each function goes in at the front. */
		for (int i = N - 1; i >= 0; i--)
			ASSERT_EQ(ksyms_cache_resolve(kc, &addr[i], 1, &s[i]), 1);
		ASSERT_EQ(ksyms_cache_resolve(kc, addr, N, s), N);
		for (int i = 0; i < N; i++) {
			ksym_text(&s[i], false, buf, sizeof(buf));
			snprintf(want, sizeof(want), "f%d+0x10/0x100", i);
			ASSERT_STREQ(buf, want);
		}
	}
	ksyms_cache_free(kc);
	remove_dir(dir);
}

int main(void)
{
	test_written();
	test_cached();
	test_cache_full();
	test_restricted();
	test_this_kernel();
	printf("ksyms: ok\n");
	return 0;
}
