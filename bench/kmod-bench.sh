# vm-options: --timeout 600
# Micro-benchmark of the tracker core in the test VM, next to the cost of an LTTng kernel
# event in the same run. Run with:
#   tests/vm/vm-run --out DIR bench/kmod-bench.sh [PAIRS]
# Three passes of latency_tracker_selftest's bench (PAIRS event_in+event_out pairs per
# measure, best of 5 rounds; see kmod/selftest/bench.c):
#   1. per-CPU free lists (the default), the alert tracepoint not recorded (static branch);
#   2. the same while an LTTng kernel session records latency_tracker_alert: tracepoint_ns
#      is then the cost of one LTTng kernel event;
#   3. freelist_shared=1: one free list for all CPUs, for comparison.
# Each pass also measures what a keyed histogram adds to a pair (hist/per none, then per
# syscall on the syscalls tracker's event_pair path, per disk on block's event_in+out).
# Writes DIR/kmod-bench.txt.
. "$VM_IN/scenarios/guest-lib.sh"

pairs=${1:-200000}
ST=/sys/kernel/latency_tracker_selftest

bench() {
	echo "$pairs" >$ST/bench || fail "bench"
	cat $ST/results
}
get() { sed -n "s/^$1 //p" "$2"; }

modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
bench >/tmp/percpu.txt

start_sessiond
lttng create bench --snapshot --output=/tmp/snap >/dev/null || fail "lttng create"
lttng enable-channel -k --overwrite --subbuf-size=256k --num-subbuf=4 chan >/dev/null ||
	fail "enable-channel"
lttng enable-event -k -c chan latency_tracker_alert >/dev/null || fail "enable-event"
lttng start >/dev/null || fail "lttng start"
bench >/tmp/lttng.txt
lttng destroy >/dev/null
[ "$(get tracepoint_enabled /tmp/lttng.txt)" = 1 ] || fail "the tracepoint was not enabled by LTTng"

rmmod latency_tracker_selftest && rmmod latency_tracker || fail "rmmod"
modprobe latency_tracker freelist_shared=1 && modprobe latency_tracker_selftest ||
	fail "modprobe freelist_shared=1"
bench >/tmp/shared.txt
rmmod latency_tracker_selftest && rmmod latency_tracker

for f in percpu lttng shared; do
	grep -q '^errors_1cpu 0$' /tmp/$f.txt && grep -q '^errors_all_cpus 0$' /tmp/$f.txt ||
		fail "errors during the $f pass: $(cat /tmp/$f.txt)"
done

{
	echo "latency_tracker micro-benchmark: $(uname -r), $(get cpus /tmp/percpu.txt) vCPUs," \
		"$(get pairs_per_round /tmp/percpu.txt) pairs per round, best of 5 rounds, ns"
	printf '%-36s %14s %14s\n' measure per-cpu-lists shared-list
	for m in pair_1cpu_ns event_in_ns event_out_ns lookup_ns pair_all_cpus_ns \
		pair_all_cpus_per_ms hist_syscall_pair_none_ns hist_syscall_pair_keyed_ns \
		hist_disk_in_out_none_ns hist_disk_in_out_keyed_ns; do
		printf '%-36s %14s %14s\n' "$m" "$(get $m /tmp/percpu.txt)" "$(get $m /tmp/shared.txt)"
	done
	printf '%-36s %14s\n' "alert tracepoint, not recorded" "$(get tracepoint_ns /tmp/percpu.txt)"
	printf '%-36s %14s\n' "alert tracepoint, LTTng recording" "$(get tracepoint_ns /tmp/lttng.txt)"
	printf '%-36s %14s\n' "pair_1cpu_ns during LTTng recording" "$(get pair_1cpu_ns /tmp/lttng.txt)"
} | tee "$VM_OUT/kmod-bench.txt"
for f in percpu lttng shared; do cp /tmp/$f.txt "$VM_OUT/kmod-bench-$f.txt"; done
pass "benchmark done"
