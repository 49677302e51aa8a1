#!/bin/bash
# latencyctl without a daemon: usage, help, exit statuses and connection errors; then the
# global options anywhere on the command line, against the real latencyd (fake sysfs).
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
expect_rc 3 "status against a mute peer"
expect_err "latencyd did not answer in time"
run timeout 5 "$LATENCYCTL" status --timeout 0.3 --socket "$T/mute.sock"
expect_rc 3 "status --timeout 0.3 --socket against a mute peer"
expect_err "latencyd did not answer in time"
# A duration as every other option takes it.
run timeout 5 "$LATENCYCTL" --socket "$T/mute.sock" --timeout 300ms status
kill "$MUTE"
expect_rc 3 "status --timeout 300ms against a mute peer"
expect_err "latencyd did not answer in time"
pass "--timeout, before the command and after it, in seconds or with a unit"

# Below a millisecond (1e-9 would round to nothing), 0, above a day, or no duration at all.
for t in 1e-9 500us 0.0001 0 5x 2d; do
	run "$LATENCYCTL" --socket "$T/none.sock" status --timeout "$t"
	expect_rc 2 "--timeout $t"
	expect_err "--timeout '$t'"
done
expect_err "above 1d"
run "$LATENCYCTL" --socket "$T/none.sock" -t 500us status
expect_err "latencyctl: --timeout '500us' is below 1ms"
pass "--timeout refuses what is no duration, below 1ms or above 1d, naming it"

# A peer whose replies have members of another type than the protocol's (an older, newer or
# broken latencyd): latencyctl goes on without them or says so, and never crashes. It
# answers the hello, then the request with $T/fake/reply (as id $T/fake/id, else 1) and
# the lines of $T/fake/events.
mkdir "$T/fake"
cat >"$T/fake/latencyd" <<'EOF'
#!/bin/bash
dir=$(dirname "$0")
read -r _
echo '{"hello":{"protocol":1,"revision":0,"server":"latencyd","version":"0"}}'
read -r _
echo "{\"id\":$(cat "$dir/id" 2>/dev/null || echo 1),\"ok\":true,\"result\":$(cat "$dir/reply")}"
cat "$dir/events"
# A latencyd that says nothing more for a while (the connection stays). It exits 0: socat
# drops what it has not yet passed on when its child fails.
[ -e "$dir/hold" ] && sleep 20 2>/dev/null
exit 0
EOF
chmod +x "$T/fake/latencyd"
socat UNIX-LISTEN:"$T/fake.sock",fork EXEC:"$T/fake/latencyd" &
FAKE=$!
wait_for 50 test -S "$T/fake.sock" || fail "socat did not listen"
echo '{"request":1}' >"$T/fake/reply"
cat >"$T/fake/events" <<'EOF'
{"event":"suppressed","data":{"alert":{"tracker":null,"request":1}}}
{"event":"snapshot","data":{"id":4,"causes":{"tracker":"manual","request":1}}}
{"event":"snapshot","data":{"id":4,"causes":[{"tracker":7,"request":1}]}}
{"event":"snapshot","data":{"id":5,"status":"complete","path":"/snap-5","causes":[{"tracker":"manual","request":1}]}}
EOF
run timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" record
expect_rc 0 "record, past events with a null tracker or causes not an array"
expect_out "Snapshot 5 recorded: /snap-5"
echo '{"id":1,"path":null}' >"$T/fake/reply"
: >"$T/fake/events"
run timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" analyze 1
expect_rc 1 "analyze ID, a show-snapshot reply with a null path"
expect_err "latencyctl: analyze: snapshot 1 has no local path"
# A reply to another request than ours (latencyctl sends id 1) is no answer.
echo '{"pid":1}' >"$T/fake/reply"
echo 2 >"$T/fake/id"
run timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" status
expect_rc 3 "status, a reply with id 2"
expect_err "latencyctl: unexpected reply from latencyd: id 2 answers no request (ours is 1)"
[ ! -s "$T/out" ] || fail "a reply with id 2 was printed: $(cat "$T/out")"
rm "$T/fake/id"
run timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" status
expect_rc 0 "status, the reply with id 1"
pass "record, analyze ID: members of another type in latencyd's replies; a reply's id checked"

# An output that cannot be written (/dev/full) is no success: exit 4 and the reason, also
# where the command writes as things come (watch, metrics), and watch stops at once.
full() { RC=0; "$@" >/dev/full 2>"$T/err" || RC=$?; }
expect_full() {
	expect_rc 4 "$1 > /dev/full"
	[ "$(cat "$T/err")" = "latencyctl: write error: No space left on device" ] ||
		fail "$1 > /dev/full: $(cat "$T/err")"
}
echo '{"version":"9"}' >"$T/fake/reply"
full timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" --json version
expect_full "--json version"
full timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" version
expect_full "version"
full "$LATENCYCTL" --help
expect_full "--help"
echo '{"text":"a 1\n"}' >"$T/fake/reply"
full timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" metrics
expect_full "metrics"
# A text larger than stdio's buffer fails inside the write, not at the flush: its reason too.
printf '{"text":"%s"}\n' "$(for i in $(seq 3000); do printf 'a_%d 1\\n' "$i"; done)" >"$T/fake/reply"
full timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" metrics
expect_full "metrics, 30 KB"
full "$LATENCYCTL" status --version
expect_full "status --version"
echo '{"recording":true}' >"$T/fake/reply"
echo '{"event":"lost","data":{"lost":3}}' >"$T/fake/events"
touch "$T/fake/hold"
full timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" --json watch
expect_full "watch --json, an event then nothing"
full timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" watch
expect_full "watch, an event then nothing"
pass "a write error: exit 4 with its reason; watch stops at the first event it cannot write"

# A record latencyd accepted whose snapshot does not come within --timeout: it was taken
# (its snapshot still comes), so neither "did not answer" nor exit 3.
echo '{"request":7}' >"$T/fake/reply"
: >"$T/fake/events"
run timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" record --timeout 0.5
expect_rc 5 "record, accepted, no snapshot within --timeout"
[ "$(cat "$T/err")" = "latencyctl: record request 7 accepted; its snapshot did not arrive within --timeout (see list-snapshots)" ] ||
	fail "record, no snapshot within --timeout: $(cat "$T/err")"
rm "$T/fake/hold"
pass "record: accepted, its snapshot not within --timeout: exit 5, said so"

# metrics --json: each part one JSON object on one line, as the man page says.
echo '{"text":"a 1\nb 2\n"}' >"$T/fake/reply"
run timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" --json metrics
expect_rc 0 "--json metrics"
[ "$(wc -l <"$T/out")" = 1 ] && jq -e '.text == "a 1\nb 2\n"' "$T/out" >/dev/null ||
	fail "--json metrics is not one object on one line: $(cat "$T/out")"
pass "metrics --json: one line per part"

# A next_line that does not move on (each part here says 1) is no end: a reply latencyctl
# cannot read, exit 3, and no part of the text printed.
echo '{"text":"a 1\n","next_line":1}' >"$T/fake/reply"
run timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" metrics
expect_rc 3 "metrics, a part whose next_line does not move on"
[ "$(cat "$T/err")" = "latencyctl: unexpected reply from latencyd: metrics: next_line 1 in the part from line 1" ] ||
	fail "metrics, next_line 1 from line 1: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "metrics printed part of a text: $(cat "$T/out")"
echo '{"text":"a 1\n","next_line":0}' >"$T/fake/reply"
run timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" --json metrics
expect_rc 3 "metrics --json, a first part whose next_line is 0"
expect_err "latencyctl: unexpected reply from latencyd: metrics: next_line 0 in the part from line 0"
[ ! -s "$T/out" ] || fail "metrics --json printed a part: $(cat "$T/out")"
pass "metrics: a next_line that does not move on is an unexpected reply (exit 3), nothing printed"

# watch --json: one object per line to the end, the error latencyd ends it with included.
echo '{"recording":true}' >"$T/fake/reply"
cat >"$T/fake/events" <<'EOF'
{"event":"lost","data":{"lost":3}}
{"id":null,"ok":false,"error":{"code":"not-authorized","message":"uid 7 may not use latencyd's control socket"}}
EOF
run timeout 10 "$LATENCYCTL" --socket "$T/fake.sock" --json watch
expect_rc 1 "watch --json, ended by latencyd's error"
[ "$(wc -l <"$T/out")" = 2 ] || fail "watch --json: not 2 lines: $(cat "$T/out")"
while IFS= read -r line; do
	jq -e 'type == "object"' <<<"$line" >/dev/null 2>&1 ||
		fail "watch --json: a line that is no JSON object: '$line'"
done <"$T/out"
[ "$(tail -n 1 "$T/out" | jq -r .error.code)" = not-authorized ] ||
	fail "watch --json, its last line: $(cat "$T/out")"
kill "$FAKE"
pass "watch --json: one JSON object per line, its ending error too"

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

run "$LATENCYCTL" analyze --incident h1-1 "$T/a" "$T/b"
expect_rc 2 "analyze --incident ID DIR DIR"
expect_err "latencyctl: analyze: unexpected argument '$T/b': --incident ID takes one DIR"
run "$LATENCYCTL" analyze --incident h1-1
expect_rc 2 "analyze --incident ID"
expect_err "--incident ID wants a DIR"
pass "analyze --incident: one DIR, and a message that says which is wrong"

# Every command's help ends with an example, and every example is a command line
# latencyctl takes: with no latencyd to ask it exits 3 (cannot connect), not 2 (usage);
# watch would wait for events, so it is only parsed by its --help.
cmds=$("$LATENCYCTL" help | sed -n '/^Commands:/,$p' | awk 'NR > 1 && /^  [a-z]/ { print $1 }')
[ "$(echo "$cmds" | wc -l)" -ge 15 ] || fail "the command list: $cmds"
for c in $cmds; do
	example=$("$LATENCYCTL" "$c" --help | sed -n 's/^Example: //p')
	[ -n "$example" ] || fail "$c --help has no example"
	[ "$c" = watch ] && continue
	eval "set -- ${example#latencyctl }"
	run "$LATENCYCTL" -s "$T/no-such.sock" "$@"
	case $c in
	help) expect_rc 0 "the example of help: $example" ;;
	*) expect_rc 3 "the example of $c: $example" ;;
	esac
done
pass "each command's --help gives an example that latencyctl takes"

# Global options anywhere on the command line, against the real latencyd (a fake sysfs, no
# session): before the command, after it, among its own options and arguments.
# futex: a tracker of a module newer than latencyctl, which knows no list of them.
fake_sysfs 1.0 wakeup offcpu futex
SOCK=$T/ctl.sock
write_conf <<CONF
control: { socket = "$SOCK"; save_file = ""; };
session: { enabled = false; };
CONF
LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"
is_json() { jq -e "$1" "$T/out" >/dev/null || fail "$2: not the JSON wanted ($1): $(cat "$T/out")"; }

run "$LATENCYCTL" -s "$SOCK" status --json
expect_rc 0 "status --json"
is_json 'type == "object"' "status --json"
run "$LATENCYCTL" status -j --socket "$SOCK"
expect_rc 0 "status -j --socket"
is_json 'type == "object"' "status -j --socket"
# Without a session there is no catalog: latencyd's error, as JSON (test-completion.sh lists
# real snapshots this way).
run "$LATENCYCTL" -j list-snapshots -s "$SOCK"
expect_rc 1 "-j list-snapshots -s"
is_json '.error.code == "not-found"' "-j list-snapshots -s"
run "$LATENCYCTL" list-snapshots --socket "$SOCK" --json --limit 1
expect_rc 1 "list-snapshots --socket S --json --limit 1"
is_json '.error.code == "not-found"' "list-snapshots --socket S --json --limit 1"
run "$LATENCYCTL" list-snapshots --limit 1 --socket="$SOCK" --since 2h -j
expect_rc 1 "list-snapshots --socket=S"
is_json '.error.code == "not-found"' "list-snapshots --socket=S"
# The last one wins, wherever it is.
run "$LATENCYCTL" --socket "$T/none.sock" status --socket "$SOCK"
expect_rc 0 "status with a second --socket after the command"
pass "-s, -j after the command, among its options; --socket=PATH; the last one wins"

run "$LATENCYCTL" set-threshold wakeup 5ms --socket "$SOCK"
expect_rc 0 "set-threshold TRACKER 5ms --socket S"
[ "$(cat "$S/wakeup/threshold_ns")" = 5000000 ] || fail "set-threshold ... --socket: not written"
# -t's value is its own, not an argument of the command: TRACKER is still wakeup.
run "$LATENCYCTL" set-threshold -t 5 wakeup -s "$SOCK" 3ms
expect_rc 0 "set-threshold -t 5 TRACKER -s S 3ms"
[ "$(cat "$S/wakeup/threshold_ns")" = 3000000 ] || fail "set-threshold -t 5 ...: not written"
run "$LATENCYCTL" set-timeout offcpu -t5 2ms -j --socket="$SOCK"
expect_rc 0 "set-timeout -t5 -j --socket="
is_json '.timeout_ns == 2000000' "set-timeout ... -j"
# filter's own --tid against the global -t: each to its owner.
run "$LATENCYCTL" filter offcpu -t 3 --tid 7 --json -s "$SOCK"
expect_rc 0 "filter -t 3 --tid 7"
is_json '.filter == {"tid": 7}' "filter -t 3 --tid 7"
[ "$(cat "$S/offcpu/filter_tid")" = 7 ] || fail "filter --tid after -t: tid $(cat "$S/offcpu/filter_tid")"
run "$LATENCYCTL" enable -s "$SOCK" wakeup --json
expect_rc 0 "enable -s S TRACKER --json"
is_json '.enabled == true' "enable --json"
[ "$(cat "$S/wakeup/enabled")" = 1 ] || fail "enable: not written"
pass "global options and their values among a command's arguments and options"

# Out of the kernel's range: said before asking, the range in the unit typed.
run "$LATENCYCTL" -s "$SOCK" set-threshold wakeup 7200000ms
expect_rc 2 "set-threshold TRACKER 7200000ms"
expect_err "latencyctl: set-threshold: '7200000ms' is not between 0.001ms and 3600000ms"
run "$LATENCYCTL" -s "$SOCK" set-threshold wakeup 2h
expect_rc 2 "set-threshold TRACKER 2h"
expect_err "latencyctl: set-threshold: '2h' is not between 1µs and 1h"
run "$LATENCYCTL" -s "$SOCK" set-timeout wakeup 500us
expect_rc 2 "set-timeout TRACKER 500us"
expect_err "latencyctl: set-timeout: '500us' is not 0 (off) nor between 1000us and 3600000000us"
[ "$(cat "$S/wakeup/threshold_ns")" = 3000000 ] || fail "an out-of-range threshold was written"
run "$LATENCYCTL" -s "$SOCK" set-timeout wakeup 3600s
expect_rc 0 "set-timeout TRACKER 3600s (the top of the range)"
pass "set-threshold, set-timeout: out of range said in the unit typed, nothing sent"

# Values longer than latencyd takes are usage errors naming the option, also those a frame
# cannot hold (never "Message too long" from the socket).
long=$(head -c 70000 /dev/zero | tr '\0' x)
run "$LATENCYCTL" -s "$SOCK" record --reason "$(head -c 257 /dev/zero | tr '\0' x)"
expect_rc 2 "record --reason of 257 bytes"
expect_err "latencyctl: record: --reason is 257 bytes long: 256 at most"
run "$LATENCYCTL" -s "$SOCK" record --reason "$long"
expect_rc 2 "record --reason of 70000 bytes"
expect_err "latencyctl: record: --reason is 70000 bytes long: 256 at most"
# 256 bytes are latencyd's to take: here it has no flight recorder.
run "$LATENCYCTL" -s "$SOCK" record --reason "$(head -c 256 /dev/zero | tr '\0' x)"
expect_rc 1 "record --reason of 256 bytes, without a flight recorder"
expect_err "no flight recorder"
run "$LATENCYCTL" -s "$SOCK" filter wakeup --comm 0123456789abcdef
expect_rc 2 "filter --comm of 16 bytes"
expect_err "latencyctl: filter: --comm is 16 bytes long: a task name is at most 15 bytes"
run "$LATENCYCTL" -s "$SOCK" filter wakeup --comm "$long"
expect_rc 2 "filter --comm of 70000 bytes"
expect_err "--comm is 70000 bytes long"
run "$LATENCYCTL" -s "$SOCK" filter wakeup --cgroup "$long"
expect_rc 2 "filter --cgroup of 70000 bytes"
expect_err "latencyctl: filter: --cgroup is 70000 bytes long: 4079 at most"
run "$LATENCYCTL" -s "$SOCK" filter wakeup --comm 0123456789abcde
expect_rc 0 "filter --comm of 15 bytes"
[ "$(cat "$S/wakeup/filter_comm")" = 0123456789abcde ] || fail "filter --comm: not written"
pass "record --reason, filter --comm, --cgroup: too long for latencyd, said before asking"

# "--" ends the options: what follows is an argument, even -j or --json.
run "$LATENCYCTL" -s "$SOCK" status -- --json
expect_rc 2 "status -- --json"
expect_err "latencyctl: status: unexpected argument '--json'"
run "$LATENCYCTL" show-snapshot -s "$SOCK" -- -j
expect_rc 2 "show-snapshot -- -j"
expect_err "invalid snapshot id '-j'"
run "$LATENCYCTL" disable --json -s "$SOCK" -- --json
expect_rc 1 "disable -- --json (a tracker's name: latencyd says the kernel has none such)"
is_json '.error.code == "not-found" and .error.message == "no tracker '"'--json'"'; the kernel has futex, offcpu, wakeup"' \
	"disable -- --json"
run "$LATENCYCTL" -s "$SOCK" stauts
expect_rc 2 "stauts"
expect_err "latencyctl: unknown command 'stauts' (did you mean 'status'?)"
run "$LATENCYCTL" -s "$SOCK" set-threshold -j -- wakeup 4ms
expect_rc 0 "set-threshold -j -- TRACKER 4ms"
is_json '.threshold_ns == 4000000' "set-threshold -j -- TRACKER 4ms"
pass "-- ends the options"

# Which trackers there are is the kernel's to say: one latencyctl has never heard of is
# managed; one the kernel lacks is latencyd's not-found, with its list and a near name.
run "$LATENCYCTL" -s "$SOCK" set-threshold futex 7ms
expect_rc 0 "set-threshold futex 7ms (a tracker latencyctl has no name for)"
[ "$(cat "$S/futex/threshold_ns")" = 7000000 ] || fail "set-threshold futex: not written"
run "$LATENCYCTL" -s "$SOCK" enable futex
expect_rc 0 "enable futex"
run "$LATENCYCTL" -s "$SOCK" enable wakep
expect_rc 1 "enable wakep"
expect_err "latencyctl: enable: no tracker 'wakep' (did you mean 'wakeup'?); the kernel has futex, offcpu, wakeup (not-found)"
run "$LATENCYCTL" -s "$SOCK" set-timeout syscalls 1s
expect_rc 1 "set-timeout syscalls, a tracker this kernel lacks"
expect_err "latencyctl: set-timeout: no tracker 'syscalls'; the kernel has futex, offcpu, wakeup (not-found)"
run "$LATENCYCTL" -s "$SOCK" filter ../futex --comm x
expect_rc 2 "filter ../futex"
expect_err "latencyctl: invalid tracker name '../futex': "
pass "tracker names: the kernel's, whatever latencyctl knows; an unknown one said with the kernel's list"

# watch without a flight recorder: no event can come while this latencyd runs; said at once.
run timeout 10 "$LATENCYCTL" -s "$SOCK" watch
expect_rc 1 "watch, no flight recorder"
[ "$(cat "$T/err")" = "latencyctl: watch: latencyd's flight recorder is off (session.enabled = false): no events will come (not-found)" ] ||
	fail "watch, no flight recorder: $(cat "$T/err")"
run timeout 10 "$LATENCYCTL" -s "$SOCK" watch --json
expect_rc 1 "watch --json, no flight recorder"
[ "$(wc -l <"$T/out")" = 1 ] || fail "watch --json, no flight recorder: $(cat "$T/out")"
is_json '.error.code == "not-found"' "watch --json, no flight recorder"
pass "watch without a flight recorder: exit 1 at once, said (JSON with --json)"

# Errors name the option, wherever it is; a command's option is not a global one, nor the
# reverse; -h and --help after a command are its help, -V the version.
run "$LATENCYCTL" status --bogus -s "$SOCK"
expect_rc 2 "status --bogus"
expect_err "latencyctl: status: unrecognized option '--bogus'"
expect_err "Try 'latencyctl status --help'."
run "$LATENCYCTL" --limit 1 list-snapshots -s "$SOCK"
expect_rc 2 "--limit before list-snapshots"
expect_err "latencyctl: unrecognized option '--limit'"
run "$LATENCYCTL" status --limit 1 -s "$SOCK"
expect_rc 2 "status --limit"
expect_err "unrecognized option '--limit'"
run "$LATENCYCTL" list-snapshots -s "$SOCK" --json --limit
expect_rc 2 "list-snapshots --limit without its value"
expect_err "option '--limit' requires an argument"
run "$LATENCYCTL" list-snapshots --socket
expect_rc 2 "list-snapshots --socket without its value"
expect_err "option '--socket' requires an argument"
run "$LATENCYCTL" status -s "$SOCK" --timeout abc
expect_rc 2 "status --timeout abc"
expect_err "latencyctl: invalid --timeout 'abc': a duration starts with a number"
run "$LATENCYCTL" status --socket=
expect_rc 2 "status --socket="
expect_err "latencyctl: --socket wants a path, not an empty word"
run "$LATENCYCTL" -s "" status
expect_rc 2 "-s '' status"
expect_err "latencyctl: --socket wants a path, not an empty word"
run "$LATENCYCTL" -s "$SOCK" show-snapshot -1
expect_rc 2 "show-snapshot -1"
expect_err "latencyctl: show-snapshot: invalid snapshot id '-1'"
# analyze asks latencyd for the snapshot: its error is analyze's.
run "$LATENCYCTL" -s "$SOCK" analyze 999
expect_rc 1 "analyze 999"
expect_err "latencyctl: analyze: "
grep -q "show-snapshot" "$T/err" && fail "analyze 999 says show-snapshot: $(cat "$T/err")"
run "$LATENCYCTL" status --json=yes -s "$SOCK"
expect_rc 2 "status --json=yes"
expect_err "option '--json' doesn't allow an argument"
run "$LATENCYCTL" list-snapshots --t wakeup -s "$SOCK"
expect_rc 2 "list-snapshots --t (--tracker or --timeout)"
expect_err "option '--t' is ambiguous"
run "$LATENCYCTL" status -s "$SOCK" --help
expect_rc 0 "status --help after -s"
expect_out "Usage: latencyctl [OPTIONS] status"
run "$LATENCYCTL" list-snapshots -j -h
expect_rc 0 "list-snapshots -j -h"
expect_out "Usage: latencyctl [OPTIONS] list-snapshots"
run "$LATENCYCTL" status -V
expect_rc 0 "status -V"
expect_out "latencyctl "
run "$LATENCYCTL" help set-threshold --json
expect_rc 0 "help COMMAND --json"
expect_out "Usage: latencyctl [OPTIONS] set-threshold"
run "$LATENCYCTL" --help
expect_out "Options, before or after the command"
pass "errors name the option; command options and global ones kept apart; help, version"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
