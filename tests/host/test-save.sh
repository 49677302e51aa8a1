#!/bin/bash
# latencyctl --save: changes kept in the saved-settings file (control.save_file) come back
# after a restart and a reload; changes without --save do not; a damaged file is reported
# with its line and ignored, never keeping latencyd from starting. Real latencyd, fake sysfs.
set -u
. "$(dirname "$0")/lib.sh"

fresh_sysfs() { FAKE_THRESHOLD_NS=5000000 fake_sysfs 1.0 wakeup offcpu; }
sysval() { cat "$S/$1"; }
expect_sys() { [ "$(sysval "$1")" = "$2" ] || fail "$1 is $(sysval "$1"), expected $2 ($3)"; }

SOCK=$T/ctl.sock
SAVED=$T/state/saved.conf
write_conf <<CONF
control: { socket = "$SOCK"; save_file = "$SAVED"; };
session: { enabled = false; };
trackers: { wakeup: { threshold = "5ms"; }; };
CONF
start() { LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"; }
restart() { stop_daemon TERM; expect_rc 0 "latencyd after SIGTERM"; fresh_sysfs; start; }
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }

fresh_sysfs
start
[ ! -e "$SAVED" ] || fail "a saved file before any --save"

run ctl set-threshold wakeup 1.5ms --save
expect_rc 0 "set-threshold --save"
expect_out "Tracker wakeup: threshold 1.5ms (was 5ms), saved in $SAVED."
expect_sys wakeup/threshold_ns 1500000 "set-threshold --save"
[ "$(stat -c %a "$SAVED")" = 644 ] || fail "saved file mode $(stat -c %a "$SAVED")"
run ctl --json set-timeout wakeup 1234567ns --save
expect_rc 0 "set-timeout --save"
jq -e --arg f "$SAVED" '.saved == true and .saved_file == $f and .timeout_ns == 1234567' \
	"$T/out" >/dev/null || fail "set-timeout --save --json: $(cat "$T/out")"
run ctl enable offcpu --save
expect_rc 0 "enable --save"
run ctl filter offcpu --comm "web \"x\"" --save
expect_rc 0 "filter --comm --save"
expect_out "saved in $SAVED."
run ctl set-threshold offcpu 30ms
expect_rc 0 "set-threshold without --save"
expect_out "runtime only (not saved)."
run ctl enable wakeup
expect_rc 0 "enable without --save"
run "$LATENCYD" --check-config "$SAVED" # libconfig, as latencyd.conf(5) says
expect_rc 0 "the saved file is a valid configuration file"
ls "$T/state" | grep -v '^saved.conf$' && fail "a temporary file is left next to $SAVED"
pass "--save writes $SAVED (no temporary left); without --save nothing is saved"

run ctl config
expect_rc 0 "config"
expect_out "# overridden by the settings saved in $SAVED"
grep -Eq "^trackers.wakeup.threshold = \"1.5ms\"  # $SAVED:[0-9]+\$" "$T/out" ||
	fail "config does not say where the saved threshold comes from: $(cat "$T/out")"
grep -Eq "^control.socket = \"$SOCK\"  # $T/latencyd.conf:1\$" "$T/out" ||
	fail "config does not say where control.socket comes from"
run ctl --json config
jq -e --arg f "$SAVED" '.saved_file == $f and (.origins["trackers.offcpu.enabled"] | startswith($f + ":")) and
	.settings.trackers.offcpu.filter_comm == "web \"x\"" and .settings.trackers.wakeup.timeout == "1234567ns" and
	.settings.trackers.offcpu.threshold == "100ms" and .origins["trackers.offcpu.threshold"] == null' \
	"$T/out" >/dev/null || fail "config --json: $(cat "$T/out")"
pass "config shows the effective values and the file and line of each"

restart
expect_sys wakeup/threshold_ns 1500000 "saved threshold after a restart"
expect_sys wakeup/timeout_ns 1234567 "saved timeout after a restart"
expect_sys offcpu/enabled 1 "saved enable after a restart"
expect_sys offcpu/filter_comm 'web "x"' "saved comm filter after a restart"
expect_sys offcpu/threshold_ns 100000000 "an unsaved threshold after a restart (the default)"
expect_sys wakeup/enabled 0 "an unsaved enable after a restart"
pass "after a restart the saved values are back in sysfs, the unsaved ones are not"

# The file says 5ms; the saved 1.5ms wins, on reload as at start.
echo 42000000 >"$S/wakeup/threshold_ns"
sed -i 's/threshold = "5ms"/threshold = "7ms"/' "$T/latencyd.conf"
run ctl reload
expect_rc 0 "reload"
expect_sys wakeup/threshold_ns 42000000 "reload rewrote a threshold whose effective value did not change"
run ctl --json config
jq -e '.settings.trackers.wakeup.threshold == "1.5ms"' "$T/out" >/dev/null ||
	fail "after a reload the saved threshold no longer wins: $(cat "$T/out")"
restart
expect_sys wakeup/threshold_ns 1500000 "saved threshold over the file's after a reload and restart"
run ctl disable offcpu --save
expect_rc 0 "disable --save"
run ctl filter offcpu --clear --save
expect_rc 0 "filter --clear --save"
restart
expect_sys offcpu/enabled 0 "a saved disable after a restart"
expect_sys offcpu/filter_comm "" "a saved cleared comm filter after a restart"
grep -q 'filter_comm = "";' "$SAVED" || fail "cleared comm filter not saved: $(cat "$SAVED")"
pass "saved values override the file, at start and on reload; disable and clear are saved too"

run ctl filter offcpu --pid 42 --save
expect_rc 1 "filter --pid --save"
expect_err "a pid filter cannot be saved"
expect_sys offcpu/filter_tgid 0 "a refused save changed sysfs"
run ctl set-threshold wakeup 500ns --save
expect_rc 2 "a threshold out of range (latencyctl's refusal)"
expect_err "latencyctl: set-threshold: '500ns' is not between 1000ns and 3600000000000ns"
# latencyd's own check, for a client that does not check first.
printf '%s\n' '{"hello":{"protocol":1}}' \
	'{"id":1,"command":"set-threshold","args":{"tracker":"wakeup","threshold_ns":500,"save":true}}' |
	timeout 10 socat -t 2 - UNIX-CONNECT:"$SOCK" >"$T/out" 2>"$T/err"
jq -se '.[-1].error.message | contains("cannot be saved: trackers.wakeup.threshold")' "$T/out" \
	>/dev/null || fail "a threshold the file cannot hold, sent as is: $(cat "$T/out")"
expect_sys wakeup/threshold_ns 1500000 "a refused save changed sysfs"
pass "what cannot be saved is refused before anything changes"

# A damaged saved file: reported with its line, ignored as a whole; latencyd still starts.
cp "$SAVED" "$T/saved.good"
sed -i 's/threshold = "1.5ms";/threshold = "fast";/' "$SAVED"
echo 'session: { enabled = true; };' >>"$SAVED"
line=$(grep -n 'threshold = "fast"' "$SAVED" | cut -d: -f1)
[ -n "$line" ] || fail "no threshold to damage in $(cat "$SAVED")"
stop_daemon TERM
fresh_sysfs
start
grep -q "$SAVED:$line: trackers.wakeup.threshold: 'fast'" "$T/latencyd.log" ||
	fail "the bad value is not reported with its line: $(cat "$T/latencyd.log")"
grep -q "$SAVED:[0-9]*: session: only trackers settings are saved here" "$T/latencyd.log" ||
	fail "a non-trackers group is not reported"
grep -q "$SAVED: ignored: none of its saved settings apply, latencyd runs with $T/latencyd.conf alone" \
	"$T/latencyd.log" || fail "no warning that the file is ignored"
expect_sys wakeup/threshold_ns 7000000 "the config file's threshold when the saved file is ignored"
run ctl config
expect_rc 0 "config with a damaged saved file"
expect_err "warning: the saved settings are ignored"
run ctl set-threshold wakeup 2ms --save
expect_rc 1 "--save while the saved file is damaged"
expect_err "was ignored at start"
expect_sys wakeup/threshold_ns 7000000 "a refused save changed sysfs"
run "$LATENCYD" --check-config "$T/latencyd.conf"
expect_rc 0 "--check-config with a damaged saved file"
grep -q "ignored: none of its saved settings apply" "$T/err" || fail "--check-config does not warn"
printf 'trackers: { wakeup: { threshold = "1.5ms"; ' >"$SAVED" # cut short: a syntax error
run ctl reload
expect_rc 0 "reload with a truncated saved file"
expect_err "warning: the saved settings are ignored"
cp "$T/saved.good" "$SAVED"
run ctl reload
expect_rc 0 "reload with the saved file repaired"
expect_sys wakeup/threshold_ns 1500000 "the repaired saved file applies on reload"
run ctl set-threshold wakeup 3ms --save
expect_rc 0 "--save after the repair"
pass "a damaged saved file is reported with its line, ignored, and refuses --save until repaired"

# Saving off: control.save_file = "".
sed -i "s|save_file = \"$SAVED\"|save_file = \"\"|" "$T/latencyd.conf"
run ctl reload
expect_rc 0 "reload with saving off"
expect_sys wakeup/threshold_ns 7000000 "with saving off, the saved threshold no longer applies"
run ctl enable wakeup --save
expect_rc 1 "--save with saving off"
expect_err "saving is off"
run ctl --json config
jq -e '.saved_file == "" and .settings.control.save_file == ""' "$T/out" >/dev/null ||
	fail "config with saving off: $(cat "$T/out")"
pass "control.save_file = \"\" turns saving off"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
