# The offcpu tracker: a reader blocked 50 ms on a pipe, woken by a writer
# (tests/vm/progs/lt-offcpu.c), raises exactly one alert over a 20 ms threshold, with the
# writer's tid and comm and its kernel stack showing the pipe write path, also found in an
# LTTng snapshot; a timeout alert for a reader still blocked after timeout_ns; a threshold
# change applies to the next block; a filtered-out task never alerts; no probe stays
# registered when disabled; unload is clean.
# vm-options: --smp 2
. "$VM_IN/scenarios/guest-lib.sh"

echo 0 >/proc/sys/kernel/kptr_restrict
tracker_load offcpu 4 2
[ "$(cat $T/threshold_ns)" = 100000000 ] || fail "default threshold $(cat $T/threshold_ns)"
echo 20000000 >$T/threshold_ns || fail "threshold_ns"
# Only the test's reader: every sleeping task of the system blocks.
echo lt-off-reader >$T/filter_comm || fail "filter_comm"
tracker_enable

# run_off SLEEP_MS WAIT_MS: runs lt-offcpu; R, W: reader and writer tids; A: the reader's
# offcpu alerts since the run started (lt-dump -s lines).
run_off() {
	mark=$(lt-dump -n) || fail "lt-dump -n"
	out=$(lt-offcpu "$1") || fail "lt-offcpu $1: $out"
	echo "$out"
	R=$(val "$out" reader)
	W=$(val "$out" writer)
	A=$(lt-dump -f "$mark" -t offcpu -w "$2" -s | grep " tid=$R ")
}

snapshot_start
run_off 50 3000
echo "$A"
[ "$(echo "$A" | grep -c .)" = 1 ] || fail "expected one alert for $R, got: $A"
[ "$(val "$A" reason)" = 1 ] || fail "reason"
[ "$(val "$A" type)" = 4 ] || fail "type"
[ "$(val "$A" comm)" = lt-off-reader ] || fail "comm"
[ "$(val "$A" delay_ns)" -ge 40000000 ] || fail "delay $(val "$A" delay_ns) under 40 ms"
[ "$(val "$A" delay_ns)" -lt 5000000000 ] || fail "delay too long"
[ "$(val "$A" data0)" = 1 ] || fail "state $(val "$A" data0), expected 1 (S)"
[ "$(val "$A" data1)" = "$W" ] || fail "waker tid $(val "$A" data1), expected $W"
[ "$(val "$A" waker_comm)" = lt-off-writer ] || fail "waker comm $(val "$A" waker_comm)"
[ $(($(val "$A" flags) & 16)) = 16 ] || fail "no STACK_WAKER flag"
st=$(val "$A" stack)
echo "$st" | grep -q pipe_write || fail "the waker's stack lacks pipe_write: $st"
echo "$st" | grep -q try_to_wake_up || fail "the waker's stack lacks try_to_wake_up: $st"
pass "one alert for the blocked reader, with its waker and the waker's stack"
seq=$(val "$A" seq)
ev=$(snapshot_alerts offcpu)
echo "$ev" | grep "seq = $seq," | grep "tid = $R," | grep -q 'comm = "lt-off-reader"' ||
	fail "snapshot alert: $ev"
pass "the alert is in an LTTng snapshot"

echo 100000000 >$T/timeout_ns || fail "timeout_ns 100 ms"
run_off 600 3000
echo "$A"
TO=$(echo "$A" | grep " reason=2 ")
[ "$(echo "$TO" | grep -c .)" = 1 ] || fail "expected one timeout alert, got: $A"
[ "$(val "$TO" data1)" = 0 ] || fail "timeout with a waker: $TO"
[ "$(val "$TO" nr_stack)" = 0 ] || fail "timeout with a stack: $TO"
[ "$(val "$TO" delay_ns)" -ge 100000000 ] || fail "timeout delay $(val "$TO" delay_ns)"
[ "$(val "$TO" end_cpu)" = 4294967295 ] || fail "timeout end_cpu $(val "$TO" end_cpu)"
END=$(echo "$A" | grep " reason=1 ")
[ "$(val "$END" data1)" = "$W" ] || fail "the end of the timed-out block lacks its waker: $END"
[ $(($(val "$END" flags) & 17)) = 17 ] || fail "the end of the timed-out block: flags $(val "$END" flags)"
echo 0 >$T/timeout_ns || fail "timeout_ns 0"
pass "timeout alert of a reader still blocked, then its end with the waker"

echo 200000000 >$T/threshold_ns || fail "threshold_ns 200 ms"
run_off 50 500
[ -z "$A" ] || fail "50 ms under a 200 ms threshold alerted: $A"
echo 20000000 >$T/threshold_ns
run_off 50 3000
[ -n "$A" ] || fail "no alert with the threshold back to 20 ms"
pass "threshold changes apply to the next block"

echo nosuchcomm >$T/filter_comm || fail "filter_comm nosuchcomm"
run_off 50 500
[ -z "$A" ] || fail "comm filtered-out reader alerted: $A"
echo lt-off-reader >$T/filter_comm
echo 1 >$T/filter_tgid || fail "filter_tgid 1"
run_off 50 500
[ -z "$A" ] || fail "tgid filtered-out reader alerted: $A"
echo 0 >$T/filter_tgid
run_off 50 3000
[ -n "$A" ] || fail "no alert with the comm filter that matches"
pass "filters"

tracker_disable
run_off 50 500
[ -z "$A" ] || fail "disabled tracker alerted: $A"
echo "stats: in $(cat $T/stats/events_in) out $(cat $T/stats/events_out) alerts $(cat $T/stats/alerts) timeouts $(cat $T/stats/timeouts) unmatched $(cat $T/stats/unmatched)"
rmmod latency_tracker_offcpu || fail "rmmod latency_tracker_offcpu"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "offcpu tracker"
