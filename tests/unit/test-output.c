/* SPDX-License-Identifier: GPL-2.0-only */
/* client/output_text.c: durations print with their two most significant units. */
#include "latencyctl.h"
#include "tests.h"

static void check(uint64_t usec, const char *expected)
{
	char buf[64];

	ASSERT_EQ(format_duration(buf, sizeof(buf), usec), strlen(expected));
	ASSERT_STREQ(buf, expected);
}

static void test_durations(void)
{
	char small[4];

	check(0, "0s");
	check(999, "0s");
	check(1000, "1ms");
	check(250000, "250ms");
	check(1000000, "1s");
	check(1500000, "1s");
	check(59000000, "59s");
	check(60000000, "1min");
	check(61000000, "1min 1s");
	check(3600000000ULL, "1h");
	check(3600000000ULL + 120000000ULL + 5000000ULL, "1h 2min");
	check(86400000000ULL * 3 + 3600000000ULL * 4, "3d 4h");
	check(86400000000ULL + 5000000ULL, "1d 5s");

	/* Truncation is safe and reports the length it wanted. */
	ASSERT_EQ(format_duration(small, sizeof(small), 61000000), strlen("1min 1s"));
	ASSERT_EQ(strlen(small), 3);
}

int main(void)
{
	RUN(test_durations);
	return 0;
}
