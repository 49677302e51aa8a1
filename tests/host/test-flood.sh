#!/bin/bash
# The control socket under abuse, with the real latencyd as a flight recorder (run by lttng-env
# as nobody, userspace domain, alerts from alert-write into a FIFO): 100 concurrent clients
# all answered right; stalled clients (silent, half a hello, half a request, a watcher that
# never reads) dropped while others are served; clients vanishing mid-reply; bad frames. And
# the realtime path is never held up by clients: an alert during the flood is a snapshot.
# Usage: lttng-env test-flood.sh LATENCYD LATENCYCTL CTL_FLOOD ALERT_WRITE UST_APP
set -u
CTL_FLOOD=${3:?} ALERT_WRITE=${4:?} UST_APP=${5:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LTTNG_HOME:-}" ] || { echo "SKIP: run me under lttng-env"; exit 77; }

PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; cleanup' EXIT
"$UST_APP" &
PIDS+=($!)

SOCK=$T/ctl.sock
CAT=$T/catalog/catalog.json
mkfifo "$T/alerts"
write_conf <<CONF
control: { socket = "$SOCK"; max_clients = 128; save_file = ""; };
$(ust_recorder_conf latencyd-flood)
output: { directory = "$T/snapshots"; };
ratelimit: { rate = 10; burst = 5; trackers = [ "net=0.001/1" ]; };
realtime: { priority = 0; lock_memory = false; };
CONF
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }
jcat() { [ -s "$CAT" ] && jq -e "$@" "$CAT" >/dev/null 2>&1; }
complete() { jcat --argjson id "$1" '.snapshots[] | select(.id == $id and .status == "complete")'; }
alive() { kill -0 "$DAEMON_PID" || fail "latencyd died"; }

start_daemon -c "$T/latencyd.conf"
wait_for 100 sh -c "\"$LATENCYCTL\" -s \"$SOCK\" --json status | jq -e '.session.state == \"recording\"' >/dev/null" ||
	fail "the session is not recording"
wait_for 300 sh -c 'lttng list -u 2>/dev/null | grep -q lttng_ust_tracef' || fail "ust-app not registered"

# Stalled clients first: they sit there through everything below.
for mode in silent half-hello half-frame; do
	"$CTL_FLOOD" stall "$mode" "$SOCK" >"$T/stall-$mode.out" 2>&1 &
	eval "STALL_${mode//-/_}=$!"
	PIDS+=($!)
done
# Slow but steady, never a whole frame in one read, for longer than the frame timeout.
"$CTL_FLOOD" steady "$SOCK" 26 >"$T/steady.out" 2>&1 &
STEADY=$!
PIDS+=("$STEADY")
"$CTL_FLOOD" noread-watch "$SOCK" >"$T/noread.out" 2>&1 &
NOREAD=$!
PIDS+=("$NOREAD")
ctl --json watch >"$T/watch.json" 2>"$T/watch.err" &
WATCH=$!
PIDS+=("$WATCH")
wait_for 50 grep -q "watching without reading" "$T/noread.out" || fail "noread-watch did not start"

# 100 clients at once, each pipelining 4 x ROUNDS requests; an alert while they are served.
run "$CTL_FLOOD" clients "$SOCK" 100 100 "$ALERT_WRITE" "$T/alerts" flood 1
expect_rc 0 "100 clients and an alert: $(cat "$T/out" "$T/err")"
expect_out "alert-write exited with 0 during the flood"
expect_out "100 clients: 40000 of 40000 replies right"
wait_for 200 complete 1 || fail "no snapshot for the alert during the flood: $(cat "$CAT" 2>/dev/null)"
jcat '.snapshots[0].causes[0].tracker == "flood" and .snapshots[0].bytes > 0' ||
	fail "snapshot 1: $(jq -c '.snapshots[0]' "$CAT")"
alive
pass "100 concurrent clients: 40000 replies, all right; an alert during the flood made snapshot 1"

# An alert storm: suppressed alerts are events for the watchers, one per batch that the
# waiter hands to the main loop (with how many alerts it stands for), so the storm comes one
# record per write, 1 ms apart, to make thousands of events. The watcher that never reads is
# dropped at its output limit; the one that reads gets every alert counted. The first storm
# alert takes the tracker's only token; once its snapshot is done, every other is refused
# (alerts during a record would join it instead).
"$ALERT_WRITE" "$T/alerts" net 1 || fail "alert-write net"
wait_for 200 complete 2 || fail "no snapshot for the first storm alert: $(cat "$CAT" 2>/dev/null)"
# A loaded machine makes the main loop slower and the batches bigger, so fewer events: the
# storm goes on in rounds until the watcher that never reads has been dropped.
sent=0
for round in $(seq 30); do
	"$ALERT_WRITE" "$T/alerts" net 2000 1 || fail "alert-write net"
	sent=$((sent + 2000))
	wait_for 20 grep -q "dropped by latencyd" "$T/noread.out" && break
done
wait_for 300 grep -q "dropped by latencyd" "$T/noread.out" ||
	fail "the non-reading watcher was not dropped after $sent alerts: $(cat "$T/noread.out")"
wait "$NOREAD" || fail "noread-watch: $(cat "$T/noread.out")"
# At 1 MiB, or earlier if the storm leaves its output unread 30 s (the output timeout).
grep -Eq "more than 1048576 bytes of unread output, dropping it|read none of its [0-9]+ bytes of pending output for 30000 ms, dropping it" \
	"$T/latencyd.log" || fail "the drop is not logged"
storm_alerts() {
	jq -s '[.[] | select(.event == "suppressed" and .data.alert.tracker == "net")
		| .data.alerts] | add // 0' "$T/watch.json"
}
wait_for 300 sh -c "[ \$(jq -s '[.[] | select(.event == \"suppressed\" and .data.alert.tracker == \"net\") | .data.alerts] | add // 0' '$T/watch.json') = $sent ]" ||
	fail "the reading watcher's suppressed events count $(storm_alerts) of $sent alerts: $(grep -m2 suppressed "$T/watch.json")"
alive
pass "$sent storm alerts: a watcher that never reads is dropped at 1 MiB; the one that reads got every event"

# Stalled clients: the handshake and frame timeouts (10 s) closed them, with an error.
for mode in silent half-hello half-frame; do
	eval "pid=\$STALL_${mode//-/_}"
	wait_for 300 sh -c "! kill -0 $pid" || fail "stalled client ($mode) still connected"
	wait "$pid" || fail "stall $mode: $(cat "$T/stall-$mode.out")"
done
grep -q "after: [a-z-]*: handshake timeout" "$T/stall-silent.out" || fail "silent: $(cat "$T/stall-silent.out")"
grep -q "after: [a-z-]*: handshake timeout" "$T/stall-half-hello.out" || fail "half-hello: $(cat "$T/stall-half-hello.out")"
grep -q "after: [a-z-]*: frame timeout: 13 bytes" "$T/stall-half-frame.out" ||
	fail "half-frame: $(cat "$T/stall-half-frame.out")"
wait "$STEADY" || fail "a slow but steady client was dropped: $(cat "$T/steady.out")"
pass "stalled clients (silent, half a hello, half a request) closed with an error; a slow steady one served"

# Clients gone mid-reply, many times over; then everybody is still served.
for i in $(seq 20); do
	"$CTL_FLOOD" vanish "$SOCK" 3000 || fail "vanish"
	"$CTL_FLOOD" vanish-mid "$SOCK" 3000 || fail "vanish-mid"
done
"$CTL_FLOOD" clients "$SOCK" 10 10 >"$T/after.out" 2>&1 || fail "after vanishing clients: $(cat "$T/after.out")"
alive
pass "40 clients gone mid-reply; latencyd still answers"

# Bad input at the real socket: each answered with its error, the connection going on.
hello='{"hello":{"protocol":1}}'
raw() { printf '%s\n' "$hello" "$@" | timeout 10 socat -t 2 - UNIX-CONNECT:"$SOCK" >"$T/out" 2>"$T/err"; }
raw 'not json' '{"id":1,"command":"status","args":{"verbose":1}}' '{"id":2,"command":"set-threshold","args":{"tracker":"wakeup","threshold_ns":"1ms"}}' \
	'{"id":3,"command":"nope"}' '{"id":"4","command":"status"}' '[1,2]' '{"id":5,"command":"status"}'
jq -se 'map(select(.error)) | map(.error.code) == ["bad-request", "bad-argument", "bad-argument", "unknown-command", "bad-request", "bad-request"]' \
	"$T/out" >/dev/null || fail "bad input: $(cat "$T/out")"
jq -se '.[-1].id == 5 and .[-1].ok' "$T/out" >/dev/null || fail "no answer after the bad input"
"$CTL_FLOOD" stall oversize "$SOCK" >"$T/out" 2>&1 || fail "oversize: $(cat "$T/out")"
grep -q "after: too-large: " "$T/out" || fail "oversize: $(cat "$T/out")"
run ctl status
expect_rc 0 "status after bad input"
pass "bad JSON, wrong types, unknown commands, oversize frames: each its error"

kill "$WATCH" 2>/dev/null
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
