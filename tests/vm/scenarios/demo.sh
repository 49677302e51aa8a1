# The main job (tools/demo), and a test of it: in the VM, load the latency tracker, start
# lttng-sessiond and latencyd, and ask latencyd over its control socket what it sees.
. "$VM_IN/scenarios/lib.sh"

echo "== loading the latency tracker module"
modprobe latency_tracker || fail "modprobe latency_tracker"
start_sessiond

echo "== starting latencyd"
latencyd >/tmp/latencyd.log 2>&1 &
daemon=$!
wait_for /run/latencyd/latencyd.sock 100 || { cat /tmp/latencyd.log; fail "latencyd did not open its socket"; }

echo "== latencyctl status"
latencyctl status || fail "latencyctl status"
latencyctl --json status >/tmp/status.json || fail "latencyctl --json status"
grep -q '"loaded": true' /tmp/status.json || { cat /tmp/status.json; fail "module not reported loaded"; }

kill -TERM "$daemon"
wait "$daemon" || fail "latencyd did not stop cleanly"
[ ! -e /run/latencyd/latencyd.sock ] || fail "socket left behind"
cat /tmp/latencyd.log
pass "latencyd sees the module loaded and stops cleanly"
