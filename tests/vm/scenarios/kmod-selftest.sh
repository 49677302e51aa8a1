# The tracker core's in-kernel test cases (latency_tracker_selftest's run file): duplicates,
# timeout then exit, stale keys (and the alert of one discarded past the threshold), table
# full (a replace restarting in place, an event_pair alert without a free entry), key
# errors, the recursion guard, disable and
# destroy with keys pending, the stack (and its flag) of an event_pair alert in stack mode
# "in", and every CPU hammering the API from threads and from hard-irq hrtimers at once;
# the hist/ files (buckets, reset, per and by_key, the bound on keys); the mean delay past
# a 64-bit sum of delays; oldest_ns refreshed with neither timeout nor staleness;
# a small run of the micro-benchmark; the core's default timeout against a tracker's own
# staleness (the net tracker's).
. "$VM_IN/scenarios/guest-lib.sh"

modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
[ -c /dev/latency_tracker ] || fail "no /dev/latency_tracker character device"
[ "$(cat /sys/kernel/latency_tracker/abi_version)" = 1.7 ] || fail "abi_version: $(cat /sys/kernel/latency_tracker/abi_version)"
pass "modules loaded, /dev/latency_tracker present"

rc=0
echo all >/sys/kernel/latency_tracker_selftest/run || rc=$?
cat /sys/kernel/latency_tracker_selftest/results | tee "$VM_OUT/selftest-results.txt"
[ "$rc" = 0 ] || fail "in-kernel self-tests failed"
grep -q '^summary: 25 passed, 0 failed$' /sys/kernel/latency_tracker_selftest/results ||
	fail "unexpected summary"
pass "in-kernel self-tests"

# The micro-benchmark (bench/kmod-bench.sh), small: it runs, and its pairs all succeed.
echo 2000 >/sys/kernel/latency_tracker_selftest/bench || fail "bench"
ST_RESULTS=/sys/kernel/latency_tracker_selftest/results
for m in errors_1cpu errors_all_cpus errors_hist_syscall_pair errors_hist_disk_in_out; do
	grep -q "^$m 0\$" $ST_RESULTS || fail "bench: $m: $(cat $ST_RESULTS)"
done
grep -Eq '^hist_syscall_pair_keyed_ns [0-9]+\.[0-9]$' $ST_RESULTS || fail "bench: no keyed figure"
pass "micro-benchmark"

rmmod latency_tracker_selftest || fail "rmmod latency_tracker_selftest"
rmmod latency_tracker || fail "rmmod latency_tracker"
[ ! -e /sys/kernel/latency_tracker ] || fail "sysfs directory left behind"
pass "unloaded cleanly"

# A core default that would not stay below (timeout) or above (staleness) what a tracker
# sets itself is dropped, not the tracker's value: net keeps its 1 s staleness.
modprobe latency_tracker timeout_ns=2000000000 || fail "modprobe latency_tracker timeout_ns=2000000000"
modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
echo defaults >/sys/kernel/latency_tracker_selftest/run ||
	fail "defaults with timeout_ns=2000000000: $(cat /sys/kernel/latency_tracker_selftest/results)"
modprobe latency_tracker_net || fail "modprobe latency_tracker_net"
N=/sys/kernel/latency_tracker/net
[ "$(cat $N/stale_ns) $(cat $N/timeout_ns)" = "1000000000 0" ] ||
	fail "net under timeout_ns=2000000000: stale_ns $(cat $N/stale_ns) timeout_ns $(cat $N/timeout_ns)"
rmmod latency_tracker_net latency_tracker_selftest latency_tracker || fail "rmmod"
pass "a default timeout above a tracker's own staleness is dropped"
