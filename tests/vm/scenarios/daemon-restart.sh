# latencyd killed with SIGKILL leaves its kernel modules and its LTTng session behind. The
# next latencyd takes over the modules the killed one loaded (its state file says which),
# replaces the session, records snapshots, and at SIGTERM unloads the modules: none of
# latency_tracker* stays loaded.
. "$VM_IN/scenarios/guest-lib.sh"

D=/tmp/latencyd
CONF_SOCKET=$D/run/ctl.sock conf_base

trackers_loaded() { ls /sys/module | grep '^latency_tracker' | sort; }
session_count() { lttng list 2>/dev/null | grep -c '^ *[0-9]*) latencyd '; }
start() {
	latencyd -c $D/latencyd.conf 2>$D/$1.log &
	LPID=$!
	wait_recording $D/$1.log $D/run/ctl.sock
}

start_sessiond
[ -z "$(trackers_loaded)" ] || fail "latency_tracker modules loaded before latencyd: $(trackers_loaded)"
start first
loaded=$(trackers_loaded)
[ -n "$loaded" ] || fail "latencyd loaded no module"
grep -q "\"pid\":$LPID" $D/run/modules.json || fail "state file: $(cat $D/run/modules.json)"
grep -q '"latency_tracker"' $D/run/modules.json || fail "latency_tracker not in the state file"
pass "first latencyd: $(echo $loaded | wc -w) modules loaded, recorded in $D/run/modules.json"

kill -KILL $LPID
wait $LPID
[ "$(trackers_loaded)" = "$loaded" ] || fail "modules changed after SIGKILL"
[ "$(session_count)" = 1 ] || fail "the killed latencyd's session is not there: $(lttng list)"
pass "SIGKILL: modules and session left behind"

start second
cp $D/first.log $D/second.log "$VM_OUT/"
grep -q "latencyd [0-9]* stopped without unloading the kernel modules it loaded (killed?): latency_tracker" \
	$D/second.log || fail "takeover not logged"
grep -q "LTTng session latencyd was already there" $D/second.log || fail "session replacement not logged"
[ "$(session_count)" = 1 ] || fail "not one latencyd session: $(lttng list)"
grep -q "\"pid\":$LPID" $D/run/modules.json || fail "state file not taken over: $(cat $D/run/modules.json)"
for m in $loaded; do
	grep -q "\"$m\"" $D/run/modules.json || fail "$m not taken over: $(cat $D/run/modules.json)"
done
modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
echo "threshold 1" >/sys/kernel/latency_tracker_selftest/emit || fail "emit"
i=0
until grep -q '"status": *"complete"' $D/catalog.json 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat $D/second.log; fail "no snapshot after the restart"; }
	sleep 0.1
done
rmmod latency_tracker_selftest || fail "rmmod latency_tracker_selftest"
pass "second latencyd: took over the modules and the session, records snapshots"

kill -TERM $LPID
wait $LPID || fail "latencyd exited with $?"
[ -z "$(trackers_loaded)" ] || fail "modules left after SIGTERM: $(trackers_loaded)"
[ ! -e $D/run/modules.json ] || fail "state file left: $(cat $D/run/modules.json)"
[ "$(session_count)" = 0 ] || fail "session left: $(lttng list)"
pass "SIGTERM: every latency_tracker module unloaded, session destroyed, state file removed"
