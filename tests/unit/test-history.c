// SPDX-License-Identifier: GPL-2.0-only
/*
 * The history window: the paper's equation and the per-stream aggregation (which streams
 * limit the window, which one fills its buffer fastest). The reading is tested in
 * test-snapshot-read.c, and on real snapshots against lttng-sessiond in
 * tests/host/test-history.sh.
 */
#include <string.h>

#include "history.h"
#include "tests.h"

#define MS 1000000LL
#define S  1000000000LL

static struct history_stream stream(int cpu, uint64_t events, uint64_t bytes, int64_t first,
				    int64_t last)
{
	struct history_stream s = {.cpu = cpu, .events = events, .bytes = bytes};

	s.first_ns = first;
	s.last_ns = last;
	strcpy(s.channel, "flight");
	return s;
}

static void test_equation(void)
{
	/* The paper's example: 4 x 256 KiB per CPU, 60 bytes/event. */
	ASSERT_EQ(history_expected_ns(1048576, 60, 1000), 17476266667);
	/* Twice the rate, half the window; twice the buffer, twice the window. */
	ASSERT_EQ(history_expected_ns(1048576, 60, 2000), 8738133333);
	ASSERT_EQ(history_expected_ns(2097152, 60, 2000), 17476266667);
	ASSERT_EQ(history_expected_ns(1048576, 0, 1000), 0);
	ASSERT_EQ(history_expected_ns(1048576, 60, 0), 0);
}

/* Both buffers full: the window is the shortest span, the rate that of the busiest CPU. */
static void test_wrapped(void)
{
	struct history_stream s[] = {
		stream(0, 1000, 16384, 10 * S, 10 * S + 800 * MS),
		stream(1, 500, 16384, 10 * S, 11 * S),
	};
	struct history h = {.streams = s, .n = 2};

	history_summarize(&h, 16384, 4096);
	ASSERT_TRUE(h.wrapped);
	ASSERT_EQ(h.window_ns, 800 * MS);
	ASSERT_EQ(h.events, 1500);
	ASSERT_EQ(h.bytes, 32768);
	ASSERT_EQ(h.busiest, 0);
	ASSERT_EQ((long long)(h.events_per_sec + 0.5), 1250);
	ASSERT_EQ((long long)(h.bytes_per_event * 1000 + 0.5), 16384);
	/* The equation on the busiest CPU gives back its span when its buffer is full. */
	ASSERT_EQ(history_expected_ns(16384, h.bytes_per_event, h.events_per_sec), 800 * MS);
}

/*
 * An idle CPU whose buffer is nearly empty lost nothing: it does not limit the window,
 * however short its span. With no buffer full, the longest span is the window.
 */
static void test_not_wrapped(void)
{
	struct history_stream s[] = {
		stream(0, 3, 4096, 20 * S - 10 * MS, 20 * S),
		stream(1, 900, 16384, 18 * S, 20 * S),
		stream(2, 0, 4096, 0, 0),
	};
	struct history h = {.streams = s, .n = 3};

	history_summarize(&h, 16384, 4096);
	ASSERT_TRUE(h.wrapped);
	ASSERT_EQ(h.window_ns, 2 * S);

	s[1].bytes = 12288; /* one sub-buffer still unused: nothing was overwritten yet */
	history_summarize(&h, 16384, 4096);
	ASSERT_TRUE(!h.wrapped);
	ASSERT_EQ(h.window_ns, 2 * S);
	ASSERT_EQ(h.busiest, 0); /* 4096 bytes in 10 ms fills a buffer fastest */
	ASSERT_EQ(h.events, 903);
}

static void test_no_events(void)
{
	struct history_stream s[] = {stream(0, 0, 4096, 0, 0), stream(1, 1, 4096, S, S)};
	struct history h = {.streams = s, .n = 2};

	history_summarize(&h, 16384, 4096);
	ASSERT_EQ(h.window_ns, 0);
	ASSERT_EQ(h.busiest, -1);
	ASSERT_EQ(history_expected_ns(16384, h.bytes_per_event, h.events_per_sec), 0);
}

/*
 * The names channel (the block devices' names, from the session's start) is neither
 * history nor load: a burst of its events an hour ago changes neither the window nor the
 * busiest CPU.
 */
static void test_names_left_out(void)
{
	struct history_stream s[] = {
		stream(0, 900, 12288, 18 * S, 20 * S),
		stream(0, 200, 16384, 20 * S - 3600 * S, 20 * S - 3600 * S + 2 * MS),
	};
	struct history h = {.streams = s, .n = 2};

	strcpy(s[1].channel, HISTORY_NAMES_CHANNEL);
	history_summarize(&h, 16384, 4096);
	ASSERT_TRUE(!h.wrapped);
	ASSERT_EQ(h.window_ns, 2 * S);
	ASSERT_EQ(h.busiest, 0);
	ASSERT_EQ(h.events, 900);
}

/* A stream's span, which the catalog lists per stream: first to last event, 0 for one. */
static void test_span(void)
{
	struct history_stream s[] = {stream(1, 10, 8192, 5 * S, 6 * S), stream(2, 1, 64, S, S)};

	ASSERT_EQ(history_span(&s[0]), S);
	ASSERT_EQ(history_span(&s[1]), 0);
}

int main(void)
{
	RUN(test_equation);
	RUN(test_wrapped);
	RUN(test_not_wrapped);
	RUN(test_no_events);
	RUN(test_names_left_out);
	RUN(test_span);
	return 0;
}
