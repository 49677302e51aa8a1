/* SPDX-License-Identifier: GPL-2.0-only */
/* proto/duration.c: durations typed by people ("1.5ms") and printed for them ("500µs"). */
#include <errno.h>
#include <stdint.h>

#include "proto.h"
#include "tests.h"

static void ok(const char *s, uint64_t want)
{
	const char *why = NULL;
	uint64_t ns = 0;

	if (proto_duration_parse(s, &ns, &why) != 0 || ns != want) {
		fprintf(stderr, "parse '%s': %llu (%s), expected %llu\n", s, (unsigned long long)ns,
			why ? why : "ok", (unsigned long long)want);
		abort();
	}
}

static void bad(const char *s, int want_err, const char *want_why)
{
	const char *why = NULL;
	uint64_t ns = 12345;

	ASSERT_EQ(proto_duration_parse(s, &ns, &why), want_err);
	ASSERT_EQ(ns, 12345);
	ASSERT_TRUE(why && strstr(why, want_why));
}

static void fmt(uint64_t ns, const char *want)
{
	char buf[32];

	ASSERT_EQ(proto_duration_format(buf, sizeof(buf), ns), strlen(want));
	ASSERT_STREQ(buf, want);
}

static void test_parse(void)
{
	ok("10ms", 10000000);
	ok("500us", 500000);
	ok("500\xc2\xb5s", 500000);
	ok("2s", 2000000000);
	ok("1.5ms", 1500000);
	ok("250ns", 250);
	ok("0s", 0);
	ok("0ns", 0);
	ok("0.000000001s", 1);
	ok("1.25us", 1250);
	ok("18446744073709551615ns", UINT64_MAX);
	ok("18446744073s", 18446744073000000000ULL);
	/* The one grammar: minutes, hours, days, and 0 without a unit (nothing is nothing). */
	ok("1min", 60000000000ULL);
	ok("5m", 300000000000ULL);
	ok("2h", 7200000000000ULL);
	ok("1.5h", 5400000000000ULL);
	ok("1d", 86400000000000ULL);
	ok("0", 0);
	/* Many decimals of a large unit: their product alone would pass 2^64. */
	ok("0.213504d", 18446745600000ULL);
	ok("0.123456789d", 10666666569600ULL);
	ok("0.6000000h", 2160000000000ULL);
	ok("0.999999999min", 59999999940ULL);
	bad("0.0000000001d", -EINVAL, "too many decimals");

	bad("10", -EINVAL, "a unit is required");
	bad("1.5", -EINVAL, "a unit is required");
	bad("", -EINVAL, "empty");
	bad(NULL, -EINVAL, "empty");
	bad("ms", -EINVAL, "starts with a number");
	bad("-1ms", -EINVAL, "starts with a number");
	bad(" 1ms", -EINVAL, "starts with a number");
	bad("1 ms", -EINVAL, "unknown unit");
	bad("1mins", -EINVAL, "unknown unit");
	bad("1w", -EINVAL, "use ns, us, ms, s, min (or m), h or d");
	bad("00.5", -EINVAL, "a unit is required");
	bad("1msx", -EINVAL, "unknown unit");
	/* A sum of units is not read: said so, with the forms that are. */
	bad("1h30min", -EINVAL, "one number and one unit: 90min or 1.5h, not 1h30min");
	bad("1m30s", -EINVAL, "one number and one unit");
	bad("2min5s", -EINVAL, "one number and one unit");
	bad("1.5ms250us", -EINVAL, "one number and one unit");
	bad("1\xc2\xb5s5ns", -EINVAL, "one number and one unit");
	bad("1d2", -EINVAL, "one number and one unit");
	bad("1h30", -EINVAL, "one number and one unit");
	bad("1x30min", -EINVAL, "unknown unit");
	bad("1.ms", -EINVAL, "decimal point");
	bad("1.5ns", -EINVAL, "finer than a nanosecond");
	bad("1.0000000001s", -EINVAL, "too many decimals");
	bad("18446744073709551616ns", -ERANGE, "too large");
	bad("18446744074s", -ERANGE, "too large");
	bad("99999999999999999999s", -ERANGE, "too large");
}

static void test_format(void)
{
	char small[4];

	fmt(0, "0ns");
	fmt(250, "250ns");
	fmt(999, "999ns");
	fmt(1000, "1\xc2\xb5s");
	fmt(500000, "500\xc2\xb5s");
	fmt(1500, "1.5\xc2\xb5s");
	fmt(1500000, "1.5ms");
	fmt(10000000, "10ms");
	fmt(1234567, "1.235ms");
	fmt(999999999, "1000ms");
	fmt(2000000000, "2s");
	fmt(61500000000ULL, "61.5s");
	fmt(60000000000ULL, "1min");
	fmt(90000000000ULL, "90s");
	fmt(3600000000000ULL, "1h");
	fmt(5400000000000ULL, "90min");
	fmt(172800000000000ULL, "2d");
	/* Round trip: what is printed parses back to the same value when exact. */
	for (uint64_t ns = 1; ns < 20000000000ULL; ns = ns * 7 + 3) {
		char buf[32];
		uint64_t back;

		proto_duration_format(buf, sizeof(buf), ns);
		ASSERT_EQ(proto_duration_parse(buf, &back, NULL), 0);
		ASSERT_TRUE(back <= ns + ns / 1000 && back + ns / 1000 >= ns);
	}
	/* Truncated like snprintf. */
	ASSERT_EQ(proto_duration_format(small, sizeof(small), 1500000), 5);
	ASSERT_STREQ(small, "1.5");
}

static void fmt_unit(uint64_t ns, const char *typed, const char *want)
{
	char buf[32];

	ASSERT_EQ(proto_duration_format_unit(buf, sizeof(buf), ns, typed), strlen(want));
	ASSERT_STREQ(buf, want);
}

/* A range in the unit the value it refuses was typed in, when exact and short there. */
static void test_format_unit(void)
{
	char small[4];

	fmt_unit(1000, "7200000ms", "0.001ms");
	fmt_unit(3600000000000ULL, "7200000ms", "3600000ms");
	fmt_unit(1000, "2h", "1\xc2\xb5s"); /* 2.7e-10h: the natural unit */
	fmt_unit(3600000000000ULL, "2h", "1h");
	fmt_unit(3600000000000ULL, "1.5h", "1h");
	fmt_unit(3600000000000ULL, "90min", "60min");
	fmt_unit(3600000000000ULL, "120m", "60m"); /* as typed: m, not min */
	fmt_unit(1000000, "0.5s", "0.001s");
	fmt_unit(1000, "0.5s", "0.000001s"); /* six decimals */
	fmt_unit(100, "0.5s", "100ns");	     /* seven: the natural unit */
	fmt_unit(1000000, "500us", "1000us");
	fmt_unit(1000000, "500\xc2\xb5s", "1000\xc2\xb5s");
	fmt_unit(1000, "5000000000000ns", "1000ns");
	fmt_unit(43200000000000ULL, "2d", "0.5d");
	fmt_unit(3600000000000ULL, "2d", "1h"); /* 0.041666...d */
	fmt_unit(0, "5ms", "0ms");
	/* No unit typed, or not a duration: the natural unit. */
	fmt_unit(1000000, "0", "1ms");
	fmt_unit(1000000, "", "1ms");
	fmt_unit(1000000, NULL, "1ms");
	fmt_unit(1000000, "10 ms", "1ms");
	fmt_unit(1000000, "xyz", "1ms");
	/* Truncated like snprintf. */
	ASSERT_EQ(proto_duration_format_unit(small, sizeof(small), 1000, "7ms"), 7);
	ASSERT_STREQ(small, "0.0");
}

int main(void)
{
	test_parse();
	test_format();
	test_format_unit();
	return 0;
}
