# latencyd writes the module's block histogram to metrics.textfile (#29): 40 reads of a
# qemu-throttled disk (20 requests/s), one at a time, then latencyd (no session: the
# module and its trackers only) writes $VM_OUT/textfile/latencyd.prom. The bucket that
# holds the p99 of the module's own hist/delay_ns goes to $VM_OUT/p99-bucket ("LOWER UPPER"
# in ns): on the host, tests/vm/metrics-prometheus serves the file with node_exporter to
# prometheus and checks that histogram_quantile(0.99, ...) lands in that bucket.
# vm-options: --disk 64M:iops-total=20
. "$VM_IN/scenarios/guest-lib.sh"

vm_disk vmdisk0
tracker_load block 5 2
echo disk >$T/hist/per || fail "per disk"
echo 1 >$T/hist/reset || fail "reset"
tracker_enable
dd if=/dev/$B of=/dev/null bs=4096 skip=1000 count=40 iflag=direct 2>/dev/null || fail "dd read"
tracker_disable
# Nearest rank: the first bucket whose running count reaches 99 % of the total.
tail -n +2 $T/hist/delay_ns | awk '{ b[NR] = $1; c[NR] = $2; n += $2 }
	END { r = int((99 * n + 99) / 100); for (i = 1; i <= NR; i++) { s += c[i]
		if (s >= r) { lo = b[i]; print lo, (lo ? 2 * lo : 2); exit } } }' >"$VM_OUT/p99-bucket"
[ -s "$VM_OUT/p99-bucket" ] || fail "no p99 bucket: $(cat $T/hist/delay_ns)"
cp $T/hist/delay_ns "$VM_OUT/delay_ns"

D=/tmp/metrics
mkdir -p $D "$VM_OUT/textfile"
cat >$D/latencyd.conf <<CONF
control: { socket = "$D/ctl.sock"; };
module: { load = false; };
session: { enabled = false; };
metrics: { textfile = "$VM_OUT/textfile/latencyd.prom"; interval = "1s"; };
CONF
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
i=0
while ! grep -q '^latencyd_latency_seconds_count{tracker="block"}' \
	"$VM_OUT/textfile/latencyd.prom" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "no block histogram in the textfile: $(cat $D/latencyd.log)"
	sleep 0.1
done
kill $LPID
wait $LPID
grep -q "latencyd_latency_by_disk_seconds_count{tracker=\"block\",disk=\"$B\"} 40" \
	"$VM_OUT/textfile/latencyd.prom" || fail "no 40 reads of $B: $(grep by_disk "$VM_OUT/textfile/latencyd.prom")"
pass "the textfile holds block's histogram, its 40 reads of $B, p99 bucket $(cat "$VM_OUT/p99-bucket")"
