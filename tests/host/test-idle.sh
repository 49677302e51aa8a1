#!/bin/bash
# latencyd idle (#19), for real: against its own lttng-sessiond (userspace domain, run by
# lttng-env as nobody), once the calibration snapshot is done and with nothing happening,
# none of its threads wakes up (their context switches, from /proc, do not move over 10 s:
# no periodic session check). The exit of lttng-sessiond is an event: killed, it is logged
# at once, and when it is back the session is re-created and recording again.
# Usage: lttng-env test-idle.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }

ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-idle)
output: { directory = "$T/snapshots"; };
CONF
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }
# Context switches of all of latencyd's threads so far.
switches() { cat /proc/"$DAEMON_PID"/task/*/status | awk '/ctxt_switches/ { s += $2 } END { print s }'; }

start_daemon -c "$T/latencyd.conf"
wait_for 300 jstatus '.history.measured.source == "calibration"' ||
	fail "no calibration: $(ctl --json status)"
sleep 1
a=$(switches)
sleep 10
b=$(switches)
[ "$b" = "$a" ] || fail "$((b - a)) context switches over 10 s of idle: $(for t in /proc/$DAEMON_PID/task/*; do
	echo "$(cat "$t/comm"): $(grep ctxt_switches "$t/status" | tr -s '\t\n' '  ')"; done)"
pass "idle: no wakeup in 10 s ($a context switches before, $b after)"

spid=$(cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid")
kill -KILL "$spid"
# A safety net, not a speed bound: latencyd waits on the pid's pidfd, not a timer.
wait_for 300 grep -q "lttng-sessiond (pid $spid) exited" "$T/latencyd.log" ||
	fail "the exit of lttng-sessiond is not noticed: $(cat "$T/latencyd.log")"
lttng-sessiond --background >/dev/null 2>&1 || fail "cannot restart lttng-sessiond"
wait_for 150 jstatus '.session.recreated >= 1 and .session.state == "recording"' ||
	fail "the session was not re-created: $(ctl --json status)"
pass "lttng-sessiond killed: its exit logged at once, the session re-created when it was back"
stop_daemon
