#!/bin/bash
# The fleet's reaction time: from an alert on the origin to each peer's
# lttng_snapshot_record() call, next to the origin's own alert-to-record time and the
# broker's bare round trip, in one run. Two latencyd (userspace domain, each with its own
# lttng-sessiond) and a mosquitto broker on this host: one clock for all, so each interval
# is the difference of two CLOCK_MONOTONIC readings, no clock to trust or align.
# Usage: bench/fleet-bench.sh [INCIDENTS]   (default 40; needs root and a build in build/)
# Writes bench/fleet-results.md (bench/report puts it in bench/RESULTS.md) and prints it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${LATENCYD_BUILD_DIR:-$here/../build}
incidents=${1:-40}
. "$here/fleet/lib.sh"
bench_outer "6\\. Fleet" fleet-results.md -- "$@"
bench_inner
start_fleet_broker
# The peer buckets wide open (a fleet rate cannot be 0, "no limit"): every alert recorded.
export FLEET_EXTRA='total_rate = 100; total_burst = 100;'
node h1 bench 100 100
node h2 bench 100 100
for h in h1 h2; do
	wait_for 200 jst $h '.session.state == "recording" and .fleet.connected' || fail "$h not ready"
done
sleep 1
for i in $(seq "$incidents"); do alert h1; sleep 0.3; done
wait_for 300 sh -c "[ \$('$LATENCYCTL' -s '$T/h2/ctl.sock' --json list-snapshots | jq .matched) -ge $incidents ]" ||
	fail "h2 recorded $(ctl h2 --json list-snapshots | jq .matched) of $incidents incidents"
"$build/bench/fleet/mqtt-rtt" 127.0.0.1 "$PORT" 200 >"$T/rtt" || fail "mqtt-rtt"

# Per incident: the origin's alert end, its record start, the peer's record start.
jq -r '.snapshots[] | select(.incident) | [.incident, .causes[0].end_ns,
	.causes[0].end_ns + .detect_to_record_ns] | @tsv' "$T/h1/catalog/catalog.json" |
	sort >"$T/origin"
jq -r '.snapshots[] | select(.incident) | [.incident,
	.causes[0].start_ns + .wakeup_to_record_ns] | @tsv' "$T/h2/catalog/catalog.json" |
	sort >"$T/peer"
join "$T/origin" "$T/peer" | awk '{print $3 - $2, $4 - $2}' >"$T/pairs"
[ "$(wc -l <"$T/pairs")" -ge "$incidents" ] || fail "only $(wc -l <"$T/pairs") incidents matched"
when=$(date -u '+%Y-%m-%d %H:%M UTC')
pct() { sort -n | awk -v p="$1" '{v[NR]=$1} END {i=int((NR-1)*p/100)+1; printf "%.2f", v[i]/1e6}'; }
{
cat <<TEXT
## 6. Fleet: an alert to its peers' records ($when)

\`bench/fleet-bench.sh $incidents\`: two latencyd (userspace domain, each with its own
lttng-sessiond, snapshots to one lttng-relayd) and a mosquitto broker, all on this host, so
that every interval is the difference of two CLOCK_MONOTONIC readings of one clock (no
guest clock to trust or align). One alert every 0.3 s on the origin; for each incident,
the origin's alert end, its own \`lttng_snapshot_record()\` call (its catalog entry's
\`detect_to_record_ns\`) and the peer's call (the peer cause's \`start_ns\` +
\`wakeup_to_record_ns\`). In the same run, the broker's bare round trip: one libmosquitto
client publishing QoS 1 to a topic it subscribes to (\`bench/fleet/mqtt-rtt\`). The
origin publishes as its own record starts (the waiter announces it to the main loop), so a
peer does not wait for the origin's record to end.

TEXT
printf '| measure (%d incidents, %d broker round trips) | p50 | p99 | max |\n|---|---:|---:|---:|\n' \
	"$(wc -l <"$T/pairs")" "$(wc -l <"$T/rtt")"
row() { printf '| %s | %s ms | %s ms | %s ms |\n' "$1" "$(pct 50 <"$2")" "$(pct 99 <"$2")" "$(pct 100 <"$2")"; }
awk '{print $1}' "$T/pairs" >"$T/origin_ns"
awk '{print $2}' "$T/pairs" >"$T/peer_ns"
row "origin: its alert to its own lttng_snapshot_record()" "$T/origin_ns"
row "peer: the origin's alert to the peer's lttng_snapshot_record()" "$T/peer_ns"
row "broker: bare round trip (QoS 1 publish to delivery)" "$T/rtt"
echo
echo "=== end"
}
