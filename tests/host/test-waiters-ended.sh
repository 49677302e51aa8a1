#!/bin/bash
# Every realtime waiter thread stops on an error, for real: latencyd against its own
# lttng-sessiond (userspace domain, run by lttng-env as nobody), its notification file a
# character device that poll() says is readable and whose read() fails (/dev/autofs opened
# read-only has no read: EINVAL), so that each thread ends on its first read. A latencyd
# that can no longer read an alert must not go on answering and pinging the watchdog: it
# says why, stops the way SIGTERM does (the session destroyed, the catalog saved) and exits
# with status 1, for systemd's Restart=on-failure. Run with one thread and one per CPU.
# Usage: lttng-env test-waiters-ended.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
. "$(dirname "$0")/lib.sh"

DEV=
for d in /dev/autofs /dev/fuse /dev/net/tun; do
	[ -c "$d" ] && [ -r "$d" ] && { DEV=$d; break; }
done
[ -n "$DEV" ] || { echo "SKIP: no readable /dev/autofs, /dev/fuse nor /dev/net/tun"; exit 77; }

stuck_setup "$@"
SESSION=latencyd-waiters-ended

# conf PER_CPU
conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf "$SESSION" | sed "s|notify_path = \"$T/alerts\"|notify_path = \"$DEV\"|")
realtime: { waiter_per_cpu = $1; };
output: { directory = "$T/snapshots"; };
CONF
}

# Starts latencyd, which may exit right after READY=1, and waits for its exit; its status
# in RC.
run_to_exit() {
	rm -f "$T/notify" "$T/notify.log" "$LOG"
	socat -u UNIX-RECV:"$T/notify" - >"$T/notify.log" &
	NOTIFY_PID=$!
	wait_for 50 test -S "$T/notify" || fail "socat did not create the notify socket"
	NOTIFY_SOCKET=$T/notify "$LATENCYD" -c "$T/latencyd.conf" 2>"$LOG" &
	DAEMON_PID=$!
	wait_exit "latencyd still runs with every waiter thread stopped"
}

for per_cpu in false true; do
	conf "$per_cpu"
	run_to_exit
	expect_rc 1 "latencyd with every waiter thread stopped (waiter_per_cpu $per_cpu)"
	grep -q "waiting for alerts on $DEV" "$LOG" || fail "the waiter did not start on $DEV"
	grep -qE "a waiter thread stopped waiting for alerts \(0 of [0-9]+ left: no alert can be read any more\); its read of $DEV failed" "$LOG" ||
		fail "the last waiter thread's end is not said"
	grep -qF "every realtime waiter thread stopped on an error (said above): no alert can be read any more; stopping, to exit with status 1 for a restart" "$LOG" ||
		fail "the stop does not say why"
	grep -qF "exiting with status 1: stopped on a failure (said above)" "$LOG" ||
		fail "the exit status is not said"
	! grep -qE ": stopped$" "$LOG" || fail "a failed stop said as a clean one"
	grep -q READY=1 "$T/notify.log" || fail "latencyd never sent READY=1"
	grep -q STOPPING=1 "$T/notify.log" || fail "latencyd did not tell systemd it stops"
	jq -e '.snapshots | length == 0' "$CAT" >/dev/null || fail "the catalog was not saved: $(cat "$CAT" 2>&1)"
	lttng list >"$T/out" 2>&1 || fail "lttng list: $(cat "$T/out")"
	! grep -qF "$SESSION" "$T/out" || fail "the session was left in lttng-sessiond: $(cat "$T/out")"
	no_sanitizer_report "a stop with every waiter thread stopped"
	pass "every waiter thread stopped (waiter_per_cpu $per_cpu): said, stopped cleanly, exit status 1"
done
