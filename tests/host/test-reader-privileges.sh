#!/bin/bash
# The real latencyd-reader confines itself before it reads: run as root (as latencyd runs
# it), --check-privileges shows no capability in any set (the bounding set empty too),
# no_new_privs, nice 10 under SCHED_OTHER, RLIMIT_RTPRIO, NICE and MEMLOCK 0, and
# RLIMIT_AS the --max-memory given (unbounded under the sanitizers, which it says), and a
# seccomp filter under which what root could do otherwise fails: a socket (a connection to
# latencyd's or sessiond's socket), an open for writing, a signal to its parent (root's), by
# kill, by its resource limits or as a descriptor's owner, and a process of its own.
# Usage: test-reader-privileges.sh READER
set -u
READER=${1:?}
[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 77; }
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Started from a niceness below 0 when root may (latencyd's threads may run so), with the
# RLIMIT_MEMLOCK root has (8 MiB by default) and RLIMIT_RTPRIO as high as allowed.
nice=(nice -n -5)
"${nice[@]}" true 2>/dev/null || nice=()
"${nice[@]}" prlimit --rtprio="$(ulimit -Hr)" "$READER" --check-privileges --max-memory 268435456 >"$out" ||
	fail "exit status $?"
for set in CapInh CapPrm CapEff CapBnd CapAmb; do
	grep -Eq "^$set:\s+0+$" "$out" || fail "$set not empty"
done
grep -Eq "^Uid:\s+0\s" "$out" || fail "not uid 0"
grep -Eq "^NoNewPrivs:\s+1$" "$out" || fail "no_new_privs not set"
grep -Eq "^Seccomp:\s+2$" "$out" || fail "no seccomp filter"
for probe in Socket Write Signal Prlimit Owner; do
	grep -Eq "^$probe:\s+Operation not permitted$" "$out" || fail "$probe not refused"
done
# The sanitizers' runtime clones a process to stop the threads (LeakSanitizer).
grep -q "^Sanitized:.1" "$out" || grep -Eq "^Fork:\s+Operation not permitted$" "$out" ||
	fail "fork not refused"
grep -Eq "^Nice:\s+10$" "$out" || fail "not nice 10"
grep -Eq "^Policy:\s+0$" "$out" || fail "not SCHED_OTHER"
for l in RTPRIO NICE MEMLOCK; do
	grep -Eq "^RLIMIT_$l:\s+0$" "$out" || fail "RLIMIT_$l not 0"
done
if grep -q "^Sanitized:.1" "$out"; then
	grep -Eq "^RLIMIT_AS:\s+unlimited$" "$out" || fail "RLIMIT_AS under a sanitizer"
	echo "ok: (sanitizers: no RLIMIT_AS)"
else
	grep -Eq "^RLIMIT_AS:\s+268435456$" "$out" || fail "RLIMIT_AS not the --max-memory"
fi
"$READER" --check-privileges --max-memory x >/dev/null 2>&1
[ $? = 2 ] || fail "--max-memory x accepted"
echo "ok: latencyd-reader confined: $(tr '\n' ' ' <"$out")"
