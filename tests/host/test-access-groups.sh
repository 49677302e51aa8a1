#!/bin/bash
# Issue #17, control.admin_group and control.read_group with real users and groups, with and
# without socket activation: a member of admin_group alone connects and changes state
# (reload), a member of read_group alone reads but is refused reload (exit 1,
# not-authorized), anyone else is refused at once (exit 1, not-authorized, before any
# hello); with groups the socket file is 0666, without them 0660 (exit 3, permission
# denied). Membership is supplementary (/etc/group), as latencyd reads it, never the
# calling process's own groups. Slots: a user
# other than root holds at most a quarter of max_clients, the last quarter is root's, and a
# client turned away reads why (busy); a reload that takes a group away closes its members'
# connections, watchers included, with not-authorized.
# Usage: test-access-groups.sh LATENCYD LATENCYCTL (as root: it creates throwaway users and
# groups, removed at exit).
set -u
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (creates users and groups)"; exit 77; }
for tool in setpriv useradd userdel groupadd groupdel systemd-socket-activate; do
	command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
# The watchers run as the throwaway users: a python3 of the system, not one under a home.
PYTHON=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3) ||
	{ echo "SKIP: no python3 in /usr/local/bin, /usr/bin or /bin"; exit 77; }
HELD_WATCH=$(dirname "$0")/held-watch.py

# Throwaway accounts: only those this run created are removed, after lib.sh's cleanup.
P=ltd$$
GA=${P}adm GR=${P}rd GN=${P}no # admin group, read group, everyone's primary group
UA=${P}a UR=${P}r UN=${P}n     # in GA only, in GR only, in neither
UR2=${P}r2 UR3=${P}r3          # more members of GR only, for the slots
. "$(dirname "$0")/accounts.sh"
trap 'cleanup; remove_accounts' EXIT
trap 'exit 1' INT TERM HUP

new_groups "$GA" "$GR" "$GN"
newuser "$UA" "$GA"
newuser "$UR" "$GR"
newuser "$UN"
newuser "$UR2" "$GR"
newuser "$UR3" "$GR"
UID_R=$(id -u "$UR") UID_N=$(id -u "$UN") UID_R2=$(id -u "$UR2")

chmod 755 "$T"
SOCK=$T/run/ctl.sock
groups_conf() { # $1: the rate limit, to see whether a reload was taken; $2: max_clients
	cat <<CONF
control: { socket = "$SOCK"; admin_group = "$GA"; read_group = "${READ_GROUP-$GR}"; ${2:+max_clients = $2;} };
session: { enabled = false; };
ratelimit: { rate = $1; };
CONF
}
# Runs latencyctl as user $1, with its groups from the group database (as a login would).
as() { run setpriv --reuid="$1" --regid="$GN" --init-groups "$LATENCYCTL" -s "$SOCK" \
	--timeout 5 "${@:2}"; }
rate_is() {
	run "$LATENCYCTL" -s "$SOCK" config
	expect_rc 0 "config as root"
	expect_out "ratelimit.rate = $1"
}

# The three users against the running latencyd ($1 names the setting, for messages).
check_users() {
	as "$UA" status
	expect_rc 0 "$1: status as $UA (admin_group only)"
	expect_out "latencyd "
	as "$UR" status
	expect_rc 0 "$1: status as $UR (read_group only)"
	expect_out "latencyd "
	pass "$1: members of either group connect and read"

	# A read_group member's reload is refused and changes nothing.
	groups_conf 0.5 >"$T/latencyd.conf"
	as "$UR" reload
	expect_rc 1 "$1: reload as $UR (read_group only)"
	expect_err "'reload' needs admin access: uid $UID_R is neither root nor in admin_group ('$GA') (not-authorized)"
	rate_is 0.2
	pass "$1: read_group member: reload refused (exit 1, not-authorized), nothing reloaded"

	# An admin_group member's is taken.
	as "$UA" reload
	expect_rc 0 "$1: reload as $UA (admin_group only)"
	expect_out "Configuration reloaded from $T/latencyd.conf"
	rate_is 0.5
	pass "$1: admin_group member: reload taken"

	# Anyone else may connect (0666) but is refused at once, before its hello is answered.
	as "$UN" status
	expect_rc 1 "$1: status as $UN (in neither group)"
	expect_err "latencyctl: hello: uid $UID_N may not use latencyd's control socket: it is neither root nor in read_group ('$GR') or admin_group ('$GA') (not-authorized)"
	[ ! -s "$T/out" ] || fail "$1: output for a refused user"
	wait_for 50 grep -q "refused: uid $UID_N may not use latencyd's control socket" \
		"$T/latencyd.log" || fail "$1: the refusal is not logged"
	run setpriv --reuid="$UN" --regid="$GN" --init-groups sh -c \
		"head -c 70000 /dev/urandom | timeout 5 socat -t 2 - UNIX-CONNECT:$SOCK"
	kill -0 "$DAEMON_PID" || fail "$1: latencyd died on a refused user's garbage"
	as "$UA" status
	expect_rc 0 "$1: status as $UA after the refused ones"
	pass "$1: users in neither group refused at once (exit 1, not-authorized); latencyd serves on"

	# The database's groups count, not the process's: a process holding admin_group (a
	# login from before the user was taken out of it) is refused all the same.
	run setpriv --reuid="$UN" --regid="$GN" --groups="$GA" "$LATENCYCTL" -s "$SOCK" \
		--timeout 5 status
	expect_rc 1 "$1: status as $UN holding $GA in its process only"
	pass "$1: a process holding admin_group, its user in no group in the database: refused"
	groups_conf 0.2 >"$T/latencyd.conf"
	run "$LATENCYCTL" -s "$SOCK" reload
	expect_rc 0 "$1: reload as root"
}

# latencyd binds the socket itself.
groups_conf 0.2 >"$T/latencyd.conf"
start_daemon -c "$T/latencyd.conf"
[ "$(stat -c %a "$SOCK")" = 666 ] || fail "groups set: socket mode $(stat -c %a "$SOCK"), not 666"
check_users "bound socket"

# Slots, with max_clients 4: one per user other than root, the last one root's. Watchers
# hold them (held-watch.py: with no session latencyctl watch would end at once), each
# connected once its watch is answered.
groups_conf 0.2 4 >"$T/latencyd.conf"
run "$LATENCYCTL" -s "$SOCK" reload
expect_rc 0 "reload to max_clients 4"
WATCHERS=()
watch_as() {
	setpriv --reuid="$1" --regid="$GN" --init-groups "$PYTHON" - "$SOCK" <"$HELD_WATCH" \
		>"$T/watch-$1.out" 2>"$T/watch-$1.err" &
	WATCHERS+=($!)
	eval "WATCH_$2=$!"
	wait_for 50 grep -q '"recording"' "$T/watch-$1.out" ||
		fail "watch as $1: $(cat "$T/watch-$1.out" "$T/watch-$1.err")"
}
# The error that ended watcher $1's connection: "CODE: MESSAGE".
watch_error() { jq -r 'select(.error) | "\(.error.code): \(.error.message)"' "$T/watch-$1.out"; }
trap 'for p in "${WATCHERS[@]}"; do kill "$p" 2>/dev/null; done; cleanup; remove_accounts' EXIT
watch_as "$UA" A
watch_as "$UR" R
watch_as "$UR2" R2
as "$UR" status
expect_rc 1 "a second connection of $UR"
expect_err "latencyctl: hello: too many clients of uid $UID_R: 1, the most one user other than root may have (a quarter of max_clients 4) (busy)"
as "$UR3" status
expect_rc 1 "$UR3 with the last slot left"
expect_err "latencyctl: hello: too many clients (4): the last 1 are kept for root (busy)"
run "$LATENCYCTL" -s "$SOCK" status
expect_rc 0 "root in the last slot"
grep -q "client [0-9]*: busy: too many clients of uid $UID_R" "$T/latencyd.log" ||
	fail "the busy refusal is not logged"
pass "slots: one per user other than root (busy beyond, said to the client), the last one root's"

# A reload that takes read_group away closes its members' watchers; admin_group's stays.
READ_GROUP= groups_conf 0.2 4 >"$T/latencyd.conf"
run "$LATENCYCTL" -s "$SOCK" reload
expect_rc 0 "reload without read_group"
for w in "$WATCH_R" "$WATCH_R2"; do
	wait_for 100 sh -c "! kill -0 $w" || fail "a read_group member still watches after the reload"
done
wait "$WATCH_R"
[ $? = 0 ] || fail "watch as $UR: $(cat "$T/watch-$UR.err")"
[ "$(watch_error "$UR")" = "not-authorized: uid $UID_R may not use latencyd's control socket: it is neither root nor in read_group (none configured) or admin_group ('$GA')" ] ||
	fail "watch as $UR: $(cat "$T/watch-$UR.out")"
grep -q "client [0-9]* (pid [0-9]*): closed after the reload: uid $UID_R2 may not use" \
	"$T/latencyd.log" || fail "the closing after the reload is not logged"
kill -0 "$WATCH_A" || fail "the admin_group member's watcher was closed"
kill "$WATCH_A"
run "$LATENCYCTL" -s "$SOCK" --json status
jq -e '.control.refused >= 2 and .control.busy >= 2' "$T/out" >/dev/null ||
	fail "not counted: $(jq -c .control "$T/out")"
pass "a reload without read_group: its members' watchers closed (not-authorized), admin_group's kept"

# Without groups (a reload), the file closes again: permission denied, exit 3.
printf 'control: { socket = "%s"; };\nsession: { enabled = false; };\n' "$SOCK" >"$T/latencyd.conf"
run "$LATENCYCTL" -s "$SOCK" reload
expect_rc 0 "reload to no groups"
[ "$(stat -c %a "$SOCK")" = 660 ] || fail "no groups: socket mode $(stat -c %a "$SOCK"), not 660"
for u in "$UA" "$UR" "$UN"; do
	as "$u" status
	expect_rc 3 "status as $u without groups"
	expect_err "permission denied on $SOCK"
done
pass "no groups: socket 0660, only root connects (others: permission denied, exit 3)"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"

# Socket activation: the socket systemd made (0700 here, under umask 077) gets the same mode.
groups_conf 0.2 >"$T/latencyd.conf"
mkdir -m 755 "$T/run2"
SOCK=$T/run2/activated.sock
(umask 077 && exec systemd-socket-activate -l "$SOCK" "$LATENCYD" -c "$T/latencyd.conf") \
	2>"$T/latencyd.log" &
DAEMON_PID=$!
wait_for 50 test -S "$SOCK" || fail "systemd-socket-activate did not listen"
[ "$(stat -c %a "$SOCK")" != 666 ] || fail "the activation socket is 0666 before latencyd"
as "$UA" status
expect_rc 3 "status as $UA before latencyd started (the file keeps users out)"
run "$LATENCYCTL" -s "$SOCK" --timeout 10 status
expect_rc 0 "status as root through socket activation (starts latencyd)"
grep -q "control socket $SOCK passed by systemd" "$T/latencyd.log" ||
	fail "latencyd did not use the passed socket"
[ "$(stat -c %a "$SOCK")" = 666 ] ||
	fail "socket activation: socket mode $(stat -c %a "$SOCK"), not 666"
check_users "socket activation"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM (socket activation)"
[ -S "$SOCK" ] || fail "latencyd removed the socket it did not create"
pass "socket activation: the passed socket's file made 0666, same access rules"
