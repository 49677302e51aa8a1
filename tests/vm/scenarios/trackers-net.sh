# The net tracker: a UDP datagram on loopback read 50 ms after it arrived, over a 10 ms
# threshold, raises exactly one alert for the reader (tests/vm/progs/lt-net-udp.c) with
# ifindex 1, IPv4/UDP and the ports, also found in an LTTng snapshot; the same over IPv6
# when the VM has it, and over TCP (tests/vm/progs/lt-net-tcp.c); a datagram dropped unread at close is reported dropped; a threshold
# change applies to the next packet; filters apply to the reader; no probe stays
# registered when disabled; unload is clean.
. "$VM_IN/scenarios/guest-lib.sh"

tracker_load net 7 4
echo "stale_ns $(cat $T/stale_ns) max_keys $(cat $T/max_keys) dup_policy $(cat $T/dup_policy)"
[ "$(cat $T/stale_ns)" -gt 0 ] || fail "stale_ns 0: keys of untraced skbs would leak"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up || fail "lo up"
echo 10000000 >$T/threshold_ns || fail "threshold_ns"
tracker_enable

PORT=5555
SPORT=40001
PORTS=$((SPORT | PORT << 16))

# late_read EXPECT [lt-net-udp options]: one late read; EXPECT alerts for its ports.
# Leaves the alert line in $line and the reader's pid in $rpid.
late_read() {
	expect=$1
	shift
	m=$(lt-dump -n) || fail "lt-dump -n"
	out=$(lt-net-udp "$@" $PORT $SPORT 50) || fail "lt-net-udp $*: $out"
	rpid=$(val "$out" pid)
	wait_ms=1000
	[ "$expect" = 0 ] && wait_ms=300
	line=$(lt-dump -f "$m" -t net -w $wait_ms | grep " data2=$PORTS ")
	n=$(printf '%s' "$line" | grep -c .)
	[ "$n" = "$expect" ] || fail "lt-net-udp $*: $n alerts, expected $expect: $line"
	[ -n "$line" ] && echo "$line"
	return 0
}

snapshot_start
late_read 1
[ "$(val "$line" delay_ns)" -ge 50000000 ] || fail "delay $(val "$line" delay_ns)"
[ "$(val "$line" data0)" = 1 ] || fail "ifindex $(val "$line" data0), expected lo (1)"
[ "$(val "$line" data1)" = $((0x0800 | 17 << 16)) ] || fail "protocol $(val "$line" data1)"
[ "$(val "$line" data3)" = 0 ] || fail "not consumed: $(val "$line" data3)"
[ "$(val "$line" pid)" = "$rpid" ] || fail "pid $(val "$line" pid), the reader is $rpid"
[ "$(val "$line" comm)" = lt-net-udp ] || fail "comm $(val "$line" comm)"
pass "a late UDP read alerts, with ifindex, protocol, ports and the reader's task"
ev=$(snapshot_alerts net)
echo "$ev" | grep -q 'comm = "lt-net-udp"' || fail "snapshot alert: $ev"
pass "the alert is in an LTTng snapshot"

if lt-net-udp -6 6666 6667 0 >/dev/null 2>&1; then
	late_read 1 -6
	[ "$(val "$line" data1)" = $((0x86dd | 17 << 16)) ] || fail "IPv6 protocol $(val "$line" data1)"
	[ "$(val "$line" pid)" = "$rpid" ] || fail "IPv6 pid $(val "$line" pid), reader $rpid"
	pass "IPv6"
else
	echo "no IPv6 on loopback: IPv6 not tested"
fi

m=$(lt-dump -n)
out=$(lt-net-tcp 7777 40002 50) || fail "lt-net-tcp: $out"
rpid=$(val "$out" pid)
line=$(lt-dump -f "$m" -t net -w 1000 | grep " data2=$((40002 | 7777 << 16)) ")
echo "$line"
[ "$(printf '%s' "$line" | grep -c .)" = 1 ] || fail "TCP: expected one alert: $line"
[ "$(val "$line" data1)" = $((0x0800 | 6 << 16)) ] || fail "TCP protocol $(val "$line" data1)"
[ "$(val "$line" pid)" = "$rpid" ] || fail "TCP pid $(val "$line" pid), the reader is $rpid"
[ "$(val "$line" delay_ns)" -ge 50000000 ] || fail "TCP delay $(val "$line" delay_ns)"
pass "a late TCP read alerts once (the data segment; segments without payload are not tracked)"

late_read 1 -c
[ "$(val "$line" data3)" = 1 ] || fail "unread datagram not reported dropped: $line"
[ "$(val "$line" delay_ns)" -ge 50000000 ] || fail "drop delay $(val "$line" delay_ns)"
pass "a datagram dropped unread at close"

echo 100000000 >$T/threshold_ns || fail "threshold_ns 100 ms"
late_read 0
echo 10000000 >$T/threshold_ns
late_read 1
pass "threshold changes apply to the next packet"

f0=$(cat $T/stats/filtered)
echo nosuchcomm >$T/filter_comm || fail "filter_comm"
late_read 0
[ "$(cat $T/stats/filtered)" -gt "$f0" ] || fail "stats/filtered did not grow"
echo lt-net-udp >$T/filter_comm || fail "filter_comm lt-net-udp"
late_read 1
echo >$T/filter_comm || fail "clear filter_comm"
echo 1 >$T/filter_tgid || fail "filter_tgid 1"
late_read 0
echo 0 >$T/filter_tgid
late_read 1
pass "filters apply to the reader"

# Every key ends, or goes stale within stale_ns (1 s): nothing stays in the table.
sleep 1.5
[ "$(cat $T/stats/pending)" = 0 ] || fail "$(cat $T/stats/pending) keys still pending"
pass "no key left pending"

tracker_disable
late_read 0
echo "stats: in $(cat $T/stats/events_in) out $(cat $T/stats/events_out)" \
	"alerts $(cat $T/stats/alerts) stale $(cat $T/stats/stale) unmatched $(cat $T/stats/unmatched)"
rmmod latency_tracker_net || fail "rmmod latency_tracker_net"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "net tracker"
