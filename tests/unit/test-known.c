/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * client/known.c: show-snapshot's reply as what the analysis is told latencyd knew: the
 * disks it could read, the stack of each cause that has one, with the alert it belongs to.
 */
#include <errno.h>

#include <json-c/json.h>

#include "known.h"
#include "tests.h"

static const char reply[] =
	"{\"id\": 3, \"status\": \"complete\","
	" \"disks\": {\"254:0\": \"vda\", \"sda\": \"not a MAJ:MIN\", \"8:16\": \"sdb\"},"
	" \"causes\": ["
	"  {\"tracker\": \"offcpu\", \"reason\": \"threshold\", \"seq\": 7,"
	"   \"stack\": {\"kind\": \"task\", \"frames\": [\"wait_woken+0x6c/0xa0\", \"?\"]}},"
	"  {\"tracker\": \"offcpu\", \"reason\": \"threshold\", \"seq\": 8},"
	"  {\"tracker\": \"wakeup\", \"reason\": \"timeout\", \"seq\": 9,"
	"   \"stack\": {\"kind\": \"waker\", \"frames\": [\"schedule+0x1/0x2\"], \"future\": 1}}"
	" ]}";

static void test_reply(void)
{
	struct json_object *o = json_tokener_parse(reply);
	struct snapshot_known k = {0};
	const struct an_known_stack *s;

	ASSERT_TRUE(o);
	ASSERT_EQ(snapshot_known_read(&k, o), 0);
	json_object_put(o); /* the entry decoded owns what an_known points to */
	ASSERT_EQ(k.known.n_disks, 2);
	ASSERT_EQ(k.known.disks[0].dev, 254U << 20);
	ASSERT_STREQ(k.known.disks[0].name, "vda");
	ASSERT_EQ(k.known.disks[1].dev, 8U << 20 | 16);
	ASSERT_STREQ(k.known.disks[1].name, "sdb");
	ASSERT_EQ(k.known.n_stacks, 2);
	s = &k.known.stacks[0];
	ASSERT_STREQ(s->tracker, "offcpu");
	ASSERT_EQ(s->seq, 7);
	ASSERT_STREQ(s->kind, "task");
	ASSERT_EQ(s->n_frames, 2);
	ASSERT_STREQ(s->frames[0], "wait_woken+0x6c/0xa0");
	s = &k.known.stacks[1];
	ASSERT_STREQ(s->tracker, "wakeup");
	ASSERT_EQ(s->seq, 9);
	ASSERT_STREQ(s->kind, "waker");
	ASSERT_STREQ(s->frames[0], "schedule+0x1/0x2");
	snapshot_known_free(&k);
	ASSERT_EQ(k.known.n_stacks, 0);
}

/* Not an entry: nothing known, and freeing it is still right. */
static void test_not_an_entry(void)
{
	struct json_object *o = json_object_new_array();
	struct snapshot_known k = {0};

	ASSERT_EQ(snapshot_known_read(&k, o), -EINVAL);
	ASSERT_EQ(k.known.n_disks + k.known.n_stacks, 0);
	snapshot_known_free(&k);
	json_object_put(o);
}

int main(void)
{
	RUN(test_reply);
	RUN(test_not_an_entry);
	return 0;
}
