#!/bin/bash
# Which alerts join a record (#19), for real: latencyd against its own lttng-sessiond
# (userspace domain, run by lttng-env as nobody), no rate limit. Two alerts written
# together (one write) both ended before the record began: one snapshot, two causes. An alert that
# ends while a record is under way (lttng-sessiond stopped with SIGSTOP holds the record)
# may not be in that snapshot: it gets the next one instead of joining.
# Usage: lttng-env test-record-join.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }

ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-join)
output: { directory = "$T/snapshots"; };
ratelimit: { rate = 0; };
CONF
complete_count() { jcat --argjson n "$1" '[.snapshots[] | select(.status == "complete")] | length == $n'; }

start_daemon -c "$T/latencyd.conf"
wait_for 50 "$LATENCYCTL" -s "$SOCK" status >/dev/null || fail "latencyd does not answer"
sleep 1
# One write(): both have ended before the waiter reads the first (two writes would race it).
ALERT_ONE_WRITE=1 "$ALERT_WRITE" "$T/alerts" selftest 2 || fail "alert-write"
wait_for 100 complete_count 1 || fail "no snapshot: $(cat "$CAT" 2>/dev/null)"
sleep 1
jcat '.snapshots | length == 1 and (.[0].causes | length) == 2' ||
	fail "two alerts ended before the record: $(jq -c '[.snapshots[] | {id, n: (.causes | length)}]' "$CAT")"
pass "two alerts that ended before the record began: one snapshot, two causes"

sessiond_stop
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
# Admitted (no rate limit): the waiter goes on into the record, held by the stopped sessiond.
wait_for 100 jstatus '.counters.alerts == 3' || fail "the third alert was not read: $(status)"
"$ALERT_WRITE" "$T/alerts" other 1 || fail "alert-write"
sessiond_continue
wait_for 100 complete_count 3 || fail "not two more snapshots: $(jq -c '[.snapshots[] | {id, status, n: (.causes | length)}]' "$CAT")"
sleep 1
jcat '.snapshots | length == 3 and (.[1].causes | length) == 1 and .[1].causes[0].tracker == "selftest" and
	(.[2].causes | length) == 1 and .[2].causes[0].tracker == "other"' ||
	fail "an alert ending during a record: $(jq -c '[.snapshots[] | {id, t: [.causes[].tracker]}]' "$CAT")"
pass "an alert ending while a record was under way: not joined to it, recorded next"
stop_daemon
