# The block tracker on a qemu-throttled virtio disk (20 requests/s, so a request waits
# about 50 ms once the throttle's small burst is spent): O_DIRECT reads and writes at
# known offsets raise alerts with the disk's major:minor (/sys/block/vdX/dev), the
# sector (offset / 512), the size and rwbs "R..."/"W...", also found in an LTTng
# snapshot; the issuer is dd (or kblockd's worker, which may issue dd's plugged writes
# after dd went to sleep); a threshold change applies to the next request; a filtered-out process
# never alerts; no probe stays registered when disabled; unload is clean.
# vm-options: --disk 64M:iops-total=20
. "$VM_IN/scenarios/guest-lib.sh"

# The throttled disk: serial vmdisk0 (tests/vm/vm-run); virtio_blk is a module.
vm_disk vmdisk0
D=/dev/$B
DEVNO=$(cat /sys/block/$B/dev)
MAJ=${DEVNO%%:*}
MIN=${DEVNO##*:}
EXP_DEV=$(((MAJ << 32) | MIN))
echo "disk $D dev $DEVNO (data0 $EXP_DEV) scheduler: $(cat /sys/block/$B/queue/scheduler)"

tracker_load block 5 2
echo 20000000 >$T/threshold_ns || fail "threshold_ns"
tracker_enable

# $1 skip (4 KiB blocks), $2 count: O_DIRECT reads, one request each.
rd() { dd if=$D of=/dev/null bs=4096 skip="$1" count="$2" iflag=direct 2>/dev/null || fail "dd read"; }
wr() { dd if=/dev/zero of=$D bs=4096 seek="$1" count="$2" oflag=direct conv=notrunc 2>/dev/null || fail "dd write"; }
# Alerts of the block tracker since marker $1, waiting up to $2 ms for the first one.
alerts() { lt-dump -f "$1" -t block -w "$2"; }

snapshot_start
m=$(lt-dump -n)
rd 100 6
wr 200 3
out=$(alerts "$m" 3000)
echo "$out"
nr=0 nw=0
while read -r line; do
	[ -n "$line" ] || continue
	[ "$(val "$line" data0)" = "$EXP_DEV" ] || fail "device: $line"
	[ "$(val "$line" data2)" = 4096 ] || fail "bytes: $line"
	c=$(val "$line" comm)
	[ "$(val "$line" reason)" = 1 ] || fail "reason: $line"
	s=$(val "$line" data1)
	rwbs=$(val "$line" rwbs)
	case $rwbs in
	R*)
		[ "$s" -ge 800 ] && [ "$s" -le 840 ] && [ $(((s - 800) % 8)) = 0 ] ||
			fail "read sector: $line"
		[ "$c" = dd ] || fail "read issuer: $line"
		nr=$((nr + 1)) ;;
	W*)
		[ "$s" -ge 1600 ] && [ "$s" -le 1616 ] && [ $(((s - 1600) % 8)) = 0 ] ||
			fail "write sector: $line"
		# dd sleeps with its plug unflushed: kblockd may issue the write.
		case $c in dd | kworker/*H) ;; *) fail "write issuer: $line" ;; esac
		nw=$((nw + 1)) ;;
	*) fail "rwbs: $line" ;;
	esac
	[ "$(val "$line" delay_ns)" -ge 20000000 ] || fail "delay under the threshold: $line"
done <<EOT
$out
EOT
# The throttle lets a short burst through unthrottled: not every request waits.
[ $nr -ge 2 ] || fail "$nr read alerts, expected at least 2 of 6"
[ $nw -ge 1 ] || fail "$nw write alerts, expected at least 1 of 3"
pass "O_DIRECT reads and writes alert with device $DEVNO, sector, bytes, rwbs ($nr R, $nw W)"
ev=$(snapshot_alerts block)
echo "$ev" | grep -q 'comm = "dd"' || fail "snapshot alert: $ev"
echo "$ev" | grep -q "\[0\] = $EXP_DEV," || fail "snapshot alert device: $ev"
pass "the alerts are in an LTTng snapshot"

echo 10000000000 >$T/threshold_ns || fail "threshold_ns 10 s"
m=$(lt-dump -n)
rd 100 4
out=$(alerts "$m" 300)
[ -z "$out" ] || fail "alert over a 10 s threshold: $out"
echo 20000000 >$T/threshold_ns
m=$(lt-dump -n)
rd 100 4
[ -n "$(alerts "$m" 2000)" ] || fail "no alert after the threshold went back to 20 ms"
pass "threshold changes apply to the next request"

echo nosuchcomm >$T/filter_comm || fail "filter_comm"
m=$(lt-dump -n)
rd 100 4
out=$(alerts "$m" 300)
[ -z "$out" ] || fail "filtered-out process alerted: $out"
echo dd >$T/filter_comm || fail "filter_comm dd"
m=$(lt-dump -n)
rd 100 4
[ -n "$(alerts "$m" 2000)" ] || fail "no alert with a matching comm filter"
echo >$T/filter_comm || fail "clear filter_comm"
echo 1 >$T/filter_tgid || fail "filter_tgid 1"
m=$(lt-dump -n)
wr 200 3
out=$(alerts "$m" 300)
[ -z "$out" ] || fail "filtered-out process alerted: $out"
echo 0 >$T/filter_tgid
pass "filters apply to the issuing task"

tracker_disable
m=$(lt-dump -n)
rd 100 4
out=$(alerts "$m" 300)
[ -z "$out" ] || fail "disabled tracker alerted: $out"
echo "stats: in $(cat $T/stats/events_in) out $(cat $T/stats/events_out) alerts $(cat $T/stats/alerts)" \
	"duplicates $(cat $T/stats/duplicates) unmatched $(cat $T/stats/unmatched)"
rmmod latency_tracker_block || fail "rmmod latency_tracker_block"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "block tracker"
