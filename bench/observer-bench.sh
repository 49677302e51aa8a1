#!/bin/bash
# The observer effect (issue #26): what a peer's record costs a busy server on that peer.
# A CPU-bound server (bench/fleet/busy-server: threads running fixed ~200 us units of
# arithmetic, each unit's wall time, its thread's CPU time and the scheduler's run_delay of
# the thread taken) runs on the peer while the peer records snapshots for its origin's
# alerts. The server's added runnable wait (run_delay, summed over its threads) in windows
# around each of the peer's records is set against the same in equally long windows
# between records, for two configurations in interleaved rounds of one run:
#   default      nothing pinned; the server has 2 threads (this host's 2 CPUs);
#   housekeeping the peer's latencyd on CPU 0 (realtime.cpus = "0"), its lttng-sessiond
#                started under taskset -c 0 (its consumerd inherits it), the server 1
#                thread on CPU 1; what stands for other hosts (origin, broker, relayd,
#                this script) on CPU 0 too.
# Each configuration has its own origin and peer (latencyd, each with its own
# lttng-sessiond, groups apart) so that rounds alternate without restarts; all snapshots go
# to one lttng-relayd, as bench/fleet-bench.sh. One clock: the catalog's record times and
# the server's units are CLOCK_MONOTONIC readings on this host.
# Usage: bench/observer-bench.sh [ROUNDS [ALERTS]]   (default 10 rounds per configuration,
# 12 alerts per round, about 4 minutes; needs root and a build in build/)
# OBSERVER_DEBUG_DIR=DIR (writable by nobody) keeps the rounds' raw files and the nodes' logs,
# BENCH_KEEP_LOG=FILE the run's whole log.
# Writes bench/observer-results.md (bench/report puts it in bench/RESULTS.md) and prints it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${LATENCYD_BUILD_DIR:-$here/../build}
rounds=${1:-10}
alerts=${2:-12}
debug_dir=${3:-} # (OBSERVER_DEBUG_DIR, passed on by the outer run)
. "$here/fleet/lib.sh"
# (lttng-env passes no environment: the debug directory goes as an argument)
bench_outer "9\\. The observer effect" observer-results.md -- "$rounds" "$alerts" "${OBSERVER_DEBUG_DIR:-}"
bench_inner busy-server
BUSY=$build/bench/fleet/busy-server
PRE=5000000       # a window starts this long (ns) before the peer's record call
WIN=150           # and lasts this long (ms)
EXPLAINED_MS=50   # a typical explained wait (issue #26: 50 ms behind ksoftirqd/consumerd)
TARGET_PCT=5
HK=0 APP=1        # housekeeping CPU, the server's CPU (housekeeping configuration)
ALL=0-$(($(getconf _NPROCESSORS_ONLN) - 1)) # (nproc counts the CPUs this shell may use)
BUFFERS='subbuf_size = 262144; num_subbuf = 4;' # the peer's: latencyd's defaults
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || fail "needs 2 CPUs"

start_fleet_broker
# The buckets wide open: every alert recorded by the peer.
export FLEET_EXTRA='total_rate = 100; total_burst = 100;'
KEEP='retention: { max_count = 100000; };'
# default: nothing pinned. The origin has 4 KiB sub-buffers (its record is another host's
# cost, kept small); the peer latencyd's default buffers.
node h1 dflt 100 100 "$KEEP"
NODE_BUFFERS=$BUFFERS node h2 dflt 100 100 "$KEEP"
# housekeeping: the peer's latencyd and sessiond on CPU 0; the origin (another host) too.
NODE_CPUS=$HK NODE_SESSIOND_CPUS=$HK node k1 hk 100 100 "$KEEP"
taskset -p -c $HK "${PIDS[-2]}" >/dev/null || fail "k1's application on CPU $HK" # (node: app, latencyd)
NODE_CPUS=$HK NODE_SESSIOND_CPUS=$HK NODE_BUFFERS=$BUFFERS node k2 hk 100 100 "$KEEP"
for h in h1 h2 k1 k2; do
	wait_for 300 jst $h '.session.state == "recording" and .fleet.connected and .fleet.members_online == 1' ||
		fail "$h not ready: $(ctl $h --json status | jq -c '{session, fleet}')"
done
started=$(date +%s)
echo "broker $BROKER_PID, relayd $LATENCYD_TEST_RELAYD_PID; latencyd h1 $PID_h1 h2 $PID_h2 k1 $PID_k1 k2 $PID_k2"

# pids PID...: the processes and all their descendants
pids() {
	local p
	for p in "$@"; do
		[ -n "$p" ] || continue
		echo "$p"
		pids $(pgrep -P "$p")
	done
}
sessiond_of() { cat "$T/$1/home/.lttng/lttng-sessiond.pid" 2>/dev/null || cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid"; }
# ns on a CPU of the processes' threads (schedstat)
oncpu() {
	local p
	for p in "$@"; do cat /proc/"$p"/task/*/schedstat 2>/dev/null; done | awk '{ s += $1 } END { printf "%.0f\n", s }'
}
# The CPUs each process may run on: "NAME PID LIST" lines
affinity() {
	local p
	for p in "$@"; do
		echo "$(cat /proc/"$p"/comm 2>/dev/null) $p $(taskset -p -c "$p" 2>/dev/null | sed 's/.*: //')"
	done
}
# The peer's recording side (latencyd, its fleet process, sessiond, consumerd) and what
# stands for other hosts (the origin's latencyd and sessiond, the broker, relayd).
# h1 uses lttng-env's sessiond: node names the pid file only for its own sessionds.
h1_sessiond=$(cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid")
peer_pids() { pids "$(eval echo "\$PID_$1")" "$(sessiond_of "$1")"; }
foreign_pids() {
	local s
	if [ "$1" = h1 ]; then s=$h1_sessiond; else s=$(sessiond_of "$1"); fi
	pids "$(eval echo "\$PID_$1")" "$s" "$BROKER_PID" "$LATENCYD_TEST_RELAYD_PID"
}
# The placement a configuration asks of the broker, relayd and this script (other hosts).
place_others() {
	local p
	for p in "$BROKER_PID" "$LATENCYD_TEST_RELAYD_PID" $$; do
		taskset -a -p -c "$1" "$p" >/dev/null || fail "taskset $1 $p"
	done
}
# utime + stime of every process and kernel thread, summed by name: "NAME TICKS" lines
by_name() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk '{ c = $2; sub(/.*\) /, ""); t[c] += $12 + $13 }
		END { for (c in t) print c, t[c] }' | sort
}
# the machine's steal, interrupt and busy ticks: "STEAL IRQ+SOFTIRQ BUSY"
host_ticks() { awk '/^cpu / { print $9, $7 + $8, $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
TICK=$(getconf CLK_TCK)
maxid() { jq '[.snapshots[].id] | max // 0' "$T/$1/catalog/catalog.json"; }
peer_count() { jq --argjson b "$2" '[.snapshots[] | select(.id > $b and .incident)] | length' "$T/$1/catalog/catalog.json"; }

# The buffers full before measuring: ust-app writes an event a millisecond, the peer's
# buffers take 1 MiB a CPU.
fill=35
while [ $(($(date +%s) - started)) -lt "$fill" ]; do sleep 1; done
affinity $(peer_pids h2) $(peer_pids k2) $(foreign_pids k1) >"$T/placement"
cat "$T/placement"

# round CONF N: one round of ALERTS alerts on CONF's origin, its server running.
round() {
	local c=$1 r=$2 o p args cpus tag=$1-$2 before
	if [ "$c" = default ]; then
		o=h1 p=h2 args="-t 2" cpus=$ALL
	else
		o=k1 p=k2 args="-t 1 -c $APP" cpus=$HK
	fi
	echo "$(date +%T) round $tag"
	place_others "$cpus"
	before=$(maxid $p) obefore=$(maxid $o)
	# shellcheck disable=SC2086
	"$BUSY" $args -d 300 "$T/units-$tag" >"$T/server-$tag" 2>&1 &
	local spid=$!
	wait_for 100 grep -q '^ready' "$T/server-$tag" || fail "busy-server: $(cat "$T/server-$tag")"
	sleep 1
	local p0 f0 p1 f1 st0 st1 irq0 irq1 busy0 busy1 busiest foreign
	p0=$(oncpu $(peer_pids $p)) f0=$(oncpu $(foreign_pids $o))
	read -r st0 irq0 busy0 < <(host_ticks)
	by_name >"$T/names0"
	for _ in $(seq "$alerts"); do
		"$ALERT_WRITE" "$T/$o/alerts" syscalls 1 || fail "alert-write on $o"
		sleep "0.$((50 + RANDOM % 20))" # 0.50 to 0.69 s: no beat with anything periodic
	done
	sleep 1
	p1=$(oncpu $(peer_pids $p)) f1=$(oncpu $(foreign_pids $o))
	read -r st1 irq1 busy1 < <(host_ticks)
	by_name >"$T/names1"
	# Another test or bench on this host meanwhile (its own latencyd, our four aside, a VM)?
	foreign=$(($(pgrep -x latencyd | wc -l) - 4 + $(pgrep -c 'qemu|ctest')))
	busiest=$(join "$T/names0" "$T/names1" | awk -v t="$TICK" '$3 > $2 && $1 != "(busy-server)" { printf "%s %.2f\n", $1, ($3 - $2) / t }' |
		sort -k2 -rn | head -n 6 | tr -d '()' | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $1, $2 }')
	kill -TERM $spid
	wait $spid
	place_others $ALL
	echo "$(date +%T) round $tag: alerts done"
	# The incidents the origin published (alerts that came during one of its records joined
	# the next), each recorded by the peer.
	local want
	wait_for 100 sh -c "[ \$(jq --argjson b $obefore '[.snapshots[] | select(.id > \$b) | .causes[] | select(.tracker == \"syscalls\")] | length' '$T/$o/catalog/catalog.json') -ge $alerts ]" ||
		echo "note: $o has not recorded its $alerts alerts of round $tag"
	want=$(peer_count $o "$obefore")
	wait_for 100 sh -c "[ \$(jq --argjson b $before '[.snapshots[] | select(.id > \$b and .incident)] | length' '$T/$p/catalog/catalog.json') -ge $want ]" ||
		echo "note: $p recorded $(peer_count $p "$before") of the $want incidents of round $tag"
	[ "$want" -lt "$alerts" ] && echo "note: $o's $alerts alerts made $want incidents in round $tag"
	# The peer's record calls (its cause's start_ns + wakeup_to_record_ns) and durations.
	jq -r --argjson b "$before" '.snapshots[] | select(.id > $b and .incident) |
		[.causes[0].start_ns + .wakeup_to_record_ns, .record_ns] | @tsv' \
		"$T/$p/catalog/catalog.json" | sort -n >"$T/records-$tag"
	local nominal
	nominal=$(awk '{ print $4 }' "$T/units-$tag" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	# Each window's summed added wait (wall - cpu) and lost time (wall - the median unit's
	# CPU: also what IRQs charged to the server's threads took), the units' waits by kind,
	# and the wait by 10 ms from the record call (a profile, for the window's length).
	awk -v pre=$PRE -v win=$((WIN * 1000000)) -v nominal="$nominal" -v tag="$tag" \
		-v ur="$T/unitsR-$tag" -v uc="$T/unitsC-$tag" -v prof="$T/profile-$tag" '
		FNR == NR { rs[++nr] = $1; rn[nr] = $2; next }
		FNR == 1 {
			for (i = 1; i <= nr; i++) { ws[++nw] = rs[i] - pre; we[nw] = ws[nw] + win; kind[nw] = "R" }
			for (i = 2; i <= nr; i++) {
				mid = (rs[i - 1] + rs[i]) / 2
				s = mid - win / 2; e = s + win
				if (s < rs[i - 1] - pre + win || e > rs[i] - pre) { skipped++; continue }
				ws[++nw] = s; we[nw] = e; kind[nw] = "C"
			}
		}
		{
			t = $2; wait = $5; wc = $3 - $4; lost = $3 - nominal
			if (!first || t < first) first = t
			if (t + $3 > last) last = t + $3
			for (j = 1; j <= nw; j++)
				if (t >= ws[j] && t < we[j]) {
					sw[j] += wait; sc[j] += wc; sl[j] += lost; nu[j]++
					print wait, wc > (kind[j] == "R" ? ur : uc)
					break
				}
			for (i = 1; i <= nr; i++) {
				d = t - rs[i]
				if (d >= -50e6 && d < 450e6) { b = int((d + 50e6) / 10e6); pw[b] += wait }
			}
		}
		END {
			for (j = 1; j <= nw; j++) {
				if (ws[j] < first || we[j] > last) { outside++; continue }
				n[kind[j]]++; w[kind[j]] += sw[j]; x[kind[j]] += sc[j]; l[kind[j]] += sl[j]
			}
			for (i = 1; i <= nr; i++) if (pre + rn[i] > win) long++
			for (b = 0; b < 50; b++) printf "%d %.0f\n", b * 10 - 50, pw[b] / nr > prof
			printf "round=%s\tnR=%d\tnC=%d\twaitR=%.0f\twaitC=%.0f\twcR=%.0f\twcC=%.0f\tlostR=%.0f\tlostC=%.0f\tlong=%d\tskipped=%d\toutside=%d\n",
				tag, n["R"], n["C"], w["R"] / n["R"], w["C"] / n["C"], x["R"] / n["R"], x["C"] / n["C"],
				l["R"] / n["R"], l["C"] / n["C"], long, skipped, outside
		}' "$T/records-$tag" "$T/units-$tag" >"$T/row-$tag"
	# CPU used meanwhile by all but the server (host busy minus busy-server's ticks): the
	# recording, the stand-ins, the applications, and whatever else ran on the host.
	local srv rest
	srv=$(join "$T/names0" "$T/names1" | awk '$1 == "(busy-server)" { print $3 - $2 }')
	rest=$(((busy1 - busy0 - ${srv:-0}) * 1000 / TICK))
	{
		cat "$T/row-$tag"
		printf 'peer_cpu=%s\nforeign_cpu=%s\nk=%s\nnominal=%s\nsteal_ms=%s\nirq_ms=%s\nrest_ms=%s\nothers=%s\nbusiest=%s\n' \
			"$(((p1 - p0) / alerts))" "$(((f1 - f0) / alerts))" "$(wc -l <"$T/records-$tag")" "$nominal" \
			"$(((st1 - st0) * 1000 / TICK))" "$(((irq1 - irq0) * 1000 / TICK))" "$rest" "$foreign" "$busiest"
		# records that relayd answered too slowly for: the next went to the local directory
		echo "fell_back=$(jq --argjson b "$before" '[.snapshots[] | select(.id > $b and .incident and .fell_back)] | length' "$T/$p/catalog/catalog.json")"
		awk '{ print $2 }' "$T/records-$tag" | sort -n |
			awk '{ v[NR] = $1 } END { printf "rec50=%d\nrec99=%d\n", v[int((NR + 1) / 2)], v[int((NR - 1) * 0.99) + 1] }'
		tail -n 1 "$T/server-$tag" | tr ' ' '\n' | paste -d= - -
	} | tr '\t' '\n' | paste -sd '\t' >>"$T/rows"
	tail -n 1 "$T/rows"
	awk '{ print $2 }' "$T/records-$tag" >>"$T/recns-$c"
	rm -f "$T/units-$tag"
}

: >"$T/rows"
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then order="default housekeeping"; else order="housekeeping default"; fi
	for c in $order; do round "$c" "$r"; done
done

# The nodes after the run: alive, and what their logs warned of.
for h in h1 h2 k1 k2; do
	pid=$(eval echo "\$PID_$h")
	if kill -0 "$pid" 2>/dev/null; then
		echo "- $h: $(grep -ciE 'warn|error|drop|fail' "$T/$h/latencyd.log") log lines with warn, error, drop or fail of $(wc -l <"$T/$h/latencyd.log")$(grep -iE 'warn|error|drop|fail' "$T/$h/latencyd.log" |
			sed 's/^[^]]*\] //; s/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn | head -n 3 |
			awk '{ c = $1; $1 = ""; printf "%s %dx \"%s\"", (NR > 1 ? ";" : ":"), c, substr($0, 2) }')"
	else
		echo "- $h: latencyd is gone: $(tail -n 3 "$T/$h/latencyd.log")"
	fi
done >"$T/nodes"
cat "$T/nodes"
grep -hiE 'warn|fail' "$T"/*/latencyd.log | head -n 20
if [ -n "$debug_dir" ]; then
	cp "$T"/records-* "$T"/rows "$T"/profile-* "$T"/placement "$debug_dir"/
	for h in h1 h2 k1 k2; do cp "$T/$h/latencyd.log" "$debug_dir/$h.log"; done
fi
for c in default housekeeping; do
	echo "profile $c (ms from the record call: mean summed wait per record, us)"
	cat "$T"/profile-$c-* | awk '{ s[$1] += $2; n[$1]++ } END { for (b in s) printf "%d %.0f\n", b, s[b] / n[b] / 1000 }' | sort -n | paste -sd ' '
done
cat "$T/rows"

# col CONF NAME: that field of CONF's rounds, one a line
col() { grep -P "^round=$1-" "$T/rows" | tr '\t' '\n' | sed -n "s/^$2=//p"; }
# numbers in ns on stdin -> "median [min, max]" in ms (the median of an even count: the
# mean of the two middle values)
mmm() {
	sort -g | awk '{ v[++n] = $1 } END {
		if (!n) { print "-"; exit }
		printf "%.2f [%.2f, %.2f]", (v[int((n + 1) / 2)] + v[int((n + 2) / 2)]) / 2e6, v[1] / 1e6, v[n] / 1e6 }'
}
med() { sort -g | awk '{ v[++n] = $1 } END { if (n) print (v[int((n + 1) / 2)] + v[int((n + 2) / 2)]) / 2 }'; }
ms() { awk '{ printf "%.2f", $1 / 1e6 }'; }
# nearest-rank percentile of the first column, in ms
pct() { sort -g | awk -v p="$1" '{ v[NR] = $1 } END { if (!NR) { print "-"; exit } printf "%.2f", v[int((NR - 1) * p / 100) + 1] / 1e6 }'; }
# added CONF KIND: per round, the mean record window minus the mean quiet window (ns), KIND
# wait (run_delay), wc (wall - cpu) or lost (wall - the median unit's CPU)
added() { paste <(col "$1" "$2"R) <(col "$1" "$2"C) | awk '{ print $1 - $2 }'; }
# ns on stdin as a % of the explained wait: "median [min, max]"
share() {
	sort -g | awk -v e=$EXPLAINED_MS '{ v[++n] = $1 / 1e4 / e } END {
		printf "%.1f %% [%.1f, %.1f]", (v[int((n + 1) / 2)] + v[int((n + 2) / 2)]) / 2, v[1], v[n] }'
}
# met or missed: the median of ns on stdin against the target
verdict() { med | awk -v e=$EXPLAINED_MS -v t=$TARGET_PCT '{ print ($1 / 1e4 / e <= t) ? "met" : "missed" }'; }
rounds_over() { awk -v e=$EXPLAINED_MS -v t=$TARGET_PCT '$1 / 1e4 / e > t { n++ } END { print n + 0 }'; }
# the profile: mean summed run_delay per record in 10 ms bins, averaged over a range (us)
prof() {
	cat "$T"/profile-$1-* | awk -v a="$2" -v b="$3" '$1 >= a && $1 < b { s += $2; n++ } END { printf "%.0f", n ? s / n / 1000 : 0 }'
}
limit=$(awk -v e=$EXPLAINED_MS -v t=$TARGET_PCT 'BEGIN { printf "%.1f", e * t / 100 }')
when=$(date -u '+%Y-%m-%d %H:%M UTC')
others=$(awk -F'\t' '{ for (i = 1; i <= NF; i++) if ($i ~ /^others=/ && substr($i, 8) > 0) n++ } END { print n + 0 }' "$T/rows")
{
cat <<TEXT
## 9. The observer effect ($when)

\`bench/observer-bench.sh $rounds $alerts\`: what a peer's record costs a busy server on that
peer (issue #26: a 50 ms runnable wait behind ksoftirqd and consumerd was seen on a busy
thread of a peer whose own record was to explain it). All on this host
($(getconf _NPROCESSORS_ONLN) cores, $(uname -r), a VM), one mosquitto and one lttng-relayd
on 127.0.0.1, as parts 6 and 8. The peer is a latencyd (userspace domain, its own
lttng-sessiond, latencyd's default buffers: 4 sub-buffers of 256 KiB a CPU, kept full by an
application writing an event a millisecond; snapshots to relayd); each of its origin's
alerts makes it record one. The *server* is \`bench/fleet/busy-server\`: threads each
running units of about 200 us of arithmetic back to back, each unit measured by
CLOCK_MONOTONIC, by its thread's CPU clock and by the thread's *run_delay* (the
scheduler's count of the time it was runnable but not running, /proc/thread-self/schedstat,
read once a unit). The peer's catalog gives each record's call (\`start_ns +
wakeup_to_record_ns\`, CLOCK_MONOTONIC too) and \`record_ns\`.

Per round, $alerts alerts on the origin, one every 0.50 to 0.69 s (random: no beat with
anything periodic). A *record window* is ${WIN} ms from $((PRE / 1000000)) ms before a
record call (the record, $(cat "$T"/recns-* | pct 50) ms at the median, and what follows
it); a *quiet window* as long, centred between two records. A window's wait is its units'
wait summed over the server's threads; the *added wait per record* is a round's mean
record window minus its mean quiet window. Three measures of a unit's wait:

- **run_delay**, the target's measure: the runnable wait that a task preempting the server
  adds (the issue's wait behind consumerd);
- *wall − CPU*: that plus the time the hypervisor took the CPU from this VM (steal: random
  as to records, it widens the spread);
- *lost*: wall time minus the median unit's CPU time: all the server lost, interrupts
  included (this kernel has no IRQ time accounting: an interrupt is charged to the thread
  it interrupts, so it is CPU time, not wait, in the two other measures).

The two configurations run in alternate rounds of one run ($rounds rounds each, order
swapped every round), each with its own origin and peer (groups apart: one configuration's
idle nodes are background to the other, alike in both kinds of window):

- **default**: nothing pinned; the server has 2 threads (this host's 2 CPUs).
- **housekeeping**: CPU 0 for housekeeping, CPU 1 for the server, as an operator sets a
  peer up (latencyd.conf(5), \`realtime.cpus\`): the peer's latencyd with
  \`realtime.cpus = "0"\` (its threads and its fleet process), its lttng-sessiond started
  under \`taskset -c 0\` (what \`CPUAffinity=0\` in its drop-in does; its consumerd
  inherits it), the server 1 thread pinned to CPU 1. On a real peer the origin, the broker
  and relayd are other machines and take none of its CPUs; here they must run somewhere,
  so this configuration puts them (the origin's latencyd and sessiond, mosquitto, relayd,
  and this script, which raises the alerts) on CPU 0, where they can delay the peer's
  record but not touch the server's CPU. In the default configuration they run anywhere,
  like everything else: their CPU per record (*stand-ins* below) is part of what the
  server can lose there, which a real peer would not pay: the default's numbers are an
  upper bound of a real peer's.
- In both, the peer's instrumented application is not pinned (it stands for the peer's
  other work), and latencyd runs with \`realtime.priority = 0\` (SCHED_OTHER: the run is
  nobody's, as in parts 6 and 8; in production its waiter is SCHED_FIFO, but the record's
  work is lttng-sessiond's and consumerd's, SCHED_OTHER both ways).

| configuration | server | added run_delay per record, median [min, max] over rounds | as % of a 50 ms explained wait | rounds over 5 % | record / quiet window (run_delay, medians) | added wall − CPU per record | added lost time per record | per unit run_delay p99 / max: record windows | the same: quiet windows | peer's record_ns p50 / p99 | CPU per record: the peer's recording (latencyd, sessiond, consumerd) / the stand-ins |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
TEXT
for c in default housekeeping; do
	if [ $c = default ]; then srv="2 threads, any CPU"; else srv="1 thread, CPU $APP"; fi
	printf '| %s | %s | %s ms | %s | %s of %s | %s / %s ms | %s ms (%s) | %s ms (%s) | %s / %s ms | %s / %s ms | %s / %s ms | %s / %s ms |\n' \
		"$c" "$srv" "$(added $c wait | mmm)" "$(added $c wait | share)" \
		"$(added $c wait | rounds_over)" "$(col $c wait_ns | wc -l)" \
		"$(col $c waitR | med | ms)" "$(col $c waitC | med | ms)" \
		"$(added $c wc | mmm)" "$(added $c wc | share)" "$(added $c lost | mmm)" "$(added $c lost | share)" \
		"$(cat "$T"/unitsR-$c-* | pct 99)" "$(cat "$T"/unitsR-$c-* | pct 100)" \
		"$(cat "$T"/unitsC-$c-* | pct 99)" "$(cat "$T"/unitsC-$c-* | pct 100)" \
		"$(pct 50 <"$T/recns-$c")" "$(pct 99 <"$T/recns-$c")" \
		"$(col $c peer_cpu | med | ms)" "$(col $c foreign_cpu | med | ms)"
done
cat <<TEXT

Where the wait falls, from the record call (the server's summed run_delay per record, in
us per 10 ms, averaged over the 10 ms bins of each range; the quiet windows lie in the last
range):

| configuration | −50 to 0 ms | 0 to 10 ms | 10 to 50 ms | 50 to 150 ms | 150 to 450 ms |
|---|---:|---:|---:|---:|---:|
TEXT
for c in default housekeeping; do
	printf '| %s | %s | %s | %s | %s | %s |\n' $c "$(prof $c -50 0)" "$(prof $c 0 10)" "$(prof $c 10 50)" \
		"$(prof $c 50 150)" "$(prof $c 150 450)"
done
echo
for c in default housekeeping; do
	echo "- $c: per unit wall − CPU max $(cat "$T"/unitsR-$c-* | awk '{ print $2 }' | pct 100) ms in record windows," \
		"$(cat "$T"/unitsC-$c-* | awk '{ print $2 }' | pct 100) ms in quiet ones; steal up to" \
		"$(col $c steal_ms | sort -n | tail -n 1) ms in a round; records longer than the window:" \
		"$(col $c long | awk '{ s += $1 } END { print s + 0 }') of $(wc -l <"$T/recns-$c"); records sent to the local" \
		"directory, relayd having been too slow (over output.relayd_timeout) for one before:" \
		"$(col $c fell_back | awk '{ s += $1 } END { print s + 0 }'); CPU used by all but the" \
		"server during a round's alerts: $(col $c rest_ms | med) ms [$(col $c rest_ms | sort -n | head -n 1)," \
		"$(col $c rest_ms | sort -n | tail -n 1)]."
done
for c in default housekeeping; do
	awk -v c=$c '$1 > 2e9 { n++; if ($1 > m) m = $1 } END {
		if (n) printf "- %s: %d records took longer than output.relayd_timeout (2 s), the longest %.2f s: latencyd sent the next records to the local directory, as it should.\n", c, n, m / 1e9 }' "$T/recns-$c"
done
pc=$(col default peer_cpu | med) fc=$(col default foreign_cpu | med) dw=$(added default wait | med)
echo "- default, a real peer's share: of the CPU others took per record, $(ms <<<"$pc") ms were" \
	"the peer's own recording and $(ms <<<"$fc") ms the stand-ins'. If the server's wait scales with" \
	"that CPU, a real peer (no stand-ins on its CPUs) would add about" \
	"$(awk -v w="$dw" -v p="$pc" -v f="$fc" 'BEGIN { printf "%.2f", (p + f > 0 ? w * p / (p + f) : 0) / 1e6 }') ms" \
	"a record ($(awk -v w="$dw" -v p="$pc" -v f="$fc" -v e=$EXPLAINED_MS 'BEGIN { printf "%.1f", (p + f > 0 ? w * p / (p + f) : 0) / 1e4 / e }') %" \
	"of $EXPLAINED_MS ms): an estimate, not a measurement."
[ "$others" -gt 0 ] && echo "- $others rounds saw another latencyd, a VM or ctest on the host: their numbers are suspect."
echo
echo "The nodes after the run (the log: what latencyd wrote to stderr):"
echo
cat "$T/nodes"
echo
for c in default housekeeping; do
	echo "**Target: the server's added runnable wait per peer record ≤ $TARGET_PCT % of a $EXPLAINED_MS ms explained wait ($limit ms), $c — $(added $c wait | verdict)** (median $(added $c wait | med | ms) ms, $(added $c wait | share) over rounds, $(added $c wait | rounds_over) of $(col $c wait_ns | wc -l) rounds over; with steal, wall − CPU: $(added $c wc | verdict), $(added $c wc | share); all the server lost, interrupts included: $(added $c lost | verdict), $(added $c lost | share))."
	echo
done
echo "=== end"
}
