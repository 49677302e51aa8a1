/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Log lines that any local user can make latencyd write at will (refusals, busy clients),
 * throttled per key (a uid). With control groups configured the socket is open to every
 * local user, and one line per connection or per request would let one of them flood the
 * journal: journald's rate limit per unit would then drop every line of latencyd's for a
 * while, its alerts included.
 *
 * A key's first line is logged as it comes; after it, each interval counts the key's lines
 * instead, and ends with one line (say()) giving that count and the last of them. A key that
 * had none in an interval is forgotten: its next line is logged as it comes. The keys are a
 * small table: those beyond it share one count (say() gets THROTTLE_OTHERS), so that many
 * uids make a bounded number of lines too. Only the lines are throttled: what is counted
 * elsewhere (status "control") still counts every event.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "control.h"
#include "log.h"

static void count(struct throttle_key *k, const char *message)
{
	k->unlogged++;
	snprintf(k->last, sizeof(k->last), "%s", message);
}

/* Each key's lines not logged since its last line, in one line; true if any was said. */
static bool say_unlogged(struct throttle *t)
{
	bool said = false;
	size_t kept = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct throttle_key *k = &t->v[i];

		if (!k->unlogged)
			continue;
		t->say(k->key, k->unlogged, t->interval_usec, k->last);
		k->unlogged = 0;
		t->v[kept++] = *k;
		said = true;
	}
	t->n = kept;
	if (t->others.unlogged) {
		t->say(THROTTLE_OTHERS, t->others.unlogged, t->interval_usec, t->others.last);
		t->others.unlogged = 0;
		said = true;
	}
	return said;
}

static int on_interval(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct throttle *t = userdata;

	/* The keys with nothing unsaid are forgotten: with none left, no interval runs. */
	if (!say_unlogged(t) || t->n == 0 ||
	    sd_event_source_set_time_relative(s, t->interval_usec) < 0 ||
	    sd_event_source_set_enabled(s, SD_EVENT_ONESHOT) < 0) {
		t->n = 0;
		t->timer = sd_event_source_disable_unref(t->timer);
	}
	return 0;
}

void throttle_init(struct throttle *t, sd_event *event, const char *name, uint64_t interval_usec,
		   throttle_say_t say)
{
	*t = (struct throttle){
		.event = event, .name = name, .interval_usec = interval_usec, .say = say};
}

bool throttle_now(struct throttle *t, unsigned key, const char *message)
{
	if (!t)
		return true;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].key == key) {
			count(&t->v[i], message);
			return false;
		}
	if (t->n == THROTTLE_KEYS) {
		count(&t->others, message);
		return false;
	}
	/* Without a timer, each is logged: too many lines rather than none. */
	if (!t->timer) {
		if (sd_event_add_time_relative(t->event, &t->timer, CLOCK_MONOTONIC,
					       t->interval_usec, 0, on_interval, t) < 0)
			return true;
		sd_event_source_set_description(t->timer, t->name);
	}
	t->v[t->n++] = (struct throttle_key){.key = key};
	return true;
}

void throttle_done(struct throttle *t)
{
	say_unlogged(t);
	t->n = 0;
	t->timer = sd_event_source_disable_unref(t->timer);
}

void throttle_say_refused(const char *what, unsigned key, uint64_t count, uint64_t interval_usec,
			  const char *last)
{
	unsigned long long sec = interval_usec / 1000000;
	char uid_field[64];

	if (key == THROTTLE_OTHERS) {
		log_fields(LOG_NOTICE, NULL,
			   "%" PRIu64 " more %s of other uids refused within %llu s, not logged "
			   "one by one (the last: %s)",
			   count, what, sec, last);
		return;
	}
	snprintf(uid_field, sizeof(uid_field), "LATENCYD_PEER_UID=%u", key);
	log_fields(LOG_NOTICE, (const char *const[]){uid_field, NULL},
		   "%" PRIu64 " more %s of uid %u refused within %llu s, not logged one by one "
		   "(the last: %s)",
		   count, what, key, sec, last);
}
