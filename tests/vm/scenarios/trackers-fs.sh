# The fs tracker on a qemu-throttled virtio disk (20 requests/s, so a request waits about
# 50 ms once the throttle's small burst is spent), used as a block device file: O_DIRECT
# preads, pwrites, preadvs, pwritevs, fsync and fdatasync (lt-fsio) raise alerts with the
# op, the return value, the size asked (or the iovecs) and the disk's major:minor, for
# lt-fsio's thread; an O_DSYNC write is a vfs_write() with a vfs_fsync_range() inside it:
# both are measured, nested, and the write's return closes the write's key (nothing
# unmatched); a blocking read on a pipe is not tracked; the filters apply; while disabled
# no kprobe is registered and nothing is counted; unload is clean.
# vm-options: --disk 64M:iops-total=20
. "$VM_IN/scenarios/guest-lib.sh"

vm_disk vmdisk0
D=/dev/$B
DEVNO=$(cat /sys/block/$B/dev)
EXP_DEV=$(((${DEVNO%%:*} << 32) | ${DEVNO##*:}))
echo "disk $D dev $DEVNO (data3 $EXP_DEV)"

[ -e /sys/kernel/debug/kprobes ] || mount -t debugfs none /sys/kernel/debug ||
	fail "mount debugfs"
KPROBES=/sys/kernel/debug/kprobes/list
# The kprobes of the fs tracker registered now: vfs_read, vfs_write, vfs_fsync_range,
# vfs_readv, vfs_writev (at +0x0, or past the ENDBR instruction where the kernel has IBT,
# 6.12).
fs_kprobes() {
	grep -cE ' (vfs_read|vfs_write|vfs_fsync_range|vfs_readv|vfs_writev)\+0x[0-9a-f]+( |$)' \
		"$KPROBES"
}

tracker_load fs 9 0
[ "$(fs_kprobes)" = 0 ] || fail "kprobes before enable: $(cat $KPROBES)"
echo 20000000 >$T/threshold_ns || fail "threshold_ns"
tracker_enable
[ "$(fs_kprobes)" = 5 ] || fail "kprobes after enable: $(cat $KPROBES)"
pass "enabling registers the 5 kretprobes"

alerts() { lt-dump -f "$1" -t fs -w "$2"; }
# Eight 4 KiB O_DIRECT reads, then an fsync: more than the throttle's burst lets through.
reads() { lt-fsio $D r:409600:4096 r:413696:4096 r:417792:4096 r:421888:4096 r:425984:4096 \
	r:430080:4096 r:434176:4096 r:438272:4096 f >/dev/null || fail "lt-fsio reads"; }
stat_of() { cat "$T/stats/$1"; }

# Each op of one lt-fsio run: its tid, and every alert is of that thread, with the values
# the op asked for. $1: expected op word in data0 and ret, checked per line by the caller.
m=$(lt-dump -n)
out=$(lt-fsio $D r:409600:4096 r:413696:4096 r:417792:4096 r:421888:4096 r:425984:4096 \
	r:430080:4096 w:819200:8192 w:827392:8192 w:835584:8192 R:1638400:8192 R:1646592:8192 \
	R:1654784:8192 W:2048000:8192 W:2056192:8192 W:2064384:8192 f d) ||
	fail "lt-fsio: $out"
echo "$out"
tid=$(echo "$out" | sed -n 's/^tid //p')
al=$(alerts "$m" 3000)
echo "$al"
nr=0 nw=0 nf=0 nrv=0 nwv=0
while read -r line; do
	[ -n "$line" ] || continue
	[ "$(val "$line" tid)" = "$tid" ] || fail "tid: $line"
	[ "$(val "$line" comm)" = lt-fsio ] || fail "comm: $line"
	[ "$(val "$line" reason)" = 1 ] || fail "reason: $line"
	[ "$(val "$line" type)" = 9 ] || fail "type: $line"
	[ "$(val "$line" data3)" = "$EXP_DEV" ] || fail "device: $line"
	[ "$(val "$line" delay_ns)" -ge 20000000 ] || fail "delay under the threshold: $line"
	case $(val "$line" data0) in
	0)
		[ "$(val "$line" data1)" = 4096 ] && [ "$(val "$line" data2)" = 4096 ] ||
			fail "read ret/size: $line"
		nr=$((nr + 1)) ;;
	1)
		[ "$(val "$line" data1)" = 8192 ] && [ "$(val "$line" data2)" = 8192 ] ||
			fail "write ret/size: $line"
		nw=$((nw + 1)) ;;
	2)
		# fsync then fdatasync: data2 is datasync.
		[ "$(val "$line" data1)" = 0 ] || fail "fsync ret: $line"
		case $(val "$line" data2) in 0 | 1) ;; *) fail "fsync datasync: $line" ;; esac
		nf=$((nf + 1)) ;;
	3 | 4)
		# preadv, pwritev: 8 KiB in 2 iovecs.
		[ "$(val "$line" data1)" = 8192 ] && [ "$(val "$line" data2)" = 2 ] ||
			fail "readv/writev ret/iovecs: $line"
		if [ "$(val "$line" data0)" = 3 ]; then nrv=$((nrv + 1)); else nwv=$((nwv + 1)); fi ;;
	*) fail "op: $line" ;;
	esac
done <<EOT
$al
EOT
# The throttle lets a short burst through unthrottled: not every request waits.
[ $nr -ge 1 ] && [ $nw -ge 1 ] && [ $nrv -ge 1 ] && [ $nwv -ge 1 ] ||
	fail "$nr read, $nw write, $nrv readv, $nwv writev alerts, expected some of 6, 3, 3, 3"
pass "preads, pwrites, preadvs, pwritevs, fsyncs alert with op, return, size, device $DEVNO" \
	"($nr r, $nw w, $nrv rv, $nwv wv, $nf f)"

# Nested: an O_DSYNC write syncs inside vfs_write(). Every write is a pair, and so is
# every sync inside it; the write's return closes the write's key (LIFO), so nothing is
# unmatched and the outer write lasts at least as long as the sync within it. At 1 us
# every one of them alerts (the dynamic loader's reads of lt-fsio's libraries too: op 0).
echo 1000 >$T/threshold_ns || fail "threshold_ns 1 us"
echo lt-fsio >$T/filter_comm || fail "filter_comm lt-fsio"
u0=$(stat_of unmatched)
c0=$(stat_of delay_count)
m=$(lt-dump -n)
out=$(lt-fsio -s $D w:1228800:4096 w:1232896:4096 w:1236992:4096) || fail "lt-fsio -s: $out"
al=$(alerts "$m" 3000)
echo "$al"
[ "$(stat_of unmatched)" = "$u0" ] || fail "unmatched: $u0 -> $(stat_of unmatched)"
[ $(($(stat_of delay_count) - c0)) -ge 6 ] ||
	fail "pairs: $c0 -> $(stat_of delay_count), expected 3 writes and 3 syncs at least"
w=$(echo "$al" | grep -c ' data0=1 ') f=$(echo "$al" | grep -c ' data0=2 ')
[ "$w" = 3 ] && [ "$f" = 3 ] || fail "$w write and $f sync alerts at 1 us, expected 3 and 3"
# Alerts come at the return, inner first: each sync is followed by the write around it.
echo "$al" | awk '
	/ data0=2 / { fs = $0; sub(/.*start_ns=/, "", fs); sub(/ .*/, "", fs)
		fe = $0; sub(/.*end_ns=/, "", fe); sub(/ .*/, "", fe); open = 1; next }
	/ data0=1 / { if (!open) exit 1
		ws = $0; sub(/.*start_ns=/, "", ws); sub(/ .*/, "", ws)
		we = $0; sub(/.*end_ns=/, "", we); sub(/ .*/, "", we)
		if (ws + 0 > fs + 0 || we + 0 < fe + 0) exit 1; open = 0 }' ||
	fail "a sync not within its write: $al"
pass "nested O_DSYNC write and sync: 6 pairs, each sync within its write, none unmatched"

# A read on a pipe blocks by design: not tracked.
echo 20000000 >$T/threshold_ns
echo >$T/filter_comm
m=$(lt-dump -n)
(sleep 0.3; echo x) | cat >/dev/null
al=$(alerts "$m" 300)
echo "$al" | grep -q 'comm=cat' && fail "pipe read by cat alerted: $al"
pass "a blocking read on a pipe is not tracked"

echo nosuchcomm >$T/filter_comm || fail "filter_comm"
i0=$(stat_of events_in)
m=$(lt-dump -n)
reads
[ -z "$(alerts "$m" 300)" ] || fail "filtered-out process alerted"
[ "$(stat_of events_in)" = "$i0" ] || fail "filtered-out calls stored: $i0 -> $(stat_of events_in)"
echo lt-fsio >$T/filter_comm || fail "filter_comm lt-fsio"
m=$(lt-dump -n)
reads
[ -n "$(alerts "$m" 2000)" ] || fail "no alert with a matching comm filter"
echo >$T/filter_comm
echo 1 >$T/filter_tgid || fail "filter_tgid 1"
m=$(lt-dump -n)
reads
[ -z "$(alerts "$m" 300)" ] || fail "filtered-out pid alerted"
echo 0 >$T/filter_tgid
pass "filters apply to the calling task"

tracker_disable
[ "$(fs_kprobes)" = 0 ] || fail "kprobes after disable: $(cat $KPROBES)"
i0=$(stat_of events_in)
m=$(lt-dump -n)
reads
[ -z "$(alerts "$m" 300)" ] || fail "disabled tracker alerted"
[ "$(stat_of events_in)" = "$i0" ] || fail "disabled tracker counted: $i0 -> $(stat_of events_in)"
echo "stats: in $(stat_of events_in) out $(stat_of events_out) alerts $(stat_of alerts)" \
	"duplicates $(stat_of duplicates) unmatched $(stat_of unmatched)"
pass "disabling unregisters the kretprobes"

# Enabled again: the kprobes are registered anew.
tracker_enable
[ "$(fs_kprobes)" = 5 ] || fail "kprobes after enabling again: $(cat $KPROBES)"
m=$(lt-dump -n)
reads
[ -n "$(alerts "$m" 2000)" ] || fail "no alert after enabling again"
pass "enabled again, it tracks again"

rmmod latency_tracker_fs || fail "rmmod latency_tracker_fs"
[ "$(fs_kprobes)" = 0 ] || fail "kprobes after unload: $(cat $KPROBES)"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "fs tracker"
