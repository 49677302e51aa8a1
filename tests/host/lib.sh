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
	[ -n "$DAEMON_PID" ] && kill -KILL "$DAEMON_PID" 2>/dev/null
	[ -n "${APP_PID:-}" ] && kill "$APP_PID" 2>/dev/null
	[ -n "$NOTIFY_PID" ] && kill "$NOTIFY_PID" 2>/dev/null
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
