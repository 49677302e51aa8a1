#!/bin/bash
# fleet.password_file with a mqtt:// broker: the password crosses the network in clear text,
# which latencyd --check-config and the log at start say as a warning, naming the file and
# line of the setting; the configuration stays valid. Not said for mqtts://, for a broker on
# the loopback, nor with the fleet off.
# Usage: test-fleet-cleartext.sh LATENCYD LATENCYCTL
set -u
. "$(dirname "$0")/lib.sh"

echo secret >"$T/password"
chmod 600 "$T/password"
# conf FILE BROKER ENABLED: password_file on line 7.
conf() {
	cat >"$1" <<CONF
control: { socket = "$T/ctl.sock"; save_file = ""; };
session: { enabled = false; };
catalog: { directory = "$T/catalog"; }; output: { directory = "$T/snapshots"; };
fleet: {
	enabled = $3;
	broker = "$2";
	password_file = "$T/password";
	username = "h1";
};
CONF
}
warning="fleet.password_file: warning: the password in $T/password goes to"

conf "$T/clear.conf" mqtt://broker.example:1883 true
run "$LATENCYD" --check-config "$T/clear.conf"
expect_rc 0 "--check-config, a password to mqtt://"
expect_out "configuration OK"
expect_err "$T/clear.conf:7: $warning mqtt://broker.example:1883 in clear text"
pass "--check-config: the password to mqtt://broker.example:1883 said to go in clear text, at $T/clear.conf:7"

for broker in mqtts://broker.example mqtt://127.0.0.1:1883 "mqtt://[::1]:1883" mqtt://localhost; do
	conf "$T/quiet.conf" "$broker" true
	run "$LATENCYD" --check-config "$T/quiet.conf"
	expect_rc 0 "--check-config, a password to $broker"
	! grep -qF "clear text" "$T/err" || fail "$broker: $(cat "$T/err")"
done
conf "$T/quiet.conf" mqtt://broker.example:1883 false
run "$LATENCYD" --check-config "$T/quiet.conf"
expect_rc 0 "--check-config, the fleet off"
! grep -qF "clear text" "$T/err" || fail "the fleet off: $(cat "$T/err")"
pass "not said for mqtts://, 127.0.0.1, ::1, localhost, nor with the fleet off"

start_daemon -c "$T/clear.conf"
grep -qF "$T/clear.conf:7: $warning mqtt://broker.example:1883 in clear text" "$T/latencyd.log" ||
	fail "not said at start"
stop_daemon
expect_rc 0 "latencyd after SIGTERM"
pass "said in the log at start"
