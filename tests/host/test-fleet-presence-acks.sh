#!/bin/bash
# This host's presence while the broker does not acknowledge it: one latencyd (h1,
# fleet.presence_every 10 s) on ackless-broker.py, which drops its first 5 connections
# before any PUBACK, then holds the PUBACKs of the next one 12 s.
# - one presence in flight at most: libmosquitto sends the unacknowledged one again on each
#   connection, and h1 publishes no other meanwhile, so the mids it keeps never overflow and
#   no late PUBACK of a presence is counted as a request's (status published stays 0);
# - the renewal skipped at 10 s for want of that PUBACK goes out once it comes (at 12 s),
#   not a period later (at 20 s): seen by 18 s.
# Usage: lttng-env --relayd test-fleet-presence-acks.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
. "$(dirname "$0")/fleet-lib.sh"

python3 "$(dirname "$0")/ackless-broker.py" "$T/ackless.port" 5 12 18 >"$T/acks.out" \
	2>>"$T/ackless.log" &
PIDS+=($!)
wait_for 50 test -s "$T/ackless.port" || fail "ackless-broker.py did not listen: $(cat "$T/ackless.log")"
export FLEET_EXTRA='presence_every = "10s";'
FLEET_BROKER=mqtt://127.0.0.1:$(cat "$T/ackless.port") node h1 lab 10 10
wait_for 900 grep -q "^conn 5 end " "$T/acks.out" ||
	fail "the broker's last connection did not end its 18 s: $(cat "$T/acks.out")"
[ -n "$(awk '$1 == "conn" && $2 == 4 && $3 == "publish"' "$T/acks.out")" ] ||
	fail "h1 did not publish on each of the 5 connections dropped: $(cat "$T/acks.out")"

# 1. Until the first PUBACK, one presence: the same mid on each connection.
mids=$(awk '$3 == "acks" { exit } $3 == "publish" { print $4 }' "$T/acks.out" | sort -u)
[ "$(wc -l <<<"$mids")" = 1 ] ||
	fail "h1 had several presences in flight (mids $(echo $mids)): $(cat "$T/acks.out")"
pass "one presence in flight over 6 connections without a PUBACK (mid $mids)"

# 2. The renewal skipped at 10 s goes out with the PUBACK at 12 s, before 18 s.
renewed=$(awk -v mid="$mids" '$3 == "acks" { acked = 1; next }
	$3 == "end" { exit } acked && $3 == "publish" && $4 != mid { print; exit }' "$T/acks.out")
[ -n "$renewed" ] || fail "h1 did not renew its presence once its PUBACK came: $(cat "$T/acks.out")"
pass "the renewal skipped for want of a PUBACK went out once it came: $renewed"

# 3. Every PUBACK was a presence's: none counted as a request's.
wait_for 50 jst h1 '.fleet.connected' || fail "h1 not connected: $(ctl h1 --json status | jq -c .fleet)"
jst h1 '.fleet.published == 0 and .fleet.failed == 0' ||
	fail "h1 counted its presences' PUBACKs as requests': $(ctl h1 --json status | jq -c .fleet)"
pass "no presence counted as published"

kill -0 "$PID_h1" || fail "h1 died"
grep -q "AddressSanitizer\|runtime error" "$T/h1/latencyd.log" && fail "h1: $(cat "$T/h1/latencyd.log")"
pass "fleet presence without acknowledgements"
