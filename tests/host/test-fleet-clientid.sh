#!/bin/bash
# Two hosts with one fleet name, for real: in a UTS namespace whose hostname is
# db1.paris.test, latencyd "a" without fleet.host (db1, its hostname up to the first dot,
# said in its log at start) and latencyd "b" with fleet.host = "db1", on a real mosquitto on
# 127.0.0.1. One MQTT client id, latencyd-db1: mosquitto closes one's connection each time
# the other connects.
# - each says at most once, and one of them at least, that another client probably uses its
#   client id;
# - their reconnections are spaced out, the backoff growing: the broker counts few connections
#   of latencyd-db1 over WINDOW s, where one reconnecting 1 s after each loss (its backoff
#   started again at each CONNACK) made one a second.
# latencyd runs as root, as in test-fleet-process.sh: in mount and UTS namespaces of its own,
# with /run on a tmpfs, so that the root lttng-sessiond it needs is this test's.
# Usage: test-fleet-clientid.sh LATENCYD LATENCYCTL   (as root)
set -u
if [ -z "${FLEET_CLIENTID_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a UTS namespace, a root sessiond)"; exit 77; }
	exec unshare --mount --uts --propagation private env FLEET_CLIENTID_NS=1 "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
WINDOW=30
# Reconnecting 1 s after each loss: WINDOW connections or more. With the backoff doubling
# from 1 s after each short one: 8 or so, fewer when the machine is slow.
BOUND=15
mount -t tmpfs -o mode=755 tmpfs /run || fail "cannot mount a tmpfs on /run in the namespace"
hostname db1.paris.test || fail "cannot set the hostname in the namespace"
export LTTNG_HOME=$T/home
mkdir -p "$LTTNG_HOME"
lttng-sessiond --no-kernel --background >"$T/sessiond.log" 2>&1 || fail "root sessiond: $(cat "$T/sessiond.log")"
. "$(dirname "$0")/fleet-lib.sh"
PIDS+=("$(cat /run/lttng/lttng-sessiond.pid)")
start_fleet_broker

# member NAME [FLEET_KEYS]: a latencyd on the sessiond above, its fleet keys added.
member() {
	local n=$1
	mkdir -p "$T/$n/snapshots"
	mkfifo "$T/$n/alerts"
	cat >"$T/$n/latencyd.conf" <<CONF
control: { socket = "$T/$n/ctl.sock"; save_file = ""; };
module: { load = false; notify_path = "$T/$n/alerts"; };
session: { name = "latencyd-$n"; domain = "userspace"; subbuf_size = 4096; num_subbuf = 4;
	   events = [ "lttng_ust_tracef:*" ]; };
catalog: { directory = "$T/$n/catalog"; };
output: { directory = "$T/$n/snapshots"; };
analysis: { auto = false; };
realtime: { priority = 0; lock_memory = false; };
fleet: { enabled = true; broker = "mqtt://127.0.0.1:$PORT"; group = "lab"; ${2:-} };
CONF
	"$LATENCYD" -c "$T/$n/latencyd.conf" 2>"$T/$n/latencyd.log" &
	PIDS+=($!)
	eval "PID_$n=$!"
}
connects() { grep -c "New client connected from .* as latencyd-db1 " "$T/mosquitto.log"; }
said() { grep -c "another client probably uses the client id latencyd-db1 (fleet.host)" "$T/$1/latencyd.log"; }

member a
wait_for 200 jst a '.fleet.connected' ||
	fail "a did not connect: $(ctl a --json status | jq -c .fleet); $(tail -20 "$T/a/latencyd.log")"
jst a '.fleet.host == "db1"' || fail "a's fleet name: $(ctl a --json status | jq -c .fleet)"
grep -q "fleet.host is not set: this host is db1 in the fleet (MQTT client id latencyd-db1), its hostname db1.paris.test up to the first dot" \
	"$T/a/latencyd.log" || fail "a's log does not say which fleet name it took from db1.paris.test"
pass "fleet.host not set, hostname db1.paris.test: db1, said in the log"

member b 'host = "db1";'
wait_for 300 sh -c "[ \$(grep -c 'New client connected from .* as latencyd-db1 ' '$T/mosquitto.log') -ge 3 ]" ||
	fail "b never connected as latencyd-db1: $(cat "$T/mosquitto.log")"
before=$(connects)
sleep "$WINDOW"
made=$(($(connects) - before))
[ "$made" -le "$BOUND" ] ||
	fail "$made connections of latencyd-db1 in $WINDOW s (at most $BOUND expected): $(grep 'fleet' "$T/a/latencyd.log" "$T/b/latencyd.log" | tail -20)"
pass "two hosts named db1: $made connections of latencyd-db1 in $WINDOW s (at most $BOUND)"

sa=$(said a) sb=$(said b)
[ "$sa" -le 1 ] && [ "$sb" -le 1 ] && [ $((sa + sb)) -ge 1 ] ||
	fail "said $sa time(s) by a, $sb by b: $(grep 'fleet' "$T/a/latencyd.log" "$T/b/latencyd.log" | tail -20)"
pass "another client with the client id latencyd-db1: said $sa time(s) by a, $sb by b"

stop_nodes a b
pass "fleet-clientid"
