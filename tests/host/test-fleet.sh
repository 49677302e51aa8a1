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
# Members from their retained presences: h2 and h3 for h1, h4 alone in its group.
wait_for 100 jst h1 '.fleet.subscribed and .fleet.members_online == 2' ||
	fail "h1 does not see h2 and h3 as members: $(ctl h1 --json status | jq -c .fleet)"
wait_for 100 jst h4 '.fleet.members_online == 0' || fail "h4 sees members of another group"
pass "four hosts recording, connected to the broker, each seeing its group's members"
sleep 1 # some history in every buffer

# One alert on h1: one incident, a snapshot of h1, h2, h3 in relayd's tree; none of h4.
alert h1
wait_for 300 sh -c "'$LATENCYCTL' -s '$T/h1/ctl.sock' --json list-snapshots | jq -e '.snapshots[0].incident' >/dev/null" ||
	fail "h1 did not record its alert: $(ctl h1 --json list-snapshots)"
# A local incident is HOST-N, N its catalog's incident_base + the snapshot's id: never
# the number of an incident before the catalog was lost.
I1=$(ctl h1 --json list-snapshots | jq -r '.snapshots[] | select(.id == 1) | .incident')
wait_for 50 test -s "$T/h1/catalog/catalog.json" || fail "h1 wrote no catalog"
[ "$I1" = "$(incident_of h1 1)" ] && [ "${I1#h1-}" -gt 1000000000000 ] ||
	fail "h1's first incident is '$I1', not h1-(incident_base + 1): $(jq -c '{next_id, incident_base}' "$T/h1/catalog/catalog.json")"
wait_for 300 sh -c "[ \$(find '$RELAYD_OUT' -mindepth 3 -maxdepth 3 -type d -name 'snap-*-$I1@*' | wc -l) -ge 3 ]" ||
	fail "incident $I1: in relayd's tree: $(in_relayd $I1)"
sleep 1
sessions=$(in_relayd $I1 | awk -F/ '{print $(NF-1)}' | sed 's/-[0-9]*-[0-9]*$//' | sort | tr '\n' ' ')
[ "$sessions" = "latencyd-h1 latencyd-h2 latencyd-h3 " ] ||
	fail "incident $I1 recorded by: $sessions"
# relayd may still be writing a snapshot its sender is done with: a few tries.
for d in $(in_relayd $I1); do
	wait_for 50 sh -c "babeltrace2 \"\$(dirname \"\$(find '$d' -name metadata | head -1)\")\" >/dev/null 2>&1" ||
		fail "babeltrace2 cannot read $d"
done
ctl h4 --json list-snapshots | jq -e '.snapshots | length == 0' >/dev/null ||
	fail "h4 (group other) recorded: $(ctl h4 --json list-snapshots)"
ctl h2 --json list-snapshots --incident $I1 |
	jq -e --arg i "$I1" '.snapshots | length == 1 and .[0].cause.reason == "peer" and .[0].cause.origin == "h1" and .[0].incident == $i' >/dev/null ||
	fail "h2's snapshot of $I1: $(ctl h2 --json list-snapshots --incident $I1)"
# h2 logs the peer's cause as h1 saw it: the thread, the delay, the origin and its incident.
tid=$(ctl h1 --json show-snapshot 1 | jq '.causes[0].tid')
grep -qF "alert from tracker peer: tid $tid (alert-write) 5000000 ns on h1, incident $I1 (tracker syscalls there): snapshot" "$T/h2/latencyd.log" ||
	fail "h2's log of its peer cause of $I1 (tid $tid): $(grep -F "tracker peer" "$T/h2/latencyd.log")"
wait_for 300 jinc h1 ".incidents[0].incident == \"$I1\" and (.incidents[0].recorded | sort) == [\"h1\",\"h2\",\"h3\"]" ||
	fail "h1's incidents: $(ctl h1 --json incidents)"
jinc h1 '.incidents[0].members == ["h1","h2","h3"] and .incidents[0].pending == [] and .incidents[0].local == []' ||
	fail "$I1's members and answers: $(ctl h1 --json incidents | jq -c '.incidents[0]')"
ctl h1 incidents >"$T/out" || fail "latencyctl incidents"
grep -q "$I1" "$T/out" && grep -q "h1, h2, h3" "$T/out" || fail "incidents (text): $(cat "$T/out")"
pass "an alert on h1: incident $I1 recorded by h1, h2 and h3 (in relayd's tree), not by h4"

# On the collector: every host's snapshot of the incident, the origin first.
run "$LATENCYCTL" analyze --incident $I1 "$RELAYD_OUT"
expect_rc 0 "analyze --incident $I1"
expect_out "Incident $I1 (origin h1): 3 snapshot(s) under $RELAYD_OUT"
[ "$(grep -c "^=== origin .*/snap-1-$I1@h1-" "$T/out")" = 1 ] ||
	fail "analyze --incident: the origin is not h1's snapshot: $(grep '^===' "$T/out")"
[ "$(grep -c '^=== peer ' "$T/out")" = 2 ] || fail "analyze --incident: not two peers"
expect_out "Window: "
run "$LATENCYCTL" --json analyze --incident $I1 "$RELAYD_OUT"
expect_rc 0 "analyze --incident --json"
jq -e --arg i "$I1" '.incident == $i and .origin_found and (.snapshots | length) == 3 and
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
wait_for 300 jinc h1 '[.incidents[] | select(.refused == ["h3"] and .details.h3 == "origin")] | length >= 3' ||
	fail "h3 refused too few: $(ctl h1 --json incidents | jq -c '.incidents[:7]')"
after=$(ctl h3 --json list-snapshots | jq '.matched')
peer_records=$((after - before))
[ "$peer_records" -le 1 ] || fail "h3 recorded $peer_records peer snapshots past its burst"
# Its refusals said together: one log line per window, not one per incident.
lines=$(grep -c "peer alert(s) in the last .* refused by their origin's bucket" "$T/h3/latencyd.log")
[ "$lines" -ge 1 ] && [ "$lines" -lt 4 ] || fail "h3 logged its refusals in $lines lines: $(grep refused "$T/h3/latencyd.log")"
# Counted for Prometheus by budget: as many as h1's incidents list (once h3's window of
# results reached h1), none by another budget.
refusals_agree() {
	local refused
	refused=$(ctl h1 --json incidents | jq '[.incidents[] | select(.details.h3 == "origin")] | length')
	ctl h3 metrics >"$T/h3.metrics" &&
		grep -qx "latencyd_fleet_refusals_total{budget=\"origin\"} $refused" "$T/h3.metrics" &&
		grep -qx 'latencyd_fleet_refusals_total{budget="total"} 0' "$T/h3.metrics"
}
wait_for 100 refusals_agree ||
	fail "h3's refusals: $(grep refusals "$T/h3.metrics"), h1 lists $(ctl h1 --json incidents | jq -c '[.incidents[].details]')"
# Another, quiet origin is not refused for h1's noise: h3 records h2's next incident.
ctl h2 -t 60 record --reason "quiet origin" >/dev/null || fail "record on h2"
wait_for 300 sh -c "[ \$($LATENCYCTL -s $T/h3/ctl.sock --json list-snapshots | jq '[.snapshots[] | select(.cause.origin == \"h2\")] | length') -ge 2 ]" ||
	fail "h3 refused quiet h2's incident during h1's flood: $(ctl h3 --json list-snapshots | jq -c '[.snapshots[] | {id, incident}]')"
# h2 took one peer alert per incident of h1's (its own record is no peer's), or refused it
# as it came (6 records in a row: past its fleet.total_burst of 5).
h1_incidents=$(ctl h1 --json incidents | jq '[.incidents[] | select(.origin == "h1")] | length')
h2_refused() { ctl h2 metrics | awk '$1 ~ /^latencyd_fleet_refusals_total/ { s += $2 } END { print s + 0 }'; }
h2_handled() { [ $(($(ctl h2 --json status | jq .counters.peers) + $(h2_refused))) -eq "$h1_incidents" ]; }
wait_for 300 h2_handled ||
	fail "h2 took $(ctl h2 --json status | jq .counters.peers) peer alerts and refused $(h2_refused) for $h1_incidents incidents"
alert h3
wait_for 300 sh -c "[ \$($LATENCYCTL -s $T/h3/ctl.sock --json list-snapshots --tracker syscalls | jq '.matched') -ge 1 ]" ||
	fail "h3's own alert was not recorded during the peer flood"
pass "peer flood: h3 refused past its peer bucket (said in the incidents), its own alert recorded"

# The broker goes away: local recording goes on; it comes back: the fleet reconnects.
kill "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null
wait_for 100 jst h1 '.fleet.connected == false' || fail "h1 still says connected"
n1=$(ctl h1 --json list-snapshots | jq '.matched')
down=$(incident_of h1 $(( $(ctl h1 --json list-snapshots | jq '[.snapshots[].id] | max') + 1 )))
alert h1
wait_for 100 sh -c "[ \$($LATENCYCTL -s $T/h1/ctl.sock --json list-snapshots | jq '.matched') -gt $n1 ]" ||
	fail "h1 did not record locally with the broker down"
# Not queued for later: past fleet.max_age (5 s) it is given up, and the incident says so.
wait_for 100 jinc h1 "[.incidents[] | select(.incident == \"$down\" and (.unpublished | test(\"max_age\")))] | length == 1" ||
	fail "$down not said unpublished: $(ctl h1 --json incidents | jq -c '.incidents[0]')"
start_broker
for n in h1 h2 h3; do
	wait_for 300 jst $n '.fleet.connected and .fleet.reconnects >= 1' ||
		fail "$n did not reconnect: $(ctl $n --json status | jq -c .fleet)"
done
inc=$(incident_of h1 $(( $(ctl h1 --json list-snapshots | jq '[.snapshots[].id] | max') + 1 )))
sleep 0.5
alert h1
wait_for 300 sh -c "[ \$(find '$RELAYD_OUT' -mindepth 3 -maxdepth 3 -type d -name 'snap-*-$inc@*' | wc -l) -ge 2 ]" ||
	fail "after the broker came back, incident $inc: $(in_relayd "$inc")"
# h2's catalog has it (its record is over), h3's peer bucket refused it.
wait_for 300 sh -c "[ \$($LATENCYCTL -s $T/h2/ctl.sock --json list-snapshots --incident $inc | jq .matched) = 1 ]" ||
	fail "h2 has no snapshot of $inc"
[ "$(ctl h2 --json list-snapshots --incident "$down" | jq .matched)" = 0 ] ||
	fail "h2 recorded $down, raised while the broker was down, when it came back"
pass "broker killed: local snapshots go on; restarted: reconnected, incidents again"

# Bad messages: counted and dropped, nothing crashes, nothing recorded.
pub() { mosquitto_pub -h 127.0.0.1 -p "$PORT" -q 1 "$@"; }
# msg HOST GROUP INCIDENT [END_NS]: an alert as latencyd publishes it, ending now by default.
msg() {
	local end=${4:-$(date +%s%N)}
	echo "{\"v\":3,\"host\":\"$1\",\"group\":\"$2\",\"incident\":\"$3\",\"tracker\":\"syscalls\",\"start_realtime_ns\":$((end - 1000)),\"end_realtime_ns\":$end,\"sent_realtime_ns\":$end}"
}
n2=$(ctl h2 --json list-snapshots | jq '.matched')
pub -t latencyd/lab/alert/h9 -m 'not json'
pub -t latencyd/lab/alert/h9 -m "$(head -c 5000 /dev/zero | tr '\0' x)"
pub -t latencyd/lab/alert/h9 -m '{"v":1,"host":"h9","group":"lab","incident":"h9-1","tracker":"x","start_realtime_ns":1,"end_realtime_ns":2}'
pub -t latencyd/lab/alert/h9 -m "$(msg h9 other h9-7)"
pub -t latencyd/lab/alert/h9 -m "$(msg h8 lab h8-7)"
# On its own topic, in its own name, an incident of h1's: speaking for h1.
pub -t latencyd/lab/alert/h9 -m "$(msg h9 lab h1-77)"
# A minute old: held by a broker, or a replay. Never recorded.
pub -t latencyd/lab/alert/h9 -m "$(msg h9 lab h9-5 $(( $(date +%s%N) - 60000000000 )))"
wait_for 100 jst h2 '.fleet.dropped.malformed >= 3 and .fleet.dropped.foreign >= 1 and .fleet.dropped.mismatch >= 2 and .fleet.dropped.stale >= 1' ||
	fail "bad messages not counted: $(ctl h2 --json status | jq -c .fleet)"
# The stale one is said, to the origin too, in the window's line; not kept in h2's incidents
# (a flood of them would push out the recorded ones).
wait_for 100 grep -q "peer alert(s) in the last 2 s stale (older than fleet.max_age): h9-5" "$T/h2/latencyd.log" ||
	fail "h9-5 not said stale by h2: $(grep 'in the last' "$T/h2/latencyd.log")"
ctl h2 --json incidents | jq -e '[.incidents[] | select(.incident == "h9-5")] | length == 0' >/dev/null ||
	fail "h2 keeps an incident for a stale request: $(ctl h2 --json incidents | jq -c '.incidents[:3]')"
# Sent a minute before h2 got it: h9's clock is behind, or the delivery that late; counted
# (status and metrics), the origin named in the log.
skewed=$(ctl h2 --json status | jq .fleet.clock_skewed)
[ "$skewed" -ge 1 ] 2>/dev/null || fail "h9-5's sending time not counted far off: $skewed"
ctl h2 metrics | grep -qx "latencyd_fleet_clock_skewed_total $skewed" ||
	fail "no latencyd_fleet_clock_skewed_total $skewed: $(ctl h2 metrics | grep skew)"
grep -q "h9's clock is" "$T/h2/latencyd.log" || fail "h9's clock not named: $(grep -i clock "$T/h2/latencyd.log")"
ctl h2 status | grep -q " dropped, $skewed sent by a clock far off" ||
	fail "h2's status text does not say $skewed far off: $(ctl h2 status | grep -i received)"
# A good one twice (QoS 1 may redeliver): recorded once.
good=$(msg h9 lab h9-6)
pub -t latencyd/lab/alert/h9 -m "$good"
pub -t latencyd/lab/alert/h9 -m "$good"
wait_for 100 jst h2 '.fleet.dropped.duplicate >= 1' || fail "a duplicate incident was not dropped"
sleep 1
n2b=$(ctl h2 --json list-snapshots | jq '.matched')
[ "$n2b" = $((n2 + 1)) ] || fail "h2 recorded $((n2b - n2)) snapshots for bad messages and one good one twice"
ctl h2 --json list-snapshots --incident h1-77 | jq -e '.matched == 0' >/dev/null || fail "h2 recorded the spoofed h1-77"
# 1 MiB payloads: past the maximum packet size latencyd-fleet asks for, so the broker
# (without a limit of its own here) drops them for each member, never sends them; the
# 5000-byte one after them arrives and is counted. Memory stays flat, in latencyd and in
# latencyd-fleet.
HELPER_h2=$(ctl h2 --json status | jq .fleet.process.pid)
rss() { awk '/^VmRSS/ { s += $2 } END { print s }' "/proc/$PID_h2/status" "/proc/$HELPER_h2/status"; }
head -c 1048576 /dev/zero | tr '\0' x >"$T/big"
pub -t latencyd/lab/alert/h9 -f "$T/big"
m0=$(ctl h2 --json status | jq .fleet.dropped.malformed)
rss0=$(rss)
for _ in $(seq 20); do pub -t latencyd/lab/alert/h9 -f "$T/big"; done
pub -t latencyd/lab/alert/h9 -m "$(head -c 5000 /dev/zero | tr '\0' x)"
# Delivered in order: once the 5000-byte one is counted, so would the others have been.
wait_for 100 jst h2 ".fleet.dropped.malformed > $m0" || fail "the 5000-byte payload not counted"
jst h2 ".fleet.dropped.malformed == $((m0 + 1))" ||
	fail "1 MiB payloads reached h2's fleet process: $(ctl h2 --json status | jq -c .fleet)"
[ "$(grep -c "Dropping too large outgoing PUBLISH for latencyd-h2 " "$T/mosquitto.log")" -ge 21 ] ||
	fail "the broker did not drop the 1 MiB payloads for h2: $(grep -c "Dropping too large" "$T/mosquitto.log")"
rss1=$(rss)
# ASan's quarantine keeps freed memory on purpose: flatness is the release build's to show.
if ldd "$LATENCYD" | grep -q libasan; then
	echo "note: RSS $rss0 -> $rss1 KiB not checked under AddressSanitizer"
else
	[ $((rss1 - rss0)) -lt 4096 ] ||
		fail "h2 and its fleet process grew from $rss0 to $rss1 KiB on 20 payloads of 1 MiB"
fi
for n in h1 h2 h3 h4; do kill -0 "$(eval echo "\$PID_$n")" || fail "$n died"; done
pass "malformed, 1 MiB (dropped by the broker), foreign, forged, spoofed, stale and old-version messages dropped and counted; a duplicate recorded once"

# A task names itself with any bytes (pthread_setname_np, prctl); the fleet's text is
# printable ASCII, which latencyd-fleet checks: the name goes out cleaned, the helper stays.
# In the log, its newline and escape are defanged: no forged line, nothing for a terminal.
helper=$(ctl h1 --json status | jq -c '.fleet.process | {pid, restarts}')
n1=$(ctl h1 --json list-snapshots | jq '.matched')
ALERT_COMM=$'caf\xc3\xa9\n\x1b[1m' alert h1
wait_for 300 sh -c "[ \$('$LATENCYCTL' -s '$T/h1/ctl.sock' --json list-snapshots | jq .matched) -gt $n1 ]" ||
	fail "h1 did not record the alert of a task named in UTF-8"
IC=$(ctl h1 --json list-snapshots | jq -r '[.snapshots[] | select(.incident)] | max_by(.id) | .incident')
wait_for 300 sh -c "'$LATENCYCTL' -s '$T/h2/ctl.sock' --json list-snapshots --incident '$IC' | jq -e '.matched == 1' >/dev/null" ||
	fail "h2 did not record $IC, whose task is named in UTF-8: $(grep -i fleet "$T/h1/latencyd.log" | tail -5)"
ctl h2 --json show-snapshot "$(ctl h2 --json list-snapshots --incident "$IC" | jq '.snapshots[0].id')" |
	jq -e '.causes[0].comm == "caf????[1m"' >/dev/null ||
	fail "h2's cause of $IC: $(ctl h2 --json list-snapshots --incident "$IC" | jq -c '.snapshots[0].cause')"
[ "$(ctl h1 --json status | jq -c '.fleet.process | {pid, restarts}')" = "$helper" ] &&
	! grep -q "latencyd-fleet .* killed\|latencyd-fleet.*exited" "$T/h1/latencyd.log" ||
	fail "h1's latencyd-fleet went down for a task's name: $helper, now $(ctl h1 --json status | jq -c .fleet.process)"
grep -q "(caf"$'\xc3\xa9'"??\[1m)" "$T/h1/latencyd.log" && ! grep -q $'\x1b' "$T/h1/latencyd.log" &&
	! grep -q '^\[1m' "$T/h1/latencyd.log" ||
	fail "the task's name in h1's log: $(grep -a 'caf' "$T/h1/latencyd.log" | od -c | head -5)"
pass "a task named in UTF-8 with a newline and an escape: published cleaned (caf????[1m), recorded by a peer, defanged in the log; latencyd-fleet stays up"

# A result names only the incidents of the host it goes to, which keeps each one it
# published: a result for one it does not keep is dropped, not noted (a flood of them would
# push the real ones out of the catalog's newest 256).
before=$(ctl h1 --json incidents | jq '.matched')
for i in 1 2 3; do
	pub -t latencyd/lab/result/h1/h9 -m "{\"v\":3,\"host\":\"h9\",\"group\":\"lab\",\"status\":\"recorded\",\"incidents\":[\"h1-99999$i\"],\"count\":1}"
done
wait_for 100 grep -q "fleet: h9 sent a result for h1-99999., an incident this host does not keep" "$T/h1/latencyd.log" ||
	fail "h1 did not say it dropped results for incidents it does not keep: $(grep fleet: "$T/h1/latencyd.log" | tail -5)"
sleep 1
ctl h1 --json incidents | jq -e --argjson b "$before" '.matched == $b and ([.incidents[] | select(.incident | startswith("h1-99999"))] | length == 0)' >/dev/null ||
	fail "h1 noted forged incidents: $(ctl h1 --json incidents | jq -c '[.incidents[].incident]')"
[ "$(grep -c "an incident this host does not keep" "$T/h1/latencyd.log")" = 2 ] ||
	fail "three dropped results are not two log lines (1st, 2nd): $(grep "does not keep" "$T/h1/latencyd.log")"
# Counted where the fleet's other drops are (1.17): status's fleet.dropped, in the sum the
# text says, and the metrics' reason "unknown".
# By message: one naming two such incidents counts once.
pub -t latencyd/lab/result/h1/h9 -m '{"v":3,"host":"h9","group":"lab","status":"recorded","incidents":["h1-999994","h1-999995"],"count":2}'
wait_for 100 jst h1 '.fleet.dropped.unknown == 4' ||
	fail "h1's status does not count 4 unknown results: $(ctl h1 --json status | jq -c .fleet.dropped)"
sum=$(ctl h1 --json status | jq '[.fleet.dropped[]] | add')
ctl h1 status | grep -q " received, $sum dropped" ||
	fail "h1's status text does not say $sum dropped: $(ctl h1 status | grep -i broker)"
ctl h1 metrics | grep -qx 'latencyd_fleet_dropped_messages_total{reason="unknown"} 4' ||
	fail "h1's metrics: $(ctl h1 metrics | grep dropped_messages)"
pass "results for incidents h1 does not keep: dropped, counted in status, the metrics and the log, its incidents unchanged"

# A large fleet's history: 256 incidents (what a catalog keeps: the file's 300 are cut to the
# newest at load) of 100 members each are far more than one reply (64 KiB) holds.
# latencyctl incidents lists the newest that fit and says how many it left.
mkdir -p "$T/h5/catalog"
jq -n --arg now "$(date +%s)" '{version: 1, next_id: 1, incident_base: 0, snapshots: [],
	suppressed: {total: 0, by_tracker: {}, recent: []},
	incidents: [range(300) as $i | {incident: "big\($i % 7)-\($i)", origin: "big\($i % 7)",
		time: (($now | tonumber) - 300 + $i), members: ["h5"],
		recorded: [range(100) as $m | "member-\($m)"] }]}' >"$T/h5/catalog/catalog.json"
node h5 big 10 10
wait_for 200 jst h5 '.session.state == "recording"' || fail "h5 not recording: $(tail -5 "$T/h5/latencyd.log")"
ctl h5 --json incidents >"$T/out" || fail "incidents on h5: $(cat "$T/out")"
listed=$(jq '.incidents | length' "$T/out")
jq -e '.matched == 256 and (.incidents | length) > 10 and (.incidents | length) < 256 and
	.incidents[0].incident == "big5-299"' "$T/out" >/dev/null ||
	fail "incidents on h5: $(jq -c '{matched, n: (.incidents | length), first: .incidents[0].incident}' "$T/out")"
ctl h5 incidents >"$T/out" || fail "incidents (text) on h5"
grep -q "^$((256 - listed)) older incident(s) not shown: one reply holds the $listed newest.$" "$T/out" ||
	fail "incidents (text) on h5 does not say what it left out: $(tail -2 "$T/out")"
[ "$(ctl h5 --json incidents --limit 5 | jq '.incidents | length')" = 5 ] || fail "incidents --limit 5 on h5"
pass "300 incidents of 100 members in a file, the newest 256 kept: the newest $listed listed in one reply, the rest counted"

for n in h1 h2 h3 h4 h5; do
	kill "$(eval echo "\$PID_$n")"
done
sleep 1
for n in h1 h2 h3 h4 h5; do
	grep -q "AddressSanitizer\|runtime error" "$T/$n/latencyd.log" && fail "$n: $(cat "$T/$n/latencyd.log")"
done
pass "fleet"
