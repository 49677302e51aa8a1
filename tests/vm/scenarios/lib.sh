# Helpers for VM scenarios, sourced as ". $VM_IN/scenarios/lib.sh". Busybox sh.

fail() {
	echo "FAIL: $*"
	exit 1
}

pass() {
	echo "PASS: $*"
}

# Starts the root lttng-sessiond with the project's LTTng probe; it loads lttng-modules itself.
start_sessiond() {
	lttng-sessiond --background --extra-kmod-probes=latency_tracker "$@" ||
		fail "lttng-sessiond did not start"
	i=0
	while ! lttng list >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "lttng-sessiond does not answer"
		sleep 0.1
	done
}

# Every directory under $1 that holds a CTF "metadata" file (babeltrace2 does not recurse).
trace_dirs() {
	find "$1" -name metadata -exec dirname {} \; | sort
}

# Prints the decoded events of the trace(s) under $1.
read_trace() {
	# shellcheck disable=SC2046
	babeltrace2 $(trace_dirs "$1")
}

# Waits up to $2 tenths of a second for a file or socket $1 to exist.
wait_for() {
	i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -lt "${2:-100}" ] || return 1
		sleep 0.1
	done
}
