#!/bin/bash
# session.history: buffers sized in seconds of history, for real. latencyd in the userspace
# domain (run by lttng-env as nobody against its own lttng-sessiond), fed by ust-app at a
# steady rate, starts from 4 x 4 KiB per CPU (about a second of it); the calibration
# snapshot measures the rate, latencyd re-sizes the session for the target and says so in
# status and the log; measured again, the new buffers hold the target and are left alone.
# Usage: lttng-env test-history-target.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }

printf 'session: {\n\thistory = "5";\n};\n' >"$T/bad.conf"
run "$LATENCYD" --check-config "$T/bad.conf"
expect_rc 1 "session.history without a unit"
expect_err "$T/bad.conf:2: session.history: '5': a unit is required"
pass "session.history without a unit: refused with FILE:LINE"

ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-target 'history = "5s";')
output: { directory = "$T/snapshots"; };
CONF
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }
jstatus() { local out; out=$(ctl --json status) && [ -n "$out" ] && jq -e "$1" <<<"$out" >/dev/null; }

start_daemon -c "$T/latencyd.conf"
wait_for 50 jstatus '.session.state == "recording"' || fail "the session is not recording"
jstatus '.history.target_ns == 5000000000 and .history.subbuf_size == 4096 and .history.resized == 0' ||
	fail "before a measurement: $(ctl --json status | jq -c .history)"
run ctl status
grep -q "to be sized for 5s of history (session.history) once the event rate is measured" "$T/out" ||
	fail "status before sizing: $(cat "$T/out")"
pass "before a measurement: 4 x 4 KiB per CPU, the target in status"

# The calibration snapshot, about 10 s after start, measures the rate: the session is
# re-created with buffers for 5 s of it.
wait_for 300 jstatus '.history.resized == 1' || fail "not re-sized: $(ctl --json status | jq -c .history)"
ctl --json status >"$T/status.json"
size=$(jq .history.subbuf_size "$T/status.json")
eps=$(jq .history.sized_events_per_sec "$T/status.json")
bpe=$(jq .history.sized_bytes_per_event "$T/status.json")
# The smallest power of two holding 5 s x rate x size x 1.25 in 4 sub-buffers.
want=$(awk -v e="$eps" -v b="$bpe" 'BEGIN { need = 5 * e * b * 1.25 / 4; s = 4096;
	while (s < need) s *= 2; print s }')
[ "$size" = "$want" ] && [ "$size" -gt 4096 ] ||
	fail "sub-buffers of $size bytes for $eps events/s x $bpe bytes, expected $want"
grep -q "session.history = 5s: .* re-creating the session, the history recorded so far is lost" \
	"$T/latencyd.log" || fail "the re-size is not logged"
run ctl status
grep -Eq "sized for 5s of history \(session.history\) from [0-9]+ events/s x [0-9.]+ bytes, re-sized 1 time" "$T/out" ||
	fail "status after sizing: $(cat "$T/out")"
pass "re-sized from the measured rate ($eps events/s x $bpe bytes): 4 x $size bytes per CPU"

# Measured again on the new buffers: they hold the target, and stay as they are.
wait_for 300 jstatus '.history.measured.buffer_bytes_per_cpu == .history.buffer_bytes_per_cpu and
	.history.measured.source == "calibration"' ||
	fail "the new buffers were not measured: $(ctl --json status | jq -c .history)"
ctl --json status >"$T/status.json"
jq -e '.history.expected_window_ns >= 4500000000 and .history.resized == 1' "$T/status.json" >/dev/null ||
	fail "after the re-size: $(jq -c .history "$T/status.json")"
pass "the new buffers hold about $(($(jq .history.expected_window_ns "$T/status.json") / 1000000)) ms: no second re-size"
stop_daemon
