#!/bin/bash
# latencyd as a flight recorder, for real: run by lttng-env --relayd as nobody against its own
# lttng-sessiond and lttng-relayd, userspace domain (the host has no kernel tracer), fed by
# ust-app. Alerts are written by alert-write into a FIFO standing in for /dev/latency_tracker.
# Usage: lttng-env --relayd test-recorder.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }

ust_recorder_setup "$UST_APP"
# rate, burst, relayd, max_count: the settings the test changes with SIGHUP.
conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-test)
output: { directory = "$T/snapshots"; relayd = "$3"; fallback_local = true; };
ratelimit: { rate = $1; burst = $2; trackers = [ "irq=0.1/1" ]; };
retention: { max_count = $4; max_bytes = 0; max_age = 0; };
realtime: { priority = 50; lock_memory = true; };
CONF
}

status() { "$LATENCYCTL" -s "$SOCK" --json status; }
# jq -e exits 0 on empty input: check that there is a status first.
jstatus() { local out; out=$(status) && [ -n "$out" ] && jq -e "$1" <<<"$out" >/dev/null; }
jcat() { [ -s "$CAT" ] && jq -e "$@" "$CAT" >/dev/null 2>&1; }
complete() { jcat --argjson id "$1" '.snapshots[] | select(.id == $id and .status == "complete")'; }
events_in() {
	# shellcheck disable=SC2046
	babeltrace2 $(find "$1" -name metadata -exec dirname {} \;) 2>/dev/null |
		grep -c 'lttng_ust_tracef:event'
}
# Waits for the app to be registered and the session to hold some history.
wait_app() { wait_for 300 sh -c 'lttng list -u 2>/dev/null | grep -q lttng_ust_tracef'; sleep 0.5; }

conf 0 1 "" 0
start_daemon -c "$T/latencyd.conf"
grep -q "cannot run the waiter at SCHED_FIFO priority 50" "$T/latencyd.log" ||
	fail "no warning about the realtime priority as nobody"
wait_for 50 grep -q "cannot set its client thread's nice value to -10 (realtime.sessiond_boost): Permission denied" "$T/latencyd.log" ||
	fail "no warning about realtime.sessiond_boost as nobody"
wait_for 50 jstatus '.session.state == "recording"' ||
	fail "the session is not recording"
pass "started unprivileged: userspace session recording, RT priority and sessiond boost refused with warnings"

wait_app
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 complete 1 || fail "no complete snapshot 1 in the catalog"
path=$(jq -r '.snapshots[0].path' "$CAT")
[ "$(find "$T/snapshots" -mindepth 1 -maxdepth 1 | wc -l)" = 1 ] || fail "not exactly one snapshot"
case $path in "$T/snapshots/snap-1-"*) ;; *) fail "snapshot path $path" ;; esac
n=$(events_in "$path")
[ "$n" -gt 0 ] || fail "babeltrace2 read no event from $path"
jcat '.snapshots[0] | (.causes | length) == 1 and .causes[0].tracker == "selftest" and
	.causes[0].comm == "alert-write" and .causes[0].delay_ns == 5000000 and .bytes > 0 and
	(.detect_to_record_ns | type) == "number" and .name == "snap-1"' ||
	fail "catalog entry: $(jq -c '.snapshots[0]' "$CAT")"
grep -q "alert from tracker selftest: pid .* (alert-write) 5000000 ns: snapshot" \
	"$T/latencyd.log" || fail "the alert is not logged"
pass "one alert: one snapshot ($n events), catalog entry with its cause"

# relayd: the session is re-created with the new output.
conf 0 1 "$LATENCYD_TEST_RELAYD_URL" 0
kill -HUP "$DAEMON_PID"
wait_for 50 grep -q "session settings changed: re-creating the session" "$T/latencyd.log" ||
	fail "reload did not re-create the session"
# Re-created on the sessiond worker: an alert before its end would find no session.
wait_for 100 jstatus '.session.state == "recording" and .session.operation == null' ||
	fail "the reload's re-creation did not end: $(status)"
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 complete 2 || fail "no snapshot 2 (relayd)"
jcat --arg u "$LATENCYD_TEST_RELAYD_URL" '.snapshots[] | select(.id == 2) |
	.url == $u and (.relayd_path | test("/snap-2-[*]$"))' || fail "snapshot 2 has no relayd url"
d=$(find "$LATENCYD_TEST_RELAYD_OUT" -maxdepth 3 -type d -name 'snap-2-*' | head -n1)
[ -n "$d" ] && [ "$(events_in "$d")" -gt 0 ] || fail "relayd holds no readable snap-2"
kill -KILL "$LATENCYD_TEST_RELAYD_PID"
sleep 0.3
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 150 complete 3 || fail "no snapshot 3 (fallback)"
jcat '.snapshots[] | select(.id == 3) | .fell_back == true and (.path | test("/snap-3-")) and
	(.relayd_error | type) == "string"' || fail "fallback not recorded: $(jq -c . "$CAT")"
pass "relayd output, then relayd down: local fallback recorded in the catalog"

# Back to local; sessiond dies and comes back: the session is re-created, recording resumes.
reloaded() { [ "$(grep -c 'configuration reloaded' "$T/latencyd.log")" -ge "$1" ]; }
conf 0 1 "" 0
kill -HUP "$DAEMON_PID"
wait_for 50 reloaded 2 || fail "no second reload"
# The reload's re-creation runs on the sessiond worker: done before sessiond is killed, or
# the kill meets the re-creation instead of the session it is about.
wait_for 100 jstatus '.session.state == "recording" and .session.operation == null' ||
	fail "the reload's re-creation did not end: $(status)"
spid=$(cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid")
kill -KILL "$spid"
wait_for 50 sh -c "! kill -0 $spid"
lttng-sessiond --background >/dev/null 2>&1 || fail "cannot restart lttng-sessiond"
wait_for 150 jstatus '.session.recreated >= 1 and .session.state == "recording"' ||
	fail "the session was not re-created: $(status)"
grep -q "LTTng session latencyd-test is gone" "$T/latencyd.log" || fail "loss not logged"
wait_app
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 complete 4 || fail "no snapshot 4 after the sessiond restart"
[ "$(events_in "$(jq -r '.snapshots[] | select(.id == 4) | .path' "$CAT")")" -gt 0 ] ||
	fail "snapshot 4 is empty"
pass "sessiond killed and restarted: session re-created, recording resumed"

# kill -9: the catalog survives, ids go on.
stop_daemon KILL
jcat '.snapshots | length == 4' || fail "catalog lost entries after kill -9"
start_daemon -c "$T/latencyd.conf"
grep -q "LTTng session latencyd-test was already there (left by a latencyd that was killed?)" \
	"$T/latencyd.log" || fail "the killed instance's session is not reported as replaced"
jq -e --argjson p "$DAEMON_PID" '.pid == $p and .modules == []' "$T/modules.json" >/dev/null ||
	fail "state file: $(cat "$T/modules.json")"
# A second instance is refused before it touches the first one's session.
run timeout 10 "$LATENCYD" -c "$T/latencyd.conf"
expect_rc 1 "a second latencyd"
expect_err "latencyd $DAEMON_PID is running ($T/modules.json): not starting another one"
grep -q "\"pid\":$DAEMON_PID" "$T/modules.json" || fail "the second instance changed the state file"
wait_app
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 complete 5 || fail "no snapshot 5 after the restart"
jcat '[.snapshots[].id] == [1, 2, 3, 4, 5]' || fail "ids after restart: $(jq -c '[.snapshots[].id]' "$CAT")"
pass "catalog survives kill -9, ids continue; the killed one's session replaced; a second instance refused"

# Retention, applied live by SIGHUP.
conf 0 1 "" 2
kill -HUP "$DAEMON_PID"
wait_for 50 jcat '[.snapshots[].id] == [4, 5]' || fail "retention: $(jq -c '[.snapshots[].id]' "$CAT")"
[ ! -e "$path" ] || fail "retention left $path"
pass "retention: max_count = 2 keeps the newest two, deletes the others' directories"

# A burst: snapshots bounded by the rate limit, every alert accounted for.
conf 1 2 "" 0
kill -HUP "$DAEMON_PID"
wait_for 50 jstatus '.ratelimit.burst == 2' || fail "no reload"
sleep 2.2 # the bucket fills up to its burst
before=$(status)
b_alerts=$(jq '.counters.alerts' <<<"$before")
b_snaps=$(jq '.counters.snapshots + .counters.failed' <<<"$before")
start=$(date +%s.%N)
"$ALERT_WRITE" "$T/alerts" selftest 40 50 || fail "alert-write burst"
"$ALERT_WRITE" "$T/alerts" irq 5 || fail "alert-write irq"
wait_for 100 jstatus ".counters.alerts == $b_alerts + 45 and
	.counters.causes + .counters.suppressed == .counters.alerts" ||
	fail "alerts not all accounted for: $(status)"
# The bucket gave at most its burst and what it refilled until every alert was taken.
end=$(date +%s.%N)
after=$(status)
snaps=$(($(jq '.counters.snapshots + .counters.failed' <<<"$after") - b_snaps))
max=$(echo "2 + ($end - $start) * 1 + 1" | bc | cut -d. -f1)
[ "$snaps" -ge 2 ] && [ "$snaps" -le "$max" ] || fail "$snaps snapshots for a burst of 45 (max $max)"
sup=$(jq '.counters.suppressed' <<<"$after")
# The catalog file follows within a second (CATALOG_DELAY_USEC).
wait_for 30 jcat --argjson s "$sup" '.suppressed.total == $s and .suppressed.by_tracker.selftest > 0' ||
	fail "suppressed alerts not in the catalog: $(jq -c .suppressed "$CAT"), status $sup"
pass "burst of 45 alerts: $snaps snapshots (max $max), causes + suppressed = alerts"

run "$LATENCYCTL" -s "$SOCK" status
expect_rc 0 "status (text)"
expect_out "latencyd-test (userspace), recording"
grep -Eq "^Alerts: +$(jq '.counters.alerts' <<<"$after") \(" "$T/out" || fail "status: no alert count"
grep -Eq "^Snapshots: +[0-9]+ \(0 failed\)" "$T/out" || fail "status: no snapshot count"
expect_out "16 KiB per CPU (4 x 4096 bytes)"
pass "status (text): session, buffer, rate limit, counters"

ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }

# watch streams events; record takes a snapshot through the same rate limit.
ctl --json watch >"$T/watch.json" 2>"$T/watch.err" &
watch_pid=$!
sleep 2.2 # the bucket refills
run ctl record --reason "before the deploy"
expect_rc 0 "record"
grep -Eq "^Snapshot [0-9]+ recorded: /" "$T/out" || fail "record: $(cat "$T/out")"
rid=$(sed -n 's/^Snapshot \([0-9]*\) recorded.*/\1/p' "$T/out")
jcat --argjson id "$rid" '.snapshots[] | select(.id == $id) | .causes[0] |
	.tracker == "manual" and .reason == "manual" and .message == "before the deploy"' ||
	fail "manual cause in the catalog: $(jq -c '.snapshots[-1].causes[0]' "$CAT")"
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 grep -q '"alert-write"' "$T/watch.json" || fail "watch: no snapshot event"
refused=0
for i in 1 2 3 4 5; do
	run ctl --json record
	[ "$RC" = 1 ] && jq -e '.suppressed.tracker == "manual"' "$T/out" >/dev/null && refused=1
done
[ "$refused" = 1 ] || fail "five records in a row, none refused by a 1/s rate limit"
kill "$watch_pid"
wait "$watch_pid" 2>/dev/null
jq -se --argjson id "$rid" 'map(select(.event == "snapshot")) | map(.data.id) | index($id) != null' \
	"$T/watch.json" >/dev/null || fail "watch: no event for snapshot $rid: $(cat "$T/watch.json")"
jq -se 'map(select(.event == "suppressed" and .data.alert.tracker == "manual")) | length > 0' \
	"$T/watch.json" >/dev/null || fail "watch: no suppressed event"
run ctl record extra
expect_rc 2 "record with an argument"
pass "watch streams snapshot and suppressed events; record through the rate limit"

# The catalog through latencyctl: list (filters), show, delete.
run ctl --json list-snapshots
expect_rc 0 "list-snapshots --json"
ids=$(jq -c '[.snapshots[].id]' "$T/out")
[ "$ids" = "$(jq -c '[.snapshots[].id] | reverse' "$CAT")" ] ||
	fail "list-snapshots: $ids, catalog $(jq -c '[.snapshots[].id]' "$CAT")"
# Suppressed counts reach the catalog file within a second (CATALOG_DELAY_USEC).
wait_for 30 sh -c "[ \"\$(jq '.suppressed.total' '$CAT')\" = \"\$(jq '.suppressed' '$T/out')\" ]" ||
	fail "suppressed: catalog file $(jq '.suppressed.total' "$CAT"), list-snapshots $(jq '.suppressed' "$T/out")"
jq -e --argjson s "$(jq '.suppressed.total' "$CAT")" '.matched == (.snapshots | length) and .suppressed == $s and
	(.snapshots[0] | .causes >= 1 and .cause.tracker != null and .status == "complete")' \
	"$T/out" >/dev/null || fail "list-snapshots: $(cat "$T/out")"
newest=$(jq '.snapshots[0].id' "$T/out")
run ctl --json list-snapshots --limit 1 --tracker selftest
expect_rc 0 "list-snapshots --limit --tracker"
jq -e '(.snapshots | length) == 1 and .matched >= 1' "$T/out" >/dev/null ||
	fail "list-snapshots --limit 1: $(cat "$T/out")"
# The newest snapshot may be a manual record (above); show-snapshot looks at an alert's.
alerted=$(jq '.snapshots[0].id' "$T/out")
run ctl --json list-snapshots --tracker nosuchtracker
jq -e '.snapshots == [] and .matched == 0' "$T/out" >/dev/null || fail "--tracker filter"
run ctl --json list-snapshots --since 2099-01-01
jq -e '.snapshots == []' "$T/out" >/dev/null || fail "--since in the future"
run ctl --json list-snapshots --since 1h
jq -e '(.snapshots | length) > 0' "$T/out" >/dev/null || fail "--since 1h"
run ctl list-snapshots
expect_rc 0 "list-snapshots (text)"
grep -Eq "^ID +TIME +STATUS +CAUSES +FIRST CAUSE +SIZE +LOCATION" "$T/out" || fail "list header"
# The newest: an alert, or a manual record the bucket let through (a slow run refills it).
grep -Eq "^$newest +20[0-9-]+ [0-9:]+ +complete +[0-9]+ +((selftest|irq) pid [0-9]+ \(alert-write\) 5ms|manual pid [0-9]+ \(latencyctl\) 0ns) +[0-9.]+ (B|KiB|MiB) +/" \
	"$T/out" || fail "list row: $(cat "$T/out")"
for bad in "--since yesterday" "--limit 0" "--limit x" "extra"; do
	# shellcheck disable=SC2086
	run ctl list-snapshots $bad
	expect_rc 2 "list-snapshots $bad"
done
pass "list-snapshots: newest first, --limit, --tracker, --since, bad arguments"

run ctl --json show-snapshot "$alerted"
expect_rc 0 "show-snapshot"
jq -e --argjson id "$alerted" '.id == $id and .causes_total == (.causes | length) and
	.causes[0].comm == "alert-write" and .path != null' "$T/out" >/dev/null ||
	fail "show-snapshot: $(cat "$T/out")"
dir=$(jq -r '.path' "$T/out")
run ctl show-snapshot "$alerted"
expect_out "Snapshot $alerted"
expect_out "alert-write"
run ctl show-snapshot 99999
expect_rc 1 "show-snapshot of an unknown id"
expect_err "no snapshot 99999"
run ctl show-snapshot -3
expect_rc 2 "show-snapshot -3"
run ctl delete-snapshot "$alerted"
expect_rc 0 "delete-snapshot"
expect_out "Snapshot $alerted deleted."
[ ! -e "$dir" ] || fail "delete-snapshot left $dir"
jcat --argjson id "$alerted" '[.snapshots[].id] | index($id) == null' || fail "still in the catalog"
run ctl delete-snapshot "$alerted"
expect_rc 1 "deleting it twice"
# --keep-files (anywhere among the arguments): the entry alone goes, its directory stays.
kept=$(jq '[.snapshots[] | select(.path != null and .status != "recording") | .id][0]' "$CAT")
[ "$kept" != null ] || fail "no other local snapshot: $(jq -c '[.snapshots[].id]' "$CAT")"
kdir=$(jq -r --argjson id "$kept" '.snapshots[] | select(.id == $id) | .path' "$CAT")
run ctl delete-snapshot "$kept" --keep-files
expect_rc 0 "delete-snapshot --keep-files"
expect_out "Snapshot $kept deleted from the catalog; its files stay in $kdir."
[ -d "$kdir" ] || fail "delete-snapshot --keep-files deleted $kdir"
jcat --argjson id "$kept" '[.snapshots[].id] | index($id) == null' ||
	fail "--keep-files: still in the catalog"
grep -qF "snapshot $kept deleted by client" "$T/latencyd.log" &&
	grep -qF "from the catalog alone: its files stay in $kdir" "$T/latencyd.log" ||
	fail "--keep-files is not logged"
run ctl show-snapshot --keep-files "$newest"
expect_rc 2 "show-snapshot --keep-files"
pass "show-snapshot, delete-snapshot (files and catalog entry; the entry alone with --keep-files)"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
[ ! -e "$T/modules.json" ] || fail "the state file is left after a clean stop"
