#!/bin/bash
# An alert whose connection drops between latencyd-fleet's check that it is connected and
# its publish: libmosquitto queues it all the same (MOSQ_ERR_NO_CONN) and sends it after the
# next CONNACK. One latencyd (h1) on a real mosquitto, with drop-before-publish.so preloaded,
# which makes that drop happen at h1's first alert, every time; a mosquitto_sub in the group
# stands for the peers.
# - the peers get h1's alert once, not once from libmosquitto's queue and again from
#   latencyd's retry (manager/outbox.c);
# - h1 counts it published once and failed never (latencyctl status, fleet);
# - h1 never waits for the broker with it: handed on at once, it is not published again
#   (outbox.c logs "waits for the broker" for an alert not handed on at once, or lost and
#   published again), and once acknowledged it is said published (debug), not "ms late".
# A second alert, on the connection back, marks the end: what h1 publishes goes out in order.
# Usage: lttng-env --relayd test-fleet-publish-drop.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP \
#        DROP_BEFORE_PUBLISH
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?} DROP=${5:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
command -v mosquitto_sub >/dev/null || { echo "SKIP: mosquitto_sub is not installed"; exit 77; }
. "$(dirname "$0")/fleet-lib.sh"
start_fleet_broker

# The peers: every alert of group lab, one payload a line.
mosquitto_sub -h 127.0.0.1 -p "$PORT" -V mqttv5 -t 'latencyd/lab/alert/#' >"$T/wire" \
	2>>"$T/sub.log" &
PIDS+=($!)
probe() {
	mosquitto_pub -h 127.0.0.1 -p "$PORT" -t latencyd/lab/alert/probe -m probe 2>/dev/null
	grep -qx probe "$T/wire"
}
wait_for 50 probe || fail "mosquitto_sub did not subscribe: $(cat "$T/sub.log")"

# Preloaded into h1's processes (a non-instrumented library before libasan: allowed).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=$DROP \
	node h1 lab 10 10 'log: { level = "debug"; };'
wait_for 200 jst h1 '.session.state == "recording" and .fleet.connected and .fleet.subscribed' ||
	fail "h1: not recording and connected: $(ctl h1 --json status | jq -c .fleet)"
jst h1 '.fleet.published == 0 and .fleet.failed == 0 and .fleet.reconnects == 0' ||
	fail "h1 counts publishes before any alert: $(ctl h1 --json status | jq -c .fleet)"

# 1. The alert, its connection dropped just before the publish.
inc=$(incident_of h1 1)
alert h1
wait_for 100 grep -q "drop-before-publish: connection dropped before the publish" \
	"$T/h1/latencyd.log" || fail "the connection was not dropped before the publish: $(cat "$T/h1/latencyd.log")"
wait_for 100 jst h1 '.fleet.connected and .fleet.reconnects == 1 and .fleet.published >= 1' ||
	fail "h1 did not publish its alert on the connection back: $(ctl h1 --json status | jq -c .fleet)"
wait_for 100 sh -c "[ \$($LATENCYCTL -s $T/h1/ctl.sock --json list-snapshots | jq '.matched') -ge 1 ]" ||
	fail "h1 did not record its incident locally"
grep -q "incident $inc waits for the broker" "$T/h1/latencyd.log" &&
	fail "h1 kept $inc to publish it again: $(cat "$T/h1/latencyd.log")"
pass "the connection dropped before h1's publish, back after it"

# 2. The marker: a second alert, published on the connection back.
mark=$(incident_of h1 2)
alert h1
wait_for 100 grep -qF "\"$mark\"" "$T/wire" || fail "h1's second alert ($mark) not seen: $(cat "$T/wire")"
wait_for 100 jst h1 '.fleet.published >= 2' ||
	fail "h1 did not count its second alert: $(ctl h1 --json status | jq -c .fleet)"
n=$(grep -cF "\"$inc\"" "$T/wire")
[ "$n" = 1 ] || fail "the peers got h1's alert $inc $n times: $(cat "$T/wire"; cat "$T/h1/latencyd.log")"
pass "the peers got the alert queued as the connection dropped once"

# 3. Counted once, as published: none failed, none counted twice.
jst h1 '.fleet.published == 2 and .fleet.failed == 0' ||
	fail "h1 miscounts its two alerts: $(ctl h1 --json status | jq -c .fleet)"
for i in "$inc" "$mark"; do
	wait_for 100 grep -q "fleet: incident $i published (acknowledged by the broker)" "$T/h1/latencyd.log" ||
		fail "h1 does not say $i was published, or not as handed on at once: $(grep -F "incident $i" "$T/h1/latencyd.log")"
done
grep -E "incident ($inc|$mark) published [0-9]+ ms late" "$T/h1/latencyd.log" &&
	fail "h1 says an alert handed on at once was published late"
pass "published 2, failed 0, neither late"

kill -0 "$PID_h1" || fail "h1 died"
grep -q "AddressSanitizer\|runtime error" "$T/h1/latencyd.log" && fail "h1: $(cat "$T/h1/latencyd.log")"
pass "an alert queued as the connection dropped goes out once"
