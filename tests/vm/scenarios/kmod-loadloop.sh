# vm-options: --timeout 600
# Load and unload the modules 100 times while a stress load runs on every CPU (threads and
# hard-irq hrtimers calling the API, keys left pending, timeouts and stale cleanup) and
# user-space CPU hogs compete: no oops (the harness checks the kernel log) and no leak.
# Leaks are checked twice: the core counts its live objects (trackers, tables, open files)
# and warns at unload if one is left, which fails the run; and the kernel's Slab (which
# includes large kmalloc()s), VmallocUsed and Percpu counters, which cover every
# allocation of the modules, must come back to the baseline. Total memory in use is only
# reported: loading and unloading any module drifts it (a control run cycling
# lttng-probe-sched 100 times lost 6-13 MB of MemFree, more than these modules do).
# The selftest module registers no tracepoint probe, so this runs on multi-threaded TCG,
# each vCPU on its own host thread; kmod-unload-enable.sh is the tracker module's half.
. "$VM_IN/scenarios/guest-lib.sh"

# One cycle first, so that one-time allocations (module loader, sysfs) are in the baseline.
modprobe latency_tracker_selftest && rmmod latency_tracker_selftest && rmmod latency_tracker ||
	fail "first cycle"
mem_baseline
cp /proc/slabinfo "$VM_OUT/slabinfo-before.txt"

hogs=""
for c in 1 2; do
	(while :; do :; done) &
	hogs="$hogs $!"
done

i=0 pending_seen=0
while [ $i -lt 100 ]; do
	modprobe latency_tracker_selftest || fail "modprobe, cycle $i"
	echo 1 >/sys/kernel/latency_tracker_selftest/stress || fail "stress on, cycle $i"
	usleep 50000
	p=$(cat /sys/kernel/latency_tracker/selftest_stress/stats/pending)
	[ "$p" -gt 0 ] && pending_seen=$((pending_seen + 1))
	if [ $((i % 10)) = 0 ]; then
		s=/sys/kernel/latency_tracker/selftest_stress/stats
		echo "cycle $i: events_in $(cat $s/events_in) alerts $(cat $s/alerts)" \
			"timeouts $(cat $s/timeouts) stale $(cat $s/stale) pending $p" |
			tee -a "$VM_OUT/loadloop.txt"
	fi
	# Unload with the stress running and keys pending.
	rmmod latency_tracker_selftest || fail "rmmod latency_tracker_selftest, cycle $i"
	rmmod latency_tracker || fail "rmmod latency_tracker, cycle $i"
	i=$((i + 1))
done
# shellcheck disable=SC2086
kill $hogs
wait 2>/dev/null
[ "$pending_seen" -gt 50 ] || fail "keys were pending at unload in only $pending_seen cycles"
pass "100 load/unload cycles under load, keys pending at unload in $pending_seen of them"

cp /proc/slabinfo "$VM_OUT/slabinfo-after.txt"
# One cycle allocates two tables (the stress one is 1024 entries, 144 KiB), per-CPU stats
# and a 312 KiB ring: leaking any of them 100 times would show as several MiB.
expect_no_leak "$VM_OUT/loadloop.txt"

