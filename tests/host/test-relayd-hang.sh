#!/bin/bash
# Issue #17: lttng-relayd stopped with SIGSTOP (the connection is accepted by the kernel,
# nothing answers) while snapshots go to it, for real (userspace domain, the alert test
# double, lttng-sessiond with the LTTNG_NETWORK_SOCKET_TIMEOUT of lttng-env). Every record
# ends while relayd is still stopped: in the local directory, the catalog entry saying it
# fell back and why, the log saying relayd failed; then SIGCONT, and snapshots go to relayd
# again. Usage (under lttng-env --relayd): test-relayd-hang.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }

RELAYD=$LATENCYD_TEST_RELAYD_PID WRITER_PID=
trap 'kill -CONT "$RELAYD" 2>/dev/null; [ -n "$WRITER_PID" ] && kill "$WRITER_PID" 2>/dev/null
	cleanup' EXIT
ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-hang)
output: { directory = "$T/snapshots"; relayd = "$LATENCYD_TEST_RELAYD_URL"; fallback_local = true;
	  relayd_timeout = "1s"; };
ratelimit: { rate = 0; burst = 1; };
retention: { max_count = 0; max_bytes = 0; max_age = 0; };
realtime: { priority = 0; lock_memory = false; };
CONF

status() { "$LATENCYCTL" -s "$SOCK" --json status; }
jstatus() { local out; out=$(status) && [ -n "$out" ] && jq -e "$1" <<<"$out" >/dev/null; }
jcat() { [ -s "$CAT" ] && jq -e "$@" "$CAT" >/dev/null 2>&1; }
newest_id() { jq '[.snapshots[].id] | max // 0' "$CAT"; }
stopped() { [ "$(awk '{print $3}' "/proc/$RELAYD/stat")" = T ]; }
# One alert; waits for a complete snapshot after it that matches the jq filter $1.
record_until() {
	local id
	id=$(($(newest_id) + 1))
	"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
	wait_for "${2:-60}" jcat --argjson id "$id" \
		"any(.snapshots[]; .id >= \$id and .status == \"complete\" and ($1))"
}

start_daemon -c "$T/latencyd.conf"
wait_for 50 jstatus '.session.state == "recording"' || fail "the session is not recording"
wait_for 300 sh -c 'lttng list -u 2>/dev/null | grep -q lttng_ust_tracef'
sleep 0.5

# 1. relayd answers: snapshots go to it.
record_until '.url != null and .fell_back != true' 100 || fail "no snapshot to relayd: $(jq -c '.snapshots[-1]' "$CAT")"
pass "snapshots go to lttng-relayd"

# 2. SIGSTOP while records go to it back to back (about 50 ms each): whether it stops
# during a record (lttng-sessiond's network timeout ends it) or between two (the probe does),
# the records end while relayd is still stopped, in the local directory.
first=$(($(newest_id) + 1))
"$ALERT_WRITE" "$T/alerts" selftest 100 20 &
WRITER_PID=$!
wait_for 50 jcat --argjson id "$first" '[.snapshots[] | select(.id >= $id)] | length >= 2' ||
	fail "no snapshots before SIGSTOP"
kill -STOP "$RELAYD"
# kill() only queues the signal: relayd stops when it next runs, a moment later.
wait_for 20 stopped || fail "relayd is not stopped"
wait "$WRITER_PID" || fail "alert-write"
WRITER_PID=
# A record SIGSTOP cut ends at lttng-sessiond's network timeout (sessiond may call it a
# success: what it had sent sits in relayd's socket, and then it counts as too slow, over
# relayd_timeout), and the alerts written meanwhile join it; else the probe stopped the
# next one. Either way all 100 alerts get their snapshot while relayd is still stopped.
wait_for 150 jcat --argjson id "$first" '[.snapshots[] | select(.id >= $id) | .causes | length] | add >= 100' ||
	fail "the alerts written around SIGSTOP did not all get a snapshot: $(jq -c '[.snapshots[] | {id, status, fell_back, record_ns}]' "$CAT")"
stopped || fail "relayd woke up before the records ended"
echo "  records around SIGSTOP: $(jq -c --argjson id "$first" '[.snapshots[] | select(.id >= $id) | {id, ms: (.record_ns / 1e6 | floor), fell_back, relayd_error}]' "$CAT")"
# Then relayd is silent: the first record waits for the probe's limit (unless relayd is
# already left alone after a slow or failed record), the next ones do not try it; all end
# in the local directory while relayd is still stopped.
for _ in 1 2 3 4; do
	record_until '.fell_back == true and (.path | type) == "string"' 100 ||
		fail "a record while relayd is stopped did not end in the local directory: $(jq -c '.snapshots[-1]' "$CAT")"
done
stopped || fail "relayd woke up before the records ended"
jcat '[.snapshots[] | select(.status != "complete" and .status != "failed")] == []' ||
	fail "entries neither complete nor failed"
grep -Eq "did not answer within 1s|recording to lttng-relayd at .* failed|the record to lttng-relayd at .* took [0-9.]+s with its probe, over output.relayd_timeout" "$T/latencyd.log" ||
	fail "the log does not say relayd failed"
grep -q "relayd failed: fell back to local" "$T/latencyd.log" || fail "no fallback logged"
jcat 'any(.snapshots[]; .fell_back == true and (.relayd_error | test("did not answer within 1s|failed|not tried")))' ||
	fail "no catalog entry says why relayd was not used: $(jq -c '[.snapshots[] | select(.fell_back)][-1]' "$CAT")"
for d in $(find "$T/snapshots" -mindepth 1 -maxdepth 1 -type d -name 'snap-*'); do
	jcat --arg p "$d" 'any(.snapshots[]; .path == $p)' || fail "directory $d is in no catalog entry"
done
echo "  $(grep -m1 -E 'did not answer within|recording to lttng-relayd at' "$T/latencyd.log")"
echo "  $(jq -r '[.snapshots[] | select(.relayd_error != null)][-1].relayd_error' "$CAT")"
pass "relayd stopped: every record ended in the local directory while it stayed stopped, catalog and log say why"

# 3. SIGCONT: after its back-off, relayd is tried again and gets the snapshots.
kill -CONT "$RELAYD"
ok=0
for _ in $(seq 1 40); do
	if record_until '.url != null and .fell_back != true' 10; then
		ok=1
		break
	fi
	sleep 1
done
[ "$ok" = 1 ] || fail "no snapshot to relayd after SIGCONT: $(jq -c '.snapshots[-1]' "$CAT")"
grep -q "answers again" "$T/latencyd.log" || fail "relayd's return is not logged"
kill -0 "$RELAYD" || fail "relayd died"
echo "  $(grep -m1 'answers again' "$T/latencyd.log")"
pass "relayd continued: snapshots go to it again"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
