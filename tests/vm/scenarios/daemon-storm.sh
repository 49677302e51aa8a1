# vm-options: --timeout 300
# Issue #5, an alert storm: the self-test tracker raises about a thousand alerts per
# second for 8 s (bursts of 40, as fast as a shell loop goes) while latencyd (rate 1/s,
# burst 3) records. Snapshots stay within what the rate limit allows over the elapsed
# time, and every alert is accounted for: the module's alerts = records written +
# refused by its own limit + dropped; the records written = latencyd's records read +
# reported lost; latencyd's records read = causes of snapshots + suppressed; the catalog
# holds one complete entry per snapshot and the suppressed total; every snapshot holds
# alert events.
. "$VM_IN/scenarios/guest-lib.sh"

RATE=1
BURST=3
D=/tmp/latencyd
S=/sys/kernel/latency_tracker
conf_base 'session: { subbuf_size = 262144; num_subbuf = 4; };' \
	"ratelimit: { rate = $RATE; burst = $BURST; };" \
	'retention: { max_count = 0; max_bytes = 0; max_age = 0; };'
ctl() { latencyctl -s $D/ctl.sock "$@"; }
trap 'cp $D/latencyd.log $D/*.json "$VM_OUT/" 2>/dev/null' EXIT
num() { sed -n "s/^ *\"$1\": *\([0-9]*\).*/\1/p" $D/status.json | head -n1; }
status() { ctl --json status >$D/status.json || fail "latencyctl status"; }
cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

start_sessiond
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
wait_recording $D/latencyd.log $D/ctl.sock
modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
sleep 1
status
w0=$(cat $S/records_written) a0=$(num alerts) l0=$(num lost)
t0=$(cs)
while [ $(($(cs) - t0)) -lt 800 ]; do
	echo "threshold 40" >/sys/kernel/latency_tracker_selftest/emit || fail "emit"
	usleep 20000
done
t1=$(cs)
gen=$(cat $S/selftest/stats/alerts)
w1=$(cat $S/records_written) ksup=$(cat $S/alerts_suppressed) kdrop=$(cat $S/alerts_dropped)
echo "storm: $gen alerts in $((t1 - t0)) cs: $((gen * 100 / (t1 - t0)))/s; kernel: $((w1 - w0))" \
	"written, $ksup suppressed by its limit, $kdrop dropped" | tee "$VM_OUT/storm.txt"
[ $((gen * 100 / (t1 - t0))) -ge 100 ] || fail "not a storm: $((gen * 100 / (t1 - t0))) alerts/s"
[ "$gen" = $((w1 + ksup + kdrop)) ] || fail "kernel: $gen alerts != $w1 + $ksup + $kdrop"

i=0
while :; do
	status
	[ $(($(num alerts) - a0 + $(num lost) - l0)) = $((w1 - w0)) ] && break
	i=$((i + 1))
	[ $i -lt 300 ] || fail "latencyd read $(($(num alerts) - a0)) + lost $(($(num lost) - l0)) of $((w1 - w0))"
	sleep 0.1
done
t2=$(cs)
[ "$(num alerts)" = $(($(num causes) + $(num suppressed))) ] ||
	fail "alerts $(num alerts) != causes $(num causes) + suppressed $(num suppressed)"
pass "every alert accounted for: $gen raised = $((w1 - w0)) read by latencyd ($(num causes) causes, $(num suppressed) suppressed, $(num lost) lost) + $((ksup + kdrop)) refused by the module"

snaps=$(($(num snapshots) + $(num failed)))
max=$((BURST + RATE * (t2 - t0 + 99) / 100 + 1))
[ "$snaps" -ge $BURST ] && [ "$snaps" -le $max ] ||
	fail "$snaps snapshots in $(((t2 - t0) / 100)) s, the rate limit allows $BURST..$max"
[ "$(num failed)" = 0 ] || fail "$(num failed) snapshots failed"
i=0
while :; do
	total=$(sed -n '/"suppressed": *{/,/}/s/^ *"total": *\([0-9]*\).*/\1/p' $D/catalog.json)
	[ "$total" = "$(num suppressed)" ] && break
	i=$((i + 1))
	[ $i -lt 100 ] || fail "catalog: suppressed total $total, counters $(num suppressed)"
	sleep 0.1
done
[ "$(grep -c '"status": *"complete"' $D/catalog.json)" = "$(num snapshots)" ] ||
	fail "catalog: $(grep -c '"status": *"complete"' $D/catalog.json) complete entries for $(num snapshots) snapshots"
for snap in $D/snapshots/*; do
	read_trace "$snap" | grep -q 'latency_tracker_alert:' || fail "no alert event in $snap"
done
pass "$snaps snapshots (rate limit allows $max), each with its alert event; catalog consistent"

rmmod latency_tracker_selftest || fail "rmmod latency_tracker_selftest"
kill -TERM $LPID
wait $LPID || fail "latencyd exited with $?"
