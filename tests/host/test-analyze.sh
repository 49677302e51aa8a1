#!/bin/bash
# latencyctl analyze on real userspace snapshots from an isolated lttng-sessiond (run under
# lttng-env --relayd): a local snapshot and one through lttng-relayd (its HOST/SESSION tree)
# are analysed and say which kernel events are missing; a snapshot whose stream file is
# truncated, or with a packet header babeltrace2 would abort on, gives a partial result
# naming the problem, exit 0, no crash; a truncated
# metadata file, a trace of its metadata alone or a directory without a trace is a clear
# error (exit 1); LAMI phases
# (the results' tables are checked on kernel snapshots: VM scenario analyze-pipe).
# Usage: test-analyze.sh LATENCYCTL UST_APP LATENCYCTL_LAMI
set -uo pipefail
ctl=$1
app=$2
lami=$3
tmp=$LATENCYD_TEST_TMP
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "PASS: $*"; }
command -v jq >/dev/null || { echo "jq missing; skipping"; exit 77; }

# One app pinned on each of two CPUs: two stream files with events, so that one left out
# (the poisoned packet below) leaves the other to read, wherever the scheduler would put one.
cpus=$(nproc)
app_pids=()
for cpu in 0 1; do
	if [ "$cpus" -ge 2 ]; then taskset -c $cpu "$app" & else "$app" & fi
	app_pids+=($!)
	[ "$cpus" -ge 2 ] || break
done
trap 'kill "${app_pids[@]}" 2>/dev/null' EXIT
for _ in $(seq 100); do lttng list -u 2>/dev/null | grep -q lttng_ust_tracef && break; sleep 0.1; done

# snapshot NAME OUTPUT: a userspace snapshot session recording every event for a second.
snapshot() {
	lttng create "$1" --snapshot "$2" >/dev/null || { fail "lttng create $1"; return 1; }
	lttng enable-channel -u --overwrite --subbuf-size=64k --num-subbuf=4 c -s "$1" >/dev/null &&
		lttng enable-event -u -a -c c -s "$1" >/dev/null && lttng start "$1" >/dev/null &&
		sleep 1 && lttng snapshot record -s "$1" >/dev/null
	local r=$?
	lttng destroy "$1" >/dev/null
	return $r
}

snapshot local "--output=$tmp/snap" || fail "local snapshot"
out=$("$ctl" --json analyze "$tmp/snap")
rc=$?
[ $rc = 0 ] || fail "analyze of a good snapshot: exit $rc"
[ "$(jq -r .partial <<<"$out")" = false ] || fail "good snapshot partial: $(jq -c .problems <<<"$out")"
[ "$(jq -r .events <<<"$out")" -gt 100 ] || fail "events $(jq -r .events <<<"$out")"
jq -e '.missing_events | map(select(startswith("sched_switch"))) | length == 1' <<<"$out" >/dev/null ||
	fail "sched_switch not said missing: $(jq -c .missing_events <<<"$out")"
jq -e '.missing_events | map(select(startswith("latency_tracker_alert"))) | length == 1' <<<"$out" >/dev/null ||
	fail "the alert not said missing"
"$ctl" analyze "$tmp/snap" | grep -q "No latency alert in this snapshot" || fail "text output"
pass "a good userspace snapshot: $(jq -r .events <<<"$out") events, missing kernel events named"

# A window given backwards is a usage error; one beside the trace's events is said, and
# empty: never a span computed across it (18446744072 s).
err=$("$ctl" analyze --begin 5 --end 3 "$tmp/snap" 2>&1 >/dev/null)
rc=$?
[ $rc = 2 ] && grep -q -- "--begin 5 is not before --end 3" <<<"$err" ||
	fail "--begin after --end: exit $rc, $err"
for w in "--end 3" "--begin 18000000000000000000"; do
	# shellcheck disable=SC2086
	out=$("$ctl" --json analyze $w "$tmp/snap")
	rc=$?
	[ $rc = 0 ] && jq -e '.problems | map(select(test("does not meet the trace.s events"))) |
		length == 1' <<<"$out" >/dev/null || fail "analyze $w: exit $rc, $(jq -c .problems <<<"$out")"
	# shellcheck disable=SC2086
	"$ctl" analyze $w "$tmp/snap" | grep -q "over 0 ns" ||
		fail "analyze $w: the text's span: $("$ctl" analyze $w "$tmp/snap" | grep -m1 over)"
done
pass "a window backwards is refused (exit 2); one beside the events is said and empty"

snapshot relayd "--set-url=$LATENCYD_TEST_RELAYD_URL" || fail "relayd snapshot"
rel=$(find "$LATENCYD_TEST_RELAYD_OUT" -mindepth 2 -maxdepth 2 -type d -name 'relayd*' | head -n 1)
[ -n "$rel" ] || fail "no relayd output under $LATENCYD_TEST_RELAYD_OUT"
out=$("$ctl" --json analyze "$LATENCYD_TEST_RELAYD_OUT")
[ $? = 0 ] && [ "$(jq -r .events <<<"$out")" -gt 100 ] || fail "relayd snapshot: $out"
pass "a snapshot through lttng-relayd (path given): $(jq -r .events <<<"$out") events"

# The biggest stream file, cut in the middle of a packet.
cp -r "$tmp/snap" "$tmp/damaged"
stream=$(find "$tmp/damaged" -type f ! -name metadata ! -path '*/index/*' -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2)
size=$(stat -c %s "$stream")
truncate -s $((size / 2 + 1000)) "$stream"
out=$("$ctl" --json analyze "$tmp/damaged" 2>"$tmp/err")
rc=$?
echo "damaged: exit $rc, problems: $(jq -c .problems <<<"$out" 2>/dev/null) stderr: $(cat "$tmp/err")"
[ $rc = 0 ] || fail "a truncated stream: exit $rc, not a partial result"
[ "$(jq -r .partial <<<"$out")" = true ] || fail "a truncated stream is not said partial"
jq -r '.problems[]' <<<"$out" | grep -q "$(basename "$stream")" || fail "the problem does not name $(basename "$stream")"
"$ctl" analyze "$tmp/damaged" 2>&1 >/dev/null | grep -q "partial result" || fail "text: no partial warning"
pass "a truncated stream file: partial result naming $(basename "$stream"), $(jq -r .events <<<"$out") events"

# A packet header babeltrace2 2.0 aborts on (an assertion): the biggest stream file's first
# packet says its content is 2^63 + 8 bits. Its file is left out, the rest read, no crash.
# (One CPU: one stream file, nothing would be left to read.)
if [ "$cpus" -ge 2 ]; then
	cp -r "$tmp/snap" "$tmp/poisoned"
	stream=$(find "$tmp/poisoned" -type f ! -name metadata ! -path '*/index/*' -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2)
	printf '\x08\x00\x00\x00\x00\x00\x00\x80' | dd of="$stream" bs=1 seek=48 conv=notrunc 2>/dev/null
	before=$fails
	for threads in 1 2; do
		out=$("$ctl" --json analyze --threads $threads "$tmp/poisoned" 2>"$tmp/err")
		rc=$?
		[ $rc = 0 ] || fail "a packet babeltrace2 aborts on, --threads $threads: exit $rc: $(tail -n 3 "$tmp/err")"
		[ "$(jq -r .partial <<<"$out")" = true ] || fail "--threads $threads: the poisoned file is not said partial"
		jq -r '.problems[]' <<<"$out" | grep -q "$(basename "$stream")" ||
			fail "--threads $threads: the problem does not name $(basename "$stream")"
	done
	[ "$fails" = "$before" ] &&
		pass "a packet header babeltrace2 aborts on: its file left out, $(jq -r .events <<<"$out") events read"
fi

# A first packet whose content_size (8 bits) is shorter than its own header: babeltrace2
# fails on it while reading, which ended every stream's reading before any event ("no
# event could be read", exit 1). Its file is left out, named, the rest read.
if [ "$cpus" -ge 2 ]; then
	cp -r "$tmp/snap" "$tmp/short"
	stream=$(find "$tmp/short" -type f ! -name metadata ! -path '*/index/*' -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2)
	printf '\x08\x00\x00\x00\x00\x00\x00\x00' | dd of="$stream" bs=1 seek=48 conv=notrunc 2>/dev/null
	before=$fails
	for threads in 1 2; do
		out=$("$ctl" --json analyze --threads $threads "$tmp/short" 2>"$tmp/err")
		rc=$?
		[ $rc = 0 ] || fail "a packet shorter than its header, --threads $threads: exit $rc: $(tail -n 3 "$tmp/err")"
		[ "$(jq -r .partial <<<"$out")" = true ] && [ "$(jq -r .events <<<"$out")" -gt 0 ] ||
			fail "--threads $threads: a packet shorter than its header: $(jq -c '{partial,events}' <<<"$out")"
		jq -r '.problems[]' <<<"$out" | grep -q "$(basename "$stream"): damaged stream file left out" ||
			fail "--threads $threads: the problem does not name $(basename "$stream")"
	done
	[ "$fails" = "$before" ] &&
		pass "a packet shorter than its header: its file left out, $(jq -r .events <<<"$out") events read"
fi

cp -r "$tmp/snap" "$tmp/nometa"
meta=$(find "$tmp/nometa" -name metadata | head -n 1)
truncate -s 100 "$meta"
"$ctl" analyze "$tmp/nometa" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || fail "truncated metadata: exit $rc"
grep -q "metadata\|cannot read" "$tmp/err" || fail "truncated metadata: $(cat "$tmp/err")"
pass "a truncated metadata file: exit 1: $(head -c 200 "$tmp/err")"

# A trace whose stream files are gone (a snapshot copied half way): its metadata alone.
mkdir -p "$tmp/metaonly"
cp "$(find "$tmp/snap" -name metadata | head -n 1)" "$tmp/metaonly/"
for threads in 1 2; do
	"$ctl" analyze --threads $threads "$tmp/metaonly" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 1 ] && grep -q "no event could be read" "$tmp/err" ||
		fail "metadata alone, --threads $threads: exit $rc: $(cat "$tmp/err")"
done
pass "metadata alone: exit 1: $(cat "$tmp/err")"

mkdir -p "$tmp/empty"
"$ctl" analyze "$tmp/empty" 2>"$tmp/err"
[ $? = 1 ] && grep -q "no CTF trace" "$tmp/err" || fail "empty directory: $(cat "$tmp/err")"
"$ctl" analyze "$tmp/nonexistent" 2>"$tmp/err"
[ $? = 1 ] || fail "a missing path"
pass "no trace: exit 1 with the reason"

[ "$("$ctl" analyze --mi-version)" = 1.0 ] || fail "--mi-version"
"$ctl" analyze --metadata | jq -e '."mi-version".major == 1 and ."mi-version".minor == 0 and
	(."table-classes" | length > 0)' >/dev/null || fail "--metadata"
# A userspace trace has none of the kernel events LAMI's tables come from.
out=$("$ctl" analyze --test-compatibility "$tmp/snap" 2>/dev/null)
[ $? = 1 ] && jq -e '."error-message" | test("nothing to analyse")' <<<"$out" >/dev/null ||
	fail "--test-compatibility of a userspace trace: $out"
out=$("$ctl" analyze --test-compatibility "$tmp/empty" 2>/dev/null)
[ $? = 1 ] && jq -e '."error-message"' <<<"$out" >/dev/null ||
	fail "--test-compatibility of no trace: no error object: $out"
out=$(PATH="$(dirname "$ctl"):$PATH" "$lami" --output-progress "$tmp/snap")
grep -q '^\* [0-9]* events read$' <<<"$out" || fail "no progress line: $out"
tail -n 1 <<<"$out" | jq -e '."error-message"' >/dev/null || fail "LAMI results of a userspace trace: $out"
pass "LAMI phases"

[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
