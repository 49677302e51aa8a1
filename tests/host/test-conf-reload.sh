#!/bin/bash
# The configuration files at start and on reload: an @include latencyd must not follow (a
# directory or FIFO named with an escape), a FIFO as control.save_file, a file gone since
# start, and the settings a reload does not apply (latencyctl config shows the running ones).
set -u
. "$(dirname "$0")/lib.sh"

SOCK=$T/ctl.sock
ctl() { timeout 10 "$LATENCYCTL" -s "$SOCK" "$@"; }
conf() {
	cat <<CONF
control: { socket = "$SOCK"; save_file = "$T/saved.conf"; };
session: { enabled = false; };
catalog: { directory = "$T/catalog-$1"; };
module: { notify_path = "$T/notify-$1"; };
retention: { max_count = 7; };
log: { level = "$2"; };
CONF
}
reload_failed() {
	local n
	n=$(count "reload failed, keeping the current configuration")
	kill -HUP "$DAEMON_PID"
	wait_for 100 more_than "reload failed, keeping the current configuration" "$n" ||
		fail "${1:-the reload did not fail}"
	kill -0 "$DAEMON_PID" || fail "latencyd died on the reload"
}
LOG=$T/latencyd.log

# What a reload does not apply stays what runs, in latencyctl config too, one warning each.
conf 1 info | write_conf
start_daemon -c "$T/latencyd.conf"
conf 2 debug | write_conf
hup
for k in catalog.directory module.notify_path; do
	grep -q "reload: $k changed: it takes effect at the next start" "$LOG" ||
		fail "no warning for $k: $(grep reload: "$LOG")"
done
[ "$(grep -c "reload: .* changed" "$LOG")" -eq 2 ] || fail "not one warning per setting"
run ctl --json config
expect_rc 0 "config"
jq -e --arg t "$T" '.settings.catalog.directory == $t + "/catalog-1" and
	.settings.module.notify_path == $t + "/notify-1" and .settings.log.level == "debug"' \
	"$T/out" >/dev/null || fail "config shows values not in use: $(cat "$T/out")"
pass "a reload keeps the values that need a restart, and says so once each"

# @include "DIR\\" names the directory DIR\: refused, not libconfig's exit().
mkdir "$T/d\\"
{
	conf 1 info
	printf '@include "%s/d\\\\"\n' "$T"
} >"$T/latencyd.conf"
reload_failed "an @include of a directory was not refused"
grep -qF "$T/latencyd.conf:7: @include \"$T/d\\\": not a regular file" "$LOG" ||
	fail "the refusal does not name the file: $(tail -3 "$LOG")"
pass "SIGHUP: an @include of a directory named with an escape is refused"

# A FIFO so named is not opened to wait on, by --check-config either.
mkfifo "$T/f\\"
{
	conf 1 info
	printf '@include "%s/f\\\\"\n' "$T"
} >"$T/latencyd.conf"
run timeout 10 "$LATENCYD" --check-config "$T/latencyd.conf"
expect_rc 1 "--check-config with an @include of a FIFO"
expect_err "$T/latencyd.conf:7: @include \"$T/f\\\": not a regular file"
reload_failed "an @include of a FIFO was not refused"
pass "an @include of a FIFO is refused, never waited on"

# control.save_file a FIFO: said, ignored, never waited on.
stop_daemon TERM
mkfifo "$T/saved.conf"
conf 1 info | write_conf
start_daemon -c "$T/latencyd.conf"
grep -qF "$T/saved.conf: not a regular file" "$LOG" || fail "the FIFO save_file is not said"
hup "a reload waited on the FIFO save_file"
rm "$T/saved.conf"
stop_daemon TERM
pass "a FIFO as control.save_file is refused, at start and on reload"

# /etc/latencyd.conf read at start and gone at the reload: the running configuration stays.
# The default file is only reached in a mount namespace of our own, /etc an overlay there.
if ! command -v nsenter >/dev/null ||
	! unshare -m --propagation private true 2>/dev/null; then
	echo "SKIP: no mount namespace here; the rest is not run"
	exit 0
fi
mkdir -p "$T/etc-up" "$T/etc-work"
conf 1 info >"$T/etc-up/latencyd.conf"
rm -f "$T/notify" "$T/notify.log"
socat -u UNIX-RECV:"$T/notify" - >"$T/notify.log" &
# shellcheck disable=SC2034 # lib.sh stop_daemon and cleanup end it
NOTIFY_PID=$!
wait_for 50 test -S "$T/notify" || fail "socat did not create the notify socket"
# shellcheck disable=SC2016
NOTIFY_SOCKET=$T/notify unshare -m --propagation private sh -c \
	'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc && exec "$3"' \
	sh "$T/etc-up" "$T/etc-work" "$LATENCYD" 2>"$LOG" &
DAEMON_PID=$!
wait_for 100 grep -q READY=1 "$T/notify.log" || fail "latencyd never sent READY=1"
grep -q "listening on $SOCK" "$LOG" || fail "latencyd did not read /etc/latencyd.conf"
nsenter -t "$DAEMON_PID" -m rm /etc/latencyd.conf
reload_failed "a reload without the file it read took the built-in defaults"
grep -qF "/etc/latencyd.conf: No such file or directory" "$LOG" ||
	fail "the reload does not name the missing file: $(tail -3 "$LOG")"
run ctl --json config
jq -e '.settings.retention.max_count == 7' "$T/out" >/dev/null ||
	fail "the running configuration was not kept: $(cat "$T/out")"
run nsenter -t "$DAEMON_PID" -m "$LATENCYD" --check-config
expect_rc 0 "--check-config without /etc/latencyd.conf"
expect_err "/etc/latencyd.conf does not exist"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
pass "a file gone since start keeps the running configuration on reload"
