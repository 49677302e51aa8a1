#!/bin/bash
# latencyctl analyze on a snapshot of more stream files than the descriptors a process
# starts with (its soft RLIMIT_NOFILE): libbabeltrace2 keeps each of them open while it
# reads, as a machine of many CPUs, or an incident's hosts together, give.
# Usage: test-analyze-many.sh LATENCYCTL MANY_STREAMS
set -u
LATENCYCTL=${1:?} MANY=${2:?}
N=400
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -gt $((N + 64)) ] ||
	{ echo "SKIP: a hard limit of $(ulimit -Hn) descriptors"; exit 77; }
"$MANY" "$T/snap" "$N" || fail "many-streams"
for threads in 1 2; do
	out=$(ulimit -Sn 256 && "$LATENCYCTL" --json analyze --no-tables --threads "$threads" \
		"$T/snap" 2>"$T/err") ||
		fail "analyze --threads $threads, soft limit 256 descriptors: $(cat "$T/err")"
	[ "$(jq .events <<<"$out")" = "$N" ] ||
		fail "analyze --threads $threads read $(jq .events <<<"$out") events of $N"
done
echo "ok: $N stream files read under a soft limit of 256 descriptors, in 1 and 2 threads"
