# vm-options: --timeout 400
# Issue #9, alert flood, in two phases of 10 s each against one latencyd (rate 1/s, burst 3):
# - syscalls: the real syscalls tracker (kernel stacks and all) at 1 us and two threads of
#   getrandom() of 512 bytes (tests/vm/progs/lt-fault-flood.c: every call takes a few us,
#   every one alerts), the module's own limit opened wide (1e6/s) so that every alert
#   reaches latencyd: as fast as TCG allows with latencyd reading them all on the same two
#   vCPUs, 47-56k alerts/s;
# - kernel: two writers of the self-test module's "flood" (alerts raised in a loop inside
#   the kernel, without the stack capture that costs most under TCG), the module's limit
#   back at its default (200/s, burst 200) as in production: the 100k alerts/s and more
#   of the issue (a MEASURED line says so when TCG did not reach it: a wall-clock rate is
#   not asserted), of which the module passes 200/s to latencyd and counts the rest.
# In each phase latencyd must: take no more snapshots than its rate limit allows; account
# for every alert (kernel: generated = written + suppressed + dropped; latencyd: records
# read + records lost = written, and read = causes + suppressed; the catalog agrees); and
# the VM must keep answering a shell command. Its alert path (main loop and waiter,
# including the kernel's side of its reads) must spend less CPU than two yardsticks
# measured in the same VM: for each snapshot taken, what reading it once costs latencyd's
# reader (measured below); for each alert read, half of what the flooding program spent
# on its call (lt-fault-flood's own CPU; the kernel phase's alerts, 200/s, get nothing).
# The work per snapshot (the catalog's save; on PREEMPT_RT, where some calls are preempted
# and their stacks taken, naming them from /proc/kallsyms) is bounded by the rate limit,
# the work per alert by the flood: each against a cost of its own kind, so that a slow or
# loaded host, which inflates a TCG guest's CPU times, or a fast one, which brings more
# alerts per snapshot, scales both sides alike. An absolute bound (38 us per alert) failed
# a CI run where TCG ran at a third of its usual speed, and the work per snapshot weighed
# on fewer alerts; the reader's cost per snapshot alone moved with the host's speed too.
# Measured: 27-29 % of the yardsticks in the syscalls phase and 36-46 % in the kernel
# phase on 6.1, 39-44 % and 17-28 % on 6.12-rt.
# The CPU per alert is reported, and its ratio to the flooding program's own CPU per call:
# 11-15 us and 0.27-0.36 on 6.1, 24-62 us and 0.64-0.97 on 6.12-rt (before: 6-25 us once
# the waiter read a storm in batches, 10 ms apart; 42-82 us when it woke for each alert;
# 43 us in the failed run, when the main loop still counted a storm's refused alerts one
# by one).
# The thread that reads each snapshot (history window and analysis in one pass: a cost
# per snapshot, bounded by the rate limit) runs at nice 10, below the workload. Its CPU per
# snapshot (of the 1 MiB per CPU buffers the floods filled, measured after the floods on
# snapshots taken one at a time) is reported (MEASURED) and bounded. Issue #14, measured
# 2026-11-23 (TCG, the host loaded by other jobs; five runs of each version, alternated):
# before, two threads each decoding every snapshot (latencyd-hist, latencyd-analys) used
# 35-59 us of CPU per event, 1.25-2.66 s per snapshot of 32-45k events (median 50 us,
# 1.77 s); the one pass since, 24-38 us per event, 0.68-1.56 s per snapshot (median 30 us,
# 0.87 s), 0.51-0.79 of the run before it. Single runs besides: before 32 and 37 us,
# after 25 and 43 us. A loaded host inflates a TCG guest's CPU times: the bound is loose.
. "$VM_IN/scenarios/guest-lib.sh"

SECONDS_FLOOD=10
# The threads that read snapshots (by name), and the bound on their CPU per event of the
# READ_N snapshots read for the measurement.
READERS="latencyd-reader"
READER_US_MAX=100
READ_N=5
RATE=1
BURST=3
D=/tmp/latencyd
S=/sys/kernel/latency_tracker
conf_base \
	'module: { parameters = "alert_rate_per_s=1000000 alert_burst=65536 ring_records=65536"; };' \
	'session: { subbuf_size = 262144; num_subbuf = 4; };' \
	"ratelimit: { rate = $RATE; burst = $BURST; };" \
	'retention: { max_count = 0; max_bytes = 0; max_age = 0; };' \
	'trackers: { syscalls: { enabled = true; threshold = "1us"; filter_comm = "lt-fault-flood"; }; };'
ctl() { latencyctl -s $D/ctl.sock "$@"; }
: >"$VM_OUT/flood.txt"
trap 'cp $D/latencyd.log $D/*.json "$VM_OUT/" 2>/dev/null' EXIT
# num KEY: the first number after "KEY": in the status saved in $D/status.json
num() { sed -n "s/^ *\"$1\": *\([0-9]*\).*/\1/p" $D/status.json | head -n1; }
status() { ctl --json status >$D/status.json || fail "latencyctl status"; }
ticks() { awk '{ print $14 + $15 }' /proc/$LPID/stat; } # utime + stime, USER_HZ = 100
cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; } # centiseconds since boot
# Thread CPU (utime + stime) and nice value by name.
# utime + stime of the threads named $1 (the waiter has one per CPU), summed
thread_cs() {
	local s=0 t
	for t in /proc/$LPID/task/*; do
		[ "$(cat $t/comm)" = "$1" ] && s=$((s + $(awk '{ print $14 + $15 }' $t/stat)))
	done
	echo $s
}
thread_nice() { for t in /proc/$LPID/task/*; do [ "$(cat $t/comm)" = "$1" ] && awk '{ print $19 }' $t/stat; done; }
ksum() { # the sum of stats/$1 over every tracker
	s=0
	for f in $S/*/stats/$1; do s=$((s + $(cat "$f"))); done
	echo $s
}

start_sessiond
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
wait_recording $D/latencyd.log $D/ctl.sock
[ "$(cat $S/syscalls/enabled)" = 1 ] && [ "$(cat $S/syscalls/threshold_ns)" = 1000 ] &&
	[ "$(cat $S/alert_rate_per_s)" = 1000000 ] || fail "the syscalls tracker is not set up"
pass "latencyd up: syscalls tracker at 1 us for lt-fault-flood, module limit 1e6/s"

# Generators, in the background; GEN holds their pids.
gen_syscalls() {
	lt-fault-flood 2 $SECONDS_FLOOD >$D/flood.txt &
	GEN=$!
}
gen_kernel() {
	GEN=
	for w in 1 2; do
		echo "flood $((SECONDS_FLOOD * 1000))" >/sys/kernel/latency_tracker_selftest/emit &
		GEN="$GEN $!"
	done
}

# flood NAME: generator gen_NAME for SECONDS_FLOOD s, then every check on what it raised;
# the CPU of latencyd's alert path, the snapshots taken and the CPU its alerts may cost
# land in PATH_CS_NAME, SNAPS_NAME and ALERTS_ALLOW_CS_NAME, checked once the reader's
# cost per snapshot is measured.
flood() {
	sleep 1 # the bucket refills (burst) and the session has some history
	status
	k0=$(($(ksum alerts) + $(ksum timeouts) - $(ksum filtered)))
	w0=$(cat $S/records_written) ks0=$(cat $S/alerts_suppressed) kd0=$(cat $S/alerts_dropped)
	a0=$(num alerts) l0=$(num lost) sn0=$(($(num snapshots) + $(num failed)))
	p0=$(($(thread_cs latencyd) + $(thread_cs latencyd-waiter)))
	c0=$(ticks) t0=$(cs)

	gen_$1
	# The VM answers a shell command during the flood (a generous bound: liveness, not speed).
	worst=0 probes=0
	while kill -0 $GEN 2>/dev/null; do
		s=$(cs)
		timeout 20 sh -c 'cat /proc/loadavg >/dev/null' || fail "$1: a shell command did not answer in 20 s"
		e=$(($(cs) - s))
		[ $e -gt $worst ] && worst=$e
		probes=$((probes + 1))
		sleep 1
	done
	wait $GEN || fail "$1: the generator failed"
	t1=$(cs) c1=$(ticks)
	gen=$(($(ksum alerts) + $(ksum timeouts) - $(ksum filtered) - k0))
	w=$(($(cat $S/records_written) - w0))
	ksup=$(($(cat $S/alerts_suppressed) - ks0)) kdrop=$(($(cat $S/alerts_dropped) - kd0))
	secs10=$(((t1 - t0) / 10)) # tenths of a second
	rate=$((gen * 10 / secs10))
	made=$(cat $D/flood.txt 2>/dev/null) && made="$made; "
	# The flooding program's calls and its CPU (lt-fault-flood), when it is one.
	calls=$(sed -n 's/^calls \([0-9]*\) .*/\1/p' $D/flood.txt 2>/dev/null)
	gen_cpu_ms=$(sed -n 's/.* cpu \([0-9]*\) ms$/\1/p' $D/flood.txt 2>/dev/null)
	echo "$1 flood: ${made}alerts generated $gen in" \
		"$((secs10 / 10)).$((secs10 % 10)) s: $rate/s; $probes shell probes answered," \
		"slowest $((worst * 10)) ms" | tee -a "$VM_OUT/flood.txt"
	rm -f $D/flood.txt
	# The kernel phase is the one for the issue's rate; the syscalls one goes as fast as
	# latencyd can read on the same vCPUs.
	[ "$1" != kernel ] || [ $rate -ge 100000 ] ||
		echo "MEASURED: $1 flood at $rate alerts/s under TCG, below the 100000/s of the issue" |
		tee -a "$VM_OUT/flood.txt"
	[ "$gen" = $((w + ksup + kdrop)) ] ||
		fail "$1: kernel: generated $gen != written $w + suppressed $ksup + dropped $kdrop"
	pass "$1: kernel: $gen generated = $w written + $ksup suppressed + $kdrop dropped"

	# latencyd drains what is left; then every record written is read or reported lost.
	i=0
	while :; do
		status
		[ $(($(num alerts) - a0 + $(num lost) - l0)) = $w ] && break
		i=$((i + 1))
		[ $i -lt 600 ] || fail "$1: latencyd read $(($(num alerts) - a0)) + lost $(($(num lost) - l0)) of $w records"
		sleep 0.1
	done
	t2=$(cs) c2=$(ticks)
	cp $D/status.json "$VM_OUT/status-$1.json"
	alerts=$(($(num alerts) - a0)) lost=$(($(num lost) - l0))
	[ "$(num alerts)" = $(($(num causes) + $(num suppressed))) ] ||
		fail "$1: latencyd: alerts $(num alerts) != causes $(num causes) + suppressed $(num suppressed)"
	pass "$1: latencyd: $alerts records read + $lost lost = $w written; alerts = causes + suppressed"

	snaps=$(($(num snapshots) + $(num failed) - sn0))
	max=$((BURST + RATE * (t2 - t0 + 99) / 100 + 1))
	[ "$snaps" -ge 1 ] && [ "$snaps" -le $max ] ||
		fail "$1: $snaps snapshots in $(((t2 - t0) / 100)) s, the rate limit allows $max"
	[ "$(num failed)" = 0 ] || fail "$1: $(num failed) snapshots failed"
	# Suppressed counts reach the catalog file within one check period (3 s).
	i=0
	while :; do
		total=$(sed -n '/"suppressed": *{/,/}/s/^ *"total": *\([0-9]*\).*/\1/p' $D/catalog.json)
		[ "$total" = "$(num suppressed)" ] && break
		i=$((i + 1))
		[ $i -lt 100 ] || fail "$1: catalog: suppressed total $total, counters $(num suppressed)"
		sleep 0.1
	done
	cp $D/catalog.json "$VM_OUT/catalog-$1.json"
	complete=$(grep -c '"status": *"complete"' $D/catalog.json)
	[ "$complete" = "$(num snapshots)" ] ||
		fail "$1: catalog: $complete complete entries, $(num snapshots) snapshots"
	pass "$1: $snaps snapshots (rate limit allows $max); the catalog holds them and $total suppressed alerts in all"

	cpu=$((c2 - c0)) wall=$((t2 - t0))
	hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$LPID/status)
	echo "$1: latencyd: $cpu cs of CPU over $wall cs (flood + drain, $((cpu * 100 / wall))% of one CPU);" \
		"flood only $((c1 - c0)) cs over $((t1 - t0)) cs; peak RSS $hwm kB;" \
		"log $(wc -l <$D/latencyd.log) lines" | tee -a "$VM_OUT/flood.txt"
	for t in /proc/$LPID/task/*; do
		echo "  thread $(cat $t/comm): $(awk '{ print $14 + $15 " cs (user " $14 ", system " $15 ")" }' $t/stat)"
	done | tee -a "$VM_OUT/flood.txt"
	alert_path=$(($(thread_cs latencyd) + $(thread_cs latencyd-waiter) - p0))
	per_alert_ns=$((alert_path * 10000000 / alerts))
	echo "MEASURED: $1: alert path (main loop + waiter): $alert_path cs," \
		"$((per_alert_ns / 1000)) us of CPU per alert, $((alert_path * 100 / wall))% of one CPU," \
		"$((alert_path * 10 / snaps)) ms per snapshot" | tee -a "$VM_OUT/flood.txt"
	# What each alert read may cost: half the flooding program's CPU per call, when one ran.
	per_alert_allow_cs=0
	if [ -n "$gen_cpu_ms" ] && [ "$gen_cpu_ms" -gt 0 ]; then
		h=$((per_alert_ns * calls / (gen_cpu_ms * 10000))) # hundredths
		echo "MEASURED: $1: the alert path's CPU per alert is $((h / 100)).$((h % 100 / 10))$((h % 10))" \
			"of the flooding program's per call ($((gen_cpu_ms * 1000 / calls)) us)" |
			tee -a "$VM_OUT/flood.txt"
		per_alert_allow_cs=$((alerts * gen_cpu_ms / (calls * 20)))
	fi
	eval "PATH_CS_$1=$alert_path SNAPS_$1=$snaps ALERTS_ALLOW_CS_$1=$per_alert_allow_cs"
}

flood syscalls
echo 0 >$S/syscalls/enabled || fail "disable syscalls"

# The self-test tracker without stack capture (it can change only while disabled).
modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
echo 0 >$S/selftest/enabled && echo none >$S/selftest/stack && echo 1 >$S/selftest/enabled ||
	fail "selftest tracker without stacks"
echo 200 >$S/alert_rate_per_s && echo 200 >$S/alert_burst || fail "the module's default limit"
flood kernel

# The snapshot readers (history window, analysis). First they catch up with the floods'
# snapshots (each with its history, and its analysis or "skipped": the analysis queue is
# bounded) ...
# The threads' own CPU, and the latencyd-reader processes they spawned and reaped (each
# snapshot is read in one: latencyd's only children here).
readers_cs() {
	sum=$(awk '{ print $16 + $17 }' /proc/$LPID/stat)
	for t in $READERS; do sum=$((sum + $(thread_cs $t))); done
	echo $sum
}
i=0
while :; do
	complete=$(grep -c '"status": *"complete"' $D/catalog.json)
	measured=$(grep -c '"window_ns"' $D/catalog.json)
	analysed=$(grep -c '"analysis_ms"' $D/catalog.json)
	skipped=$(grep -c '"status": *"skipped"' $D/catalog.json)
	[ "$measured" = "$complete" ] && [ $((analysed + skipped)) = "$complete" ] && break
	i=$((i + 1))
	[ $i -lt 600 ] || fail "readers: $measured measured, $analysed analysed + $skipped skipped of $complete snapshots"
	sleep 0.5
done
echo "snapshot readers after the floods: $(readers_cs) cs of CPU;" \
	"$complete snapshots: $measured measured, $analysed analysed, $skipped analyses skipped" |
	tee -a "$VM_OUT/flood.txt"
# ... then their CPU per snapshot, each read whole: READ_N snapshots of the buffers the
# floods filled, recorded one at a time (latencyctl record), each waited for until its
# entry has its history and its analysis.
reader_threads() {
	for t in $READERS; do echo "$t $(thread_cs $t)"; done
	echo "children $(awk '{ print $16 + $17 }' /proc/$LPID/stat)"
}
reader_threads >$D/readers0.txt
r0=$(readers_cs) n=0 bytes=0 events=0
while [ $n -lt $READ_N ]; do
	sleep 1.1 # a token for the record
	ctl record --reason "snapshot readers' CPU" >$D/rec.txt || fail "latencyctl record: $(cat $D/rec.txt)"
	id=$(sed -n 's/^Snapshot \([0-9]*\) recorded.*/\1/p' $D/rec.txt)
	i=0
	until ctl --json show-snapshot "$id" >$D/show.json && grep -q '"window_ns"' $D/show.json &&
		grep -q '"analysis_ms"' $D/show.json; do
		i=$((i + 1))
		[ $i -lt 600 ] || fail "snapshot $id not read in 60 s: $(cat $D/show.json)"
		sleep 0.1
	done
	# The entry's size, then its history's event count (the first of each).
	bytes=$((bytes + $(sed -n 's/^ *"bytes": *\([0-9]*\).*/\1/p' $D/show.json | head -n1)))
	events=$((events + $(sed -n 's/^ *"events": *\([0-9]*\).*/\1/p' $D/show.json | head -n1)))
	n=$((n + 1))
done
cpu=$(($(readers_cs) - r0))
per_ms=$((cpu * 10 / READ_N)) per_event_ns=$((cpu * 10000000 / events))
threads=$(reader_threads | while read -r t c; do
	echo "$t $((c - $(sed -n "s/^$t //p" $D/readers0.txt))) cs,"
done)
echo "MEASURED: snapshot readers:" $threads "for $READ_N snapshots of $((bytes / READ_N / 1024)) KiB," \
	"$((events / READ_N)) events: $per_ms ms of CPU per snapshot, $((per_event_ns / 1000)) us per event" \
	"(history window and analysis)" | tee -a "$VM_OUT/flood.txt"
[ $per_event_ns -lt $((READER_US_MAX * 1000)) ] ||
	fail "the snapshot readers used $((per_event_ns / 1000)) us of CPU per event, not below $READER_US_MAX"
pass "snapshot readers: $((per_event_ns / 1000)) us of CPU per event read (below $READER_US_MAX)"
for phase in syscalls kernel; do
	eval "path_cs=\$PATH_CS_$phase snaps=\$SNAPS_$phase alerts_cs=\$ALERTS_ALLOW_CS_$phase"
	allow_cs=$((snaps * per_ms / 10 + alerts_cs))
	[ "$path_cs" -lt $allow_cs ] ||
		fail "$phase: the alert path used $path_cs cs of CPU, not below $allow_cs cs: $snaps" \
			"snapshots read once ($per_ms ms each) and $alerts_cs cs for its alerts"
	pass "$phase: the alert path used $path_cs cs of CPU, $((path_cs * 100 / allow_cs))% of" \
		"$allow_cs cs: $snaps snapshots read once ($per_ms ms each) and $alerts_cs cs for its alerts"
done
for t in $READERS; do
	[ "$(thread_nice $t)" = 10 ] || fail "$t runs at nice $(thread_nice $t), not 10"
done
pass "the threads that read snapshots run at nice 10"

kill -TERM $LPID
wait $LPID || fail "latencyd exited with $?"
tail -n 5 $D/latencyd.log
