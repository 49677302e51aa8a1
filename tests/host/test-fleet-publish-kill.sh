#!/bin/bash
# A local alert is kept until the broker acknowledges it (manager/outbox.c). Two latencyd,
# each on its own ackless-broker.py (127.0.0.1), which holds every PUBACK HOLD seconds after
# each CONNACK:
# - h1 (hold 15 s, fleet.max_age 60 s): its fleet process is killed (SIGKILL) once the
#   broker has its alert and before the PUBACK; the one started again publishes the alert
#   again, and h1 counts it published once the PUBACK comes, failed never; it says the
#   alert waits for the broker, published again, then how late it went out; a next alert,
#   acknowledged at once, is said published (debug) and not late;
# - h2 (hold for ever, fleet.max_age 5 s): the PUBACK never comes; past its bound the alert
#   is no longer followed, the log names the incident, and it is counted neither failed nor
#   published: libmosquitto holds it, as for a frozen broker (test-fleet-faults.sh), and
#   the helper counts it published if the PUBACK comes after all.
# Usage: lttng-env --relayd test-fleet-publish-kill.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
. "$(dirname "$0")/fleet-lib.sh"

broker() { # NAME HOLD
	python3 "$(dirname "$0")/ackless-broker.py" "$T/$1.port" 0 "$2" 100000 >"$T/$1.out" \
		2>>"$T/$1.log" &
	PIDS+=($!)
	wait_for 50 test -s "$T/$1.port" || fail "ackless-broker.py did not listen: $(cat "$T/$1.log")"
}
broker b1 15
broker b2 100000
FLEET_EXTRA='max_age = "60s";' FLEET_BROKER=mqtt://127.0.0.1:$(cat "$T/b1.port") \
	node h1 lab 10 10 'log: { level = "debug"; };'
FLEET_EXTRA='max_age = "5s";' FLEET_BROKER=mqtt://127.0.0.1:$(cat "$T/b2.port") node h2 lab 10 10
for h in h1 h2; do
	wait_for 200 jst $h '.session.state == "recording" and .fleet.connected and .fleet.process.pid > 0' ||
		fail "$h: not recording and connected: $(ctl $h --json status | jq -c .fleet)"
done

# 1. Killed before the PUBACK: published again by the next fleet process.
old=$(ctl h1 --json status | jq .fleet.process.pid)
inc=$(incident_of h1 1)
alert h1
wait_for 100 grep -q "^conn 0 publish [0-9]* dup 0 latencyd/lab/alert/h1 " "$T/b1.out" ||
	fail "b1 did not get h1's alert: $(cat "$T/b1.out")"
grep -q "^conn 0 acks" "$T/b1.out" && fail "b1 acknowledged too early for this test: $(cat "$T/b1.out")"
kill -KILL "$old"
wait_for 300 grep -q "^conn 1 publish [0-9]* dup 0 latencyd/lab/alert/h1 " "$T/b1.out" ||
	fail "h1's next fleet process did not publish the alert again: $(cat "$T/b1.out"; cat "$T/h1/latencyd.log")"
wait_for 300 jst h1 '.fleet.published == 1' ||
	fail "h1 did not count its alert published: $(ctl h1 --json status | jq -c .fleet)"
jst h1 '.fleet.failed == 0' || fail "h1 counts a failure: $(ctl h1 --json status | jq -c .fleet)"
grep -q "incident $inc waits for the broker (not handed on, or lost with the fleet process: published again)" "$T/h1/latencyd.log" ||
	fail "h1 does not say $inc was lost and published again: $(grep -F "$inc" "$T/h1/latencyd.log")"
grep -q "incident $inc published [0-9]* ms late" "$T/h1/latencyd.log" ||
	fail "h1 does not say when $inc was acknowledged: $(cat "$T/h1/latencyd.log")"
pass "an alert whose fleet process died before its PUBACK is published again"

# The next one, b1 acknowledging at once since its hold ended: published, not late.
inc=$(incident_of h1 2)
alert h1
wait_for 100 grep -q "fleet: incident $inc published (acknowledged by the broker)" "$T/h1/latencyd.log" ||
	fail "h1 does not say $inc was published at once: $(grep -F "$inc" "$T/h1/latencyd.log"; cat "$T/b1.out")"
grep -q "incident $inc published [0-9]* ms late\|incident $inc waits for the broker" "$T/h1/latencyd.log" &&
	fail "h1 says $inc, acknowledged at once, waited or went out late: $(grep -F "$inc" "$T/h1/latencyd.log")"
jst h1 '.fleet.published == 2 and .fleet.failed == 0' ||
	fail "h1 miscounts its second alert: $(ctl h1 --json status | jq -c .fleet)"
pass "an alert acknowledged at once is not said late"

# 2. Never acknowledged: let go past fleet.max_age, said, not counted failed.
inc=$(incident_of h2 1)
alert h2
wait_for 100 grep -q "^conn 0 publish [0-9]* dup 0 latencyd/lab/alert/h2 " "$T/b2.out" ||
	fail "b2 did not get h2's alert: $(cat "$T/b2.out")"
wait_for 200 grep -q "fleet: incident $inc not acknowledged by the broker within fleet.max_age: left to go out late" "$T/h2/latencyd.log" ||
	fail "h2 does not say it let $inc go: $(cat "$T/h2/latencyd.log")"
jst h2 '.fleet.failed == 0 and .fleet.published == 0' ||
	fail "h2 miscounts its alert let go: $(ctl h2 --json status | jq -c .fleet)"
pass "an alert never acknowledged is let go past fleet.max_age, logged, not counted failed"

for h in h1 h2; do
	kill -0 "$(eval echo "\$PID_$h")" || fail "$h died"
	grep -q "AddressSanitizer\|runtime error" "$T/$h/latencyd.log" && fail "$h: $(cat "$T/$h/latencyd.log")"
done
pass "fleet alerts kept until the broker acknowledges them"
