# vm-options: --tcg single --disk 16M --timeout 840
# Issue #9: the real trackers unloaded while busy, 50 cycles. Each cycle loads the core and
# the seven trackers, enables them at their smallest threshold (1 us: every event they pair
# is an alert, up to the module's limit; nobody reads the notification file, so its ring
# fills and the rest is counted as dropped) while syscalls, wakeups, context switches,
# interrupts, direct I/O to a disk and loopback pings keep them busy, then unloads every
# module with keys still pending. No oops or warning (the harness fails the run on one),
# no leak: the core warns at unload if an object is left, and slab, vmalloc and per-CPU
# memory come back to the baseline.
# Single-threaded TCG: registering and removing tracepoint probes in a loop patches kernel
# text across vCPUs, which multi-threaded TCG can hang on (a plain ftrace toggling loop
# hangs the same way); the guest still has two CPUs.
. "$VM_IN/scenarios/guest-lib.sh"

S=/sys/kernel/latency_tracker
TRACKERS="syscalls wakeup offcpu irq block net app"
MODULES=$(for t in $TRACKERS; do printf 'latency_tracker_%s ' $t; done)
# Busy means events paired: each of these must have had some in most cycles (app has no
# user-space markers here: it is loaded and enabled, not busy).
BUSY="syscalls wakeup offcpu irq block net"
# The cycles: 50, or the first argument (the other kernels' runs take fewer).
CYCLES=${1:-50}
case $CYCLES in '' | *[!0-9]*) fail "fault-unload: cycles '$CYCLES' is not a number" ;; esac
vm_disk vmdisk0
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up || fail "lo up"

# One cycle first, so that one-time allocations (module loader, sysfs) are in the baseline.
for t in $TRACKERS; do modprobe latency_tracker_$t || fail "modprobe latency_tracker_$t"; done
for t in $TRACKERS; do rmmod latency_tracker_$t || fail "rmmod latency_tracker_$t"; done
rmmod latency_tracker || fail "rmmod latency_tracker"
mem_baseline

load=""
# Each load pauses between its commands: single-threaded TCG runs both vCPUs on one host
# thread, and loads that never idle took half of it from the cycles (3 to 4 s a cycle
# instead of about 2). A tracker still pairs hundreds of events or more per cycle.
(while :; do ls -R /sys/kernel/latency_tracker* >/dev/null 2>&1; usleep 20000; done) &
load="$load $!"
(while :; do dd if=/dev/zero of=/dev/$B bs=4096 count=4 oflag=direct conv=notrunc 2>/dev/null; usleep 20000; done) &
load="$load $!"
(while :; do ping -c 100 -i 0.01 127.0.0.1 >/dev/null 2>&1 || usleep 10000; done) &
load="$load $!"

busy_in=""
i=0
while [ $i -lt $CYCLES ]; do
	modprobe latency_tracker || fail "modprobe latency_tracker, cycle $i"
	for t in $TRACKERS; do
		modprobe latency_tracker_$t || fail "modprobe latency_tracker_$t, cycle $i"
		echo 1000 >$S/$t/threshold_ns && echo 1 >$S/$t/enabled || fail "enable $t, cycle $i"
	done
	usleep 200000
	line="cycle $i:"
	for t in $BUSY; do
		read -r n <$S/$t/stats/events_in && read -r p <$S/$t/stats/pending || fail "stats of $t, cycle $i"
		line="$line $t $n/$p"
		[ "$n" -gt 0 ] && busy_in="$busy_in $t"
	done
	[ $((i % 10)) = 0 ] && echo "$line (events in/pending)" | tee -a "$VM_OUT/unload.txt"
	# Unload while enabled, busy and holding keys.
	# shellcheck disable=SC2086
	rmmod $MODULES latency_tracker || fail "rmmod, cycle $i"
	i=$((i + 1))
done
# shellcheck disable=SC2086
kill $load
wait 2>/dev/null
for t in $BUSY; do
	n=$(echo "$busy_in" | tr ' ' '\n' | grep -cx "$t")
	echo "$t busy in $n of $CYCLES cycles" | tee -a "$VM_OUT/unload.txt"
	[ "$n" -gt $((CYCLES / 2)) ] || fail "$t was busy in only $n of $CYCLES cycles"
done
pass "$CYCLES cycles: the seven trackers enabled, busy and unloaded"

# A cycle allocates eight key tables (4096 keys each by default), per-CPU stats and the
# ring: leaking any of them 100 times would show as several MiB.
expect_no_leak "$VM_OUT/unload.txt"
