#!/bin/bash
# bench-ebpf-syscalls (bench/ebpf, the overhead benchmark's eBPF peer) on the host kernel,
# which runs raw tracepoints and ring buffers: a 60 ms nanosleep of a child is reported with
# its tid, and a bad argument is refused. Not tests/host/lib.sh: that one starts latencyd.
# Usage: test-ebpf-peer.sh BENCH-EBPF-SYSCALLS
set -u
PEER=${1:?usage: $0 BENCH-EBPF-SYSCALLS}

[ "$(id -u)" = 0 ] || { echo "SKIP: loading BPF programs needs root"; exit 77; }
[ -x "$PEER" ] || { echo "SKIP: $PEER not built (clang, libbpf-dev, libelf-dev: see CMake's message)"; exit 77; }

T=$(mktemp -d /tmp/latencyd-ebpf.XXXXXX)
PID=
cleanup() {
	[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	for f in "$T"/out "$T"/err; do
		[ -s "$f" ] && { echo "--- $f"; cat "$f"; } >&2
	done
	exit 1
}

RC=0
"$PEER" --threshold-us x >"$T/out" 2>"$T/err" || RC=$?
[ "$RC" != 0 ] || fail "--threshold-us x: exit status 0"
grep -q -- '--threshold-us' "$T/err" || fail "--threshold-us x: no message naming the option"
echo "ok: a bad threshold is refused (exit $RC)"

"$PEER" --threshold-us 20000 --ready-file "$T/ready" >"$T/out" 2>"$T/err" &
PID=$!
for _ in $(seq 100); do
	[ -f "$T/ready" ] && break
	kill -0 "$PID" 2>/dev/null || { wait "$PID"; fail "the peer exited before ready (status $?)"; }
	sleep 0.1
done
[ -f "$T/ready" ] || fail "the peer was not ready after 10 s"

sleep 0.06 & # its tid is its pid
child=$!
wait "$child" || fail "sleep 0.06"
kill -TERM "$PID"
RC=0
wait "$PID" || RC=$?
PID=
[ "$RC" = 0 ] || fail "the peer exited with status $RC after SIGTERM"
grep -q '^events [0-9]* max_delay_ns [0-9]*$' "$T/out" || fail "no summary line"
# id 35 nanosleep, 230 clock_nanosleep (x86-64); 60 ms to 5 s.
awk -v tid="$child" '$1 == "tid" && $2 == tid && ($4 == 35 || $4 == 230) &&
	$6 >= 60000000 && $6 < 5000000000 { found = 1 } END { exit !found }' "$T/out" ||
	fail "no nanosleep of tid $child between 60 ms and 5 s reported"
echo "ok: the child's 60 ms sleep (tid $child): $(grep "^tid $child " "$T/out" | head -n1)"
