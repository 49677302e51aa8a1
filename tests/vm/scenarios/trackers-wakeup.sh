# The wakeup tracker: a SCHED_OTHER victim pinned to CPU 1, woken from CPU 0 by a known
# waker while a SCHED_FIFO hog keeps CPU 1 for 60 ms (tests/vm/progs/lt-wakeup.c), raises
# exactly one alert for the victim over a 10 ms threshold, with the waker's tid and comm,
# CPU 1 and prio 120, also found in an LTTng snapshot; a timeout alert while it waits; a threshold change applies to the
# next wakeup; a filtered-out task never alerts; no probe stays registered when disabled;
# unload is clean.
# vm-options: --smp 2
. "$VM_IN/scenarios/guest-lib.sh"

tracker_load wakeup 3 3
[ "$(cat $T/threshold_ns)" = 5000000 ] || fail "default threshold $(cat $T/threshold_ns)"
echo 10000000 >$T/threshold_ns || fail "threshold_ns"
# Only the test's victim: the rest of the system has its own wakeups.
echo lt-wk-victim >$T/filter_comm || fail "filter_comm"
tracker_enable

# run_wk HOG_MS WAIT_MS: runs lt-wakeup; V, W: victim and waker tids; A: the victim's
# wakeup alerts since the run started (lt-dump lines).
run_wk() {
	mark=$(lt-dump -n) || fail "lt-dump -n"
	out=$(lt-wakeup "$1") || fail "lt-wakeup $1: $out"
	echo "$out"
	V=$(val "$out" victim)
	W=$(val "$out" waker)
	A=$(lt-dump -f "$mark" -t wakeup -w "$2" | grep " tid=$V ")
}

snapshot_start
run_wk 60 3000
echo "$A"
[ "$(echo "$A" | grep -c .)" = 1 ] || fail "expected one alert for $V, got: $A"
[ "$(val "$A" reason)" = 1 ] || fail "reason"
[ "$(val "$A" type)" = 3 ] || fail "type"
[ "$(val "$A" comm)" = lt-wk-victim ] || fail "comm"
[ "$(val "$A" delay_ns)" -ge 10000000 ] || fail "delay under the threshold"
[ "$(val "$A" delay_ns)" -lt 5000000000 ] || fail "delay too long"
[ "$(val "$A" data0)" = "$W" ] || fail "waker tid $(val "$A" data0), expected $W"
[ "$(val "$A" waker_comm)" = lt-wk-waker ] || fail "waker comm $(val "$A" waker_comm)"
d1=$(val "$A" data1)
[ $((d1 & 0xffffffff)) = 1 ] || fail "cpu $((d1 & 0xffffffff)), expected 1"
[ "$(val "$A" end_cpu)" = 1 ] || fail "end_cpu $(val "$A" end_cpu)"
[ $((d1 >> 32)) = 120 ] || fail "prio $((d1 >> 32)), expected 120"
pass "one alert for the delayed victim, with its waker"
seq=$(val "$A" seq)
ev=$(snapshot_alerts wakeup)
echo "$ev" | grep "seq = $seq," | grep "tid = $V," | grep -q 'comm = "lt-wk-victim"' ||
	fail "snapshot alert: $ev"
pass "the alert is in an LTTng snapshot"

echo 20000000 >$T/timeout_ns || fail "timeout_ns 20 ms"
run_wk 150 3000
echo "$A"
TO=$(echo "$A" | grep " reason=2 ")
[ "$(echo "$TO" | grep -c .)" = 1 ] || fail "expected one timeout alert, got: $A"
[ "$(val "$TO" end_cpu)" = 4294967295 ] || fail "timeout end_cpu $(val "$TO" end_cpu)"
d1=$(val "$TO" data1)
[ $((d1 & 0xffffffff)) = 4294967295 ] || fail "timeout cpu $((d1 & 0xffffffff)): not run yet"
[ "$(val "$TO" data0)" = "$W" ] || fail "timeout waker $(val "$TO" data0), expected $W"
[ "$(echo "$A" | grep -c " reason=1 .* end_cpu=1 ")" = 1 ] || fail "no end of the timed-out wakeup: $A"
echo 0 >$T/timeout_ns || fail "timeout_ns 0"
pass "timeout alert of a victim still waiting for a CPU"

echo 200000000 >$T/threshold_ns || fail "threshold_ns 200 ms"
run_wk 60 500
[ -z "$A" ] || fail "60 ms under a 200 ms threshold alerted: $A"
echo 10000000 >$T/threshold_ns
run_wk 60 3000
[ -n "$A" ] || fail "no alert with the threshold back to 10 ms"
pass "threshold changes apply to the next wakeup"

echo nosuchcomm >$T/filter_comm || fail "filter_comm nosuchcomm"
run_wk 60 500
[ -z "$A" ] || fail "comm filtered-out victim alerted: $A"
echo >$T/filter_comm || fail "clear filter_comm"
echo 1 >$T/filter_tid || fail "filter_tid 1"
run_wk 60 500
[ -z "$A" ] || fail "tid filtered-out victim alerted: $A"
echo 0 >$T/filter_tid
echo lt-wk-victim >$T/filter_comm
run_wk 60 3000
[ -n "$A" ] || fail "no alert with the comm filter that matches"
pass "filters"

tracker_disable
run_wk 60 500
[ -z "$A" ] || fail "disabled tracker alerted: $A"
echo "stats: in $(cat $T/stats/events_in) out $(cat $T/stats/events_out) alerts $(cat $T/stats/alerts) unmatched $(cat $T/stats/unmatched)"
rmmod latency_tracker_wakeup || fail "rmmod latency_tracker_wakeup"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "wakeup tracker"
