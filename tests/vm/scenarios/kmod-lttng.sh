# The alert tracepoint in a real LTTng kernel snapshot: lttng-probe-latency_tracker.ko makes
# latency_tracker_alert recordable; babeltrace2 reads it back with the same fields as the
# record from /dev/latency_tracker, on LTTng's clock (the event comes right after end_ns).
. "$VM_IN/scenarios/guest-lib.sh"


start_sessiond
lttng list -k >/tmp/events.txt 2>&1 || fail "lttng list -k"
grep -q latency_tracker_alert /tmp/events.txt ||
	fail "LTTng does not list latency_tracker_alert: the probe is not loaded"
pass "lttng list -k shows latency_tracker_alert"
# sessiond loaded only the probes it was given (--kmod-probes): writeback's, which warns on
# kernels that renamed its tracepoints, and the rest nobody records stay out.
lsmod | grep -q '^lttng_probe_sched ' || fail "lttng-probe-sched is not loaded"
loaded=$(lsmod | awk '$1 ~ /^lttng_probe_/ { sub(/^lttng_probe_/, "", $1); print $1 }' | sort | tr '\n' ' ')
want=$(echo "$LTTNG_PROBES,latency_tracker" | tr ',' '\n' | sort | tr '\n' ' ')
[ "$loaded" = "$want" ] || fail "LTTng probes loaded: $loaded; wanted only $want"
pass "sessiond loaded only the probes it was given: $loaded"

modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
lttng create lt --snapshot --output=/tmp/snap >/dev/null || fail "lttng create"
lttng enable-channel -k --overwrite --subbuf-size=256k --num-subbuf=4 chan >/dev/null ||
	fail "enable-channel"
lttng enable-event -k -c chan latency_tracker_alert,sched_switch >/dev/null ||
	fail "enable-event"
lttng start >/dev/null || fail "lttng start"
echo "threshold 3" >/sys/kernel/latency_tracker_selftest/emit || fail "emit"
sleep 0.2
lttng snapshot record >/dev/null || fail "snapshot record"
lttng destroy >/dev/null

# shellcheck disable=SC2046
babeltrace2 --clock-cycles $(trace_dirs /tmp/snap) >/tmp/trace.txt || fail "babeltrace2"
grep 'latency_tracker_alert:' /tmp/trace.txt >/tmp/alerts.txt
cp /tmp/alerts.txt "$VM_OUT/snapshot-alerts.txt"
n=$(wc -l </tmp/alerts.txt)
[ "$n" = 3 ] || fail "$n latency_tracker_alert events in the snapshot, expected 3"
pass "the snapshot holds the 3 alerts"

lt-dump | grep '^kind=alert' >/tmp/records.txt
cp /tmp/records.txt "$VM_OUT/records.txt"
[ "$(wc -l </tmp/records.txt)" = 3 ] || fail "lt-dump: $(cat /tmp/records.txt)"
while read -r rec; do
	seq=$(val "$rec" seq)
	ev=$(grep "seq = $seq," /tmp/alerts.txt) || fail "no event with seq $seq"
	echo "$ev" | grep -q 'tracker = "selftest"' || fail "tracker field: $ev"
	echo "$ev" | grep -q "comm = \"$(val "$rec" comm)\"" || fail "comm field: $ev"
	for k in pid tid start_ns end_ns delay_ns start_cpu end_cpu; do
		echo "$ev" | grep -q "$k = $(val "$rec" $k)," || fail "$k differs: $rec / $ev"
	done
	echo "$ev" | grep -q "data = \[ \[0\] = $(val "$rec" data0)," || fail "data: $ev"
	# Cycles of LTTng's monotonic clock, in ns; leading zeros would read as octal.
	ts=$(echo "$ev" | sed -n 's/^\[0*\([0-9][0-9]*\)\].*/\1/p')
	end=$(val "$rec" end_ns)
	[ -n "$ts" ] && [ "$ts" -ge "$end" ] && [ $((ts - end)) -lt 100000000 ] ||
		fail "event time $ts is not just after end_ns $end"
done </tmp/records.txt
pass "snapshot events match the records field by field, on the same clock"

before=$(sed -n 's/^\[0*\([0-9][0-9]*\)\].*sched_switch:.*/\1/p' /tmp/trace.txt |
	awk -v e="$end" '$1 + 0 <= e + 0 { n++ } END { print n + 0 }')
[ "$before" -gt 0 ] || fail "no sched_switch before the alert in the snapshot"
pass "the alert sits among $before earlier sched_switch events"

rmmod latency_tracker_selftest || fail "rmmod latency_tracker_selftest"
rmmod latency_tracker || fail "rmmod latency_tracker"
