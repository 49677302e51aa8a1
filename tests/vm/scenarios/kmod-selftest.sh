# The tracker core's in-kernel test cases (latency_tracker_selftest's run file): duplicates,
# timeout then exit, stale keys, table full, key errors, the recursion guard, disable and
# destroy with keys pending, and every CPU hammering the API from threads and from hard-irq
# hrtimers at once; the hist/ files (buckets, reset, per and by_key, the bound on keys);
# a small run of the micro-benchmark.
. "$VM_IN/scenarios/guest-lib.sh"

modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
[ -c /dev/latency_tracker ] || fail "no /dev/latency_tracker character device"
[ "$(cat /sys/kernel/latency_tracker/abi_version)" = 1.6 ] || fail "abi_version: $(cat /sys/kernel/latency_tracker/abi_version)"
pass "modules loaded, /dev/latency_tracker present"

rc=0
echo all >/sys/kernel/latency_tracker_selftest/run || rc=$?
cat /sys/kernel/latency_tracker_selftest/results | tee "$VM_OUT/selftest-results.txt"
[ "$rc" = 0 ] || fail "in-kernel self-tests failed"
grep -q '^summary: 18 passed, 0 failed$' /sys/kernel/latency_tracker_selftest/results ||
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
