#!/bin/bash
# The group database asked off latencyd's main loop. latencyd runs with slow-groups.so
# preloaded: the lookup of one user's groups (getgrouplist) waits until the test releases it,
# as sssd or LDAP may make it wait (throwaway users and groups, as in test-access-groups.sh).
#  - while a read_group member's lookup waits, root's status is answered; a second
#    connection of the member joins the lookup (one lookup); released, both are answered;
#  - a lookup that hangs holds its user alone: another user's connection is answered
#    meanwhile (its own lookup, on another thread);
#  - a lookup never released: the member's client gets busy, "the group database did not
#    answer within 10 s", and status counts it (control.groups_timed_out), as it counts
#    those waiting meanwhile (control.waiting), in its JSON, its text and the metrics;
#  - the database recovered, that lookup still hanging: past the 10 s it takes in no new
#    connection, the next one asks again and is answered;
#  - a reload while a lookup waits: root is answered, a watcher connected before keeps its
#    groups until the database answers; then the answer from before the reload is not used:
#    the database is asked again, and its answer after the reload (the users taken out of
#    read_group) closes the watcher and refuses the waiting client (not-authorized);
#  - a reload giving read access to another group, the database silent: a watcher checked
#    with the groups it had after 10 s, and closed;
#  - groups kept past their 5 s answer a connection while they are read again;
#  - latencyd stops at once (SIGTERM), its lookup thread still inside the database.
# Usage: test-control-nss.sh LATENCYD LATENCYCTL SLOW_GROUPS (as root: it creates users and
# groups, removed at exit).
set -u
SLOW=${3:?usage: $0 LATENCYD LATENCYCTL SLOW_GROUPS}
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (creates users and groups)"; exit 77; }
for tool in setpriv useradd userdel groupadd groupdel gpasswd; do
	command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
# The watchers run as the throwaway users: a python3 of the system, not one under a home.
PYTHON=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3) ||
	{ echo "SKIP: no python3 in /usr/local/bin, /usr/bin or /bin"; exit 77; }

P=ltn$$
GA=${P}adm GR=${P}rd GN=${P}no # admin group, read group, everyone's primary group
US=${P}s UW=${P}w              # in GR (supplementary), the slow one; in GR, the watcher
. "$(dirname "$0")/accounts.sh"
WATCH=
trap '[ -n "$WATCH" ] && kill "$WATCH" 2>/dev/null; cleanup; remove_accounts' EXIT
trap 'exit 1' INT TERM HUP

GN2=${P}rd2 # nobody's
new_groups "$GA" "$GR" "$GN" "$GN2"
newuser "$US" "$GR"
newuser "$UW" "$GR"
UID_S=$(id -u "$US") UID_W=$(id -u "$UW")

chmod 755 "$T"
SOCK=$T/run/ctl.sock
LOG=$T/latencyd.log
MARK=$T/lookups RELEASE=$T/release DONE=$T/answered ALSO=$T/also-slow
SLOWING=$T/slow # while it exists, the lookups of $US that begin wait
write_conf <<CONF
control: { socket = "$SOCK"; admin_group = "$GA"; read_group = "$GR"; };
session: { enabled = false; };
CONF
# Root, with a bound wait: a latencyd whose main loop waits for the database never answers.
ctl() { timeout 10 "$LATENCYCTL" -s "$SOCK" --timeout 5 "$@"; }
counter() { ctl --json status | jq -r ".control.$1"; }
# The lookups of $US's groups that waited (slow-groups.so marks each with the user's name).
lookups() { grep -sx -- "$US" "$MARK" | wc -l; }
lookups_are() { [ "$(lookups)" = "$1" ]; }
# latencyctl ARGS as user $1 (its groups from the group database), in the background, its
# output in $T/$2.out and .err; its pid in $BG.
as_bg() {
	setpriv --reuid="$1" --regid="$GN" --init-groups "$LATENCYCTL" -s "$SOCK" --timeout 60 \
		"${@:3}" >"$T/$2.out" 2>"$T/$2.err" &
	BG=$!
}
# A watcher as user $1 that stays connected (held-watch.py: without a flight recorder
# latencyctl watch ends at once), what latencyd sends in $T/$2.out; its pid in WATCH, once
# its watch is answered.
watch_as() {
	setpriv --reuid="$1" --regid="$GN" --init-groups "$PYTHON" - "$SOCK" \
		<"$(dirname "$0")/held-watch.py" >"$T/$2.out" 2>"$T/$2.err" &
	WATCH=$!
	wait_for 100 grep -q '"recording"' "$T/$2.out" ||
		fail "watch as $1: $(cat "$T/$2.out" "$T/$2.err")"
}
# The error that ended watcher $1's connection: "CODE: MESSAGE".
watch_error() { jq -r 'select(.error) | "\(.error.code): \(.error.message)"' "$T/$1.out"; }
# Waits for background client $1 and checks its exit status ($2).
reap() {
	local rc=0
	timeout 60 sh -c "while kill -0 $1 2>/dev/null; do sleep 0.1; done" ||
		fail "$3: still running"
	wait "$1" || rc=$?
	[ "$rc" = "$2" ] || fail "$3: exit status $rc, expected $2: $(cat "$T/$4.err")"
}

touch "$SLOWING"
SLOW_GROUPS_UID=$UID_S SLOW_GROUPS_MARK=$MARK SLOW_GROUPS_RELEASE=$RELEASE SLOW_GROUPS_DONE=$DONE \
	SLOW_GROUPS_ALSO=$ALSO SLOW_GROUPS_WHILE=$SLOWING \
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 LD_PRELOAD=$SLOW \
	start_daemon -c "$T/latencyd.conf"

# The watcher, in read_group, whose lookup is not slowed.
watch_as "$UW" watch

# 1. A lookup that waits: latencyd serves root meanwhile; a second connection joins it.
as_bg "$US" s1 status
S1=$BG
wait_for 300 lookups_are 1 || fail "the lookup of $US's groups did not begin"
run ctl status
expect_rc 0 "status as root while $US's groups are looked up"
expect_out "latencyd "
as_bg "$US" s2 status
S2=$BG
run ctl status
expect_rc 0 "status as root with two clients of $US waiting"
kill -0 "$S1" && kill -0 "$S2" || fail "a client of $US ended before its lookup did"
[ "$(lookups)" = 1 ] || fail "$(lookups) lookups for two connections of $US, not 1"
pass "a lookup of the group database waiting: root served meanwhile, a second connection joined it"
touch "$RELEASE"
reap "$S1" 0 "status as $US, released" s1
reap "$S2" 0 "status as $US (second), released" s2
grep -q "latencyd " "$T/s1.out" && grep -q "latencyd " "$T/s2.out" ||
	fail "status as $US: $(cat "$T/s1.out" "$T/s2.out")"
pass "released: both connections of $US answered"

# 2. A lookup never released: after handshake_timeout (10 s), busy, said and counted.
rm -f "$RELEASE" "$MARK"
ctl reload >/dev/null || fail "reload as root" # the groups kept are forgotten
as_bg "$US" s3 status
S3=$BG
wait_for 300 lookups_are 1 || fail "the second lookup of $US's groups did not begin"
# Another user's lookup (the reload forgot its groups too) does not wait behind it.
run timeout 8 setpriv --reuid="$UW" --regid="$GN" --init-groups "$LATENCYCTL" -s "$SOCK" \
	--timeout 5 status
expect_rc 0 "status as $UW while $US's lookup hangs"
expect_out "latencyd "
# One user holds a quarter of max_clients (64) waiting: the 17th is busy at once.
MORE=()
for i in $(seq 15); do
	as_bg "$US" "w$i" status
	MORE+=("$BG")
done
# The connections latencyd holds on its socket: the watcher and the 16 waiting.
held() { ss -xH | awk -v s="$SOCK" '$5 == s' | wc -l; }
wait_for 100 sh -c "[ \$(ss -xH | awk -v s='$SOCK' '\$5 == s' | wc -l) -ge 17 ]" ||
	fail "latencyd holds $(held) connections, not the watcher's and 16 waiting"
waiting_are() { [ "$(counter waiting)" = "$1" ]; }
wait_for 100 waiting_are 16 || fail "waiting: $(ctl --json status | jq -c .control)"
run ctl status
expect_out "16 waiting for their user's groups, 0 closed for want of them (busy)"
ctl metrics | grep -qx "latencyd_control_waiting 16" ||
	fail "metrics: $(ctl metrics | grep '^latencyd_control_')"
run timeout 5 setpriv --reuid="$US" --regid="$GN" --init-groups "$LATENCYCTL" -s "$SOCK" status
expect_rc 1 "a 17th waiting connection of $US"
expect_err "too many connections of uid $UID_S waiting for the group database (16, a quarter of max_clients)"
reap "$S3" 1 "status as $US, never released" s3
grep -qF "latencyctl: hello: the group database did not answer within 10 s: uid $UID_S's groups decide its access (read_group, admin_group) (busy)" \
	"$T/s3.err" || fail "status as $US, never released: $(cat "$T/s3.err")"
for pid in "${MORE[@]}"; do wait "$pid" 2>/dev/null; done
[ "$(counter groups_timed_out)" = 16 ] && [ "$(counter waiting)" = 0 ] ||
	fail "groups_timed_out: $(ctl --json status | jq -c .control)"
run ctl status
expect_out "0 waiting for their user's groups, 16 closed for want of them (busy)"
ctl metrics | grep -qx "latencyd_control_groups_timed_out_total 16" ||
	fail "metrics: $(ctl metrics | grep '^latencyd_control_')"
grep -q "client [0-9]* (pid [0-9]*): refused: the group database did not answer within 10 s" "$LOG" ||
	fail "the timeout is not logged"
pass "the group database silent: busy after 10 s (the error says why), counted, logged; one user's 17th waiting connection busy at once; those waiting counted meanwhile; another user answered meanwhile"

# 2b. The database answers again, the lookup of 2 still inside it (NSS may never come back):
# past the 10 s its waiters waited, it takes in no new connection, which asks again.
rm -f "$SLOWING"
run timeout 8 setpriv --reuid="$US" --regid="$GN" --init-groups "$LATENCYCTL" -s "$SOCK" \
	--timeout 5 status
expect_rc 0 "status as $US, the database recovered, the lookup of 10 s ago still waiting"
expect_out "latencyd "
[ "$(lookups)" = 1 ] || fail "$(lookups) lookups of $US waited, not 1"
touch "$SLOWING"
ctl reload >/dev/null || fail "reload as root" # the groups kept are forgotten
pass "the database recovered, an old lookup still hanging: the next connection asked again, answered"

# 3. A reload while the lookup (begun before it, still waiting) holds a thread; the
# watcher's own lookup after the reload waits too.
as_bg "$US" s4 status
S4=$BG
# The lookup of 2 is stale: s4's groups are asked anew, and that lookup waits too.
wait_for 300 lookups_are 2 || fail "the lookup of $US's groups for s4 did not begin"
echo "$UID_W" >"$ALSO"
gpasswd -d "$US" "$GR" >/dev/null || fail "gpasswd -d $US $GR"
gpasswd -d "$UW" "$GR" >/dev/null || fail "gpasswd -d $UW $GR"
run ctl reload
expect_rc 0 "reload as root while a lookup waits"
run ctl status
expect_rc 0 "status as root after the reload, the lookup waiting"
wait_for 300 grep -qx -- "$UW" "$MARK" || fail "the watcher's groups were not read again"
kill -0 "$WATCH" || fail "the watcher was closed before its groups were read again: $(cat "$T/watch.out")"
kill -0 "$S4" || fail "status as $US ended before its lookup did: $(cat "$T/s4.err")"
pass "a reload while a lookup waits: root served, the watcher kept meanwhile"
touch "$RELEASE"
reap "$S4" 1 "status as $US, taken out of $GR before the reload" s4
grep -qF "latencyctl: hello: uid $UID_S may not use latencyd's control socket" "$T/s4.err" ||
	fail "status as $US after the reload: $(cat "$T/s4.err")"
# That of 2, s4's before the reload, and one after it (2 of a user at most in flight).
[ "$(lookups)" = 3 ] || fail "$US's groups asked $(lookups) times, not 3 (again after the reload)"
reap "$WATCH" 0 "watch as $UW, taken out of $GR before the reload" watch
WATCH=
watch_error watch | grep -qF "not-authorized: uid $UID_W may not use latencyd's control socket" ||
	fail "watch as $UW after the reload: $(cat "$T/watch.out")"
grep -q "client [0-9]* (pid [0-9]*): closed after the reload: uid $UID_W may not use" "$LOG" ||
	fail "the watcher's closing is not logged"
rm -f "$ALSO"
pass "released after the reload: the database asked again, its answer then refuses both"

# 4. A reload that gives read access to another group, the database silent: a watcher is
# checked with the groups it had once its lookup has been silent for 10 s, and refused.
gpasswd -a "$US" "$GR" >/dev/null || fail "gpasswd -a $US $GR"
rm -f "$MARK"
touch "$RELEASE"
ctl reload >/dev/null || fail "reload as root" # the groups kept are forgotten
watch_as "$US" watch2
rm -f "$RELEASE" "$MARK"
sed -i "s/read_group = \"$GR\"/read_group = \"$GN2\"/" "$T/latencyd.conf"
ctl reload >/dev/null || fail "reload as root, read_group $GN2"
reap "$WATCH" 0 "watch as $US, read_group $GN2" watch2
watch_error watch2 | grep -qF "not-authorized: uid $UID_S may not use latencyd's control socket" ||
	fail "watch as $US, read_group $GN2: $(cat "$T/watch2.out")"
WATCH=
grep -q "client [0-9]*: the group database did not answer within 10 s after the reload: checked with the groups it had" "$LOG" ||
	fail "the silent database after the reload is not logged"
grep -q "client [0-9]* (pid [0-9]*): closed after the reload: uid $UID_S may not use" "$LOG" ||
	fail "the watcher's closing is not logged"
pass "read access given to another group, the database silent: a watcher it refuses closed after 10 s"

# 5. Groups kept past their 5 s: a connection is answered with them while they are read
# again (the database silent), not made to wait.
sed -i "s/read_group = \"$GN2\"/read_group = \"$GR\"/" "$T/latencyd.conf"
touch "$RELEASE"
ctl reload >/dev/null || fail "reload as root, read_group $GR"
as_bg "$US" s6 status
reap "$BG" 0 "status as $US" s6
rm -f "$RELEASE" "$MARK"
sleep 5.5
run timeout 5 setpriv --reuid="$US" --regid="$GN" --init-groups "$LATENCYCTL" -s "$SOCK" status
expect_rc 0 "status as $US, its groups 5.5 s old and the database silent"
wait_for 300 lookups_are 1 || fail "$US's groups were not read again"
rm -f "$DONE"
touch "$RELEASE"
wait_for 300 test -s "$DONE" || fail "the lookup of $US's groups, released, did not end"
pass "groups past their 5 s: the connection answered with them, read again meanwhile"

# 6. SIGTERM with the lookup thread inside the database: latencyd stops all the same.
rm -f "$RELEASE" "$MARK"
ctl reload >/dev/null || fail "reload as root"
as_bg "$US" s5 status
S5=$BG
wait_for 300 lookups_are 1 || fail "the last lookup of $US's groups did not begin"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM, a lookup waiting"
wait "$S5" 2>/dev/null
pass "SIGTERM with a lookup waiting in the database: latencyd exits 0"
