# vm-options: --timeout 300
# The benchmark's input, made in the test VM: a kernel snapshot (4 MiB of buffers per CPU)
# of a busy system (system calls from dd, a pipe chain from lt-offcpu, timers; with no
# system call traced, bench-hackbench's wakeups) that holds one offcpu alert to explain.
# $1 says which events:
#   syscalls  (default) every event the analysis uses, every system call too: the trace's
#             metadata is 320 KB, the set-up each babeltrace2 graph pays at its heaviest
#   events    latencyd's own session's (etc/latencyd.conf: session.events), no system call
# Run by bench/analysis/run; the snapshot lands in $VM_OUT/snap.
. "$VM_IN/scenarios/guest-lib.sh"
. "$VM_IN/scenarios/guest-analyze-lib.sh"

mode=${1:-syscalls}
case $mode in syscalls | events) ;; *) fail "snapshot.sh: $mode: syscalls or events" ;; esac
tracker_load offcpu 4 2
echo 20000000 >$T/threshold_ns || fail "threshold_ns"
echo lt-off-reader >$T/filter_comm || fail "filter_comm"
tracker_enable

lttng list >/dev/null 2>&1 || start_sessiond
lttng create lt --snapshot --output=/tmp/snap >/dev/null || fail "lttng create"
lttng enable-channel -k --overwrite --subbuf-size=1M --num-subbuf=4 chan >/dev/null ||
	fail "lttng enable-channel"
lttng enable-event -k -c chan "$AN_EVENTS" >/dev/null || fail "lttng enable-event"
if [ "$mode" = syscalls ]; then
	lttng enable-event -k -c chan --syscall -a >/dev/null || fail "lttng enable-event --syscall"
fi
lttng start >/dev/null || fail "lttng start"
for i in 1 2 3; do
	dd if=/dev/zero of=/dev/null bs=64 count=30000 2>/dev/null &
	dd if=/dev/zero of=/dev/null bs=64 count=30000 2>/dev/null
	wait
	# Without system calls, what fills the buffers is switches and wakeups.
	if [ "$mode" = events ]; then
		bench-hackbench 2 4 1000 >/dev/null || fail "bench-hackbench"
	fi
	lt-offcpu 30 >/dev/null || fail "lt-offcpu"
done
lttng snapshot record >/dev/null || fail "lttng snapshot record"
lttng destroy lt >/dev/null
rm -rf "$VM_OUT/snap"
cp -r /tmp/snap "$VM_OUT/snap" || fail "copy"
echo "snapshot: $(du -sh /tmp/snap | cut -f1)"
pass "benchmark snapshot"
