# latencyd's memory with realtime.lock_memory (the default), on the real kernel (#19): the
# memory is locked on fault, so latencyd is resident for what it uses (at most 12 MiB here,
# where locking every mapped page made it 55 MB), and the alert path does not fault: the
# waiter thread's page faults (/proc/PID/task/TID/stat) over its first alert after a quiet
# period are minor and few (its code is read in and its stack, buffer and heap touched at
# start), none major, and none at all over the next one.
. "$VM_IN/scenarios/guest-lib.sh"

D=/tmp/latencyd
conf_base 'ratelimit: { rate = 0; };' 'analysis: { auto = false; };'
start_sessiond
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
wait_recording $D/latencyd.log $D/ctl.sock
grep -q "cannot lock memory" $D/latencyd.log && fail "memory not locked: $(cat $D/latencyd.log)"
modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
# The calibration snapshot (10 s after start) has run the record path once.
i=0
until latencyctl -s $D/ctl.sock --json status | grep -q '"source": *"calibration"'; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "no calibration"
	sleep 0.1
done
sleep 3 # quiet
rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$LPID/status)
echo "latencyd: VmRSS $rss kB, VmLck $(awk '/^VmLck:/ { print $2 }' /proc/$LPID/status) kB"
[ "$rss" -le $((12 * 1024)) ] || fail "latencyd resident $rss kB, over 12 MiB"
pass "locked on fault: $rss kB resident"

# The waiter's threads (one per CPU), summed.
waiters() { grep -l '^latencyd-waiter$' /proc/$LPID/task/*/comm | sed 's,/comm$,/stat,'; }
[ "$(waiters | wc -l)" = "$(nproc)" ] || fail "$(waiters | wc -l) waiter threads for $(nproc) CPUs"
faults() { waiters | xargs cat | awk '{ s += $10 + $12 } END { print s }'; }
major() { waiters | xargs cat | awk '{ s += $12 } END { print s }'; }
# alert N CPU: one self-test alert raised on CPU (the waiter pinned there takes it), waited
# for as the Nth complete snapshot.
alert() {
	taskset -c "$2" sh -c 'echo "threshold 1" >/sys/kernel/latency_tracker_selftest/emit' || fail "emit"
	wait_snapshots $D/catalog.json "$1" "alert $1"
}
m0=$(major)
n=0
for cpu in $(seq 0 $(($(nproc) - 1))); do
	f0=$(faults)
	alert $((n += 1)) $cpu
	f1=$(faults)
	sleep 2
	alert $((n += 1)) $cpu
	f2=$(faults)
	echo "CPU $cpu: waiter page faults: $((f1 - f0)) over the first alert, $((f2 - f1)) over the second; major $(major)"
	[ "$(major)" = "$m0" ] || fail "major page faults on the alert path"
	[ $((f1 - f0)) -le 8 ] || fail "$((f1 - f0)) page faults over the first alert on CPU $cpu"
	[ "$f2" = "$f1" ] || fail "$((f2 - f1)) page faults over the second alert on CPU $cpu"
done
pass "alert path: no major fault, a few minor over each waiter's first alert, none over the second"
kill -TERM $LPID
wait $LPID || fail "latencyd did not stop cleanly"
