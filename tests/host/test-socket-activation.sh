#!/bin/bash
# latencyd under socket activation: it serves the socket systemd passes and, at exit,
# leaves that socket (systemd's) in place.
set -u
. "$(dirname "$0")/lib.sh"

command -v systemd-socket-activate >/dev/null || { echo "SKIP: no systemd-socket-activate"; exit 77; }

SOCK=$T/activated.sock
printf 'control: { socket = "%s/unused.sock"; };\nsession: { enabled = false; };\n' "$T" >"$T/latencyd.conf"
systemd-socket-activate -l "$SOCK" "$LATENCYD" -c "$T/latencyd.conf" 2>"$T/latencyd.log" &
DAEMON_PID=$!
wait_for 50 test -S "$SOCK" || fail "systemd-socket-activate did not listen"

# The first connection starts latencyd, which takes over the listening socket.
run "$LATENCYCTL" -s "$SOCK" --timeout 10 status
expect_rc 0 "status through socket activation"
expect_out "latencyd "
grep -q "control socket $SOCK passed by systemd" "$T/latencyd.log" ||
	fail "latencyd did not use the passed socket"
[ ! -e "$T/unused.sock" ] || fail "latencyd bound its configured path as well"
grep -q "control.socket $T/unused.sock is not used: systemd passed $SOCK" "$T/latencyd.log" ||
	fail "latencyd did not warn that control.socket is not the passed socket"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
[ -S "$SOCK" ] || fail "latencyd removed the socket it did not create"
pass "socket activation"
