# The path every kernel-side test stands on: this project's module loads in the VM kernel,
# the root lttng-sessiond runs with lttng-modules, and a kernel snapshot session records
# real scheduler events that babeltrace2 reads back.
. "$VM_IN/scenarios/guest-lib.sh"

modprobe latency_tracker || fail "modprobe latency_tracker"
[ -r /sys/kernel/latency_tracker/abi_version ] || fail "no /sys/kernel/latency_tracker/abi_version"
pass "latency_tracker loaded, ABI $(cat /sys/kernel/latency_tracker/abi_version)"

start_sessiond
lttng create flight --snapshot --output=/tmp/snap >/dev/null || fail "lttng create"
lttng enable-channel -k --overwrite --subbuf-size=64k --num-subbuf=4 chan >/dev/null ||
	fail "enable-channel"
lttng enable-event -k -c chan sched_switch,sched_waking >/dev/null || fail "enable-event"
lttng start >/dev/null || fail "lttng start"
for i in 1 2 3 4 5; do sleep 0.05; done
lttng snapshot record >/dev/null || fail "snapshot record"
lttng destroy >/dev/null

n=$(read_trace /tmp/snap | grep -c 'sched_switch:')
[ "$n" -gt 0 ] || fail "no sched_switch event in the snapshot"
pass "kernel snapshot holds $n sched_switch events"
cp -r /tmp/snap "$VM_OUT/" 2>/dev/null
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "latency_tracker unloaded"
