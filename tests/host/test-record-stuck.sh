#!/bin/bash
# A record held by a stopped lttng-sessiond (SIGSTOP), for real: latencyd against its own
# sessiond (userspace domain, run by lttng-env as nobody). The waiter is stuck inside
# lttng_snapshot_record() until sessiond continues; meanwhile the main loop must go on:
# a reload (SIGHUP), with or without new session settings, is taken at once and the
# control socket answers; the reload's session settings apply once the record ends, and
# the record and the alert that caused it are not lost, at a SIGTERM too.
# Usage: lttng-env test-record-stuck.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
. "$(dirname "$0")/lib.sh"

stuck_setup "$@"
conf() { stuck_conf latencyd-stuck "$1"; } # conf NUM_SUBBUF
complete_count() { jcat --argjson n "$1" '[.snapshots[] | select(.status == "complete")] | length == $n'; }

conf 4
start

# 1. A reload that keeps the session's settings.
stuck
hup "a reload while a record is stuck is not taken"
wait_for 100 jstatus '.counters.alerts >= 1' || fail "the control socket does not answer"
sessiond_continue
wait_for 100 complete_count 1 || fail "the stuck record did not complete: $(cat "$CAT" 2>/dev/null)"
pass "reload while a record is stuck: taken at once, the record completes after"

# 2. A reload that changes the session: applied once the record ends.
stuck
r=$(count "re-creating the session")
conf 8
hup "a reload with new session settings while a record is stuck is not taken"
wait_for 100 jstatus '.counters.alerts >= 2' || fail "the control socket does not answer"
sessiond_continue
wait_for 100 complete_count 2 || fail "the stuck record did not complete: $(cat "$CAT" 2>/dev/null)"
wait_for 300 more_than "re-creating the session" "$r" ||
	fail "the new session settings were not applied after the record"
wait_for 300 grep -q "(8 x 4096 bytes per CPU)" "$LOG" ||
	fail "the session was not re-created with the new settings"
wait_for 50 jstatus '.session.state == "recording"' || fail "not recording after the reload"
sleep 1
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 complete_count 3 || fail "no snapshot after the reload: $(cat "$CAT" 2>/dev/null)"
pass "reload with new session settings while a record is stuck: re-created after it, recording"

# 3. SIGTERM while a record is stuck: latencyd waits for the record's end, and the snapshot
# it made is in the catalog saved at exit, with its cause (not left for the next start to
# adopt without one).
stuck
n=$(count "received SIGTERM, shutting down")
kill -TERM "$DAEMON_PID"
wait_for 100 more_than "received SIGTERM, shutting down" "$n" || fail "SIGTERM not taken"
wait_for 100 grep -q "waiting for the record under way (for [0-9]* ms so far) to end" "$LOG" ||
	fail "the stop is held by the record, and the log does not say so"
sessiond_continue
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM with a record under way"
jcat '[.snapshots[] | select(.status == "complete")] | length == 4' ||
	fail "the record under way at SIGTERM is not in the catalog: $(jq -c '[.snapshots[] | {id, status}]' "$CAT")"
jcat '.snapshots[-1].causes | length == 1' ||
	fail "the record under way at SIGTERM lost its cause: $(jq -c '.snapshots[-1]' "$CAT")"
for d in $(find "$T/snapshots" -mindepth 1 -maxdepth 1 -type d -name 'snap-*'); do
	jcat --arg p "$d" 'any(.snapshots[]; .path == $p)' || fail "directory $d is in no catalog entry"
done
pass "SIGTERM while a record is stuck: the record ends, its snapshot is in the catalog"
