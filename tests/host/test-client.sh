#!/bin/bash
# latencyctl without a daemon: usage, help, exit statuses and connection errors.
set -u
. "$(dirname "$0")/lib.sh"

run "$LATENCYCTL" --socket "$T/none.sock" status
expect_rc 3 "status without a daemon"
[ "$(cat "$T/err")" = "latencyctl: latencyd is not running: no socket at $T/none.sock" ] ||
	fail "unexpected message: $(cat "$T/err")"
run "$LATENCYCTL" --socket "$T/none.sock" --json version
expect_rc 3 "version --json without a daemon"
pass "exit 3 and a clear message when latencyd is not running"

# Something that accepts and never answers: --timeout gives up.
socat -u UNIX-LISTEN:"$T/mute.sock",fork /dev/null &
MUTE=$!
wait_for 50 test -S "$T/mute.sock" || fail "socat did not listen"
run timeout 10 "$LATENCYCTL" --socket "$T/mute.sock" --timeout 0.3 status
kill "$MUTE"
expect_rc 3 "status against a mute peer"
expect_err "latencyd did not answer in time"
pass "--timeout"

run "$LATENCYCTL"
expect_rc 2 "no command"
expect_err "Usage: latencyctl"
run "$LATENCYCTL" frobnicate
expect_rc 2 "unknown command"
expect_err "unknown command 'frobnicate'"
run "$LATENCYCTL" --timeout 0 status
expect_rc 2 "--timeout 0"
run "$LATENCYCTL" --timeout abc status
expect_rc 2 "--timeout abc"
run "$LATENCYCTL" --bogus status
expect_rc 2 "--bogus"
run "$LATENCYCTL" status --bogus
expect_rc 2 "status --bogus"
pass "usage errors exit 2"

run "$LATENCYCTL" help
expect_rc 0 "help"
expect_out "status"
expect_out "version"
expect_out "--socket"
expect_out "--json"
expect_out "--timeout"
run "$LATENCYCTL" --help
expect_rc 0 "--help"
expect_out "Commands:"
run "$LATENCYCTL" status --help
expect_rc 0 "status --help"
expect_out "Usage: latencyctl [OPTIONS] status"
run "$LATENCYCTL" help version
expect_rc 0 "help version"
expect_out "Usage: latencyctl [OPTIONS] version"
run "$LATENCYCTL" help nothing
expect_rc 2 "help nothing"
run "$LATENCYCTL" --version
expect_rc 0 "--version"
expect_out "latencyctl "
pass "help"
