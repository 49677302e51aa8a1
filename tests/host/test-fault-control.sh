#!/bin/bash
# The control socket against clients that hold what latencyd needs, with the real latencyd as
# a flight recorder (run by lttng-env as nobody, userspace domain, alerts from alert-write
# into a FIFO):
#  - descriptors: with RLIMIT_NOFILE lowered (prlimit), idle clients never take the ones the
#    recorder needs: the clients beyond get "busy" naming the descriptors, and an alert is
#    still a complete snapshot, the session never re-created;
#  - accept() failing (EMFILE): retried, one warning for the whole episode, counted; latencyd
#    accepts again once descriptors are back;
#  - a client that asks for large replies and never reads them is dropped (output timeout);
#  - input ending in the middle of a request gets an error, not silence;
# each outcome counted in status "control".
# Usage: lttng-env test-fault-control.sh LATENCYD LATENCYCTL CTL_FLOOD ALERT_WRITE UST_APP
set -u
CTL_FLOOD=${3:?} ALERT_WRITE=${4:?} UST_APP=${5:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LTTNG_HOME:-}" ] || { echo "SKIP: run me under lttng-env"; exit 77; }
command -v prlimit >/dev/null || { echo "SKIP: no prlimit"; exit 77; }

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; cleanup' EXIT
ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; max_clients = 64; save_file = ""; };
$(ust_recorder_conf latencyd-fault-control)
output: { directory = "$T/snapshots"; };
realtime: { priority = 0; lock_memory = false; };
CONF
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }
jcat() { [ -s "$CAT" ] && jq -e "$@" "$CAT" >/dev/null 2>&1; }
snap_done() { jcat --argjson id "$1" '.snapshots[] | select(.id == $id and .status != "recording")'; }
alive() { kill -0 "$DAEMON_PID" || fail "latencyd died"; }
counter() { ctl --json status | jq -r ".control.$1"; }
nfds() { ls "/proc/$DAEMON_PID/fd" | wc -l; }
# The lowest descriptor number latencyd has free: with it as its limit, it has none left.
lowest_free() { ls "/proc/$DAEMON_PID/fd" | sort -n | awk '$1 != NR - 1 { print NR - 1; f = 1; exit } END { if (!f) print NR }'; }

start_daemon -c "$T/latencyd.conf"
wait_for 100 sh -c "\"$LATENCYCTL\" -s \"$SOCK\" --json status | jq -e '.session.state == \"recording\"' >/dev/null" ||
	fail "the session is not recording"
wait_for 300 sh -c 'lttng list -u 2>/dev/null | grep -q lttng_ust_tracef' || fail "ust-app not registered"
# The calibration record (soon after start) opens descriptors of its own: let it end.
wait_for 300 grep -q "calibration record" "$T/latencyd.log" || fail "no calibration record"

# Large replies asked for and never read: latencyd stops reading the client, then drops it
# once it has read nothing for the output timeout (30 s), whatever the unread bytes.
"$CTL_FLOOD" noread-reply "$SOCK" 200 >"$T/noread.out" 2>&1 &
NOREAD=$!
PIDS+=("$NOREAD")
wait_for 50 grep -q "asked without reading" "$T/noread.out" || fail "noread-reply did not start"

# Half a request, then the end of input (socat half-closes): an error says so.
printf '%s\n%s' '{"hello":{"protocol":1}}' '{"id":1,"command":"version"}' |
	timeout 10 socat -t 2 - UNIX-CONNECT:"$SOCK" >"$T/out" 2>"$T/err"
jq -se '.[-1].error.code == "bad-request" and (.[-1].error.message |
	startswith("end of input in the middle of a frame: 28 bytes"))' "$T/out" >/dev/null ||
	fail "half a request at the end of input: $(cat "$T/out")"
[ "$(counter bad_frames)" -ge 1 ] || fail "the cut request is not counted"
pass "half a request at the end of input: bad-request naming it, counted"

# Descriptors: few left above those latencyd holds, and clients that want many more. Only
# the soft limit moves: nobody may not raise the hard one again.
hard=$(prlimit --pid "$DAEMON_PID" --nofile --output HARD --noheadings)
soft=$(prlimit --pid "$DAEMON_PID" --nofile --output SOFT --noheadings)
n=$(nfds)
limit=$((n + 24))
prlimit --pid "$DAEMON_PID" --nofile=$limit:$hard || fail "prlimit"
exec 7> >(exec "$CTL_FLOOD" hold "$SOCK" 40 >"$T/hold.out" 2>&1)
HOLD=$!
PIDS+=("$HOLD")
wait_for 300 grep -q "^holding" "$T/hold.out" || fail "hold: $(cat "$T/hold.out")"
grep -q "^busy: latencyd is short of file descriptors: $((limit - limit / 2)) of its $limit (RLIMIT_NOFILE) are kept for recording" \
	"$T/hold.out" || fail "no client was told of the descriptors: $(sort "$T/hold.out" | uniq -c)"
grep -q "busy: latencyd is short of file descriptors" "$T/latencyd.log" || fail "the refusals are not logged"
# The clients hold all they could get: an alert must still be a snapshot.
"$ALERT_WRITE" "$T/alerts" fdtest 1 || fail "alert-write"
wait_for 300 snap_done 1 || fail "no snapshot for the alert: $(cat "$CAT" 2>/dev/null)"
jcat '.snapshots[] | select(.id == 1) | .status == "complete"' ||
	fail "with clients holding descriptors, snapshot 1: $(jq -c '.snapshots[] | select(.id == 1)' "$CAT")"
alive
# Root and latencyd's own user are no exception: the descriptors are short for them too.
run ctl status
expect_rc 1 "status while clients hold every descriptor they may"
expect_err "latencyctl: hello: latencyd is short of file descriptors"
exec 7>&-
wait "$HOLD"
wait_for 100 ctl status >/dev/null || fail "no status once the clients are gone"
run ctl --json status
jq -e '.session.recreated == 0' "$T/out" >/dev/null ||
	fail "the session was re-created: $(jq -c .session "$T/out")"
jq -e '.control.busy >= 1' "$T/out" >/dev/null || fail "busy not counted: $(jq -c .control "$T/out")"
pass "$(grep -c '^hello' "$T/hold.out") clients held what they could, $(grep -c '^busy' "$T/hold.out") got busy; an alert was a complete snapshot, the session kept"

# accept() itself failing: fewer descriptors than latencyd holds. The client waits in the
# backlog (latencyctl times out); latencyd retries without spinning, warns once.
limit=$(lowest_free)
prlimit --pid "$DAEMON_PID" --nofile=$limit:$hard || fail "prlimit"
run ctl --timeout 3 status
expect_rc 3 "status with no descriptor left to accept it"
prlimit --pid "$DAEMON_PID" --nofile=$soft:$hard || fail "prlimit"
wait_for 100 ctl status >/dev/null || fail "latencyd does not accept again"
[ "$(grep -c "warning: accept" "$T/latencyd.log")" = 1 ] ||
	fail "accept failures: $(grep -c "warning: accept" "$T/latencyd.log") warnings, not one"
grep -q "accepting connections again, after [0-9]* failed accepts" "$T/latencyd.log" ||
	fail "the end of the accept failures is not logged"
failed=$(counter accept_failed)
# Retried, not spun: a few per second of the wait, not millions.
[ "$failed" -ge 2 ] && [ "$failed" -le 100 ] || fail "accept failures counted: $failed"
alive
pass "accept() failing with EMFILE: retried ($failed times), one warning, served again after"

# A flood of clients turned away busy (64 slots, 364 clients holding what they get): each is
# counted, but the log says one line per interval with the count of those it did not say one
# by one, not a line each. Every refusal is in the log either way: said, or in a count.
busy_lines() { grep -Ec "client [0-9]+: busy: |more client\(s\) turned away busy" "$T/latencyd.log"; }
busy_logged() {
	grep -Eo "client [0-9]+: busy: |[0-9]+ more client\(s\) turned away busy" "$T/latencyd.log" |
		awk '/more client/ { n += $1; next } { n++ } END { print n + 0 }'
}
busy_all_logged() { [ "$(busy_logged)" = "$(counter busy)" ]; }
lines_before=$(busy_lines)
busy_before=$(counter busy)
"$CTL_FLOOD" hold "$SOCK" 364 </dev/null >"$T/flood.out" 2>&1 || fail "hold: $(tail -3 "$T/flood.out")"
refusals=$(grep -c "^busy: too many clients (64)" "$T/flood.out")
[ "$refusals" -ge 300 ] || fail "the flood: $(sort "$T/flood.out" | uniq -c)"
[ $(($(counter busy) - busy_before)) -ge "$refusals" ] ||
	fail "busy counted $(($(counter busy) - busy_before)) times for $refusals refusals"
wait_for 300 busy_all_logged ||
	fail "the log accounts for $(busy_logged) busy clients, status counts $(counter busy): $(grep busy "$T/latencyd.log" | tail -5)"
lines=$(($(busy_lines) - lines_before))
[ "$lines" -ge 1 ] && [ "$lines" -le $((refusals / 10)) ] ||
	fail "$lines log lines for $refusals busy clients: $(grep busy "$T/latencyd.log" | tail -5)"
alive
pass "$refusals clients turned away busy in a flood: $lines log line(s), each refusal counted and accounted for"

# The client that never read: dropped by the output timeout, logged and counted.
wait_for 1200 sh -c "! kill -0 $NOREAD" || fail "the client that never reads is still connected"
wait "$NOREAD" || fail "noread-reply: $(cat "$T/noread.out")"
grep -q "client [0-9]*: read none of its [0-9]* bytes of pending output for 30000 ms, dropping it" \
	"$T/latencyd.log" || fail "the drop is not logged"
[ "$(counter dropped_slow)" -ge 1 ] || fail "the drop is not counted"
pass "a client that never reads its replies: dropped after the output timeout, logged, counted"

run ctl status
expect_rc 0 "status at the end"
expect_out "Control:"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
