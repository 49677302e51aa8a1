# vm-options: --timeout 300
# The benchmark's input, made in the test VM: a kernel snapshot (every event the analysis
# uses, system calls included, 4 MiB of buffers per CPU) of a busy system (system calls
# from dd, a pipe chain from lt-offcpu, timers) that holds one offcpu alert to explain.
# Run by bench/analysis/run; the snapshot lands in $VM_OUT/snap.
. "$VM_IN/scenarios/guest-lib.sh"
. "$VM_IN/scenarios/guest-analyze-lib.sh"

tracker_load offcpu 4 2
echo 20000000 >$T/threshold_ns || fail "threshold_ns"
echo lt-off-reader >$T/filter_comm || fail "filter_comm"
tracker_enable

lttng list >/dev/null 2>&1 || start_sessiond
lttng create lt --snapshot --output=/tmp/snap >/dev/null || fail "lttng create"
lttng enable-channel -k --overwrite --subbuf-size=1M --num-subbuf=4 chan >/dev/null ||
	fail "lttng enable-channel"
lttng enable-event -k -c chan "$AN_EVENTS" >/dev/null || fail "lttng enable-event"
lttng enable-event -k -c chan --syscall -a >/dev/null || fail "lttng enable-event --syscall"
lttng start >/dev/null || fail "lttng start"
for i in 1 2 3; do
	dd if=/dev/zero of=/dev/null bs=64 count=30000 2>/dev/null &
	dd if=/dev/zero of=/dev/null bs=64 count=30000 2>/dev/null
	wait
	lt-offcpu 30 >/dev/null || fail "lt-offcpu"
done
lttng snapshot record >/dev/null || fail "lttng snapshot record"
lttng destroy lt >/dev/null
rm -rf "$VM_OUT/snap"
cp -r /tmp/snap "$VM_OUT/snap" || fail "copy"
echo "snapshot: $(du -sh /tmp/snap | cut -f1)"
pass "benchmark snapshot"
