# The syscalls tracker: a 30 ms nanosleep over a 10 ms threshold raises exactly one alert
# for the sleeping thread, with nr 35/230 and the stack where it waited
# (tests/vm/progs/lt-syscalls.c), also found in an LTTng snapshot; a threshold change
# applies to the next call; a filtered-out process never alerts; sysfs files are parsed
# strictly; the fast path (a call that never leaves its CPU stays in a per-CPU slot) counts
# every call, alerts at the exit of a long call that stayed on its CPU, and such a call
# times out while running (the scanner's IPI moves it into the table); an alert's times
# are on the trace clock, within the call seen from outside; no probe stays
# registered when disabled; unload is clean.
. "$VM_IN/scenarios/guest-lib.sh"

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
old=$(cat $T/exclude_syscalls)
for bad in 1,x 5000 "1, 5000" "1 x" "1, +2" "1,-2" "1;2" "none,1" "," ", ,"; do
	if printf '%s\n' "$bad" >$T/exclude_syscalls 2>/dev/null; then
		fail "exclude_syscalls took '$bad'"
	fi
	[ "$(cat $T/exclude_syscalls)" = "$old" ] || fail "refused '$bad' changed exclude_syscalls"
done
# Any run of commas and blanks separates two numbers.
for good in "35, 230" "35 230" "35 ,  230" "$(printf '35\t230')" " 230,35 "; do
	printf '%s\n' "$good" >$T/exclude_syscalls || fail "exclude_syscalls refused '$good'"
	[ "$(cat $T/exclude_syscalls)" = "35,230" ] ||
		fail "exclude_syscalls reads $(cat $T/exclude_syscalls) after '$good'"
done
echo none >$T/exclude_syscalls || fail "exclude_syscalls none"
[ "$(cat $T/exclude_syscalls)" = none ] || fail "exclude_syscalls reads $(cat $T/exclude_syscalls)"
echo 35,230 >$T/exclude_syscalls || fail "exclude_syscalls 35,230"
[ "$(cat $T/exclude_syscalls)" = "35,230" ] || fail "exclude_syscalls reads $(cat $T/exclude_syscalls)"
lt-syscalls 30 0 || fail "excluded nanosleep alerted"
echo "$old" >$T/exclude_syscalls || fail "restore exclude_syscalls"
pass "strict parsing, exclusion list"

# A 32-bit process's calls have their own numbers (ia32: futex is 240, poll 168, exit 1),
# checked against exclude_syscalls_ia32; its default excludes the same calls as the native
# list's, their 64-bit time variants too.
ia32=$(cat $T/exclude_syscalls_ia32)
[ "$ia32" = "82,142,168,240,256,308,309,319,413,414,422,441,449" ] ||
	fail "exclude_syscalls_ia32 reads $ia32"
for bad in 1,x 5000 ","; do
	if printf '%s\n' "$bad" >$T/exclude_syscalls_ia32 2>/dev/null; then
		fail "exclude_syscalls_ia32 took '$bad'"
	fi
done
echo lt-sys-ia32 >$T/filter_comm || fail "filter_comm lt-sys-ia32"
lt-sys-ia32 30 || fail "ia32 calls"
# The list is what keeps them out: emptied, the ia32 poll alerts.
echo none >$T/exclude_syscalls_ia32 || fail "exclude_syscalls_ia32 none"
if lt-sys-ia32 30 >/tmp/ia32.out; then
	fail "ia32 poll and futex not tracked with exclude_syscalls_ia32 empty"
fi
grep -q "alert nr=168 " /tmp/ia32.out || fail "no alert for the ia32 poll: $(cat /tmp/ia32.out)"
echo "$ia32" >$T/exclude_syscalls_ia32 || fail "restore exclude_syscalls_ia32"
echo >$T/filter_comm
pass "ia32 calls: their own exclusion list, exit never tracked"

# Slot or table, every call of bench-syscalls (getppid, read, write on a pipe) is counted
# in and out, and none is left pending (keys of other threads may still be there: the
# shell's own calls from before the filter).
echo bench-syscalls >$T/filter_comm || fail "filter_comm bench-syscalls"
in0=$(cat $T/stats/events_in) out0=$(cat $T/stats/events_out) p0=$(cat $T/stats/pending)
bench-syscalls 2000 >/dev/null || fail "bench-syscalls"
din=$(($(cat $T/stats/events_in) - in0)) dout=$(($(cat $T/stats/events_out) - out0))
[ "$din" -ge 6000 ] && [ "$din" = "$dout" ] || fail "bench-syscalls: $din calls in, $dout out"
p1=$(cat $T/stats/pending)
[ "$p1" -le "$p0" ] || fail "$((p1 - p0)) more calls pending ($p0 before, $p1 after)"
pass "every call counted in and out ($din), none pending"

# One read(2) of 32 MiB from /dev/urandom computes for hundreds of ms under TCG without
# blocking: it alerts at its exit (data1 = the bytes read), and with a 100 ms timeout it
# times out while still running on its CPU, before that exit alert.
echo dd >$T/filter_comm || fail "filter_comm dd"
echo 100000000 >$T/timeout_ns || fail "timeout_ns 100 ms"
seq0=$(lt-dump -n)
t0=$(bench-time -n)
dd if=/dev/urandom of=/dev/null bs=32M count=1 2>/dev/null || fail "dd"
took=$((($(bench-time -n) - t0) / 1000000))
recs=$(lt-dump -f "$seq0" -t syscalls -w 1000)
echo "dd took $took ms; alerts:"
echo "$recs"
[ "$took" -ge 400 ] || fail "the 32 MiB read took $took ms, too short for a 100 ms timeout"
to=$(echo "$recs" | grep -n "reason=2 .* comm=dd .* data0=0 " | head -n1 | cut -d: -f1)
ex=$(echo "$recs" | grep -n "reason=1 .* comm=dd .* data0=0 .* data1=33554432 " | head -n1 | cut -d: -f1)
[ -n "$to" ] || fail "no timeout alert for the running read"
[ -n "$ex" ] && [ "$ex" -gt "$to" ] || fail "no exit alert of the read after its timeout"
line=$(echo "$recs" | sed -n "${ex}p")
[ $(($(val "$line" flags) & 1)) = 1 ] || fail "exit alert not flagged TIMED_OUT: $line"
echo 0 >$T/timeout_ns
echo >$T/filter_comm
pass "a long call on its CPU: timeout while running, then the exit alert"

# The fast path times a call with local_clock() (per CPU) and puts it on the trace clock
# (CLOCK_MONOTONIC) only when it alerts: the alert's start and end lie within the call as
# CLOCK_MONOTONIC saw it from outside, and end - start is the delay.
echo dd >$T/filter_comm || fail "filter_comm dd"
seq0=$(lt-dump -n)
t0=$(bench-time -n)
dd if=/dev/urandom of=/dev/null bs=32M count=1 2>/dev/null || fail "dd"
t1=$(bench-time -n)
line=$(lt-dump -f "$seq0" -t syscalls -w 1000 | grep "reason=1 .* comm=dd .* data1=33554432 " | head -n1)
echo "dd from $t0 to $t1: $line"
[ -n "$line" ] || fail "no exit alert for the 32 MiB read"
s=$(val "$line" start_ns) e=$(val "$line" end_ns) d=$(val "$line" delay_ns)
[ $((e - s)) = "$d" ] || fail "end_ns - start_ns = $((e - s)), delay_ns = $d"
[ "$s" -ge "$t0" ] && [ "$e" -le "$t1" ] || fail "alert [$s, $e] outside the call's [$t0, $t1]"
[ "$d" -ge $(((t1 - t0) / 2)) ] || fail "delay $d ns, for a call within $((t1 - t0)) ns"
echo >$T/filter_comm
pass "a call's alert on the trace clock, within the call"

tracker_disable
lt-syscalls 30 0 || fail "disabled tracker alerted"
echo "stats: in $(cat $T/stats/events_in) out $(cat $T/stats/events_out) alerts $(cat $T/stats/alerts)"
rmmod latency_tracker_syscalls || fail "rmmod latency_tracker_syscalls"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "syscalls tracker"
