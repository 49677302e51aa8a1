#!/bin/bash
# The fleet behind an authenticating broker, for real (#26): mosquitto on 127.0.0.1 with TLS
# only, allow_anonymous false, a password listener and a client-certificate listener
# (use_identity_as_username), the README's ACL (a host publishes only on its own topics) and
# message size limit; the CA, certificates and keys made here with openssl, in $T only.
# h1 (client certificate) and h2 (password over TLS) share incidents; h3 (wrong password),
# h4 (trusts another CA) and h5 (expired client certificate) stay disconnected, say why in
# their status and log, and record their own alerts; so does h9 (the broker's certificate is
# for another host name), whose status names that cause, not only "certificate verify
# failed"; h8 speaks mqtt:// to the TLS listener,
# which closes the connection: said too; a client authenticated as h2 cannot speak on h1's
# topic.
# Usage: lttng-env --relayd test-fleet-auth.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
for tool in openssl mosquitto_passwd mosquitto_pub mosquitto_sub; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
RELAYD_OUT=$LATENCYD_TEST_RELAYD_OUT
. "$(dirname "$0")/fleet-lib.sh"

# The PKI: a CA, the broker's certificate for 127.0.0.1 and localhost, a client certificate
# per host (CN = its fleet name), h5's expired (openssl ca backdates it), another CA; a broker
# certificate for another host name (wrong-name).
P=$T/pki
mkdir -p "$P/db"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$P/$1.key"; }
ca() {
	key "$1"
	openssl req -x509 -new -key "$P/$1.key" -subj "/CN=latencyd test $1" -days 2 \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
		-out "$P/$1.crt"
}
# cert NAME CN EXTENSION...: a key and a certificate signed by ca, valid for 2 days.
cert() {
	local n=$1 cn=$2
	shift 2
	key "$n"
	openssl req -new -key "$P/$n.key" -subj "/CN=$cn" -out "$P/$n.csr" &&
		printf '%s\n' "$@" >"$P/$n.ext" &&
		openssl x509 -req -in "$P/$n.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial \
			-days 2 -extfile "$P/$n.ext" -out "$P/$n.crt"
}
clients() { for h; do cert "$h" "$h" extendedKeyUsage=clientAuth || return; done; }
{
	ca ca && ca other-ca &&
		cert server localhost subjectAltName=IP:127.0.0.1,DNS:localhost \
			extendedKeyUsage=serverAuth &&
		cert wrong-name elsewhere.example subjectAltName=DNS:elsewhere.example \
			extendedKeyUsage=serverAuth &&
		clients h1 h2 h3 h4 h6 &&
		key h5 && openssl req -new -key "$P/h5.key" -subj /CN=h5 -out "$P/h5.csr"
} >"$T/pki.out" 2>&1 || fail "openssl: $(cat "$T/pki.out")"
: >"$P/db/index.txt"
echo 1000 >"$P/db/serial"
cat >"$P/ca.cnf" <<CNF
[ ca ]
default_ca = test
[ test ]
database = $P/db/index.txt
new_certs_dir = $P/db
serial = $P/db/serial
default_md = sha256
policy = any
[ any ]
commonName = supplied
[ client ]
extendedKeyUsage = clientAuth
CNF
openssl ca -batch -config "$P/ca.cnf" -cert "$P/ca.crt" -keyfile "$P/ca.key" -in "$P/h5.csr" \
	-out "$P/h5.crt" -notext -extensions client -startdate 20200101000000Z \
	-enddate 20200102000000Z >"$T/pki.out" 2>&1 || fail "openssl ca: $(cat "$T/pki.out")"
openssl verify -CAfile "$P/ca.crt" "$P/h5.crt" 2>&1 | grep -q "certificate has expired" ||
	fail "h5's certificate is not expired: $(openssl x509 -in "$P/h5.crt" -noout -dates)"
openssl verify -CAfile "$P/ca.crt" "$P/server.crt" "$P/h1.crt" >"$T/pki.out" 2>&1 ||
	fail "openssl verify: $(cat "$T/pki.out")"
# Passwords: h3's file says the wrong one; intruder is an account of no member's.
: >"$P/passwd"
for h in h1 h2 h3 intruder; do
	echo "secret-$h-$RANDOM$RANDOM" >"$P/$h.pass"
	mosquitto_passwd -b "$P/passwd" "$h" "$(cat "$P/$h.pass")" >"$T/pki.out" 2>&1 ||
		fail "mosquitto_passwd: $(cat "$T/pki.out")"
done
echo "not-the-password" >"$P/h3.wrong"
# The ACL of README.md's Broker section.
cat >"$P/acl" <<'ACL'
pattern write latencyd/+/alert/%u
pattern write latencyd/+/result/+/%u
pattern write latencyd/+/presence/%u
pattern read latencyd/#
ACL

# The broker (fleet-lib.sh's start_broker): passwords on PORT, certificates on PORT+1;
# PORT+3 shows a certificate for another host name.
broker_conf() {
	cat <<CONF
persistence false
allow_anonymous false
password_file $P/passwd
acl_file $P/acl
message_size_limit 4096
set_tcp_nodelay true
listener $PORT 127.0.0.1
use_username_as_clientid true
cafile $P/ca.crt
certfile $P/server.crt
keyfile $P/server.key
listener $((PORT + 1)) 127.0.0.1
cafile $P/ca.crt
certfile $P/server.crt
keyfile $P/server.key
require_certificate true
use_identity_as_username true
use_username_as_clientid true
listener $((PORT + 3)) 127.0.0.1
cafile $P/ca.crt
certfile $P/wrong-name.crt
keyfile $P/wrong-name.key
CONF
}
start_fleet_broker
PW_URL=mqtts://127.0.0.1:$PORT CERT_URL=mqtts://127.0.0.1:$((PORT + 1))
CA="ca_file = \"$P/ca.crt\";"
certs() { echo "cert_file = \"$P/$1.crt\"; key_file = \"$P/$1.key\";"; }
password() { echo "username = \"$1\"; password_file = \"$P/$2\";"; }
# mosquitto_pub/sub authenticated by a certificate (cert NAME) or a password (pw NAME).
auth() {
	case $1 in
	cert) echo "-p $((PORT + 1)) --cafile $P/ca.crt --cert $P/$2.crt --key $P/$2.key" ;;
	pw) echo "-p $PORT --cafile $P/ca.crt -u $2 -P $(cat "$P/$2.pass")" ;;
	esac
}

# What every fleet message looks like on the wire, seen by a client authenticated as h3.
# shellcheck disable=SC2046
mosquitto_sub -h 127.0.0.1 $(auth cert h3) -q 1 -v -t 'latencyd/#' >"$T/watch.out" 2>"$T/watch.err" &
PIDS+=($!)
jinc() { local out; out=$(ctl "$1" --json incidents 2>/dev/null) && [ -n "$out" ] && jq -e "$2" <<<"$out" >/dev/null; }
in_relayd() { find "$RELAYD_OUT" -mindepth 3 -maxdepth 3 -type d -name "snap-*-$1@*" | sort; }
snapshots() { ctl "$1" --json list-snapshots | jq '.matched'; }

FLEET_BROKER=$CERT_URL FLEET_EXTRA="$CA $(certs h1)" node h1 lab 10 10
FLEET_BROKER=$PW_URL FLEET_EXTRA="$CA $(password h2 h2.pass)" node h2 lab 10 10
FLEET_BROKER=$PW_URL FLEET_EXTRA="$CA $(password h3 h3.wrong)" node h3 lab 10 10
FLEET_BROKER=$CERT_URL FLEET_EXTRA="ca_file = \"$P/other-ca.crt\"; $(certs h4)" node h4 lab 10 10
FLEET_BROKER=$CERT_URL FLEET_EXTRA="$CA $(certs h5)" node h5 lab 10 10
chmod 000 "$P/h6.key" # not the fleet process's to read, for now
FLEET_BROKER=$CERT_URL FLEET_EXTRA="$CA $(certs h6)" node h6 lab 10 10
# h7's broker refuses every subscription with a SUBACK (mosquitto's dynamic security plugin:
# its ACL file only filters what it delivers), anonymous on PORT+2.
DYNSEC=/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so
[ -f "$DYNSEC" ] || fail "$DYNSEC is missing (Debian's mosquitto has it)"
echo '{"defaultACLAccess": {"publishClientSend": true, "publishClientReceive": true,
	"subscribe": false, "unsubscribe": true}, "clients": [], "groups": [], "roles": []}' >"$T/dynsec.json"
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nplugin %s\nplugin_opt_config_file %s\n' \
	$((PORT + 2)) "$DYNSEC" "$T/dynsec.json" >"$T/dynsec.conf"
"$MOSQUITTO" -c "$T/dynsec.conf" >"$T/dynsec.log" 2>&1 &
PIDS+=($!)
FLEET_BROKER=mqtt://127.0.0.1:$((PORT + 2)) node h7 lab 10 10
FLEET_BROKER=mqtt://127.0.0.1:$PORT FLEET_EXTRA="$(password h2 h2.pass)" node h8 lab 10 10
FLEET_BROKER=mqtts://127.0.0.1:$((PORT + 3)) FLEET_EXTRA="$CA $(password h2 h2.pass)" node h9 lab 10 10
for n in h1 h2 h3 h4 h5 h6 h7; do
	wait_for 200 jst $n '.session.state == "recording"' ||
		fail "$n: not recording: $(ctl $n --json status; tail -5 "$T/$n/latencyd.log")"
done
for n in h1 h2; do
	wait_for 200 jst $n '.fleet.connected' ||
		fail "$n: not connected: $(ctl $n --json status | jq -c .fleet; tail -5 "$T/$n/latencyd.log")"
done
jst h1 ".fleet.broker == \"$CERT_URL\"" || fail "h1's broker: $(ctl h1 --json status | jq -c .fleet)"
# Subscribed (the SUBACK not refused by the ACL), each sees the other's presence (written
# under the ACL's presence pattern) and none of the refused hosts.
for n in h1 h2; do
	wait_for 100 jst $n '.fleet.subscribed and .fleet.members_online == 1' ||
		fail "$n: $(ctl $n --json status | jq -c .fleet)"
done
pass "h1 (client certificate) and h2 (password) connected over TLS, subscribed, see each other"
sleep 1 # some history in every buffer

# (a) An alert on h1: recorded by h1 and h2 (relayd's tree, h1's incidents), the others
# being disconnected; an alert on h2 (its password identity publishing): recorded by h1.
alert h1
wait_for 300 sh -c "'$LATENCYCTL' -s '$T/h1/ctl.sock' --json list-snapshots | jq -e '.snapshots[0].incident' >/dev/null" ||
	fail "h1 did not record its alert: $(ctl h1 --json list-snapshots)"
I1=$(incident_of h1 1)
wait_for 300 sh -c "[ \$(find '$RELAYD_OUT' -mindepth 3 -maxdepth 3 -type d -name 'snap-*-$I1@*' | wc -l) -ge 2 ]" ||
	fail "incident $I1 in relayd's tree: $(in_relayd $I1)"
wait_for 300 jinc h1 ".incidents[0].incident == \"$I1\" and (.incidents[0].recorded | sort) == [\"h1\",\"h2\"]" ||
	fail "h1's incidents: $(ctl h1 --json incidents)"
sessions=$(in_relayd $I1 | awk -F/ '{print $(NF-1)}' | sed 's/-[0-9]*-[0-9]*$//' | sort | tr '\n' ' ')
[ "$sessions" = "latencyd-h1 latencyd-h2 " ] || fail "incident $I1 recorded by: $sessions"
ctl h2 --json list-snapshots --incident $I1 |
	jq -e '.snapshots | length == 1 and .[0].cause.origin == "h1"' >/dev/null ||
	fail "h2's snapshot of $I1: $(ctl h2 --json list-snapshots --incident $I1)"
alert h2
wait_for 300 sh -c "[ \$(find '$RELAYD_OUT' -mindepth 3 -maxdepth 3 -type d -name 'snap-*-h2-*@*' | wc -l) -ge 2 ]" ||
	fail "an alert on h2 in relayd's tree: $(in_relayd 'h2-*')"
pass "TLS, certificate and password identities: incidents shared both ways"

# (b, c, d) Refused: disconnected, the reason in the status and in the log once per
# distinct error, not once per attempt; the local path records. The broker's log tells the
# refusals apart (one node per kind).
# refused NODE REGEX: the status says REGEX.
refused() {
	jst "$1" ".fleet.connected == false and (.fleet.detail // \"\" | test(\"$2\"; \"i\"))"
}
wait_for 300 refused h3 'not authori[sz]ed' ||
	fail "h3 (wrong password): $(ctl h3 --json status | jq -c .fleet); log: $(cat "$T/h3/latencyd.log")"
wait_for 300 refused h4 'certificate verify failed' ||
	fail "h4 (unknown CA): $(ctl h4 --json status | jq -c .fleet); log: $(cat "$T/h4/latencyd.log")"
wait_for 300 refused h5 'certificate (has )?expired' ||
	fail "h5 (expired certificate): $(ctl h5 --json status | jq -c .fleet); log: $(cat "$T/h5/latencyd.log")"
# Retried (after 1, 4, 9... s): each refused 3 times at least (not given up after one).
refusals() { grep -c "$1" "$T/mosquitto.log"; }
retried() {
	[ "$(refusals 'disconnected, not authorised')" -ge 3 ] && [ "$(refusals 'alert unknown ca')" -ge 3 ] &&
		[ "$(refusals 'certificate verify failed')" -ge 3 ]
}
wait_for 300 retried ||
	fail "not retried: the broker refused h3 $(refusals 'disconnected, not authorised') time(s), h4 $(refusals 'alert unknown ca'), h5 $(refusals 'certificate verify failed')"
# bad NODE REGEX BROKER_LOG_LINE WHAT
bad() {
	local h=$1 re=$2 line=$3 what=$4 lines before
	refused "$h" "$re" || fail "$h ($what): now $(ctl "$h" --json status | jq -c .fleet)"
	lines=$(grep -Eic "$re" "$T/$h/latencyd.log")
	[ "$lines" -ge 1 ] && [ "$lines" -le 2 ] ||
		fail "$h ($what): the reason is $lines times in its log for $(refusals "$line") refusals: $(cat "$T/$h/latencyd.log")"
	before=$(snapshots "$h")
	alert "$h"
	wait_for 300 sh -c "[ \$($LATENCYCTL -s $T/$h/ctl.sock --json list-snapshots | jq .matched) -gt $before ]" ||
		fail "$h ($what): its own alert was not recorded: $(ctl "$h" --json list-snapshots)"
	pass "$what: not connected, '$(ctl "$h" --json status | jq -r .fleet.detail)', logged $lines time(s) for $(refusals "$line") refusals; its own alert recorded"
}
bad h3 'not authori[sz]ed' 'disconnected, not authorised' "wrong password"
bad h4 'certificate verify failed' 'alert unknown ca' "broker certificate from an unknown CA"
bad h5 'certificate (has )?expired' 'certificate verify failed' "expired client certificate"
# The broker's certificate rejected by the node: the cause named, neither hidden by
# libmosquitto's "certificate verify failed" that follows nor said once per attempt.
wait_for 300 refused h9 'host name mismatch' ||
	fail "h9 (certificate for another host): $(ctl h9 --json status | jq -c .fleet); log: $(cat "$T/h9/latencyd.log")"
bad h9 'host name mismatch' 'certificate verify failed' "broker certificate for another host name"
# (g) A subscription the broker refused: an error in status and the log, not "connected".
wait_for 100 jst h7 '.fleet.connected and (.fleet.subscribed | not) and (.fleet.detail | test("the broker refused the subscription to latencyd/lab/alert/\\+ \\(Not authorized\\)"))' ||
	fail "h7 (subscription denied): $(ctl h7 --json status | jq -c .fleet)"
ctl h7 status | grep -q "^Fleet: *connected to .*(the broker refused the subscription" ||
	fail "h7's status (text): $(ctl h7 status | grep Fleet)"
grep -q "fleet: the broker refused the subscription to latencyd/lab/alert/+" "$T/h7/latencyd.log" ||
	fail "h7's log does not say its subscription was refused: $(cat "$T/h7/latencyd.log")"
pass "a subscription the ACL denies: said in status and the log, not shown as subscribed"

# (h) mqtt:// to a TLS listener: the broker drops the connection before any CONNACK and
# libmosquitto says nothing; status must not say "connecting" for ever.
plain='the broker closed the connection before accepting it .*: a TLS listener needs mqtts://'
wait_for 300 jst h8 ".fleet.connected == false and (.fleet.detail | test(\"$plain\"))" ||
	fail "h8 (mqtt:// to a TLS listener): $(ctl h8 --json status | jq -c .fleet); log: $(cat "$T/h8/latencyd.log")"
grep -Eq "fleet: not connected to mqtt://127.0.0.1:$PORT \($plain" "$T/h8/latencyd.log" ||
	fail "h8's log does not say why: $(cat "$T/h8/latencyd.log")"
pass "mqtt:// to a TLS listener: '$(ctl h8 --json status | jq -r .fleet.detail)' in status and the log"

# (f) A key its fleet process cannot read: said with the file and the account, once
# however often the process is started again; made readable, it is picked up.
wait_for 100 jst h6 '.fleet.connected == false and (.fleet.detail | test("fleet.key_file .*/h6.key: Permission denied \\(the fleet process runs as "))' ||
	fail "h6 (unreadable key): $(ctl h6 --json status | jq -c .fleet)"
wait_for 100 jst h6 '.fleet.process.restarts >= 2' || fail "h6's fleet process not started again: $(ctl h6 --json status | jq -c .fleet)"
lines=$(grep -c "h6.key: Permission denied" "$T/h6/latencyd.log")
[ "$lines" = 1 ] || fail "h6: the unreadable key said $lines times: $(cat "$T/h6/latencyd.log")"
chmod 644 "$P/h6.key"
wait_for 300 jst h6 '.fleet.connected and .fleet.subscribed' ||
	fail "h6 did not connect once its key was readable: $(ctl h6 --json status | jq -c .fleet)"
pass "a key the fleet process cannot read: '$(grep -m1 -o "fleet.key_file.*" "$T/h6/latencyd.log")', said once; readable, picked up"

for n in h3 h4 h5; do
	ctl "$n" --json list-snapshots | jq -e '[.snapshots[] | select(.cause.reason == "peer")] | length == 0' >/dev/null ||
		fail "$n recorded a peer's alert: $(ctl "$n" --json list-snapshots)"
done

# (e) The ACL: h2, authenticated (certificate, then password), publishes on h1's alert topic
# a copy of h1's real alert as a new incident. The broker denies it: the watcher (h3) never
# sees it, h2 records nothing, h1 hears of no such incident. Then h2 on its own topic, too
# large (message_size_limit: dropped), then a marker: the watcher sees the marker only.
h1_alert=$(grep -m1 '^latencyd/lab/alert/h1 ' "$T/watch.out" | cut -d' ' -f2-)
[ -n "$h1_alert" ] || fail "the watcher saw no alert of h1's: $(cat "$T/watch.out" "$T/watch.err")"
now=$(date +%s%N)
forged=$(jq -c --argjson now "$now" '.incident = "h1-900" |
	if has("start_realtime_ns") then .start_realtime_ns = $now - 1000000 else . end |
	if has("end_realtime_ns") then .end_realtime_ns = $now else . end' <<<"$h1_alert") ||
	fail "h1's alert is not JSON: $h1_alert"
before=$(snapshots h2)
for a in cert pw; do
	# shellcheck disable=SC2046
	mosquitto_pub -h 127.0.0.1 $(auth $a h2) -q 1 -t latencyd/lab/alert/h1 -m "$forged" ||
		fail "mosquitto_pub as h2 ($a)"
done
# shellcheck disable=SC2046
mosquitto_pub -h 127.0.0.1 $(auth cert h2) -q 1 -t latencyd/lab/alert/h2 \
	-m "$(head -c 5000 /dev/zero | tr '\0' x)" || fail "mosquitto_pub (large)"
# shellcheck disable=SC2046
mosquitto_pub -h 127.0.0.1 $(auth pw h2) -q 1 -t latencyd/lab/alert/h2 -m "marker" ||
	fail "mosquitto_pub (marker)"
wait_for 100 grep -q '^latencyd/lab/alert/h2 marker$' "$T/watch.out" ||
	fail "the watcher did not see h2's marker: $(cat "$T/watch.out" "$T/watch.err")"
! grep -q 'h1-900' "$T/watch.out" || fail "the broker delivered h2's forgery: $(grep h1-900 "$T/watch.out")"
! grep -q xxxxxxxx "$T/watch.out" || fail "the broker delivered a message over its size limit"
sleep 1
[ "$(snapshots h2)" = "$before" ] || fail "h2 recorded something: $(ctl h2 --json list-snapshots)"
ctl h2 --json list-snapshots --incident h1-900 | jq -e '.matched == 0' >/dev/null ||
	fail "h2 recorded the forgery"
jinc h1 '[.incidents[] | select(.incident == "h1-900")] | length == 0' ||
	fail "h1 heard of the forged incident: $(ctl h1 --json incidents)"
pass "ACL: h2 cannot publish on h1's topic (certificate or password); the size limit holds"

# (f) Other accounts (intruder's password, h4's certificate, neither a connected member's)
# connect with h1's and h2's client ids (latencyd-HOST; the user name under the README's
# use_username_as_clientid): that makes each session its account's, so neither member is
# knocked off (nor its last will published). mosquitto_sub -W 2 ends after 2 s connected:
# the broker has handled each CONNECT by then.
# (e) used h2's own certificate: under use_username_as_clientid that took h2's session over,
# and h2 connected again since.
ids="latencyd-h1 latencyd-h2 h1 h2"
wait_for 200 jst h1 .fleet.connected && wait_for 200 jst h2 .fleet.connected ||
	fail "h1 or h2 not connected before (f): $(ctl h2 --json status | jq -c .fleet)"
mark=$(wc -l <"$T/mosquitto.log")
rc1=$(ctl h1 --json status | jq .fleet.reconnects) rc2=$(ctl h2 --json status | jq .fleet.reconnects)
for a in "pw intruder" "cert h4"; do
	for id in $ids; do
		# shellcheck disable=SC2046
		timeout 10 mosquitto_sub -h 127.0.0.1 $(auth $a) -i "$id" -t x -W 2 >/dev/null 2>&1
	done
done
tail -n +$((mark + 1)) "$T/mosquitto.log" | grep -q "already connected, closing old connection" &&
	fail "a takeover by another account closed a member's session: $(tail -n +$((mark + 1)) "$T/mosquitto.log" | grep -B1 "already connected" | head -4)"
jst h1 ".fleet.connected and .fleet.reconnects == $rc1" && jst h2 ".fleet.connected and .fleet.reconnects == $rc2" ||
	fail "a member was knocked off by another account's client id: h1 $(ctl h1 --json status | jq -c .fleet), h2 $(ctl h2 --json status | jq -c .fleet)"
pass "client ids $ids used by other accounts: h1 and h2 keep their sessions (use_username_as_clientid)"

for n in h1 h2 h3 h4 h5 h9; do kill -0 "$(eval echo "\$PID_$n")" || fail "$n died"; done
for n in h1 h2 h3 h4 h5 h9; do kill "$(eval echo "\$PID_$n")"; done
sleep 1
for n in h1 h2 h3 h4 h5 h9; do
	grep -q "AddressSanitizer\|runtime error" "$T/$n/latencyd.log" && fail "$n: $(cat "$T/$n/latencyd.log")"
done
pass "fleet-auth"
