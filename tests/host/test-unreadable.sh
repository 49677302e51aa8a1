#!/bin/bash
# Records in the notification file that are not the module's (a module of another ABI), for
# real: latencyd against its own lttng-sessiond (userspace domain, run by lttng-env as
# nobody), the FIFO standing in for /dev/latency_tracker. The realtime waiter drops what it
# read with such a record and does not log; the main loop says it, a flood in a few lines
# (at 1, 2, 4...), and status and metrics count it. The alerts that follow are recorded.
# Usage: lttng-env test-unreadable.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
. "$(dirname "$0")/lib.sh"

stuck_setup "$@"
stuck_conf latencyd-unreadable
start
said="holds a record that is not the latency_tracker module's"

# A record of 1 byte: below the module's record size, in a write of its own each time.
for i in 1 2 3; do
	printf '\001\000\000\000' >"$T/alerts" || fail "cannot write to the FIFO"
	wait_for 100 jstatus ".counters.unreadable == $i" ||
		fail "status does not count unreadable read $i: $(status)"
done
[ "$(count "$said")" = 2 ] || fail "unreadable reads 1 and 2 are not said once each, 3 not at all: $(grep -F "$said" "$LOG")"
grep -qF "$T/alerts $said (a module of another ABI?): the read it came in was dropped whole, with the alerts in it (2 such reads so far)" "$LOG" ||
	fail "the log does not say which file, nor how many: $(grep -F "$said" "$LOG")"
jstatus '.counters.alerts == 0 and .session.waiter_ended == 0' || fail "status: $(status)"
run "$LATENCYCTL" -s "$SOCK" status
expect_rc 0 "latencyctl status"
expect_out "3 read(s) of the notification file dropped: a record in them was not the module's (see the log)"
run "$LATENCYCTL" -s "$SOCK" metrics
expect_rc 0 "latencyctl metrics"
expect_out "latencyd_alert_reads_unreadable_total 3"
expect_out "latencyd_waiter_threads_ended 0"
pass "unreadable records: said at 1 and 2, counted in status and metrics"

"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 jcat '.snapshots[0].status == "complete"' ||
	fail "the alert after them was not recorded: $(cat "$CAT" 2>/dev/null)"
pass "the alert that follows is recorded"

terminate
expect_rc 0 "latencyd after SIGTERM"
no_sanitizer_report "unreadable records"
