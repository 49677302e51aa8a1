#!/bin/bash
# A task named with terminal controls (prctl(PR_SET_NAME) is anyone's): its alert, recorded
# by the real latencyd, reaches latencyctl's text (watch, list-snapshots, show-snapshot)
# with each control shown as '?', and whole in --json, where JSON escapes it; so does a
# trace's task name in analyze's text.
# Usage: lttng-env --relayd test-client-escapes.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP \
#        KERNEL_SNAP_WRITE
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?} SNAP_WRITE=${5:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }

ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-escapes)
output: { directory = "$T/snapshots"; };
ratelimit: { rate = 0; };
CONF
start_daemon -c "$T/latencyd.conf"
C() { "$LATENCYCTL" -s "$SOCK" "$@"; }
wait_for 100 sh -c "'$LATENCYCTL' -s '$SOCK' --json status | jq -e '.session.state == \"recording\"' >/dev/null" ||
	fail "the session is not recording"
wait_for 300 sh -c 'lttng list -u 2>/dev/null | grep -q lttng_ust_tracef'
sleep 0.5

# A control byte but the newline that ends a line: the test's failure.
controls() { LC_ALL=C grep -n $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$1"; }

C watch >"$T/watch" 2>&1 &
WATCH=$!
wait_for 50 sh -c "[ \$('$LATENCYCTL' -s '$SOCK' --json status | jq '.control.clients') -ge 1 ]" ||
	fail "watch did not connect"
# ESC ] 0 ; (window title) BEL, ESC [ 2 J (clear), C1 CSI, in the 15 bytes of a task name.
ALERT_COMM=$'\x1b]0;X\x07\x1b[2J\xc2\x9b1m' "$ALERT_WRITE" "$T/alerts" selftest 1
wait_for 300 sh -c "'$LATENCYCTL' -s '$SOCK' --json list-snapshots | jq -e '.matched >= 1' >/dev/null" ||
	fail "no snapshot of the alert"
wait_for 100 grep -q "snapshot 1" "$T/watch" || fail "watch did not say snapshot 1: $(cat -v "$T/watch")"
kill "$WATCH"
wait "$WATCH" 2>/dev/null

run C list-snapshots
expect_rc 0 "list-snapshots"
cp "$T/out" "$T/list"
run C show-snapshot 1
expect_rc 0 "show-snapshot 1"
cp "$T/out" "$T/show"
for f in watch list show; do
	! controls "$T/$f" >/dev/null || fail "$f printed a control: $(controls "$T/$f" | cat -v)"
	grep -qF '?]0;X??[2J?1m' "$T/$f" || fail "$f lacks the name, cleaned: $(cat -v "$T/$f")"
done
# analyze: the names in a trace are anyone's too (a kernel trace as lttng-modules writes
# one, its task named so).
mkdir "$T/k"
KSW_COMM=$'\x1b]0;X\x07\x1b[2J\xc2\x9b1m' "$SNAP_WRITE" "$T/k" 1 || fail "kernel-snap-write"
run C analyze "$T/k"
expect_rc 0 "analyze of a trace with the name"
controls "$T/out" >/dev/null && fail "analyze printed a control: $(controls "$T/out" | cat -v)"
grep -qF '?]0;X??[2J?1m (4242)' "$T/out" || fail "analyze lacks the name, cleaned: $(cat -v "$T/out")"
pass "a trace's task name with controls reaches no terminal: analyze"
# --json keeps the name as latencyd has it.
C --json show-snapshot 1 | jq -e '.causes[0].comm | test("^\u001b]0;X\u0007")' >/dev/null ||
	fail "--json: $(C --json show-snapshot 1 | jq -c '.causes[0].comm')"
pass "a task name's controls reach no terminal: watch, list-snapshots, show-snapshot"
stop_daemon
