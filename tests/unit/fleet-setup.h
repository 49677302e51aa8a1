/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the unit tests of the fleet share: the fleet settings they give fleet_new(), the
 * place beside the test program where fleet_helper_path() looks first for latencyd-fleet,
 * and a peer's alert as the helper sends it.
 */
#ifndef LATENCYD_TEST_FLEET_SETUP_H
#define LATENCYD_TEST_FLEET_SETUP_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "fleet_spawn.h"
#include "fleet_wire.h"
#include "tests.h"
#include "thread.h"

/* A peer's alert (KIND) as a sound helper sends it to h1: h2's incident h2-7, group lab,
 * received now. */
static inline void test_fleet_peer_alert(struct fleet_wire_event *e, uint32_t kind)
{
	memset(e, 0, sizeof(*e));
	e->type = FLEET_WIRE_EVENT;
	e->ev.kind = kind;
	snprintf(e->ev.alert.host, sizeof(e->ev.alert.host), "h2");
	snprintf(e->ev.alert.group, sizeof(e->ev.alert.group), "lab");
	snprintf(e->ev.alert.incident, sizeof(e->ev.alert.incident), "h2-7");
	snprintf(e->ev.alert.tracker, sizeof(e->ev.alert.tracker), "syscalls");
	snprintf(e->ev.alert.comm, sizeof(e->ev.alert.comm), "postgres");
	e->ev.received_ns = now_ns();
}

/* Host h1 of group "lab", through a broker on 127.0.0.1, without TLS or a password. */
static inline struct conf test_fleet_conf(void)
{
	return (struct conf){
		.fleet = {.broker = (char *)"mqtt://127.0.0.1:1883",
			  .ca_file = (char *)"",
			  .cert_file = (char *)"",
			  .key_file = (char *)"",
			  .username = (char *)"",
			  .password_file = (char *)"",
			  .user = (char *)"nobody",
			  .topic_prefix = (char *)"latencyd",
			  .host = (char *)"h1",
			  .group = (char *)"lab",
			  .max_age_ns = 5000000000ULL,
			  .presence_every_ns = 60000000000ULL},
	};
}

/* This program's path in SELF, and in LINK latencyd-fleet's beside it. */
static inline void test_fleet_helper_beside(char self[PATH_MAX], char link[PATH_MAX + 32])
{
	ssize_t n = readlink("/proc/self/exe", self, PATH_MAX - 1);

	ASSERT_TRUE(n > 0);
	self[n] = 0;
	snprintf(link, PATH_MAX + 32, "%.*s/" FLEET_HELPER_NAME, (int)(strrchr(self, '/') - self),
		 self);
}

#endif /* LATENCYD_TEST_FLEET_SETUP_H */
