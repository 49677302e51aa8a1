# The syscalls tracker catches fsync(2) waiting on a slow disk: an ext2 file system on a
# qemu-throttled virtio disk (128 KiB/s: qemu merges adjacent requests, so a bytes limit,
# not a requests limit, is what slows a writeback), a 64 KiB file written then fsync'ed
# (busybox dd conv=fsync) raises exactly one fsync alert (nr 74) for dd over a 20 ms
# threshold, with the stack where dd waited for the disk (io_schedule, folio/page or
# buffer writeback wait). Without ext2 support in the image, the same on the raw block
# device (buffered write then fsync of /dev/vdX).
# vm-options: --disk 64M:iops-total=20,bps-total=131072
. "$VM_IN/scenarios/guest-lib.sh"

echo 0 >/proc/sys/kernel/kptr_restrict
vm_disk vmdisk0

# ext2 is served by the ext4 module; busybox has mke2fs.
modprobe ext4 2>/dev/null
mkdir -p /mnt/slow
if mke2fs -q -i 65536 /dev/$B 16384 >/dev/null 2>&1 && mount -t ext2 /dev/$B /mnt/slow; then
	F=/mnt/slow/f
	echo "ext2 on /dev/$B"
else
	F=/dev/$B
	echo "no ext2: fsync of the raw block device /dev/$B"
fi
# Warm the metadata (bitmaps, inode table, directory) so only the fsync waits.
dd if=/dev/zero of=$F bs=4096 count=16 conv=fsync,notrunc 2>/dev/null || fail "warm-up dd"
sync

modprobe latency_tracker_syscalls || fail "modprobe latency_tracker_syscalls"
T=/sys/kernel/latency_tracker/syscalls
echo 20000000 >$T/threshold_ns || fail "threshold_ns"
echo dd >$T/filter_comm || fail "filter_comm"
echo 1 >$T/enabled || fail "enable"

m=$(lt-dump -n)
# A 64 KiB read fills the throttle's bucket (its burst is 1/10 s worth): the fsync's
# writes then wait about 0.4 s whatever the state of the bucket was.
dd if=/dev/$B of=/dev/null bs=65536 count=1 iflag=direct 2>/dev/null || fail "dd read"
dd if=/dev/urandom of=$F bs=4096 count=16 conv=fsync,notrunc 2>/dev/null || fail "dd conv=fsync"
out=$(lt-dump -f "$m" -t syscalls -w 2000 -s)
echo "$out"
fs=$(echo "$out" | grep -E ' data0=(74|75) ')
[ "$(echo "$fs" | grep -c .)" = 1 ] || fail "expected exactly one fsync alert: $out"
[ "$(val "$fs" comm)" = dd ] || fail "comm: $fs"
[ "$(val "$fs" data1)" = 0 ] || fail "fsync failed: $fs"
[ "$(val "$fs" delay_ns)" -ge 20000000 ] || fail "delay: $fs"
[ $(($(val "$fs" flags) & 8)) = 8 ] || fail "no stack of the waiting task: $fs"
st=$(val "$fs" stack)
echo "$st" | grep -qE 'io_schedule|folio_wait|wait_on_page|wait_on_buffer|bit_wait_io|blk_|submit_bio_wait' ||
	fail "the stack does not show a wait for I/O: $st"
echo "$st" | grep -qE 'fsync|sync_file|file_write_and_wait|fdatawait|sync_mapping|blkdev_' ||
	fail "the stack does not show the fsync path: $st"
pass "one fsync alert ($(val "$fs" delay_ns) ns) with the stack where it waited for the disk"

echo 0 >$T/enabled || fail "disable"
echo >$T/filter_comm
[ $F = /dev/$B ] || umount /mnt/slow || fail "umount"
rmmod latency_tracker_syscalls || fail "rmmod latency_tracker_syscalls"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "syscalls tracker on fsync"
