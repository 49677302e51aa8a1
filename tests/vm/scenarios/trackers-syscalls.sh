# The syscalls tracker: a 30 ms nanosleep over a 10 ms threshold raises exactly one alert
# for the sleeping thread, with nr 35/230 and the stack where it waited
# (tests/vm/progs/lt-syscalls.c), also found in an LTTng snapshot; a threshold change
# applies to the next call; a filtered-out process never alerts; sysfs files are parsed
# strictly; no probe stays registered when disabled; unload is clean.
. "$VM_IN/scenarios/lib.sh"

echo 0 >/proc/sys/kernel/kptr_restrict
tracker_load syscalls 2 3
echo "exclude_syscalls: $(cat $T/exclude_syscalls)"
echo 10000000 >$T/threshold_ns || fail "threshold_ns"
tracker_enable

snapshot_start
lt-syscalls 30 1 || fail "30 ms sleep over a 10 ms threshold"
pass "one alert with the stack of the sleep"
ev=$(snapshot_alerts syscalls)
echo "$ev" | grep -q 'comm = "lt-syscalls"' || fail "snapshot alert: $ev"
pass "the alert is in an LTTng snapshot"

echo 50000000 >$T/threshold_ns || fail "threshold_ns 50 ms"
lt-syscalls 30 0 || fail "30 ms sleep under a 50 ms threshold"
echo 10000000 >$T/threshold_ns
lt-syscalls 30 1 || fail "threshold back to 10 ms"
pass "threshold changes apply to the next call"

echo 1 >$T/filter_tgid || fail "filter_tgid 1"
lt-syscalls 30 0 || fail "filtered-out process alerted"
echo 0 >$T/filter_tgid
echo lt-syscalls >$T/filter_comm || fail "filter_comm"
lt-syscalls 30 1 || fail "comm filter that matches"
echo nosuchcomm >$T/filter_comm
lt-syscalls 30 0 || fail "comm filter that does not match"
echo >$T/filter_comm || fail "clear filter_comm"
pass "filters"

for bad in abc -1 "1 2" 99999999 " 1" x1; do
	if printf '%s' "$bad" >$T/filter_tgid 2>/dev/null; then fail "filter_tgid took '$bad'"; fi
done
if echo 1,x >$T/exclude_syscalls 2>/dev/null; then fail "exclude_syscalls took 1,x"; fi
if echo 5000 >$T/exclude_syscalls 2>/dev/null; then fail "exclude_syscalls took 5000"; fi
old=$(cat $T/exclude_syscalls)
echo 35,230 >$T/exclude_syscalls || fail "exclude_syscalls 35,230"
[ "$(cat $T/exclude_syscalls)" = "35,230" ] || fail "exclude_syscalls reads $(cat $T/exclude_syscalls)"
lt-syscalls 30 0 || fail "excluded nanosleep alerted"
echo "$old" >$T/exclude_syscalls || fail "restore exclude_syscalls"
pass "strict parsing, exclusion list"

tracker_disable
lt-syscalls 30 0 || fail "disabled tracker alerted"
echo "stats: in $(cat $T/stats/events_in) out $(cat $T/stats/events_out) alerts $(cat $T/stats/alerts)"
rmmod latency_tracker_syscalls || fail "rmmod latency_tracker_syscalls"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "syscalls tracker"
