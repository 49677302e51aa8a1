# Sourced by the fleet's host benchmarks (bench/fleet-bench.sh, fleet-scale.sh,
# fleet-faults-bench.sh, observer-bench.sh), which run real latencyd nodes as nobody under
# tests/host/lttng-env --relayd. Needs here (bench/) and build (the build tree).

# bench_outer SECTION RESULTS [VAR=VALUE...] -- ARGS...: outside lttng-env (no relayd
# yet), runs this script again under it with ARGS and, since lttng-env clears the
# environment, the VAR=VALUE words; keeps its output from the line "## SECTION" to
# "=== end" in bench/RESULTS (the run is nobody's, the results file ours), prints it and
# exits; the whole log in $BENCH_KEEP_LOG if set. Inside lttng-env, returns at once.
bench_outer() {
	local section=$1 results=$here/$2 log env=()
	shift 2
	[ -z "${LATENCYD_TEST_RELAYD_URL:-}" ] || return 0
	while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	log=$(mktemp)
	echo "${0##*/}: progress in $log" >&2
	# CAP_SYS_NICE, which latencyd.service keeps: the nodes, which run as nobody, may then
	# use realtime.priority.
	LATENCYD_TEST_SYS_NICE=1 "$here/../tests/host/lttng-env" --relayd env LATENCYD_BUILD_DIR="$build" \
		"${env[@]+"${env[@]}"}" "$0" "$@" >"$log" 2>&1 || {
		cat "$log"
		rm -f "$log"
		exit 1
	}
	sed -n "/^## $section/,/^=== end/p" "$log" | sed '$d' >"$results"
	[ -n "${BENCH_KEEP_LOG:-}" ] && cp "$log" "$BENCH_KEEP_LOG"
	rm -f "$log"
	cat "$results"
	exit 0
}

# bench_inner [PROGRAM...]: the nodes' programs from the build (and the bench's own,
# bench/fleet/PROGRAM, each checked), then tests/host's lib.sh and fleet-lib.sh.
bench_inner() {
	set +e
	LATENCYD=$build/daemon/latencyd LATENCYCTL=$build/client/latencyctl
	ALERT_WRITE=$build/tests/host/alert-write UST_APP=$build/tests/host/ust-app
	for p; do
		[ -x "$build/bench/fleet/$p" ] || { echo "build bench/fleet/$p first"; exit 1; }
	done
	set -- "$LATENCYD" "$LATENCYCTL"
	. "$here/../tests/host/lib.sh"
	. "$here/../tests/host/fleet-lib.sh"
}
