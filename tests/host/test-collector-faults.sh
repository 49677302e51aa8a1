#!/bin/bash
# The collector's deletions under real faults, as root (as it runs in production), on a tree
# laid out as lttng-relayd writes it, in a small tmpfs filled up: a file deep in one host's
# snapshot made immutable (the incident is kept whole, the file named); a directory made
# immutable between the check and the deletion (fault-on-open: the deletion stops there,
# says what went and what is left, and is counted); a host directory whose name holds a
# newline; then the faults gone, what is left deleted whole. Nothing here needs a sessiond:
# the collector runs with session.enabled = false.
# Usage: test-collector-faults.sh LATENCYD LATENCYCTL FAULT_ON_OPEN
set -u
FAULT_ON_OPEN=${3:?}
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (chattr, fanotify, tmpfs)"; exit 77; }
command -v chattr >/dev/null || { echo "SKIP: chattr is not installed"; exit 77; }

R=$T/tree
FAULT_PID=
mkdir -p "$R"
mount -t tmpfs -o size=2m,mode=0755 latencyd-collector "$R" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
trap '[ -n "$FAULT_PID" ] && kill "$FAULT_PID" 2>/dev/null
	chattr -R -i "$R" 2>/dev/null; umount "$R"; cleanup' EXIT

# mk HOST SESSION NAME MINUTES: a snapshot as relayd writes it, MINUTES old.
mk() {
	local d="$R/$1/$2/$3" t=$(($(date +%s) - $4 * 60))
	mkdir -p "$d/ust/uid/0/64-bit/index"
	head -c 16384 /dev/urandom >"$d/ust/uid/0/64-bit/chan_0_0"
	head -c 4096 /dev/urandom >"$d/ust/uid/0/64-bit/metadata"
	head -c 512 /dev/urandom >"$d/ust/uid/0/64-bit/index/chan_0_0.idx"
	find "$R/$1" -exec touch -h -d "@$t" {} +
}
S=latencyd-20261127-100000
for h in h1 h2 h3; do
	mk "$h" "$S" "snap-1-h1-5@$h-20261127-100100-0" 30
	mk "$h" "$S" "snap-2-h1-6@$h-20261127-100200-0" 20
done
EVIL=$'evil\nhost'
mk "$EVIL" "$S" "snap-3-20261127-100300-0" 10
# The long names relayd would write for a long host and session name.
LONG=$(printf 'h%.0s' $(seq 60))
mk "$LONG" "latencyd-$(printf 's%.0s' $(seq 200))-20261127-100000" "snap-4-h1-7@$LONG-20261127-100400-0" 5
# The file system full: a deletion needs no room.
head -c 4M /dev/zero >"$R/filler" 2>/dev/null
[ "$(df --output=avail "$R" | tail -n1)" -eq 0 ] || fail "the tmpfs is not full: $(df -k "$R")"
snaps() { find "$R" -mindepth 3 -maxdepth 3 -name "snap-*-$1@*" | sort; }
files() { snaps "$1" | xargs -r -I{} find {} -type f | sort; }
files h1-5 >"$T/files-h1-5"
[ "$(wc -l <"$T/files-h1-5")" = 9 ] || fail "tree: $(find "$R")"

SOCK=$T/ctl.sock
conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; save_file = ""; };
module: { load = false; };
session: { enabled = false; };
collector: { enabled = true; directory = "$R"; max_bytes = $1; };
CONF
}
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }
conf 0
start_daemon -c "$T/latencyd.conf"

# h1-5: an immutable file deep in h2's snapshot. h1-6: h2's "0" directory made immutable at
# the third open of its 64-bit directory: the scan's, the check's, then the deletion's, so
# that the check passes and the deletion meets the fault after h1's snapshot went.
deep=$(snaps h1-5 | sed -n 2p)/ust/uid/0/64-bit/index/chan_0_0.idx
chattr +i "$deep" || fail "chattr +i $deep"
two=$(snaps h1-6 | sed -n 2p)
"$FAULT_ON_OPEN" "$two/ust/uid/0/64-bit" 3 "$two/ust/uid/0" "$T/armed" 2>"$T/fault.log" &
FAULT_PID=$!
wait_for 50 test -e "$T/armed" || fail "fault-on-open did not start: $(cat "$T/fault.log")"
conf 1
ctl reload >/dev/null || fail "reload"
wait "$FAULT_PID" || fail "fault-on-open: $(cat "$T/fault.log")"
FAULT_PID=

files h1-5 | cmp -s - "$T/files-h1-5" || fail "h1-5 deleted in part: $(files h1-5 | diff "$T/files-h1-5" -)"
grep -q "collector: cannot delete incident h1-5: ${deep#"$R/"}: Operation not permitted; all of it is kept" "$T/latencyd.log" ||
	fail "the immutable file is not named: $(grep collector: "$T/latencyd.log")"
pass "h1-5, an immutable file deep in h2's snapshot: kept whole, the file named"

[ "$(snaps h1-6 | wc -l)" = 2 ] && [ -d "$two" ] && [ -z "$(find "$two" -type f)" ] &&
	[ "$(find "$(snaps h1-6 | sed -n 2p)" -type f | wc -l)" = 3 ] ||
	fail "h1-6 after the fault: $(snaps h1-6 | xargs -r -I{} find {})"
grep -q "collector: incident h1-6 deleted in part: cannot delete ${two#"$R/"}/ust/uid/0/64-bit: Operation not permitted; of its 3 snapshot(s), 1 deleted (.*), 1 in part, 1 whole: a later pass deletes what is left once it can" "$T/latencyd.log" ||
	fail "the deletion in part is not said: $(grep collector: "$T/latencyd.log")"
pass "h1-6, a directory made immutable between check and deletion: h1's gone, h2's in part, h3's whole, said"

grep -q "collector: deleted snapshot evil?host/$S/snap-3-20261127-100300-0 (1 snapshot, " "$T/latencyd.log" ||
	fail "the snapshot under a host name with a newline: $(grep collector: "$T/latencyd.log")"
[ "$(snaps h1-7 | wc -l)" = 0 ] && [ ! -e "$R/$EVIL/$S/snap-3-20261127-100300-0" ] ||
	fail "left: $(find "$R" -maxdepth 3)"
pass "a host name with a newline (defanged in the log) and 255-byte names: deleted whole on a full file system"

ctl --json status >"$T/status" || fail "status"
jq -e '.collector | .deleted == 2 and .deleted_in_part == 1 and .incidents == 2 and
	(.problem | test("h1-6 was deleted in part"))' "$T/status" >/dev/null ||
	fail "status: $(jq -c .collector "$T/status")"
left=$(snaps 'h1-[56]' | xargs -I{} find {} -type f -printf '%b\n' | awk '{ s += $1 } END { print s * 512 }')
jq -e --argjson left "$left" '.collector.bytes == $left' "$T/status" >/dev/null ||
	fail "status bytes $(jq .collector.bytes "$T/status"), on disk $left"
ctl status | grep -q "^Collector: .*2 incident(s), .*; 2 deleted, 1 in part (.*) since start" ||
	fail "status (text): $(ctl status)"
pass "status: 2 deleted, 1 in part, what is left counted as kept ($left bytes)"

# What the deletion in part left changed a minute ago (its directories' mtimes): a pass
# once that minute is over deletes it; aged instead of waited for.
chattr -R -i "$R" || fail "chattr -R -i"
for d in $(snaps h1-6); do find "$d" -exec touch -h -d "@$(($(date +%s) - 600))" {} +; done
ctl reload >/dev/null || fail "reload"
[ "$(snaps 'h1-[56]' | wc -l)" = 0 ] || fail "left after the faults went: $(snaps 'h1-[56]')"
grep -q "collector: deleted incident h1-5 (3 snapshots, " "$T/latencyd.log" &&
	grep -q "collector: deleted incident h1-6 (2 snapshots, " "$T/latencyd.log" ||
	fail "$(grep collector: "$T/latencyd.log")"
ctl --json status | jq -e '.collector | .deleted == 4 and .deleted_in_part == 1 and .incidents == 0 and (has("problem") | not)' >/dev/null ||
	fail "status: $(ctl --json status | jq -c .collector)"
[ -f "$R/filler" ] || fail "the foreign file went"
stop_daemon TERM
grep -q "AddressSanitizer\|runtime error" "$T/latencyd.log" && fail "sanitizer: $(cat "$T/latencyd.log")"
pass "the faults gone: h1-5 whole, h1-6's rest deleted; the foreign file left alone"
