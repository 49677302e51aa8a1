/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The session in its slot (session.c) when it cannot be created again: a re-size by
 * session.history or a reload destroys the session first, so a failure leaves none, and
 * the check must come back to create it, with the sub-buffers of the session it had. The
 * session fails here before any call to lttng-sessiond (its relayd URL does not parse), so
 * whether one runs on this machine does not matter. Each operation is the sessiond
 * worker's: the caller returns at once, the result comes through the event loop.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "fsutil.h"
#include "history.h"
#include "recorder_internal.h"
#include "tests.h"

static void set_string(char **field, const char *value)
{
	free(*field);
	*field = strdup(value);
	ASSERT_TRUE(*field);
}

static struct conf *conf_for(const char *dir)
{
	struct conf *c;

	ASSERT_EQ(conf_new_defaults(&c), 0);
	set_string(&c->session.name, "test-session");
	set_string(&c->output.directory, dir);
	set_string(&c->output.relayd, "not a url");
	c->session.domain = CONF_DOMAIN_USERSPACE;
	c->session.subbuf_size = 4096;
	c->session.num_subbuf = 4;
	c->session.history_ns = 10 * 1000000000ull;
	return c;
}

/* Whether the check runs: as if sessiond's exit were watched, it is off before each case. */
static bool check_on(struct session *se)
{
	int state = SD_EVENT_OFF;

	ASSERT_TRUE(sd_event_source_get_enabled(se->check, &state) >= 0);
	return state != SD_EVENT_OFF;
}

/* A session started on its configuration c, and changed, the one a reload brings. */
struct fixture {
	char dir[32];
	struct conf *c, *changed;
	struct session se;
	sd_event *event;
};

static void fixture_up(struct fixture *f)
{
	snprintf(f->dir, sizeof(f->dir), "/tmp/test-session.XXXXXX");
	ASSERT_TRUE(mkdtemp(f->dir));
	f->c = conf_for(f->dir);
	f->changed = conf_for(f->dir);
	f->changed->output.max_size = 1 << 20;
	ASSERT_EQ(sd_event_new(&f->event), 0);
	ASSERT_EQ(session_init(&f->se, f->event, f->c), 0);
	ASSERT_EQ(session_start(&f->se), 0);
}

static void fixture_down(struct fixture *f)
{
	session_done(&f->se);
	sd_event_unref(f->event);
	conf_free(f->changed);
	conf_free(f->c);
	ASSERT_EQ(rm_tree(f->dir), 0);
}

/* Runs the event loop until the worker's jobs are done and taken. */
static void finish_jobs(struct fixture *f)
{
	uint64_t ns;

	alarm(60); /* a job that never ends would be for ever */
	while (session_operation(&f->se, &ns) >= 0)
		ASSERT_TRUE(sd_event_run(f->event, 1000000) >= 0);
	alarm(0);
}

static void test_recreate_fails(void)
{
	struct history h = {.events_per_sec = 1e6, .bytes_per_event = 100};
	struct fixture f;
	struct session *se = &f.se;

	fixture_up(&f);
	ASSERT_TRUE(!session_present(se));

	/*
	 * A re-size that fails keeps the size the session had, for the check (at once, then
	 * every few seconds) to create it.
	 */
	se->sizing.subbuf_size = 8192;
	ASSERT_EQ(sd_event_source_set_enabled(se->check, SD_EVENT_OFF), 0);
	ASSERT_TRUE(session_fit_history(se, &h));
	ASSERT_TRUE(se->sizing.subbuf_size > 8192); /* asked of the worker */
	finish_jobs(&f);
	ASSERT_EQ(se->sizing.subbuf_size, 8192);
	ASSERT_EQ(se->sizing.resized, 0);
	ASSERT_EQ(session_subbuf_size(se), 8192);
	ASSERT_TRUE(check_on(se));
	ASSERT_TRUE(se->error < 0);
	ASSERT_TRUE(!session_present(se));

	/* A reload whose session cannot be created. */
	ASSERT_EQ(sd_event_source_set_enabled(se->check, SD_EVENT_OFF), 0);
	session_reconfigure(se, f.changed, f.c);
	finish_jobs(&f);
	ASSERT_TRUE(check_on(se));

	fixture_down(&f);
}

/*
 * A record holds the slot for as long as lttng-sessiond takes (without bound when it is
 * stopped): a reload's re-creation waits for it on the worker, never on the caller, and a
 * re-size measured meanwhile is not asked for (the next measurement asks again).
 */
static void test_slot_held(void)
{
	struct history h = {.events_per_sec = 1e6, .bytes_per_event = 100};
	struct fixture f;
	struct session *se = &f.se;
	uint64_t ns;

	fixture_up(&f);
	ASSERT_EQ(pthread_mutex_lock(&se->slot.lock), 0);
	alarm(60); /* waiting for the slot would be for ever: this test holds it */
	session_reconfigure(se, f.changed, f.c);
	ASSERT_EQ(session_operation(se, &ns), SESSION_OP_RECREATE);
	ASSERT_TRUE(!session_fit_history(se, &h));
	ASSERT_EQ(se->sizing.resized, 0);
	/* The main loop goes on meanwhile: the job stays under way. */
	ASSERT_TRUE(sd_event_run(f.event, 100000) >= 0);
	ASSERT_EQ(session_operation(se, &ns), SESSION_OP_RECREATE);
	alarm(0);
	ASSERT_EQ(pthread_mutex_unlock(&se->slot.lock), 0);
	finish_jobs(&f);
	ASSERT_EQ(se->reload, SESSION_RELOAD_NONE);
	/* Free again: a re-size is asked for. */
	ASSERT_TRUE(session_fit_history(se, &h));
	ASSERT_EQ(session_operation(se, &ns), SESSION_OP_RECREATE);
	finish_jobs(&f);

	fixture_down(&f);
}

int main(void)
{
	RUN(test_recreate_fails);
	RUN(test_slot_held);
	return 0;
}
