# The sysfs configuration ABI: good writes take effect, every bad write fails and changes
# nothing, writes that need a disabled tracker fail with EBUSY while it is enabled, and bad
# module parameters make the load fail.
. "$VM_IN/scenarios/guest-lib.sh"

R=/sys/kernel/latency_tracker
T=$R/selftest

# reject FILE VALUE: writing VALUE and a newline, as echo does, must fail and leave FILE as
# it was ("" is a lone newline).
reject() {
	before=$(cat "$1")
	if { printf '%s\n' "$2" >"$1"; } 2>/dev/null; then
		fail "writing '$2' to $1 succeeded"
	fi
	[ "$(cat "$1")" = "$before" ] || fail "rejected write '$2' changed $1"
}

# accept FILE VALUE [EXPECTED]
accept() {
	printf '%s\n' "$2" >"$1" || fail "writing '$2' to $1 failed"
	[ "$(cat "$1")" = "${3:-$2}" ] || fail "$1 reads '$(cat "$1")' after writing '$2'"
}

modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"

for f in enabled threshold_ns timeout_ns stale_ns max_keys stack alert_rate_per_s alert_burst \
	key_size type dup_policy stats/throttled stats/events_in stats/events_out stats/alerts stats/timeouts stats/suppressed \
	stats/filtered stats/duplicates stats/table_full stats/key_invalid stats/unmatched \
	stats/busy stats/stale stats/discarded stats/drops stats/pending stats/delay_count \
	stats/delay_min_ns stats/delay_max_ns stats/delay_mean_ns stats/delay_hist_ns; do
	[ -r "$T/$f" ] || fail "missing $T/$f"
done
for f in abi_version ring_records alert_rate_per_s alert_burst records_written \
	alerts_suppressed alerts_dropped; do
	[ -r "$R/$f" ] || fail "missing $R/$f"
done
pass "every documented file is there"

# +2000000: in range, but not decimal digits only.
for v in abc -1 12abc " 5" 0 999 3600000000001 99999999999999999999999 "" 0x100 "5 ms" \
	+2000000; do
	reject $T/threshold_ns "$v"
done
for v in abc 1 999999 3600000000001 60000000000 -5; do reject $T/timeout_ns "$v"; done
for v in abc 1 86400000000001; do reject $T/stale_ns "$v"; done
for v in 15 1048577 abc 0; do reject $T/max_keys "$v"; done
for v in 2 yes -1 "" 1x; do reject $T/enabled "$v"; done
for v in bogus "" "alert in"; do reject $T/stack "$v"; done
for v in 0 1000001 x; do reject $R/alert_rate_per_s "$v"; done
for v in 0 65537; do reject $R/alert_burst "$v"; done
for v in 1000001 -1 x "" +5; do reject $T/alert_rate_per_s "$v"; done
for v in 0 65537 x; do reject $T/alert_burst "$v"; done
reject $T/key_size 8
reject $T/stats/alerts 0
reject $R/abi_version 2.0
# Needs the tracker disabled: EBUSY while enabled.
[ "$(cat $T/enabled)" = 1 ] || fail "selftest tracker not enabled"
reject $T/max_keys 1024
reject $T/stack none
pass "bad writes rejected, values unchanged"

accept $T/threshold_ns 2000000
accept $T/threshold_ns 1000000
accept $T/timeout_ns 5000000
accept $T/timeout_ns 0
accept $T/stale_ns 0
accept $T/stale_ns 60000000000
accept $T/enabled 0
# A key table above 1/16 of RAM is refused with E2BIG, the kernel log saying whose, how
# many keys and how many bytes, and nothing changes. The selftest tracker's entries take
# 128 bytes, 256 with stack "in", and 16 per bucket: 2^19 keys with stacks (136 MiB) pass
# 1/16 of RAM below 2176 MiB, 2^19 without (72 MiB) fit above 1152 MiB.
mem_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
[ "$mem_kib" -ge 1179648 ] && [ "$mem_kib" -lt 2228224 ] ||
	fail "MemTotal $mem_kib kB: the test's key tables need 1152 to 2176 MiB of RAM"
big_table_refused() {
	before=$(cat "$1")
	# dd names the write's errno, which the shell's builtins do not.
	err=$(printf '%s\n' "$2" | dd of="$1" conv=notrunc 2>&1) &&
		fail "writing '$2' to $1 succeeded"
	case $err in
	*"Argument list too long"*) ;;
	*) fail "writing '$2' to $1: '$err', not E2BIG" ;;
	esac
	[ "$(cat "$1")" = "$before" ] || fail "refused write '$2' changed $1"
	dmesg | grep -q "latency_tracker: selftest: max_keys $3 with stack $4 needs [0-9]* bytes of key table, more than 1/16 of RAM ([0-9]* bytes)" ||
		fail "no kernel log line for max_keys $3 with stack $4: $(dmesg | tail -n 3)"
}
accept $T/stack in
big_table_refused $T/max_keys 1048576 1048576 in
# Half as many without stacks fit (72 MiB); the stacks would double them past the bound.
accept $T/stack none
accept $T/max_keys 524288
big_table_refused $T/stack in 524288 in
accept $T/enabled 1
accept $T/enabled 0
accept $T/max_keys 1024
accept $T/stack in
accept $T/stack alert
accept $T/enabled 1
[ "$(cat $T/stats/pending)" = 0 ] || fail "pending after enable"
accept $R/alert_rate_per_s 500
accept $R/alert_burst 100
accept $R/alert_rate_per_s 200
accept $R/alert_burst 200
accept $T/alert_burst 7
accept $T/alert_rate_per_s 1000000
accept $T/alert_rate_per_s 0
accept $T/alert_burst 20
echo "threshold 3" >/sys/kernel/latency_tracker_selftest/emit || fail "emit"
[ "$(cat $T/stats/alerts)" = 3 ] || fail "stats/alerts = $(cat $T/stats/alerts)"
# Each delay is just over 2 s: the [2^30, 2^31) ns bucket.
grep -q '^1073741824 3$' $T/stats/delay_hist_ns || fail "histogram: $(cat $T/stats/delay_hist_ns)"
pass "good writes take effect (a key table too big for the RAM refused); stats count the alerts"

# hist/by_key renders every key and CPU at each read: root's alone; delay_ns stays cheap.
[ "$(stat -c %a $T/hist/by_key)" = 400 ] || fail "hist/by_key is not readable by root only"
[ "$(stat -c %a $T/hist/delay_ns)" = 444 ] || fail "hist/delay_ns is not world-readable"
sed -n 2p $T/hist/by_key | grep -q '^per ' || fail "root cannot read hist/by_key"
pass "hist/by_key is root's only"
# stats/pending walks the key table under the tracker's lock at each read: root's alone too.
[ "$(stat -c %a $T/stats/pending)" = 400 ] || fail "stats/pending is not readable by root only"
[ "$(stat -c %a $T/stats/events_in)" = 444 ] || fail "stats/events_in is not world-readable"
pass "stats/pending is root's only, the counters world-readable"

# device_names (ABI 1.5): write-only lines "MAJOR:MINOR NAME"; a bad line fails the write.
[ "$(stat -c %a $R/device_names)" = 200 ] || fail "device_names is not write-only (root's)"
printf '254:0 vda\n8:17 sdb1\n' >$R/device_names || fail "good device_names refused"
printf '259:3 nvme0n1p3' >$R/device_names || fail "a line without its newline refused"
printf '4095:1048575 %031d\n' 0 >$R/device_names || fail "largest dev_t, longest name refused"
# Two decimal numbers and one space, nothing else: no blanks around them, no sign, no
# number wider than 32 bits (4294967550 would wrap to 254).
for bad in 'vda' '254 vda' '254:0' '254:0 ' '254:0 v/da' '254:0 a b' 'x:0 vda' '4096:0 vda' \
	'254:1048576 vda' "254:0 $(printf '%032d' 0)" '254:0 vda
garbage' '254:0vda' ' 254:0 vda' '254: 0 vda' '254:0  vda' "$(printf '254:0\tvda')" \
	'+254:0 vda' '4294967550:0 vda' '254:4294967296 vda' '254:0:1 vda'; do
	if { printf '%s\n' "$bad" >$R/device_names; } 2>/dev/null; then
		fail "device_names took '$bad'"
	fi
done
if { printf '254:0 vda\000x\n' >$R/device_names; } 2>/dev/null; then
	fail "device_names took a line with a NUL byte"
fi
pass "device_names takes MAJOR:MINOR NAME lines, refuses the others"

rmmod latency_tracker_selftest || fail "rmmod latency_tracker_selftest"
rmmod latency_tracker || fail "rmmod latency_tracker"

for p in max_keys=0 max_keys=abc ring_records=1000 ring_records=8 threshold_ns=abc \
	threshold_ns=10 timeout_ns=1 stale_ns=1 alert_rate_per_s=0 alert_burst=0 \
	"timeout_ns=2000000000 stale_ns=1000000000" max_keys=+128; do
	# shellcheck disable=SC2086
	if modprobe latency_tracker $p 2>/dev/null; then
		rmmod latency_tracker
		fail "modprobe latency_tracker $p succeeded"
	fi
done
modprobe latency_tracker ring_records=64 max_keys=128 threshold_ns=5000000 ||
	fail "modprobe with good parameters"
[ "$(cat $R/ring_records)" = 64 ] || fail "ring_records"
[ "$(cat /sys/module/latency_tracker/parameters/max_keys)" = 128 ] || fail "max_keys param"
modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
# The selftest tracker asks for 256 keys and 1 ms itself; its stress tracker takes defaults.
[ "$(cat $T/max_keys)" = 256 ] || fail "explicit max_keys"
rmmod latency_tracker_selftest
rmmod latency_tracker
pass "bad module parameters refused, good ones applied"
