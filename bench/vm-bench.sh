# vm-options: --timeout 3600 --smp 2 --mem 2G
# The product benchmarks of bench/README.md, run inside the test VM. Run through bench/run
# (which also writes bench/RESULTS.md), or alone:
#   tests/vm/vm-run --out DIR bench/vm-bench.sh [PART...] [NAME=VALUE...]
# PART: overhead, detect, record, idle, history (default: all five, in that order).
# NAME=VALUE sets a size: rounds, reps (runs of a load per configuration and round, the
# shortest kept), hb_groups, hb_pairs, hb_loops, hbl_loops (the long, switch-heavy
# hackbench; 0: not run), sc_iter (overhead);
# detect_blocks, detect_n, detect_warmup (detect); record_n (record); idle_s (idle); load_s (history).
# Raw results land in DIR: overhead.tsv (and the peers' checks overhead-ebpf.txt,
# overhead-lttng.txt), detect.tsv, record.tsv, idle.tsv, history.tsv,
# and the snapshots they were measured on under DIR/snapshots/ (bench/report reads them
# with babeltrace2 on the host).
. "$VM_IN/scenarios/guest-lib.sh"

parts="" rounds=15 reps=3 hb_groups=2 hb_pairs=5 hb_loops=200 hbl_loops=1000 sc_iter=40000
detect_blocks=8 detect_n=25 detect_warmup=10 record_n=12 idle_s=60 load_s=20
for a in "$@"; do
	case $a in
	overhead | detect | record | idle | history) parts="$parts $a" ;;
	rounds=* | reps=* | hb_groups=* | hb_pairs=* | hb_loops=* | hbl_loops=* | sc_iter=* | \
		detect_blocks=* | detect_n=* | detect_warmup=* | record_n=* | idle_s=* | load_s=*)
		v=${a#*=}
		case $v in '' | *[!0-9]*) fail "vm-bench: $a: not a number" ;; esac
		eval "${a%%=*}=$v"
		;;
	*) fail "vm-bench: unknown part or setting: $a" ;;
	esac
done
[ "$reps" -ge 1 ] || fail "vm-bench: reps=$reps: at least one run is needed"
parts=${parts:-overhead detect record idle history}

D=/tmp/latencyd
O=$VM_OUT
TRACKERS="syscalls wakeup offcpu block irq net app"
NCPU=$(grep -c ^processor /proc/cpuinfo)
mkdir -p $D $O/snapshots
# Thresholds of 1 h (3600s, the largest): the overhead part measures what tracking costs,
# not alerts and snapshots (a 1 s threshold already fires on every longer poll() or sleep
# in the VM). No rate limit: the detect part records every alert it raises.
cat >$D/latencyd.conf <<CONF
control: { socket = "$D/ctl.sock"; };
output: { directory = "$D/snapshots"; };
catalog: { directory = "$D"; };
ratelimit: { rate = 0.0; burst = 1; };
retention: { max_count = 0; max_bytes = 0; max_age = 0; };
trackers: {
$(for t in $TRACKERS; do echo "	$t: { threshold = \"3600s\"; };"; done)
};
CONF
lc() { latencyctl -s $D/ctl.sock "$@"; }

# The modules stay loaded between latencyd's runs: a disabled tracker registers no probe,
# so "no latencyd" is the baseline without paying a module load per round.
modprobe latency_tracker || fail "modprobe latency_tracker"
for t in $TRACKERS; do modprobe "latency_tracker_$t" || fail "modprobe latency_tracker_$t"; done
start_sessiond

LPID=
# status_wait REGEX TENTHS WHAT: waits until latencyd's status (JSON) matches REGEX.
status_wait() {
	local i=0
	until lc --json status 2>/dev/null | grep -q "$1"; do
		i=$((i + 1))
		[ $i -lt "$2" ] || { cat $D/latencyd.log; fail "$3"; }
		sleep 0.1
	done
}
latencyd_start() {
	[ -n "$LPID" ] && return
	latencyd -c $D/latencyd.conf 2>>$D/latencyd.log &
	LPID=$!
	status_wait '"state": *"recording"' 300 "latencyd does not record"
}
latencyd_stop() {
	[ -n "$LPID" ] || return
	kill -TERM "$LPID"
	wait "$LPID" || { cat $D/latencyd.log; fail "latencyd exited with an error"; }
	LPID=
}
# Prints the snapshot directories of $1, one a line.
snaps() { ls "$1" 2>/dev/null | sort; }
# new_snap DIR BEFORE: waits (up to 60 s) for a directory of DIR not in BEFORE; prints it.
new_snap() {
	local i=0 n
	while :; do
		n=$(snaps "$1" | grep -vxF "$2" | head -n1)
		[ -n "$n" ] && { echo "$n"; return 0; }
		i=$((i + 1))
		[ $i -lt 1200 ] || return 1
		sleep 0.05
	done
}
# catalog_field ID KEY: a number from latencyctl --json show-snapshot ID.
catalog_field() {
	lc --json show-snapshot "$1" | sed -n "s/.*\"$2\": *\([0-9]*\).*/\1/p" | head -n1
}
# waits until latencyd's snapshot ID is complete
wait_complete() {
	local i=0
	until lc --json show-snapshot "$1" 2>/dev/null | grep -q '"status": *"complete"'; do
		i=$((i + 1))
		[ $i -lt 600 ] || fail "snapshot $1 never completed"
		sleep 0.05
	done
}
snap_id() { echo "$1" | sed -n 's/^snap-\([0-9]*\)-.*/\1/p'; }
HOGS=
hogs_start() {
	local c
	for c in $(seq 1 "$NCPU"); do
		sh -c 'while :; do :; done' &
		HOGS="$HOGS $!"
	done
}
hogs_stop() {
	[ -n "$HOGS" ] && kill $HOGS && wait $HOGS 2>/dev/null
	HOGS=
}

# 1. Overhead: the same loads under every configuration, interleaved round by round (the
# order reversed every other round so that no configuration always runs first). Next to
# latencyd's, the peers a user would pick instead of the syscalls tracker, latencyd stopped:
# the tracker alone (sysfs, no session), an eBPF hash-map program (bench-ebpf-syscalls) and
# an LTTng flight-recorder session of every system call.
PEER_SESSION=peer-syscalls
# trackers_only NAME: every tracker disabled but NAME (all: every one; none: none).
trackers_only() {
	for t in $TRACKERS; do
		want=0
		[ "$1" = all ] || [ "$1" = "$t" ] && want=1
		echo $want >/sys/kernel/latency_tracker/$t/enabled || fail "enable $t"
	done
}
EPID=
ebpf_start() {
	rm -f $D/ebpf.ready
	bench-ebpf-syscalls --threshold-us 3600000000 --ready-file $D/ebpf.ready \
		>$D/ebpf.out 2>$D/ebpf.err &
	EPID=$!
	local i=0
	until [ -f $D/ebpf.ready ]; do
		i=$((i + 1))
		kill -0 $EPID 2>/dev/null || { cat $D/ebpf.err; fail "bench-ebpf-syscalls exited"; }
		[ $i -lt 600 ] || fail "bench-ebpf-syscalls not ready after 60 s"
		sleep 0.1
	done
}
ebpf_stop() {
	kill -TERM $EPID
	wait $EPID || { cat $D/ebpf.err; fail "bench-ebpf-syscalls exited with an error"; }
	EPID=
	echo "$1 $(head -n1 $D/ebpf.out)" >>$O/overhead-ebpf.txt
}
# best_of COMMAND...: the shortest of $reps runs. Whatever else the host runs only ever
# slows a run down, so the shortest is the least disturbed: TCG spreads single runs of
# hackbench by tens of percent, more than a tracker's whole cost.
best_of() {
	local best="" t i=0
	while [ $i -lt "$reps" ]; do
		t=$("$@") || fail "$*"
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
		i=$((i + 1))
	done
	echo "$best"
}
part_overhead() {
	# syscalls-hist: syscalls-alone plus its histogram by system call (hist/per syscall),
	# side by side with it for the cost of the keyed buckets.
	local peers="syscalls-alone syscalls-hist ebpf-syscalls lttng-syscalls"
	if ! command -v bench-ebpf-syscalls >/dev/null; then
		echo "bench-ebpf-syscalls is not in the VM (bench/ebpf not built: see CMake's" \
			"message): no ebpf-syscalls configuration"
		peers="syscalls-alone syscalls-hist lttng-syscalls"
	fi
	# The configurations without latencyd side by side: latencyd starts once a round.
	configs="baseline $peers session $TRACKERS all"
	rev=$(for c in $configs; do echo "$c"; done | sed -n '1!G;h;$p' | tr '\n' ' ')
	echo "== overhead: $rounds rounds of bench-hackbench $hb_groups $hb_pairs $hb_loops" \
		"(and $hbl_loops loops, hackbench-long) and bench-syscalls $sc_iter, each the" \
		"shortest of $reps runs, under: $configs"
	# latencyd's channel (session.subbuf_size, num_subbuf, mmap), every system call.
	rm -rf $D/peer-snap
	lttng create $PEER_SESSION --snapshot --output $D/peer-snap >/dev/null || fail "lttng create"
	lttng enable-channel -k -s $PEER_SESSION --overwrite --subbuf-size=262144 --num-subbuf=4 \
		--output=mmap chan >/dev/null || fail "lttng enable-channel"
	lttng enable-event -k -s $PEER_SESSION -c chan --syscall -a >/dev/null ||
		fail "lttng enable-event --syscall -a"
	bench-hackbench $hb_groups $hb_pairs $hb_loops >/dev/null # warm caches
	bench-syscalls $sc_iter >/dev/null
	: >$O/overhead.tsv
	: >$O/overhead-ebpf.txt
	r=1
	while [ $r -le "$rounds" ]; do
		order=$configs
		[ $((r % 2)) = 0 ] && order=$rev
		for c in $order; do
			case $c in
			baseline)
				latencyd_stop
				trackers_only none
				;;
			syscalls-alone | syscalls-hist)
				latencyd_stop
				# What latencyd writes from its configuration (trackers.syscalls).
				echo 3600000000000 >/sys/kernel/latency_tracker/syscalls/threshold_ns ||
					fail "syscalls threshold_ns"
				[ $c = syscalls-alone ] ||
					echo syscall >/sys/kernel/latency_tracker/syscalls/hist/per ||
					fail "syscalls hist/per"
				trackers_only syscalls
				;;
			ebpf-syscalls)
				latencyd_stop
				trackers_only none
				ebpf_start
				;;
			lttng-syscalls)
				latencyd_stop
				trackers_only none
				lttng start $PEER_SESSION >/dev/null || fail "lttng start $PEER_SESSION"
				;;
			*)
				latencyd_start
				# The sysfs files latencyctl enable/disable write through latencyd:
				# switching takes milliseconds, so the configurations stay close in time.
				trackers_only $c
				;;
			esac
			hb=$(best_of bench-hackbench $hb_groups $hb_pairs $hb_loops)
			sc=$(best_of bench-syscalls $sc_iter)
			# Longer: senders block on full sockets, many more switches per message.
			hbl=0
			[ "$hbl_loops" = 0 ] || hbl=$(best_of bench-hackbench $hb_groups $hb_pairs $hbl_loops)
			case $c in
			syscalls-alone) trackers_only none ;;
			syscalls-hist)
				trackers_only none
				echo none >/sys/kernel/latency_tracker/syscalls/hist/per ||
					fail "syscalls hist/per none"
				;;
			ebpf-syscalls) ebpf_stop $r ;;
			lttng-syscalls) lttng stop $PEER_SESSION >/dev/null || fail "lttng stop $PEER_SESSION" ;;
			esac
			{
				printf '%s\t%s\thackbench\t%s\n%s\t%s\tsyscalls\t%s\n' $r $c "$hb" $r $c "$sc"
				[ "$hbl" = 0 ] || printf '%s\t%s\thackbench-long\t%s\n' $r $c "$hbl"
			} | tee -a $O/overhead.tsv
		done
		r=$((r + 1))
	done
	# That the LTTng peer did record the system calls (its buffers still hold the end of the
	# last round: hackbench-long's reads and writes when it runs, else the loop's getppid).
	lttng snapshot record -s $PEER_SESSION >/dev/null || fail "lttng snapshot record $PEER_SESSION"
	n=$(read_trace $D/peer-snap | grep -c 'syscall_entry_')
	echo "lttng-syscalls: $n system call entries in the last round's snapshot" |
		tee $O/overhead-lttng.txt
	[ "$n" -gt 0 ] || fail "the lttng-syscalls session recorded no system call"
	lttng destroy $PEER_SESSION >/dev/null || fail "lttng destroy $PEER_SESSION"
	rm -rf $D/peer-snap
	latencyd_start
	lc --json status >$O/overhead-status.json
	lc trackers >$O/overhead-trackers.txt
	trackers_only none
}

# 2. Detection to snapshot, latencyd's waiter and LTTng's own trigger on the same session
# (latencyd's), in alternating blocks of alerts from the self-test tracker. latencyd is
# stopped (SIGSTOP) during a trigger block, so that the two never record at once; when it
# continues it records the alerts it missed as one snapshot, which is not measured.
# The steps of each record are read from a second kernel session, "steps", streamed for the
# whole part: every alert, wakeup, switch, migration and interrupt, and the system calls and
# page faults of the threads on both paths, with each event's thread. bench/report pairs
# the k-th alert in it with the k-th line of detect.tsv (the alerts are raised one at a
# time, nothing else alerts). It is written in the VM's memory and copied out at the end:
# streamed to the host's share (9p), its writes would hold qemu's big lock, which every
# reading of this VM's clock (an HPET) needs, and stall the very paths being timed. After
# each alert the bench sleeps before it polls for the snapshot, so that its own processes
# stay out of the measured milliseconds.
steps_start() {
	rm -rf $D/steps
	lttng create steps --output=$D/steps >/dev/null || fail "lttng create steps"
	lttng enable-channel -k -s steps --subbuf-size=1M --num-subbuf=8 steps >/dev/null ||
		fail "lttng enable-channel steps"
	lttng enable-event -k -s steps -c steps \
		latency_tracker_alert,sched_waking,sched_switch,sched_migrate_task,irq_handler_entry,irq_handler_exit,irq_softirq_entry,irq_softirq_exit >/dev/null ||
		fail "lttng enable-event steps"
	# Every system call and page fault of the threads on the two paths, and the calls that
	# carry the request whoever makes them.
	lttng enable-event -k -s steps -c steps --syscall --all --filter \
		'$ctx.procname == "latencyd-waiter" || $ctx.procname == "Client manageme" || $ctx.procname == "Action Executor" || $ctx.procname == "Notification" || $ctx.procname == "lttng-runas"' \
		>/dev/null || fail "lttng enable-event --syscall steps"
	lttng enable-event -k -s steps -c steps x86_exceptions_page_fault_user --filter \
		'$ctx.procname == "latencyd-waiter" || $ctx.procname == "Client manageme" || $ctx.procname == "Action Executor" || $ctx.procname == "Notification" || $ctx.procname == "lttng-runas"' \
		>/dev/null || fail "lttng enable-event page faults steps"
	lttng add-context -k -s steps -c steps -t procname -t tid >/dev/null ||
		fail "lttng add-context steps"
	lttng start steps >/dev/null || fail "lttng start steps"
}
steps_stop() {
	lttng stop steps >/dev/null || fail "lttng stop steps"
	lttng destroy steps >/dev/null || fail "lttng destroy steps"
	cp -r $D/steps $O/steps || fail "cannot copy the steps trace out"
}
detect_block_latencyd() {
	kill -CONT "$LPID"
	k=0
	while [ $k -lt 100 ] && [ "$(snaps $D/snapshots | wc -l)" != "$expect" ]; do
		k=$((k + 1))
		sleep 0.1
	done
	last=$(snaps $D/snapshots | tail -n1)
	[ -n "$last" ] && wait_complete "$(snap_id "$last")"
	i=1
	while [ $i -le "$detect_n" ]; do
		before=$(snaps $D/snapshots)
		echo "threshold 1" >$ST/emit || fail "emit"
		sleep 0.3
		s=$(new_snap $D/snapshots "$before") || fail "no snapshot from latencyd"
		id=$(snap_id "$s")
		wait_complete "$id"
		printf '%s\tlatencyd\t%s\t%s\t%s\t%s\t%s\n' "$1" "$s" "$(catalog_field $id detect_to_record_ns)" \
			"$(catalog_field $id wakeup_to_record_ns)" "$(catalog_field $id record_ns)" \
			"$(cat /proc/loadavg | cut -d' ' -f1)" >>$O/detect.tsv
		rm -rf "${D:?}/snapshots/$s" # hundreds of them would not fit in the VM
		sleep 0.2
		i=$((i + 1))
	done
	expect=$(snaps $D/snapshots | wc -l)
	expect=$((expect + 1))
	kill -STOP "$LPID"
}
detect_block_trigger() {
	lttng add-trigger --name=bench-alert --condition=event-rule-matches --type=kernel \
		--name=latency_tracker_alert --action=snapshot-session latencyd >/dev/null ||
		fail "lttng add-trigger"
	i=1
	while [ $i -le "$detect_n" ]; do
		before=$(snaps $D/snapshots)
		echo "threshold 1" >$ST/emit || fail "emit"
		sleep 0.3
		s=$(new_snap $D/snapshots "$before") || fail "no snapshot from the trigger"
		# No completion signal from a trigger: wait for every stream file, then a margin.
		k=0
		until [ "$(find $D/snapshots/$s -name 'flight_*' ! -name '*.idx' | wc -l)" -ge "$NCPU" ] &&
			[ -n "$(find $D/snapshots/$s -name metadata)" ]; do
			k=$((k + 1))
			[ $k -lt 600 ] || fail "trigger snapshot $s incomplete"
			sleep 0.05
		done
		sleep 0.5
		printf '%s\ttrigger\t%s\t\t\t\t%s\n' "$1" "$s" "$(cut -d' ' -f1 /proc/loadavg)" >>$O/detect.tsv
		rm -rf "${D:?}/snapshots/$s"
		sleep 0.2
		i=$((i + 1))
	done
	lttng remove-trigger bench-alert >/dev/null || fail "lttng remove-trigger"
}
part_detect() {
	ST=/sys/kernel/latency_tracker_selftest
	echo "== detect: $detect_blocks x ($detect_n alerts to latencyd, $detect_n to an LTTng" \
		"trigger), idle then with $NCPU busy-loop hogs"
	modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
	latencyd_start
	# The trigger's snapshots go to the session's output, latencyd's directory, as lttng-*.
	: >$O/detect.tsv
	rm -rf $O/snapshots/idle-* $O/snapshots/busy-* $O/steps # a previous run's
	expect=$(snaps $D/snapshots | wc -l)
	kill -STOP "$LPID"
	# Warm-up, not counted: under TCG the first run of a code path is translated, 10-20
	# times its later cost (a run's first alerts took 3-8 ms where the rest took under 2),
	# which hardware does not pay; both paths get the same.
	if [ "$detect_warmup" -gt 0 ]; then
		n=$detect_n
		detect_n=$detect_warmup
		detect_block_latencyd warmup
		detect_block_trigger warmup
		detect_n=$n
		: >$O/detect.tsv
	fi
	steps_start
	for cond in idle busy; do
		[ $cond = busy ] && hogs_start
		b=1
		while [ $b -le "$detect_blocks" ]; do
			detect_block_latencyd $cond
			detect_block_trigger $cond
			b=$((b + 1))
		done
		hogs_stop
	done
	steps_stop
	kill -CONT "$LPID"
	sleep 1
	rmmod latency_tracker_selftest
	wc -l <$O/detect.tsv
}
part_record() {
	echo "== record: $record_n x (latencyctl record, lttng snapshot record, lttng --version)"
	latencyd_start
	: >$O/record.tsv
	i=1
	while [ $i -le "$record_n" ]; do
		before=$(snaps $D/snapshots)
		lc record --reason bench >/dev/null || fail "latencyctl record"
		s=$(new_snap $D/snapshots "$before") || fail "no snapshot"
		id=$(snap_id "$s")
		wait_complete "$id"
		printf '%s\tlatencyd\t%s\n' $i "$(catalog_field $id record_ns)" | tee -a $O/record.tsv
		t=$(bench-time lttng snapshot record -s latencyd) || fail "lttng snapshot record"
		printf '%s\tlttng-cli\t%s\n' $i "$t" | tee -a $O/record.tsv
		t=$(bench-time lttng --version) || fail "lttng --version"
		printf '%s\tlttng-startup\t%s\n' $i "$t" | tee -a $O/record.tsv
		sleep 0.2
		i=$((i + 1))
	done
	# The CLI's records went to the session's output, latencyd's directory, as lttng-*.
	du -skc $D/snapshots/lttng-* | tail -n1 | cut -f1 >$O/record-cli-kib.txt
	rm -rf $D/snapshots/lttng-*
}

# The process named $1 with the most threads (not its run-as helper).
main_pid() {
	local p best= most=0 n
	for p in $(pidof "$1"); do
		n=$(ls /proc/$p/task | wc -l)
		[ "$n" -gt "$most" ] && most=$n best=$p
	done
	echo "$best"
}
# Sums a /proc status field over every thread of process $1.
task_sum() {
	cat /proc/$1/task/*/status 2>/dev/null | awk -v k="$2:" '$1 == k { s += $2 } END { print s + 0 }'
}
wakeups() { echo $(($(task_sum $1 voluntary_ctxt_switches) + $(task_sum $1 nonvoluntary_ctxt_switches))); }

# 4. Idle cost: latencyd's context switches (each one a wakeup) and memory while nothing
# happens, next to lttng-sessiond's and the consumer daemon's over the same interval.
# 5. History: snapshots after that idle time and under load, read on the host.
part_idle() {
	echo "== idle: $idle_s s with nothing happening"
	latencyd_stop
	# latencyd keeps its catalog in memory: idle is measured as a new host has it, with an
	# empty one; the earlier parts' catalog is set aside and measured on its own below.
	entries=$(grep -c '"name": *"snap-' $D/catalog.json 2>/dev/null)
	mv $D/catalog.json $D/catalog.earlier 2>/dev/null
	latencyd_start
	sessiond=$(main_pid lttng-sessiond)
	consumerd=$(main_pid lttng-consumerd)
	# Idle starts once the calibration record (10 s after start) is done and read.
	status_wait '"source": *"calibration"' 600 "no calibration record after 60 s"
	sleep 1
	l0=$(wakeups $LPID) s0=$(wakeups $sessiond) c0=$(wakeups $consumerd)
	t0=$(bench-time -n)
	sleep "$idle_s"
	l1=$(wakeups $LPID) s1=$(wakeups $sessiond) c1=$(wakeups $consumerd)
	t1=$(bench-time -n)
	{
		printf 'seconds\t%s\n' "$(((t1 - t0) / 1000000))e-3"
		printf 'latencyd_switches\t%s\n' $((l1 - l0))
		printf 'sessiond_switches\t%s\n' $((s1 - s0))
		printf 'consumerd_switches\t%s\n' $((c1 - c0))
		printf 'latencyd_threads\t%s\n' "$(ls /proc/$LPID/task | wc -l)"
		for k in VmRSS VmHWM VmLck; do
			printf 'latencyd_%s_kib\t%s\n' $k "$(awk -v k="$k:" '$1 == k { print $2 }' /proc/$LPID/status)"
		done
		printf 'latencyd_Pss_kib\t%s\n' "$(awk '$1 == "Pss:" { print $2 }' /proc/$LPID/smaps_rollup)"
		for p in sessiond consumerd; do
			eval pid=\$$p
			printf '%s_VmRSS_kib\t%s\n' $p "$(awk '$1 == "VmRSS:" { print $2 }' /proc/$pid/status)"
		done
	} | tee $O/idle.tsv
	# The same without realtime.lock_memory (mlockall), which the default turns on.
	latencyd_stop
	{ cat $D/latencyd.conf; echo 'realtime: { lock_memory = false; };'; } >$D/nolock.conf
	latencyd -c $D/nolock.conf 2>>$D/latencyd.log &
	p=$!
	sleep 12 # past the calibration (10 s), as the measure above
	printf 'nolock_VmRSS_kib\t%s\nnolock_Pss_kib\t%s\n' \
		"$(awk '$1 == "VmRSS:" { print $2 }' /proc/$p/status)" \
		"$(awk '$1 == "Pss:" { print $2 }' /proc/$p/smaps_rollup)" | tee -a $O/idle.tsv
	kill -TERM $p
	wait $p
	# The same with the catalog of the earlier parts' snapshots.
	[ -f $D/catalog.earlier ] && mv $D/catalog.earlier $D/catalog.json
	latencyd -c $D/latencyd.conf 2>>$D/latencyd.log &
	p=$!
	sleep 12
	printf 'catalog_entries\t%s\ncatalog_bytes\t%s\ncatalog_VmRSS_kib\t%s\ncatalog_Pss_kib\t%s\n' \
		"${entries:-0}" "$(wc -c <$D/catalog.json 2>/dev/null || echo 0)" \
		"$(awk '$1 == "VmRSS:" { print $2 }' /proc/$p/status)" \
		"$(awk '$1 == "Pss:" { print $2 }' /proc/$p/smaps_rollup)" | tee -a $O/idle.tsv
	kill -TERM $p
	wait $p
	latencyd_start
	sleep "$idle_s"
}
part_history() {
	echo "== history: a snapshot of the idle session, then one after $load_s s of load"
	[ -n "$LPID" ] || { latencyd_start; sleep "$idle_s"; }
	: >$O/history.tsv
	rm -rf $O/snapshots/history-* # a previous run's
	for cond in idle loaded; do
		if [ $cond = loaded ]; then
			(
				end=$(($(bench-time -n) + load_s * 1000000000))
				while [ "$(bench-time -n)" -lt $end ]; do
					bench-hackbench $hb_groups $hb_pairs $hb_loops >/dev/null
				done
			) &
			load=$!
			sleep "$load_s"
		fi
		before=$(snaps $D/snapshots)
		lc record --reason "history $cond" >/dev/null || fail "latencyctl record"
		s=$(new_snap $D/snapshots "$before") || fail "no snapshot"
		wait_complete "$(snap_id "$s")"
		[ $cond = loaded ] && wait $load
		printf '%s\t%s\t%s\n' $cond "$s" "$(cut -d' ' -f1 /proc/loadavg)" | tee -a $O/history.tsv
		cp -r "$D/snapshots/$s" "$O/snapshots/history-$cond-$s"
	done
	lc --json status >$O/history-status.json
}

echo "== $(uname -r), $NCPU vCPUs, parts:$parts"
uname -r >$O/kernel.txt
printf 'rounds=%s reps=%s hb="%s %s %s" hbl_loops=%s sc_iter=%s detect_blocks=%s detect_n=%s detect_warmup=%s record_n=%s idle_s=%s load_s=%s\n' \
	$rounds $reps $hb_groups $hb_pairs $hb_loops $hbl_loops $sc_iter $detect_blocks $detect_n $detect_warmup \
	$record_n $idle_s $load_s >$O/settings.txt
for p in $parts; do
	date -u '+%Y-%m-%d %H:%M UTC' >$O/$p.date
	cp $O/settings.txt $O/$p.settings
	"part_$p"
done
latencyd_stop
cp $D/latencyd.log $D/catalog.json $D/latencyd.conf $O/ 2>/dev/null
pass "benchmark parts done:$parts"
