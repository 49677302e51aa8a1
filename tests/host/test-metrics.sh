#!/bin/bash
# Prometheus metrics (#29), with the real parts: latencyd (userspace domain, as nobody,
# under lttng-env) writes metrics.textfile; promtool checks it and `latencyctl metrics`;
# Debian's node_exporter, on 127.0.0.1 only, serves the file through its textfile
# collector; Debian's prometheus, on 127.0.0.1 only, scrapes node_exporter, and a query
# over its HTTP API returns the snapshot count latencyd took. Then the faults: a textfile
# that cannot be written is counted and logged once, and written again when it can be;
# a bad metrics.textfile is refused naming the setting.
# Usage: lttng-env test-metrics.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP PROM_BIN_DIR
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?} PROM=${5:?}
. "$(dirname "$0")/lib.sh"
for b in prometheus promtool prometheus-node-exporter; do
	[ -x "$PROM/$b" ] || { echo "SKIP: $PROM/$b missing (tools/fetch-prometheus)"; exit 77; }
done
command -v curl >/dev/null || { echo "SKIP: curl missing"; exit 77; }

UST_APP=$UST_APP . "$(dirname "$0")/fleet-lib.sh"
. "$(dirname "$0")/prom-lib.sh"
# A snapshot made undeletable below is made deletable again, whatever fails.
trap '[ -n "${sub:-}" ] && chmod 0755 "$sub" 2>/dev/null; prom_stop; stop_all; cleanup' EXIT
start_fleet_broker
ust_recorder_setup "$UST_APP"
mkdir "$T/textfile"
PROMFILE=$T/textfile/latencyd.prom
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-metrics)
output: { directory = "$T/snapshots"; };
ratelimit: { rate = 0; };
retention: { max_count = 1; };
metrics: { textfile = "$PROMFILE"; interval = "1s"; };
fleet: { enabled = true; broker = "mqtt://127.0.0.1:$PORT"; host = "h1"; group = "metrics"; };
CONF
# One sample's value in the text format, labels spelled as latencyd writes them.
value() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
# expect_values FILE WHAT 'SAMPLE=VALUE'...: each sample has that value in FILE; else fails
# showing FILE's lines that hold WHAT.
expect_values() {
	local file=$1 what=$2 kv
	shift 2
	for kv in "$@"; do
		[ "$(value "$file" "${kv%=*}")" = "${kv##*=}" ] ||
			fail "${kv%=*} is not ${kv##*=}: $(grep -- "$what" "$file")"
	done
}

start_daemon -c "$T/latencyd.conf"
wait_for 50 test -s "$PROMFILE" || fail "no $PROMFILE"
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 sh -c "grep -q '^latencyd_snapshots_total{status=\"complete\"} 1$' '$PROMFILE'" ||
	fail "the textfile does not count the snapshot: $(cat "$PROMFILE")"
ls -A "$T/textfile" | grep -qv '^latencyd.prom$' && fail "left behind: $(ls -A "$T/textfile")"
"$PROM/promtool" check metrics <"$PROMFILE" >"$T/promtool.log" 2>&1 ||
	fail "promtool check metrics on the textfile: $(cat "$T/promtool.log")"
run "$LATENCYCTL" -s "$SOCK" metrics
expect_rc 0 "latencyctl metrics"
"$PROM/promtool" check metrics <"$T/out" >"$T/promtool.log" 2>&1 ||
	fail "promtool check metrics on latencyctl metrics: $(cat "$T/promtool.log")"
expect_values "$T/out" latencyd_ 'latencyd_snapshots_total{status="complete"}=1' \
	latencyd_alerts_taken_total=1 latencyd_catalog_snapshots=1
[ "$(value "$T/out" 'latencyd_catalog_bytes')" -gt 0 ] || fail "latencyd_catalog_bytes"
"$LATENCYCTL" -s "$SOCK" --json metrics | jq -e '.text | test("# TYPE latencyd_snapshots_total counter")' \
	>/dev/null || fail "latencyctl --json metrics"
wait_for 100 sh -c "'$LATENCYCTL' -s '$SOCK' metrics | grep -q '^latencyd_history_window_seconds'" ||
	fail "no history window in the metrics"
run "$LATENCYCTL" -s "$SOCK" metrics
[ "$(value "$T/out" latencyd_fleet_connected)" = 1 ] || fail "fleet not connected: $(grep fleet "$T/out")"
cp "$T/out" "$T/metrics-full"
pass "metrics.textfile and latencyctl metrics: the snapshot counted, promtool check metrics passes"

# node_exporter serves the file; prometheus scrapes it: both on 127.0.0.1 only.
prom_start "$T/textfile" node
curl -sf "http://127.0.0.1:$NE_PORT/metrics" >"$T/scrape" || fail "node_exporter's scrape"
[ "$(value "$T/scrape" 'latencyd_snapshots_total{status="complete"}')" = 1 ] &&
	[ "$(value "$T/scrape" 'node_textfile_scrape_error')" = 0 ] ||
	fail "node_exporter's scrape: $(grep -E 'latencyd_snapshots|textfile' "$T/scrape")"
snapshots_counted() {
	prom_query 'latencyd_snapshots_total{status="complete",job="node"}' &&
		jq -e '.data.result[0].value[1] == "1"' "$T/query" >/dev/null
}
wait_for 300 snapshots_counted ||
	fail "prometheus's query: $(cat "$T/query" 2>/dev/null) $(tail -5 "$T/prometheus.log")"
pass "node_exporter serves the textfile and prometheus's query returns the snapshot count"

# A directory latencyd cannot write to: counted, said once, and written again afterwards.
chmod 0555 "$T/textfile"
wait_for 50 grep -q "metrics.textfile $PROMFILE: cannot write it" "$T/latencyd.log" ||
	fail "no warning for an unwritable textfile"
sleep 2.5
[ "$(grep -c 'metrics.textfile .*: cannot write it' "$T/latencyd.log")" = 1 ] ||
	fail "the failure is not said once: $(grep metrics.textfile "$T/latencyd.log")"
run "$LATENCYCTL" -s "$SOCK" metrics
[ "$(value "$T/out" latencyd_metrics_textfile_failures_total)" -ge 2 ] ||
	fail "failures not counted: $(grep textfile "$T/out")"
chmod 0755 "$T/textfile"
wait_for 50 grep -q "metrics.textfile $PROMFILE written again" "$T/latencyd.log" ||
	fail "not written again once the directory is writable"
pass "an unwritable textfile: counted, said once, written again"

# Local retention (max_count 1) that cannot delete snapshot 1 (a directory of it not
# writable): the snapshot is kept, counted while it is there in status and the metrics, not
# held against snapshot 2 (just recorded, which stays), and goes once it can: status checks
# it again, and the retention pass that follows deletes it, no new snapshot needed.
retention() { "$LATENCYCTL" -s "$SOCK" --json status | jq -c .retention; }
retention_is() { [ "$(retention)" = "$1" ]; }
snap1=$(jq -r '.snapshots[] | select(.id == 1) | .path' "$CAT")
sub=$(find "$snap1" -mindepth 1 -maxdepth 1 -type d | head -1)
[ -d "$sub" ] || fail "snapshot 1 has no directory inside: $(ls -la "$snap1")"
chmod 0555 "$sub"
"$ALERT_WRITE" "$T/alerts" selftest 1 || fail "alert-write"
wait_for 100 grep -q "snapshot 1: cannot be deleted: .*Permission denied; kept whole" "$T/latencyd.log" ||
	fail "retention did not meet the undeletable snapshot: $(grep -i snapshot "$T/latencyd.log" | tail -5)"
retention_is '{"undeletable":1,"deleted_in_part":0}' || fail "status retention: $(retention)"
# Its state and its note are the entry's own members (1.15), its error the record's.
"$LATENCYCTL" -s "$SOCK" --json list-snapshots | jq -e '.snapshots[] | select(.id == 1) |
	.deletion == "undeletable" and (.deletion_note | test("Permission denied$")) and
	(has("error") | not)' >/dev/null ||
	fail "list-snapshots: $("$LATENCYCTL" -s "$SOCK" --json list-snapshots | jq -c '.snapshots[] | select(.id == 1)')"
run "$LATENCYCTL" -s "$SOCK" show-snapshot 1
grep -q "Deletion  cannot be deleted, kept whole: $snap1/.*: Permission denied" "$T/out" ||
	fail "show-snapshot 1: $(cat "$T/out")"
run "$LATENCYCTL" -s "$SOCK" metrics
"$PROM/promtool" check metrics <"$T/out" >"$T/promtool.log" 2>&1 ||
	fail "promtool check metrics, retention: $(cat "$T/promtool.log")"
expect_values "$T/out" retention latencyd_retention_undeletable_snapshots=1 \
	latencyd_retention_deleted_in_part_total=0 latencyd_retention_forgotten_total=0 \
	latencyd_catalog_snapshots=2
run "$LATENCYCTL" -s "$SOCK" status
expect_out "1 snapshot(s) retention cannot delete (show-snapshot says where and why)"
wait_for 50 sh -c "grep -q '^latencyd_retention_undeletable_snapshots 1$' '$PROMFILE'" ||
	fail "the textfile does not count it: $(grep retention "$PROMFILE")"
chmod 0755 "$sub"
# Checked again at most once every 10 s (latencyd.conf(5)): 30 s is the safety net.
wait_for 300 retention_is '{"undeletable":0,"deleted_in_part":0}' ||
	fail "the snapshot deletable again is still counted: $(retention)"
wait_for 50 sh -c "[ ! -e '$snap1' ]" || fail "snapshot 1 is still there: $(ls -la "$snap1")"
run "$LATENCYCTL" -s "$SOCK" metrics
expect_values "$T/out" retention latencyd_retention_undeletable_snapshots=0 latencyd_catalog_snapshots=1
pass "a local snapshot retention cannot delete: kept, counted in status and the metrics, deleted once it can be"
stop_daemon

# The module's counters, per tracker, from its sysfs files (a fake tree: no module here).
S=$T/sys/kernel/latency_tracker
for t in block wakeup; do
	mkdir -p "$S/$t/stats"
	echo 0 >"$S/$t/enabled"
done
echo 4 >"$S/block/stats/alerts"
echo 2 >"$S/block/stats/timeouts"
echo 9 >"$S/block/stats/drops"
echo 1234 >"$S/block/stats/delay_count"
echo 1.4 >"$S/abi_version"
# ABI 1.4's histograms: block's total, and its split per disk (254:0, named vda).
mkdir -p "$S/block/hist" "$T/sys/dev/block"
printf 'since_ns 100 now_ns 2000000100\n0 1\n1024 3\n33554432 5\n' >"$S/block/hist/delay_ns"
printf 'since_ns 100 now_ns 2000000100\nper disk\n254:0 1024 3\n254:0 33554432 5\n8:16 0 1\n' \
	>"$S/block/hist/by_key"
ln -s ../../devices/virtual/block/vda "$T/sys/dev/block/254:0"
# syscalls split per system call number (0: read, 1: write on x86-64).
mkdir -p "$S/syscalls/stats" "$S/syscalls/hist"
echo 0 >"$S/syscalls/enabled"
printf 'since_ns 5 now_ns 10\n4096 7\n' >"$S/syscalls/hist/delay_ns"
# 64 keys: the metrics outgrow a frame, and latencyctl asks for the rest (next_line).
{ printf 'since_ns 5 now_ns 10\nper syscall\n0 4096 4\n1 4096 3\n'
	for k in $(seq 2 63); do echo "$k 4096 1"; done; } >"$S/syscalls/hist/by_key"
printf 'control: { socket = "%s"; max_clients = 2; };\nsession: { enabled = false; };\n' "$SOCK" >"$T/bare.conf"
LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/bare.conf"

# The control socket's counters: two connections that say nothing hold both slots (a third
# is busy) until the handshake timeout closes them; a frame that is not JSON is a bad one.
# The probe may come first and take a slot, one silent connection then turned away busy:
# that one connects again.
SILENT=()
hold_both() {
	local i
	for i in 0 1; do
		if [ -z "${SILENT[$i]:-}" ] || ! kill -0 "${SILENT[$i]}" 2>/dev/null; then
			socat -u UNIX-CONNECT:"$SOCK" /dev/null 2>/dev/null &
			SILENT[$i]=$!
		fi
	done
	sleep 0.2
	"$LATENCYCTL" -s "$SOCK" status 2>&1 | grep -q 'too many clients (2)'
}
wait_for 100 hold_both || fail "no busy client with both slots held"
wait_for 300 sh -c "'$LATENCYCTL' -s '$SOCK' --json status | jq -e '.control.timed_out == 2' >/dev/null" ||
	fail "the silent clients are not timed out: $("$LATENCYCTL" -s "$SOCK" --json status | jq -c .control)"
for p in "${SILENT[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
printf 'not json\n' | timeout 10 socat - UNIX-CONNECT:"$SOCK" >/dev/null 2>&1
run "$LATENCYCTL" -s "$SOCK" --json metrics
expect_rc 0 "latencyctl metrics, control counters"
jq -j -s '.[].text' "$T/out" >"$T/control.prom"
parts=$(jq -s length "$T/out")
"$LATENCYCTL" -s "$SOCK" --json status | jq .control >"$T/control.json" || fail "status"
"$PROM/promtool" check metrics <"$T/control.prom" >"$T/promtool.log" 2>&1 ||
	fail "promtool check metrics, control counters: $(cat "$T/promtool.log")"
# Each as status says it: the text is rendered for the first part, and each part and
# status after them take one connection more.
ctl_status() { jq -r ".$1" "$T/control.json"; }
expect_values "$T/control.prom" latencyd_control_ \
	latencyd_control_clients=1 latencyd_control_max_clients=2 latencyd_control_waiting=0 \
	"latencyd_control_accepted_total=$(($(ctl_status accepted) - parts))" \
	"latencyd_control_refused_total{reason=\"not_authorized\"}=$(ctl_status refused)" \
	"latencyd_control_refused_total{reason=\"busy\"}=$(ctl_status busy)" \
	"latencyd_control_dropped_slow_total=$(ctl_status dropped_slow)" \
	latencyd_control_timed_out_total=2 latencyd_control_bad_frames_total=1 \
	latencyd_control_groups_timed_out_total=0 \
	"latencyd_control_events_too_large_total=$(ctl_status events_too_large)" \
	"latencyd_control_accept_failures_total=$(ctl_status accept_failed)"
[ "$(ctl_status busy)" -ge 1 ] && [ "$(ctl_status accepted)" -ge 6 ] ||
	fail "status control: $(cat "$T/control.json")"
for t in gauge:latencyd_control_clients counter:latencyd_control_refused_total \
	counter:latencyd_control_accept_failures_total; do
	grep -q "^# TYPE ${t#*:} ${t%%:*}$" "$T/control.prom" || fail "no TYPE ${t#*:} ${t%%:*}"
done
pass "the control socket's counters as metrics: $(grep -c '^latencyd_control_' "$T/control.prom") samples, as status says"
run "$LATENCYCTL" -s "$SOCK" metrics
expect_rc 0 "latencyctl metrics, module counters"
"$PROM/promtool" check metrics <"$T/out" >"$T/promtool.log" 2>&1 ||
	fail "promtool check metrics, module counters: $(cat "$T/promtool.log")"
expect_values "$T/out" tracker \
	'latencyd_tracker_alerts_total{tracker="block",reason="threshold"}=4' \
	'latencyd_tracker_alerts_total{tracker="block",reason="timeout"}=2' \
	'latencyd_tracker_dropped_events_total{tracker="block"}=9' \
	'latencyd_tracker_pairs_total{tracker="block"}=1234' \
	'latencyd_tracker_pairs_total{tracker="wakeup"}=0'
pass "the module's counters per tracker"
# Cumulative buckets on the fixed bounds: 1 below 1.024 us, 3 more below 2.048 us, 5 more
# below 67.1 ms; a disk the kernel has no name for keeps its number.
expect_values "$T/out" latency_ \
	'latencyd_latency_seconds_bucket{tracker="block",le="1.024e-06"}=1' \
	'latencyd_latency_seconds_bucket{tracker="block",le="2.048e-06"}=4' \
	'latencyd_latency_seconds_bucket{tracker="block",le="0.033554432"}=4' \
	'latencyd_latency_seconds_bucket{tracker="block",le="0.067108864"}=9' \
	'latencyd_latency_seconds_bucket{tracker="block",le="+Inf"}=9' \
	'latencyd_latency_seconds_count{tracker="block"}=9' \
	'latencyd_latency_by_disk_seconds_bucket{tracker="block",disk="vda",le="0.067108864"}=8' \
	'latencyd_latency_by_disk_seconds_count{tracker="block",disk="8:16"}=1' \
	'latencyd_latency_by_syscall_seconds_bucket{tracker="syscalls",syscall="1",le="8.192e-06"}=3'
grep -q 'latencyd_latency_seconds_bucket{tracker="wakeup"' "$T/out" &&
	fail "a tracker without hist/ (ABI < 1.4) has a histogram"
[ "$(wc -c <"$T/out")" -gt 65536 ] || fail "the metrics fit one frame: no paging tested"
"$LATENCYCTL" -s "$SOCK" --json metrics >"$T/parts.json" || fail "latencyctl --json metrics"
[ "$(jq -s 'length' "$T/parts.json")" -gt 1 ] && jq -s -e '.[-1] | has("next_line") | not' \
	"$T/parts.json" >/dev/null || fail "no parts: $(jq -c '[.[] | .next_line]' -s "$T/parts.json")"
# The same text but for the connections accepted: this is one more.
jq -j -s '.[].text' "$T/parts.json" | grep -v '^latencyd_control_accepted_total ' |
	cmp -s - <(grep -v '^latencyd_control_accepted_total ' "$T/out") ||
	fail "the parts do not add up to the text"
grep -q 'latencyd_latency_by_syscall_seconds_count{tracker="syscalls",syscall="63"} 1' "$T/out" ||
	fail "the last key is missing"
pass "the module's histograms: per tracker, disk and system call, cumulative on fixed bounds; $(jq -s length "$T/parts.json") parts"
# The Grafana dashboard uses exactly the names latencyd writes.
DASH=$(dirname "$0")/../../contrib/grafana-latencyd.json
for name in $(jq -r '.panels[].targets[].expr' "$DASH" | grep -o 'latencyd_[a-z_]*' | sort -u); do
	grep -q "^# TYPE ${name%_bucket} " "$T/metrics-full" "$T/out" ||
		fail "the dashboard's $name is not a metric latencyd writes"
done
pass "every metric the Grafana dashboard queries is one latencyd writes"

# The parts of one read come from one rendering (1.16), whatever changes between them: a
# disk's key coming and going in block's hist/by_key, before the first part's end, shifted
# the lines of a part rendered afresh (samples twice, or left out).
BK=$S/block/hist/by_key
cp "$BK" "$T/by_key.2"
{ cat "$BK"; echo '8:32 0 1'; } >"$T/by_key.3"
(for i in $(seq 20000); do
	[ -e "$T/keys.stop" ] && break
	cp "$T/by_key.$((2 + i % 2))" "$BK.new" && mv "$BK.new" "$BK"
done) &
KEYS=$!
bad=0 first_bad=
for i in $(seq 40); do
	"$LATENCYCTL" -s "$SOCK" metrics >"$T/read" 2>&1 || fail "latencyctl metrics: $(cat "$T/read")"
	dup=$(sort "$T/read" | uniq -d | head -3)
	n=$(grep -c '^latencyd_latency_by_syscall_seconds_count{' "$T/read")
	if [ -n "$dup" ] || [ "$n" != 64 ] || ! "$PROM/promtool" check metrics <"$T/read" >/dev/null 2>&1; then
		bad=$((bad + 1))
		[ -n "$first_bad" ] || first_bad="$n syscalls' counts; twice: $dup"
	fi
done
touch "$T/keys.stop"
wait "$KEYS"
cp "$T/by_key.2" "$BK"
[ "$bad" = 0 ] || fail "$bad of 40 reads mix two renderings: $first_bad"
# Each part on its own connection, as latencyctl asks: a later part names the rendering;
# one unknown, forgotten after its last part, or pushed out by 8 newer reads of the same user
# is an error.
ask() {
	printf '%s\n' '{"hello":{"protocol":1,"revision":16,"client":"test"}}' \
		"{\"id\":1,\"command\":\"metrics\",\"args\":$1}" |
		timeout 10 socat -t 5 - UNIX-CONNECT:"$SOCK" | tail -1
}
gone() { ask "$1" | jq -e '.ok == false and .error.code == "not-found" and
	(.error.message | test("metrics rendering [0-9]+ is gone"))' >/dev/null; }
gone '{"from_line":3,"rendering":12345}' || fail "an unknown rendering: $(ask '{"from_line":3,"rendering":12345}')"
ids=()
for i in $(seq 0 8); do
	ids[$i]=$(ask '{"from_line":0}' | jq -e '.result | select(.next_line > 0) | .rendering') ||
		fail "a first part without its rendering: $(ask '{"from_line":0}' | jq -c '.result | del(.text)')"
done
gone "{\"from_line\":1,\"rendering\":${ids[0]}}" || fail "the oldest of 9 renderings of one user is still kept"
from=0
while [ -n "$from" ]; do
	ask "{\"from_line\":$from,\"rendering\":${ids[8]}}" >"$T/part"
	jq -e -j .result.text "$T/part" >>"$T/parts.txt" || fail "part from line $from: $(cat "$T/part")"
	from=$(jq -r '.result.next_line // empty' "$T/part")
done
"$PROM/promtool" check metrics <"$T/parts.txt" >"$T/promtool.log" 2>&1 ||
	fail "promtool check metrics, one rendering's parts: $(cat "$T/promtool.log")"
gone "{\"from_line\":0,\"rendering\":${ids[8]}}" || fail "a rendering read to its end is still kept"
# Ids are random, not the next after another reader's; a part asked past the end does not end
# the read (another user's part is unit-metrics-renderings').
[ $((ids[1] - ids[0])) != 1 ] || fail "rendering ids in sequence: ${ids[0]} ${ids[1]}"
id=$(ask '{"from_line":0}' | jq -e '.result.rendering') || fail "no rendering"
ask "{\"from_line\":1000000000,\"rendering\":$id}" | jq -e '.ok' >/dev/null ||
	fail "a part past the end of the text"
ask "{\"from_line\":1,\"rendering\":$id}" | jq -e '.ok' >/dev/null ||
	fail "a part past the end ended the read: $(ask "{\"from_line\":1,\"rendering\":$id}" | jq -c .error)"
pass "the parts of a read are one rendering's: 40 reads while a key came and went, none mixed; renderings bounded, random, the reader's own"

# latencyctl's rendering pushed out between its parts (8 newer reads of the same user, as
# scrapers at once make): it reads again from the first line, at most 3 times more, then
# fails with latencyd's not-found. A proxy on its way counts its connections and, before
# forwarding one listed in $T/push ("all": each), reads 8 first parts itself.
export SOCK T
export -f ask
cat >"$T/proxy.sh" <<'EOF'
n=$(($(cat "$T/conns") + 1))
echo "$n" >"$T/conns"
if grep -qw -e "$n" -e all "$T/push"; then
	for i in 1 2 3 4 5 6 7 8; do ask '{"from_line":0}' >/dev/null; done
fi
exec socat - UNIX-CONNECT:"$SOCK"
EOF
socat UNIX-LISTEN:"$T/proxy.sock",fork EXEC:"bash $T/proxy.sh" 2>"$T/proxy.log" &
wait_for 50 test -S "$T/proxy.sock" || fail "no proxy socket"
echo 0 >"$T/conns"
echo 2 >"$T/push"
run "$LATENCYCTL" -s "$T/proxy.sock" --json metrics
expect_rc 0 "latencyctl metrics, its rendering gone after the first part"
[ ! -s "$T/err" ] || fail "latencyctl metrics said something on a read it started over: $(cat "$T/err")"
parts=$(jq -s length "$T/out")
# Its first read: 2 connections (the first part, the later one that found the rendering gone).
[ "$parts" -gt 1 ] && [ "$(cat "$T/conns")" = $((parts + 2)) ] ||
	fail "$(cat "$T/conns") connections for a read of $parts parts started over once"
jq -j -s '.[].text' "$T/out" >"$T/again.prom"
"$PROM/promtool" check metrics <"$T/again.prom" >"$T/promtool.log" 2>&1 ||
	fail "promtool check metrics, a read started over: $(cat "$T/promtool.log")"
[ "$(grep -c '^latencyd_latency_by_syscall_seconds_count{' "$T/again.prom")" = 64 ] &&
	[ -z "$(sort "$T/again.prom" | uniq -d)" ] || fail "a read started over mixes its parts"
echo 0 >"$T/conns"
echo all >"$T/push"
run "$LATENCYCTL" -s "$T/proxy.sock" metrics
expect_rc 1 "latencyctl metrics, its rendering gone each time"
expect_err "is gone"
expect_err "(not-found)"
expect_err "latencyctl: metrics: read 4 times from the first line, the rendering gone before its last part each time"
[ ! -s "$T/out" ] || fail "latencyctl metrics printed a text it could not read whole"
[ "$(cat "$T/conns")" = 8 ] || fail "$(cat "$T/conns") connections for 4 reads of 2 parts"
run "$LATENCYCTL" -s "$T/proxy.sock" --json metrics
expect_rc 1 "latencyctl --json metrics, its rendering gone each time"
jq -e '.error.code == "not-found"' "$T/out" >/dev/null || fail "latencyctl --json metrics: $(cat "$T/out")"
pass "a read whose rendering went between its parts starts over from the first line; 4 times gone, it fails (not-found, exit status 1)"
stop_daemon

# Bad settings are refused before anything runs, naming the setting and the problem.
for bad in "$T/nodir/latencyd.prom:No such file" "$T/textfile/latencyd.txt:*.prom" \
	"relative.prom:absolute"; do
	printf 'metrics: { textfile = "%s"; };\n' "${bad%%:*}" >"$T/bad.conf"
	run "$LATENCYD" --check-config -c "$T/bad.conf"
	[ "$RC" -ne 0 ] || fail "metrics.textfile = ${bad%%:*} accepted"
	grep -q "metrics.textfile" "$T/err" && grep -qF "${bad#*:}" "$T/err" ||
		fail "metrics.textfile = ${bad%%:*}: $(cat "$T/err")"
done
printf 'metrics: { interval = "0s"; };\n' >"$T/bad.conf"
run "$LATENCYD" --check-config -c "$T/bad.conf"
[ "$RC" -ne 0 ] && grep -q "metrics.interval" "$T/err" || fail "metrics.interval = 0s: $(cat "$T/err")"
pass "bad metrics settings refused, naming the setting"
