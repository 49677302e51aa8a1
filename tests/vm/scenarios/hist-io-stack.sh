# `latencyctl hist io` (#29) says where a read's time goes, checked against what a
# qemu-throttled disk implies. The disk takes 20 requests/s and its driver one request at
# a time per queue (virtio_blk queue_depth=1, mq-deadline; a queue per vCPU, so both
# readers run on CPU 0 and share one), and two O_DIRECT readers (lt-fsio) read at once,
# each request issued when its previous one completed. So a request spends about
# 50 ms on the device (block: the bucket [2^25, 2^26) ns), about as long in the scheduler
# behind the other reader's request (iosched), and its read(2) the sum of both: the fs and
# syscalls levels (the latter by system call: pread64) sit a bucket above block. syscalls
# and fs are filtered to lt-fsio, so that the VM's other reads do not dilute them. Text and
# JSON say the same counts.
# vm-options: --disk 64M:iops-total=20
. "$VM_IN/scenarios/guest-lib.sh"

modprobe virtio_blk queue_depth=1 || fail "modprobe virtio_blk queue_depth=1"
vm_disk vmdisk0
echo mq-deadline >/sys/block/$B/queue/scheduler 2>/dev/null ||
	{ modprobe mq-deadline && echo mq-deadline >/sys/block/$B/queue/scheduler; } ||
	fail "no mq-deadline: $(cat /sys/block/$B/queue/scheduler)"

D=/tmp/latencyd
mkdir -p $D
cat >$D/latencyd.conf <<CONF
control: { socket = "$D/ctl.sock"; };
session: { enabled = false; };
catalog: { directory = "$D"; };
trackers: {
	syscalls: { enabled = true; threshold = "1h"; filter_comm = "lt-fsio"; };
	fs: { enabled = true; threshold = "1h"; filter_comm = "lt-fsio"; };
	iosched: { enabled = true; threshold = "1h"; };
	block: { enabled = true; threshold = "1h"; };
};
CONF
ctl() { latencyctl -s $D/ctl.sock "$@"; }
for t in syscalls fs iosched block; do
	modprobe latency_tracker_$t || fail "modprobe latency_tracker_$t"
done
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
wait_for $D/ctl.sock 100 || { cat $D/latencyd.log; fail "no control socket"; }

# The splits by disk and by system call start when first asked for: asked here, before
# the load (--disk reads a split per disk, never sets it). Then the throttle's burst is
# spent, so that the measured requests all wait.
for t in iosched block; do ctl hist $t --per disk >/dev/null || fail "hist $t --per disk"; done
ctl hist syscalls --per syscall >/dev/null || fail "hist syscalls --per syscall"
dd if=/dev/$B of=/dev/null bs=4096 count=30 iflag=direct 2>/dev/null || fail "dd"
ctl hist io --reset >/dev/null || fail "hist io --reset"

# Two readers, 40 reads of 4 KiB each, in their own regions: the reads outnumber the
# other system calls of lt-fsio (its start and exit), so they make the median.
pids=
for r in 1 2; do
	o=$((r * 1048576)) ops=
	for i in $(seq 0 39); do ops="$ops r:$((o + i * 4096)):4096"; done
	taskset 1 lt-fsio /dev/$B $ops >/dev/null &
	pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "lt-fsio $p"; done

# The trackers stopped first: text and JSON are then read from one state.
for t in syscalls fs iosched block; do ctl disable $t >/dev/null || fail "disable $t"; done
ctl --json hist io --disk $B >$D/io.json || fail "hist io --json"
ctl hist io --disk $B >$D/io.txt || fail "hist io"
ctl --json hist syscalls --per syscall >$D/sys.json || fail "hist syscalls --per syscall --json"
cp $D/io.json $D/io.txt $D/sys.json "$VM_OUT/"
cat $D/io.txt

# A level's "count" and "p50" in the JSON (no jq in the VM: its lines, in order).
level() {
	awk -v t="$1" -v f="$2" '
		/"tracker": / { cur = $2; gsub(/[",]/, "", cur) }
		cur == t && $1 == "\"" f "\":" && !done { v = $2; gsub(/,/, "", v); print v; done = 1 }
	' $D/io.json
}
for t in syscalls fs iosched block; do
	eval "n_$t=\$(level $t count) p50_$t=\$(level $t p50)"
	eval "echo \"$t: \$n_$t delays, p50 <= \$p50_$t ns\""
done

[ "$n_block" -ge 80 ] || fail "block: $n_block requests on $B, expected 80"
[ "$n_iosched" -ge 80 ] || fail "iosched: $n_iosched requests on $B, expected 80"
[ "$n_fs" -ge 80 ] || fail "fs: $n_fs reads by lt-fsio, expected 80"
[ "$n_syscalls" -ge 80 ] || fail "syscalls: $n_syscalls calls by lt-fsio, expected 80 reads"
for t in syscalls fs iosched block; do
	eval "n=\$n_$t"
	grep -q "^$t.*: $n delays over" $D/io.txt || fail "text and JSON differ on $t ($n)"
done
pass "hist io: four levels, $n_block requests on $B; text and JSON agree"

[ "$p50_block" = 67108864 ] || fail "block p50 <= $p50_block ns, expected 2^26 (the throttle's 50 ms)"
[ "$p50_iosched" = 67108864 ] ||
	fail "iosched p50 <= $p50_iosched ns, expected 2^26: one request waiting behind the other"
[ "$p50_fs" = 134217728 ] || fail "fs p50 <= $p50_fs ns, expected 2^27: scheduler and device"
# The syscalls level holds lt-fsio's start and exit too: its reads are pread64 (17).
p50_pread=$(awk '/"key": "17"/ { k = 1 } k && $1 == "\"p50\":" { v = $2; gsub(/,/, "", v); print v; exit }' $D/sys.json)
[ -n "$p50_pread" ] && [ "$p50_pread" -ge "$p50_fs" ] ||
	fail "pread64 p50 <= '$p50_pread' ns, below fs's $p50_fs"
pass "where the time goes: device $p50_block, scheduler $p50_iosched, vfs_read $p50_fs, pread64 $p50_pread ns (p50 bounds)"

kill -TERM $LPID
wait $LPID || { cat $D/latencyd.log; fail "latencyd exited with $?"; }
