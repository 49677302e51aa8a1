#!/bin/bash
# What the realtime waiter's first alert must not pay for, for real: latencyd against its own
# lttng-sessiond (userspace domain, run by lttng-env as nobody). Each of its threads goes by
# its own name (one past 15 characters was refused by pthread_setname_np() and left the
# thread under "latencyd", unsaid), and latencyd is bound at load (-z now), so that the
# waiter's first call of a library function does not go through the dynamic linker.
# Usage: lttng-env test-thread-names.sh LATENCYD LATENCYCTL UST_APP
set -u
. "$(dirname "$0")/lib.sh"
UST_APP=${3:?usage: $0 LATENCYD LATENCYCTL UST_APP}
command -v readelf >/dev/null 2>&1 || { echo "SKIP: readelf is not installed"; exit 77; }

readelf -d "$LATENCYD" >"$T/dynamic" || fail "readelf -d $LATENCYD: $(cat "$T/dynamic")"
grep -qE '\(BIND_NOW\)|\(FLAGS\).*\bNOW\b|\(FLAGS_1\).*\bNOW\b' "$T/dynamic" ||
	fail "latencyd is bound lazily (no BIND_NOW): $(grep -E 'FLAGS|BIND' "$T/dynamic")"
pass "latencyd is bound at load"

ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-thread-names)
output: { directory = "$T/snapshots"; };
CONF
start_daemon -c "$T/latencyd.conf"
# The session made (by the thread that talks to lttng-sessiond): every thread is there.
wait_for 100 jstatus '.session.state == "recording"' ||
	fail "the session is not recording: $(status 2>&1)"
names=$(cat /proc/"$DAEMON_PID"/task/*/comm | sort)
[ "$(grep -cx latencyd <<<"$names")" = 1 ] ||
	fail "a thread of latencyd's is unnamed (it goes by latencyd's name): $(tr '\n' ' ' <<<"$names")"
for want in latencyd-waiter latencyd-lttng latencyd-reader; do
	grep -qx "$want" <<<"$names" || fail "no thread $want: $(tr '\n' ' ' <<<"$names")"
done
stop_daemon
expect_rc 0 "latencyd"
pass "latencyd's threads each have a name: $(uniq <<<"$names" | tr '\n' ' ')"
