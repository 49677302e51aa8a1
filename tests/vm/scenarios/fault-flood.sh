# vm-options: --timeout 400
# Issue #9, alert flood: the syscalls tracker with the smallest threshold (1 us) and two
# threads of getppid() (tests/vm/progs/lt-fault-flood.c) raise alerts as fast as TCG
# allows for 10 s (measured 25-57k/s, printed; the issue asks for 100k/s, which this TCG
# VM does not reach), the module's own limit opened wide (1e6/s) so that they all reach
# the notification file. latencyd (rate 1/s, burst 3) must: take no more snapshots than
# its rate limit allows; account for every alert (kernel: generated = written +
# suppressed + dropped; latencyd: records read + records lost = written, and read =
# causes + suppressed; the catalog agrees); on its alert path (main loop and waiter,
# including the kernel's side of its reads) spend a bounded CPU time per alert: less than
# 50 us each under TCG (measured 21-25 us, i.e. 60-105% of one CPU at 25-55k alerts/s: the
# cost is linear in the alerts, and in production the module's own alert_rate_per_s caps
# them long before; a per-second bound would only measure how fast TCG ran); run the threads that read each
# snapshot (history window, analysis: a cost per snapshot, bounded by the rate limit) at
# nice 10, below the workload; and the VM must keep answering a shell command.
. "$VM_IN/scenarios/lib.sh"

SECONDS_FLOOD=10
RATE=1
BURST=3
D=/tmp/latencyd
S=/sys/kernel/latency_tracker
mkdir -p $D
cat >$D/latencyd.conf <<CONF
control: { socket = "$D/ctl.sock"; };
module: { parameters = "alert_rate_per_s=1000000 alert_burst=65536 ring_records=65536"; };
session: { subbuf_size = 262144; num_subbuf = 4; };
output: { directory = "$D/snapshots"; };
catalog: { directory = "$D"; };
ratelimit: { rate = $RATE; burst = $BURST; };
retention: { max_count = 0; max_bytes = 0; max_age = 0; };
trackers: { syscalls: { enabled = true; threshold = "1us"; filter_comm = "lt-fault-flood"; }; };
CONF
ctl() { latencyctl -s $D/ctl.sock "$@"; }
trap 'cp $D/latencyd.log $D/*.json "$VM_OUT/" 2>/dev/null' EXIT
# num KEY: the first number after "KEY": in the status saved in $D/status.json
num() { sed -n "s/^ *\"$1\": *\([0-9]*\).*/\1/p" $D/status.json | head -n1; }
status() { ctl --json status >$D/status.json || fail "latencyctl status"; }
ticks() { awk '{ print $14 + $15 }' /proc/$LPID/stat; } # utime + stime, USER_HZ = 100
cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; } # centiseconds since boot
ksum() { # the sum of stats/$1 over every tracker
	s=0
	for f in $S/*/stats/$1; do s=$((s + $(cat "$f"))); done
	echo $s
}

start_sessiond
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
i=0
until ctl --json status 2>/dev/null | grep -q '"state": *"recording"'; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat $D/latencyd.log; fail "latencyd does not record"; }
	sleep 0.1
done
[ "$(cat $S/syscalls/enabled)" = 1 ] && [ "$(cat $S/syscalls/threshold_ns)" = 1000 ] &&
	[ "$(cat $S/alert_rate_per_s)" = 1000000 ] || fail "the syscalls tracker is not set up"
sleep 1 # the bucket is full (burst) and the session has some history
status
w0=$(cat $S/records_written)
a0=$(num alerts) l0=$(num lost) sn0=$(($(num snapshots) + $(num failed)))
c0=$(ticks) t0=$(cs)
pass "latencyd up: syscalls tracker at 1 us for lt-fault-flood, module limit 1e6/s"

lt-fault-flood 2 $SECONDS_FLOOD >$D/flood.txt &
FPID=$!
# The VM answers a shell command during the flood (a generous bound: liveness, not speed).
worst=0 probes=0
while kill -0 $FPID 2>/dev/null; do
	s=$(cs)
	timeout 20 sh -c 'cat /proc/loadavg >/dev/null' || fail "a shell command did not answer in 20 s"
	e=$(($(cs) - s))
	[ $e -gt $worst ] && worst=$e
	probes=$((probes + 1))
	sleep 1
done
wait $FPID || fail "lt-fault-flood"
t1=$(cs) c1=$(ticks)
echo 0 >$S/syscalls/enabled || fail "disable syscalls"
gen=$(($(ksum alerts) + $(ksum timeouts) - $(ksum filtered)))
w1=$(cat $S/records_written) ksup=$(cat $S/alerts_suppressed) kdrop=$(cat $S/alerts_dropped)
secs10=$(((t1 - t0) / 10)) # tenths of a second
echo "flood: $(cat $D/flood.txt); alerts generated $gen in $((secs10 / 10)).$((secs10 % 10)) s:" \
	"$((gen * 10 / secs10))/s; $probes shell probes answered, slowest $((worst * 10)) ms" |
	tee "$VM_OUT/flood.txt"
[ $((gen * 10 / secs10)) -ge 100000 ] ||
	echo "MEASURED: $((gen * 10 / secs10)) alerts/s under TCG, below the 100000/s of the issue" |
	tee -a "$VM_OUT/flood.txt"
[ "$gen" = $((w1 + ksup + kdrop)) ] ||
	fail "kernel: generated $gen != written $w1 + suppressed $ksup + dropped $kdrop"
pass "kernel: $gen generated = $w1 written + $ksup suppressed + $kdrop dropped"

# latencyd drains what is left; then every record written is read or reported lost.
i=0
while :; do
	status
	[ $(($(num alerts) - a0 + $(num lost) - l0)) = $((w1 - w0)) ] && break
	i=$((i + 1))
	[ $i -lt 600 ] || fail "latencyd read $(($(num alerts) - a0)) + lost $(($(num lost) - l0)) of $((w1 - w0)) records"
	sleep 0.1
done
t2=$(cs) c2=$(ticks)
cp $D/status.json "$VM_OUT/status.json"
alerts=$(($(num alerts) - a0)) lost=$(($(num lost) - l0))
[ "$(num alerts)" = $(($(num causes) + $(num suppressed))) ] ||
	fail "latencyd: alerts $(num alerts) != causes $(num causes) + suppressed $(num suppressed)"
pass "latencyd: $alerts records read + $lost lost = $((w1 - w0)) written; alerts = causes + suppressed"

snaps=$(($(num snapshots) + $(num failed) - sn0))
max=$((BURST + RATE * (t2 - t0 + 99) / 100 + 1))
[ "$snaps" -ge 1 ] && [ "$snaps" -le $max ] ||
	fail "$snaps snapshots in $(((t2 - t0) / 100)) s, the rate limit allows $max"
[ "$(num failed)" = 0 ] || fail "$(num failed) snapshots failed"
# Suppressed counts reach the catalog file within one check period (3 s).
i=0
while :; do
	total=$(sed -n '/"suppressed": *{/,/}/s/^ *"total": *\([0-9]*\).*/\1/p' $D/catalog.json)
	[ "$total" = "$(num suppressed)" ] && break
	i=$((i + 1))
	[ $i -lt 100 ] || fail "catalog: suppressed total $total, counters $(num suppressed)"
	sleep 0.1
done
cp $D/catalog.json "$VM_OUT/catalog.json"
complete=$(grep -c '"status": *"complete"' $D/catalog.json)
[ "$complete" = "$(num snapshots)" ] || fail "catalog: $complete complete entries, $(num snapshots) snapshots"
pass "$snaps snapshots (rate limit allows $max); the catalog holds them and $total suppressed alerts"

cpu=$((c2 - c0)) wall=$((t2 - t0))
hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$LPID/status)
echo "latencyd: $cpu cs of CPU over $wall cs (flood + drain, $((cpu * 100 / wall))% of one CPU);" \
	"flood only $((c1 - c0)) cs over $((t1 - t0)) cs; peak RSS $hwm kB;" \
	"log $(wc -l <$D/latencyd.log) lines" | tee -a "$VM_OUT/flood.txt"
for t in /proc/$LPID/task/*; do echo "  thread $(cat $t/comm): $(awk '{ print $14 + $15 }' $t/stat) cs"; done |
	tee -a "$VM_OUT/flood.txt"
# Thread CPU (utime + stime) and nice value by name.
thread_cs() { for t in /proc/$LPID/task/*; do [ "$(cat $t/comm)" = "$1" ] && awk '{ print $14 + $15 }' $t/stat; done; }
thread_nice() { for t in /proc/$LPID/task/*; do [ "$(cat $t/comm)" = "$1" ] && awk '{ print $19 }' $t/stat; done; }
alert_path=$(($(thread_cs latencyd) + $(thread_cs latencyd-waiter)))
readers=$(($(thread_cs latencyd-hist) + $(thread_cs latencyd-analys)))
echo "alert path (main loop + waiter): $alert_path cs; snapshot readers: $readers cs," \
	"$((readers / snaps)) cs per snapshot" | tee -a "$VM_OUT/flood.txt"
alerts_read=$alerts
per_alert_ns=$((alert_path * 10000000 / alerts_read))
echo "alert path: $((per_alert_ns / 1000)) us of CPU per alert, $((alert_path * 100 / wall))% of one CPU" |
	tee -a "$VM_OUT/flood.txt"
[ $per_alert_ns -lt 50000 ] ||
	fail "latencyd's alert path used $((per_alert_ns / 1000)) us of CPU per alert ($alert_path cs for $alerts_read alerts)"
for t in latencyd-hist latencyd-analys; do
	[ "$(thread_nice $t)" = 10 ] || fail "$t runs at nice $(thread_nice $t), not 10"
done
pass "latencyd's alert path bounded: $((per_alert_ns / 1000)) us per alert; snapshot readers at nice 10"

kill -TERM $LPID
wait $LPID || fail "latencyd exited with $?"
tail -n 5 $D/latencyd.log
