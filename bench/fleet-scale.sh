#!/bin/bash
# The fleet at scale (issue #26): one real origin (h1) and two real peers (h2, h3), each a
# latencyd with its own lttng-sessiond, plus M simulated members (bench/fleet/fleet-sim: one
# process, M MQTT clients speaking the fleet protocol with proto/'s codec) on one mosquitto,
# all on this host, for several M. Per step: the messages through the broker per incident,
# the origin's alert to each real peer's lttng_snapshot_record() (one clock, as
# bench/fleet-bench.sh), the broker's CPU per incident and its bare round trip.
# Usage: bench/fleet-scale.sh [INCIDENTS [MEMBERS...]]   (default 30 incidents per step,
# simulated members 0 25 50 100; needs root and a build in build/)
# Writes bench/fleet-scale-results.md (bench/report puts it in bench/RESULTS.md) and prints it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${LATENCYD_BUILD_DIR:-$here/../build}
incidents=${1:-30}
if [ $# -gt 1 ]; then
	steps="${*:2}"
else
	steps="0 25 50 100"
fi
. "$here/fleet/lib.sh"
# shellcheck disable=SC2086
bench_outer "8\\. Fleet at scale" fleet-scale-results.md \
	NODE_RT_PRIORITY="${FLEET_RT_PRIORITY:-50}" ${NODE_REALTIME:+NODE_REALTIME="$NODE_REALTIME"} \
	${FLEET_SIM_NICE:+FLEET_SIM_NICE="$FLEET_SIM_NICE"} \
	${ANSWER_DELAY_MS:+ANSWER_DELAY_MS="$ANSWER_DELAY_MS"} -- "$incidents" $steps
bench_inner fleet-sim mqtt-rtt
FLEET_SIM=$build/bench/fleet/fleet-sim MQTT_RTT=$build/bench/fleet/mqtt-rtt
PREFIX=latencyd GROUP=bench # fleet-lib's nodes: the default topic prefix, group "bench"
SPACING=0.4                 # seconds between two alerts on the origin
SIM_NICE=${FLEET_SIM_NICE:-19} # the simulator stands for other hosts' CPUs: it yields
TICK=$(getconf CLK_TCK)

# fleet-lib's broker, with $SYS counters every second: the broker's own count of what it
# received and sent; without Nagle, as the README's.
broker_conf() {
	cat <<CONF
listener $PORT 127.0.0.1
allow_anonymous true
persistence false
set_tcp_nodelay true
sys_interval 1
CONF
}
start_fleet_broker
# The buckets wide open: every incident is recorded by every real peer.
export FLEET_EXTRA='total_rate = 100; total_burst = 100;'
# The catalogs keep every snapshot of the run (retention.max_count is 100 by default).
for h in h1 h2 h3; do node $h $GROUP 100 100 'retention: { max_count = 100000; };'; done
for h in h1 h2 h3; do
	wait_for 300 jst $h '.session.state == "recording" and .fleet.connected' || fail "$h not ready"
done
wait_for 100 jst h1 '.fleet.members_online == 2' || fail "h1 does not see h2 and h3"
echo "broker on 127.0.0.1:$PORT, pid $BROKER_PID; latencyd h1 $PID_h1, h2 $PID_h2, h3 $PID_h3"

# utime + stime of a process, in clock ticks
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# ns on a CPU of a process's threads (schedstat: finer than the ticks)
oncpu() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
# busy and total jiffies of the whole machine
host_cpu() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
# $SYS/broker/publish/messages/{received,sent} (retained, updated every second):
# "received sent", or "- -" when the broker did not say
sys_counts() {
	local out
	for _ in 1 2 3; do
		out=$(mosquitto_sub -h 127.0.0.1 -p "$PORT" -W 3 -C 2 -v \
			-t '$SYS/broker/publish/messages/received' -t '$SYS/broker/publish/messages/sent' |
			awk '$1 ~ /received$/ { r = $2 } $1 ~ /sent$/ { s = $2 } END { if (r != "" && s != "") print r, s }')
		[ -n "$out" ] && { echo "$out"; return; }
	done
	echo "- -"
}
# utime + stime of every process, summed by name: "NAME TICKS" lines
by_name() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk '{ c = $2; sub(/.*\) /, ""); t[c] += $12 + $13 }
		END { for (c in t) print c, t[c] }' | sort
}
incident_list() {
	jq -r '.snapshots[] | select(.incident) | .incident' "$T/$1/catalog/catalog.json" 2>/dev/null | sort
}
count_incidents() { incident_list "$1" | wc -l; }
mon_kind() { awk -F/ -v k="$2" '$3 == k' "$1" | wc -l; }
kv() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"; }
spct() { sort -g | awk -v p="$1" '{v[NR]=$1} END {if (!NR) {print "-"; exit} i=int((NR-1)*p/100)+1; printf "%+.2f", v[i]/1e6}'; }
delta() { [ "$1" = - ] || [ "$2" = - ] && echo - || echo $(($2 - $1)); }
pct() { sort -n | awk -v p="$1" '{v[NR]=$1} END {if (!NR) {print "-"; exit} i=int((NR-1)*p/100)+1; printf "%.2f", v[i]/1e6}'; }

# One step: M simulated members answering after DELAY ms (0: at once), LABEL in the tables.
step() {
	local m=$1 delay=$2 label=$3 members=$(($1 + 3)) tag=$1-$2 k want answered
	echo "=== step: $m simulated members, answers $label"
	SIM_PID=
	if [ "$m" -gt 0 ]; then
		nice -n "$SIM_NICE" "$FLEET_SIM" -t 4 -d "$delay" 127.0.0.1 "$PORT" $PREFIX $GROUP "$m" \
			>"$T/sim-$tag.out" 2>"$T/sim-$tag.err" &
		SIM_PID=$!
		PIDS+=("$SIM_PID")
		wait_for 400 grep -q '^ready' "$T/sim-$tag.out" || fail "fleet-sim did not start: $(cat "$T/sim-$tag.err")"
		[ "$(awk '/^ready/ { print $2 }' "$T/sim-$tag.out")" = "$m" ] ||
			fail "fleet-sim: $(cat "$T/sim-$tag.out" "$T/sim-$tag.err")"
	fi
	# h3 last in the broker's list of subscribers, after the simulated members: mosquitto
	# sends a message to its subscribers in the order they subscribed, and h2 is second.
	kill -TERM "$PID_h3"
	wait "$PID_h3" 2>/dev/null
	LTTNG_HOME=$T/h3/home "$LATENCYD" -c "$T/h3/latencyd.conf" 2>>"$T/h3/latencyd.log" &
	PID_h3=$!
	PIDS+=("$PID_h3")
	wait_for 300 jst h3 '.session.state == "recording" and .fleet.connected' || fail "h3 did not restart"
	for h in h1 h2 h3; do
		wait_for 300 jst $h ".fleet.members_online == $((members - 1))" ||
			fail "$h sees $(ctl $h --json status | jq .fleet.members_online) members, not $((members - 1))"
	done
	sleep 2 # the presences delivered, a $SYS tick past
	# Each message with its receipt: "SECONDS.NS TOPIC PAYLOAD".
	mosquitto_sub -h 127.0.0.1 -p "$PORT" -q 1 -R -F '%U %t %p' -t "$PREFIX/$GROUP/#" \
		>"$T/mon-$tag" 2>/dev/null &
	MON_PID=$!
	sleep 1
	incident_list h1 >"$T/before-$tag"
	read -r sys_in0 sys_out0 < <(sys_counts)
	b0=$(ticks "$BROKER_PID") bn0=$(oncpu "$BROKER_PID")
	s0=$([ -n "$SIM_PID" ] && oncpu "$SIM_PID" || echo 0) p0=$(oncpu "$PID_h2") o0=$(oncpu "$PID_h1")
	read -r busy0 total0 < <(host_cpu)
	by_name >"$T/names0"
	for _ in $(seq "$incidents"); do
		alert h1
		sleep $SPACING
	done
	# Another test or bench on this host meanwhile (its own latencyd, our three aside)?
	foreign=$(($(pgrep -x latencyd | wc -l) - 3))
	read -r busy1 total1 < <(host_cpu)
	by_name >"$T/names1"
	want=$(($(wc -l <"$T/before-$tag") + incidents))
	for h in h1 h2 h3; do
		wait_for 300 sh -c "[ \$(jq '[.snapshots[] | select(.incident)] | length' '$T/$h/catalog/catalog.json') -ge $want ]" ||
			echo "note: $h has $(count_incidents $h) incidents, not $want"
	done
	wait_for 300 sh -c "[ \$(awk -F/ '\$3 == \"result\"' '$T/mon-$tag' | wc -l) -ge $((incidents * members)) ]" ||
		echo "note: $(mon_kind "$T/mon-$tag" result) results seen, not $((incidents * members))"
	sleep 2 # the last deliveries, and a $SYS tick past them
	b1=$(ticks "$BROKER_PID") bn1=$(oncpu "$BROKER_PID")
	s1=$([ -n "$SIM_PID" ] && oncpu "$SIM_PID" || echo 0) p1=$(oncpu "$PID_h2") o1=$(oncpu "$PID_h1")
	read -r sys_in1 sys_out1 < <(sys_counts)
	echo "\$SYS publish/messages received, sent: $sys_in0 $sys_out0 -> $sys_in1 $sys_out1"
	kill "$MON_PID"
	wait "$MON_PID" 2>/dev/null
	"$MQTT_RTT" 127.0.0.1 "$PORT" 200 >"$T/rtt-$tag" || fail "mqtt-rtt"

	# What the origin made of its members' answers: hosts that said recorded, per incident.
	incident_list h1 | comm -13 "$T/before-$tag" - >"$T/new-$tag"
	k=$(wc -l <"$T/new-$tag")
	[ "$k" -gt 0 ] || fail "no incident in step $tag"
	# The newest 20 at most: an incident's entry names every member, and a reply is at most
	# 64 KiB (proto/README.md, Limits).
	answered=$(ctl h1 --json incidents --limit $((k < 20 ? k : 20)) | jq --rawfile new "$T/new-$tag" '
		($new | split("\n") | map(select(length > 0))) as $ids |
		[.incidents[] | select(.incident as $i | $ids | index($i)) | .recorded | length] |
		if length > 0 then add / length else 0 end')
	if [ -n "$SIM_PID" ]; then
		kill -TERM "$SIM_PID"
		wait "$SIM_PID" 2>/dev/null
		tail -n 1 "$T/sim-$tag.out" >"$T/simsum-$tag"
		cat "$T/simsum-$tag"
	else
		: >"$T/simsum-$tag"
	fi
	wait_for 300 jst h1 '.fleet.members_online == 2' ||
		echo "note: h1 still sees $(ctl h1 --json status | jq .fleet.members_online) members"

	# Per incident: the origin's alert end and its record, each real peer's record.
	jq -r '.snapshots[] | select(.incident) | [.incident, .causes[0].end_ns,
		.causes[0].end_ns + .detect_to_record_ns] | @tsv' "$T/h1/catalog/catalog.json" |
		sort | join - "$T/new-$tag" >"$T/origin-$tag"
	for h in h2 h3; do
		jq -r '.snapshots[] | select(.incident) | [.incident,
			.causes[0].start_ns + .wakeup_to_record_ns,
			.wakeup_to_record_ns + .record_ns] | @tsv' "$T/$h/catalog/catalog.json" |
			sort | join "$T/origin-$tag" - >"$T/peerrows-$h-$tag"
		awk '{print $4 - $2}' "$T/peerrows-$h-$tag" >"$T/peer-$h-$tag"
	done
	cat "$T/peer-h2-$tag" "$T/peer-h3-$tag" >"$T/peer-$tag"
	# Inside a peer: from its fleet helper's receipt of the alert to the waiter taking it (the
	# catalog's received_to_record_ns); the rest of the peer's time is the broker's fan-out.
	for h in h2 h3; do
		jq -r '.snapshots[] | select(.incident) | [.incident, .causes[0].received_to_record_ns] |
			@tsv' "$T/$h/catalog/catalog.json" | sort | join "$T/new-$tag" - | awk '{print $NF}'
	done >"$T/inside-$tag"
	# The same incident's record on the last subscriber (h3) minus on the second (h2).
	join "$T/peerrows-h2-$tag" "$T/peerrows-h3-$tag" | awk '{print $8 - $4}' >"$T/h3h2-$tag"
	# A real peer's answer comes once its record is done: from taking the alert to there.
	cat "$T/peerrows-h2-$tag" "$T/peerrows-h3-$tag" | awk '{print $5}' >"$T/peeranswer-$tag"
	awk '{print $3 - $2}' "$T/origin-$tag" >"$T/originrec-$tag"
	# The origin's alert end to its publish (the alert's sent_realtime_ns, one clock): what
	# the origin takes before the broker has the alert.
	awk -F/ '$3 == "alert"' "$T/mon-$tag" | cut -d' ' -f3- |
		jq -r '.sent_realtime_ns - .end_realtime_ns' >"$T/originpub-$tag"
	alerts=$(mon_kind "$T/mon-$tag" alert) results=$(mon_kind "$T/mon-$tag" result)
	presences=$(mon_kind "$T/mon-$tag" presence) seen=$(wc -l <"$T/mon-$tag")
	# Who used the CPUs while the alerts were sent: the busiest five, by name.
	busiest=$(join "$T/names0" "$T/names1" | awk -v t="$TICK" '$3 > $2 { printf "%s %.2f\n", $1, ($3 - $2) / t }' |
		sort -k2 -rn | head -n 5 | tr -d '()' | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $1, $2 }')
	# One tab-separated row per step; the report below reads them by name.
	printf '%s\t' m=$m delay=$delay "label=$label" members=$members k=$k \
		h2=$(wc -l <"$T/peer-h2-$tag") h3=$(wc -l <"$T/peer-h3-$tag") \
		alerts=$alerts results=$results presences=$presences seen=$seen \
		sys_in=$(delta "$sys_in0" "$sys_in1") sys_out=$(delta "$sys_out0" "$sys_out1") \
		broker_ms=$(((b1 - b0) * 1000 / TICK)) broker_ns=$((bn1 - bn0)) \
		sim_ns=$((s1 - s0)) h2_ns=$((p1 - p0)) h1_ns=$((o1 - o0)) \
		busy=$(awk -v b=$((busy1 - busy0)) -v t=$((total1 - total0)) 'BEGIN { printf "%.0f", t ? 100 * b / t : 0 }') \
		"busiest=$busiest" foreign=$foreign \
		rtt50=$(pct 50 <"$T/rtt-$tag") rtt99=$(pct 99 <"$T/rtt-$tag") \
		peer50=$(pct 50 <"$T/peer-$tag") peer99=$(pct 99 <"$T/peer-$tag") peermax=$(pct 100 <"$T/peer-$tag") \
		in50=$(pct 50 <"$T/inside-$tag") in99=$(pct 99 <"$T/inside-$tag") \
		h2_50=$(pct 50 <"$T/peer-h2-$tag") h3_50=$(pct 50 <"$T/peer-h3-$tag") \
		h2_99=$(pct 99 <"$T/peer-h2-$tag") h3_99=$(pct 99 <"$T/peer-h3-$tag") \
		h3h2_50=$(spct 50 <"$T/h3h2-$tag") h3h2_99=$(spct 99 <"$T/h3h2-$tag") \
		orig50=$(pct 50 <"$T/originrec-$tag") orig99=$(pct 99 <"$T/originrec-$tag") \
		pub50=$(pct 50 <"$T/originpub-$tag") pub99=$(pct 99 <"$T/originpub-$tag") \
		answer50=$(pct 50 <"$T/peeranswer-$tag") \
		answered=$(printf '%.1f' "$answered") \
		sim_alerts=$(kv "$T/simsum-$tag" alerts) sim_sent=$(kv "$T/simsum-$tag" results_sent) \
		sim_lost=$(kv "$T/simsum-$tag" lost) \
		dl50=$(kv "$T/simsum-$tag" deliver_p50_ns) dl99=$(kv "$T/simsum-$tag" deliver_p99_ns) \
		dlmax=$(kv "$T/simsum-$tag" deliver_max_ns) an99=$(kv "$T/simsum-$tag" answer_p99_ns) \
		>>"$T/rows"
	echo >>"$T/rows"
	tail -n 1 "$T/rows"
}

# Each M twice: the simulated members answering as soon as the alert arrives (their
# results meet the alert's fan-out), then as a real peer does, once its record is done:
# after the real peers' median time from taking an alert to the end of its record, as
# measured in the first step without simulated members (ANSWER_DELAY_MS otherwise).
: >"$T/rows"
delay=${ANSWER_DELAY_MS:-50}
for m in $steps; do
	if [ "$m" = 0 ]; then
		step 0 0 "-"
		d=$(sed -n '$p' "$T/rows" | tr '\t' '\n' | sed -n 's/^answer50=//p')
		[ -z "${ANSWER_DELAY_MS:-}" ] && [ -n "$d" ] && [ "$d" != - ] &&
			delay=$(awk -v d="$d" 'BEGIN { v = int(d + 0.5); print v < 1 ? 1 : v }')
	else
		step "$m" 0 "at once"
		step "$m" "$delay" "after ${delay} ms"
	fi
done
# The real nodes after all steps: alive, memory, what their fleet client counted, what
# their logs warned of.
for h in h1 h2 h3; do
	pid=$(eval echo "\$PID_$h")
	if kill -0 "$pid" 2>/dev/null; then
		echo "- $h: VmRSS $(awk '/VmRSS/ { print $2, $3 }' "/proc/$pid/status"), VmHWM" \
			"$(awk '/VmHWM/ { print $2, $3 }' "/proc/$pid/status"), fleet" \
			"\`$(ctl $h --json status | jq -c '.fleet | {received, published, failed, reconnects, dropped}')\`," \
			"$(grep -ciE 'warn|error|drop|fail' "$T/$h/latencyd.log") log lines with warn, error, drop or fail" \
			"of $(wc -l <"$T/$h/latencyd.log")$(grep -iE 'warn|error|drop|fail' "$T/$h/latencyd.log" |
				sed 's/^[^]]*\] //; s/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn | head -n 3 |
				awk '{ c = $1; $1 = ""; printf "%s %dx \"%s\"", (NR > 1 ? ";" : ":"), c, substr($0, 2) }')"
	else
		echo "- $h: latencyd is gone: $(tail -n 3 "$T/$h/latencyd.log")"
	fi
done >"$T/nodes"
# latencyctl incidents, all of them: one entry per incident naming every member that answered.
ctl h1 --json incidents >"$T/incidents.json" 2>"$T/incidents.err"
rc=$?
if [ "$rc" = 0 ]; then
	echo "- h1's \`latencyctl incidents\` (no --limit): $(jq '.incidents | length' "$T/incidents.json") incidents," \
		"$(($(wc -c <"$T/incidents.json") / 1024)) KiB of JSON." >>"$T/nodes"
else
	echo "- h1's \`latencyctl incidents\` (no --limit) after $(count_incidents h1) incidents: exit $rc," \
		"\`$(cat "$T/incidents.err" "$T/incidents.json" | tr -s '\n' ' ' | cut -c 1-160)\`" \
		"(latencyd: \"$(grep 'reply exceeds' "$T/h1/latencyd.log" | tail -n 1)\")." >>"$T/nodes"
fi
cat "$T/nodes"

# get NAME ROW: a field of a row
get() { tr '\t' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
ms() { [ -z "$1" ] || [ "$1" = 0 ] && echo - || awk -v v="$1" 'BEGIN { printf "%.2f", v / 1e6 }'; }
per() { [ "$1" = - ] && echo - || awk -v a="$1" -v k="$2" -v d="${3:-1}" -v f="${4:-%.1f}" 'BEGIN { printf f, a / k / d }'; }
when=$(date -u '+%Y-%m-%d %H:%M UTC')
{
cat <<TEXT
## 8. Fleet at scale ($when)

\`bench/fleet-scale.sh $incidents $steps\`: as part 6, all on this host ($(nproc) cores,
$(uname -r)), one mosquitto ($(mosquitto -h 2>/dev/null | sed -n '1s/.*version //p'),
\`set_tcp_nodelay true\` as the README's) and one lttng-relayd on 127.0.0.1: a real
origin h1 and two real peers h2, h3 (latencyd, userspace domain, each with its own
lttng-sessiond, \`realtime.priority = $NODE_RT_PRIORITY\` (50, the default: the waiter
SCHED_FIFO and the fleet reader just below it; the nodes run as nobody with CAP_SYS_NICE,
which latencyd.service keeps; \`FLEET_RT_PRIORITY=0\` for normal priority, as part 6);
the peer buckets opened wide, \`peer_rate\` and \`total_rate\` 100/s, so that every incident is
recorded), plus M simulated members: \`bench/fleet/fleet-sim\`, one process of M
libmosquitto clients on 4 threads at nice $SIM_NICE (it stands for other hosts' CPUs),
each speaking the fleet protocol with proto/'s codec as latencyd does (MQTT v5 without
Nagle, client id \`latencyd-simNNN\`, a retained presence and last will, QoS 0
subscriptions to the group's alerts and presences and its own results, a \`recorded\`
result for each alert, to its origin). Each M runs twice: the
simulated members answering *at once* (their results meet the alert's fan-out: the
worst case), then *after D ms*, D being the real peers' median time from taking an alert
to the end of their record in the step without simulated members (a real peer answers
when its snapshot is done). Each step: $incidents alerts on h1, one every $SPACING s.

- *Published*: messages into the broker per incident, counted by a monitoring subscriber
  to \`$PREFIX/$GROUP/#\` (QoS 1, retained messages left out) by topic, and by the
  broker's own \`\$SYS/broker/publish/messages/received\`. *Delivered*:
  \`\$SYS/broker/publish/messages/sent\`, each message to each subscriber, the monitor's
  copies taken out.
- *Broker CPU*: mosquitto's utime + stime (/proc/PID/stat, 10 ms ticks) over the step, and
  its time on a CPU (/proc/PID/task/*/schedstat); the simulator's, the origin's (h1's
  latencyd, all threads: it takes every member's result) and a real peer's (h2's) time on
  a CPU beside it. *Host busy*: both cores, while the alerts are sent. *Origin's
  answers*: the hosts h1's \`latencyctl incidents\` lists as
  having recorded each of the step's incidents (itself included; the newest 20 of them).
- *Peer*: the origin's alert end to each real peer's \`lttng_snapshot_record()\`
  (catalogs, one clock, as part 6), h2 and h3 pooled; *in the peer*: from its fleet
  helper's receipt to the waiter taking the alert (the catalog's \`received_to_record_ns\`),
  the rest being the broker's fan-out and the helper's wakeup. mosquitto sends a message to its
  subscribers one after the other, in the order they subscribed: h2 is second (after h1),
  and h3's latencyd is restarted at each step once the simulated members are in, so that
  it is last. *Origin: alert to its publish*: the alert's end to its
  \`sent_realtime_ns\`, when h1's latencyd handed it to its fleet helper (both in the
  message, one clock). *fleet-sim delivery*: the alert's \`sent_realtime_ns\` to each
  simulated member's receipt, the simulator's own scheduling at nice $SIM_NICE included; *answer*: that receipt to the result handed to libmosquitto.
- *Broker RTT*: \`bench/fleet/mqtt-rtt\`, 200 QoS 1 round trips after the step's
  incidents, the step's members still connected.

| members: simulated + real | simulated answer | incidents (h2, h3 recorded) | per incident: alerts / results / presences | published per incident (monitor; \$SYS) | delivered per incident | broker CPU per incident (utime + stime; on CPU) | fleet-sim CPU per incident | h1 (origin) latencyd CPU per incident | h2 latencyd CPU per incident | host busy | origin's answers per incident |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
TEXT
while read -r row; do
	[ -n "$row" ] || continue
	k=$(get k "$row") seen=$(get seen "$row") out=$(get sys_out "$row")
	[ "$out" = - ] || out=$((out - seen))
	printf '| %s + 3 | %s | %s (%s, %s) | %s / %s / %s | %s; %s | %s | %s ms; %s ms | %s ms | %s ms | %s ms | %s %% | %s |\n' \
		"$(get m "$row")" "$(get label "$row")" "$k" "$(get h2 "$row")" "$(get h3 "$row")" \
		"$(per "$(get alerts "$row")" "$k")" "$(per "$(get results "$row")" "$k")" \
		"$(per "$(get presences "$row")" "$k")" "$(per "$seen" "$k")" \
		"$(per "$(get sys_in "$row")" "$k")" "$(per "$out" "$k" 1 %.0f)" \
		"$(per "$(get broker_ms "$row")" "$k")" "$(per "$(get broker_ns "$row")" "$k" 1e6 %.2f)" \
		"$(per "$(get sim_ns "$row")" "$k" 1e6 %.2f)" "$(per "$(get h1_ns "$row")" "$k" 1e6 %.2f)" \
		"$(per "$(get h2_ns "$row")" "$k" 1e6 %.2f)" \
		"$(get busy "$row")" "$(get answered "$row")"
done <"$T/rows"
cat <<TEXT

| members: simulated + real | simulated answer | peer: alert to record, p50 / p99 / max | of which in the peer: helper's receipt to the waiter, p50 / p99 | h2 (2nd subscriber) p50 / p99 | h3 (last subscriber) p50 / p99 | h3 − h2, same incident, p50 / p99 | origin: alert to its own record, p50 / p99 | origin: alert to its publish, p50 / p99 | broker RTT p50 / p99 | p99 ≤ 5 ms + RTT p99 | fleet-sim delivery p50 / p99 / max | fleet-sim answer p99 |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|
TEXT
: >"$T/verdicts"
while read -r row; do
	[ -n "$row" ] || continue
	p99=$(get peer99 "$row") r99=$(get rtt99 "$row")
	ok=$(awk -v p="$p99" -v r="$r99" 'BEGIN { print (p != "-" && p <= 5 + r) ? "met" : "missed" }')
	op=$([ "$ok" = met ] && echo "≤" || echo ">")
	lim=$(awk -v r="$r99" 'BEGIN { printf "%.2f", 5 + r }')
	echo "$(get m "$row")|$(get delay "$row")|$ok|$p99|$lim" >>"$T/verdicts"
	printf '| %s + 3 | %s | %s / %s / %s ms | %s / %s ms | %s / %s ms | %s / %s ms | %s / %s ms | %s / %s ms | %s / %s ms | %s / %s ms | %s (%s %s %s ms) | %s / %s / %s ms | %s ms |\n' \
		"$(get m "$row")" "$(get label "$row")" "$(get peer50 "$row")" "$p99" "$(get peermax "$row")" \
		"$(get in50 "$row")" "$(get in99 "$row")" \
		"$(get h2_50 "$row")" "$(get h2_99 "$row")" "$(get h3_50 "$row")" "$(get h3_99 "$row")" \
		"$(get h3h2_50 "$row")" "$(get h3h2_99 "$row")" "$(get orig50 "$row")" "$(get orig99 "$row")" \
		"$(get pub50 "$row")" "$(get pub99 "$row")" \
		"$(get rtt50 "$row")" "$r99" "$ok" "$p99" "$op" "$lim" \
		"$(ms "$(get dl50 "$row")")" "$(ms "$(get dl99 "$row")")" "$(ms "$(get dlmax "$row")")" \
		"$(ms "$(get an99 "$row")")"
done <"$T/rows"
echo
echo "Busiest processes while the alerts were sent (CPU seconds, by name):"
echo
while read -r row; do
	[ -n "$row" ] || continue
	f=$(get foreign "$row")
	echo "- $(get m "$row") + 3, $(get label "$row"): $(get busiest "$row")$([ "$f" -gt 0 ] && echo " ($f latencyd of another run on the host at the end of the alerts)")."
done <"$T/rows"
echo
# Published per incident against members: least squares, its worst residual; delivered per
# incident over published per incident (the subscribers each message reaches).
fit=$(while read -r row; do
	[ -n "$row" ] || continue
	echo "$(get members "$row") $(get seen "$row") $(get k "$row") $(get sys_out "$row")"
done <"$T/rows" | awk '
	{ x[NR] = $1; y[NR] = $2 / $3; d[NR] = $4 == "-" ? -1 : ($4 - $2) / $3; sx += x[NR]; sy += y[NR] }
	END {
		n = NR; mx = sx / n; my = sy / n
		for (i = 1; i <= n; i++) { sxx += (x[i] - mx) ^ 2; sxy += (x[i] - mx) * (y[i] - my) }
		b = sxx ? sxy / sxx : 0; a = my - b * mx
		for (i = 1; i <= n; i++) { r = y[i] - a - b * x[i]; if (r < 0) r = -r; if (r > w) w = r }
		printf "%.3f %.2f %.2f %.1f %.1f %d %d %.2f %.2f\n", b, a, w, d[1] / y[1], d[n] / y[n], x[1], x[n],
			d[1] / x[1], d[n] / x[n]
	}')
read -r slope icept worst fan1 fann x1 xn dpm1 dpmn <<<"$fit"
lin=$(awk -v w="$worst" 'BEGIN { print (w <= 1) ? "met" : "missed" }')
# Deliveries per incident per member, at the fewest and the most members: about constant
# when the deliveries grow linearly, growing with the members when they grow as their square.
dlin=$(awk -v a="$dpm1" -v b="$dpmn" 'BEGIN { print (b <= 2 * a) ? "linear" : "faster than linear" }')
[ "$dlin" = linear ] || lin=missed
cat <<TEXT
Published per incident against members (real + simulated, every step): slope $slope
messages per member, intercept $icept, worst residual $worst messages per incident: one
alert, then one result from every peer. An alert is delivered to every member, a result
to its origin alone (fleet protocol 3: \`$PREFIX/$GROUP/result/ORIGIN/HOST\`): $fan1
deliveries per published message at $x1 members, $fann at $xn; per incident and member,
$dpm1 deliveries at $x1 members and $dpmn at $xn: the deliveries grow **$dlin** in the
members.

The real nodes after the run (the log: what latencyd wrote to stderr):

TEXT
cat "$T/nodes"
echo
# verdict DELAY-FILTER WHAT: the peer target over the steps whose answers match
verdict_peer() {
	awk -F'|' -v want="$1" '
		want == "once" && $1 != 0 && $2 != 0 { next }
		want == "after" && $1 != 0 && $2 == 0 { next }
		{ if ($3 != "met") bad = 1
		  s = s sprintf("%s%s simulated: %s ms %s %s ms", (n++ ? "; " : ""), $1, $4, ($3 == "met" ? "≤" : ">"), $5) }
		END { print (bad ? "missed" : "met") "|" s }' "$T/verdicts"
}
IFS='|' read -r v_after s_after <<<"$(verdict_peer after)"
IFS='|' read -r v_once s_once <<<"$(verdict_peer once)"
echo "**Target: messages per incident linear in members — $lin** (published: slope $slope per member, worst residual $worst; delivered: $dlin, $dpm1 per member at $x1 members, $dpmn at $xn)."
echo
echo "**Target: a real peer's alert-to-record p99 ≤ 5 ms + the broker's round-trip p99, simulated members answering as real peers do (after ${delay} ms) — $v_after** ($s_after)."
echo
echo "**The same, simulated members answering at once — $v_once** ($s_once)."
echo
echo "=== end"
}
