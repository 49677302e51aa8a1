#!/bin/bash
# A broker that keeps the connection (it answers PINGREQ) and acknowledges no PUBLISH:
# ackless-broker.py, its Receive Maximum 65535 so that libmosquitto sends every PUBLISH
# rather than holding all but 20 back. h1 (fleet.max_age 1 s) raises more alerts than the 64
# that may await the broker's PUBACK at once, in latencyd and in latencyd-fleet alike:
# - each alert past its max_age is let go, and a new one takes the place of the oldest let
#   go on both sides (latencyd tells latencyd-fleet to forget it): the broker receives every
#   alert, the 65th and after included, none given up for want of a place;
# - h1 stays connected, counts none published and, failed, only the alerts whose places
#   were taken (the 65th alert's takes the first's...).
# Usage: lttng-env --relayd test-fleet-unacked.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
. "$(dirname "$0")/fleet-lib.sh"

ALERTS=72 # past the 64 places (fleet_client.c INFLIGHT_MAX, helper/mqtt_internal.h ALERT_MIDS)
python3 "$(dirname "$0")/ackless-broker.py" "$T/b.port" 0 100000 100000 65535 >"$T/b.out" \
	2>>"$T/b.log" &
PIDS+=($!)
wait_for 50 test -s "$T/b.port" || fail "ackless-broker.py did not listen: $(cat "$T/b.log")"
FLEET_EXTRA='max_age = "1s";' FLEET_BROKER=mqtt://127.0.0.1:$(cat "$T/b.port") node h1 lab 10 10
wait_for 200 jst h1 '.session.state == "recording" and .fleet.connected and .fleet.process.pid > 0' ||
	fail "h1: not recording and connected: $(ctl h1 --json status | jq -c .fleet)"
pid=$(ctl h1 --json status | jq .fleet.process.pid)

# One alert at a time, each its own incident once recorded.
publishes() { grep -c "^conn 0 publish [0-9]* dup 0 latencyd/lab/alert/h1 " "$T/b.out"; }
for i in $(seq 1 $ALERTS); do
	alert h1
	wait_for 100 sh -c "[ \$('$LATENCYCTL' -s '$T/h1/ctl.sock' --json list-snapshots --limit 1000 | jq .matched) -ge $i ]" ||
		fail "h1 did not record its alert $i: $(tail -5 "$T/h1/latencyd.log")"
done
wait_for 100 sh -c "[ \$(grep -c '^conn 0 publish [0-9]* dup 0 latencyd/lab/alert/h1 ' '$T/b.out') -ge $ALERTS ]" ||
	fail "the broker received $(publishes) of h1's $ALERTS alerts: $(grep -E 'not published|ENOBUFS' "$T/h1/latencyd.log" | head -5)"
[ "$(publishes)" = $ALERTS ] || fail "the broker received $(publishes) alerts from h1, not $ALERTS"
pass "the broker received all $ALERTS alerts, none acknowledged"

# Every one let go past max_age, none given up; the places taken counted failed.
letgo() { grep -c "fleet: incident h1-[0-9]* not acknowledged by the broker within fleet.max_age: left to go out late" "$T/h1/latencyd.log"; }
wait_for 100 sh -c "[ \$(grep -c 'not acknowledged by the broker within fleet.max_age: left to go out late' '$T/h1/latencyd.log') -ge $ALERTS ]" ||
	fail "h1 let $(letgo) of its $ALERTS alerts go: $(tail -5 "$T/h1/latencyd.log")"
grep -q "not published" "$T/h1/latencyd.log" && fail "h1 gave alerts up: $(grep "not published" "$T/h1/latencyd.log" | head -3)"
jst h1 ".fleet.connected and .fleet.reconnects == 0 and .fleet.published == 0 and .fleet.failed == $((ALERTS - 64)) and .fleet.process.pid == $pid" ||
	fail "h1 miscounts its alerts not acknowledged: $(ctl h1 --json status | jq -c .fleet)"
pass "each alert let go, the $((ALERTS - 64)) whose places were taken counted failed, none given up"

stop_nodes h1
pass "alerts past the 64 awaiting an ackless broker still reach it"
