# Shared by the host tests (sourced, not run): a temporary directory, a latencyd started the
# way systemd starts it (NOTIFY_SOCKET readiness), assertions, and cleanup.
# Usage in a test: . lib.sh LATENCYD LATENCYCTL

LATENCYD=${1:?usage: $0 LATENCYD LATENCYCTL}
LATENCYCTL=${2:?usage: $0 LATENCYD LATENCYCTL}

for tool in socat jq timeout; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool is not installed"; exit 77; }
done

# Nothing from a surrounding systemd unit may leak into the daemon under test.
unset JOURNAL_STREAM INVOCATION_ID LISTEN_FDS LISTEN_PID LISTEN_FDNAMES NOTIFY_SOCKET \
	WATCHDOG_USEC WATCHDOG_PID

T=$(mktemp -d /tmp/latencyd-host.XXXXXX)
DAEMON_PID=
NOTIFY_PID=

cleanup() {
	[ -n "${SESSIOND_STOPPED:-}" ] && kill -CONT "$SESSIOND_STOPPED" 2>/dev/null
	[ -n "$DAEMON_PID" ] && kill -KILL "$DAEMON_PID" 2>/dev/null
	[ -n "${APP_PID:-}" ] && kill "$APP_PID" 2>/dev/null
	[ -n "$NOTIFY_PID" ] && kill "$NOTIFY_PID" 2>/dev/null
	# A test that fails leaves its helpers (socat, brokers) running: waiting for them would
	# hang until ctest's timeout instead of reporting the failure.
	# shellcheck disable=SC2046
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	for f in "$T"/*.log "$T"/out "$T"/err; do
		[ -s "$f" ] && { echo "--- $f"; cat "$f"; } >&2
	done
	exit 1
}

pass() { echo "ok: $*"; }

# Runs a command, keeping stdout in $T/out, stderr in $T/err and the status in $RC.
run() {
	RC=0
	"$@" >"$T/out" 2>"$T/err" || RC=$?
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "$2: exit status $RC, expected $1"; }
expect_out() { grep -qF -- "$1" "$T/out" || fail "stdout lacks '$1'"; }
expect_err() { grep -qF -- "$1" "$T/err" || fail "stderr lacks '$1'"; }

# Waits until a command succeeds, for at most $1 tenths of a second.
wait_for() {
	n=$1
	shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# Starts latencyd ARGS... in the background and waits for READY=1 on our NOTIFY_SOCKET.
start_daemon() {
	rm -f "$T/notify" "$T/notify.log"
	socat -u UNIX-RECV:"$T/notify" - >"$T/notify.log" &
	NOTIFY_PID=$!
	wait_for 50 test -S "$T/notify" || fail "socat did not create the notify socket"
	NOTIFY_SOCKET=$T/notify "$LATENCYD" "$@" 2>"$T/latencyd.log" &
	DAEMON_PID=$!
	wait_for 100 grep -q READY=1 "$T/notify.log" || fail "latencyd never sent READY=1"
	kill -0 "$DAEMON_PID" || fail "latencyd died after READY=1"
}

# Sends a signal and waits for latencyd to exit; its status is in $RC.
stop_daemon() {
	kill -"${1:-TERM}" "$DAEMON_PID"
	RC=0
	timeout 10 sh -c "while kill -0 $DAEMON_PID 2>/dev/null; do sleep 0.1; done" ||
		fail "latencyd did not exit after SIG${1:-TERM}"
	wait "$DAEMON_PID" || RC=$?
	DAEMON_PID=
	kill "$NOTIFY_PID" 2>/dev/null
	wait "$NOTIFY_PID" 2>/dev/null
	NOTIFY_PID=
}

write_conf() {
	cat >"$T/latencyd.conf"
}

# A latencyd flight recorder in the userspace domain, for tests run under lttng-env: starts
# ust-app ($1; killed by cleanup) for the session to record, makes the FIFO that alert-write
# fills in place of /dev/latency_tracker, and sets SOCK and CAT.
APP_PID=
ust_recorder_setup() {
	"$1" &
	APP_PID=$!
	SOCK=$T/ctl.sock
	CAT=$T/catalog/catalog.json
	mkfifo "$T/alerts"
}

# A fake sysfs for latencyd run with LATENCYD_TEST_SYSFS_ROOT=$T/sys: the module's directory
# (S) at ABI $1, with trackers $2... as the module makes them: off, threshold_ns
# ${FAKE_THRESHOLD_NS:-0}, no timeout, no filter, an empty stats/.
fake_sysfs() {
	local t f
	S=$T/sys/kernel/latency_tracker
	for t in "${@:2}"; do
		mkdir -p "$S/$t/stats"
		echo 0 >"$S/$t/enabled"
		echo "${FAKE_THRESHOLD_NS:-0}" >"$S/$t/threshold_ns"
		for f in timeout_ns filter_comm filter_cgroup_id filter_tgid filter_tid; do
			echo 0 >"$S/$t/$f"
		done
	done
	echo "$1" >"$S/abi_version"
}

# sessiond_stop stops lttng-env's lttng-sessiond (SIGSTOP), to hold a record under way, and
# returns once it is stopped; sessiond_continue continues it. cleanup continues one a failed
# test left stopped: lttng-env's SIGTERM would never reach it.
SESSIOND_STOPPED=
sessiond_stop() {
	local i
	SESSIOND_STOPPED=$(cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid") || fail "no lttng-sessiond pid"
	kill -STOP "$SESSIOND_STOPPED"
	# Not wait_for: its counter is the caller's n.
	for i in $(seq 50); do
		ps -o stat= -p "$SESSIOND_STOPPED" | grep -q '^T' && return
		sleep 0.1
	done
	fail "lttng-sessiond $SESSIOND_STOPPED did not stop"
}
sessiond_continue() {
	kill -CONT "$SESSIOND_STOPPED"
	SESSIOND_STOPPED=
}

# The module, session and catalog groups of such a recorder, session named $1 (with more
# session settings $2; 4 sub-buffers of 4 KiB, or UST_NUM_SUBBUF of them): a test's
# write_conf here-document adds its own control, output, ratelimit... groups.
ust_recorder_conf() {
	cat <<CONF
module: { load = false; notify_path = "$T/alerts"; };
session: { name = "$1"; domain = "userspace"; subbuf_size = 4096; num_subbuf = ${UST_NUM_SUBBUF:-4};
	   events = [ "lttng_ust_tracef:*" ]; ${2:-} };
catalog: { directory = "$T/catalog"; };
CONF
}

# The tests of a stopped lttng-sessiond (test-*-stuck.sh), run as "lttng-env TEST LATENCYD
# LATENCYCTL ALERT_WRITE UST_APP" and set up by stuck_setup "$@": ALERT_WRITE, UST_APP, the
# recorder (ust_recorder_setup) and SPID, lttng-env's sessiond. stuck_conf SESSION
# [NUM_SUBBUF] writes their configuration.
stuck_setup() {
	ALERT_WRITE=${3:?usage: $0 LATENCYD LATENCYCTL ALERT_WRITE UST_APP}
	UST_APP=${4:?usage: $0 LATENCYD LATENCYCTL ALERT_WRITE UST_APP}
	ust_recorder_setup "$UST_APP"
	SPID=$(cat "$LTTNG_HOME/.lttng/lttng-sessiond.pid") || fail "no lttng-sessiond pid"
}
stuck_conf() {
	write_conf <<CONF
control: { socket = "$SOCK"; };
$(UST_NUM_SUBBUF=${2:-4} ust_recorder_conf "$1")
output: { directory = "$T/snapshots"; };
ratelimit: { rate = 0; };
CONF
}
LOG=$T/latencyd.log
# status as JSON (it may hang while sessiond is stopped: 5 s at most); jstatus FILTER and
# jcat [JQ ARGS] FILTER: whether status, the catalog, pass jq's FILTER; count TEXT: lines of
# the log with TEXT; more_than TEXT N: more than N of them.
status() { timeout 5 "$LATENCYCTL" -s "$SOCK" --json status; }
jstatus() { local out; out=$(status) && [ -n "$out" ] && jq -e "$1" <<<"$out" >/dev/null; }
jcat() { [ -s "$CAT" ] && jq -e "$@" "$CAT" >/dev/null 2>&1; }
count() { grep -c -- "$1" "$LOG"; }
more_than() { [ "$(count "$1")" -gt "$2" ]; }
# hup [WHY]: SIGHUP, then until latencyd says it reloaded (WHY fails the test otherwise).
hup() {
	local n
	n=$(count "configuration reloaded")
	kill -HUP "$DAEMON_PID"
	wait_for 100 more_than "configuration reloaded" "$n" || fail "${1:-the reload was not taken}"
}
sessiond_stopped() { ps -o stat= -p "$SPID" | grep -q '^T'; }
# latencyd started with a watchdog of 1 s (it says when the waiter is stuck in a record after
# half of it), once its session records.
start() {
	WATCHDOG_USEC=1000000 start_daemon -c "$T/latencyd.conf"
	wait_for 100 jstatus '.session.state == "recording" and (.session.operation | not)' ||
		fail "the session is not recording: $(status)"
	sleep 1
}
# Stops sessiond and sends an alert: the waiter is then inside its record (the watchdog
# says so after half its period).
stuck() {
	local n
	n=$(count "the realtime waiter has been in one record for")
	sessiond_stop
	"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
	wait_for 100 more_than "the realtime waiter has been in one record for" "$n" ||
		fail "the waiter is not stuck in a record"
}
# SIGTERM, then waits for latencyd's exit, its status in RC.
terminate() {
	kill -TERM "$DAEMON_PID"
	wait_exit "latencyd did not exit after SIGTERM while lttng-sessiond was stopped"
}
# wait_exit WHY: latencyd's exit, its status in RC, and the end of the notify socket's
# reader; WHY fails the test after 60 s. The bound is a safety net (the stop must end
# without it): no duration is asserted.
wait_exit() {
	local left=600

	while kill -0 "$DAEMON_PID" 2>/dev/null; do
		left=$((left - 1))
		[ "$left" -gt 0 ] || fail "$1"
		sleep 0.1
	done
	RC=0
	wait "$DAEMON_PID" || RC=$?
	DAEMON_PID=
	kill "$NOTIFY_PID" 2>/dev/null
	wait "$NOTIFY_PID" 2>/dev/null
	NOTIFY_PID=
}
no_sanitizer_report() {
	! grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$LOG" ||
		fail "a sanitizer report in the log of $1"
}
