#!/bin/bash
# The real latencyd and latencyctl: readiness, status and version (text and JSON), reload,
# refusals, and a clean stop that removes the socket.
set -u
. "$(dirname "$0")/lib.sh"

SOCK=$T/run/ctl.sock
write_conf <<CONF
control: {
	socket = "$SOCK";
};
log: { level = "info"; }; session: { enabled = false; }; # control plane only
CONF

start_daemon -c "$T/latencyd.conf"
grep -q "STATUS=Listening on $SOCK" "$T/notify.log" || fail "no STATUS= with the socket path"
[ -S "$SOCK" ] || fail "no socket at $SOCK"
[ "$(stat -c %a "$SOCK")" = 660 ] || fail "socket mode $(stat -c %a "$SOCK"), expected 660"
[ "$(stat -c %a "$T/run")" = 755 ] || fail "socket directory mode $(stat -c %a "$T/run")"
pass "ready, socket $SOCK 0660"

VERSION=$("$LATENCYD" --version | awk '{print $2}')
[ -n "$VERSION" ] || fail "latencyd --version printed no version"

run "$LATENCYCTL" --socket "$SOCK" status
expect_rc 0 "status"
expect_out "latencyd $VERSION"
grep -Eq "^PID: +$DAEMON_PID\$" "$T/out" || fail "status does not show PID $DAEMON_PID"
grep -Eq "^Uptime: +[0-9]+(ms|s|min)" "$T/out" || fail "status has no uptime with a unit"
MODULE_LOADED=false
[ -d /sys/module/latency_tracker ] && MODULE_LOADED=true
$MODULE_LOADED || grep -Eq "^Kernel module: +not loaded\$" "$T/out" ||
	fail "status does not say the module is not loaded"
pass "status (text)"

run "$LATENCYCTL" --socket "$SOCK" --json status
expect_rc 0 "status --json"
jq -e --argjson pid "$DAEMON_PID" --arg v "$VERSION" --argjson loaded "$MODULE_LOADED" \
	'.pid == $pid and .version == $v and (.uptime_usec | type) == "number" and
	 .module.loaded == $loaded and (.module.state | type) == "string"' "$T/out" >/dev/null ||
	fail "status --json does not match"
pass "status (json)"

run "$LATENCYCTL" -s "$SOCK" version
expect_rc 0 "version"
expect_out "latencyd:"
expect_out "$VERSION (protocol 1."
run "$LATENCYCTL" -s "$SOCK" -j version
expect_rc 0 "version --json"
jq -e --arg v "$VERSION" '.version == $v and .protocol == 1 and .abi_major == 1' \
	"$T/out" >/dev/null || fail "version --json does not match"
pass "version (text and json)"

run "$LATENCYCTL" -s "$SOCK" status extra
expect_rc 2 "status with an argument"
pass "command arguments are checked"

# A second daemon on the same socket is refused and leaves the first one alone.
run timeout 10 "$LATENCYD" -c "$T/latencyd.conf"
expect_rc 1 "second latencyd"
expect_err "another process listens on it"
[ -S "$SOCK" ] || fail "the second latencyd removed the socket"
pass "second instance refused"

# Unreachable for others: uid 65534 is refused by the socket's mode.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$LATENCYCTL" -s "$SOCK" status
	expect_rc 3 "status as uid 65534"
	expect_err "latencyctl: permission denied on $SOCK"
	pass "permission denied for other users"
fi

# SIGHUP with a broken file keeps the running configuration; a good one is taken.
echo 'colour = "blue";' >>"$T/latencyd.conf"
kill -HUP "$DAEMON_PID"
wait_for 50 grep -q "reload failed, keeping the current configuration" "$T/latencyd.log" ||
	fail "no reload failure logged"
grep -q "latencyd.conf:5: colour: unknown setting" "$T/latencyd.log" ||
	fail "the reload error does not name file, line and setting"
run "$LATENCYCTL" -s "$SOCK" status
expect_rc 0 "status after a failed reload"
write_conf <<CONF
control: { socket = "$SOCK"; };
log: { level = "debug"; };
session: { enabled = false; };
realtime: { sessiond_boost = 3; };
fleet: { user = "nobody"; max_age = "7s"; peer_rate = 2; };
CONF
kill -HUP "$DAEMON_PID"
wait_for 50 grep -q "configuration reloaded from $T/latencyd.conf" "$T/latencyd.log" ||
	fail "no reload logged"
# What a reload does not apply is named, each setting, with or without a recorder; what it
# applies (log.level, fleet.peer_rate) is not.
for k in realtime.sessiond_boost fleet.user fleet.max_age; do
	grep -q "reload: $k changed: it takes effect at the next start" "$T/latencyd.log" ||
		fail "the reload does not name $k: $(grep reload: "$T/latencyd.log")"
done
grep -q RELOADING=1 "$T/notify.log" || fail "no RELOADING=1 sent"
run "$LATENCYCTL" -s "$SOCK" status
expect_rc 0 "status after a reload"
grep -q "debug: client .*: hello from latencyctl" "$T/latencyd.log" ||
	fail "log.level = debug did not take effect"
pass "SIGHUP reload"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
[ ! -e "$SOCK" ] || fail "the socket is still there after SIGTERM"
grep -q STOPPING=1 "$T/notify.log" || fail "no STOPPING=1 sent"
grep -q "received SIGTERM, shutting down" "$T/latencyd.log" || fail "no shutdown logged"
pass "SIGTERM: exit 0, socket removed"

# A crash leaves a stale socket: latencyctl says nobody listens, a new latencyd replaces it.
start_daemon -c "$T/latencyd.conf"
stop_daemon KILL
[ -S "$SOCK" ] || fail "SIGKILL removed the socket?"
run "$LATENCYCTL" -s "$SOCK" status
expect_rc 3 "status on a stale socket"
expect_err "latencyd is not running: nothing listens on $SOCK"
start_daemon -c "$T/latencyd.conf"
grep -q "removed stale socket $SOCK" "$T/latencyd.log" || fail "stale socket not reported"
run "$LATENCYCTL" -s "$SOCK" status
expect_rc 0 "status after replacing a stale socket"
stop_daemon INT
expect_rc 0 "latencyd after SIGINT"
[ ! -e "$SOCK" ] || fail "the socket is still there after SIGINT"
pass "stale socket replaced; SIGINT stops cleanly"

# A configuration error stops the start, before anything listens.
write_conf <<CONF
control: { socket = 5; };
CONF
run timeout 10 "$LATENCYD" -c "$T/latencyd.conf"
expect_rc 1 "latencyd with a bad configuration"
expect_err "latencyd.conf:1: control.socket: expected a string"
expect_err "invalid configuration, not starting"
pass "bad configuration refused at start"

# A module that speaks another major ABI: its records would be read wrong, so latencyd
# never starts its waiter on it and says which ABIs differ.
mkfifo "$T/abi-notify"
mkdir -p "$T/abi-sys/module/latency_tracker" "$T/abi-sys/kernel/latency_tracker"
echo 99.0 >"$T/abi-sys/kernel/latency_tracker/abi_version"
cat >"$T/abi.conf" <<CONF
control: { socket = "$T/abi.sock"; save_file = ""; };
module: { load = false; notify_path = "$T/abi-notify"; };
session: { domain = "userspace"; };
output: { directory = "$T/abi-snapshots"; };
catalog: { directory = "$T/abi-catalog"; };
realtime: { priority = 0; lock_memory = false; };
CONF
run env LATENCYD_TEST_SYSFS_ROOT="$T/abi-sys" timeout 10 "$LATENCYD" -c "$T/abi.conf"
expect_rc 1 "latencyd on a module of ABI 99.0"
expect_err "speaks ABI 99.0"
grep -q "waiting for alerts" "$T/err" && fail "the waiter started on a mismatched ABI"
[ -S "$T/abi.sock" ] && fail "latencyd listens although it refused the module"
pass "a module ABI major mismatch stops the start, with both ABIs named"
