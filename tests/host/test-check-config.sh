#!/bin/bash
# latencyd --check-config and the command line: good and bad files, exit statuses, messages.
set -u
. "$(dirname "$0")/lib.sh"

cat >"$T/good.conf" <<CONF
# A complete, valid configuration.
control: {
	socket = "$T/ctl.sock";
	admin_group = "root";
	read_group = "";
};
log: { level = "warning"; };
CONF

run "$LATENCYD" --check-config "$T/good.conf"
expect_rc 0 "--check-config good.conf"
[ "$(cat "$T/out")" = "configuration OK" ] || fail "stdout is not exactly 'configuration OK'"
run "$LATENCYD" --check-config="$T/good.conf"
expect_rc 0 "--check-config=good.conf"
run "$LATENCYD" -c "$T/good.conf" --check-config
expect_rc 0 "-c good.conf --check-config"
[ ! -e "$T/ctl.sock" ] || fail "--check-config created the socket"
pass "a good file"

cat >"$T/bad.conf" <<'CONF'
control: {
	socket = "relative.sock";
	sockt = "/run/x.sock";
	admin_group = 0;
};
log: { level = "loud"; };
colour = "blue";
CONF
run "$LATENCYD" --check-config "$T/bad.conf"
expect_rc 1 "--check-config bad.conf"
expect_err "$T/bad.conf:2: control.socket: must be an absolute path"
expect_err "$T/bad.conf:3: control.sockt: unknown setting"
expect_err "$T/bad.conf:4: control.admin_group: expected a string"
expect_err "$T/bad.conf:6: log.level: 'loud' is not one of error, warning, info, debug"
expect_err "$T/bad.conf:7: colour: unknown setting"
[ "$(grep -c "$T/bad.conf:" "$T/err")" -eq 5 ] || fail "not exactly 5 errors reported"
[ ! -s "$T/out" ] || fail "stdout is not empty for a bad file"
pass "every error of a bad file, with FILE:LINE and the setting"

cat >"$T/limits.conf" <<'CONF'
trackers: {
	app: { alert_rate = 100; alert_burst = 10; };
	syscalls: {
		alert_rate = 2000000;
		alert_burst = 0;
	};
	irq: { alert_rate = "5/s"; };
};
CONF
run "$LATENCYD" --check-config "$T/limits.conf"
expect_rc 1 "--check-config limits.conf"
expect_err "$T/limits.conf:4: trackers.syscalls.alert_rate: '2000000' is not 0 nor an integer in [1, 1000000]"
expect_err "$T/limits.conf:5: trackers.syscalls.alert_burst: '0' is not an integer in [1, 65536]"
expect_err "$T/limits.conf:7: trackers.irq.alert_rate: expected an integer"
[ "$(grep -c "$T/limits.conf:" "$T/err")" -eq 3 ] || fail "not exactly 3 errors reported: $(cat "$T/err")"
sed -i '/2000000/d; /alert_burst = 0/d; /5\/s/d' "$T/limits.conf"
run "$LATENCYD" --check-config "$T/limits.conf"
expect_rc 0 "--check-config limits.conf, fixed: $(cat "$T/err")"
pass "trackers.NAME.alert_rate and alert_burst: out of range or not an integer, with FILE:LINE"

cat >"$T/events.conf" <<'CONF'
session: {
	events = [ "sched_switch", "sched_swich" ];
};
CONF
run "$LATENCYD" --check-config "$T/events.conf"
expect_rc 1 "--check-config events.conf"
expect_err "$T/events.conf:2: session.events: 'sched_swich' is not an event; did you mean 'sched_switch'?"
sed -i 's/"sched_swich"/"kmem_kmalloc"/' "$T/events.conf"
run "$LATENCYD" --check-config "$T/events.conf"
expect_rc 0 "--check-config events.conf, another probe's event: $(cat "$T/err")"
expect_err "$T/events.conf:2: session.events: warning: 'kmem_kmalloc' is not among the events of the probes latencyd's lttng-sessiond drop-in loads (sched, irq, timer, block, net, statedump)"
expect_out "configuration OK"
pass "session.events: a near miss of an event is an error with the name meant, another probe's event a warning"

printf 'control: {\n\tsocket = = "/x";\n};\n' >"$T/syntax.conf"
run "$LATENCYD" --check-config "$T/syntax.conf"
expect_rc 1 "--check-config syntax.conf"
expect_err "$T/syntax.conf:2: syntax error"
pass "syntax error with FILE:LINE"

run "$LATENCYD" --check-config "$T/missing.conf"
expect_rc 1 "--check-config missing.conf"
expect_err "$T/missing.conf: No such file or directory"
run timeout 10 "$LATENCYD" --config "$T/missing.conf"
expect_rc 1 "latencyd --config missing.conf"
expect_err "$T/missing.conf: No such file or directory"
pass "a file asked for must exist"

run "$LATENCYD" --check-config --socket relative
expect_rc 1 "--check-config --socket relative"
expect_err "control.socket: must be an absolute path"
pass "--socket is checked like the file"

run "$LATENCYD" --help
expect_rc 0 "--help"
for opt in --config --check-config --socket --debug --help --version; do
	expect_out "$opt"
done
run "$LATENCYD" --version
expect_rc 0 "--version"
expect_out "latencyd "
run "$LATENCYD" --bogus
expect_rc 2 "--bogus"
run "$LATENCYD" stray
expect_rc 2 "a stray argument"
expect_err "unexpected argument 'stray'"
run "$LATENCYD" -c "$T/good.conf" --check-config "$T/good.conf"
expect_rc 2 "two files"
pass "options"
