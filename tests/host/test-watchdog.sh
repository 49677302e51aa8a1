#!/bin/bash
# The systemd watchdog vouches for the realtime waiter (#19), for real: latencyd against
# its own lttng-sessiond (userspace domain, run by lttng-env as nobody), with WATCHDOG_USEC
# as systemd sets it (1 s) and the test's notify socket. It pings every half period; with
# lttng-sessiond stopped (SIGSTOP) an alert leaves the waiter stuck in its record: the
# pings stop and the log says why; with sessiond continued the record ends and they resume.
# Usage: lttng-env test-watchdog.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"

ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-watchdog)
output: { directory = "$T/snapshots"; };
CONF
pings() { grep -o WATCHDOG=1 "$T/notify.log" | wc -l; }
more_pings_than() { [ "$(pings)" -gt "$1" ]; }

WATCHDOG_USEC=1000000 start_daemon -c "$T/latencyd.conf"
wait_for 50 "$LATENCYCTL" -s "$SOCK" status >/dev/null || fail "latencyd does not answer"
p=$(pings)
# Three more pings: they go on (the bound is a safety net, not their rate).
wait_for 100 more_pings_than $((p + 2)) || fail "$(($(pings) - p)) watchdog pings in 10 s with a 1 s watchdog"
pass "watchdog pings go on ($(($(pings) - p)) more)"

sessiond_stop
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 50 grep -q "the realtime waiter has been in one record for" "$T/latencyd.log" ||
	fail "a stuck waiter is not noticed: $(cat "$T/latencyd.log")"
p=$(pings)
sleep 1.5
[ "$(pings)" = "$p" ] || fail "$(($(pings) - p)) pings while the waiter is stuck"
pass "the waiter stuck in a record (sessiond stopped): no ping, logged"

sessiond_continue
wait_for 100 grep -q "watchdog pings resume" "$T/latencyd.log" || fail "pings do not resume"
wait_for 30 more_pings_than "$p" || fail "no ping after the record ended"
pass "sessiond continued: the record ended, pings resume"
stop_daemon
