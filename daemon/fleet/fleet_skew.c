// SPDX-License-Identifier: GPL-2.0-only
/* Peers' clocks far from this host's (fleet_skew.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fleet_skew.h"

/* A's origin in the table: found, else the entry said longest ago, taken over (said 0). */
static uint64_t *origin_said(struct fleet_skew *s, const char *host)
{
	size_t oldest = 0;

	for (size_t i = 0; i < FLEET_SKEW_ORIGINS; i++) {
		if (strcmp(s->origins[i].host, host) == 0)
			return &s->origins[i].said_ns;
		if (s->origins[i].said_ns < s->origins[oldest].said_ns)
			oldest = i;
	}
	snprintf(s->origins[oldest].host, sizeof(s->origins[oldest].host), "%s", host);
	s->origins[oldest].said_ns = 0;
	return &s->origins[oldest].said_ns;
}

bool fleet_skew_check(struct fleet_skew *s, const struct proto_fleet_alert *a,
		      uint64_t received_realtime_ns, uint64_t max_age_ns, uint64_t now_ns,
		      char *msg, size_t msglen)
{
	uint64_t sent = a->sent_realtime_ns, recv = received_realtime_ns;
	bool ahead = sent > recv;
	uint64_t apart = ahead ? sent - recv : recv - sent;
	uint64_t *said;

	if (apart <= max_age_ns / 2)
		return false;
	s->count++;
	if (s->said_ns && now_ns - s->said_ns < FLEET_SKEW_GAP_NS)
		return false;
	said = origin_said(s, a->host);
	if (*said && now_ns - *said < FLEET_SKEW_SAY_EVERY_NS)
		return false;
	*said = s->said_ns = now_ns ? now_ns : 1;
	snprintf(msg, msglen,
		 "fleet: %s's clock is %.1f s %s this host's%s (its incident %s): clocks more "
		 "than fleet.max_age (%.1f s) apart have each host's alerts judged stale by "
		 "the other (%" PRIu64 " alert(s) so far sent that far from their receipt)",
		 a->host, (double)apart / 1e9, ahead ? "ahead of" : "behind",
		 ahead ? "" : ", or its alert took that long to arrive", a->incident,
		 (double)max_age_ns / 1e9, s->count);
	return true;
}
