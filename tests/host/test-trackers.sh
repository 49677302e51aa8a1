#!/bin/bash
# trackers, set-threshold, set-timeout, enable, disable: the real latencyd and latencyctl
# against a fake sysfs tree (LATENCYD_TEST_SYSFS_ROOT, for tests only).
set -u
. "$(dirname "$0")/lib.sh"

S=$T/sys/kernel/latency_tracker
for t in wakeup offcpu; do
	mkdir -p "$S/$t/stats"
	echo 0 >"$S/$t/enabled"
	echo 5000000 >"$S/$t/threshold_ns"
	echo 0 >"$S/$t/timeout_ns"
	echo 123 >"$S/$t/stats/events_in"
	echo 4 >"$S/$t/stats/alerts"
	echo 1500 >"$S/$t/stats/delay_mean_ns"
	echo 2500000 >"$S/$t/stats/delay_max_ns"
	printf '1024 3\n2048 1\n' >"$S/$t/stats/delay_hist_ns"
done
echo 1.0 >"$S/abi_version"
SOCK=$T/ctl.sock
write_conf <<CONF
control: { socket = "$SOCK"; };
session: { enabled = false; };
CONF
LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }

run ctl trackers
expect_rc 0 "trackers"
grep -Eq '^TRACKER +ENABLED +THRESHOLD +TIMEOUT' "$T/out" || fail "trackers: no header"
grep -Eq '^wakeup +no +5ms +off +123 +4 ' "$T/out" || fail "trackers: wakeup row"
expect_out "1.5µs"
expect_out "2.5ms"
run ctl --json trackers
expect_rc 0 "trackers --json"
jq -e '.loaded and (.trackers | map(.name)) == ["offcpu", "wakeup"] and
	.trackers[1].threshold_ns == 5000000 and .trackers[1].stats.alerts == 4' "$T/out" >/dev/null ||
	fail "trackers --json: $(cat "$T/out")"
pass "trackers: table with units, JSON"

run ctl set-threshold wakeup 1.5ms
expect_rc 0 "set-threshold"
expect_out "Tracker wakeup: threshold 1.5ms (was 5ms), runtime only (not saved)."
[ "$(cat "$S/wakeup/threshold_ns")" = 1500000 ] || fail "threshold_ns not written"
run ctl set-timeout wakeup 10ms
expect_rc 0 "set-timeout"
expect_out "timeout 10ms (was off), runtime only (not saved)"
[ "$(cat "$S/wakeup/timeout_ns")" = 10000000 ] || fail "timeout_ns not written"
run ctl --json set-threshold wakeup 250us
expect_rc 0 "set-threshold --json"
jq -e '.threshold_ns == 250000 and .previous == 1500000 and .saved == false' "$T/out" \
	>/dev/null || fail "set-threshold --json: $(cat "$T/out")"
run ctl enable offcpu
expect_rc 0 "enable"
expect_out "Tracker offcpu: enabled (was disabled), runtime only (not saved)."
[ "$(cat "$S/offcpu/enabled")" = 1 ] || fail "enabled not written"
run ctl disable offcpu
expect_rc 0 "disable"
[ "$(cat "$S/offcpu/enabled")" = 0 ] || fail "enabled not cleared"
pass "set-threshold, set-timeout, enable, disable write sysfs; runtime only"

run ctl set-threshold wakeup 10
expect_rc 2 "a duration without unit"
expect_err "invalid duration '10': a unit is required"
run ctl set-threshold wakeup 1.5ns
expect_rc 2 "sub-nanosecond duration"
run ctl set-threshold wakeup
expect_rc 2 "set-threshold without a duration"
# A name no tracker can have: latencyctl's check, before it asks. Whether the kernel has the
# tracker: latencyd's (test-control's unknown and invalid trackers for any client).
run ctl set-threshold nope 1ms
expect_rc 1 "unknown tracker"
expect_err "latencyctl: set-threshold: no tracker 'nope'; the kernel has offcpu, wakeup (not-found)"
run ctl enable ../../module
expect_rc 2 "a name that leaves the directory"
expect_err "latencyctl: invalid tracker name '../../module'"
run ctl set-timeout wakep 1ms
expect_rc 1 "a near miss"
expect_err "latencyctl: set-timeout: no tracker 'wakep' (did you mean 'wakeup'?); the kernel has offcpu, wakeup (not-found)"
run ctl set-threshold --help
expect_rc 0 "set-threshold --help"
expect_out "Usage: latencyctl [OPTIONS] set-threshold TRACKER DURATION"
[ "$(cat "$S/wakeup/threshold_ns")" = 250000 ] || fail "a refused command changed the file"
pass "usage errors, unknown and invalid trackers"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"

# trackers.* from the configuration: written at start, and on SIGHUP only what changed.
for t in wakeup offcpu; do
	for f in filter_comm filter_cgroup_id filter_tgid filter_tid max_keys; do echo 0 >"$S/$t/$f"; done
	echo 4096 >"$S/$t/max_keys"
done
# offcpu has a per-tracker alert limit (ABI 1.3); wakeup plays a module from before it.
echo 0 >"$S/offcpu/alert_rate_per_s"
echo 20 >"$S/offcpu/alert_burst"
echo 1 >"$S/wakeup/enabled"
write_conf <<CONF
control: { socket = "$SOCK"; };
session: { enabled = false; };
trackers: {
	offcpu: { enabled = true; threshold = "20ms"; timeout = "1s"; max_keys = 512;
		  filter_comm = "postgres"; filter_cgroup = "12345"; alert_rate = 50;
		  alert_burst = 5; };
	block: { enabled = true; };
};
CONF
LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"
for f in enabled:1 threshold_ns:20000000 timeout_ns:1000000000 max_keys:512 \
	filter_comm:postgres filter_cgroup_id:12345 alert_rate_per_s:50 alert_burst:5; do
	[ "$(cat "$S/offcpu/${f%%:*}")" = "${f#*:}" ] ||
		fail "offcpu ${f%%:*}: $(cat "$S/offcpu/${f%%:*}"), expected ${f#*:}"
done
[ "$(cat "$S/wakeup/enabled")" = 0 ] || fail "wakeup, disabled in the configuration, left on"
[ "$(cat "$S/wakeup/threshold_ns")" = 5000000 ] || fail "wakeup threshold not the default"
[ ! -e "$S/wakeup/alert_rate_per_s" ] && ! grep -q "trackers.wakeup.alert" "$T/latencyd.log" ||
	fail "no own alert limit asked for wakeup, yet written or warned about: $(cat "$T/latencyd.log")"
grep -q "trackers.block.enabled: the kernel has no tracker block" "$T/latencyd.log" ||
	fail "no warning for an enabled tracker the kernel lacks: $(cat "$T/latencyd.log")"
pass "trackers.* written at start; a missing enabled tracker is reported"

echo 7000000 >"$S/offcpu/threshold_ns" # as latencyctl set-threshold would
sed -i 's/filter_comm = "postgres"/filter_comm = "nginx"/' "$T/latencyd.conf"
kill -HUP "$DAEMON_PID"
wait_for 50 grep -q "configuration reloaded" "$T/latencyd.log" || fail "no reload"
[ "$(cat "$S/offcpu/filter_comm")" = nginx ] || fail "changed filter_comm not applied"
[ "$(cat "$S/offcpu/threshold_ns")" = 7000000 ] || fail "reload overwrote an unchanged setting"
sed -i 's/alert_rate = 50;/alert_rate = 0;/' "$T/latencyd.conf"
echo 9 >"$S/offcpu/alert_burst" # as someone writing sysfs by hand would
kill -HUP "$DAEMON_PID"
wait_for 50 grep -qx 0 "$S/offcpu/alert_rate_per_s" || fail "changed alert_rate not applied"
[ "$(cat "$S/offcpu/alert_burst")" = 9 ] || fail "reload overwrote an unchanged alert_burst"
sed -i 's/threshold = "20ms"/threshold = "20"/' "$T/latencyd.conf"
kill -HUP "$DAEMON_PID"
wait_for 50 grep -q "trackers.offcpu.threshold: '20': a unit is required" "$T/latencyd.log" ||
	fail "bad reload not reported: $(cat "$T/latencyd.log")"
[ "$(cat "$S/offcpu/threshold_ns")" = 7000000 ] || fail "a refused reload changed the tracker"
pass "SIGHUP writes only what changed; a bad edit is refused"

# latencyctl config and reload: the running configuration, and a reload that says why not.
run ctl --json config
expect_rc 0 "config --json"
jq -e --arg f "$T/latencyd.conf" '.source == $f and .settings.trackers.offcpu.threshold == "20ms" and
	.settings.trackers.offcpu.filter_comm == "nginx" and .settings.trackers.offcpu.timeout == "1s" and
	.settings.trackers.wakeup.enabled == false and .settings.session.enabled == false and
	.settings.ratelimit.rate == 0.2 and (.settings.session.events | length) > 3' "$T/out" >/dev/null ||
	fail "config --json: $(cat "$T/out")"
run ctl config
expect_rc 0 "config"
expect_out 'trackers.offcpu.threshold = "20ms"'
expect_out "control.socket = \"$SOCK\""
run ctl reload
expect_rc 1 "reload of a bad file"
expect_err "the configuration was not reloaded, the running one stays"
expect_err "trackers.offcpu.threshold: '20': a unit is required"
sed -i 's/threshold = "20"/threshold = "25ms"/' "$T/latencyd.conf"
run ctl reload
expect_rc 0 "reload"
expect_out "Configuration reloaded from $T/latencyd.conf."
[ "$(cat "$S/offcpu/threshold_ns")" = 25000000 ] || fail "reload did not apply the threshold"
pass "config shows the running configuration; reload applies or says why not"

run ctl filter offcpu --comm redis-server --pid 42
expect_rc 0 "filter"
expect_out "Tracker offcpu: filter pid=42 cgroup_id=12345 comm=redis-server, runtime only (not saved)."
[ "$(cat "$S/offcpu/filter_tgid")" = 42 ] && [ "$(cat "$S/offcpu/filter_comm")" = redis-server ] ||
	fail "filter not written"
run ctl --json trackers
jq -e '.trackers[0].filter == {"pid": 42, "comm": "redis-server", "cgroup_id": 12345}' "$T/out" \
	>/dev/null || fail "trackers --json filter: $(jq -c '.trackers[0].filter' "$T/out")"
run ctl --json filter offcpu --clear --tid 7
expect_rc 0 "filter --clear --tid"
jq -e '.filter == {"tid": 7} and .saved == false' "$T/out" >/dev/null || fail "filter --clear: $(cat "$T/out")"
run ctl filter offcpu --cgroup ../../etc
expect_rc 1 "filter --cgroup ../../etc"
expect_err "is not a cgroup path or id"
run ctl filter offcpu --comm a-name-longer-than-fifteen
expect_rc 2 "filter --comm too long"
expect_err "a task name is at most 15 bytes"
run ctl filter offcpu --pid x
expect_rc 2 "filter --pid x"
run ctl filter
expect_rc 2 "filter without a tracker"
[ "$(cat "$S/offcpu/filter_tid")" = 7 ] || fail "a refused filter changed the files"
pass "filter: set, shown by trackers, cleared; bad values refused"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"

# A reload brings the kernel to the configuration, not only the edit: a tracker that appears
# after an apply (its module loaded later, or loaded again with its defaults) gets every
# setting, and a setting the kernel refused is written again at later reloads until it takes.
fake_tracker() { # DIR: a tracker directory as a freshly loaded module has it
	mkdir -p "$1"
	for f in enabled timeout_ns filter_cgroup_id filter_tgid filter_tid; do echo 0 >"$1/$f"; done
	echo 100000000 >"$1/threshold_ns"
	echo 4096 >"$1/max_keys"
	echo >"$1/filter_comm"
}
fs_is() { # FILE:VALUE...
	for f in "$@"; do
		[ "$(cat "$S/fs/${f%%:*}")" = "${f#*:}" ] ||
			fail "fs ${f%%:*}: $(cat "$S/fs/${f%%:*}"), expected ${f#*:}"
	done
}
info_lines() { grep -c "tracker fs: enabled" "$T/latencyd.log"; }
write_conf <<CONF
control: { socket = "$SOCK"; };
session: { enabled = false; };
trackers: { fs: { enabled = false; threshold = "7ms"; timeout = "2s"; filter_comm = "nginx"; }; };
CONF
LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"
fake_tracker "$S/fs"
sed -i 's/enabled = false; threshold = "7ms"/enabled = true; threshold = "7ms"/' "$T/latencyd.conf"
run ctl reload
expect_rc 0 "reload with a tracker that appeared"
fs_is enabled:1 threshold_ns:7000000 timeout_ns:2000000000 filter_comm:nginx
grep -q "tracker fs: enabled, threshold 7000000 ns" "$T/latencyd.log" ||
	fail "tracker fs not said applied: $(cat "$T/latencyd.log")"
fake_tracker "$S/fs.new" # its module loaded again: a new directory, the module's defaults
rm -rf "$S/fs"
mv "$S/fs.new" "$S/fs"
run ctl reload
expect_rc 0 "reload, configuration unchanged, tracker recreated"
fs_is enabled:1 threshold_ns:7000000 timeout_ns:2000000000 filter_comm:nginx
n=$(info_lines)
echo 4000000 >"$S/fs/threshold_ns" # as latencyctl set-threshold would
run ctl reload
expect_rc 0 "reload, configuration unchanged, kernel in agreement"
fs_is threshold_ns:4000000
[ "$(info_lines)" = "$n" ] || fail "a reload that wrote nothing said it applied fs"
pass "reload writes every setting to a tracker that appeared or was recreated, nothing else"

rm "$S/fs/timeout_ns"
mkdir "$S/fs/timeout_ns" # a file the kernel refuses to write
sed -i 's/timeout = "2s"/timeout = "3s"/' "$T/latencyd.conf"
n=$(info_lines)
run ctl reload
expect_rc 0 "reload with a refused setting"
grep -q "trackers.fs.timeout: " "$T/latencyd.log" ||
	fail "refused timeout not reported: $(cat "$T/latencyd.log")"
[ "$(info_lines)" = "$n" ] || fail "fs said applied though its timeout was refused"
rmdir "$S/fs/timeout_ns"
echo 0 >"$S/fs/timeout_ns"
run ctl reload
expect_rc 0 "reload, configuration unchanged, setting writable again"
fs_is enabled:1 threshold_ns:4000000 timeout_ns:3000000000 filter_comm:nginx
pass "a refused setting is written again at the next reload, alone"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
