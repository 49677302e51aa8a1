#!/bin/bash
# latencyctl analyze --freq, --freq-resolution and --io-usage (run under lttng-env). On a
# kernel trace written as lttng-modules writes one (kernel-snap-write: random durations and
# sizes, a random seed), each distribution's count, minimum, maximum and buckets are what
# babeltrace2's own reading of the trace gives, binned here by the rule the man page states,
# the I/O usage's sums too, and text, JSON and LAMI agree. On a real userspace snapshot (no
# kernel event) the distributions are said absent. A bad --freq-resolution is a usage error
# (exit 2) naming it, wherever it stands.
# Usage: test-analyze-freq.sh LATENCYCTL KERNEL_SNAP_WRITE UST_APP
set -uo pipefail
ctl=$1
writer=$2
app=$3
tmp=$LATENCYD_TEST_TMP
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "PASS: $*"; }
command -v jq >/dev/null || { echo "jq missing; skipping"; exit 77; }
command -v babeltrace2 >/dev/null || { echo "babeltrace2 missing; skipping"; exit 77; }

seed=$RANDOM
res=$((seed % 30 + 2))
echo "seed $seed ($(basename "$writer") DIR $seed writes the same trace again), $res buckets"
mkdir -p "$tmp/k"
"$writer" "$tmp/k" "$seed" || { echo "FAIL: kernel-snap-write"; exit 1; }

# What babeltrace2 reads: one line per system call, interrupt and block request.
babeltrace2 --clock-cycles "$tmp/k" | awk '
function val(name,   s) { s = $0; sub(".*" name " = ", "", s); sub(/[ ,}].*/, "", s); return s }
{ ts = substr($1, 2, length($1) - 2) + 0; ev = $3; sub(/:$/, "", ev) }
ev ~ /^syscall_entry_/ { entry = ts }
ev ~ /^syscall_exit_/ { sub(/^syscall_exit_/, "", ev); print "sys", ev, ts - entry, val("ret") }
ev == "irq_handler_entry" { entry = ts; name = val("name"); gsub(/"/, "", name) }
ev == "irq_handler_exit" { print "irq", "irq " val("irq") " " name, ts - entry }
ev == "block_rq_issue" { issue = ts }
ev == "block_rq_complete" { print "blk", val("rwbs"), ts - issue, val("nr_sector") * 512 }
' >"$tmp/k.ops"
[ "$(grep -c '^sys' "$tmp/k.ops")" -gt 100 ] || fail "babeltrace2 read $(wc -l <"$tmp/k.ops") operations"

"$ctl" --json analyze --freq-resolution "$res" --io-usage --limit unlimited "$tmp/k" >"$tmp/k.json" ||
	fail "analyze --json --freq-resolution $res: exit $?"
"$ctl" analyze "$tmp/k" --freq-resolution "$res" --limit unlimited >"$tmp/k.txt" ||
	fail "analyze --freq-resolution $res (text): exit $?"
"$ctl" analyze --lami --freq-resolution "$res" --limit unlimited "$tmp/k" >"$tmp/k.lami" ||
	fail "analyze --lami --freq-resolution $res: exit $?"
[ "$(jq -r .freq_resolution "$tmp/k.json")" = "$res" ] || fail "freq_resolution $(jq .freq_resolution "$tmp/k.json")"

# SUBJECT and its durations (the ops whose kind and key match): the distribution expected,
# "count min max lower0:count0 ...", bucket i holding [min + floor(range * i / res), the next) and
# the last one the maximum too; all equal: one bucket.
expected() {
	awk -v res="$res" -v kind="$1" -v key="$2" '
	$1 == kind && (key == "" || (kind == "irq" ? $2 " " $3 " " $4 : $2) == key) {
		d = kind == "irq" ? $5 : $3; v[n++] = d
		if (n == 1 || d < min) min = d
		if (n == 1 || d > max) max = d
	}
	END {
		if (!n) exit
		r = max == min ? 1 : res
		for (i = 0; i < r; i++) { c[i] = 0; b[i] = min + int((max - min) * i / r) }
		for (j = 0; j < n; j++) { i = r - 1; while (i > 0 && v[j] < b[i]) i--; c[i]++ }
		printf "%d %d %d", n, min, max
		for (i = 0; i < r; i++) printf " %d:%d", b[i], c[i]
		print ""
	}' "$tmp/k.ops"
}
got() {
	jq -r --arg s "$1" '.distributions[] | select(.subject == $s) |
		"\(.count) \(.min_ns) \(.max_ns) \(.buckets | map("\(.lower_ns):\(.count)") | join(" "))"' \
		"$tmp/k.json"
}
checked=0
check() { # SUBJECT KIND KEY
	local want have
	want=$(expected "$2" "$3")
	have=$(got "$1")
	[ -n "$want" ] && [ "$want" = "$have" ] || fail "$1: expected '$want', got '$have'"
	checked=$((checked + 1))
}
check "all system calls" sys ""
for call in read pread64 recvfrom write; do check "$call" sys "$call"; done
check "8:16" blk ""
check "irq 11 eth0" irq "irq 11 eth0"
check "irq 19 nvme0q1" irq "irq 19 nvme0q1"
[ "$(jq '.distributions | length' "$tmp/k.json")" = $checked ] ||
	fail "$(jq '.distributions | length' "$tmp/k.json") distributions, $checked expected"
jq -e '.distributions | all(.buckets as $b | ($b[0].lower_ns == .min_ns) and
	($b[-1].upper_ns == .max_ns) and ([range(1; $b | length)] | all($b[.].lower_ns == $b[. - 1].upper_ns)))' \
	"$tmp/k.json" >/dev/null || fail "buckets not contiguous from min to max"
pass "$checked distributions in $res buckets as babeltrace2's reading gives them"

# The same distributions in LAMI (classes inherited, titled alike) and in the text.
jq -c '[.results[] | select(.class | type == "object" and (.inherit | endswith("-freq"))) |
	{title: .class.title, lower: [.data[][0].value], count: [.data[][2].value]}]' "$tmp/k.lami" >"$tmp/lami.freq"
jq -c '[.distributions[] | {title, lower: [.buckets[].lower_ns], count: [.buckets[].count]}]' \
	"$tmp/k.json" >"$tmp/json.freq"
cmp -s "$tmp/lami.freq" "$tmp/json.freq" || fail "LAMI and JSON distributions differ: $(diff "$tmp/lami.freq" "$tmp/json.freq" | head -c 400)"
jq -e '."table-classes" | has("syscall-latency-freq") and has("io-usage-read")' \
	<("$ctl" analyze --metadata) >/dev/null || fail "--metadata lacks the distributions' classes"
while read -r title; do
	grep -qxF "$title" "$tmp/k.txt" || fail "text lacks '$title'"
done < <(jq -r '.distributions[].title' "$tmp/k.json")
rows=$(awk '/frequency distribution: /{on = 1; getline; next} /^$/{on = 0} on' "$tmp/k.txt" | wc -l)
[ "$rows" = "$(jq '[.distributions[].buckets[]] | length' "$tmp/k.json")" ] ||
	fail "text has $rows bucket rows, JSON $(jq '[.distributions[].buckets[]] | length' "$tmp/k.json")"
pass "text, JSON and LAMI give the same distributions"

# I/O usage: the bytes the calls returned, by what the call says of its descriptor, and the
# block requests' bytes, all the one task's.
sum() { awk -v f="$1" -v k="$2" '$1 == f && $2 == k && $4 > 0 { s += $4 } END { print s + 0 }' "$tmp/k.ops"; }
want="$(sum sys pread64) $(sum sys recvfrom) $(sum sys read) $(sum blk 4)"
have=$(jq -r '.tables["io-usage-read"].rows[0] | "\(.[2]) \(.[3]) \(.[4]) \(.[5])"' "$tmp/k.json")
[ "$want" = "$have" ] || fail "read: file, network, unknown, block: expected '$want', got '$have'"
want="0 0 $(sum sys write) $(sum blk 1)"
have=$(jq -r '.tables["io-usage-write"].rows[0] | "\(.[2]) \(.[3]) \(.[4]) \(.[5])"' "$tmp/k.json")
[ "$want" = "$have" ] || fail "written: file, network, unknown, block: expected '$want', got '$have'"
jq -e '.tables["io-usage-read"].rows[0][0].tid == 4242 and (.io_usage_note | test("unknown"))' \
	"$tmp/k.json" >/dev/null || fail "I/O usage: not the task's, or no note of what is unknown"
pass "I/O usage: $(jq -c '.tables["io-usage-read"].rows[0][1:]' "$tmp/k.json") read"

# Without the options, nothing of them.
"$ctl" --json analyze "$tmp/k" | jq -e 'has("distributions") or has("io_usage_note") or
	(.tables | has("io-usage-read")) | not' >/dev/null || fail "distributions without --freq"
! "$ctl" analyze "$tmp/k" | grep -q "distribution" || fail "text distributions without --freq"

# A real userspace snapshot: nothing to bin, and said so.
"$app" &
app_pid=$!
trap 'kill $app_pid 2>/dev/null' EXIT
for _ in $(seq 100); do lttng list -u 2>/dev/null | grep -q lttng_ust_tracef && break; sleep 0.1; done
if lttng create ust --snapshot "--output=$tmp/snap" >/dev/null &&
	lttng enable-event -u -a -s ust >/dev/null && lttng start ust >/dev/null && sleep 1 &&
	lttng snapshot record -s ust >/dev/null; then
	out=$("$ctl" --json analyze --freq --io-usage "$tmp/snap")
	jq -e '.events > 0 and .distributions == [] and .freq_resolution == 20 and
		.tables["io-usage-read"].rows == []' <<<"$out" >/dev/null ||
		fail "userspace snapshot: $(jq -c '{events, freq_resolution, distributions}' <<<"$out")"
	"$ctl" analyze --freq "$tmp/snap" | grep -q "No frequency distribution" ||
		fail "userspace snapshot: no distribution not said"
	pass "a real userspace snapshot: $(jq .events <<<"$out") events, no distribution, said so"
else
	fail "userspace snapshot"
fi
lttng destroy ust >/dev/null 2>&1

for bad in 0 1001 -3 abc 5x ""; do
	"$ctl" analyze "$tmp/k" --freq-resolution "$bad" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && grep -q -- "--freq-resolution '$bad'" "$tmp/err" ||
		fail "--freq-resolution '$bad': exit $rc, $(cat "$tmp/err")"
done
pass "a bad --freq-resolution: exit 2: $(cat "$tmp/err")"

[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
