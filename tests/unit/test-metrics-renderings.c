// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metrics texts kept for reads in parts (manager/metrics.c): a read's rendering is its
 * reader's alone, by user: another user can neither read it nor end it, nor push it out by
 * reading much; ids are random; a user past its quota gives up its own oldest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "manager.h"
#include "metrics.h"
#include "tests.h"

static uint64_t keep(struct manager *m, uid_t owner, const char *text)
{
	uint64_t id = 0;

	ASSERT_EQ(manager_metrics_keep(m, owner, strdup(text), &id), 0);
	ASSERT_TRUE(id != 0 && id < UINT64_C(1) << 53);
	return id;
}

static bool kept(struct manager *m, uid_t owner, uint64_t id, const char *want)
{
	const char *text;

	return manager_metrics_kept(m, owner, id, &text) == 0 && strcmp(text, want) == 0;
}

static void test_owner_only(void)
{
	struct manager m = {0};
	uint64_t a = keep(&m, 0, "root's"), b = keep(&m, 65534, "nobody's");

	ASSERT_TRUE(a != b && a + 1 != b);
	ASSERT_TRUE(kept(&m, 0, a, "root's"));
	ASSERT_TRUE(!kept(&m, 65534, a, "root's"));
	manager_metrics_forget(&m, 65534, a);
	ASSERT_TRUE(kept(&m, 0, a, "root's"));
	manager_metrics_forget(&m, 0, a);
	ASSERT_TRUE(!kept(&m, 0, a, "root's"));
	ASSERT_TRUE(kept(&m, 65534, b, "nobody's"));
	manager_metrics_paged_free(&m);
}

static void test_quota(void)
{
	struct manager m = {0};
	uint64_t ids[METRICS_RENDERINGS_PER_USER + 1], root = keep(&m, 0, "root's");
	char text[32];

	for (int i = 0; i <= METRICS_RENDERINGS_PER_USER; i++) {
		snprintf(text, sizeof(text), "nobody's %d", i);
		ids[i] = keep(&m, 65534, text);
	}
	/* Its ninth pushed out its own first, never root's. */
	ASSERT_TRUE(kept(&m, 0, root, "root's"));
	ASSERT_TRUE(!kept(&m, 65534, ids[0], "nobody's 0"));
	for (int i = 1; i <= METRICS_RENDERINGS_PER_USER; i++) {
		snprintf(text, sizeof(text), "nobody's %d", i);
		ASSERT_TRUE(kept(&m, 65534, ids[i], text));
	}
	/* Users enough to fill every place: the oldest goes, whoever's. */
	for (uid_t u = 1000; u < 1000 + METRICS_RENDERINGS_MAX; u++)
		keep(&m, u, "another's");
	ASSERT_TRUE(!kept(&m, 0, root, "root's"));
	manager_metrics_paged_free(&m);
}

int main(void)
{
	RUN(test_owner_only);
	RUN(test_quota);
	return 0;
}
