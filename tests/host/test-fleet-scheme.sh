#!/bin/bash
# The broker URL's scheme against the listener's, for real: mosquitto on 127.0.0.1 with a
# TLS listener (a CA and the broker's certificate made here with openssl, in $T only) and a
# plain one, both anonymous. h1 speaks mqtts:// to the TLS listener and connects; h2 speaks
# mqtt:// to it, h3 mqtts:// to the plain one. Each of h2 and h3 stays disconnected, its
# status (--json and text) and its log saying which scheme the listener needs, and records
# its own alerts.
# Usage: lttng-env --relayd test-fleet-scheme.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
command -v openssl >/dev/null || { echo "SKIP: openssl is not installed"; exit 77; }
. "$(dirname "$0")/fleet-lib.sh"

P=$T/pki
mkdir -p "$P"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$P/$1.key"; }
{
	key ca && openssl req -x509 -new -key "$P/ca.key" -subj "/CN=latencyd test ca" -days 2 \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
		-out "$P/ca.crt" &&
		key server && openssl req -new -key "$P/server.key" -subj /CN=localhost \
		-out "$P/server.csr" &&
		printf '%s\n' subjectAltName=IP:127.0.0.1,DNS:localhost extendedKeyUsage=serverAuth \
			>"$P/server.ext" &&
		openssl x509 -req -in "$P/server.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" \
			-CAcreateserial -days 2 -extfile "$P/server.ext" -out "$P/server.crt"
} >"$T/pki.out" 2>&1 || fail "openssl: $(cat "$T/pki.out")"

# fleet-lib.sh's start_broker: TLS on PORT, plain on PORT+1.
broker_conf() {
	cat <<CONF
persistence false
allow_anonymous true
set_tcp_nodelay true
listener $PORT 127.0.0.1
cafile $P/ca.crt
certfile $P/server.crt
keyfile $P/server.key
listener $((PORT + 1)) 127.0.0.1
CONF
}
start_fleet_broker
TLS_PORT=$PORT PLAIN_PORT=$((PORT + 1))
wait_for 50 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PLAIN_PORT" || fail "no plain listener"
CA="ca_file = \"$P/ca.crt\";"

FLEET_BROKER=mqtts://127.0.0.1:$TLS_PORT FLEET_EXTRA=$CA node h1 lab 10 10
FLEET_BROKER=mqtt://127.0.0.1:$TLS_PORT node h2 lab 10 10
FLEET_BROKER=mqtts://127.0.0.1:$PLAIN_PORT FLEET_EXTRA=$CA node h3 lab 10 10
# wait_for's counter is n: another name here.
for h in h1 h2 h3; do
	wait_for 200 jst $h '.session.state == "recording"' ||
		fail "$h: not recording: $(ctl $h --json status; tail -5 "$T/$h/latencyd.log")"
done
wait_for 200 jst h1 '.fleet.connected and .fleet.subscribed' ||
	fail "h1 (mqtts:// to the TLS listener): $(ctl h1 --json status | jq -c .fleet)"
pass "h1, mqtts:// to the TLS listener, connected"


# The broker's log counts the attempts: on the TLS listener each plain one is OpenSSL's
# "wrong version number"; on the plain listener each TLS one is a connection (after the
# one wait_for made above) that it drops as a protocol error.
attempts() {
	case $1 in
	h2) grep -c "wrong version number" "$T/mosquitto.log" ;;
	h3) echo $(($(grep -c "New connection from .* on port $PLAIN_PORT\.$" "$T/mosquitto.log") - 1)) ;;
	esac
}
retried() { [ "$(attempts "$1")" -ge 3 ]; }
complete() { ctl "$1" --json list-snapshots | jq '[.snapshots[] | select(.status == "complete")] | length'; }
more_complete() { [ "$(complete "$1")" -gt "$2" ]; }
# mismatch NODE URL DETAIL_REGEX WHAT: after 3 attempts at least (retried, not given up),
# disconnected, the status (JSON and text) and the log say DETAIL, the log once or twice,
# not once per attempt; the node's own alert is recorded.
mismatch() {
	local h=$1 url=$2 re=$3 what=$4 lines before
	wait_for 300 retried "$h" ||
		fail "$h ($what): $(attempts "$h") attempt(s) in the broker's log: $(cat "$T/mosquitto.log")"
	jst "$h" ".fleet.connected == false and .fleet.broker == \"$url\" and (.fleet.detail | test(\"$re\"))" ||
		fail "$h ($what) after $(attempts "$h") attempts: $(ctl "$h" --json status | jq -c .fleet); log: $(cat "$T/$h/latencyd.log")"
	ctl "$h" status | grep -Eq "^Fleet: +not connected to $url \($re" ||
		fail "$h ($what): status says $(ctl "$h" status | grep Fleet)"
	lines=$(grep -Ec "fleet: not connected to $url \($re" "$T/$h/latencyd.log")
	[ "$lines" -ge 1 ] && [ "$lines" -le 2 ] ||
		fail "$h ($what): said $lines time(s) in its log for $(attempts "$h") attempts: $(cat "$T/$h/latencyd.log")"
	before=$(complete "$h")
	alert "$h"
	wait_for 300 more_complete "$h" "$before" ||
		fail "$h ($what): its own alert was not recorded: $(ctl "$h" --json list-snapshots)"
	pass "$what: '$(ctl "$h" --json status | jq -r .fleet.detail)' in status and $lines line(s) of the log for $(attempts "$h") attempts; its own alert recorded"
}
sleep 1 # some history in the buffers
mismatch h2 "mqtt://127.0.0.1:$TLS_PORT" \
	'the broker closed the connection before accepting it .*: a TLS listener needs mqtts://' \
	"mqtt:// to a TLS listener"
mismatch h3 "mqtts://127.0.0.1:$PLAIN_PORT" \
	'TLS: the broker did not answer the handshake .unexpected eof.: a listener without TLS, if it is one, needs mqtt://' \
	"mqtts:// to a listener without TLS"
jst h1 '.fleet.connected and .fleet.members_online == 0' ||
	fail "h1: $(ctl h1 --json status | jq -c .fleet)"

stop_nodes h1 h2 h3
pass "fleet-scheme"
