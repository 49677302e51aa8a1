# vm-options: --tcg single
# A tracker module unloaded 20 times, a filter set, while root keeps enabling it: until
# the unload removes the tracker's directory, a write to "enabled" registers the probes
# again behind the unload's first disable; they must not see the filter freed (the module
# frees it after a grace period). No oops or warning: the harness fails the run on one.
# Single-threaded TCG: each enable and disable registers and removes tracepoint probes,
# patching kernel text across vCPUs, which multi-threaded TCG can hang on (a soft lockup
# in text_poke_bp, the other vCPU never answering its IPI); the guest still has two CPUs.
. "$VM_IN/scenarios/guest-lib.sh"

i=0
while [ $i -lt 20 ]; do
	modprobe latency_tracker_syscalls || fail "modprobe latency_tracker_syscalls, cycle $i"
	T=/sys/kernel/latency_tracker/syscalls
	echo nomatch >$T/filter_comm || fail "filter_comm, cycle $i"
	echo 1 >$T/enabled || fail "enable, cycle $i"
	(while :; do echo 1 >$T/enabled; done) 2>/dev/null &
	w=$!
	usleep 20000
	rmmod latency_tracker_syscalls || fail "rmmod latency_tracker_syscalls, cycle $i"
	kill $w
	wait $w 2>/dev/null
	i=$((i + 1))
done
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "a filtered tracker unloaded 20 times while being enabled again"
