#!/bin/bash
# A stop while lttng-sessiond does not answer (SIGSTOP), for real: latencyd against its own
# sessiond (userspace domain, run by lttng-env as nobody). liblttng-ctl has no timeout, so
# latencyd bounds its own wait: it exits while sessiond is still stopped, says what it
# abandoned (the record under way, the session's destroy), keeps the catalog valid with the
# abandoned record in it, exits with status 1, and trips no sanitizer. Once sessiond
# continues, the next start replaces the session left there and records again.
# Usage: lttng-env test-stop-stuck.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
. "$(dirname "$0")/lib.sh"

stuck_setup "$@"
stuck_conf latencyd-stop

# 1. SIGTERM with a record held by the stopped sessiond.
start
stuck
terminate
sessiond_stopped || fail "lttng-sessiond was continued before latencyd exited"
expect_rc 1 "latencyd stopped while lttng-sessiond did not answer"
grep -q "lttng-sessiond (pid $SPID) did not answer within [0-9]* s of the stop: the record of snapshot 1 (snap-1, for an alert from tracker selftest on alert-write, pid [0-9]*), under way for [0-9]* ms, is abandoned" "$LOG" ||
	fail "the log does not name the abandoned record and its cause"
grep -q "snapshot 1 failed: abandoned at the stop: lttng-sessiond did not answer" "$LOG" ||
	fail "the abandoned snapshot is not said failed"
grep -q "alert from tracker selftest: pid [0-9]* .*: snapshot" "$LOG" ||
	fail "the abandoned record's alert is not logged"
grep -q "LTTng session latencyd-stop is left in lttng-sessiond (pid $SPID), which did not answer: the next start" "$LOG" ||
	fail "the session left in sessiond is not said"
grep -q "exiting with status 1: lttng-sessiond did not answer during the stop" "$LOG" ||
	fail "the exit status is not explained"
no_sanitizer_report "a stop that abandoned a record"
jq -e . "$CAT" >/dev/null || fail "the catalog is not valid JSON: $(cat "$CAT")"
jcat '.snapshots | length == 1' || fail "not one entry: $(jq -c '.snapshots' "$CAT")"
jcat '.snapshots[0] | .id == 1 and .status == "failed" and (.error | test("abandoned")) and
	(.causes | length == 1) and .causes[0].tracker == "selftest"' ||
	fail "the abandoned record is not in the catalog as failed with its cause: $(jq -c '.snapshots[0]' "$CAT")"
pass "SIGTERM with a record held by a stopped sessiond: latencyd exits first, says what it abandoned, the catalog has it"
cp "$LOG" "$T/first.log"

# 2. sessiond continues: the record it was given ends (its output lands late), and the next
# start replaces the session left there, takes that output into the abandoned entry, and
# records.
sessiond_continue
wait_for 100 compgen -G "$T/snapshots/snap-1-*" >/dev/null ||
	fail "lttng-sessiond, continued, did not write the abandoned record"
start
grep -q "LTTng session latencyd-stop was already there (left by a latencyd that was killed?): destroyed it and created it anew" "$LOG" ||
	fail "the next start did not replace the session left in sessiond"
grep -q "snapshot 1 failed, and lttng-sessiond wrote its output after latencyd stopped waiting for it: $T/snapshots/snap-1-" "$LOG" ||
	fail "the late output of the abandoned record is not said"
jcat --arg d "$T/snapshots/snap-1-" '.snapshots[0] | .status == "failed" and (.path | startswith($d))' ||
	fail "the late output is not with the abandoned entry: $(jq -c '.snapshots[0]' "$CAT")"
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 jcat '.snapshots | length == 2 and .[1].id == 2 and .[1].status == "complete"' ||
	fail "no snapshot after the restart: $(jq -c '.snapshots' "$CAT")"
pass "sessiond continued: the next start replaces the session left there and records"

# 3. SIGTERM with no record under way: the session's destroy is what sessiond does not
# answer. The history of snapshot 2 is measured first, so that no calibration record is
# under way instead.
wait_for 100 jcat '.snapshots[1].history' || fail "the history of snapshot 2 was not measured"
sessiond_stop
terminate
sessiond_stopped || fail "lttng-sessiond was continued before latencyd exited"
expect_rc 1 "latencyd stopped while lttng-sessiond did not answer its destroy"
grep -q "LTTng session latencyd-stop is left in lttng-sessiond (pid $SPID), which did not answer its destroy within [0-9]* s of the stop" "$LOG" ||
	fail "the session's destroy left to sessiond is not said"
! grep -q "is abandoned" "$LOG" || fail "a record said abandoned when none was under way"
no_sanitizer_report "a stop that abandoned the session's destroy"
jcat '.snapshots | length == 2 and .[1].status == "complete"' ||
	fail "the catalog lost a snapshot: $(jq -c '.snapshots' "$CAT")"
sessiond_continue
start
run "$LATENCYCTL" -s "$SOCK" status
expect_rc 0 "latencyctl status after the restart"
terminate
expect_rc 0 "latencyd stopped with lttng-sessiond answering"
no_sanitizer_report "a clean stop"
pass "SIGTERM with sessiond stopped and no record: the destroy is abandoned, the next start copes"
