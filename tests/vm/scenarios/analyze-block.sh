# Snapshot analysis, a device wakeup: dd reads a qemu-throttled disk with O_DIRECT (20
# requests/s), so it blocks uninterruptibly in each read about 50 ms. The offcpu alert's
# analysis must end the chain at the disk's interrupt: dd blocked in read, woken by the
# virtio block device's irq (or the BLOCK softirq it raised), completing I/O on that disk.
# One CPU: the completion runs where the interrupt lands, no IPI between CPUs.
# vm-options: --smp 1 --disk 64M:iops-total=20
. "$VM_IN/scenarios/guest-lib.sh"
. "$VM_IN/scenarios/guest-analyze-lib.sh"

vm_disk vmdisk0
DEVNO=$(cat /sys/block/$B/dev)
tracker_load offcpu 4 2
echo 20000000 >$T/threshold_ns || fail "threshold_ns"
echo dd >$T/filter_comm || fail "filter_comm"
tracker_enable

an_start
mark=$(lt-dump -n) || fail "lt-dump -n"
dd if=/dev/$B of=/dev/null bs=4096 skip=100 count=6 iflag=direct 2>/dev/null || fail "dd"
A=$(lt-dump -f "$mark" -t offcpu -w 3000 | grep " comm=dd " | grep " reason=1 " | tail -n 1)
[ -n "$A" ] || fail "no offcpu alert for dd"
echo "$A"
an_snapshot block

an_alert "$(val "$A" seq)"
delay=$(an_get delay_ns)
echo "summary: $(an_get summary)"
an_link 0 "$(val "$A" tid)" blocked-uninterruptible
kind=$(an_get "$L.woken_by.kind")
case $kind in
irq) irq=$(an_get "$L.woken_by.name") ;;
softirq) irq=$(an_get "$L.woken_by.raised_by_irq_name") ;;
*) fail "dd woken by $kind, not by the disk's interrupt" ;;
esac
echo "$irq" | grep -q virtio || fail "dd woken through irq '$irq', not virtio's"
[ "$(an_get "$L.woken_by.block_device")" = "$DEVNO" ] ||
	fail "completion on $(an_get "$L.woken_by.block_device"), not $DEVNO"
[ "$(an_get "$L.woken_by.block_device_name")" = "$B" ] ||
	fail "the disk is not named $B: '$(an_get "$L.woken_by.block_device_name")'"
grep -q "completing I/O on $B ($DEVNO)" /tmp/an.txt ||
	fail "the story does not name the disk: $(grep -m1 completing /tmp/an.txt)"
[ "$(an_get "$L.syscall")" = read ] || fail "dd blocked in $(an_get "$L.syscall"), not read"
[ $(($(an_get "$L.duration_ns") * 2)) -ge "$delay" ] || fail "the block explains under half of $delay ns"
pass "dd blocked in read, woken by the disk's interrupt ($kind, $irq) completing I/O on $B ($DEVNO)"

grep -q '^tables\.disk-latency\.rows\.0\.0=' /tmp/an.flat || fail "no disk latency table"
pass "block I/O latency table"

tracker_disable
rmmod latency_tracker_offcpu latency_tracker || fail "rmmod"
