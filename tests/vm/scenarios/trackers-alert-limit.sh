# vm-options: --timeout 300
# Issue #17, per-tracker alert limits: the self-test tracker floods alerts (as fast as two
# writers can raise them) while the app tracker raises an occasional real alert (begin/end
# around a 50 ms sleep over a 10 ms threshold). The global limit is 10 alerts/s.
#  - Control, no limit of its own: the flood drains the global bucket and app alerts are
#    lost (counted in app's stats/suppressed).
#  - selftest limited to 2/s, bursts of 2: every app alert reaches /dev/latency_tracker;
#    selftest's records stay within its own limit over the elapsed time; what it refused
#    is in its stats/throttled (also in drops and the global alerts_suppressed), and its
#    alerts = records written + throttled + suppressed + busy.
# Also: the files' ranges, as the global ones (bad writes fail and change nothing).
. "$VM_IN/scenarios/guest-lib.sh"

R=/sys/kernel/latency_tracker
E=/sys/kernel/latency_tracker_selftest/emit
modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
S=$R/selftest
tracker_load app 8 0
wait_for /dev/latency_tracker_app 50 || fail "no /dev/latency_tracker_app"
echo 10000000 >$T/threshold_ns || fail "threshold_ns"
tracker_enable

for f in alert_rate_per_s alert_burst stats/throttled; do
	[ -r "$S/$f" ] && [ -r "$T/$f" ] || fail "no $f"
done
[ "$(cat $S/alert_rate_per_s)" = 0 ] || fail "default alert_rate_per_s $(cat $S/alert_rate_per_s)"
[ "$(cat $S/alert_burst)" = 20 ] || fail "default alert_burst $(cat $S/alert_burst)"
for v in abc -1 1000001 " 5" 0x10 ""; do
	if { printf '%s\n' "$v" >$S/alert_rate_per_s; } 2>/dev/null; then fail "alert_rate_per_s '$v' accepted"; fi
done
for v in 0 65537 x; do
	if { printf '%s\n' "$v" >$S/alert_burst; } 2>/dev/null; then fail "alert_burst '$v' accepted"; fi
done
[ "$(cat $S/alert_rate_per_s)" = 0 ] && [ "$(cat $S/alert_burst)" = 20 ] ||
	fail "a refused write changed the limit"
pass "per-tracker alert_rate_per_s (default 0: none) and alert_burst (default 20), strict"

echo 10 >$R/alert_rate_per_s && echo 10 >$R/alert_burst || fail "global limit"

# flood_with NAME N: N app markers during a self-test flood (ended once they are done:
# a signal ends "flood"), sets app_got (app alerts read), st_got (selftest records read)
# and secs (the flood's length, in hundredths of a second).
cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
flood_with() {
	sleep 1.2 # the global bucket refills (10 per second, 10 at most)
	m=$(lt-dump -n)
	t0=$(cs)
	echo "flood 60000" >$E 2>/dev/null &
	f1=$!
	echo "flood 60000" >$E 2>/dev/null &
	f2=$!
	sleep 0.3
	i=0
	while [ $i -lt "$2" ]; do
		echo "begin $1$i" >/dev/latency_tracker_app || fail "begin"
		sleep 0.05
		echo "end $1$i" >/dev/latency_tracker_app || fail "end"
		sleep 0.1
		i=$((i + 1))
	done
	kill $f1 $f2
	wait $f1 $f2
	secs=$(($(cs) - t0))
	lt-dump -f "$m" -w 300 >/tmp/recs.txt
	app_got=$(grep -c " cookie=$1[0-9]*\$" /tmp/recs.txt)
	st_got=$(grep -c "tracker=selftest " /tmp/recs.txt)
	echo "$1: $app_got of $2 app alerts, $st_got selftest records in $secs cs;" \
		"selftest alerts $(cat $S/stats/alerts) throttled $(cat $S/stats/throttled)" \
		"suppressed $(cat $S/stats/suppressed); app suppressed $(cat $T/stats/suppressed)"
}

a0=$(cat $T/stats/suppressed)
flood_with ctl 8
[ "$app_got" -lt 8 ] || fail "control: no app alert lost to the flood: is it a flood?"
[ "$(cat $T/stats/suppressed)" -gt "$a0" ] || fail "control: app's lost alerts not in its stats/suppressed"
[ "$(cat $S/stats/throttled)" = 0 ] || fail "control: selftest throttled without a limit"
pass "control, no limit of its own: the flood starves app ($app_got of 8 alerts)"

echo 2 >$S/alert_burst && echo 2 >$S/alert_rate_per_s || fail "selftest's own limit"
[ "$(cat $S/alert_rate_per_s)" = 2 ] || fail "alert_rate_per_s reads $(cat $S/alert_rate_per_s)"
st0=$(cat $S/stats/alerts) th0=$(cat $S/stats/throttled) su0=$(cat $S/stats/suppressed)
bu0=$(cat $S/stats/busy) fi0=$(cat $S/stats/filtered) dr0=$(cat $S/stats/drops)
g0=$(cat $R/alerts_suppressed)
w0=$(cat $R/records_written)
flood_with lim 8
[ "$app_got" = 8 ] || fail "limited: $app_got of 8 app alerts reached /dev/latency_tracker"
pass "selftest limited to 2/s: every app alert arrives during its flood"

gen=$(($(cat $S/stats/alerts) - st0)) th=$(($(cat $S/stats/throttled) - th0))
su=$(($(cat $S/stats/suppressed) - su0)) bu=$(($(cat $S/stats/busy) - bu0))
fi=$(($(cat $S/stats/filtered) - fi0))
[ "$gen" -ge 1000 ] || fail "not a flood: $gen selftest alerts"
[ "$th" -gt 0 ] || fail "nothing throttled"
max=$((2 + 2 * (secs + 99) / 100 + 1))
[ "$st_got" -le "$max" ] && [ "$st_got" -ge 2 ] ||
	fail "$st_got selftest records in $secs cs, its limit allows 2..$max"
[ "$gen" = $((st_got + th + su + bu + fi)) ] ||
	fail "selftest: $gen alerts != $st_got written + $th throttled + $su suppressed + $bu busy + $fi filtered"
[ $(($(cat $S/stats/drops) - dr0)) -ge "$th" ] || fail "throttled not in stats/drops"
[ $(($(cat $R/alerts_suppressed) - g0)) -ge "$th" ] || fail "throttled not in alerts_suppressed"
[ $(($(cat $R/records_written) - w0)) = $((st_got + app_got)) ] ||
	fail "records_written grew by $(($(cat $R/records_written) - w0)), read $st_got + $app_got"
pass "selftest: $gen alerts = $st_got written (limit $max) + $th throttled + $su suppressed + $bu busy"

# Off again: the flood drains the global bucket once more.
echo 0 >$S/alert_rate_per_s || fail "alert_rate_per_s 0"
th1=$(cat $S/stats/throttled)
echo "threshold 50" >$E || fail "emit"
[ "$(cat $S/stats/throttled)" = "$th1" ] || fail "throttled with alert_rate_per_s 0"
pass "alert_rate_per_s 0: no limit of its own"

echo 200 >$R/alert_rate_per_s && echo 200 >$R/alert_burst
tracker_disable
rmmod latency_tracker_app latency_tracker_selftest || fail "rmmod"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "per-tracker alert limits"
