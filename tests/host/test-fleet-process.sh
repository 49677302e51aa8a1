#!/bin/bash
# The fleet's network parsing runs without root (#26): latencyd-fleet, started by latencyd.
# Two latencyd (h1 with the default fleet.user, h2 with fleet.user = "daemon"), a real
# mosquitto and lttng-relayd on 127.0.0.1.
# - the helper runs as the account (nobody when fleet.user does not exist, said once), with
#   no capability, no_new_privs, and libmosquitto and libssl mapped there, not in latencyd;
#   none of latencyd's descriptors (one without close-on-exec given to latencyd here) and
#   realtime, nice and memlock limits of 0 whatever latencyd's;
# - killed (SIGABRT, a failed assertion's: the sanitizer build would catch a SIGSEGV and
#   exit), it is started again and reconnects; an alert meanwhile is recorded locally, and
#   published once it is back (within fleet.max_age);
# - stopped (SIGSTOP), its heartbeat stops: killed after 10 s of silence, it comes back;
# - a 64 MiB message on the group's alert topic, with no size limit in the broker, never
#   reaches it (its MQTT maximum packet size, asked again when it reconnects): its memory
#   stays small, it stays connected and its host records a peer's next alert;
# - killed six times while its host records back to back: each new one holds only its own
#   descriptors (none of liblttng-ctl's sockets or libbabeltrace2's trace files).
# latencyd runs as root here, as in production: in a mount namespace of its own with /run
# on a tmpfs, so that the root lttng-sessiond it needs is this test's, not the machine's.
# Usage: test-fleet-process.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP   (as root)
set -u
if [ -z "${FLEET_PROCESS_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "SKIP: latencyd must run as root to drop root in its fleet process"; exit 77; }
	exec unshare --mount --propagation private env FLEET_PROCESS_NS=1 "$0" "$@"
fi
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
mount -t tmpfs -o mode=755 tmpfs /run || fail "cannot mount a tmpfs on /run in the namespace"
export LTTNG_HOME=$T/home LATENCYD_TEST_RELAYD_URL="" FLEET_SHARED_SESSIOND=1
mkdir -p "$LTTNG_HOME"
lttng-sessiond --no-kernel --background >"$T/sessiond.log" 2>&1 || fail "root sessiond: $(cat "$T/sessiond.log")"
. "$(dirname "$0")/fleet-lib.sh"
PIDS+=("$(cat /run/lttng/lttng-sessiond.pid)")
start_fleet_broker

helper() { ctl "$1" --json status | jq -r .fleet.process.pid; }
# The same while NODE records back to back, when a status read may time out: read until
# one answers with a pid (empty after 10 s).
helper_busy() {
	local pid
	for _ in $(seq 100); do
		pid=$(helper "$1" 2>/dev/null)
		[ -n "$pid" ] && [ "$pid" != null ] && [ "$pid" != 0 ] && { echo "$pid"; return; }
		sleep 0.1
	done
}
field() { awk -v k="$2:" '$1 == k { $1 = ""; print substr($0, 2) }' "/proc/$1/status"; }
count() { ctl "$1" --json list-snapshots | jq '.matched'; }

# The fleet process's descriptors beyond its two sockets (3, 4) that are not libmosquitto's
# own (its TCP connection, its socket pair): one a line, none expected.
stray_fds() {
	local pid=$1 f fd link ino mine peer
	mine=$(for f in "/proc/$pid/fd/"*; do readlink "$f"; done | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p')
	for f in "/proc/$pid/fd/"*; do
		fd=${f##*/}
		[ "$fd" -gt 4 ] || continue
		link=$(readlink "$f") || continue
		case $link in
		socket:*)
			ino=${link//[^0-9]/}
			awk -v i="$ino" '$10 == i { f = 1 } END { exit !f }' "/proc/$pid/net/tcp" \
				"/proc/$pid/net/tcp6" && continue
			peer=$(ss -xn | awk -v i="$ino" '$6 == i { print $8 }')
			[ -n "$peer" ] && grep -qx "$peer" <<<"$mine" && continue
			;;
		esac
		echo "$fd -> $link"
	done
}
limits() { grep -E "^Max (realtime priority|realtime timeout|nice priority|locked memory) " "/proc/$1/limits"; }
# latencyd's limits as latencyd.service sets them (LimitRTPRIO=99), memory locking and
# niceness raised too where this root may (a container's may not raise a hard limit), and a
# descriptor without close-on-exec, as liblttng-ctl's sockets and libbabeltrace2's trace
# files are: none of it may reach the fleet process.
for l in --rtprio=99:99 --rttime=unlimited:unlimited --nice=40:40 --memlock=unlimited:unlimited; do
	prlimit --pid $$ "$l" 2>/dev/null || prlimit --pid $$ "${l%%:*}" 2>/dev/null || true
done
[ "$(limits $$ | awk -F '  +' '{ print $2, $3 }' | tr '\n' ' ')" != "0 0 0 0 0 0 0 0 " ] ||
	{ echo "SKIP: realtime, nice and memlock limits all 0, none can be raised"; exit 77; }
: >"$T/inherited"
exec 9<"$T/inherited"
export FLEET_EXTRA='max_age = "10s";'
node h1 lab 10 10
# h2 with the capabilities the shipped unit leaves latencyd (CapabilityBoundingSet=): its
# fleet process, of another user, is killed with those alone.
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$(dirname "$0")/../../systemd/latencyd.service.in" |
	tr ' ' '\n' | sed -n 's/^CAP_\(.*\)$/+\L\1/p' | paste -sd,)
[ -n "$caps" ] || fail "no CapabilityBoundingSet= in systemd/latencyd.service.in"
FLEET_EXTRA='max_age = "10s"; user = "daemon";' NODE_CPUS=0 NODE_RT_PRIORITY=50 \
	NODE_WRAP="setpriv --bounding-set -all,$caps" node h2 lab 10 10 'log: { level = "debug"; };'
exec 9<&-
for h in h1 h2; do
	wait_for 200 jst $h '.session.state == "recording" and .fleet.subscribed and .fleet.members_online == 1 and .fleet.process.pid > 0' ||
		fail "$h: not connected through its fleet process: $(ctl $h --json status | jq -c .fleet)"
done

# 1. Who the helper is.
if getent passwd _latencyd >/dev/null; then want1=_latencyd; else want1=nobody; fi
for h in h1 h2; do
	pid=$(helper $h) want=$want1
	[ $h = h2 ] && want=daemon
	uid=$(id -u "$want")
	ctl $h --json status | jq -e ".fleet.process.user == \"$want\"" >/dev/null ||
		fail "$h: status says the process runs as $(ctl $h --json status | jq -c .fleet.process), not $want"
	[ "$(field "$pid" Uid)" = "$uid $uid $uid $uid" ] ||
		fail "$h's fleet process (pid $pid): Uid $(field "$pid" Uid), not $want's $uid"
	for c in CapInh CapPrm CapEff CapBnd CapAmb; do
		[ "$(field "$pid" $c)" = 0000000000000000 ] || fail "$h's fleet process: $c $(field "$pid" $c)"
	done
	[ "$(field "$pid" NoNewPrivs)" = 1 ] || fail "$h's fleet process: NoNewPrivs $(field "$pid" NoNewPrivs)"
	[ "$(field "$pid" PPid)" = "$(eval echo "\$PID_$h")" ] || fail "$h's fleet process is not latencyd's child"
	grep -q libmosquitto "/proc/$pid/maps" || fail "$h's fleet process does not map libmosquitto"
	grep -Eq 'libmosquitto|libssl' "/proc/$(eval echo "\$PID_$h")/maps" &&
		fail "latencyd ($h) maps libmosquitto or libssl itself"
	[ -e "/proc/$(eval echo "\$PID_$h")/fd/9" ] || fail "latencyd ($h) did not inherit descriptor 9"
	stray=$(stray_fds "$pid")
	[ -z "$stray" ] || fail "$h's fleet process holds descriptors of latencyd's: $stray"
	[ "$(limits "$pid" | awk -F '  +' '{ print $2, $3 }' | tr '\n' ' ')" = "0 0 0 0 0 0 0 0 " ] ||
		fail "$h's fleet process keeps latencyd's limits: $(limits "$pid")"
done
# realtime.cpus = "0" on h2: latencyd, each of its threads and its fleet process on CPU 0.
for task in $(cd /proc && echo "$PID_h2"/task/*) "$(helper h2)"; do
	[ "$(field "$task" Cpus_allowed_list)" = 0 ] ||
		fail "h2's $task ($(cat "/proc/$task/comm")) may run on CPUs $(field "$task" Cpus_allowed_list), not 0"
done
# realtime.priority = 50 on h2: the waiter at 50 and the thread that reads the fleet
# process just below it; the fleet process itself, which parses the network, at normal
# priority although that thread started it.
policy() { chrt -p "$1" | sed -n 's/.*scheduling policy: //p;s/.*scheduling priority: //p' | tr '\n' ' '; }
seen=0
for task in /proc/"$PID_h2"/task/*; do
	case $(cat "$task/comm") in
	latencyd-waiter) want="SCHED_FIFO 50 " ;;
	latencyd-fleet) want="SCHED_FIFO 49 " ;;
	*) continue ;;
	esac
	seen=$((seen + 1))
	[ "$(policy "${task#*/task/}")" = "$want" ] ||
		fail "h2's $(cat "$task/comm") thread runs $(policy "${task#*/task/}"), not $want"
done
[ "$seen" = 2 ] || fail "h2's waiter and fleet reader threads not found ($seen of 2)"
# realtime.waiter_per_cpu (the default) on h1, free to run anywhere: a waiter thread pinned
# to each CPU; h2 has one CPU to run on, so one waiter (above).
pinned=$(for task in /proc/"$PID_h1"/task/*; do
	[ "$(cat "$task/comm")" = latencyd-waiter ] || continue
	field "${task#/proc/}" Cpus_allowed_list
done | sort -n | tr '\n' ' ')
want_cpus=$(seq 0 $(($(nproc) - 1)) | tr '\n' ' ')
[ "$pinned" = "$want_cpus" ] || fail "h1's waiter threads are pinned to CPUs '$pinned', not one to each of '$want_cpus'"
jst h1 ".session.waiter_threads == $(nproc)" && jst h2 '.session.waiter_threads == 1' ||
	fail "status: h1 $(ctl h1 --json status | jq .session.waiter_threads) waiter threads, h2 $(ctl h2 --json status | jq .session.waiter_threads)"
[ "$(policy "$(helper h2)")" = "SCHED_OTHER 0 " ] ||
	fail "h2's fleet process runs $(policy "$(helper h2)"), not SCHED_OTHER"
[ "$want1" = _latencyd ] || grep -q "no user '_latencyd' on this system: the fleet process runs as nobody" "$T/h1/latencyd.log" ||
	fail "h1's log does not say that _latencyd is missing: $(cat "$T/h1/latencyd.log")"
pass "latencyd-fleet runs as $want1 and daemon: no capability, no_new_privs; libmosquitto and libssl only there; realtime.cpus holds for all of h2; its waiter and fleet reader SCHED_FIFO 50 and 49, its fleet process SCHED_OTHER; h1's waiter one thread per CPU, each pinned there"

# h2 reloaded with another broker, group and max_age: they need a restart, and until then
# what h2 logs and enforces is what its fleet process runs with (broker, group "lab", 10 s).
mark=$(wc -l <"$T/h2/latencyd.log")
sed -i -e 's/group = "lab"/group = "other"/' -e 's/max_age = "10s"/max_age = "100ms"/' \
	-e "s|broker = \"mqtt://127.0.0.1:$PORT\"|broker = \"mqtt://127.0.0.1:1\"|" "$T/h2/latencyd.conf"
kill -HUP "$PID_h2"
said() { for k in broker group max_age; do grep -q "reload: fleet.$k changed: it takes effect at the next start" "$T/h2/latencyd.log" || return 1; done; }
wait_for 50 said ||
	fail "h2's reload does not say fleet.broker, fleet.group and fleet.max_age need a restart: $(tail -n +$((mark + 1)) "$T/h2/latencyd.log")"

# An alert whose end is 5 s ahead of the clocks, as the realtime clock looks to an alert it
# stepped back over: the record of latency_tracker.h, as alert-write writes it.
future_alert() {
	perl -MTime::HiRes=clock_gettime,CLOCK_MONOTONIC -e '
		my $end = int(clock_gettime(CLOCK_MONOTONIC) * 1e9) + 5e9;
		open(my $f, ">", $ARGV[0]) or die "$ARGV[0]: $!";
		syswrite($f, pack("L C C x2 Q a32 L L L l l L L L a16 Q Q Q Q Q4 Q Q L L Q16",
			312, 1, 1, 0, "syscalls", 1, 1, 0, $$, $$, 0, 0, 0, "future",
			$end - 5e6, $end, 5e6, 1e6, (0) x 4, 0, 0, 0, 0, (0) x 16)) == 312 or die "write: $!";
	' "$T/$1/alerts" || fail "cannot write an alert to $1"
}

# 2. Killed: started again; an alert meanwhile is recorded at once, published when back.
# The broker stopped meanwhile, so that both alerts wait for it whatever the timing.
old=$(helper h2)
n1=$(count h1) n2=$(count h2)
kill -STOP "$BROKER_PID"
kill -ABRT "$old"
wait_for 50 jst h2 '.fleet.process.pid == 0 or .fleet.connected == false' ||
	fail "h2 did not see its fleet process die: $(ctl h2 --json status | jq -c .fleet)"
alert h2
future_alert h2
wait_for 100 sh -c "[ \$(tail -n +$((mark + 1)) '$T/h2/latencyd.log' | grep -c 'waits for the broker') = 2 ]" ||
	fail "h2's incidents do not wait for the broker: $(tail -n +$((mark + 1)) "$T/h2/latencyd.log")"
kill -CONT "$BROKER_PID"
wait_for 100 sh -c "[ \$('$LATENCYCTL' -s '$T/h2/ctl.sock' --json list-snapshots | jq .matched) -gt $n2 ]" ||
	fail "h2 did not record its own alert with its fleet process down"
wait_for 200 jst h2 ".fleet.connected and .fleet.process.restarts >= 1 and .fleet.process.pid != $old and .fleet.process.pid > 0" ||
	fail "h2's fleet process was not started again: $(ctl h2 --json status | jq -c .fleet)"
grep -q "latencyd-fleet killed by signal 6" "$T/h2/latencyd.log" || fail "h2's log does not say how its fleet process died"
wait_for 200 sh -c "[ \$('$LATENCYCTL' -s '$T/h1/ctl.sock' --json list-snapshots | jq .matched) -gt $n1 ]" ||
	fail "h1 never recorded h2's incident raised while h2's fleet process was down: $(tail "$T/h2/latencyd.log")"
since_reload() { tail -n +$((mark + 1)) "$T/h2/latencyd.log"; }
since_reload | grep -q "fleet: not connected to mqtt://127.0.0.1:$PORT (latencyd-fleet killed by signal 6" ||
	fail "h2 does not name the broker its fleet process runs with: $(since_reload | grep 'not connected')"
wait_for 100 sh -c "tail -n +$((mark + 1)) '$T/h2/latencyd.log' | grep -q 'fleet: connected to .* as h2, group lab\$'" ||
	fail "h2 does not name the group its fleet process runs with: $(since_reload | grep 'connected to')"
wait_for 100 sh -c "tail -n +$((mark + 1)) '$T/h2/latencyd.log' | grep -q 'published; the realtime clock is [0-9]* ms behind its alert.s end'" ||
	fail "h2 did not say that its incident's alert is ahead of the clock: $(since_reload | grep published)"
since_reload | grep -Eq "published [0-9]{7,} ms late" && fail "h2 logged a wrapped delay: $(since_reload | grep published)"
since_reload | grep -Eq "published [0-9]{1,6} ms late" ||
	fail "h2 did not publish its incident within the fleet.max_age it runs with (10 s): $(since_reload | grep -E 'published|max_age')"
pass "fleet process killed: started again, the local record at once, the incident published when back (with the fleet settings it runs, not the reloaded ones)"

# 3. Stopped: its heartbeat stops, latencyd kills it after 10 s of silence (with the unit's
# capabilities), with no publish to notice it; it comes back and publishes the next incident,
# acknowledged at once: said published (debug), not late.
old=$(helper h2)
kill -STOP "$old"
wait_for 200 grep -q "latencyd-fleet (pid $old) sent nothing for 10 s, not even its heartbeat: killed" "$T/h2/latencyd.log" ||
	fail "h2 did not kill its stopped fleet process: $(tail "$T/h2/latencyd.log")"
wait_for 200 jst h2 ".fleet.connected and .fleet.process.pid != $old and .fleet.process.pid > 0" ||
	fail "h2's fleet process did not come back: $(ctl h2 --json status | jq -c .fleet)"
n1=$(count h1)
at_once=$(wc -l <"$T/h2/latencyd.log")
alert h2
wait_for 200 sh -c "[ \$('$LATENCYCTL' -s '$T/h1/ctl.sock' --json list-snapshots | jq .matched) -gt $n1 ]" ||
	fail "h1 never recorded h2's incident: $(tail "$T/h2/latencyd.log")"
since_at_once() { tail -n +$((at_once + 1)) "$T/h2/latencyd.log"; }
wait_for 100 sh -c "tail -n +$((at_once + 1)) '$T/h2/latencyd.log' | grep -q 'fleet: incident h2-[0-9]* published (acknowledged by the broker)'" ||
	fail "h2 does not say its incident was published at once: $(since_at_once | grep -E 'published|waits')"
since_at_once | grep -E "published [0-9]+ ms late|waits for the broker" &&
	fail "h2 says an incident acknowledged at once waited or went out late"
pass "fleet process stopped: killed for its silence, started again, the next incident published"

# 4. A 64 MiB alert from anyone who may publish, on this broker without message_size_limit
# or max_packet_size: the helpers ask for an MQTT maximum packet size when they connect, so
# the broker drops it for them, never sends it; a message past 4096 bytes that still fits
# arrives and is counted as malformed. Both stay connected, and h1 still records h2's next
# alert. libmosquitto reads a whole packet into memory before any check of ours: without
# that limit each helper's peak RSS (VmHWM) grows by the payload.
# The broker is restarted first: a reconnect of the same process must ask for it too.
hwm() { field "$1" VmHWM | awk '{ print $1 }'; } # kB
truncate -s 64M "$T/big" || fail "cannot make the 64 MiB payload"
pid1=$(helper h1) pid2=$(helper h2)
reconnects=$(ctl h1 --json status | jq .fleet.reconnects)
kill "$BROKER_PID"
wait "$BROKER_PID" 2>/dev/null
start_broker
kill -0 "$BROKER_PID" 2>/dev/null || fail "mosquitto did not start again: $(tail -5 "$T/mosquitto.log")"
for h in h1 h2; do
	wait_for 200 jst $h ".fleet.subscribed and .fleet.members_online == 1 and .fleet.process.pid == $(eval echo "\$pid${h#h}")" ||
		fail "$h did not reconnect in the same fleet process: $(ctl $h --json status | jq -c .fleet)"
done
jst h1 ".fleet.reconnects > $reconnects" || fail "h1 did not count a reconnect: $(ctl h1 --json status | jq -c .fleet)"
hwm1=$(hwm "$pid1") hwm2=$(hwm "$pid2")
malformed=$(ctl h1 --json status | jq .fleet.dropped.malformed)
reconnects=$(ctl h1 --json status | jq .fleet.reconnects)
mosquitto_pub -h 127.0.0.1 -p "$PORT" -V 5 -q 1 -i hostile -t latencyd/lab/alert/h3 -f "$T/big" ||
	fail "mosquitto_pub of the 64 MiB alert"
head -c 5000 /dev/zero | tr '\0' x |
	mosquitto_pub -h 127.0.0.1 -p "$PORT" -V 5 -q 1 -i hostile -t latencyd/lab/alert/h3 -s ||
	fail "mosquitto_pub of the 5000-byte alert"
# The broker delivers to each subscriber in order: the small one counted, the big one was
# dropped (or, without the limit, counted before it).
wait_for 100 jst h1 ".fleet.dropped.malformed > $malformed" ||
	fail "h1 did not count the 5000-byte message as malformed: $(ctl h1 --json status | jq -c .fleet)"
sleep 1
grew=
for h in h1 h2; do
	pid=$(eval echo "\$pid${h#h}") was=$(eval echo "\$hwm${h#h}")
	now=$(hwm "$pid") || fail "$h's fleet process (pid $pid) is gone"
	[ $((now - was)) -lt 16384 ] ||
		fail "$h's fleet process grew by $(((now - was) / 1024)) MiB at its peak (VmHWM $was -> $now kB) for a 64 MiB message its broker should not have sent"
	grew="$grew $h +$(((now - was) / 1024))"
done
grep -q "Dropping too large outgoing PUBLISH for latencyd-h1" "$T/mosquitto.log" ||
	fail "the broker does not say it dropped the 64 MiB message for h1: $(tail -5 "$T/mosquitto.log")"
jst h1 ".fleet.connected and .fleet.reconnects == $reconnects and .fleet.process.pid == $pid1" ||
	fail "h1 lost its connection or its fleet process: $(ctl h1 --json status | jq -c .fleet)"
n1=$(count h1)
alert h2
wait_for 200 sh -c "[ \$('$LATENCYCTL' -s '$T/h1/ctl.sock' --json list-snapshots | jq .matched) -gt $n1 ]" ||
	fail "h1 never recorded h2's incident after the 64 MiB message: $(tail "$T/h1/latencyd.log")"
pass "a 64 MiB alert after a reconnect: dropped by the broker for both helpers (peak RSS, MiB:$grew), the 5000-byte one counted as malformed; h1 connected, and records h2's next alert"

# 5. Killed again and again while h1 records back to back: each new fleet process is
# spawned while liblttng-ctl's sockets and libbabeltrace2's trace files are open in
# latencyd, without close-on-exec; it holds none of them once it runs.
c0=$(count h1)
"$ALERT_WRITE" "$T/h1/alerts" syscalls 3000 5 &
writer=$!
# Four: each quick death doubles the wait before the next start (1, 2, 4, 8 s).
for i in 1 2 3 4; do
	old=$(helper_busy h1)
	[ -n "$old" ] || fail "h1's fleet process pid unknown before kill $i: $(ctl h1 --json status | jq -c .fleet)"
	kill -KILL "$old"
	wait_for 400 sh -c "p=\$('$LATENCYCTL' -s '$T/h1/ctl.sock' --json status | jq .fleet.process.pid); [ \"\$p\" -gt 0 ] && [ \"\$p\" != $old ]" ||
		fail "h1's fleet process was not started again after $i kill(s): $(ctl h1 --json status | jq -c .fleet)"
	pid=$(helper_busy h1)
	[ -n "$pid" ] || fail "h1's fleet process pid unknown after kill $i: $(ctl h1 --json status | jq -c .fleet)"
	wait_for 200 jst h1 ".fleet.connected and .fleet.process.pid == $pid" ||
		fail "h1's fleet process $pid did not connect: $(ctl h1 --json status | jq -c .fleet)"
	stray=$(stray_fds "$pid")
	[ -z "$stray" ] || fail "h1's fleet process started again during records ($i) holds latencyd's descriptors: $stray"
done
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
[ "$(count h1)" -gt "$c0" ] || fail "h1 recorded nothing while its fleet process was killed"
pass "fleet process killed 4 times during records: each new one holds only its own descriptors"

for n in h1 h2; do kill -0 "$(eval echo "\$PID_$n")" || fail "$n died"; done
helpers="$(helper h1) $(helper h2)"
for n in h1 h2; do kill "$(eval echo "\$PID_$n")"; done
sleep 1
for n in h1 h2; do
	grep -q "AddressSanitizer\|runtime error" "$T/$n/latencyd.log" && fail "$n: $(cat "$T/$n/latencyd.log")"
	[ -z "$(pgrep -P "$(eval echo "\$PID_$n")" 2>/dev/null)" ] || fail "$n left a child behind"
done
for p in $helpers; do kill -0 "$p" 2>/dev/null && fail "latencyd-fleet (pid $p) outlived its latencyd"; done
pass "fleet process"
