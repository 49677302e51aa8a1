# Sourced by tests/host/test-fleet.sh and bench/fleet-bench.sh (after lib.sh): a real
# mosquitto on 127.0.0.1 and latencyd nodes, each with its own lttng-sessiond (LTTNG_HOME),
# instrumented application and alert FIFO, all on one lttng-relayd (lttng-env --relayd).
# Needs LATENCYD, UST_APP, T and LATENCYD_TEST_RELAYD_URL.
MOSQUITTO=$(command -v mosquitto) || { echo "SKIP: mosquitto is not installed"; exit 77; }
PIDS=()
BROKER_PID=
stop_all() {
	[ -n "$BROKER_PID" ] && kill "$BROKER_PID" 2>/dev/null
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
}
trap 'stop_all; cleanup' EXIT

# The broker's configuration: anonymous on 127.0.0.1:$PORT, or what the test's broker_conf
# function prints (called with PORT set; its listeners on PORT to PORT+3 at most).
start_broker() {
	if declare -F broker_conf >/dev/null; then
		broker_conf
	else
		cat <<CONF
listener $PORT 127.0.0.1
allow_anonymous true
persistence false
set_tcp_nodelay true
CONF
	fi >"$T/mosquitto.conf"
	"$MOSQUITTO" -c "$T/mosquitto.conf" >>"$T/mosquitto.log" 2>&1 &
	BROKER_PID=$!
	if declare -F broker_conf >/dev/null; then # TLS, credentials: a TCP connection will do
		wait_for 50 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT" || true
	else
		wait_for 50 sh -c "mosquitto_sub -h 127.0.0.1 -p $PORT -t probe -W 1 -C 1 2>&1 | grep -qv refused" ||
			true
	fi
}
# A free port, tried a few times: sets PORT.
start_fleet_broker() {
	for _ in 1 2 3 4 5; do
		PORT=$((20000 + RANDOM % 30000))
		start_broker
		sleep 0.5
		kill -0 "$BROKER_PID" 2>/dev/null && return
	done
	fail "mosquitto did not start: $(cat "$T/mosquitto.log")"
}

# node NAME GROUP PEER_RATE PEER_BURST [EXTRA]: a sessiond (h1 uses lttng-env's), an app,
# latencyd; EXTRA is added to its configuration. FLEET_BROKER (the broker URL, by default
# mqtt://127.0.0.1:$PORT) and FLEET_EXTRA (more fleet keys: credentials, TLS files) go in
# its fleet group, e.g. FLEET_EXTRA='username = "h1";' node h1 lab 10 10.
# FLEET_SHARED_SESSIOND set: every node uses LTTNG_HOME's sessiond (a root one). NODE_CPUS:
# its realtime.cpus. NODE_SESSIOND_CPUS: its own sessiond started under taskset -c (its
# consumerd inherits it). NODE_BUFFERS: the session's buffer keys instead of 4 sub-buffers
# of 4 KiB, e.g. NODE_BUFFERS='subbuf_size = 262144; num_subbuf = 4;'.
# NODE_RT_PRIORITY: its realtime.priority (default 0; more needs RLIMIT_RTPRIO, prlimit);
# NODE_REALTIME: more settings of its realtime group. NODE_WRAP: a command latencyd runs under
# (e.g. setpriv with the unit's capability bounding set).
node() {
	local n=$1 home=$T/$1/home
	mkdir -p "$T/$n/snapshots" "$home"
	mkfifo "$T/$n/alerts"
	if [ "$n" = h1 ] || [ -n "${FLEET_SHARED_SESSIOND:-}" ]; then
		home=$LTTNG_HOME
	else
		LTTNG_HOME=$home ${NODE_SESSIOND_CPUS:+taskset -c "$NODE_SESSIOND_CPUS"} \
			lttng-sessiond --background >"$T/$n/sessiond.log" 2>&1 ||
			fail "sessiond of $n: $(cat "$T/$n/sessiond.log")"
		PIDS+=("$(cat "$home/.lttng/lttng-sessiond.pid")")
	fi
	LTTNG_HOME=$home "$UST_APP" &
	PIDS+=($!)
	cat >"$T/$n/latencyd.conf" <<CONF
control: { socket = "$T/$n/ctl.sock"; save_file = ""; };
module: { load = false; notify_path = "$T/$n/alerts"; };
session: { name = "latencyd-$n"; domain = "userspace"; ${NODE_BUFFERS:-subbuf_size = 4096; num_subbuf = 4;}
	   events = [ "lttng_ust_tracef:*" ]; };
catalog: { directory = "$T/$n/catalog"; };
output: { directory = "$T/$n/snapshots"; relayd = "$LATENCYD_TEST_RELAYD_URL"; };
ratelimit: { rate = 100; burst = 100; };
analysis: { auto = false; };
realtime: { priority = ${NODE_RT_PRIORITY:-0}; lock_memory = false; ${NODE_CPUS:+cpus = \"$NODE_CPUS\";} ${NODE_REALTIME:-}};
fleet: { enabled = true; broker = "${FLEET_BROKER:-mqtt://127.0.0.1:$PORT}"; host = "$n";
	 group = "$2"; peer_rate = $3; peer_burst = $4; ${FLEET_EXTRA:-}};
${5:-}
CONF
	# shellcheck disable=SC2086 # NODE_WRAP: a command and its arguments
	LTTNG_HOME=$home ${NODE_WRAP:-} "$LATENCYD" -c "$T/$n/latencyd.conf" 2>"$T/$n/latencyd.log" &
	PIDS+=($!)
	eval "PID_$n=$!"
}
# stop_nodes NODE...: each still running, stopped by SIGTERM with exit status 0, its log
# without a sanitizer's report.
stop_nodes() {
	local n
	for n in "$@"; do kill -0 "$(eval echo "\$PID_$n")" || fail "$n died"; done
	for n in "$@"; do kill "$(eval echo "\$PID_$n")"; done
	for n in "$@"; do
		wait "$(eval echo "\$PID_$n")" ||
			fail "$n: exit status $? after SIGTERM: $(tail -20 "$T/$n/latencyd.log")"
	done
	for n in "$@"; do
		! grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$T/$n/latencyd.log" ||
			fail "$n: $(cat "$T/$n/latencyd.log")"
	done
}
# incident_of NODE ID: the incident NODE's snapshot ID opened (its catalog's incident_base +
# ID), once NODE's catalog is on disk.
incident_of() { echo "$1-$(( $(jq .incident_base "$T/$1/catalog/catalog.json") + $2 ))"; }
ctl() { local n=$1; shift; "$LATENCYCTL" -s "$T/$n/ctl.sock" "$@"; }
jst() { local out; out=$(ctl "$1" --json status 2>/dev/null) && [ -n "$out" ] && jq -e "$2" <<<"$out" >/dev/null; }
alert() { "$ALERT_WRITE" "$T/$1/alerts" syscalls 1 || fail "alert-write on $1"; }
