#!/bin/bash
# A reload that changes the output (output.directory, output.relayd) while a record is under
# way, for real: latencyd against its own lttng-sessiond (stopped with SIGSTOP to hold the
# record) and lttng-relayd, userspace domain, run by lttng-env --relayd as nobody. The
# session is re-created with the new output once the record ends; the record itself went
# where the old session sends it, and its catalog entry must say so: its directory (its
# size, its history, its deletion) or its relayd URL, and the log line must name it.
# Usage: lttng-env --relayd test-reload-output.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }

stuck_setup "$@"
# conf DIRECTORY [RELAYD]
conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-reload-output)
output: { directory = "$T/$1"; relayd = "${2:-}"; fallback_local = false; };
ratelimit: { rate = 0; };
retention: { max_count = 0; max_bytes = 0; max_age = 0; };
CONF
}
entry() { jq -c --argjson id "$1" '.snapshots[] | select(.id == $id)' "$CAT"; }
has() { jcat --argjson id "$1" ".snapshots[] | select(.id == \$id) | $2"; }
# Stops sessiond with a record under way, reloads CONF ARGS..., continues sessiond: the
# record ends after the reload was taken.
reload_during_record() {
	stuck
	conf "$@"
	hup
	sessiond_continue
}

conf snapshots
start

# 1. output.directory: snapshot 1 is recorded into the old directory.
reload_during_record snapshots2
wait_for 100 has 1 '.status == "complete"' || fail "snapshot 1 did not complete: $(cat "$CAT")"
old=$(find "$T/snapshots" -mindepth 1 -maxdepth 1 -type d -name 'snap-1-*')
[ -n "$old" ] || fail "snapshot 1 is not in the old directory: $(ls -R "$T")"
jcat --arg p "$old" '.snapshots[] | select(.id == 1) | .path == $p and .bytes > 0' ||
	fail "the entry of snapshot 1 does not name its directory $old: $(entry 1)"
grep -qF "snapshot 1 at $old in " "$LOG" || fail "the log does not say where snapshot 1 is"
! grep -q "snapshot 1 to  in " "$LOG" || fail "the log names no place for snapshot 1"
wait_for 100 jcat '.snapshots[] | select(.id == 1) | .history != null' ||
	fail "the history of snapshot 1 was not measured: $(entry 1)"
pass "a reload to a new output.directory during a record: the entry has the old directory"

# The session records into the new directory once re-created.
wait_for 300 grep -q "snapshots to $T/snapshots2" "$LOG" ||
	fail "the session was not re-created with the new directory"
wait_for 50 jstatus '.session.state == "recording" and (.session.operation | not)' ||
	fail "not recording after the reload: $(status)"
sleep 1
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 has 2 '.status == "complete"' || fail "snapshot 2 did not complete: $(cat "$CAT")"
jcat --arg d "$T/snapshots2" '.snapshots[] | select(.id == 2) | .path | startswith($d + "/snap-2-")' ||
	fail "snapshot 2 is not in the new directory: $(entry 2)"

# Deleting snapshot 1 deletes its directory in the old output directory.
run "$LATENCYCTL" -s "$SOCK" delete-snapshot 1
expect_rc 0 "delete-snapshot 1"
[ ! -e "$old" ] || fail "delete-snapshot 1 left $old"
pass "the snapshot in the old directory is deleted with its entry"

# 2. output.relayd: snapshot 3 goes to relayd, a reload to local only meanwhile.
conf snapshots2 "$LATENCYD_TEST_RELAYD_URL"
hup "the reload to relayd was not taken"
wait_for 300 grep -q "snapshots to $LATENCYD_TEST_RELAYD_URL" "$LOG" ||
	fail "the session was not re-created with relayd"
wait_for 50 jstatus '.session.state == "recording" and (.session.operation | not)' ||
	fail "not recording after the reload to relayd: $(status)"
sleep 1
reload_during_record snapshots2
wait_for 100 has 3 '.status == "complete"' || fail "snapshot 3 did not complete: $(cat "$CAT")"
jcat --arg u "$LATENCYD_TEST_RELAYD_URL" '.snapshots[] | select(.id == 3) |
	.url == $u and (.path | not) and (.relayd_path | test("/snap-3-[*]$"))' ||
	fail "the entry of snapshot 3 does not name the relayd it went to: $(entry 3)"
grep -qF "snapshot 3 to $LATENCYD_TEST_RELAYD_URL in " "$LOG" ||
	fail "the log does not say where snapshot 3 went"
pass "a reload to local only during a record to relayd: the entry has the relayd URL"

terminate
expect_rc 0 "latencyd after SIGTERM"
no_sanitizer_report "the reloads"
