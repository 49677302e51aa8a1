#!/bin/bash
# The history window, measured for real: latencyd in the userspace domain against its own
# lttng-sessiond (run by lttng-env --relayd as nobody), fed by ust-app. Before any alert a
# calibration snapshot gives status a measured window; a snapshot's catalog entry holds its
# own measurement, which must agree with what babeltrace2 shows of the same snapshot. Then
# snapshots sent to lttng-relayd: the catalog keeps the URL and where relayd put them, and
# deleting one removes only the entry.
# Usage: lttng-env --relayd test-history.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }

ust_recorder_setup "$UST_APP"
UST_NUM_SUBBUF=8 # enough packets for the calibration to record a sample of them
conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-history)
output: { directory = "$T/snapshots"; relayd = "$1"; fallback_local = false; };
ratelimit: { rate = 0; };
CONF
}
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }
jstatus() { local out; out=$(ctl --json status) && [ -n "$out" ] && jq -e "$1" <<<"$out" >/dev/null; }
jcat() { [ -s "$CAT" ] && jq -e "$@" "$CAT" >/dev/null 2>&1; }

conf ""
start_daemon -c "$T/latencyd.conf"
wait_for 50 jstatus '.session.state == "recording"' || fail "the session is not recording"
jstatus '.history.buffer_bytes_per_cpu == 32768 and .history.measured == null' ||
	fail "a measurement before any snapshot: $(ctl --json status)"
run ctl status
grep -Eq "^History window: +not measured yet" "$T/out" || fail "status: $(cat "$T/out")"
pass "before any snapshot: buffer size, no measurement"

# The calibration record comes about 10 s after start; the app fills 32 KiB in about two
# seconds, so the buffers are full by then. It is a sample, the newest 2 of the 8 packets
# of each stream: a rate, no window, and at most a quarter of the buffers' bytes.
wait_for 300 jstatus '.history.measured.source == "calibration"' ||
	fail "no calibration measurement: $(ctl --json status)"
ctl --json status >"$T/status.json"
jq -e '.history.measured | .sampled == true and .window_ns == null and .wrapped == null and
	.events > 0 and .bytes > 0 and .events_per_sec > 0 and .bytes_per_event > 0 and
	.id == null and .buffer_bytes_per_cpu == 32768 and
	.bytes <= 2 * 4096 * .streams_total' "$T/status.json" >/dev/null ||
	fail "calibration measurement: $(jq -c .history "$T/status.json")"
jq -e '.history.expected_window_ns > 0' "$T/status.json" >/dev/null || fail "no expected window"
ctl status >"$T/out"
grep -Eq '^ +rate measured in a sample of the buffers \(the calibration snapshot\) at [0-9:]+$' "$T/out" ||
	fail "status: no sampled rate: $(cat "$T/out")"
[ ! -e "$T/catalog/calibration" ] || fail "the calibration snapshot was left in $T/catalog"
[ ! -e "$T/snapshots" ] || [ -z "$(ls "$T/snapshots")" ] || fail "calibration in the snapshots directory"
[ ! -s "$CAT" ] || jcat '.snapshots == []' || fail "calibration in the catalog: $(cat "$CAT")"
grep -q "history of the calibration snapshot (a sample of the buffers): [0-9]* events/s" "$T/latencyd.log" ||
	fail "calibration not logged"
pass "calibration: a sample of $(jq .history.measured.bytes "$T/status.json") bytes, $(jq .history.measured.events_per_sec "$T/status.json") events/s, not in the catalog, deleted"

"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 jcat '.snapshots[0].history.window_ns > 0' ||
	fail "snapshot 1 has no history: $(cat "$CAT" 2>/dev/null)"
path=$(jq -r '.snapshots[0].path' "$CAT")
# Per CPU (cpu_id context): events, first and last time, from babeltrace2 itself.
# shellcheck disable=SC2046
babeltrace2 --clock-seconds $(find "$path" -name metadata -exec dirname {} \;) >"$T/trace.txt" ||
	fail "babeltrace2"
awk '{
	t = substr($1, 2, length($1) - 2);
	match($0, /cpu_id = [0-9]+/); c = substr($0, RSTART + 9, RLENGTH - 9);
	n[c]++; if (!(c in f)) f[c] = t; l[c] = t;
} END { for (c in n) print c, n[c], f[c], l[c] }' "$T/trace.txt" | sort -n >"$T/bt.txt"
[ -s "$T/bt.txt" ] || fail "babeltrace2 shows no event"
jq -r '.snapshots[0].history.streams[] | select(.events > 0) |
	"\(.cpu) \(.events) \(.first_ns) \(.last_ns)"' "$CAT" | sort -n >"$T/ours.txt"
# babeltrace2 prints SECONDS.NANOSECONDS: without the dot, nanoseconds as in the catalog.
while read -r cpu n first last; do
	read -r bcpu bn bfirst blast <<<"$(grep "^$cpu " "$T/bt.txt")"
	[ "$bn" = "$n" ] || fail "CPU $cpu: $n events in the catalog, babeltrace2 shows $bn"
	# jq reads integers as doubles: nanoseconds since 1970 come out within 256 ns.
	df=$((${bfirst/./} - first)) dl=$((${blast/./} - last))
	[ "${df#-}" -le 1000 ] && [ "${dl#-}" -le 1000 ] ||
		fail "CPU $cpu: first/last $first/$last, babeltrace2 shows $bfirst/$blast"
done <"$T/ours.txt"
[ "$(wc -l <"$T/ours.txt")" = "$(wc -l <"$T/bt.txt")" ] ||
	fail "not the same CPUs as babeltrace2: ours $(cat "$T/ours.txt"), babeltrace2 $(cat "$T/bt.txt"); $(jq -c .snapshots[0] "$CAT")"
jcat '.snapshots[0].history | .events == ([.streams[].events] | add) and
	.window_ns == ([.streams[] | select(.bytes + 4096 > 32768) | .span_ns] | min) and
	.bytes == ([.streams[].bytes] | add) and .expected_window_ns > 0' ||
	fail "history totals: $(jq -c '.snapshots[0].history' "$CAT")"
bytes=$(find "$path" -type f ! -name metadata ! -path '*/index/*' -printf '%s\n' | awk '{s += $1} END {print s}')
jcat --argjson b "$bytes" '.snapshots[0].history.bytes == $b' ||
	fail "history bytes $(jq '.snapshots[0].history.bytes' "$CAT"), stream files hold $bytes"
wait_for 50 jstatus '.history.measured.source == "snapshot" and .history.measured.id == 1' ||
	fail "status does not show snapshot 1's measurement: $(ctl --json status)"
run ctl status
grep -Eq '^History window: +expected [0-9.]+(ns|us|ms|s) \([0-9]+ events/s x [0-9.]+ bytes on the busiest CPU\)$' \
	"$T/out" || fail "status: no expected window: $(cat "$T/out")"
grep -Eq '^ +measured [0-9.]+(ns|us|ms|s) \(buffers full\) in snapshot 1 at [0-9:]+$' "$T/out" ||
	fail "status: no measured window: $(cat "$T/out")"
pass "snapshot 1: history in the catalog agrees with babeltrace2 (events, first and last per CPU); status shows it"

# relayd: the entry holds the URL and where relayd put it; delete keeps relayd's files.
conf "$LATENCYD_TEST_RELAYD_URL"
kill -HUP "$DAEMON_PID"
wait_for 50 grep -q "session settings changed: re-creating the session" "$T/latencyd.log" ||
	fail "reload did not re-create the session"
sleep 0.5
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 jcat '.snapshots[] | select(.id == 2 and .status == "complete")' ||
	fail "no snapshot 2 (relayd): $(cat "$CAT")"
jcat --arg u "$LATENCYD_TEST_RELAYD_URL" '.snapshots[] | select(.id == 2) |
	.url == $u and .path == null and .history == null and (.relayd_path | type) == "string"' ||
	fail "snapshot 2: $(jq -c '.snapshots[] | select(.id == 2)' "$CAT")"
rpath=$(jq -r '.snapshots[] | select(.id == 2) | .relayd_path' "$CAT")
# shellcheck disable=SC2086 # the pattern is relative to relayd's output directory
set -- $LATENCYD_TEST_RELAYD_OUT/$rpath
[ $# = 1 ] && [ -d "$1" ] || fail "relayd_path $rpath matches no directory under $LATENCYD_TEST_RELAYD_OUT: $(find "$LATENCYD_TEST_RELAYD_OUT" -maxdepth 3)"
rdir=$1
run ctl show-snapshot 2
expect_rc 0 "show-snapshot 2"
expect_out "Location  $LATENCYD_TEST_RELAYD_URL"
expect_out "on the relayd host: $rpath"
run ctl list-snapshots
grep -Eq "^2 .* $LATENCYD_TEST_RELAYD_URL\$" "$T/out" || fail "list-snapshots: $(cat "$T/out")"
run ctl delete-snapshot 2
expect_rc 0 "delete-snapshot 2"
expect_out "Snapshot 2 deleted from the catalog; its files stay on the relayd host ($LATENCYD_TEST_RELAYD_URL)."
[ -d "$rdir" ] || fail "relayd's files are gone"
jcat '[.snapshots[].id] == [1]' || fail "catalog after delete: $(jq -c '[.snapshots[].id]' "$CAT")"
run ctl --json delete-snapshot 1
jq -e '.deleted == true and .url == null' "$T/out" >/dev/null || fail "delete 1: $(cat "$T/out")"
[ ! -e "$path" ] || fail "delete-snapshot 1 left $path"
pass "relayd snapshot: url and relayd_path in the catalog, shown; delete keeps relayd's files"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
