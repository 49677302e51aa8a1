#!/bin/bash
# latencyd-reader's faults, for real: latencyd in the userspace domain against its own
# lttng-sessiond (run by lttng-env --relayd as nobody), fed by ust-app, each snapshot read
# by the reader named in LATENCYD_READER: a script that, as $T/mode says, kills itself with
# SIGSEGV, writes garbage, hangs (LATENCYD_READER_TIMEOUT=2 s), or runs the real reader.
# Each failure fails that snapshot's analysis with the reason in the catalog, is logged and
# counted, and latencyd keeps serving and records the next alert, read by the real reader.
# A tiny analysis.max_memory (8 MiB) fails a real read cleanly, naming the memory (not
# under the sanitizers, where the reader sets no bound: it says so, and that step skips).
# Usage: lttng-env --relayd test-reader.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP READER
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?} READER=${5:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }

ust_recorder_setup "$UST_APP"
conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-reader)
output: { directory = "$T/snapshots"; };
ratelimit: { rate = 0; };
analysis: { auto = true; max_memory = $1; };
CONF
}
cat >"$T/reader" <<SCRIPT
#!/bin/sh
case \$(cat "$T/mode") in
segv) kill -SEGV \$\$ ;;
garbage) echo 'garbage {' >&3 ;;
hang) exec sleep 1000 ;;
*) exec "$READER" "\$@" ;;
esac
SCRIPT
chmod 755 "$T/reader"
echo real >"$T/mode"

# analysis of snapshot ID in the catalog has status STATUS and an error matching WHY.
analysis() {
	jcat --argjson id "$1" --arg st "$2" --arg why "$3" \
		'.snapshots[] | select(.id == $id) | .analysis | .status == $st and
		 ((.error // "") | test($why))'
}
alert() { "$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"; }

conf 1073741824
export LATENCYD_READER=$T/reader LATENCYD_READER_TIMEOUT=2
start_daemon -c "$T/latencyd.conf"
wait_for 50 jstatus '.session.state == "recording"' || fail "the session is not recording"
sleep 1

id=0
for fault in "segv:killed by signal 11" "garbage:result is not one JSON object" \
	"hang:took more than 2 s: killed"; do
	mode=${fault%%:*} why=${fault#*:}
	echo "$mode" >"$T/mode"
	id=$((id + 1))
	alert
	wait_for 200 analysis $id failed "$why" ||
		fail "$mode: snapshot $id: $(jq -c ".snapshots[] | select(.id == $id) | .analysis" "$CAT" 2>/dev/null)"
	grep -q "latencyd-reader failed on .*snap-$id-.*: .*$why" "$T/latencyd.log" ||
		fail "$mode: not logged"
	jcat --argjson id $id '.snapshots[] | select(.id == $id) | .history == null' ||
		fail "$mode: a history for snapshot $id"
	jstatus '.session.state == "recording"' || fail "$mode: latencyd does not answer"
	pass "a reader that does '$mode': snapshot $id's analysis failed ($why), logged, latencyd serving"
done
n=$(grep -c "latencyd-reader failed on .*snap-" "$T/latencyd.log")
grep -q "latencyd-reader failed on .*snap-3-.*($((n + $(grep -c "latencyd-reader failed on .*calibration" "$T/latencyd.log"))) failures since start)" \
	"$T/latencyd.log" || fail "failures not counted: $(grep "latencyd-reader failed" "$T/latencyd.log")"
"$LATENCYCTL" -s "$SOCK" --json status >"$T/status.json" || fail "status"
jq -e --argjson n "$((n + $(grep -c "latencyd-reader failed on .*calibration" "$T/latencyd.log")))" \
	'.counters.reader_failed == $n' "$T/status.json" >/dev/null ||
	fail "status counters.reader_failed: $(jq -c .counters "$T/status.json")"
"$LATENCYCTL" -s "$SOCK" metrics | grep -Eq "^latencyd_reader_failed_total [1-9]" || fail "no metric"
"$LATENCYCTL" -s "$SOCK" status | grep -q "read(s) by latencyd-reader gave no result" ||
	fail "status text says nothing of the failed reads"
pass "the failures counted (log, status, metrics)"

echo real >"$T/mode"
id=$((id + 1))
alert
wait_for 200 jcat --argjson id $id '.snapshots[] | select(.id == $id) |
	(.analysis.status == "done" or .analysis.status == "partial") and .history.events > 0' ||
	fail "the next alert, read by the real reader: $(jq -c ".snapshots[] | select(.id == $id)" "$CAT")"
pass "the next alert recorded, its history and analysis read by latencyd-reader"

if "$READER" --check-privileges | grep -q "^Sanitized:.1"; then
	echo "skip: analysis.max_memory under the sanitizers (the reader sets no RLIMIT_AS)"
else
	conf 8388608
	kill -HUP "$DAEMON_PID"
	wait_for 50 grep -q "reload" "$T/latencyd.log"
	sleep 1
	id=$((id + 1))
	alert
	wait_for 200 analysis $id failed "out of memory within analysis.max_memory \\(8388608 bytes\\)" ||
		fail "analysis.max_memory 8 MiB: $(jq -c ".snapshots[] | select(.id == $id) | .analysis" "$CAT")"
	jstatus '.session.state == "recording"' || fail "latencyd does not answer after the memory bound"
	pass "analysis.max_memory 8 MiB: the read fails cleanly: $(jq -r ".snapshots[] | select(.id == $id) | .analysis.error" "$CAT")"
fi
stop_daemon
[ "$RC" = 0 ] || fail "latencyd exit status $RC"
pgrep -f "sleep 1000" -u "$(id -u)" >/dev/null && fail "the hung reader was left running"
exit 0
