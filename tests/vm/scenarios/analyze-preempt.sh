# Snapshot analysis, preemption: a victim woken on CPU 1 waits while a SCHED_FIFO hog keeps
# that CPU for 60 ms (tests/vm/progs/lt-wakeup.c). The wakeup alert's analysis must find the
# victim runnable for most of the latency with its CPU held by the hog.
# vm-options: --smp 2
. "$VM_IN/scenarios/guest-lib.sh"
. "$VM_IN/scenarios/guest-analyze-lib.sh"

tracker_load wakeup 3 3
echo 10000000 >$T/threshold_ns || fail "threshold_ns"
echo lt-wk-victim >$T/filter_comm || fail "filter_comm"
tracker_enable

an_start
mark=$(lt-dump -n) || fail "lt-dump -n"
out=$(lt-wakeup 60) || fail "lt-wakeup: $out"
echo "$out"
V=$(val "$out" victim)
H=$(val "$out" hog)
A=$(lt-dump -f "$mark" -t wakeup -w 3000 | grep " tid=$V ")
[ "$(echo "$A" | grep -c .)" = 1 ] || fail "expected one wakeup alert for $V: $A"
an_snapshot preempt

an_alert "$(val "$A" seq)"
delay=$(an_get delay_ns)
echo "summary: $(an_get summary)"
an_link 0 "$V" runnable
[ "$(an_get "$L.cpu_held_by.tid")" = "$H" ] || fail "CPU held by $(an_get "$L.cpu_held_by.tid") ($(an_get "$L.cpu_held_by.comm")), not the hog $H"
[ "$(an_get "$L.cpu_held_by.comm")" = lt-wk-hog ] || fail "hog comm $(an_get "$L.cpu_held_by.comm")"
[ "$(an_get "$L.cpu")" = 1 ] || fail "waiting for CPU $(an_get "$L.cpu"), not 1"
[ $(($(an_get "$L.duration_ns") * 2)) -ge "$delay" ] || fail "the wait explains under half of $delay ns"
an_get summary | grep -q "preempted by lt-wk-hog" || fail "summary: $(an_get summary)"
pass "the victim was runnable, its CPU 1 held by the SCHED_FIFO hog ($H)"

tracker_disable
rmmod latency_tracker_wakeup latency_tracker || fail "rmmod"
