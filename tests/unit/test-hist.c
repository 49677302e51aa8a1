// SPDX-License-Identifier: GPL-2.0-only
/*
 * proto's histograms (hist.c, hist_codec.c): bucket bounds, percentiles from buckets (the
 * nearest rank, said as the bucket's upper bound), the codec read back, and the difference
 * of two reads that --interval prints.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

#include "proto.h"
#include "tests.h"

static void test_bounds(void)
{
	ASSERT_EQ(proto_hist_lower_ns(0), 0);
	ASSERT_EQ(proto_hist_upper_ns(0), 2);
	ASSERT_EQ(proto_hist_lower_ns(1), 2);
	ASSERT_EQ(proto_hist_lower_ns(12), 4096);
	ASSERT_EQ(proto_hist_upper_ns(12), 8192);
	ASSERT_TRUE(proto_hist_upper_ns(63) == UINT64_MAX);
	ASSERT_EQ(proto_hist_bucket(0), 0);
	ASSERT_EQ(proto_hist_bucket(2), 1);
	ASSERT_EQ(proto_hist_bucket(4096), 12);
	ASSERT_EQ(proto_hist_bucket((uint64_t)1 << 63), 63);
	ASSERT_EQ(proto_hist_bucket(1), -EINVAL); /* bucket 0 says 0 */
	ASSERT_EQ(proto_hist_bucket(3), -EINVAL);
	ASSERT_EQ(proto_hist_bucket(4000), -EINVAL);
}

static void test_percentile_empty(void)
{
	uint64_t counts[PROTO_HIST_BUCKETS] = {0}, upper = 7;

	ASSERT_EQ(proto_hist_percentile(counts, 500, &upper), -ENODATA);
	ASSERT_EQ(upper, 7);
	counts[3] = 1;
	ASSERT_EQ(proto_hist_percentile(counts, 0, &upper), -EINVAL);
	ASSERT_EQ(proto_hist_percentile(counts, 1001, &upper), -EINVAL);
}

static void test_percentile_one_bucket(void)
{
	uint64_t counts[PROTO_HIST_BUCKETS] = {0}, upper = 0;
	static const unsigned ps[] = {1, 500, 900, 990, 1000};

	counts[20] = 3;
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		ASSERT_EQ(proto_hist_percentile(counts, ps[i], &upper), 20);
		ASSERT_EQ(upper, 2097152);
	}
	memset(counts, 0, sizeof(counts));
	counts[0] = 1; /* [0, 2): its bound is 2, not 0 */
	ASSERT_EQ(proto_hist_percentile(counts, 500, &upper), 0);
	ASSERT_EQ(upper, 2);
}

/* 99 fast and 1 slow: p99 is the 99th delay (fast), max the slow one; 98 fast and 2 slow:
 * p99 is slow. The last bucket's p99 only when it holds the rank. */
static void test_percentile_last_bucket(void)
{
	uint64_t counts[PROTO_HIST_BUCKETS] = {0}, upper = 0;

	counts[10] = 99;
	counts[30] = 1;
	ASSERT_EQ(proto_hist_percentile(counts, 990, &upper), 10);
	ASSERT_EQ(upper, 2048);
	ASSERT_EQ(proto_hist_percentile(counts, 1000, &upper), 30);
	ASSERT_EQ(upper, (uint64_t)1 << 31);
	counts[10] = 98;
	counts[30] = 2;
	ASSERT_EQ(proto_hist_percentile(counts, 990, &upper), 30);
	/* Bucket 63: its bound is the largest value. */
	counts[63] = 1000;
	ASSERT_EQ(proto_hist_percentile(counts, 990, &upper), 63);
	ASSERT_TRUE(upper == UINT64_MAX);
}

/* The rank is ceil(p * n): of 3 delays, p50 is the 2nd, p90 and p99 the 3rd; of 10, p90 is
 * the 9th exactly (no rounding up past it). */
static void test_percentile_rank_rounding(void)
{
	uint64_t counts[PROTO_HIST_BUCKETS] = {0}, upper = 0;

	counts[1] = 1;
	counts[2] = 1;
	counts[3] = 1;
	ASSERT_EQ(proto_hist_percentile(counts, 500, &upper), 2);
	ASSERT_EQ(proto_hist_percentile(counts, 900, &upper), 3);
	ASSERT_EQ(proto_hist_percentile(counts, 1, &upper), 1); /* at least the first */
	memset(counts, 0, sizeof(counts));
	counts[5] = 9;
	counts[6] = 1;
	ASSERT_EQ(proto_hist_percentile(counts, 900, &upper), 5);
	ASSERT_EQ(proto_hist_percentile(counts, 901, &upper), 6);
	ASSERT_EQ(proto_hist_percentile(counts, 500, &upper), 5);
}

/* Counts near 2^64: the rank computed without wrapping, the total saturating. */
static void test_percentile_huge(void)
{
	uint64_t counts[PROTO_HIST_BUCKETS] = {0}, upper = 0;

	counts[4] = UINT64_MAX / 2;
	counts[8] = UINT64_MAX / 2;
	ASSERT_EQ(proto_hist_percentile(counts, 500, &upper), 4);
	ASSERT_EQ(proto_hist_percentile(counts, 501, &upper), 8);
	ASSERT_EQ(proto_hist_percentile(counts, 990, &upper), 8);
	counts[9] = UINT64_MAX;
	ASSERT_TRUE(proto_hist_total(counts) == UINT64_MAX);
	ASSERT_EQ(proto_hist_percentile(counts, 1000, &upper), 9);
}

static void sample(struct proto_hist *h)
{
	memset(h, 0, sizeof(*h));
	strcpy(h->tracker, "block");
	strcpy(h->per, "disk");
	h->since_ns = 1000;
	h->now_ns = 5000000000;
	h->keys_since_ns = 2000;
	h->counts[12] = 10;
	h->counts[20] = 5;
	h->nkeys = 2;
	strcpy(h->keys[0].key, "253:0");
	strcpy(h->keys[0].name, "vda");
	h->keys[0].counts[12] = 10;
	strcpy(h->keys[1].key, "other");
	h->keys[1].counts[20] = 5;
}

static void test_codec(void)
{
	struct proto_hist *h = calloc(2, sizeof(*h)), *back = h + 1;
	struct json_object *o = NULL, *v;
	struct proto_error err;

	sample(h);
	ASSERT_EQ(proto_hist_to_json(h, &o), 0);
	ASSERT_TRUE(json_object_object_get_ex(o, "count", &v) && json_object_get_int64(v) == 15);
	ASSERT_TRUE(json_object_object_get_ex(o, "percentiles", &v));
	ASSERT_STREQ(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
		     "{\"p50\":8192,\"p90\":2097152,\"p99\":2097152,\"max\":2097152}");
	ASSERT_TRUE(json_object_object_get_ex(o, "buckets", &v));
	ASSERT_STREQ(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
		     "[{\"lower_ns\":4096,\"upper_ns\":8192,\"count\":10},"
		     "{\"lower_ns\":1048576,\"upper_ns\":2097152,\"count\":5}]");
	ASSERT_EQ(proto_hist_from_json(o, back, &err), 0);
	ASSERT_EQ(memcmp(h, back, sizeof(*h)), 0);
	json_object_put(o);

	o = json_tokener_parse("{\"tracker\":\"block\",\"since_ns\":1,\"now_ns\":2,"
			       "\"buckets\":[{\"lower_ns\":3,\"count\":1}]}");
	ASSERT_EQ(proto_hist_from_json(o, back, &err), -EINVAL);
	ASSERT_CONTAINS(err.message, "3 is no bucket's lower bound");
	json_object_put(o);
	o = json_tokener_parse("{\"tracker\":\"block\",\"now_ns\":2,\"buckets\":[]}");
	ASSERT_EQ(proto_hist_from_json(o, back, &err), -EINVAL);
	ASSERT_CONTAINS(err.message, "since_ns");
	json_object_put(o);
	free(h);
}

static void test_delta(void)
{
	struct proto_hist *h = calloc(2, sizeof(*h)), *prev = h + 1;

	sample(prev);
	sample(h);
	h->now_ns = 7000000000;
	h->counts[12] = 13;
	h->counts[21] = 2;
	h->keys[0].counts[12] = 13;
	proto_hist_delta(h, prev);
	ASSERT_EQ(h->since_ns, 5000000000);
	ASSERT_EQ(h->counts[12], 3);
	ASSERT_EQ(h->counts[20], 0);
	ASSERT_EQ(h->counts[21], 2);
	ASSERT_EQ(h->keys[0].counts[12], 3);
	ASSERT_EQ(h->keys[1].counts[20], 0);

	/* A reset in between: the read is shown as it is, over its own interval. */
	sample(h);
	h->since_ns = 6000000000;
	h->now_ns = 7000000000;
	h->counts[12] = 1;
	proto_hist_delta(h, prev);
	ASSERT_EQ(h->since_ns, 6000000000);
	ASSERT_EQ(h->counts[12], 1);
	ASSERT_EQ(h->counts[20], 5);

	/* The split changed (or was reset) alone: the keys as they are, the whole subtracted. */
	sample(h);
	h->now_ns = 7000000000;
	h->counts[12] = 11;
	h->keys_since_ns = 6000000000;
	h->keys[0].counts[12] = 1;
	proto_hist_delta(h, prev);
	ASSERT_EQ(h->counts[12], 1);
	ASSERT_EQ(h->since_ns, 5000000000);
	ASSERT_EQ(h->keys[0].counts[12], 1);
	ASSERT_EQ(h->keys_since_ns, 6000000000);
	free(h);
}

int main(void)
{
	RUN(test_bounds);
	RUN(test_percentile_empty);
	RUN(test_percentile_one_bucket);
	RUN(test_percentile_last_bucket);
	RUN(test_percentile_rank_rounding);
	RUN(test_percentile_huge);
	RUN(test_codec);
	RUN(test_delta);
	return 0;
}
