# vm-options: --timeout 400
# Issue #9, bad input to the module: random writes to every writable sysfs file of every
# tracker and to the app marker file (tests/vm/progs/lt-fault-sysfs.c: refused with an
# error, numbers strictly parsed, no oops: vm-run fails a run whose kernel logs one);
# odd reads of /dev/latency_tracker (tests/vm/progs/lt-fault-read.c: sizes 0, 1,
# record - 1, record + 1, huge, bad buffers, pread, readv, lseek: a clear errno or whole
# records); the same files written by a non-root user: refused. The module still works
# afterwards and unloads cleanly.
. "$VM_IN/scenarios/guest-lib.sh"

R=/sys/kernel/latency_tracker
modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
for t in syscalls wakeup offcpu block irq net app; do
	modprobe latency_tracker_$t || fail "modprobe latency_tracker_$t"
done
files="$(find $R -type f -perm -200 | sort) /dev/latency_tracker_app"
echo "$files" | tr ' ' '\n' >"$VM_OUT/files.txt"
n=$(echo $files | wc -w)
[ "$n" -gt 60 ] || fail "only $n writable files: $files"
seed=$(($(date +%s) % 100000))
echo "seed $seed (lt-fault-sysfs 400 $seed FILES reproduces this run)"
lt-fault-sysfs 400 $seed $files >"$VM_OUT/sysfs-fuzz.txt" || {
	grep FAIL "$VM_OUT/sysfs-fuzz.txt"
	fail "random sysfs writes (seed $seed)"
}
grep -c "numbers only" "$VM_OUT/sysfs-fuzz.txt" | sed 's/$/ numeric files/'
pass "400 random writes to each of $n files: refused or strictly parsed, no oops"

# Every tracker still reads, and the core still raises alerts.
for t in $R/*/; do
	cat $t/enabled $t/threshold_ns $t/stats/alerts >/dev/null || fail "$t does not read"
done
echo 0 >$R/selftest/enabled && echo 1000000 >$R/selftest/threshold_ns && echo 1 >$R/selftest/enabled ||
	fail "selftest tracker does not take good values after the fuzzing"
echo 200 >$R/alert_rate_per_s && echo 200 >$R/alert_burst || fail "rate limit"
a=$(cat $R/selftest/stats/alerts)
echo "threshold 40" >/sys/kernel/latency_tracker_selftest/emit || fail "emit"
[ "$(cat $R/selftest/stats/alerts)" = $((a + 40)) ] || fail "the selftest tracker no longer alerts"
pass "the module works after the fuzzing"

lt-fault-read || fail "odd reads of /dev/latency_tracker"
pass "odd reads of /dev/latency_tracker: clear errors or whole records"

lt-fault-sysfs --as 65534 $files /dev/latency_tracker || fail "non-root writes"
pass "every file refused to uid 65534"

for t in app net irq block offcpu wakeup syscalls selftest; do
	rmmod latency_tracker_$t || fail "rmmod latency_tracker_$t"
done
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "clean unload"
