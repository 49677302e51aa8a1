#!/bin/bash
# Start-time adoption of snapshot directories the catalog lacks (latencyd killed between a
# record and the catalog's save), under faults, for real: latencyd (nobody, userspace
# flight recorder) records snapshot 1; its catalog.json is then put back to before it, and
# the output directory holds, besides that good orphan, a FIFO named as a snapshot (2), a
# directory of mode 000 (3) and two FUSE mounts whose server is gone, nobody's (4: stat(2)
# fails ENOTCONN) and root's (6: EACCES for nobody), and a directory of the last id
# (2^53-1). At the next start the good one and the mode 000 directory are adopted
# (list-snapshots shows them: stat(2) needs no access to the directory itself); the FIFO is
# said to be no directory, the last id's directory to be of no id latencyd hands out (taking
# it would use up every id); each mount is said with its path and error, counted, not
# adopted, and its id is not handed out: the next record is 7.
# Usage: test-orphans.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP LTTNG_ENV
# As root it makes, in a mount namespace of its own, the output directory with the dead
# mount in it, then runs itself under LTTNG_ENV (as nobody) with that directory as a sixth
# argument.
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?} LTTNG_ENV=${5:?} OUT=${6:-}
STAMP=20261101-101010-0 # a name as LTTng gives one, in the past

if [ -z "$OUT" ]; then
	[ "$(id -u)" = 0 ] || { echo "SKIP: must run as root (mount, lttng-env)"; exit 77; }
	if [ -z "${LATENCYD_TEST_MNTNS:-}" ]; then
		unshare -m --propagation private true 2>/dev/null ||
			{ echo "SKIP: no mount namespace (unshare -m)"; exit 77; }
		LATENCYD_TEST_MNTNS=1 exec unshare -m --propagation private "$0" "$@"
	fi
	out=$(mktemp -d /tmp/latencyd-orphans.XXXXXX)
	chmod 755 "$out"
	chown 65534:65534 "$out"
	# dead ID UID: a FUSE mount of UID's whose server is gone (its connection closed at
	# once): stat(2) fails, ENOTCONN for its user, EACCES for another (no allow_other).
	dead() {
		local p=$out/snap-$1-$STAMP fd
		mkdir "$p"
		exec {fd}<>/dev/fuse || { echo "SKIP: no /dev/fuse"; return 77; }
		mount -i -t fuse -o "fd=$fd,rootmode=40000,user_id=$2,group_id=$2" latencyd-test "$p" ||
			{ exec {fd}>&-; echo "SKIP: cannot mount FUSE"; return 77; }
		exec {fd}>&-
		! stat "$p" >/dev/null 2>&1 || { echo "FAIL: $p is not dead"; return 1; }
	}
	undo() {
		umount -l "$out/snap-4-$STAMP" "$out/snap-6-$STAMP" 2>/dev/null
		rm -rf "$out"
	}
	rc=0
	dead 4 65534 && dead 6 0 || { rc=$?; undo; exit $rc; }
	rc=0
	"$LTTNG_ENV" "$0" "$@" "$out" || rc=$?
	undo
	exit $rc
fi

. "$(dirname "$0")/lib.sh"
ust_recorder_setup "$UST_APP"
LOG=$T/latencyd.log
# conf OUTPUT_DIR: no rate limit, no retention (nothing of the test's is deleted).
conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-orphans)
output: { directory = "$1"; };
ratelimit: { rate = 0; };
retention: { max_count = 0; max_bytes = 0; max_age = 0; };
analysis: { auto = false; };
realtime: { priority = 0; lock_memory = false; };
CONF
}
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }
start() {
	start_daemon -c "$T/latencyd.conf"
	wait_for 100 sh -c "'$LATENCYCTL' -s '$SOCK' --json status | jq -e '.session.state == \"recording\" and (.session.operation | not)' >/dev/null" ||
		fail "the session is not recording: $(ctl --json status)"
}
# record ID: an alert, and snapshot ID complete in the catalog.
record() {
	"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
	wait_for 300 jcat --argjson id "$1" '.snapshots[] | select(.id == $id and .status == "complete")' ||
		fail "no complete snapshot $1: $(jq -c '[.snapshots[] | {id, status, path}]' "$CAT")"
}

# Snapshot 1, recorded for real, then lost to the catalog: catalog.json as it was before
# the record (no entry, next_id 1), its directory in OUT.
conf "$T/first"
start
wait_for 300 sh -c 'lttng list -u 2>/dev/null | grep -q lttng_ust_tracef' || fail "no app"
sleep 0.5
record 1
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
good=$(jq -r '.snapshots[] | select(.id == 1) | .path' "$CAT")
[ -d "$good" ] || fail "snapshot 1's directory '$good' is missing"
mv "$good" "$OUT/" || fail "mv $good $OUT"
good=$OUT/$(basename "$good")
jq '.snapshots = [] | .next_id = 1' "$CAT" >"$T/catalog.json" && mv "$T/catalog.json" "$CAT" ||
	fail "cannot rewrite the catalog"
mkfifo "$OUT/snap-2-$STAMP"
mkdir "$OUT/snap-3-$STAMP"
echo data >"$OUT/snap-3-$STAMP/metadata"
chmod 000 "$OUT/snap-3-$STAMP"
mkdir "$OUT/snap-9007199254740991-$STAMP"
pass "snapshot 1 recorded, then lost to the catalog; by it a FIFO, a mode 000 directory, two dead mounts, a directory of the last id"

conf "$OUT"
start
said() { grep -qF "$OUT/snap-$1-$STAMP: $2: cannot tell whether it is a snapshot missing from the catalog" "$LOG"; }
said 4 "Transport endpoint is not connected" || fail "the dead mount (4) is not said with its path and error"
said 6 "Permission denied" || fail "the mount nobody may look at (6) is not said with its path and error"
grep -qF "$OUT/snap-2-$STAMP is not a directory: not adopted as a snapshot" "$LOG" ||
	fail "the FIFO is not said"
grep -qF "$OUT/snap-9007199254740991-$STAMP: id 9007199254740991 is none latencyd hands out" "$LOG" ||
	fail "the directory of the last id is not said"
grep -qF "2 entries of $OUT could not be looked at (said above): not adopted, their ids not handed out" "$LOG" ||
	fail "the mounts are not counted"
grep -qF "2 snapshot(s) in $OUT were not in the catalog" "$LOG" || fail "not 2 adopted"
ctl --json list-snapshots >"$T/out" || fail "list-snapshots"
jq -e '[.snapshots[].id] | sort == [1, 3]' "$T/out" >/dev/null || fail "list-snapshots: $(cat "$T/out")"
jq -e --arg p "$good" '.snapshots[] | select(.id == 1) | .path == $p' "$T/out" >/dev/null ||
	fail "snapshot 1 is not $good: $(cat "$T/out")"
jcat '.next_id == 7' || fail "the catalog's next id: $(jq -c '{next_id}' "$CAT")"
pass "the good orphan and the mode 000 directory adopted; the FIFO, the mounts and the last id's directory skipped, said"

record 7
jcat '[.snapshots[].id] | sort == [1, 3, 7]' || fail "the catalog after a record: $(jq -c '[.snapshots[].id]' "$CAT")"
path=$(jq -r '.snapshots[] | select(.id == 7) | .path' "$CAT")
case $path in "$OUT"/snap-7-*) ;; *) fail "snapshot 7 in $path" ;; esac
pass "the next record is snapshot 7: the mounts' ids 4 and 6 not handed out"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
! grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$LOG" || fail "a sanitizer report"
