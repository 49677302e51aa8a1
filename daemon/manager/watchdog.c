// SPDX-License-Identifier: GPL-2.0-only
/*
 * The systemd watchdog, pinged from a timer at half its period (WATCHDOG_USEC) rather than
 * by sd-event at each turn of the main loop: the ping also vouches for the realtime
 * waiter, which the main loop does not see. A waiter inside one record for longer than
 * half the period (lttng-sessiond stuck, the session's slot held) is stuck: the pings
 * stop, which is logged, and systemd restarts latencyd when WatchdogSec runs out; they
 * resume if the record ends first. Without a watchdog, nothing runs here (no wakeup).
 */
#include <inttypes.h>

#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"

static int on_watchdog(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	uint64_t busy = recorder_waiter_busy_ns(m->recorder);

	if (busy / 1000 > m->watchdog_usec / 2) {
		if (!m->watchdog_held)
			log_warnx("the realtime waiter has been in one record for %" PRIu64
				  " ms: no watchdog ping while it is stuck",
				  busy / 1000000);
		m->watchdog_held = true;
	} else {
		if (m->watchdog_held)
			log_info("the realtime waiter's record ended: watchdog pings resume");
		m->watchdog_held = false;
		sd_notify(0, "WATCHDOG=1");
	}
	sd_event_source_set_time(s, usec + m->watchdog_usec / 2);
	return 0;
}

int manager_watchdog_start(struct manager *m)
{
	uint64_t now;
	int r = sd_watchdog_enabled(0, &m->watchdog_usec);

	if (r <= 0 || !m->watchdog_usec)
		return r < 0 ? log_warn_errno(r, "cannot read the watchdog's period") : 0;
	r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(m->event, &m->watchdog, CLOCK_MONOTONIC,
				      now + m->watchdog_usec / 2, 0, on_watchdog, m);
	if (r < 0)
		return log_warn_errno(r, "cannot set up the watchdog");
	sd_event_source_set_description(m->watchdog, "watchdog");
	sd_event_source_set_enabled(m->watchdog, SD_EVENT_ON);
	sd_notify(0, "WATCHDOG=1");
	return 0;
}
