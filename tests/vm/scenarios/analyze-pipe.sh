# Snapshot analysis, a wakeup chain through a task and a timer: a reader blocks on a pipe
# that a writer writes after sleeping 40 ms (tests/vm/progs/lt-offcpu.c). The offcpu alert's
# analysis must find the chain reader <- writer <- timer: the reader blocked in read, woken by
# the writer, which was itself blocked in nanosleep over that time and woken by a timer.
# The LAMI output of the same snapshot is checked against the specification. System calls
# from dd first fill the buffers (some 2 MiB per CPU): --threads 1 and 2 must give the same
# analysis of a snapshot big enough to be read by two threads.
# vm-options: --smp 2
. "$VM_IN/scenarios/guest-lib.sh"
. "$VM_IN/scenarios/guest-analyze-lib.sh"

tracker_load offcpu 4 2
echo 20000000 >$T/threshold_ns || fail "threshold_ns"
echo lt-off-reader >$T/filter_comm || fail "filter_comm"
tracker_enable

an_start
dd if=/dev/zero of=/dev/null bs=64 count=40000 2>/dev/null &
dd if=/dev/zero of=/dev/null bs=64 count=40000 2>/dev/null
wait $!
AN_THREADS_REQUIRE=1
mark=$(lt-dump -n) || fail "lt-dump -n"
out=$(lt-offcpu 40) || fail "lt-offcpu: $out"
echo "$out"
R=$(val "$out" reader)
W=$(val "$out" writer)
A=$(lt-dump -f "$mark" -t offcpu -w 3000 | grep " tid=$R ")
[ "$(echo "$A" | grep -c .)" = 1 ] || fail "expected one offcpu alert for $R: $A"
an_snapshot pipe

an_alert "$(val "$A" seq)"
delay=$(an_get delay_ns)
echo "summary: $(an_get summary)"
an_link 0 "$R" blocked
[ "$(an_get "$L.woken_by.kind")" = task ] || fail "reader woken by $(an_get "$L.woken_by.kind")"
[ "$(an_get "$L.woken_by.tid")" = "$W" ] || fail "reader woken by tid $(an_get "$L.woken_by.tid"), not the writer $W"
[ "$(an_get "$L.syscall")" = read ] || fail "reader blocked in $(an_get "$L.syscall"), not read"
[ $(($(an_get "$L.duration_ns") * 2)) -ge "$delay" ] || fail "the reader's block explains under half of $delay ns"
pass "the reader was blocked in read, woken by the writer ($W)"

an_link 1 "$W" blocked
[ "$(an_get "$L.woken_by.kind")" = timer ] || fail "writer woken by $(an_get "$L.woken_by.kind"), not a timer"
case $(an_get "$L.syscall") in *nanosleep) ;; *) fail "writer blocked in $(an_get "$L.syscall")" ;; esac
[ "$(an_get "$L.duration_ns")" -ge 30000000 ] || fail "the writer's sleep is $(an_get "$L.duration_ns") ns"
pass "the writer was blocked in nanosleep over that time, woken by a timer: reader <- writer <- timer"

an_lami_check

tracker_disable
rmmod latency_tracker_offcpu latency_tracker || fail "rmmod"
