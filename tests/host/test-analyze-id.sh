#!/bin/bash
# latencyctl analyze ID: the real latencyd (userspace flight recorder, as nobody, under
# lttng-env) records a snapshot on an alert; analyze asks it the snapshot's path and
# analyses it locally; an unknown id is latencyd's not-found error (exit 1).
# Usage: lttng-env test-analyze-id.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }

ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-analyze)
output: { directory = "$T/snapshots"; };
CONF
start_daemon -c "$T/latencyd.conf"
wait_for 300 sh -c 'lttng list -u 2>/dev/null | grep -q lttng_ust_tracef' || fail "no app"
sleep 0.5
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 sh -c "[ -s '$CAT' ] && jq -e '.snapshots[] | select(.id == 1 and .status == \"complete\")' '$CAT' >/dev/null" ||
	fail "no complete snapshot 1"

out=$("$LATENCYCTL" -s "$SOCK" --json analyze 1) || fail "analyze 1: exit $?"
path=$(jq -r '.snapshots[0].path' "$CAT")
[ "$(jq -r .path <<<"$out")" = "$path" ] || fail "analyzed $(jq -r .path <<<"$out"), not $path"
[ "$(jq -r .events <<<"$out")" -gt 0 ] || fail "no events in snapshot 1"
pass "analyze 1: the snapshot latencyd recorded ($path), $(jq -r .events <<<"$out") events"

# analysis.auto (the default): latencyd analysed the snapshot too, on its own thread; the
# summary in the catalog entry counts the same events as latencyctl analyze did.
wait_for 100 sh -c "jq -e '.snapshots[0].analysis.status' '$CAT' >/dev/null" ||
	fail "no automatic analysis in the catalog: $(cat "$CAT")"
[ "$(jq -r '.snapshots[0].analysis.status' "$CAT")" = done ] ||
	fail "automatic analysis: $(jq -c '.snapshots[0].analysis' "$CAT")"
[ "$(jq -r '.snapshots[0].analysis.events' "$CAT")" = "$(jq -r .events <<<"$out")" ] ||
	fail "automatic analysis read $(jq -r '.snapshots[0].analysis.events' "$CAT") events, analyze $(jq -r .events <<<"$out")"
"$LATENCYCTL" -s "$SOCK" show-snapshot 1 >"$T/show.txt" || fail "show-snapshot 1"
grep -q "^Analysis (done, [0-9]* events" "$T/show.txt" || fail "show-snapshot: $(cat "$T/show.txt")"
pass "analysis.auto: the summary is in the catalog entry and show-snapshot prints it"

run "$LATENCYCTL" -s "$SOCK" analyze 99
expect_rc 1 "analyze of an unknown id"
pass "analyze of an unknown id: exit 1"
stop_daemon
