# The app tracker: "begin req42" and "end req42" written by this shell around a 50 ms
# sleep, over a 10 ms threshold, raise exactly one alert cookie=req42 for the writer of
# begin, also found in an LTTng snapshot; end from another process works; malformed
# writes fail with EINVAL and change nothing (tests/vm/progs/lt-app-write.c); end of an
# unknown cookie succeeds and is counted unmatched; reads fail; a threshold change
# applies to the next marker; filters apply to the writer of begin; begin of a pending
# cookie on a full table restarts it (no alert measured from its first begin); writes while
# disabled are accepted and ignored; rmmod fails while the device is open, then works.
. "$VM_IN/scenarios/guest-lib.sh"

tracker_load app 8 0
D=/dev/latency_tracker_app
wait_for $D 50 || fail "no $D"
[ -c $D ] || fail "$D is not a character device"
ls -l $D
ls -l $D | grep -q '^crw-rw---- ' || fail "mode of $D: $(ls -l $D)"
echo 10000000 >$T/threshold_ns || fail "threshold_ns"

# marker EXPECT COOKIE: begin and end from this shell around a 50 ms sleep; EXPECT
# alerts of COOKIE. Leaves the alert in $line.
marker() {
	m=$(lt-dump -n) || fail "lt-dump -n"
	echo "begin $2" >$D || fail "begin $2"
	sleep 0.05
	echo "end $2" >$D || fail "end $2"
	check "$1" "$2"
}

check() {
	wait_ms=1000
	[ "$1" = 0 ] && wait_ms=300
	line=$(lt-dump -f "$m" -t app -w $wait_ms | grep " cookie=$2\$")
	n=$(printf '%s' "$line" | grep -c .)
	[ "$n" = "$1" ] || fail "cookie $2: $n alerts, expected $1: $line"
	[ -n "$line" ] && echo "$line"
	return 0
}

marker 0 disabled0
pass "writes while disabled are accepted and ignored"

tracker_enable
snapshot_start
marker 1 req42
[ "$(val "$line" delay_ns)" -ge 50000000 ] || fail "delay $(val "$line" delay_ns)"
[ "$(val "$line" pid)" = $$ ] || fail "pid $(val "$line" pid), the writer is $$"
[ "$(val "$line" data0)" = $((0x3234716572)) ] || fail "data0 $(val "$line" data0)"
pass "begin/end around a 50 ms sleep: one alert cookie=req42 for the writer"
ev=$(snapshot_alerts app)
echo "$ev" | grep -Eq "pid = $$[,} ]" || fail "snapshot alert: $ev"
pass "the alert is in an LTTng snapshot"

m=$(lt-dump -n)
bpid=$(sh -c 'echo "begin other1" >/dev/latency_tracker_app && echo $$') || fail "begin other1"
sleep 0.05
sh -c 'echo "end other1" >/dev/latency_tracker_app' || fail "end other1 from another process"
check 1 other1
[ "$(val "$line" pid)" = "$bpid" ] || fail "pid $(val "$line" pid), begin was written by $bpid"
pass "end from another process; the task is the writer of begin"

long=abcdefghijklmnopqrstuvwxyz012345
m=$(lt-dump -n)
in0=$(cat $T/stats/events_in)
out=$(lt-app-write "begin" "begin " "begin a b" "begin ${long}6" "middle x" "begin \x01\x02" \
	"\xff\xfe" "begin x\n\n" "Begin x" "begin x\nend x" "begin \xc3\xa9" "end" \
	"begin x " " begin x" "begin\tx" "begin x\x00" | tr '\n' ' ')
[ "$out" = "$(printf 'EINVAL %.0s' $(seq 16))" ] ||
	fail "malformed writes: $out"
[ "$(cat $T/stats/events_in)" = "$in0" ] || fail "a malformed write was tracked"
un0=$(cat $T/stats/unmatched)
out=$(lt-app-write "begin $long" "end nosuchcookie" | tr '\n' ' ')
[ "$out" = "ok ok " ] || fail "32-byte cookie, end of an unknown cookie: $out"
[ "$(cat $T/stats/unmatched)" -gt "$un0" ] || fail "unknown end not counted unmatched"
sleep 0.05
lt-app-write "end $long\n" >/dev/null
check 1 $long
if cat $D >/dev/null 2>&1; then fail "a read succeeded"; fi
pass "strict syntax: malformed writes fail with EINVAL; unknown end is not an error"

echo 100000000 >$T/threshold_ns || fail "threshold_ns 100 ms"
marker 0 thr1
echo 10000000 >$T/threshold_ns
marker 1 thr2
pass "threshold changes apply to the next marker"

echo nosuchcomm >$T/filter_comm || fail "filter_comm"
marker 0 flt1
echo >$T/filter_comm || fail "clear filter_comm"
echo $$ >$T/filter_tgid || fail "filter_tgid"
marker 1 flt2
m=$(lt-dump -n)
sh -c 'echo "begin flt3" >/dev/latency_tracker_app' || fail "begin flt3"
sleep 0.05
echo "end flt3" >$D || fail "end flt3"
check 0 flt3
echo 0 >$T/filter_tgid
pass "filters apply to the writer of begin"

# A reused cookie restarts while the table is full: its end measures from the restart.
# k1, begun as long ago as k0 was, still alerts: the old starts were there to be seen.
tracker_disable
echo 16 >$T/max_keys || fail "max_keys 16"
tracker_enable
echo 1000000000 >$T/threshold_ns || fail "threshold_ns 1 s"
for k in $(seq 0 15); do echo "begin k$k" >$D || fail "begin k$k"; done
[ "$(cat $T/stats/pending)" = 16 ] || fail "pending $(cat $T/stats/pending), expected 16"
sleep 2
dup0=$(cat $T/stats/duplicates)
full0=$(cat $T/stats/table_full)
m=$(lt-dump -n)
echo "begin k0" >$D || fail "begin k0 again on a full table"
echo "end k0" >$D || fail "end k0"
echo "end k1" >$D || fail "end k1"
check 1 k1
[ "$(val "$line" delay_ns)" -ge 2000000000 ] || fail "k1 delay $(val "$line" delay_ns)"
check 0 k0
[ "$(cat $T/stats/duplicates)" = $((dup0 + 1)) ] || fail "duplicates $(cat $T/stats/duplicates)"
[ "$(cat $T/stats/table_full)" = "$full0" ] || fail "table_full $(cat $T/stats/table_full)"
for k in $(seq 2 15); do echo "end k$k" >$D; done
pass "full table: begin of a pending cookie restarts it (no alert from its first start)"
echo 10000000 >$T/threshold_ns

tracker_disable
in0=$(cat $T/stats/events_in)
marker 0 off1
[ "$(cat $T/stats/events_in)" = "$in0" ] || fail "a write was tracked while disabled"
pass "disabled: writes ignored"

exec 3>$D
if rmmod latency_tracker_app 2>/dev/null; then fail "rmmod while the device is open"; fi
echo "begin open1" >&3 || fail "write after a failed rmmod"
exec 3>&-
echo "stats: in $(cat $T/stats/events_in) out $(cat $T/stats/events_out)" \
	"alerts $(cat $T/stats/alerts) unmatched $(cat $T/stats/unmatched)"
rmmod latency_tracker_app || fail "rmmod latency_tracker_app"
[ ! -e $D ] || fail "$D left behind"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "app tracker"
