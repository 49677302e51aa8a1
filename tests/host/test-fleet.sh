#!/bin/bash
# The fleet, for real: a mosquitto broker and an lttng-relayd on 127.0.0.1, four latencyd,
# each with its own lttng-sessiond (LTTNG_HOME) and instrumented application, userspace
# domain: h1, h2 and h3 in group "lab", h4 in group "other". An alert on h1 gives one
# incident with a snapshot of each of h1..h3 in relayd's tree and none from h4; a peer
# flood is capped by h3's peer bucket while h3's own alerts still record; the broker killed
# and restarted mid-test; bad messages counted and dropped.
# Usage: lttng-env --relayd test-fleet.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
RELAYD_OUT=$LATENCYD_TEST_RELAYD_OUT

. "$(dirname "$0")/fleet-lib.sh"
start_fleet_broker

jinc() { local out; out=$(ctl "$1" --json incidents 2>/dev/null) && [ -n "$out" ] && jq -e "$2" <<<"$out" >/dev/null; }
# The snapshots of incident $1 in relayd's tree, one line per host's session.
in_relayd() { find "$RELAYD_OUT" -mindepth 3 -maxdepth 3 -type d -name "snap-*-$1@*" | sort; }

node h1 lab 10 10
node h2 lab 10 10
node h3 lab 0.001 2
node h4 other 10 10
for n in h1 h2 h3 h4; do
	wait_for 200 jst $n '.session.state == "recording" and .fleet.connected' ||
		fail "$n: not recording and connected: $(ctl $n --json status; tail -5 "$T/$n/latencyd.log")"
done
jst h1 '.fleet.host == "h1" and .fleet.group == "lab" and (.fleet.broker | startswith("mqtt://127.0.0.1:"))' ||
	fail "h1's fleet status: $(ctl h1 --json status | jq -c .fleet)"
pass "four hosts recording, connected to the broker"
sleep 1 # some history in every buffer

# One alert on h1: one incident, a snapshot of h1, h2, h3 in relayd's tree; none of h4.
alert h1
wait_for 300 sh -c "[ \$(find '$RELAYD_OUT' -mindepth 3 -maxdepth 3 -type d -name 'snap-*-h1-1@*' | wc -l) -ge 3 ]" ||
	fail "incident h1-1: in relayd's tree: $(in_relayd h1-1)"
sleep 1
sessions=$(in_relayd h1-1 | awk -F/ '{print $(NF-1)}' | sed 's/-[0-9]*-[0-9]*$//' | sort | tr '\n' ' ')
[ "$sessions" = "latencyd-h1 latencyd-h2 latencyd-h3 " ] ||
	fail "incident h1-1 recorded by: $sessions"
# relayd may still be writing a snapshot its sender is done with: a few tries.
for d in $(in_relayd h1-1); do
	wait_for 50 sh -c "babeltrace2 \"\$(dirname \"\$(find '$d' -name metadata | head -1)\")\" >/dev/null 2>&1" ||
		fail "babeltrace2 cannot read $d"
done
ctl h4 --json list-snapshots | jq -e '.snapshots | length == 0' >/dev/null ||
	fail "h4 (group other) recorded: $(ctl h4 --json list-snapshots)"
ctl h2 --json list-snapshots --incident h1-1 |
	jq -e '.snapshots | length == 1 and .[0].cause.reason == "peer" and .[0].cause.origin == "h1" and .[0].incident == "h1-1"' >/dev/null ||
	fail "h2's snapshot of h1-1: $(ctl h2 --json list-snapshots --incident h1-1)"
wait_for 300 jinc h1 '.incidents[0].incident == "h1-1" and (.incidents[0].recorded | sort) == ["h1","h2","h3"]' ||
	fail "h1's incidents: $(ctl h1 --json incidents)"
ctl h1 incidents >"$T/out" || fail "latencyctl incidents"
grep -q "h1-1" "$T/out" && grep -q "h1, h2, h3" "$T/out" || fail "incidents (text): $(cat "$T/out")"
pass "an alert on h1: incident h1-1 recorded by h1, h2 and h3 (in relayd's tree), not by h4"

# On the collector: every host's snapshot of the incident, the origin first.
run "$LATENCYCTL" analyze --incident h1-1 "$RELAYD_OUT"
expect_rc 0 "analyze --incident h1-1"
expect_out "Incident h1-1 (origin h1): 3 snapshot(s) under $RELAYD_OUT"
[ "$(grep -c '^=== origin .*/snap-1-h1-1@h1-' "$T/out")" = 1 ] ||
	fail "analyze --incident: the origin is not h1's snapshot: $(grep '^===' "$T/out")"
[ "$(grep -c '^=== peer ' "$T/out")" = 2 ] || fail "analyze --incident: not two peers"
expect_out "Window: "
run "$LATENCYCTL" --json analyze --incident h1-1 "$RELAYD_OUT"
expect_rc 0 "analyze --incident --json"
jq -e '.incident == "h1-1" and .origin_found and (.snapshots | length) == 3 and
	([.snapshots[] | select(.role == "peer" and .result.events > 0)] | length) == 2 and
	(.window.end_ns > .window.begin_ns)' "$T/out" >/dev/null ||
	fail "analyze --incident --json: $(jq -c '{incident, origin_found, window, n: (.snapshots | length)}' "$T/out")"
run "$LATENCYCTL" analyze --incident h1-999 "$RELAYD_OUT"
expect_rc 1 "analyze --incident of an unknown incident"
expect_err "no snapshot of incident h1-999 under"
pass "analyze --incident: the origin's snapshot and each peer's over the origin's window"

# latencyctl record on h2 is an incident too.
ctl h2 -t 60 record --reason "deploy" >/dev/null || fail "record on h2"
wait_for 300 sh -c "[ \$(find '$RELAYD_OUT' -mindepth 3 -maxdepth 3 -type d -name 'snap-*-h2-*@*' | wc -l) -ge 3 ]" ||
	fail "latencyctl record on h2 gave no incident on its peers"
pass "latencyctl record on h2: an incident its peers record too"

# A peer flood: h3's peer bucket (2, then 1 per 1000 s) caps it; h3's own alert records.
before=$(ctl h3 --json list-snapshots | jq '.matched')
# Manual records: each is a snapshot and an incident of its own (alerts that arrive during a
# record join it, and a loaded machine makes records long).
for i in 1 2 3 4 5 6; do ctl h1 -t 60 record --reason "flood $i" >/dev/null || fail "record on h1"; done
wait_for 300 jinc h1 '[.incidents[] | select(.refused == ["h3"])] | length >= 3' ||
	fail "h3 refused too few: $(ctl h1 --json incidents | jq -c '.incidents[:7]')"
after=$(ctl h3 --json list-snapshots | jq '.matched')
peer_records=$((after - before))
[ "$peer_records" -le 1 ] || fail "h3 recorded $peer_records peer snapshots past its burst"
# h2 took one peer alert per incident of h1's (its own record is no peer's).
h1_incidents=$(ctl h1 --json incidents | jq '[.incidents[] | select(.origin == "h1")] | length')
wait_for 300 jst h2 ".counters.peers == $h1_incidents" ||
	fail "h2 took $(ctl h2 --json status | jq .counters.peers) peer alerts for $h1_incidents incidents"
alert h3
wait_for 300 sh -c "[ \$($LATENCYCTL -s $T/h3/ctl.sock --json list-snapshots --tracker syscalls | jq '.matched') -ge 1 ]" ||
	fail "h3's own alert was not recorded during the peer flood"
pass "peer flood: h3 refused past its peer bucket (said in the incidents), its own alert recorded"

# The broker goes away: local recording goes on; it comes back: the fleet reconnects.
kill "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null
wait_for 100 jst h1 '.fleet.connected == false' || fail "h1 still says connected"
n1=$(ctl h1 --json list-snapshots | jq '.matched')
alert h1
wait_for 100 sh -c "[ \$($LATENCYCTL -s $T/h1/ctl.sock --json list-snapshots | jq '.matched') -gt $n1 ]" ||
	fail "h1 did not record locally with the broker down"
start_broker
for n in h1 h2 h3; do
	wait_for 300 jst $n '.fleet.connected and .fleet.reconnects >= 1' ||
		fail "$n did not reconnect: $(ctl $n --json status | jq -c .fleet)"
done
id=$(( $(ctl h1 --json list-snapshots | jq '[.snapshots[].id] | max') + 1 ))
sleep 0.5
alert h1
wait_for 300 sh -c "[ \$(find '$RELAYD_OUT' -mindepth 3 -maxdepth 3 -type d -name 'snap-*-h1-$id@*' | wc -l) -ge 2 ]" ||
	fail "after the broker came back, incident h1-$id: $(in_relayd "h1-$id")"
# h2's catalog has it (its record is over), h3's peer bucket refused it.
wait_for 300 sh -c "[ \$($LATENCYCTL -s $T/h2/ctl.sock --json list-snapshots --incident h1-$id | jq .matched) = 1 ]" ||
	fail "h2 has no snapshot of h1-$id"
pass "broker killed: local snapshots go on; restarted: reconnected, incidents again"

# Bad messages: counted and dropped, nothing crashes, nothing recorded.
pub() { mosquitto_pub -h 127.0.0.1 -p "$PORT" -q 1 "$@"; }
n2=$(ctl h2 --json list-snapshots | jq '.matched')
pub -t latencyd/lab/alert/h9 -m 'not json'
pub -t latencyd/lab/alert/h9 -m "$(head -c 5000 /dev/zero | tr '\0' x)"
good() { echo "{\"v\":1,\"host\":\"$1\",\"group\":\"$2\",\"incident\":\"$1-7\",\"tracker\":\"syscalls\",\"start_realtime_ns\":1,\"end_realtime_ns\":2}"; }
pub -t latencyd/lab/alert/h9 -m "$(good h9 other)"
pub -t latencyd/lab/alert/h9 -m "$(good h8 lab)"
pub -t latencyd/lab/alert/h9 -m '{"v":2,"host":"h9","group":"lab","incident":"h9-1","tracker":"x","start_realtime_ns":1,"end_realtime_ns":2}'
wait_for 100 jst h2 '.fleet.dropped.malformed >= 3 and .fleet.dropped.foreign >= 1 and .fleet.dropped.mismatch >= 1' ||
	fail "bad messages not counted: $(ctl h2 --json status | jq -c .fleet)"
# A good one twice (QoS 1 may redeliver): recorded once.
pub -t latencyd/lab/alert/h9 -m "$(good h9 lab)"
pub -t latencyd/lab/alert/h9 -m "$(good h9 lab)"
wait_for 100 jst h2 '.fleet.dropped.duplicate >= 1' || fail "a duplicate incident was not dropped"
sleep 1
n2b=$(ctl h2 --json list-snapshots | jq '.matched')
[ "$n2b" = $((n2 + 1)) ] || fail "h2 recorded $((n2b - n2)) snapshots for bad messages and one good one twice"
for n in h1 h2 h3 h4; do kill -0 "$(eval echo "\$PID_$n")" || fail "$n died"; done
pass "malformed, oversized, foreign, forged and future messages dropped and counted; a duplicate recorded once"

for n in h1 h2 h3 h4; do
	kill "$(eval echo "\$PID_$n")"
done
sleep 1
for n in h1 h2 h3 h4; do
	grep -q "AddressSanitizer\|runtime error" "$T/$n/latencyd.log" && fail "$n: $(cat "$T/$n/latencyd.log")"
done
pass "fleet"
