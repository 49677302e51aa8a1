# In the test VM (bench/kernels-run runs it on each kernel): what PREEMPT_RT changes for
# latencyd, measured on the real module and daemon.
#  1. wakeup: alert-to-record. latencyd records a snapshot for each wakeup alert of a victim
#     kept off its CPU by a SCHED_FIFO hog (tests/vm/progs/lt-wakeup, 30 ms); the catalog
#     gives each record's detect_to_record_ns (the alert's end to the record's start) and
#     wakeup_to_record_ns (latencyd's waiter woken to the record's start).
#  2. irq: the disk's interrupts under O_DIRECT reads: the hard handler's time (kind 0) and,
#     on PREEMPT_RT, the threaded handler's (kind 2, interrupt to served).
# Raw results: $VM_OUT/wakeup.tsv (detect_ns, wakeup_ns), $VM_OUT/irq.tsv (kind, delay_ns).
# vm-options: --smp 2 --disk 16M
. "$VM_IN/scenarios/guest-lib.sh"
N=${1:-12}
D=/tmp/latencyd
mkdir -p $D
cat >$D/latencyd.conf <<CONF
control: { socket = "$D/ctl.sock"; };
session: { subbuf_size = 262144; num_subbuf = 4; };
output: { directory = "$D/snapshots"; };
catalog: { directory = "$D"; };
ratelimit: { rate = 0; };
analysis: { auto = false; };
trackers: { wakeup: { enabled = true; threshold = "10ms"; filter_comm = "lt-wk-victim"; }; };
CONF
start_sessiond
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
wait_recording $D/latencyd.log $D/ctl.sock
n=0
while [ $n -lt "$N" ]; do
	lt-wakeup 30 >/dev/null || fail "lt-wakeup"
	n=$((n + 1))
	wait_snapshots $D/catalog.json $n "wakeup alert $n"
	sleep 0.3
done
kill -TERM $LPID
wait $LPID
# One "detect wakeup" line per snapshot, from the catalog (no jq in the VM).
tr -d ' \n' <$D/catalog.json | grep -o '"detect_to_record_ns":[0-9]*,"wakeup_to_record_ns":[0-9]*' |
	sed 's/"detect_to_record_ns":\([0-9]*\),"wakeup_to_record_ns":\([0-9]*\)/\1\t\2/' >"$VM_OUT/wakeup.tsv"
[ "$(grep -c . "$VM_OUT/wakeup.tsv")" -ge "$N" ] || fail "$(grep -c . "$VM_OUT/wakeup.tsv") records of $N"

vm_disk vmdisk0
tracker_load irq 6 5
echo 1000 >$T/threshold_ns
tracker_enable
: >"$VM_OUT/irq.tsv"
for th in $(cat /proc/[0-9]*/comm 2>/dev/null | grep "^irq/[0-9]*-virtio[0-9]*-req" | cut -c1-15) swapper; do
	# With PREEMPT_RT, one irq thread at a time (the global alert limit would drop the
	# rest); without it, the hard handlers, interrupting whatever ran (no filter).
	[ "$th" = swapper ] && echo >$T/filter_comm || echo "$th" >$T/filter_comm
	m=$(lt-dump -n)
	for k in 1 2 3 4 5 6; do
		dd if=/dev/$B of=/dev/null bs=4096 count=4 skip=$((k * 4)) iflag=direct 2>/dev/null
		sleep 0.05
	done
	lt-dump -f "$m" -t irq -w 500 | grep "name=virtio[0-9]*-req" |
		sed -n 's/.* delay_ns=\([0-9]*\) .* data1=\([0-9]*\) .*/\2\t\1/p' >>"$VM_OUT/irq.tsv"
done
tracker_disable
pass "rt-bench: $(grep -c . "$VM_OUT/wakeup.tsv") records, $(grep -c . "$VM_OUT/irq.tsv") disk interrupts"
