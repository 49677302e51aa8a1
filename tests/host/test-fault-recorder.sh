#!/bin/bash
# Issue #9, failures around a snapshot, for real (userspace domain, the alert test double):
# lttng-sessiond killed while snapshots are being recorded, then restarted; lttng-relayd
# killed and restarted; the output directory full (a small tmpfs); latencyd killed with
# SIGKILL while recording, then restarted; lttng-consumerd killed (records fail, said once). Each ends with a consistent catalog (it parses,
# no entry left "recording", every snapshot directory belongs to an entry), a log line
# that says what happened, and recording resumed (a later alert gives a complete snapshot).
# Usage: test-fault-recorder.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP LTTNG_ENV
# As root it mounts the small tmpfs, then runs itself under LTTNG_ENV --relayd (as nobody)
# with the mount point as a sixth argument.
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?} LTTNG_ENV=${5:?} SMALLFS=${6:-}

if [ -z "$SMALLFS" ]; then
	[ "$(id -u)" = 0 ] || { echo "SKIP: must run as root (tmpfs, lttng-env)"; exit 77; }
	fs=$(mktemp -d /tmp/latencyd-smallfs.XXXXXX)
	chmod 755 "$fs"
	# 192 KiB: room for two or three snapshots of this test's 4 x 4 KiB per CPU buffers.
	mount -t tmpfs -o size=192k,mode=0755,uid=65534,gid=65534 latencyd-smallfs "$fs" ||
		{ rmdir "$fs"; echo "SKIP: cannot mount a tmpfs"; exit 77; }
	rc=0
	"$LTTNG_ENV" --relayd "$0" "$@" "$fs" || rc=$?
	umount "$fs"
	rmdir "$fs"
	exit $rc
fi

. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }

APP_PID= WRITER_PID=
trap '[ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null
	[ -n "$WRITER_PID" ] && kill "$WRITER_PID" 2>/dev/null; cleanup' EXIT
ust_recorder_setup "$UST_APP"
# conf OUTPUT_DIR RELAYD MAX_COUNT: no rate limit, so that alerts keep snapshots going.
conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-fault)
output: { directory = "$1"; relayd = "$2"; fallback_local = true; };
ratelimit: { rate = 0; burst = 1; };
retention: { max_count = $3; max_bytes = 0; max_age = 0; };
realtime: { priority = 0; lock_memory = false; };
CONF
}

status() { "$LATENCYCTL" -s "$SOCK" --json status; }
jstatus() { local out; out=$(status) && [ -n "$out" ] && jq -e "$1" <<<"$out" >/dev/null; }
jcat() { [ -s "$CAT" ] && jq -e "$@" "$CAT" >/dev/null 2>&1; }
wait_app() { wait_for 300 sh -c 'lttng list -u 2>/dev/null | grep -q lttng_ust_tracef'; sleep 0.5; }
newest_id() { jq '[.snapshots[].id] | max // 0' "$CAT"; }
# Alerts every 20 ms in the background, for $1 of them.
stream() {
	"$ALERT_WRITE" "$T/alerts" selftest "$1" 20 &
	WRITER_PID=$!
}
stream_end() {
	wait "$WRITER_PID" || fail "alert-write"
	WRITER_PID=
}
# The catalog parses, nothing is left "recording", a failed entry says why, and every
# snapshot directory under the output directories $@ is the path of an entry.
consistent() {
	jq -e '.snapshots | type == "array"' "$CAT" >/dev/null || fail "$1: the catalog does not parse"
	jcat '[.snapshots[] | select(.status != "complete" and .status != "failed")] == []' ||
		fail "$1: entries neither complete nor failed: $(jq -c '[.snapshots[] | select(.status != "complete" and .status != "failed")]' "$CAT")"
	jcat '[.snapshots[] | select(.status == "failed" and (.error | type) != "string")] == []' ||
		fail "$1: a failed entry without an error"
	shift
	for d in $(find "$@" -mindepth 1 -maxdepth 1 -type d -name 'snap-*'); do
		jcat --arg p "$d" 'any(.snapshots[]; .path == $p)' || fail "directory $d is in no catalog entry"
	done
}
# A later alert gives a complete snapshot; $1: what it resumed from.
resumed() {
	local id
	id=$(($(newest_id) + 1))
	"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
	wait_for 150 jcat --argjson id "$id" '.snapshots[] | select(.id >= $id and .status == "complete")' ||
		fail "$1: no complete snapshot after it: $(jq -c '.snapshots[-1]' "$CAT")"
}
snaps_now() { jq '.counters.snapshots + .counters.failed' <<<"$(status)"; }
more_snaps_than() { [ "$(snaps_now)" -gt "$1" ]; }

conf "$T/snapshots" "" 0
start_daemon -c "$T/latencyd.conf"
wait_for 50 jstatus '.session.state == "recording"' || fail "the session is not recording"
wait_app

# 1. lttng-sessiond killed while records go to relayd (about 50 ms each, back to back).
conf "$T/snapshots" "$LATENCYD_TEST_RELAYD_URL" 0
kill -HUP "$DAEMON_PID"
wait_for 50 grep -q "re-creating the session" "$T/latencyd.log" || fail "no reload"
# Re-created on the sessiond worker: alerts before its end would find no session.
wait_for 100 jstatus '.session.state == "recording" and .session.operation == null' ||
	fail "the reload's re-creation did not end"
before=$(snaps_now)
stream 100
wait_for 50 more_snaps_than $((before + 2)) || fail "no snapshots before the kill"
spid=$(cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid")
kill -KILL "$spid"
stream_end
lttng-sessiond --background >/dev/null 2>&1 || fail "cannot restart lttng-sessiond"
wait_for 150 jstatus '.session.recreated >= 1 and .session.state == "recording"' ||
	fail "the session was not re-created: $(status)"
grep -Eq "LTTng session latencyd-fault is gone|snapshot [0-9]+ failed: " "$T/latencyd.log" ||
	fail "the loss of lttng-sessiond is not logged"
# realtime.sessiond_boost is tried again on the new sessiond (refused: this test is nobody).
nspid=$(cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid")
wait_for 50 grep -q "lttng-sessiond (pid $nspid): cannot set its client thread's nice value" "$T/latencyd.log" ||
	fail "realtime.sessiond_boost not tried on the restarted lttng-sessiond ($nspid)"
consistent "sessiond killed" "$T/snapshots"
wait_app
resumed "sessiond killed"
echo "  $(jq '[.snapshots[] | select(.status == "failed")] | length' "$CAT") record(s) cut by the kill failed:" \
	"$(grep -m1 -o 'snapshot [0-9]* failed: .*' "$T/latencyd.log" || echo none)"
pass "lttng-sessiond killed during snapshots and restarted: catalog consistent, logged, recording resumed"

# 2. lttng-relayd killed while records go to it, then restarted on the same ports.
before=$(snaps_now)
stream 60
wait_for 50 more_snaps_than $((before + 2)) || fail "no snapshots before killing relayd"
kill -KILL "$LATENCYD_TEST_RELAYD_PID"
stream_end
wait_for 100 grep -q "relayd failed: fell back to local" "$T/latencyd.log" ||
	fail "the relayd failure is not logged"
jcat '[.snapshots[] | select(.fell_back == true and .status == "complete")] | length > 0' ||
	fail "no snapshot fell back to the local directory"
consistent "relayd killed" "$T/snapshots"
ports=${LATENCYD_TEST_RELAYD_URL#net://127.0.0.1:}
lttng-relayd -C "tcp://127.0.0.1:${ports%%:*}" -D "tcp://127.0.0.1:${ports##*:}" \
	-L "tcp://127.0.0.1:$((${ports##*:} + 1))" -o "$LATENCYD_TEST_RELAYD_OUT" \
	</dev/null >"$T/relayd2.log" 2>&1 &
RELAYD2=$!
trap '[ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null; kill "$RELAYD2" 2>/dev/null
	[ -n "$WRITER_PID" ] && kill "$WRITER_PID" 2>/dev/null; cleanup' EXIT
sleep 0.5
kill -0 "$RELAYD2" || fail "relayd did not restart: $(cat "$T/relayd2.log")"
# relayd is left alone for a back-off after failing (output.relayd_timeout): the records
# before it ends go local, the first after it goes to the restarted relayd.
back=0
for _ in $(seq 1 30); do
	id=$(($(newest_id) + 1))
	"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
	if wait_for 50 jcat --argjson id "$id" '.snapshots[] | select(.id >= $id and .status == "complete" and .url != null and .fell_back != true)'; then
		back=1
		break
	fi
	sleep 1
done
[ "$back" = 1 ] || fail "no snapshot to the restarted relayd: $(jq -c '.snapshots[-1]' "$CAT")"
pass "lttng-relayd killed during snapshots: local fallback, logged; restarted: snapshots go to it again"

# 3. The output directory fills up (192 KiB tmpfs), then retention frees it.
conf "$SMALLFS" "" 0
kill -HUP "$DAEMON_PID"
recreations() { [ "$(grep -c "re-creating the session" "$T/latencyd.log")" -ge "$1" ]; }
wait_for 50 recreations 2 || fail "no reload"
sleep 0.5
stream 30
stream_end
wait_for 100 sh -c "[ \"\$(df --output=avail '$SMALLFS' | tail -n1)\" -lt 16 ]" ||
	fail "the small file system never filled up: $(df -k "$SMALLFS" | tail -n1)"
sleep 2 # the last records end
cp "$CAT" "$T/catalog-full.json"
grep -Eq "snapshot [0-9]+ failed: |cannot save|No space" "$T/latencyd.log" ||
	fail "a full output directory is not logged"
consistent "disk full" "$SMALLFS" "$T/snapshots"
jcat '[.snapshots[] | select(.status == "failed")] | length > 0' ||
	fail "no snapshot failed on a full disk"
conf "$SMALLFS" "" 1
kill -HUP "$DAEMON_PID"
wait_for 50 sh -c "[ \"\$(df --output=avail '$SMALLFS' | tail -n1)\" -gt 64 ]" ||
	fail "retention did not free the small file system: $(ls "$SMALLFS")"
resumed "disk full"
consistent "disk full, after retention" "$SMALLFS" "$T/snapshots"
grep -q "failed: .* (no space left in $SMALLFS)" "$T/latencyd.log" || fail "no log line says the disk is full"
echo "  $(grep -m1 "no space left in $SMALLFS" "$T/latencyd.log")"
pass "output directory full: failed snapshots logged with their error, catalog consistent; space freed: recording resumed"

# 4. latencyd killed with SIGKILL while it records: as soon as a snapshot directory is
# there that the catalog does not list yet (recording, or recorded and not yet saved).
conf "$T/snapshots" "" 0
kill -HUP "$DAEMON_PID"
wait_for 50 recreations 3 || fail "no reload"
sleep 0.5
stream 100
dir_id() { find "$T/snapshots" -maxdepth 1 -name 'snap-*' -printf '%f\n' | sed 's/^snap-\([0-9]*\)-.*/\1/' | sort -n | tail -n1; }
cut=0
for _ in $(seq 1 400); do
	d=$(dir_id)
	c=$(grep -o '"id": [0-9]*' "$CAT" | tail -n1 | cut -d' ' -f2)
	if [ -n "$d" ] && [ "$d" -gt "${c:-0}" ]; then
		cut=$d
		break
	fi
done
stop_daemon KILL
cp "$CAT" "$T/catalog-killed.json"
kill "$WRITER_PID" 2>/dev/null
wait "$WRITER_PID" 2>/dev/null
WRITER_PID=
cp "$T/latencyd.log" "$T/latencyd-killed.log"
start_daemon -c "$T/latencyd.conf"
wait_for 50 jstatus '.session.state == "recording"' || fail "not recording after the restart"
grep -Eq "catalog .* recovered|were not in the catalog|waiting for alerts" "$T/latencyd.log" ||
	fail "nothing logged at the restart"
consistent "latencyd killed" "$T/snapshots"
wait_app
resumed "latencyd killed"
ids=$(jq -c '[.snapshots[].id]' "$CAT")
jq -e '. == (sort | unique)' <<<"$ids" >/dev/null || fail "snapshot ids not unique and increasing: $ids"
# The directory seen outside the catalog: saved before SIGKILL came, or adopted after.
if [ "$cut" = 0 ]; then
	echo "  no snapshot directory was caught outside the catalog before SIGKILL"
elif jq -e --argjson id "$cut" 'any(.snapshots[]; .id == $id)' "$T/catalog-killed.json" >/dev/null; then
	echo "  snapshot $cut was saved before SIGKILL came"
else
	grep -q "were not in the catalog" "$T/latencyd.log" || fail "snapshot $cut, cut by SIGKILL, is not reported"
	jcat --argjson id "$cut" 'any(.snapshots[]; .id == $id)' || fail "snapshot $cut not adopted"
	echo "  killed with snapshot $cut not in the catalog: $(grep 'were not in the catalog' "$T/latencyd.log")"
fi
pass "latencyd killed with SIGKILL while recording: catalog consistent, ids unique, recording resumed"

# 5. lttng-consumerd killed, lttng-sessiond left running: sessiond does not start another,
# so every record fails from then on; the log says why, once, and what cures it.
spid=$(cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid")
cpids=$(ps -o pid=,comm= --ppid "$spid" | awk '$2 == "lttng-consumerd" { print $1 }')
[ -n "$cpids" ] || fail "no lttng-consumerd under lttng-sessiond $spid"
kill -KILL $cpids
# Dead, but maybe a zombie sessiond never reaps.
wait_for 50 sh -c "! ps -o stat=,comm= --ppid $spid | grep -v '^Z' | grep -q lttng-consumerd" ||
	fail "lttng-consumerd still there"
failed=$(jq '.counters.failed' <<<"$(status)")
for k in 1 2; do
	"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
	wait_for 150 jstatus ".counters.failed >= $((failed + k))" ||
		fail "record $k without lttng-consumerd: not counted failed: $(status)"
done
said=$(grep -c "lttng-sessiond (pid $spid) has no lttng-consumerd any more (killed?): records fail until lttng-sessiond is restarted" "$T/latencyd.log")
[ "$said" = 1 ] || fail "the lost lttng-consumerd said $said times, not once: $(grep -i consumerd "$T/latencyd.log")"
pass "lttng-consumerd killed: records fail, counted; the cause and its cure said once"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
