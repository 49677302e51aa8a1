#!/bin/bash
# The fleet's subscriptions not made, for real: a connection without them hears nothing, and
# is made again instead, said in status and the log.
# - h1's SUBSCRIBE cannot be sent: a real mosquitto on 127.0.0.1 with max_packet_size 400,
#   which h1's CONNECT fits (a short host) and its SUBSCRIBE (three topics, each with a
#   63-byte topic_prefix and group) does not; libmosquitto refuses to send it;
# - h2's broker (subackless-broker.py) never answers its SUBSCRIBE: after 10 s without a
#   SUBACK, h2 closes the connection and makes it again.
# Each reconnects (the broker sees a second connection), and its own alert is recorded.
# Usage: lttng-env --relayd test-fleet-subscribe.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
. "$(dirname "$0")/fleet-lib.sh"

broker_conf() {
	cat <<CONF
listener $PORT 127.0.0.1
allow_anonymous true
persistence false
set_tcp_nodelay true
max_packet_size 400
CONF
}
start_fleet_broker
python3 "$(dirname "$0")/subackless-broker.py" "$T/subackless.port" >"$T/subackless.out" \
	2>>"$T/subackless.log" &
PIDS+=($!)
wait_for 50 test -s "$T/subackless.port" || fail "subackless-broker.py did not listen: $(cat "$T/subackless.log")"
SUBACKLESS_PORT=$(cat "$T/subackless.port")

LONG=$(printf 'x%.0s' $(seq 63))
FLEET_EXTRA="topic_prefix = \"$LONG\";" node h1 "$LONG" 10 10
FLEET_BROKER=mqtt://127.0.0.1:$SUBACKLESS_PORT node h2 lab 10 10
for h in h1 h2; do
	wait_for 200 jst $h '.session.state == "recording"' ||
		fail "$h: not recording: $(ctl $h --json status; tail -5 "$T/$h/latencyd.log")"
done

connects() {
	case $1 in
	h1) grep -c "New client connected from .* as latencyd-h1 " "$T/mosquitto.log" ;;
	h2) grep -c "^conn [0-9]*$" "$T/subackless.out" ;;
	esac
}
twice() { [ "$(connects "$1")" -ge 2 ]; }
complete() { ctl "$1" --json list-snapshots | jq '[.snapshots[] | select(.status == "complete")] | length'; }
more_complete() { [ "$(complete "$1")" -gt "$2" ]; }
# retried NODE URL WHY WHAT: the broker saw NODE connect twice at least; status and the log
# say WHY; NODE's own alert is recorded.
retried() {
	local h=$1 url=$2 why=$3 what=$4 before
	wait_for 300 twice "$h" ||
		fail "$h ($what): $(connects "$h") connection(s), not made again: $(ctl "$h" --json status | jq -c .fleet); $(tail -5 "$T/$h/latencyd.log")"
	wait_for 300 grep -qF "fleet: not connected to $url ($why" "$T/$h/latencyd.log" ||
		fail "$h ($what): its log does not say '$why': $(grep fleet "$T/$h/latencyd.log")"
	wait_for 300 jst "$h" "(.fleet.detail // \"\") | contains(\"$why\")" ||
		fail "$h ($what): status does not say '$why': $(ctl "$h" --json status | jq -c .fleet)"
	before=$(complete "$h")
	alert "$h"
	wait_for 300 more_complete "$h" "$before" ||
		fail "$h ($what): its own alert was not recorded: $(ctl "$h" --json list-snapshots)"
	pass "$what: $(connects "$h") connections, '$why' in status and the log; its own alert recorded"
}
sleep 1 # some history in the buffers
retried h1 "mqtt://127.0.0.1:$PORT" \
	"cannot subscribe to the group's topics: Packet larger than supported by the server." \
	"a SUBSCRIBE larger than the broker's maximum packet size"
grep -q "latencyd-h1 disconnected due to" "$T/mosquitto.log" &&
	fail "mosquitto closed h1's connection, not h1: $(cat "$T/mosquitto.log")"
retried h2 "mqtt://127.0.0.1:$SUBACKLESS_PORT" \
	"the broker did not acknowledge the subscriptions within 10 s (no SUBACK)" \
	"a broker that never sends the SUBACK"

stop_nodes h1 h2
pass "fleet-subscribe"
