#!/bin/bash
# One member floods the fleet with alerts: it must not crowd out the others. A real
# mosquitto and lttng-relayd, one latencyd (h1, peer bucket 10 at 0.2/s) recording its own
# alerts all along; "h9" publishes 6000 distinct incidents at once (mosquitto_pub -l), a
# quiet "h8" 10, one every 100 ms. Then:
# - every peer alert is accounted for: recorded, or refused and counted by budget;
# - h8's alerts are all recorded (a noisy host never takes a quiet one's turn), and h8
#   hears of each; h9 hears of every refusal, in a few result messages;
# - h1's own incident is kept, and a member's answer to it noted;
# - nothing the main loop must see is dropped; h1's log says "recording" once per record
#   and its refusals in a few summary lines; results counting unnamed incidents are a few
#   lines, none when no named incident is kept.
# Usage: lttng-env --relayd test-fleet-flood.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
for tool in mosquitto_pub mosquitto_sub; do
	command -v $tool >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
. "$(dirname "$0")/fleet-lib.sh"
start_fleet_broker

FLOOD=6000 QUIET=10
pub() { mosquitto_pub -h 127.0.0.1 -p "$PORT" -q 1 "$@"; }
# peer_alerts ORIGIN FIRST COUNT: COUNT alerts of ORIGIN (incidents ORIGIN-FIRST...), a line each.
peer_alerts() {
	local t
	t=$(date +%s%N)
	for i in $(seq "$2" $(($2 + $3 - 1))); do
		printf '{"v":3,"host":"%s","group":"lab","boot_id":"b","incident":"%s-%d","tracker":"syscalls","tid":1,"comm":"x","delay_ns":1,"start_realtime_ns":%s,"end_realtime_ns":%s,"monotonic_to_realtime_ns":0,"sent_realtime_ns":%s}\n' \
			"$1" "$1" "$i" "$t" "$t" "$t"
	done
}
by_origin() { ctl h1 --json list-snapshots --limit 1000 | jq --arg o "$1" '[.snapshots[] | select(.cause.origin == $o)] | length'; }
metric() { ctl h1 metrics | awk -v k="$1" '$1 == k { print $2 }'; }
refusals() { ctl h1 metrics | awk '$1 ~ /^latencyd_fleet_refusals_total/ { s += $2 } END { print s + 0 }'; }
# The sum of the counts of the results in FILE (mosquitto_sub -v lines), of STATUS.
counted() { sed 's/^[^ ]* //' "$1" | jq -s --arg s "$2" '[.[] | select(.status == $s) | .count] | add // 0'; }

FLEET_EXTRA='total_rate = 1000; total_burst = 1000;' node h1 lab 0.2 10
wait_for 300 jst h1 '.session.state == "recording" and .fleet.subscribed' ||
	fail "h1: not recording and subscribed: $(ctl h1 --json status; tail -5 "$T/h1/latencyd.log")"
alert h1
wait_for 300 sh -c "'$LATENCYCTL' -s '$T/h1/ctl.sock' --json incidents | jq -e '.incidents | length == 1' >/dev/null" ||
	fail "h1 opened no incident for its alert: $(ctl h1 --json incidents)"
I1=$(ctl h1 --json incidents | jq -r '.incidents[0].incident')

mosquitto_sub -h 127.0.0.1 -p "$PORT" -q 1 -t 'latencyd/lab/result/h8/#' -v >"$T/results-h8" &
PIDS+=($!)
mosquitto_sub -h 127.0.0.1 -p "$PORT" -q 1 -t 'latencyd/lab/result/h9/#' -v >"$T/results-h9" &
PIDS+=($!)
sleep 0.5
peer_alerts h9 1 $FLOOD >"$T/h9.txt"
pub -t latencyd/lab/alert/h9 -l <"$T/h9.txt" &
FLOOD_PID=$!
# h1's own alerts meanwhile: its waiter is busy recording while the peers' alerts queue.
"$ALERT_WRITE" "$T/h1/alerts" syscalls 40 25 &
LOCAL_PID=$!
for i in $(seq 1 $QUIET); do
	peer_alerts h8 "$i" 1 | pub -t latencyd/lab/alert/h8 -l
	sleep 0.1
done
wait $FLOOD_PID || fail "mosquitto_pub of the flood failed"
wait $LOCAL_PID || fail "alert-write on h1 failed"

# Every peer alert accounted for: a snapshot, or a refusal counted (by budget).
total=$((FLOOD + QUIET))
accounted() {
	local recorded
	recorded=$(ctl h1 --json list-snapshots --limit 1000 | jq '[.snapshots[] | select(.cause.origin)] | length')
	[ $((recorded + $(refusals))) -eq $total ]
}
wait_for 600 accounted ||
	fail "of $total peer alerts, $(by_origin h8) + $(by_origin h9) recorded and $(refusals) refused: $(ctl h1 --json status | jq -c .fleet); $(ctl h1 metrics | grep refusals_total)"
pass "$total peer alerts: $(by_origin h9) of h9's and $(by_origin h8) of h8's recorded, $(refusals) refused and counted"

# The quiet member's turn was never taken: all of its alerts recorded.
[ "$(by_origin h8)" -eq $QUIET ] ||
	fail "h8's alerts recorded: $(by_origin h8) of $QUIET; refused: $(grep -o 'refused[^:]*: h8-[^ ]*' "$T/h1/latencyd.log")"
[ "$(metric 'latencyd_fleet_refusals_total{budget="queue"}')" = "$(ctl h1 --json status | jq .fleet.dropped.busy)" ] ||
	fail "dropped.busy and refusals_total{queue} disagree: $(ctl h1 --json status | jq -c .fleet.dropped); $(ctl h1 metrics | grep refusals_total)"
ctl h1 --json status | jq -e '.fleet.notes_dropped == 0' >/dev/null ||
	fail "h1 dropped notes of its fleet: $(ctl h1 --json status | jq -c .fleet)"
pass "h8's $QUIET alerts all recorded during h9's flood; no note dropped"

# Each origin hears of what became of its alerts: h8 of each record, h9 of every refusal.
h8_answered() { [ "$(sed 's/^[^ ]* //' "$T/results-h8" | jq -r '.incidents[]' | sort -u | wc -l)" -eq $QUIET ]; }
wait_for 300 h8_answered || fail "h8 heard of $(sed 's/^[^ ]* //' "$T/results-h8" | jq -r '.incidents[]' | sort -u | wc -l) of its $QUIET alerts: $(cat "$T/results-h8")"
h9_refused=$((FLOOD - $(by_origin h9)))
wait_for 300 sh -c "[ \$(sed 's/^[^ ]* //' '$T/results-h9' | jq -s '[.[] | select(.status == \"refused\") | .count] | add // 0') -eq $h9_refused ]" ||
	fail "h9 heard of $(counted "$T/results-h9" refused) refusals of $h9_refused"
messages=$(grep -c '"refused"' "$T/results-h9")
[ "$messages" -le 60 ] || fail "h9's $h9_refused refusals took $messages result messages"
pass "h8 heard of all its alerts, h9 of its $h9_refused refusals in $messages message(s)"

# h1's log: one "recording" line per peer record; refusals in a few summary lines.
for o in h8 h9; do
	lines=$(grep -c "fleet: alert from $o " "$T/h1/latencyd.log")
	[ "$lines" -eq "$(by_origin $o)" ] ||
		fail "h1 logged $lines alerts from $o 'recording', $(by_origin $o) recorded"
done
lines=$(grep -c "peer alert(s) in the last .* refused" "$T/h1/latencyd.log")
[ "$lines" -ge 1 ] && [ "$lines" -le 40 ] || fail "h1 said its refusals in $lines lines"
pass "h1 logged 'recording' once per peer record, its refusals in $lines summary line(s)"

# h1's own incident kept through the flood: a member's answer to it is noted.
ctl h1 --json incidents | jq -e --arg i "$I1" '[.incidents[].incident] | index($i) != null' >/dev/null ||
	fail "h1's own incident $I1 evicted by h9's flood: $(ctl h1 --json incidents | jq -c '{matched, first: .incidents[-1]}')"
printf '{"v":3,"host":"h2","group":"lab","status":"recorded","incidents":["%s"],"count":1}\n' "$I1" |
	pub -t latencyd/lab/result/h1/h2 -l
wait_for 100 sh -c "'$LATENCYCTL' -s '$T/h1/ctl.sock' --json incidents | jq -e --arg i '$I1' '.incidents[] | select(.incident == \$i) | .recorded | index(\"h2\") != null' >/dev/null" ||
	fail "h2's answer to $I1 not noted: $(grep 'does not keep' "$T/h1/latencyd.log")"
pass "h1's own incident $I1 kept through the flood, h2's answer to it noted"

# Results that count more than they name: a few lines, none without a named incident kept.
for i in $(seq 200); do
	printf '{"v":3,"host":"h2","group":"lab","status":"refused","budget":"origin","incidents":["h1-1"],"count":1000}\n'
done | pub -t latencyd/lab/result/h1/h2 -l
for i in $(seq 100); do
	printf '{"v":3,"host":"h3","group":"lab","status":"stale","incidents":["%s"],"count":3}\n' "$I1"
done | pub -t latencyd/lab/result/h1/h3 -l
wait_for 100 sh -c "'$LATENCYCTL' -s '$T/h1/ctl.sock' --json incidents | jq -e --arg i '$I1' '.incidents[] | select(.incident == \$i) | .stale | index(\"h3\") != null' >/dev/null" ||
	fail "h3's answer to $I1 not noted"
sleep 1
grep -q "fleet: h2 says .* more incident" "$T/h1/latencyd.log" &&
	fail "h1 logged the count of a result naming no incident it keeps: $(grep 'fleet: h2 says' "$T/h1/latencyd.log" | head -3)"
lines=$(grep -c "fleet: h3 says 2 more incident(s) were stale" "$T/h1/latencyd.log")
[ "$lines" -ge 1 ] && [ "$lines" -le 8 ] || fail "100 results counting unnamed incidents: $lines log lines"
pass "results counting unnamed incidents: $lines log line(s) for 100, none for those naming no kept incident"
