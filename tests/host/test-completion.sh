#!/bin/bash
# The bash completion of latencyctl, sourced in plain bash: commands (every one that
# latencyctl --help lists, so that the two stay in sync), options per command, and, from the
# real latencyd (a fake sysfs for trackers, a userspace flight recorder run by lttng-env for
# snapshots), tracker names and snapshot ids.
# Usage: lttng-env test-completion.sh LATENCYD LATENCYCTL ALERT_WRITE COMPLETION_FILE
set -u
ALERT_WRITE=${3:?} COMPLETION=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LTTNG_HOME:-}" ] || { echo "SKIP: run me under lttng-env"; exit 77; }

# shellcheck source=/dev/null
. "$COMPLETION"
complete -p latencyctl >/dev/null || fail "the file does not register a completion for latencyctl"

# Completes the words given (the last one is being typed) as bash would after TAB.
comp() {
	COMP_WORDS=("$LATENCYCTL" "$@")
	COMP_CWORD=$#
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_latencyctl
	printf '%s\n' "${COMPREPLY[@]}" | sort >"$T/comp"
}
expect_comp() {
	local want
	want=$(printf '%s\n' "$@" | sort)
	[ "$(cat "$T/comp")" = "$want" ] ||
		fail "completion of '${COMP_WORDS[*]:1}': got [$(tr '\n' ' ' <"$T/comp")], want [$*]"
}

# Every command of --help, and nothing else, from the command list of --help itself.
commands=$("$LATENCYCTL" --help | sed -n '/^Commands:/,/^$/p' | grep -E '^  [a-z]' | awk '{print $1}' | sort)
[ "$(echo "$commands" | wc -l)" -ge 15 ] || fail "cannot read the commands of --help"
comp ""
[ "$(cat "$T/comp")" = "$commands" ] ||
	fail "commands completed differ from latencyctl --help: $(diff <(echo "$commands") "$T/comp")"
for c in $commands; do
	comp "$c" --
	grep -qx -- --help "$T/comp" || fail "$c: --help not completed"
	for o in $("$LATENCYCTL" "$c" --help | head -n 1 | grep -o -- '--[a-z][a-z-]*'); do
		grep -qx -- "$o" "$T/comp" || fail "$c: option $o of its usage not completed"
	done
done
# Every option that a usage shows with a value ("--threads N", "--per cpu|disk|syscall") is
# one the completion knows takes a value: the first case pattern that lists them skips the
# value (it is no argument), the second offers nothing for it, unless the option has a
# branch of its own ("--per)": its values).
valued=$(for c in $commands; do
	"$LATENCYCTL" "$c" --help | head -n 1 | grep -oE -- '--[a-z][a-z-]* [A-Za-z]' | cut -d' ' -f1
done | sort -u)
[ -n "$valued" ] || fail "no option with a value in the usages of latencyctl's commands"
n=0
while read -r pattern; do
	n=$((n + 1))
	tr ' |\t\\)' '\n' <<<"$pattern" | grep -v '^$' >"$T/valued-$n"
done < <(awk '/--pid \| --tid/ { f = 1; p = "" } f { p = p " " $0 } f && /\)[ \t]*$/ { print p; f = 0 }' "$COMPLETION")
[ "$n" = 2 ] || fail "cannot find the completion's two case patterns of options with a value"
for o in $valued; do
	grep -qx -- "$o" "$T/valued-1" ||
		fail "option $o takes a value (its usage says so): the completion counts the value as an argument"
	grep -qx -- "$o" "$T/valued-2" || grep -q -- "^[[:space:]]*$o)" "$COMPLETION" ||
		fail "option $o takes a value (its usage says so): the completion neither skips it nor completes it"
done

comp st
expect_comp status
comp set-t
expect_comp set-threshold set-timeout
comp -
expect_comp --socket --json --timeout --help --version
comp --json set-threshold --
expect_comp --help --save --socket --json --timeout --version
comp set-threshold wakeup --j
expect_comp --json
comp status --socket --json --t
expect_comp --timeout
comp status -t ""
expect_comp # SECONDS: nothing to offer
comp show-snapshot -- -
expect_comp # after "--", an ID, not an option
comp filter wakeup --c
expect_comp --cgroup --clear --comm
comp help s
expect_comp set-threshold set-timeout show-snapshot status
# No daemon: the tracker names latencyctl's help knows (set-threshold's TRACKER), no ids.
known=$("$LATENCYCTL" set-threshold --help | sed -n 's/^  TRACKER  *//p' | sed -e 's/,/ /g' -e 's/ or / /g')
[ "$(wc -w <<<"$known")" -ge 9 ] || fail "cannot read the tracker names of set-threshold --help: $known"
comp -s "$T/none.sock" enable ""
# shellcheck disable=SC2086
expect_comp $known
comp -s "$T/none.sock" show-snapshot ""
expect_comp
# analyze: a snapshot's id or path; --incident's DIR a directory.
mkdir -p "$T/snapdir/kernel" "$T/snapdir2"
: >"$T/snapfile"
comp -s "$T/none.sock" analyze "$T/snap"
expect_comp "$T/snapdir" "$T/snapdir2" "$T/snapfile"
comp -s "$T/none.sock" analyze --incident 7 "$T/snap"
expect_comp "$T/snapdir" "$T/snapdir2"
pass "commands (all of --help), options per command; without a daemon, the known trackers, no ids; analyze paths"

# The real latencyd: tracker names from the fake sysfs, snapshot ids from its catalog.
fake_sysfs 1.0 wakeup offcpu
SOCK=$T/ctl.sock
mkfifo "$T/alerts"
write_conf <<CONF
control: { socket = "$SOCK"; save_file = ""; };
$(ust_recorder_conf latencyd-comp)
output: { directory = "$T/snapshots"; };
ratelimit: { rate = 0; };
realtime: { priority = 0; lock_memory = false; };
CONF
LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"
snapshots() { [ "$("$LATENCYCTL" -s "$SOCK" --json list-snapshots | jq '.snapshots | length')" = "$1" ]; }
for n in 1 2; do # one at a time: alerts close together share a snapshot
	"$ALERT_WRITE" "$T/alerts" comp 1 || fail "alert-write"
	wait_for 200 snapshots $n || fail "no snapshot $n: $("$LATENCYCTL" -s "$SOCK" list-snapshots 2>&1)"
done
ids=$("$LATENCYCTL" -s "$SOCK" --json list-snapshots | jq -r '.snapshots[].id')

comp -s "$SOCK" enable ""
expect_comp offcpu wakeup
comp --socket "$SOCK" set-threshold w
expect_comp wakeup
comp -s "$SOCK" set-threshold wakeup ""
expect_comp # DURATION: nothing to offer
comp -s "$SOCK" filter --comm nginx ""
expect_comp offcpu wakeup
comp -s "$SOCK" list-snapshots --tracker ""
expect_comp offcpu wakeup
comp -s "$SOCK" show-snapshot ""
# shellcheck disable=SC2086
expect_comp $ids
comp -s "$SOCK" delete-snapshot ""
# shellcheck disable=SC2086
expect_comp $ids
comp -s "$SOCK" show-snapshot 1 ""
expect_comp
pass "tracker names and snapshot ids from latencyd"

# Global options after the command: their values are no arguments, the socket is asked
# wherever it was typed (even after the word being completed), "--" ends the options.
comp enable -s "$SOCK" ""
expect_comp offcpu wakeup
comp set-threshold --json --socket "$SOCK" -t 5 ""
expect_comp offcpu wakeup
comp enable --socket="$SOCK" -j ""
expect_comp offcpu wakeup
comp set-threshold --socket="$SOCK" wakeup -j ""
expect_comp # DURATION
comp -s "$SOCK" enable -t ""
expect_comp # -t's SECONDS, not TRACKER
comp filter --comm nginx -s "$SOCK" ""
expect_comp offcpu wakeup
comp delete-snapshot --timeout 2 --socket "$SOCK" ""
# shellcheck disable=SC2086
expect_comp $ids
comp -s "$SOCK" enable -- ""
expect_comp offcpu wakeup
comp -s "$SOCK" set-threshold -- -s ""
expect_comp # after "--", -s is TRACKER: this is DURATION
comp status --socket "$T/ctl.s"
expect_comp "$SOCK"
# The cursor on TRACKER, the socket typed after it.
COMP_WORDS=("$LATENCYCTL" enable w -s "$SOCK")
COMP_CWORD=2
COMPREPLY=()
_latencyctl
[ "${COMPREPLY[*]}" = wakeup ] || fail "enable w<TAB> -s SOCK: got [${COMPREPLY[*]}], want [wakeup]"
pass "global options after the command: their values skipped, the socket used, -- honoured"

# latencyctl itself, the global options among a command's own against real snapshots.
run "$LATENCYCTL" list-snapshots --socket "$SOCK" --json --limit 1
expect_rc 0 "list-snapshots --socket S --json --limit 1"
jq -e '.snapshots | length == 1' "$T/out" >/dev/null || fail "list-snapshots --limit 1 --json: $(cat "$T/out")"
run "$LATENCYCTL" list-snapshots --since 1h -j -s "$SOCK"
expect_rc 0 "list-snapshots --since 1h -j -s S"
jq -e '.snapshots | length == 2' "$T/out" >/dev/null || fail "list-snapshots -j: $(cat "$T/out")"
first=$(echo "$ids" | head -n 1)
run "$LATENCYCTL" show-snapshot "$first" --json --socket="$SOCK"
expect_rc 0 "show-snapshot ID --json --socket=S"
jq -e --argjson id "$first" '.id == $id' "$T/out" >/dev/null || fail "show-snapshot --json: $(cat "$T/out")"
pass "list-snapshots and show-snapshot with -s, --json after the command"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
