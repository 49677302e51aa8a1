# The main job (tools/demo), and a test of it: latencyd with its default configuration
# catches a real latency. A process sleeps 30 ms in a system call; the syscalls tracker,
# set to 10 ms through latencyctl, raises an alert; latencyd records an LTTng snapshot of
# the kernel history around it, which babeltrace2 reads back.
. "$VM_IN/scenarios/guest-lib.sh"
T=/sys/kernel/latency_tracker/syscalls
CATALOG=/var/lib/latencyd/catalog.json

echo "== starting lttng-sessiond and latencyd (it loads the latency tracker module)"
start_sessiond
latencyd >/tmp/latencyd.log 2>&1 &
daemon=$!
wait_recording /tmp/latencyd.log
latencyctl status

echo "== the syscalls tracker: 10 ms threshold, only for the demo's process"
echo usleep >$T/filter_comm || fail "filter_comm"
latencyctl set-threshold syscalls 10ms || fail "set-threshold"
latencyctl enable syscalls || fail "enable"
sleep 0.5 # some history before the latency

echo "== a 30 ms latency: usleep 30000"
usleep 30000
i=0
until grep -q '"status": *"complete"' $CATALOG 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat /tmp/latencyd.log; fail "no snapshot in the catalog"; }
	sleep 0.1
done
sleep 0.5

echo "== what latencyd saw"
latencyctl trackers
latencyctl status
grep -E '"(tracker|comm|delay_ns|tid|name|path|detect_to_record_ns)"' $CATALOG | sed 's/^ */  /'
snaps=$(ls /var/lib/latencyd/snapshots)
[ "$(echo "$snaps" | wc -l)" = 1 ] || fail "expected one snapshot, got: $snaps"
grep -q '"tracker": *"syscalls"' $CATALOG || fail "the catalog does not name the syscalls tracker"
grep -q '"comm": *"usleep"' $CATALOG || fail "the catalog does not name usleep"

echo "== the alert inside the snapshot (babeltrace2)"
read_trace /var/lib/latencyd/snapshots/$snaps >/tmp/trace.txt || fail "babeltrace2"
grep 'latency_tracker_alert:' /tmp/trace.txt | head -n 1
[ "$(grep -c 'latency_tracker_alert:' /tmp/trace.txt)" = 1 ] || fail "no single alert event in the snapshot"
echo "   with $(grep -c 'sched_switch:' /tmp/trace.txt) sched_switch events around it"
# The default event list uses LTTng's names; one it does not know would silently record nothing.
for ev in sched_switch sched_waking irq_softirq_entry timer_hrtimer_expire_entry; do
	grep -q "$ev:" /tmp/trace.txt || fail "no $ev event in the snapshot: check the default events"
done

echo "== what latencyd's own analysis of the snapshot says (analysis.auto)"
i=0
until grep -q '"analysis"' $CATALOG; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "the snapshot was not analysed"
	sleep 0.1
done
latencyctl show-snapshot 1 | tee /tmp/show.txt
grep -q "^Analysis (done" /tmp/show.txt || fail "the analysis is not done"
grep -A1 "^Analysis" /tmp/show.txt | grep -q usleep || fail "the analysis does not explain usleep's latency"
# The blocked task's kernel stack, named by latencyd at alert time from /proc/kallsyms.
grep -A1 "^Kernel stacks:" /tmp/show.txt | grep -q "usleep), where it waited in the kernel" ||
	fail "show-snapshot shows no kernel stack for usleep"
grep -A17 "^Kernel stacks:" /tmp/show.txt | grep -Eq "^    [a-z_]*(nanosleep|schedule)[a-z_0-9]*\+0x[0-9a-f]+/0x[0-9a-f]+" ||
	fail "the kernel stack is not named (function+0xoff/0xsize)"
echo "== latencyctl analyze 1: the stack beside the link it explains"
latencyctl analyze --no-tables 1 | tee /tmp/analyze.txt
grep -A1 "kernel stack, where it waited:" /tmp/analyze.txt | grep -Eq "^ +[a-z_0-9.]+\+0x[0-9a-f]+/0x" ||
	fail "analyze shows no named kernel stack"
# Under the blocked interval (the line before it), not elsewhere.
grep -B1 "kernel stack, where it waited:" /tmp/analyze.txt | head -1 | grep -q "blocked" ||
	fail "the stack is not beside the blocked interval it explains"
latencyctl --json analyze 1 --no-tables | tr -d ' \n' | grep -q '"stack":{"kind":"task","frames":\["[a-z_]' ||
	fail "analyze --json has no named stack"
cp $CATALOG /tmp/latencyd.log "$VM_OUT/" 2>/dev/null

latencyctl disable syscalls >/dev/null
kill -TERM "$daemon"
wait "$daemon" || fail "latencyd did not stop cleanly"
pass "latencyd caught a 30 ms system call and recorded a snapshot with the alert"
