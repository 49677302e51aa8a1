#!/bin/bash
# The control socket against local users who would make latencyd work or log at will, with
# real users and groups (throwaway, as in test-access-groups.sh; the socket is 0666):
#  - a user in neither group connecting 2000 times: each refused and counted, one log line
#    for them as they come, the rest in a count at the end of the interval;
#  - a read_group member pipelining 20000 reloads on one connection: each answered
#    not-authorized, one log line, the rest in a count;
#  - a client sending a hello and 5 reloads, then closing at once: all 5 run;
#  - a user taken out of read_group, then a reload: the re-check of the connected clients,
#    and the next connection, see the group database as it is (its groups are not kept
#    across a reload).
# Usage: test-control-refusals.sh LATENCYD LATENCYCTL (as root: it creates users and groups,
# removed at exit).
set -u
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (creates users and groups)"; exit 77; }
for tool in setpriv useradd userdel groupadd groupdel gpasswd; do
	command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
# The clients run as the throwaway users: a python3 of the system, not one under a home.
PYTHON=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3) ||
	{ echo "SKIP: no python3 in /usr/local/bin, /usr/bin or /bin"; exit 77; }

P=ltc$$
GA=${P}adm GR=${P}rd GN=${P}no # admin group, read group, everyone's primary group
UR=${P}r UN=${P}n UX=${P}x     # in GR, in neither, in GR until taken out
. "$(dirname "$0")/accounts.sh"
WATCH=
trap '[ -n "$WATCH" ] && kill "$WATCH" 2>/dev/null; cleanup; remove_accounts' EXIT
trap 'exit 1' INT TERM HUP

new_groups "$GA" "$GR" "$GN"
newuser "$UR" "$GR"
newuser "$UN"
newuser "$UX" "$GR"
UID_R=$(id -u "$UR") UID_N=$(id -u "$UN") UID_X=$(id -u "$UX")

chmod 755 "$T"
SOCK=$T/run/ctl.sock
LOG=$T/latencyd.log
write_conf <<CONF
control: { socket = "$SOCK"; admin_group = "$GA"; read_group = "$GR"; };
session: { enabled = false; };
CONF
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }
counter() { ctl --json status | jq -r ".control.$1"; }
# Runs "$@" as user $1 with its groups from the group database (as a login would).
as() { setpriv --reuid="$1" --regid="$GN" --init-groups "${@:2}"; }
# The events the log accounts for: those said one by one (grep -E pattern $1) plus those
# counted in the interval lines (pattern $2, after the count); accounts_for: whether $3.
accounted() {
	grep -Eo "$1|[0-9]+ $2" "$LOG" | awk '$1 ~ /^[0-9]+$/ { n += $1; next } { n++ } END { print n + 0 }'
}
accounts_for() { [ "$(accounted "$1" "$2")" = "$3" ]; }

start_daemon -c "$T/latencyd.conf"
[ "$(stat -c %a "$SOCK")" = 666 ] || fail "socket mode $(stat -c %a "$SOCK"), not 666"

# A user in neither group connects 2000 times, as fast as it can.
cat >"$T/connects.py" <<'PY'
import socket, sys
for i in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    s.close()
PY
before=$(counter refused)
# The first connection waits for the group database's thread (its answer is then kept 5 s):
# the others come after it, so that none waits with more than max_clients others (busy).
as "$UN" "$PYTHON" "$T/connects.py" "$SOCK" 1 || fail "the first connection as $UN"
wait_for 100 sh -c "[ \$('$LATENCYCTL' -s '$SOCK' --json status | jq .control.refused) -gt $before ]" ||
	fail "the first connection of $UN was not refused"
as "$UN" "$PYTHON" "$T/connects.py" "$SOCK" 1999 || fail "the 1999 connections as $UN"
refused=$(($(counter refused) - before))
[ "$refused" = 2000 ] || fail "$refused connections of $UN counted refused, not 2000"
one="client [0-9]+ \(pid [0-9]+\): refused: uid $UID_N may not use"
lines=$(grep -Ec "$one" "$LOG")
[ "$lines" = 1 ] || fail "$lines lines for the refused connections as they came, not 1"
more="more connection\(s\) of uid $UID_N refused"
wait_for 300 accounts_for "$one" "$more" 2000 ||
	fail "the log accounts for $(accounted "$one" "$more") of 2000 refused connections"
pass "2000 connections of a user in neither group: each refused and counted, one line as they came, the others counted in $(grep -c "more connection(s) of uid $UID_N" "$LOG") line(s)"

# A read_group member pipelines 20000 reloads on one connection (socat half-closes at the
# end of its input; latencyd answers every request first).
{
	echo '{"hello":{"protocol":1}}'
	seq 20000 | sed 's/.*/{"id":&,"command":"reload"}/'
} >"$T/reloads"
as "$UR" timeout 120 socat -t 60 - UNIX-CONNECT:"$SOCK" <"$T/reloads" >"$T/replies" ||
	fail "20000 reloads as $UR"
n=$(grep -c '"code":"not-authorized"' "$T/replies")
[ "$n" = 20000 ] || fail "$n of 20000 reloads answered not-authorized: $(tail -2 "$T/replies")"
one="client [0-9]+ \(pid [0-9]+\): refused: 'reload' needs admin access: uid $UID_R"
lines=$(grep -Ec "$one" "$LOG")
[ "$lines" = 1 ] || fail "$lines lines for the refused reloads as they came, not 1"
grep -q "configuration reloaded" "$LOG" && fail "a refused reload was run"
more="more request\(s\) of uid $UID_R refused"
wait_for 300 accounts_for "$one" "$more" 20000 ||
	fail "the log accounts for $(accounted "$one" "$more") of 20000 refused reloads"
pass "20000 reloads pipelined by a read_group member: each refused, one line as they came, the others counted"

# A hello and 5 reloads, then close() at once, before any reply is read: all 5 run.
cat >"$T/hangup.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b'{"hello":{"protocol":1}}\n' +
          b''.join(b'{"id":%d,"command":"reload"}\n' % i for i in range(1, 6)))
s.close()
PY
"$PYTHON" "$T/hangup.py" "$SOCK" || fail "hangup.py"
wait_for 100 sh -c "[ \$(grep -c 'configuration reloaded from' '$LOG') -ge 5 ]"
ctl status >/dev/null || fail "status after the client that hung up"
n=$(grep -c "configuration reloaded from" "$LOG")
[ "$n" = 5 ] || fail "$n of the 5 reloads sent before a close ran"
pass "a client that sends 5 reloads and closes at once: all 5 run"

# A user taken out of read_group: a reload re-reads the groups of the connected clients and
# of the next ones, however recently they were read.
# The watcher: held-watch.py, as latencyctl watch ends at once without a flight recorder.
as "$UX" "$PYTHON" - "$SOCK" <"$(dirname "$0")/held-watch.py" >"$T/watch.out" 2>"$T/watch.err" &
WATCH=$!
wait_for 50 grep -q '"recording"' "$T/watch.out" || fail "watch as $UX: $(cat "$T/watch.out" "$T/watch.err")"
as "$UX" "$LATENCYCTL" -s "$SOCK" --timeout 5 status >/dev/null || fail "status as $UX"
gpasswd -d "$UX" "$GR" >/dev/null || fail "gpasswd -d $UX $GR"
ctl reload >/dev/null || fail "reload as root"
wait_for 100 sh -c "! kill -0 $WATCH" || fail "$UX still watches after leaving $GR and a reload"
wait "$WATCH"
[ $? = 0 ] || fail "watch as $UX: $(cat "$T/watch.err")"
WATCH=
jq -r 'select(.error) | "\(.error.code): \(.error.message)"' "$T/watch.out" |
	grep -qF "not-authorized: uid $UID_X may not use latencyd's control socket" ||
	fail "watch as $UX: $(cat "$T/watch.out")"
run as "$UX" "$LATENCYCTL" -s "$SOCK" --timeout 5 status
expect_rc 1 "status as $UX after leaving $GR and a reload"
expect_err "uid $UID_X may not use latencyd's control socket"
pass "a user taken out of read_group: after a reload its watcher is closed and its next connection refused"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
