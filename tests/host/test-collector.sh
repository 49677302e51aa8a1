#!/bin/bash
# The fleet's collector, for real: a mosquitto broker and an lttng-relayd on 127.0.0.1, three
# latencyd in group "lab" (h1, h2, h3) that record every incident into relayd's tree, and a
# collector-only latencyd "c" (session.enabled = false, collector.directory = relayd's
# output) that applies retention by whole incidents: at start under max_bytes (the oldest
# whole incidents go, the newest stay whole and readable), at a reload under max_age, never
# a snapshot still being written; and h1, a recording host, as the collector once enabled by
# a reload. Incidents are aged with touch, so that nothing waits for the clock; a reload runs
# a pass at once, so that nothing waits for the 60 s timer.
# Usage: lttng-env --relayd test-collector.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 is not installed"; exit 77; }
RELAYD_OUT=$LATENCYD_TEST_RELAYD_OUT

. "$(dirname "$0")/fleet-lib.sh"
start_fleet_broker

# The snapshots of incident $1 in relayd's tree, one line per host.
in_relayd() { find "$RELAYD_OUT" -mindepth 3 -maxdepth 3 -type d -name "snap-*-$1@*" | sort; }
count() { in_relayd "$1" | wc -l; }
# Bytes of the files of incident $1 on disk (512-byte blocks, as du and latencyd count).
bytes() { in_relayd "$1" | xargs -r -I{} find {} -type f -printf '%b\n' | awk '{ s += $1 } END { print s * 512 }'; }
readable() {
	local d m
	for d in $(in_relayd "$1"); do
		m=$(find "$d" -name metadata | head -1)
		[ -n "$m" ] && babeltrace2 "$(dirname "$m")" >/dev/null 2>&1 || return 1
	done
}
# Raises an incident on host $1 (an alert, or latencyctl record with "record"), waits until
# every host's snapshot of it is whole in relayd's tree, and sets INC to its id.
raise() {
	local id
	id=$(( $(ctl "$1" --json list-snapshots | jq '[.snapshots[].id] | max // 0') + 1 ))
	if [ "${2:-}" = record ]; then
		ctl "$1" -t 60 record --reason collector >/dev/null || fail "record on $1"
	else
		alert "$1"
	fi
	INC=$(incident_of "$1" "$id")
	wait_for 300 sh -c "[ \$(find '$RELAYD_OUT' -mindepth 3 -maxdepth 3 -type d -name 'snap-*-$INC@*' | wc -l) -ge 3 ]" ||
		fail "incident $INC: in relayd's tree: $(in_relayd "$INC")"
	# relayd may still be writing a snapshot its sender is done with: a few tries.
	wait_for 100 readable "$INC" || fail "babeltrace2 cannot read incident $INC"
}
# Every file and directory of incident $1 last modified $2 minutes ago.
age() {
	local t=$(($(date +%s) - $2 * 60)) d
	for d in $(in_relayd "$1"); do
		find "$d" -exec touch -h -d "@$t" {} + || fail "cannot age $d"
	done
}
clog() { grep -c "collector: deleted incident $1 " "$T/c/latencyd.log"; }

node h1 lab 10 10
node h2 lab 10 10
node h3 lab 10 10
for n in h1 h2 h3; do
	wait_for 200 jst $n '.session.state == "recording" and .fleet.connected' ||
		fail "$n: not recording and connected: $(ctl $n --json status; tail -5 "$T/$n/latencyd.log")"
done
sleep 1 # some history in every buffer
raise h1; I1=$INC
raise h2 record; I2=$INC
raise h3; I3=$INC
raise h1; I4=$INC
for i in "$I1" "$I2" "$I3" "$I4"; do
	[ "$(count "$i")" = 3 ] || fail "incident $i has $(count "$i") snapshots: $(in_relayd "$i")"
done
age "$I1" 40
age "$I2" 30
age "$I3" 20
age "$I4" 10
pass "four incidents ($I1 $I2 $I3 $I4) of three snapshots each in relayd's tree, aged 40 to 10 min"

# A collector-only latencyd: max_bytes lets the newest two and half the next one in.
limit=$(($(bytes "$I3") + $(bytes "$I4") + $(bytes "$I2") / 2))
mkdir -p "$T/c"
collector_conf() {
	cat >"$T/c/latencyd.conf" <<CONF
control: { socket = "$T/c/ctl.sock"; save_file = ""; };
module: { load = false; };
session: { enabled = false; };
log: { level = "debug"; };
collector: { enabled = ${3:-true}; directory = "$RELAYD_OUT"; max_age = "$1"; max_bytes = $2; };
CONF
}
collector_conf 0 "$limit"
"$LATENCYD" -c "$T/c/latencyd.conf" 2>"$T/c/latencyd.log" &
PIDS+=($!)
PID_c=$!
wait_for 100 grep -q "collector: deleted incident $I2 " "$T/c/latencyd.log" ||
	fail "the collector deleted nothing at start: $(cat "$T/c/latencyd.log")"
[ "$(count "$I1")" = 0 ] && [ "$(count "$I2")" = 0 ] ||
	fail "left of $I1 and $I2: $(in_relayd "$I1") $(in_relayd "$I2")"
[ "$(count "$I3")" = 3 ] && [ "$(count "$I4")" = 3 ] ||
	fail "not kept whole: $I3: $(in_relayd "$I3"); $I4: $(in_relayd "$I4")"
readable "$I3" && readable "$I4" || fail "babeltrace2 cannot read what was kept"
grep "collector: deleted" "$T/c/latencyd.log" >"$T/deleted"
[ "$(wc -l <"$T/deleted")" = 2 ] && grep -q "incident $I1 (3 snapshots, .*, from h1, h2, h3): over collector.max_bytes" <(head -1 "$T/deleted") &&
	grep -q "incident $I2 (3 snapshots, .*, from h1, h2, h3): over collector.max_bytes" <(tail -1 "$T/deleted") ||
	fail "deletions logged: $(cat "$T/deleted")"
total=$(find "$RELAYD_OUT" -mindepth 3 -maxdepth 3 -type d -name 'snap-*' -exec find {} -type f -printf '%b\n' \; | awk '{ s += $1 } END { print s * 512 }')
[ "$total" -le "$limit" ] || fail "the tree holds $total bytes, over $limit"
[ "$(find "$RELAYD_OUT" -mindepth 2 -maxdepth 2 -type d | wc -l)" = 3 ] ||
	fail "session directories: $(find "$RELAYD_OUT" -mindepth 2 -maxdepth 2)"
grep -q "cannot read lttng-relayd's open files" "$T/c/latencyd.log" &&
	fail "the collector could not read relayd's descriptors: $(cat "$T/c/latencyd.log")"
ctl c --json status | jq -e --argjson total "$total" '.collector | .incidents == 2 and .bytes == $total and
	.deleted == 2 and .deleted_bytes > 0 and .last_pass_realtime_ns > 0 and (has("problem") | not)' >/dev/null ||
	fail "the collector's status: $(ctl c --json status | jq -c .collector)"
ctl c status | grep -q "^Collector: *$RELAYD_OUT: 2 incident(s), .*; 2 deleted (.*) since start; last pass 2" ||
	fail "the collector's status (text): $(ctl c status)"
pass "at start, under max_bytes: $I1 then $I2 deleted whole, oldest first; $I3 and $I4 kept whole and readable ($total <= $limit bytes)"

# An unreadable directory (c runs as nobody) and a foreign file are there from now on. While
# a session directory cannot be listed, any incident may have a snapshot in it: none is
# deleted, neither by max_age nor by max_bytes, and the directory is one warning.
mkdir -p "$RELAYD_OUT/blocked/s-20260101-000000" && chmod 000 "$RELAYD_OUT/blocked/s-20260101-000000"
echo notes >"$RELAYD_OUT/notes"
collector_conf 900s 0
ctl c reload >/dev/null || fail "reload of the collector"
ctl c --json status | jq -e '.collector.problem | test("cannot read .*/blocked")' >/dev/null ||
	fail "the collector's status does not say what it cannot read: $(ctl c --json status | jq -c .collector)"
raise h2; I5=$INC
collector_conf 0 1
ctl c reload >/dev/null || fail "reload of the collector"
[ "$(count "$I3")" = 3 ] && [ "$(count "$I4")" = 3 ] && [ "$(count "$I5")" = 3 ] ||
	fail "deleted with a directory unread: $I3: $(in_relayd "$I3"); $I4: $(in_relayd "$I4"); $I5: $(in_relayd "$I5")"
[ "$(clog "$I3")" = 0 ] && [ "$(clog "$I4")" = 0 ] || fail "a deletion with a directory unread: $(grep collector: "$T/c/latencyd.log")"
[ "$(grep -c "collector: cannot read $RELAYD_OUT/blocked/s-20260101-000000: Permission denied; what is under it is kept, and every fleet incident until it can be read" "$T/c/latencyd.log")" = 1 ] ||
	fail "the unreadable directory is not one warning over two passes: $(grep collector: "$T/c/latencyd.log")"
[ "$(grep -c "collector: 1 entries of $RELAYD_OUT are not latencyd's snapshots" "$T/c/latencyd.log")" = 1 ] ||
	fail "the foreign file is not said once: $(grep collector: "$T/c/latencyd.log")"
pass "a session directory unreadable: $I3 (over max_age), $I4 and $I5 (over max_bytes) kept whole, one warning"

# Readable again: a reload with max_age, the incident older than 15 min goes, at once.
chmod 755 "$RELAYD_OUT/blocked/s-20260101-000000"
collector_conf 900s 0
ctl c reload >/dev/null || fail "reload of the collector"
[ "$(count "$I3")" = 0 ] && [ "$(count "$I4")" = 3 ] ||
	fail "after a reload with max_age 900s: $I3: $(in_relayd "$I3"); $I4: $(in_relayd "$I4")"
grep -q "collector: deleted incident $I3 (3 snapshots, .*): over collector.max_age" "$T/c/latencyd.log" ||
	fail "no max_age deletion logged: $(grep collector: "$T/c/latencyd.log")"
pass "readable again, max_age 900s: $I3 (20 min old) deleted at once, $I4 (10 min) kept"

# A directory deep inside one host's snapshot that relayd's user (as c runs) cannot write:
# the snapshot and its session directory can be, but its files cannot be unlinked. Nothing
# of the incident goes, the warning names that directory, and so does the status.
files() { in_relayd "$1" | xargs -r -I{} find {} -type f | sort; }
files "$I4" >"$T/files-before"
ro=$(find "$(in_relayd "$I4" | sed -n 2p)" -mindepth 2 -type d | tail -1)
[ -n "$ro" ] || fail "no directory inside $(in_relayd "$I4" | sed -n 2p)"
chmod 555 "$ro"
collector_conf 0 1
ctl c reload >/dev/null || fail "reload of the collector"
chmod 755 "$ro"
files "$I4" | cmp -s - "$T/files-before" ||
	fail "$I4 deleted in part with $ro read-only: $(files "$I4" | diff "$T/files-before" -)"
[ "$(clog "$I4")" = 0 ] || fail "$I4 logged as deleted"
grep -q "collector: cannot delete incident $I4: ${ro#"$RELAYD_OUT/"}: Permission denied; all of it is kept" "$T/c/latencyd.log" ||
	fail "the warning does not name $ro: $(grep collector: "$T/c/latencyd.log")"
ctl c --json status | jq -e '.collector.problem | test("delet")' >/dev/null ||
	fail "the collector's status does not say a deletion failed: $(ctl c --json status | jq -c .collector)"
pass "a read-only directory deep in one of $I4's snapshots: $I4 kept whole, the directory named"

# A snapshot being written (changed within 60 s) is never deleted, even over max_bytes.
collector_conf 0 1
ctl c reload >/dev/null || fail "reload of the collector"
[ "$(count "$I4")" = 0 ] && [ "$(count "$I5")" = 3 ] ||
	fail "after a reload with max_bytes 1: $I4: $(in_relayd "$I4"); $I5: $(in_relayd "$I5")"
[ "$(clog "$I5")" = 0 ] || fail "$I5 deleted while fresh"
readable "$I5" || fail "babeltrace2 cannot read $I5"
kill -0 "$PID_c" || fail "the collector died"
pass "reload, max_bytes 1: $I4 deleted, $I5 (just written) kept whole and readable"

# Off at a reload; then h1, a recording host, is the collector from a reload on.
collector_conf 0 1 false
ctl c reload >/dev/null || fail "reload of the collector"
grep -q "collector: off" "$T/c/latencyd.log" || fail "the collector did not stop"
age "$I5" 5
cat >>"$T/h1/latencyd.conf" <<CONF
collector: { enabled = true; directory = "$RELAYD_OUT"; max_bytes = 1; };
CONF
ctl h1 reload >/dev/null || fail "reload of h1"
[ "$(count "$I5")" = 0 ] || fail "h1 as the collector kept $I5: $(in_relayd "$I5")"
grep -q "collector: deleted incident $I5 (3 snapshots, .*, from h1, h2, h3): over collector.max_bytes" "$T/h1/latencyd.log" ||
	fail "h1 did not log the deletion: $(grep collector: "$T/h1/latencyd.log")"
[ "$(clog "$I5")" = 0 ] || fail "c deleted $I5 after it was turned off"
jst h1 '.session.state == "recording"' || fail "h1 stopped recording"
pass "collector off at a reload; h1 (recording) as the collector from a reload on: $I5 deleted"

# Between reloads the passes come every collector.interval, without a word from anyone. Two
# snapshots are dated years ahead of the clock (a clock stepped back since, a touch -d): not
# taken as being written, but as new, so that max_bytes still bounds them, the older first;
# said once however many passes meet them.
mkdir -p "$T/p/tree"
ahead() {
	local s="$T/p/tree/h9/latencyd-20260101-000000/snap-$1-20260101-000000-0"
	mkdir -p "$s/kernel" && head -c 100000 /dev/zero >"$s/kernel/chan_0" &&
		find "$s" -exec touch -h -d "$2" {} + || fail "cannot make $s"
	echo "$s"
}
A1=$(ahead 91 2031-01-01) A2=$(ahead 92 2032-01-01)
keep=$(find "$A2" -type f -printf '%b\n' | awk '{ s += $1 } END { print s * 512 }')
cat >"$T/p/latencyd.conf" <<CONF
control: { socket = "$T/p/ctl.sock"; save_file = ""; };
module: { load = false; };
session: { enabled = false; };
collector: { enabled = true; directory = "$T/p/tree"; interval = "1s"; max_age = "1d"; max_bytes = $keep; };
CONF
"$LATENCYD" -c "$T/p/latencyd.conf" 2>"$T/p/latencyd.log" &
PIDS+=($!)
PID_p=$!
last_pass() { ctl p --json status | jq -e '.collector.last_pass_realtime_ns // 0'; }
passed_since() { [ "$(last_pass)" -gt "$1" ]; }
wait_for 100 passed_since 0 || fail "no first pass: $(ctl p --json status | jq -c .collector)"
seen=$(last_pass)
for pass_no in 2 3; do
	wait_for 50 passed_since "$seen" ||
		fail "pass $pass_no did not come within 5 s of the one before (interval 1s): $(ctl p --json status | jq -c .collector)"
	seen=$(last_pass)
done
grep -q "collector: retention over $T/p/tree by whole incidents every 1 s" "$T/p/latencyd.log" ||
	fail "the interval is not logged: $(cat "$T/p/latencyd.log")"
[ ! -e "$A1" ] && [ -d "$A2" ] || fail "dated ahead, over max_bytes: $(find "$T/p/tree" -maxdepth 3)"
grep -q "collector: deleted snapshot h9/latencyd-20260101-000000/snap-91-20260101-000000-0 (1 snapshot, .*): over collector.max_bytes" "$T/p/latencyd.log" ||
	fail "the deletion of $A1 is not logged: $(cat "$T/p/latencyd.log")"
[ "$(grep -c "collector: 2 snapshot(s) of $T/p/tree dated ahead of this host's clock (the first: h9/latencyd-20260101-000000/snap-9[12]-20260101-000000-0), .* never past collector.max_age, the last to go past collector.max_bytes (said once)" "$T/p/latencyd.log")" = 1 ] ||
	fail "snapshots dated ahead are not said once: $(cat "$T/p/latencyd.log")"
pass "collector.interval 1s: a pass every second, without a reload; of two snapshots dated years ahead, the older deleted past max_bytes, said once"

for n in c h1 h2 h3 p; do
	kill -0 "$(eval echo "\$PID_$n")" || fail "$n died"
	kill "$(eval echo "\$PID_$n")"
done
sleep 1
for n in c h1 h2 h3 p; do
	grep -q "AddressSanitizer\|runtime error" "$T/$n/latencyd.log" && fail "$n: $(cat "$T/$n/latencyd.log")"
done
pass "collector"
