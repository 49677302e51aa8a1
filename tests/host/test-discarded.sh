#!/bin/bash
# A kernel alert of a key discarded as stale (module ABI 1.7: a timeout record flagged
# DISCARDED, its delay a lower bound), for real: latencyd against its own lttng-sessiond
# (userspace domain, run by lttng-env as nobody), alerts from alert-write. Its cause's
# reason is "discarded" in the catalog, in show-snapshot (text and --json), list-snapshots
# and watch, its delay shown as a lower bound (">=61.2s"); a timeout alert without the flag
# stays "timeout", its delay as it is.
# Usage: lttng-env test-discarded.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"

ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-discarded)
output: { directory = "$T/snapshots"; };
ratelimit: { rate = 0; };
CONF
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }
complete_count() { jcat --argjson n "$1" '[.snapshots[] | select(.status == "complete")] | length == $n'; }

start_daemon -c "$T/latencyd.conf"
wait_for 50 ctl status >/dev/null || fail "latencyd does not answer"
ctl watch >"$T/watch.out" 2>"$T/watch.err" &
# Connected: the watcher and status's own client.
wait_for 50 jstatus '.control.clients >= 2' || fail "watch did not connect: $(cat "$T/watch.err")"
sleep 1

ALERT_REASON=discarded "$ALERT_WRITE" "$T/alerts" block 1 || fail "alert-write discarded"
wait_for 100 complete_count 1 || fail "no snapshot: $(cat "$CAT" 2>/dev/null)"
jcat '.snapshots[0].causes[0] | .reason == "discarded" and .tracker == "block" and
	.delay_ns == 61200000000 and .comm == "alert-write"' ||
	fail "catalog: $(jq -c '.snapshots[0].causes' "$CAT")"
id=$(jq '.snapshots[0].id' "$CAT")
run ctl --json show-snapshot "$id"
expect_rc 0 "show-snapshot --json"
jq -e '.causes[0] | .reason == "discarded" and .delay_ns == 61200000000' "$T/out" >/dev/null ||
	fail "show-snapshot --json: $(cat "$T/out")"
run ctl show-snapshot "$id"
expect_rc 0 "show-snapshot"
grep -Eq '^block +discarded +[0-9]+ +[0-9]+ +alert-write +>=61\.2s$' "$T/out" ||
	fail "show-snapshot: $(cat "$T/out")"
run ctl list-snapshots
expect_rc 0 "list-snapshots"
grep -Eq "^$id +.* complete +1 +block pid [0-9]+ \(alert-write\) >=61\.2s \(discarded\) +[0-9.]+ (B|KiB|MiB) +/" \
	"$T/out" || fail "list-snapshots: $(cat "$T/out")"
run ctl --json list-snapshots
jq -e --argjson id "$id" '.snapshots[] | select(.id == $id) | .cause.reason == "discarded"' \
	"$T/out" >/dev/null || fail "list-snapshots --json: $(cat "$T/out")"
grep -q "alert from tracker block: pid [0-9]* (alert-write) at least 61200000000 ns (discarded as stale, its end never seen): snapshot" "$T/latencyd.log" ||
	fail "the log line of a discarded key's alert: $(grep 'alert from' "$T/latencyd.log")"
pass "a discarded key's alert: reason discarded, its delay a lower bound"

ALERT_REASON=timeout "$ALERT_WRITE" "$T/alerts" block 1 || fail "alert-write timeout"
wait_for 100 complete_count 2 || fail "no second snapshot: $(cat "$CAT" 2>/dev/null)"
id2=$(jq '.snapshots[1].id' "$CAT")
jcat '.snapshots[1].causes[0] | .reason == "timeout" and .delay_ns == 2000000000' ||
	fail "catalog: $(jq -c '.snapshots[1].causes' "$CAT")"
run ctl show-snapshot "$id2"
grep -Eq '^block +timeout +[0-9]+ +[0-9]+ +alert-write +2s$' "$T/out" ||
	fail "show-snapshot of a timeout: $(cat "$T/out")"
run ctl list-snapshots
grep -Eq "^$id2 +.* block pid [0-9]+ \(alert-write\) 2s \(timeout\) " "$T/out" ||
	fail "list-snapshots of a timeout: $(cat "$T/out")"
grep -q "alert from tracker block: pid [0-9]* (alert-write) 2000000000 ns (timeout, still pending): snapshot" "$T/latencyd.log" ||
	fail "the log line of a timeout alert: $(grep 'alert from' "$T/latencyd.log")"
pass "a pending key's timeout alert: reason timeout, its delay as it is"

wait_for 50 grep -q "snapshot $id2 " "$T/watch.out" || fail "watch: $(cat "$T/watch.out" "$T/watch.err")"
grep -Eq "snapshot $id complete: block pid [0-9]+ \(alert-write\) >=61\.2s \(discarded\)  /" \
	"$T/watch.out" || fail "watch: $(cat "$T/watch.out")"
grep -Eq "snapshot $id2 complete: block pid [0-9]+ \(alert-write\) 2s \(timeout\)  /" \
	"$T/watch.out" || fail "watch: $(cat "$T/watch.out")"
pass "watch says each snapshot's reason"

# The catalog read back at start (its codec takes any reason as a kernel alert's, as an
# older latencyd's does): the entry whole, nothing said about it.
stop_daemon
start_daemon -c "$T/latencyd.conf"
wait_for 50 ctl status >/dev/null || fail "latencyd does not answer after a restart"
run ctl --json show-snapshot "$id"
expect_rc 0 "show-snapshot after a restart"
jq -e '.causes[0] | .reason == "discarded" and .delay_ns == 61200000000 and .seq == 0' \
	"$T/out" >/dev/null || fail "show-snapshot after a restart: $(cat "$T/out")"
! grep -q 'cause' "$T/latencyd.log" || fail "latencyd said something of a cause: $(cat "$T/latencyd.log")"
pass "the catalog read back at start: the discarded cause whole"
stop_daemon
