# latencyd as the flight recorder on the real kernel: it loads latency_tracker and the LTTng
# probe with libkmod, creates the kernel snapshot session, and one self-test alert read from
# /dev/latency_tracker gives exactly one snapshot holding the latency_tracker_alert event
# and scheduler events around it, with a catalog entry naming the cause.
. "$VM_IN/scenarios/lib.sh"

D=/tmp/latencyd
mkdir -p $D
cat >$D/latencyd.conf <<CONF
control: { socket = "$D/ctl.sock"; };
session: { subbuf_size = 262144; num_subbuf = 4; };
output: { directory = "$D/snapshots"; };
catalog: { directory = "$D"; };
CONF
latencyd --check-config $D/latencyd.conf || fail "--check-config"

start_sessiond
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
i=0
until latencyctl -s $D/ctl.sock --json status 2>/dev/null | grep -q '"state": *"recording"'; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat $D/latencyd.log; fail "latencyd does not record"; }
	sleep 0.1
done
[ -d /sys/module/latency_tracker ] || fail "latencyd did not load latency_tracker"
latencyctl -s $D/ctl.sock status | tee "$VM_OUT/status-before.txt"
pass "latencyd started: modules loaded, kernel session recording"

modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
sleep 0.5 # some scheduler history before the alert
echo "threshold 1" >/sys/kernel/latency_tracker_selftest/emit || fail "emit"
i=0
until grep -q '"status": *"complete"' $D/catalog.json 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat $D/latencyd.log; fail "no complete snapshot in the catalog"; }
	sleep 0.1
done
sleep 1 # nothing else may come
cp $D/catalog.json $D/latencyd.log "$VM_OUT/"
[ "$(ls $D/snapshots | wc -l)" = 1 ] || fail "not exactly one snapshot: $(ls $D/snapshots)"
grep -q '"tracker": *"selftest"' $D/catalog.json || fail "the catalog does not name the cause"
grep -q '65261' $D/catalog.json || fail "the cause's data[1] (0xfeed) is not in the catalog"
snap=$D/snapshots/$(ls $D/snapshots)
read_trace "$snap" >$D/trace.txt || fail "babeltrace2"
a=$(grep -c 'latency_tracker_alert:' $D/trace.txt)
s=$(grep -c 'sched_switch:' $D/trace.txt)
[ "$a" = 1 ] || fail "$a latency_tracker_alert events in the snapshot, expected 1"
[ "$s" -gt 0 ] || fail "no sched_switch in the snapshot"
grep -B3 -A3 'latency_tracker_alert:' $D/trace.txt >"$VM_OUT/around-alert.txt"
grep -q 'sched_' "$VM_OUT/around-alert.txt" || fail "no scheduler event next to the alert"
grep -q 'DELAY_NS\|alert from tracker selftest' $D/latencyd.log || fail "alert not logged"
pass "one alert: one snapshot ($a alert, $s sched_switch events), catalog entry with its cause"

latencyctl -s $D/ctl.sock status | tee "$VM_OUT/status-after.txt"
rmmod latency_tracker_selftest || fail "rmmod latency_tracker_selftest"
kill -TERM $LPID
wait $LPID || fail "latencyd exited with $?"
[ ! -d /sys/module/latency_tracker ] || fail "latencyd did not unload latency_tracker"
pass "SIGTERM: latencyd unloaded what it loaded"
