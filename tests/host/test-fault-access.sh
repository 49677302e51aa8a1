#!/bin/bash
# Issue #9, unprivileged access to the control socket: with read_group = "nogroup" and
# admin_group = "daemon", the socket is 0666 and latencyd checks each peer (issue #17); a
# member of nogroup reads but is refused admin commands with a message naming the groups; a
# member of daemon alone may connect; a user in neither group is refused at once (exit 1,
# not-authorized); garbage from a member leaves latencyd answering.
# Usage: test-fault-access.sh LATENCYD LATENCYCTL (as root: it switches users).
set -u
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || { echo "SKIP: needs root and setpriv"; exit 77; }
getent group nogroup >/dev/null && getent group daemon >/dev/null &&
	getent passwd nobody >/dev/null && getent passwd daemon >/dev/null ||
	{ echo "SKIP: no nobody/nogroup/daemon accounts"; exit 77; }

chmod 755 "$T"
SOCK=$T/run/ctl.sock
write_conf <<CONF
control: { socket = "$SOCK"; read_group = "nogroup"; admin_group = "daemon"; };
session: { enabled = false; };
CONF
start_daemon -c "$T/latencyd.conf"
[ "$(stat -c %a "$SOCK")" = 666 ] || fail "socket mode is $(stat -c %a "$SOCK")"
as() { run setpriv --reuid="$1" --regid="$2" --clear-groups "$LATENCYCTL" -s "$SOCK" "${@:3}"; }

as nobody nogroup status
expect_rc 0 "status as nobody (member of read_group)"
as nobody nogroup set-threshold syscalls 5ms
[ "$RC" != 0 ] || fail "an admin command worked for a read_group member"
expect_err "needs admin access: uid 65534 is neither root nor in admin_group ('daemon')"
pass "read_group member: reads, admin commands refused with the reason"

as daemon daemon status
expect_rc 0 "status as daemon (in admin_group only)"
as 4242 4242 status
expect_rc 1 "status as uid 4242 (no account, no group)"
expect_err "uid 4242 may not use latencyd's control socket"
pass "admin_group member connects; users in neither group are refused at once, exit 1"

# Frames from a user that may connect but sends garbage: an error, the daemon lives on.
run setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c \
	"head -c 70000 /dev/urandom | timeout 5 socat -t 2 - UNIX-CONNECT:$SOCK"
kill -0 "$DAEMON_PID" || fail "latencyd died on garbage from a read_group member"
as nobody nogroup status
expect_rc 0 "status after the garbage"
pass "garbage from a member: latencyd still answers"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
