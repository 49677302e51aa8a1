# latencyctl hist (#29) on the real module (latency_tracker ABI 1.4, hist/): O_DIRECT reads
# on a virtio disk and system calls fill the block and syscalls trackers' histograms;
# `hist block --per disk --json` names the VM's disk and its counts grow with more I/O; the
# text says the same counts as the JSON; --per disk on syscalls is the kernel's EOPNOTSUPP,
# said as such; io puts the levels side by side; --reset zeroes them.
# vm-options: --disk 64M
. "$VM_IN/scenarios/guest-lib.sh"

vm_disk vmdisk0
DEVNO=$(cat /sys/block/$B/dev)
D=/tmp/latencyd
S=/sys/kernel/latency_tracker
mkdir -p $D
cat >$D/latencyd.conf <<CONF
control: { socket = "$D/ctl.sock"; };
session: { enabled = false; };
catalog: { directory = "$D"; };
trackers: {
	block: { enabled = true; threshold = "1h"; };
	syscalls: { enabled = true; threshold = "1h"; };
};
CONF
ctl() { latencyctl -s $D/ctl.sock "$@"; }
for t in block syscalls; do modprobe latency_tracker_$t || fail "modprobe latency_tracker_$t"; done
for t in fs iosched; do modprobe latency_tracker_$t 2>/dev/null || echo "no latency_tracker_$t"; done
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
wait_for $D/ctl.sock 100 || { cat $D/latencyd.log; fail "no control socket"; }
[ -f $S/block/hist/delay_ns ] || fail "the module has no hist/ (ABI 1.4)"

rd() { dd if=/dev/$B of=/dev/null bs=4096 skip="$1" count="$2" iflag=direct 2>/dev/null || fail "dd"; }
# The VM disk's count in `hist block --per disk`'s text, and a JSON reply's first "count"
# (the tracker's: its buckets and keys come after it). No jq in the VM: busybox tools.
disk_count() { sed -n "s/^disk $B ($DEVNO): \([0-9]*\) delays\$/\1/p"; }
json_count() { sed -n 's/^ *"count": \([0-9]*\),*$/\1/p' | head -n 1; }

ctl hist block --per disk >/dev/null || fail "hist block --per disk"
[ "$(cat $S/block/hist/per)" = disk ] || fail "hist/per is $(cat $S/block/hist/per), not disk"
rd 0 64
ctl --json hist block --per disk >$D/h1.json || fail "hist block --per disk --json"
cp $D/h1.json "$VM_OUT/"
grep -q "\"key\": \"$DEVNO\"" $D/h1.json && grep -q "\"name\": \"$B\"" $D/h1.json ||
	fail "hist --per disk --json does not name $B ($DEVNO): $(cat $D/h1.json)"
c1=$(ctl hist block --per disk | disk_count)
[ -n "$c1" ] && [ "$c1" -ge 64 ] || fail "'$c1' delays on $B after 64 O_DIRECT reads"
rd 64 32
c2=$(ctl hist block --per disk | disk_count)
[ "$c2" -ge $((c1 + 32)) ] || fail "counts did not grow by 32 reads: $c1 then $c2"
pass "hist block --per disk names $B ($DEVNO); its count grows with the reads ($c1, $c2)"

# Text and JSON of one state: the tracker disabled, so that nothing moves in between.
echo 0 >$S/block/enabled
ctl --json hist block >$D/j.json
ctl hist block >$D/t.txt
cp $D/t.txt "$VM_OUT/hist-block.txt"
n=$(json_count <$D/j.json)
grep -q "^Tracker block: $n delays over" $D/t.txt || fail "text and JSON counts differ: $n; $(cat $D/t.txt)"
p99=$(sed -n 's/^ *"p99": \([0-9]*\),*$/\1/p' $D/j.json | head -n 1)
grep -q "p99 ≤ " $D/t.txt && [ -n "$p99" ] || fail "no percentiles"
pass "text and JSON agree ($n delays, p99 bound $p99 ns)"
echo 1 >$S/block/enabled

for i in $(seq 200); do cat /proc/version >/dev/null; done
ctl hist syscalls --per syscall >$D/s.txt || fail "hist syscalls --per syscall"
cp $D/s.txt "$VM_OUT/hist-syscalls.txt"
grep -q "^syscall [0-9]*: [1-9][0-9]* delays" $D/s.txt || fail "no system call split: $(cat $D/s.txt)"
ctl hist syscalls --per disk 2>$D/err && fail "syscalls --per disk accepted"
grep -q "tracker syscalls has no histogram per disk" $D/err || fail "EOPNOTSUPP not said: $(cat $D/err)"
pass "hist syscalls --per syscall; --per disk refused by the kernel, said so"

# --disk reads the split per disk, never sets it: iosched's asked for, when it is loaded.
if [ -d $S/iosched ]; then
	ctl hist iosched --per disk >/dev/null || fail "hist iosched --per disk"
fi
ctl hist io --disk $B | tee "$VM_OUT/hist-io.txt" || fail "hist io --disk $B"
grep -q "block on $B: " "$VM_OUT/hist-io.txt" || fail "hist io: no block level on $B"
ctl hist block --reset >/dev/null || fail "hist --reset"
r=$(ctl --json hist block | json_count)
[ "$r" -lt "$c2" ] || fail "counts not reset: $r"
pass "hist io; --reset zeroes the tracker's histograms"

kill -TERM $LPID
wait $LPID || { cat $D/latencyd.log; fail "latencyd exited with $?"; }
cp $D/latencyd.log "$VM_OUT/"
