/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * many-streams DIR N: a snapshot of one trace (DIR/kernel) in N stream files, one per CPU,
 * each with one sched_switch (ctf.h): more files than a process starts with descriptors.
 */
#include <stdlib.h>

#include "ctf.h"

int main(int argc, char **argv)
{
	static const char *const dirs[] = {"kernel", NULL};
	char kernel[256], name[32]; /* ctf.h's paths are 512 bytes: DIR/kernel/NAME fits */
	unsigned long n;

	if (argc != 3 || (n = strtoul(argv[2], NULL, 10)) == 0 || n > 8192 ||
	    strlen(argv[1]) > 200) {
		fprintf(stderr,
			"usage: many-streams DIR N (DIR of 200 bytes at most, N 1 to 8192)\n");
		return 2;
	}
	ASSERT_EQ(mkdir(argv[1], 0755), 0);
	ctf_mkdirs(argv[1], dirs);
	snprintf(kernel, sizeof(kernel), "%s/kernel", argv[1]);
	ctf_trace_dir(kernel);
	for (unsigned long i = 0; i < n; i++) {
		uint64_t ts = 1000 + i;

		snprintf(name, sizeof(name), "flight_%lu", i);
		ctf_stream(kernel, name, (uint32_t)i, &ts, 1);
	}
	return 0;
}
