# latencyd as the flight recorder on the real kernel: it loads latency_tracker and the LTTng
# probe with libkmod, creates the kernel snapshot session, and one self-test alert read from
# /dev/latency_tracker gives exactly one snapshot holding the latency_tracker_alert event
# and scheduler events around it, with a catalog entry naming the cause.
. "$VM_IN/scenarios/guest-lib.sh"

D=/tmp/latencyd
conf_base 'session: { subbuf_size = 262144; num_subbuf = 4; };'
latencyd --check-config $D/latencyd.conf || fail "--check-config"

start_sessiond
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
wait_recording $D/latencyd.log $D/ctl.sock
[ -d /sys/module/latency_tracker ] || fail "latencyd did not load latency_tracker"
latencyctl -s $D/ctl.sock status | tee "$VM_OUT/status-before.txt"
pass "latencyd started: modules loaded, kernel session recording"

# realtime.sessiond_boost (10 by default): sessiond's client thread alone at nice -10.
sp=$(cat /var/run/lttng/lttng-sessiond.pid)
boosted="" others=""
for t in /proc/$sp/task/*; do
	nice=$(sed 's/.*) //' "$t/stat" | awk '{ print $17 }') # the comm may hold spaces
	if [ "$(cat "$t/comm")" = "Client manageme" ]; then
		boosted="$boosted $nice"
	else
		others="$others $nice"
	fi
done
[ "$boosted" = " -10" ] || fail "sessiond's client thread nice:$boosted (want -10)"
case "$others" in *-*) fail "other sessiond threads reniced:$others" ;; esac
grep -q "client thread (tid [0-9]*) at nice -10" $D/latencyd.log || fail "no log line for the boost"
pass "lttng-sessiond's client thread at nice -10, its other threads as they were"

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
grep -B10 -A10 'latency_tracker_alert:' $D/trace.txt >"$VM_OUT/around-alert.txt"
# IRQ, softirq and hrtimer events are in the session too, so "next to" is a time window:
# the history must hold scheduler events both before the alert and within 20 ms after it
# (the alert wakes latencyd-waiter).
awk '
function ns(s) { split(substr(s, 2, 18), t, /[:.]/); return ((t[1] * 60 + t[2]) * 60 + t[3]) * 1e9 + t[4] }
/latency_tracker_alert:/ { alert = ns($1); next }
/ sched_/ { if (!alert) before = 1; else if (ns($1) - alert <= 20e6) after = 1 }
END { exit !(before && after) }' $D/trace.txt ||
	fail "no scheduler events around the alert"
grep -q 'DELAY_NS\|alert from tracker selftest' $D/latencyd.log || fail "alert not logged"
pass "one alert: one snapshot ($a alert, $s sched_switch events), catalog entry with its cause"

# The history latencyd measured from that snapshot against babeltrace2's own reading of it:
# per CPU the same events and the same span (first to last event), and the window is the
# shortest span of the CPUs whose buffer was full (the longest when none was).
i=0
until grep -q '"window_ns"' $D/catalog.json 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 600 ] || { cat $D/latencyd.log; fail "no history measured for the snapshot"; }
	sleep 0.1
done
cp $D/catalog.json "$VM_OUT/"
# The flight channel's streams: the names channel (the disks' names, from the session's
# start) is not history.
awk '/"streams":/ { s = 1 } /"streams_total":/ { s = 0 }
	s && /"channel":/ { ch = $0; sub(/.*"channel": *"/, "", ch); sub(/".*/, "", ch) }
	s && /"cpu":/ { gsub(/[^0-9]/, ""); c = $0 }
	s && /"events":/ { gsub(/[^0-9]/, ""); e = $0 }
	s && /"span_ns":/ { gsub(/[^0-9]/, ""); if (e > 0 && ch == "flight") print c, e, $0 }' \
	$D/catalog.json | sort -n >$D/ours.txt
babeltrace2 --clock-seconds $(trace_dirs "$snap") >$D/trace-all.txt || fail "babeltrace2"
# The disks' names, in a channel of their own (vm-trio-chain-disk reads them on another host).
[ -z "$(ls /sys/dev/block)" ] || grep -q latency_tracker_device_name $D/trace-all.txt ||
	fail "the snapshot names no block device"
grep -v latency_tracker_device_name $D/trace-all.txt >$D/trace-s.txt
# The nanoseconds (9 digits) are read as "1" NNNNNNNNN - 1e9: busybox awk reads a number
# with a leading 0 and only digits 0-7 as octal (076671410 as 16478984).
awk '{
	t = substr($1, 2, length($1) - 2); split(t, p, "."); ns = ("1" p[2]) - 1000000000;
	match($0, /cpu_id = [0-9]+/); c = substr($0, RSTART + 9, RLENGTH - 9);
	if (!(c in n)) { s0[c] = p[1]; f[c] = ns }
	n[c]++; l[c] = (p[1] - s0[c]) * 1000000000 + ns;
} END { for (c in n) printf "%s %d %.0f\n", c, n[c], l[c] - f[c] }' $D/trace-s.txt | sort -n >$D/bt.txt
cp $D/ours.txt $D/bt.txt $D/trace-s.txt "$VM_OUT/"
[ -s $D/bt.txt ] || fail "babeltrace2 shows no event per CPU"
# Same CPUs, same events, the same spans (within a microsecond).
paste -d' ' $D/ours.txt $D/bt.txt | awk '$1 != $4 || $2 != $5 { exit 1 }
	{ d = $3 - $6; if (d < 0) d = -d; if (d > 1000) exit 1 }' &&
	[ "$(wc -l <$D/ours.txt)" = "$(wc -l <$D/bt.txt)" ] ||
	fail "per CPU (cpu events span_ns): latencyd $(cat $D/ours.txt | tr '\n' ';') babeltrace2 $(cat $D/bt.txt | tr '\n' ';')"
cmp -s $D/ours.txt $D/bt.txt || echo "note: spans differ: $(cat $D/ours.txt $D/bt.txt | tr '\n' ';')"
w=$(sed -n 's/.*"window_ns": *\([0-9]*\).*/\1/p' $D/catalog.json)
max=$(awk '$3 > m { m = $3 } END { printf "%.0f", m }' $D/ours.txt)
[ "$w" -gt 0 ] || fail "measured window $w"
if grep -q '"wrapped": *false' $D/catalog.json; then
	[ "$w" = "$max" ] || fail "no buffer full: window $w, longest span $max"
else
	awk -v w="$w" '$3 == w { ok = 1 } END { exit !ok }' $D/ours.txt ||
		fail "window $w is the span of no CPU"
fi
grep -q '"expected_window_ns": *[1-9]' $D/catalog.json || fail "no expected window"
latencyctl -s $D/ctl.sock status | tee "$VM_OUT/status-after.txt" | grep -Eq "measured [0-9.]+(ns|us|ms|s) .* in snapshot 1 at" ||
	fail "status does not report the measured window"
grep -Eq "^History window: +expected [0-9.]+(ns|us|ms|s) \(" "$VM_OUT/status-after.txt" ||
	fail "status does not report the expected window"
pass "history of the kernel snapshot: window ${w} ns, per CPU events and spans as babeltrace2 shows"

# Each event enabled is one a loaded probe offers: nothing said. One none offers (kmem's,
# not loaded) is said by the configuration's check and again when the session is made.
! grep "no LTTng probe lttng-sessiond has loaded offers" $D/latencyd.log ||
	fail "an event of the defaults said offered by no probe"
sed -i 's|^session: {|session: { events = [ "sched_switch", "latency_tracker_alert", "kmem_kmalloc" ];|' \
	$D/latencyd.conf
latencyctl -s $D/ctl.sock reload || fail "reload"
i=0
until grep -q "event kmem_kmalloc: no LTTng probe lttng-sessiond has loaded offers it" $D/latencyd.log; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat $D/latencyd.log; fail "kmem_kmalloc not said offered by no probe"; }
	sleep 0.1
done
grep -q "session.events: warning: 'kmem_kmalloc' is not among the events" $D/latencyd.log ||
	fail "the reload's check did not warn of kmem_kmalloc"
[ "$(grep -c "no LTTng probe lttng-sessiond has loaded offers" $D/latencyd.log)" = 1 ] ||
	fail "other events said offered by no probe: $(grep "no LTTng probe" $D/latencyd.log)"
pass "session.events: an event no loaded probe offers is said, at reload and when the session is made"

# Disks that come after the session started (here loop's eight): named from the snapshot
# after the one that saw them.
modprobe loop || fail "modprobe loop"
[ -e /sys/dev/block/7:0 ] || fail "no loop0 after modprobe loop: $(ls /sys/dev/block)"
for r in 1 2; do
	latencyctl -s $D/ctl.sock -t 60 record --reason "loop $r" >/dev/null || fail "record $r"
done
grep -q "the block devices changed" $D/latencyd.log ||
	fail "the new disks were not said: $(tail -n 8 $D/latencyd.log)"
last=$D/snapshots/$(ls $D/snapshots | sort -t- -k2 -n | tail -n 1)
read_trace "$last" | grep 'latency_tracker_device_name:' | grep -q 'diskname = "loop0"' ||
	fail "$last does not name loop0: $(read_trace "$last" | grep -c device_name) names; $(ls $D/snapshots); $(tail -n 8 $D/latencyd.log)"
pass "a disk that came later is named in the snapshots that follow"

rmmod latency_tracker_selftest || fail "rmmod latency_tracker_selftest"
kill -TERM $LPID
wait $LPID || fail "latencyd exited with $?"
[ ! -d /sys/module/latency_tracker ] || fail "latencyd did not unload latency_tracker"
pass "SIGTERM: latencyd unloaded what it loaded"
