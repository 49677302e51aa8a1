# The irq tracker: with the lowest threshold (1 us, which interrupt handlers exceed under
# qemu's emulation) real hard interrupts (virtio disk completions, serial console) and
# softirqs (TIMER, RCU, BLOCK...) raise alerts whose irq numbers and names match
# /proc/interrupts and whose vectors and names match /proc/softirqs' order; also found in
# an LTTng snapshot; a 10 s threshold stops new alerts at once; filters match the
# interrupted task; no probe stays registered when disabled; unload is clean. Counts
# depend on the emulation's speed: only "at least one" is asserted. On PREEMPT_RT, where
# every device interrupt is threaded, the disk's threaded handler is measured too (kind 2,
# the task its irq thread), and the filters select that thread: softirqs no longer run
# in the task an interrupt fell on.
# vm-options: --disk 16M
. "$VM_IN/scenarios/guest-lib.sh"

# A virtio disk gives hard interrupts on demand (virtio_blk is a module).
vm_disk vmdisk0
# Disk reads (hard irqs, BLOCK softirqs), console output (ttyS0), sleeps (TIMER).
activity() {
	for i in 1 2 3 4 5; do
		dd if=/dev/$B of=/dev/null bs=4096 count=8 skip=$((i * 8)) iflag=direct 2>/dev/null
		echo "activity $i"
		sleep 0.1
	done
}
alerts() { lt-dump -f "$1" -t irq -w "$2"; }

tracker_load irq 6 5
[ "$(cat $T/dup_policy)" ] || fail "dup_policy"
echo 1000 >$T/threshold_ns || fail "threshold_ns"
tracker_enable

snapshot_start
m=$(lt-dump -n)
activity
out=$(alerts "$m" 2000)
lttng stop >/dev/null
echo "$out" | grep ' data1=0 ' | head -5
echo "$out" | grep ' data1=1 ' | head -5
nh=0 ns=0 nt=0
RT=$(uname -v | grep -c PREEMPT_RT)
SOFT="HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET SCHED HRTIMER RCU"
while read -r line; do
	[ -n "$line" ] || continue
	[ "$(val "$line" reason)" = 1 ] || fail "reason: $line"
	[ "$(val "$line" data1)" = 2 ] || [ "$(val "$line" start_cpu)" = "$(val "$line" end_cpu)" ] ||
		fail "cpu: $line"
	[ "$(val "$line" delay_ns)" -ge 1000 ] || fail "delay under the threshold: $line"
	n=$(val "$line" data0)
	name=$(val "$line" name)
	case $(val "$line" data1) in
	0)
		[ -n "$name" ] || fail "hard irq without a name: $line"
		grep -q "^ *$n:.* $name" /proc/interrupts || fail "irq $n $name not in /proc/interrupts: $line"
		nh=$((nh + 1)) ;;
	1)
		[ "$n" -lt 10 ] || fail "softirq vector: $line"
		set -- $SOFT
		shift "$n"
		[ "$name" = "$1" ] || fail "softirq $n is $1, not $name: $line"
		ns=$((ns + 1)) ;;
	2)
		[ -n "$name" ] || fail "threaded handler without a name: $line"
		grep -q "^ *$n:.* $name" /proc/interrupts || fail "irq $n $name not in /proc/interrupts: $line"
		case $(val "$line" comm) in
		"irq/$n-"*) ;;
		*) fail "a threaded handler's task is not its irq thread: $line" ;;
		esac
		nt=$((nt + 1)) ;;
	*) fail "kind: $line" ;;
	esac
done <<EOT
$out
EOT
[ $nh -ge 1 ] || fail "no hard irq alert"
[ $ns -ge 1 ] || fail "no softirq alert"
pass "$nh hard irq, $ns softirq and $nt threaded handler alerts, names as in /proc/interrupts and /proc/softirqs"
ev=$(snapshot_alerts irq)
echo "$ev" | grep -q 'tracker_type = 6' || fail "snapshot alert: $ev"
pass "the alerts are in an LTTng snapshot"

echo 10000000000 >$T/threshold_ns || fail "threshold_ns 10 s"
sleep 0.2
m=$(lt-dump -n)
activity
out=$(alerts "$m" 300)
[ -z "$out" ] || fail "alert over a 10 s threshold: $out"
echo 1000 >$T/threshold_ns
m=$(lt-dump -n)
activity
[ -n "$(alerts "$m" 2000)" ] || fail "no alert after the threshold went back to 1 us"
pass "threshold changes apply at once"

# Filters match the interrupted task: nothing passes a comm nobody has.
echo nosuchcomm >$T/filter_comm || fail "filter_comm"
sleep 0.2
m=$(lt-dump -n)
activity
out=$(alerts "$m" 300)
[ -z "$out" ] || fail "filtered-out task alerted: $out"
if [ "$RT" = 0 ]; then
	# A busy dd gets interrupted (ticks, TIMER/RCU/SCHED softirqs): only dd's alerts pass.
	echo dd >$T/filter_comm || fail "filter_comm dd"
	m=$(lt-dump -n)
	dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null
	out=$(alerts "$m" 1000)
	[ -n "$out" ] || fail "no alert for the interrupted dd"
	echo "$out" | grep -v ' comm=dd ' && fail "an alert not about dd"
	pass "filters match the interrupted task"
else
	# Every device interrupt is threaded: the disk's irq threads (one per queue; the
	# kernel's comm, 15 bytes, is what the filter matches), each filtered in turn, give
	# alerts of that thread only (its threaded handler, kind 2, and the softirqs it ran on
	# the way out, as on RT a softirq runs in the thread that raised it). Alone, not
	# drowned in the other softirq alerts by the module's global rate limit.
	threads=$(cat /proc/[0-9]*/comm 2>/dev/null | grep "^irq/[0-9]*-virtio[0-9]*-req" | cut -c1-15)
	[ -n "$threads" ] || fail "no virtio disk irq thread"
	got=""
	for th in $threads; do
		echo "$th" >$T/filter_comm || fail "filter_comm $th"
		m=$(lt-dump -n)
		activity
		out=$(alerts "$m" 1000)
		echo "$out" | grep -v "^$" | grep -v " comm=$th " && fail "an alert not of $th"
		n=$(echo "$out" | grep -c " data1=2 ")
		[ "$n" -gt 0 ] && got="$got $th($n)"
	done
	[ -n "$got" ] || fail "no threaded handler alert from" $threads
	pass "PREEMPT_RT: threaded handlers measured, the filters select their irq thread:$got"
fi
echo >$T/filter_comm || fail "clear filter_comm"

tracker_disable
m=$(lt-dump -n)
activity
out=$(alerts "$m" 300)
[ -z "$out" ] || fail "disabled tracker alerted: $out"
echo "stats: in $(cat $T/stats/events_in) out $(cat $T/stats/events_out) alerts $(cat $T/stats/alerts)" \
	"suppressed $(cat $T/stats/suppressed) duplicates $(cat $T/stats/duplicates)" \
	"unmatched $(cat $T/stats/unmatched) busy $(cat $T/stats/busy) mean $(cat $T/stats/delay_mean_ns) ns"
rmmod latency_tracker_irq || fail "rmmod latency_tracker_irq"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "irq tracker"
