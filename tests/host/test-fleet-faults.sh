#!/bin/bash
# The fleet when its parts misbehave (#26): a real mosquitto and lttng-relayd on 127.0.0.1,
# three latencyd (h1, h2, h3 in group "lab", fleet.max_age 2 s, fleet.answer_within 10 s).
# - the broker frozen (SIGSTOP) for 5 s while h1 alerts: its peers get the request late,
#   record nothing for it and say it was stale; h1's incident lists them so; h1 counts
#   the request published only once the broker, back, acknowledges it;
# - a member frozen: listed as "no answer", said once in the origin's log; back, it
#   records nothing for the old request; killed: its last will takes it out of the fleet;
# - relayd killed during an incident: each host's snapshot is local only, with its path;
# - a broker address where something takes the connection and never answers the CONNECT
#   (h4, group "quiet"): status and the log say so, not "connecting" for ever;
# - the broker killed and a member killed meanwhile: counted out once h1 reconnects;
# - a broker that takes h5's session over (DISCONNECT 0x8E, takeover-broker.py): said so;
# and in each case the local path records on its own.
# Usage: lttng-env --relayd test-fleet-faults.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
RELAYD_OUT=$LATENCYD_TEST_RELAYD_OUT

. "$(dirname "$0")/fleet-lib.sh"
start_fleet_broker

jinc() { local out; out=$(ctl "$1" --json incidents 2>/dev/null) && [ -n "$out" ] && jq -e "$2" <<<"$out" >/dev/null; }
incident() { ctl "$1" --json incidents | jq -c ".incidents[] | select(.incident == \"$2\")"; }
# The id h1's next local snapshot will have, hence its next incident (incident_of).
next_incident() { incident_of h1 $(( $(ctl h1 --json list-snapshots | jq '[.snapshots[].id] | max // 0') + 1 )); }
count() { ctl "$1" --json list-snapshots | jq '.matched'; }
show() { for n in h1 h2 h3; do echo "--- $n"; tail -15 "$T/$n/latencyd.log"; done; }

export FLEET_EXTRA='max_age = "2s"; answer_within = "10s";'
for n in h1 h2 h3; do node $n lab 10 10; done
# h4's broker: a listener that reads the CONNECT and never answers (checked in part 4).
for _ in 1 2 3 4 5; do
	SILENT_PORT=$((20000 + RANDOM % 30000))
	socat -u "TCP-LISTEN:$SILENT_PORT,bind=127.0.0.1,reuseaddr,fork" OPEN:/dev/null 2>>"$T/socat.log" &
	SILENT_PID=$!
	sleep 0.2
	kill -0 "$SILENT_PID" 2>/dev/null && break
done
kill -0 "$SILENT_PID" 2>/dev/null || fail "socat did not listen: $(cat "$T/socat.log")"
PIDS+=("$SILENT_PID")
FLEET_BROKER=mqtt://127.0.0.1:$SILENT_PORT node h4 quiet 10 10
# h5's broker takes each of its sessions over (MQTT v5 DISCONNECT 0x8E), checked in part 6.
python3 "$(dirname "$0")/takeover-broker.py" "$T/takeover.port" 2>>"$T/takeover.log" &
PIDS+=($!)
wait_for 50 test -s "$T/takeover.port" || fail "takeover-broker.py did not listen: $(cat "$T/takeover.log")"
TAKEOVER_PORT=$(cat "$T/takeover.port")
FLEET_BROKER=mqtt://127.0.0.1:$TAKEOVER_PORT node h5 taken 10 10
for h in h1 h2 h3; do
	wait_for 200 jst $h '.session.state == "recording" and .fleet.subscribed and .fleet.members_online == 2' ||
		fail "$h: not recording with two members: $(ctl $h --json status | jq -c .fleet)"
done
sleep 1
pass "three hosts, each seeing the two others"

# 1. The broker frozen while h1 alerts: delivered 5 s late, older than max_age.
inc=$(next_incident)
pub=$(ctl h1 --json status | jq .fleet.published) failed=$(ctl h1 --json status | jq .fleet.failed)
kill -STOP "$BROKER_PID"
alert h1
wait_for 100 sh -c "[ \$($LATENCYCTL -s $T/h1/ctl.sock --json list-snapshots | jq '.matched') -ge 1 ]" ||
	fail "h1 did not record locally with the broker frozen"
sleep 5
# Handed to libmosquitto (not failed), the TCP connection open: not acknowledged, so not
# published yet.
jst h1 ".fleet.published == $pub and .fleet.failed == $failed and .fleet.connected" ||
	fail "h1 counts its request with the broker frozen ($pub published, $failed failed before): $(ctl h1 --json status | jq -c .fleet)"
kill -CONT "$BROKER_PID"
wait_for 100 jst h1 ".fleet.published >= $((pub + 1))" ||
	fail "h1 did not count its request published once the broker acknowledged it: $(ctl h1 --json status | jq -c .fleet)"
for h in h2 h3; do # (wait_for sets n)
	wait_for 100 jst $h '.fleet.dropped.stale >= 1' ||
		fail "$h did not drop h1's late request as stale: $(ctl $h --json status | jq -c .fleet)"
	[ "$(ctl $h --json list-snapshots --incident "$inc" | jq .matched)" = 0 ] ||
		fail "$h recorded $inc, delivered 5 s late"
done
wait_for 100 jinc h1 "[.incidents[] | select(.incident == \"$inc\" and .stale == [\"h2\",\"h3\"] and .recorded == [\"h1\"])] | length == 1" ||
	fail "$inc at h1: $(incident h1 "$inc"); $(show)"
wait_for 50 grep -q "fleet: incident $inc: recorded by h1; stale on h2, h3" "$T/h1/latencyd.log" ||
	fail "h1's log does not say $inc's outcome: $(grep "$inc" "$T/h1/latencyd.log")"
pass "broker frozen 5 s: the late request recorded by no peer, said stale by both"

# 2. A member frozen: no answer within answer_within; back, nothing recorded for it.
wait_for 100 jst h1 '.fleet.connected' || fail "h1 not connected after the broker's freeze"
sleep 2 # the broker's backlog delivered
inc=$(next_incident)
kill -STOP "$PID_h3"
alert h1
wait_for 200 jinc h1 "[.incidents[] | select(.incident == \"$inc\" and .recorded == [\"h1\",\"h2\"] and .no_answer == [\"h3\"])] | length == 1" ||
	fail "$inc at h1: $(incident h1 "$inc"); $(show)"
ctl h1 incidents >"$T/out" || fail "latencyctl incidents"
grep "$inc" "$T/out" | grep -q "h3 no answer" || fail "incidents (text): $(cat "$T/out")"
wait_for 50 grep -q "fleet: incident $inc: recorded by h1, h2; no answer from h3" "$T/h1/latencyd.log" ||
	fail "h1's log does not say $inc's outcome: $(grep "$inc" "$T/h1/latencyd.log")"
kill -CONT "$PID_h3"
wait_for 100 jst h3 '.fleet.dropped.stale >= 2' ||
	fail "h3, back, did not drop the old request: $(ctl h3 --json status | jq -c .fleet)"
[ "$(ctl h3 --json list-snapshots --incident "$inc" | jq .matched)" = 0 ] || fail "h3 recorded $inc when it came back"
pass "a frozen member: no answer in the incident and the log; back, it records nothing old"

# A member killed: its last will says it went away; the next incident does not wait for it.
kill -KILL "$PID_h3"
wait_for 100 jst h1 '.fleet.members_online == 1' ||
	fail "h1 still counts h3 a member: $(ctl h1 --json status | jq -c .fleet)"
inc=$(next_incident)
alert h1
wait_for 100 jinc h1 "[.incidents[] | select(.incident == \"$inc\" and .members == [\"h1\",\"h2\"] and .recorded == [\"h1\",\"h2\"] and .pending == [])] | length == 1" ||
	fail "$inc at h1: $(incident h1 "$inc")"
pass "a member killed: its last will takes it out of the next incident"

# 3. relayd killed: each host's snapshot of the incident is local only, with its path.
kill "$LATENCYD_TEST_RELAYD_PID"
inc=$(next_incident)
alert h1
wait_for 200 jinc h1 "[.incidents[] | select(.incident == \"$inc\" and .local == [\"h1\",\"h2\"])] | length == 1" ||
	fail "$inc at h1: $(incident h1 "$inc"); $(show)"
for h in h1 h2; do
	path=$(incident h1 "$inc" | jq -r ".details.$h")
	[ -d "$path" ] && [[ "$path" == "$T/$h/snapshots/"* ]] || fail "$h's local snapshot of $inc: '$path'"
done
# h2 knows what it did (results go to the origin alone): local, with its path.
jinc h2 "[.incidents[] | select(.incident == \"$inc\" and .members == [\"h2\"] and .local == [\"h2\"] and .recorded == [] and .pending == [])] | length == 1" ||
	fail "$inc at h2: $(incident h2 "$inc")"
ctl h1 incidents >"$T/out"
grep "$inc" "$T/out" | grep -q "h1 local" || fail "incidents (text): $(cat "$T/out")"
pass "relayd killed: the incident lists each host's snapshot as local, with its path"

# 4. h4's broker takes the connection and never answers: libmosquitto gives up after its
# keepalive (30 s) and tries again; each attempt would leave "connecting" and no log line.
silent='did not answer the connection within 30 s'
wait_for 900 jst h4 ".fleet.connected == false and (.fleet.detail | contains(\"$silent\"))" ||
	fail "h4 (a broker that never answers): $(ctl h4 --json status | jq -c .fleet); log: $(cat "$T/h4/latencyd.log")"
grep -q "fleet: not connected to mqtt://127.0.0.1:$SILENT_PORT .*$silent" "$T/h4/latencyd.log" ||
	fail "h4's log does not say its broker never answered: $(cat "$T/h4/latencyd.log")"
n4=$(count h4)
alert h4
wait_for 100 sh -c "[ \$($LATENCYCTL -s $T/h4/ctl.sock --json list-snapshots | jq '.matched') -gt $n4 ]" ||
	fail "h4 did not record its own alert: $(tail "$T/h4/latencyd.log")"
pass "a broker that never answers the CONNECT: '$(ctl h4 --json status | jq -r .fleet.detail)' in status and the log; the local path records"

# 5. The broker killed (no last will can go out), h2 killed while it is down: the broker,
# back without persistence, delivers no presence of h2's, so h1 counts h2 out once its
# bound after reconnecting passes (10 s), not never; its next incident does not list h2.
kill -KILL "$BROKER_PID"
wait "$BROKER_PID" 2>/dev/null
wait_for 100 jst h1 '.fleet.connected == false' ||
	fail "h1 did not see the broker go: $(ctl h1 --json status | jq -c .fleet)"
jst h1 '.fleet.members_online == 1' || fail "h1 does not count h2: $(ctl h1 --json status | jq -c .fleet)"
kill -KILL "$PID_h2"
wait "$PID_h2" 2>/dev/null
mark=$(wc -l <"$T/h1/latencyd.log")
start_broker
wait_for 300 jst h1 '.fleet.connected and .fleet.subscribed' ||
	fail "h1 did not reconnect: $(ctl h1 --json status | jq -c .fleet)"
wait_for 300 jst h1 '.fleet.members_online == 0' ||
	fail "h1 still counts h2, killed while the broker was down: $(ctl h1 --json status | jq -c .fleet)"
tail -n +$((mark + 1)) "$T/h1/latencyd.log" | grep -q "fleet: member h2 went away (no presence since this host reconnected)" ||
	fail "h1's log does not say h2 went away: $(tail -n +$((mark + 1)) "$T/h1/latencyd.log")"
inc=$(next_incident)
alert h1
wait_for 100 jinc h1 "[.incidents[] | select(.incident == \"$inc\" and .members == [\"h1\"])] | length == 1" ||
	fail "$inc at h1 lists a member dead while the broker was down: $(incident h1 "$inc")"
pass "a member killed while the broker was down: counted out after h1 reconnected, not in its next incident"

# 6. A broker that closes h5's session because another client connected with its client id
# says so (reason 0x8E): status and the log name that cause, not a lost connection.
taken="session taken over: another client uses this host's client id"
wait_for 300 jst h5 "(.fleet.detail // \"\") | contains(\"$taken\")" ||
	fail "h5's status does not say its session was taken over: $(ctl h5 --json status | jq -c .fleet)"
grep -q "fleet: not connected to mqtt://127.0.0.1:$TAKEOVER_PORT ($taken)" "$T/h5/latencyd.log" ||
	fail "h5's log does not say its session was taken over: $(grep 'fleet:' "$T/h5/latencyd.log" | tail -5)"
pass "a session taken over (DISCONNECT 0x8E): '$taken' in status and the log"

for n in h1 h4 h5; do kill -0 "$(eval echo "\$PID_$n")" || fail "$n died"; done
for n in h1 h4 h5; do kill "$(eval echo "\$PID_$n")"; done
sleep 1
for n in h1 h2 h3 h4 h5; do
	grep -q "AddressSanitizer\|runtime error" "$T/$n/latencyd.log" && fail "$n: $(cat "$T/$n/latencyd.log")"
done
pass "fleet faults"
