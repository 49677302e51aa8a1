# The iosched tracker on a qemu-throttled virtio disk (20 requests/s) whose driver takes one
# request at a time (virtio_blk queue_depth=1) under mq-deadline: concurrent O_DIRECT
# readers (lt-fsio) queue their requests in the scheduler, where each waits for the ones
# before it, so the insert-to-issue delay is non-zero and alerts carry the disk's
# major:minor, the sector (offset / 512), the size and rwbs "R..." of the inserting task.
# Beside it the block tracker: every issue is seen by both, so iosched's pairs and
# unmatched issues add up to block's issues, and with a scheduler that inserts every
# request most of them are pairs. The filters apply to the inserting task; no probe stays
# registered when disabled and nothing is counted; unload is clean.
# vm-options: --disk 64M:iops-total=20
. "$VM_IN/scenarios/guest-lib.sh"

# One request in the driver at a time: the others wait in the scheduler.
modprobe virtio_blk queue_depth=1 || fail "modprobe virtio_blk queue_depth=1"
vm_disk vmdisk0
D=/dev/$B
DEVNO=$(cat /sys/block/$B/dev)
EXP_DEV=$(((${DEVNO%%:*} << 32) | ${DEVNO##*:}))
echo mq-deadline >/sys/block/$B/queue/scheduler 2>/dev/null ||
	{ modprobe mq-deadline && echo mq-deadline >/sys/block/$B/queue/scheduler; } ||
	fail "no mq-deadline: $(cat /sys/block/$B/queue/scheduler)"
echo "disk $D dev $DEVNO (data0 $EXP_DEV) scheduler: $(cat /sys/block/$B/queue/scheduler)" \
	"queue_depth $(cat /sys/module/virtio_blk/parameters/queue_depth)"

tracker_load block 5 2
BT=$T
echo 1000000000 >$BT/threshold_ns || fail "block threshold_ns"
tracker_enable
tracker_load iosched 5 2
echo 20000000 >$T/threshold_ns || fail "threshold_ns"
tracker_enable

alerts() { lt-dump -f "$1" -t iosched -w "$2"; }
st() { cat "$1/stats/$2"; }
# $1 readers at once, each reading 4 blocks of 4 KiB from its own 1 MiB region ($2 + i).
readers() {
	i=0 pids=
	while [ $i -lt "$1" ]; do
		o=$((($2 + i) * 1048576))
		lt-fsio $D r:$o:4096 r:$((o + 4096)):4096 r:$((o + 8192)):4096 \
			r:$((o + 12288)):4096 >/dev/null &
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do wait "$p" || fail "lt-fsio $p"; done
}
# Until every request issued has completed (the block tracker's keys are all closed).
settle() {
	i=0
	while [ "$(st $BT pending)" != 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

settle
bi0=$(st $BT events_in) bd0=$(st $BT duplicates)
io0=$(st $T events_out) iu0=$(st $T unmatched)
m=$(lt-dump -n)
readers 8 1
settle
out=$(alerts "$m" 3000)
echo "$out"
n=0
while read -r line; do
	[ -n "$line" ] || continue
	[ "$(val "$line" data0)" = "$EXP_DEV" ] || fail "device: $line"
	[ "$(val "$line" data2)" = 4096 ] || fail "bytes: $line"
	[ "$(val "$line" reason)" = 1 ] || fail "reason: $line"
	[ "$(val "$line" comm)" = lt-fsio ] || fail "inserting task: $line"
	case $(val "$line" rwbs) in R*) ;; *) fail "rwbs: $line" ;; esac
	s=$(val "$line" data1)
	# Region r (1..8) starts at sector r * 2048; 4 blocks of 8 sectors.
	r=$((s / 2048)) o=$((s % 2048))
	[ $r -ge 1 ] && [ $r -le 8 ] && [ $o -le 24 ] && [ $((o % 8)) = 0 ] || fail "sector: $line"
	[ "$(val "$line" delay_ns)" -ge 20000000 ] || fail "delay under the threshold: $line"
	n=$((n + 1))
done <<EOT
$out
EOT
# 32 requests, one at a time through a 20/s throttle: most wait behind several others.
[ $n -ge 4 ] || fail "$n alerts, expected requests to wait in the scheduler"
pass "queued reads alert with device $DEVNO, sector, bytes, rwbs ($n alerts)"

bi=$(($(st $BT events_in) - bi0)) bd=$(($(st $BT duplicates) - bd0))
io=$(($(st $T events_out) - io0)) iu=$(($(st $T unmatched) - iu0))
echo "block: issues $bi (+$bd again); iosched: pairs $io, unmatched $iu;" \
	"delay max $(st $T delay_max_ns) mean $(st $T delay_mean_ns) count $(st $T delay_count)"
[ $((io + iu)) = $((bi + bd)) ] || fail "iosched saw $io + $iu issues, block $bi + $bd"
[ $io -ge 32 ] || fail "$io pairs for 32 reads under mq-deadline"
[ "$(st $T delay_max_ns)" -gt 0 ] || fail "delay_max_ns 0"
pass "every issue seen by both: $io pairs + $iu unmatched = block's $bi + $bd"

echo nosuchcomm >$T/filter_comm || fail "filter_comm"
i0=$(st $T events_in)
m=$(lt-dump -n)
readers 4 9
[ -z "$(alerts "$m" 300)" ] || fail "filtered-out process alerted"
[ "$(st $T events_in)" = "$i0" ] || fail "filtered-out insertions stored"
echo lt-fsio >$T/filter_comm || fail "filter_comm lt-fsio"
m=$(lt-dump -n)
readers 4 13
[ -n "$(alerts "$m" 2000)" ] || fail "no alert with a matching comm filter"
echo >$T/filter_comm
echo 1 >$T/filter_tgid || fail "filter_tgid 1"
m=$(lt-dump -n)
readers 4 17
[ -z "$(alerts "$m" 300)" ] || fail "filtered-out pid alerted"
echo 0 >$T/filter_tgid
pass "filters apply to the inserting task"

settle
tracker_disable
i0=$(st $T events_in) o0=$(st $T events_out) u0=$(st $T unmatched)
m=$(lt-dump -n)
readers 4 21
[ -z "$(alerts "$m" 300)" ] || fail "disabled tracker alerted"
[ "$(st $T events_in)/$(st $T events_out)/$(st $T unmatched)" = "$i0/$o0/$u0" ] ||
	fail "disabled tracker counted"
pass "disabled: no probe registered, nothing counted"

rmmod latency_tracker_iosched || fail "rmmod latency_tracker_iosched"
T=$BT
tracker_disable
rmmod latency_tracker_block || fail "rmmod latency_tracker_block"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "iosched tracker"
