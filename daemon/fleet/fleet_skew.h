/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Peers whose clock is far from this host's. Staleness is judged by the alert's end by the
 * receiver's clock (fleet_wire_stale()): a host whose clock is off by more than
 * fleet.max_age has every alert answered stale, and sees every peer's as stale, and
 * nothing else would say why. Each alert's sent_realtime_ns (the origin's clock, as it
 * published) is compared with its receipt by this host's clock: past half of
 * fleet.max_age apart, the alert is counted, and its origin named in a message at most
 * once per FLEET_SKEW_SAY_EVERY_NS, in a table of FLEET_SKEW_ORIGINS origins (the one said
 * longest ago makes room for a new one). A late delivery looks like a clock behind: the
 * message says so.
 */
#ifndef LATENCYD_FLEET_SKEW_H
#define LATENCYD_FLEET_SKEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet.h"

#define FLEET_SKEW_ORIGINS	32
#define FLEET_SKEW_SAY_EVERY_NS (UINT64_C(3600) * 1000 * 1000 * 1000)
/* Between two messages of any origins: many hosts off at once are not a flood of lines. */
#define FLEET_SKEW_GAP_NS	(UINT64_C(1000) * 1000 * 1000)

struct fleet_skew {
	struct {
		char host[PROTO_FLEET_NAME_MAX + 1];
		uint64_t said_ns; /* CLOCK_MONOTONIC */
	} origins[FLEET_SKEW_ORIGINS];
	uint64_t said_ns; /* the last message's, of any origin */
	uint64_t count;	  /* alerts received that far from their sending */
};

/*
 * A's sending against its receipt at RECEIVED_REALTIME_NS (this host's CLOCK_REALTIME),
 * with fleet.max_age MAX_AGE_NS, at NOW_NS (CLOCK_MONOTONIC): true when a message is due,
 * in MSG (MSGLEN bytes); counted in S either way when the clocks are that far apart.
 */
bool fleet_skew_check(struct fleet_skew *s, const struct proto_fleet_alert *a,
		      uint64_t received_realtime_ns, uint64_t max_age_ns, uint64_t now_ns,
		      char *msg, size_t msglen);

#endif /* LATENCYD_FLEET_SKEW_H */
