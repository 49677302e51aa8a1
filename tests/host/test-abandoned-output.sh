#!/bin/bash
# A record abandoned at a stop lands where its own session writes, for real: latencyd
# against its own lttng-sessiond (userspace domain, run by lttng-env as nobody), stopped
# with SIGSTOP during a record to directory A; a reload then sets output.directory to B
# (the session's re-creation waits for sessiond), and SIGTERM abandons the record. The
# catalog entry says A is where its output may land, and once sessiond continues and writes
# it there, the next start, with B in force, finds it in A and joins it to the entry.
# Usage: lttng-env test-abandoned-output.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
. "$(dirname "$0")/lib.sh"

stuck_setup "$@"
A=$T/snapshots
B=$T/snapshots-b
# conf DIRECTORY
conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-abandoned)
output: { directory = "$1"; };
ratelimit: { rate = 0; };
CONF
}

conf "$A"
start
stuck
conf "$B"
hup
terminate
sessiond_stopped || fail "lttng-sessiond was continued before latencyd exited"
expect_rc 1 "latencyd stopped while lttng-sessiond did not answer"
grep -q "the record of snapshot 1 (snap-1, .*), under way for [0-9]* ms, is abandoned" "$LOG" ||
	fail "the log does not name the abandoned record"
no_sanitizer_report "a stop that abandoned a record after a reload of the output"
jcat --arg a "$A" '.snapshots | length == 1 and (.[0] | .id == 1 and .status == "failed" and
	(.error | test("abandoned")) and .late_directory == $a and (.path | not))' ||
	fail "the abandoned entry does not name its session's directory: $(jq -c '.snapshots' "$CAT")"
pass "a record abandoned after a reload of the output: its entry names its session's directory"

sessiond_continue
wait_for 100 compgen -G "$A/snap-1-*" >/dev/null ||
	fail "lttng-sessiond, continued, did not write the abandoned record in $A: $(ls -R "$T")"
start
grep -q "snapshot 1 failed, and lttng-sessiond wrote its output after latencyd stopped waiting for it: $A/snap-1-" "$LOG" ||
	fail "the next start did not find the late output in $A"
jcat --arg d "$A/snap-1-" '.snapshots[0] | .status == "failed" and (.path | startswith($d)) and
	.bytes > 0 and (.late_directory | not)' ||
	fail "the late output is not with the abandoned entry: $(jq -c '.snapshots[0]' "$CAT")"
terminate
expect_rc 0 "latencyd stopped with lttng-sessiond answering"
no_sanitizer_report "the start that joined the late output"
pass "the next start, with another output.directory, joins the late output from the session's directory"
