#!/bin/bash
# The session's own operations (its re-creation at a reload, the periodic check) while
# lttng-sessiond does not answer (SIGSTOP), for real: latencyd against its own sessiond
# (userspace domain, run by lttng-env as nobody). liblttng-ctl has no timeout: the main loop
# hands those calls to a thread and never waits for them. Meanwhile status answers and says
# what waits for sessiond, a reload replies at once saying the session's part is pending,
# alerts are read and counted, the watchdog is fed, and SIGTERM stops latencyd while
# sessiond is still stopped; once sessiond answers, the operation ends and records work.
# Usage: lttng-env test-session-stuck.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
. "$(dirname "$0")/lib.sh"

stuck_setup "$@"
conf() { stuck_conf latencyd-sstuck "$1"; } # conf NUM_SUBBUF
PIDFILE=$LTTNG_HOME/.lttng/lttng-sessiond.pid
pings() { grep -o WATCHDOG=1 "$T/notify.log" | wc -l; }
more_pings_than() { [ "$(pings)" -gt "$1" ]; }
# wait_for by the clock, for what may hang (status, 5 s each): at most $1 seconds.
within() {
	local end=$((SECONDS + $1))
	shift
	until "$@" 2>/dev/null; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}
# While sessiond is stopped and operation OP waits for it: status answers and says so, the
# watchdog is fed, an alert is read, counted and failed (there is no session to record, or
# the check holds it inside sessiond).
main_loop_goes_on() {
	local op=$1 p a
	within 20 jstatus ".session.operation == \"$op\" and .session.operation_ns > 0" ||
		fail "status does not say the $op waits for lttng-sessiond: $(status)"
	run "$LATENCYCTL" -s "$SOCK" status
	expect_rc 0 "latencyctl status while the $op waits"
	grep -q "waiting for lttng-sessiond for [0-9.]* s (since [0-9:]*)" "$T/out" ||
		fail "latencyctl status does not say what waits for lttng-sessiond: $(cat "$T/out")"
	p=$(pings)
	wait_for 100 more_pings_than $((p + 1)) || fail "the watchdog is not fed while the $op waits"
	sessiond_stopped || fail "lttng-sessiond was continued too early"
	a=$(status | jq .counters.alerts)
	[ -n "$a" ] || fail "no status"
	"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
	within 20 jstatus ".counters.alerts > $a" ||
		fail "an alert while the $op waits is not counted: $(status)"
}
# An alert while the check waits for the stopped sessiond: its record is not tried (it
# would wait for sessiond as long), it fails at once instead of holding the waiter, which
# goes on reading alerts; the catalog has it as failed, saying why.
check_alert() {
	local a f
	a=$(status | jq .counters.alerts)
	f=$(status | jq .counters.failed)
	[ -n "$a" ] && [ -n "$f" ] || fail "no status"
	"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
	within 20 jstatus ".counters.alerts > $a and .counters.failed > $f" ||
		fail "an alert while the check waits is not read, or its record not failed: $(status)"
}

# 1. SIGHUP with a changed session setting: the re-creation waits for sessiond, the main
# loop does not; a latencyctl reload replies at once, saying the re-creation is pending;
# SIGTERM stops latencyd while sessiond is still stopped.
conf 4
start
sessiond_stop
conf 8
hup
main_loop_goes_on re-create
conf 16
run timeout 5 "$LATENCYCTL" -s "$SOCK" --json reload
expect_rc 0 "latencyctl reload while the re-creation waits"
jq -e '.reloaded == true and .operation == "re-create"' "$T/out" >/dev/null ||
	fail "the reload's reply does not say the re-creation is pending: $(cat "$T/out")"
conf 32
run timeout 5 "$LATENCYCTL" -s "$SOCK" reload
expect_rc 0 "latencyctl reload (text) while the re-creation waits"
expect_out "the session is re-created once lttng-sessiond answers"
pass "sessiond stopped, SIGHUP with a new session setting: status, reload, alerts and the watchdog go on"
terminate
sessiond_stopped || fail "lttng-sessiond was continued before latencyd exited"
expect_rc 1 "latencyd stopped while lttng-sessiond did not answer the re-creation"
grep -q "lttng-sessiond (pid $SPID) did not answer within [0-9]* s of the stop: the session's re-creation, under way for [0-9]* ms, is abandoned" "$LOG" ||
	fail "the log does not say the re-creation was abandoned"
grep -q "exiting with status 1: lttng-sessiond did not answer during the stop" "$LOG" ||
	fail "the exit status is not explained"
no_sanitizer_report "a stop that abandoned the re-creation"
jq -e . "$CAT" >/dev/null || fail "the catalog is not valid JSON: $(cat "$CAT")"
pass "SIGTERM while the re-creation waits for a stopped sessiond: latencyd exits first, says so"
sessiond_continue

# 2. The same, but sessiond continues: the re-creation ends, with the settings of the last
# reload, and records work.
rm -f "$CAT"
conf 4
start
sessiond_stop
conf 8
hup
main_loop_goes_on re-create
sessiond_continue
wait_for 300 grep -q "(8 x 4096 bytes per CPU)" "$LOG" ||
	fail "the session was not re-created with the new settings"
wait_for 100 jstatus '.session.state == "recording" and (.session.operation | not)' ||
	fail "the re-creation did not end: $(status)"
sleep 1
id=$(($(jq '[.snapshots[].id] | max // 0' "$CAT" 2>/dev/null || echo 0) + 1))
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 jcat --argjson id "$id" '.snapshots[] | select(.id >= $id and .status == "complete")' ||
	fail "no snapshot after the re-creation: $(cat "$CAT" 2>/dev/null)"
stop_daemon TERM
expect_rc 0 "latencyd after the re-creation ended"
no_sanitizer_report "a re-creation that waited for sessiond"
pass "sessiond continued: the re-creation ends with the new settings, records work"

# 3. The periodic check (sessiond's pid file hidden: its exit cannot be watched, so the
# session is checked every few seconds): it waits for the stopped sessiond, the main loop
# and the waiter do not, a reload that changes nothing of the session asks nothing of it,
# and SIGTERM stops latencyd.
conf 4
mv "$PIDFILE" "$PIDFILE.hidden"
trap 'mv "$PIDFILE.hidden" "$PIDFILE" 2>/dev/null; cleanup' EXIT
start
kill -STOP "$SPID"
SESSIOND_STOPPED=$SPID
wait_for 50 sessiond_stopped || fail "lttng-sessiond did not stop"
main_loop_goes_on check
# A reload that changes nothing of the session asks nothing of it: its reply says so, not
# the check under way.
run timeout 5 "$LATENCYCTL" -s "$SOCK" --json reload
expect_rc 0 "latencyctl reload while the check waits"
jq -e '.reloaded == true and (.operation | not)' "$T/out" >/dev/null ||
	fail "the reply of a reload that changes nothing of the session names an operation: $(cat "$T/out")"
run timeout 5 "$LATENCYCTL" -s "$SOCK" reload
expect_rc 0 "latencyctl reload (text) while the check waits"
! grep -q "Pending" "$T/out" || fail "a reload that changes nothing says something is pending: $(cat "$T/out")"
# Two alerts, the second after the first's record failed: the waiter is not held by the
# check, and the watchdog is not stopped.
held=$(count "the realtime waiter has been in one record for")
p=$(pings)
check_alert
check_alert
wait_for 100 more_pings_than $((p + 1)) || fail "the watchdog is not fed after alerts while the check waits"
[ "$(count "the realtime waiter has been in one record for")" -eq "$held" ] ||
	fail "the waiter was held by the check: $(grep "the realtime waiter has been" "$LOG")"
pass "alerts while the check waits for a stopped sessiond: read, counted, failed at once; the watchdog is fed"
terminate
sessiond_stopped || fail "lttng-sessiond was continued before latencyd exited"
expect_rc 1 "latencyd stopped while lttng-sessiond did not answer the check"
grep -q "lttng-sessiond did not answer within [0-9]* s of the stop: the session's check, under way for [0-9]* ms, is abandoned" "$LOG" ||
	fail "the log does not say the check was abandoned"
no_sanitizer_report "a stop that abandoned the check"
jcat '[.snapshots[] | select(.status == "failed" and (.error | test("not tried: lttng-sessiond has not answered the session.s check")))] | length >= 2' ||
	fail "the catalog does not have the alerts' records as failed, saying why: $(cat "$CAT" 2>/dev/null)"
sessiond_continue
mv "$PIDFILE.hidden" "$PIDFILE"
pass "the periodic check waits for a stopped sessiond: status and the watchdog go on, SIGTERM is taken"
