#!/bin/bash
# latencyctl analyze ID: the real latencyd (userspace flight recorder, as nobody, under
# lttng-env) records a snapshot on an alert; analyze asks it the snapshot's path and
# analyses it locally; an unknown id is latencyd's not-found error (exit 1).
# Usage: lttng-env test-analyze-id.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || { echo "SKIP: jq missing"; exit 77; }

ust_recorder_setup "$UST_APP"
write_conf <<CONF
control: { socket = "$SOCK"; };
$(ust_recorder_conf latencyd-analyze)
output: { directory = "$T/snapshots"; };
CONF
start_daemon -c "$T/latencyd.conf"
wait_for 300 sh -c 'lttng list -u 2>/dev/null | grep -q lttng_ust_tracef' || fail "no app"
sleep 0.5
# With a kernel stack: latencyd, as nobody, cannot read kallsyms' addresses (it needs
# CAP_SYSLOG, which the unit grants): the frames are left unnamed, and the entry says why.
ALERT_STACK=0xffffffff81000010,0xffffffff81000020 "$ALERT_WRITE" "$T/alerts" selftest 1 ||
	fail "alert-write"
wait_for 100 sh -c "[ -s '$CAT' ] && jq -e '.snapshots[] | select(.id == 1 and .status == \"complete\")' '$CAT' >/dev/null" ||
	fail "no complete snapshot 1"

out=$("$LATENCYCTL" -s "$SOCK" --json analyze 1) || fail "analyze 1: exit $?"
out1=$out
path=$(jq -r '.snapshots[0].path' "$CAT")
[ "$(jq -r .path <<<"$out")" = "$path" ] || fail "analyzed $(jq -r .path <<<"$out"), not $path"
[ "$(jq -r .events <<<"$out")" -gt 0 ] || fail "no events in snapshot 1"
pass "analyze 1: the snapshot latencyd recorded ($path), $(jq -r .events <<<"$out") events"

# analysis.auto (the default): latencyd analysed the snapshot too, on its own thread; the
# summary in the catalog entry counts the same events as latencyctl analyze did.
wait_for 100 sh -c "jq -e '.snapshots[0].analysis.status' '$CAT' >/dev/null" ||
	fail "no automatic analysis in the catalog: $(cat "$CAT")"
[ "$(jq -r '.snapshots[0].analysis.status' "$CAT")" = done ] ||
	fail "automatic analysis: $(jq -c '.snapshots[0].analysis' "$CAT")"
[ "$(jq -r '.snapshots[0].analysis.events' "$CAT")" = "$(jq -r .events <<<"$out")" ] ||
	fail "automatic analysis read $(jq -r '.snapshots[0].analysis.events' "$CAT") events, analyze $(jq -r .events <<<"$out")"
"$LATENCYCTL" -s "$SOCK" show-snapshot 1 >"$T/show.txt" || fail "show-snapshot 1"
grep -q "^Analysis (done, [0-9]* events" "$T/show.txt" || fail "show-snapshot: $(cat "$T/show.txt")"
pass "analysis.auto: the summary is in the catalog entry and show-snapshot prints it"

stack=$(jq -c '.snapshots[0].causes[0].stack' "$CAT")
[ "$(jq -r '.kind' <<<"$stack")" = task ] && [ "$(jq -r '.frames | join(",")' <<<"$stack")" = "?,?" ] &&
	jq -r .error <<<"$stack" | grep -q "kptr_restrict, no CAP_SYSLOG" ||
	fail "the unnamed stack in the catalog: $stack"
# Raw addresses only where kernel.kptr_restrict lets anyone see them.
if [ "$(cat /proc/sys/kernel/kptr_restrict)" = 0 ]; then
	[ "$(jq -r '.addresses | join(",")' <<<"$stack")" = 0xffffffff81000010,0xffffffff81000020 ] ||
		fail "kptr_restrict 0: the addresses should be kept: $stack"
else
	[ "$(jq -r '.addresses' <<<"$stack")" = null ] || fail "kptr_restrict set: addresses kept: $stack"
fi
grep -A3 "^Kernel stacks:" "$T/show.txt" | grep -q "where it waited in the kernel" ||
	fail "show-snapshot prints no kernel stack: $(cat "$T/show.txt")"
grep -q "(unnamed: /proc/kallsyms: no addresses shown" "$T/show.txt" ||
	fail "show-snapshot does not say why the stack is unnamed: $(cat "$T/show.txt")"
pass "a kernel stack latencyd cannot name: kept unnamed in the catalog, with why; addresses as kptr_restrict says"

# The block devices' names as /sys/dev/block has them when the snapshot was recorded.
for link in /sys/dev/block/*; do
	dev=${link##*/} name=$(basename "$(readlink "$link")")
	[ "$(jq -r --arg d "$dev" '.snapshots[0].disks[$d]' "$CAT")" = "$name" ] ||
		fail "the catalog entry does not name $dev $name: $(jq -c '.snapshots[0].disks' "$CAT")"
done
[ -e "$link" ] && pass "the catalog entry names the block devices ($(jq -c '.snapshots[0].disks' "$CAT"))"

run "$LATENCYCTL" -s "$SOCK" analyze 99
expect_rc 1 "analyze of an unknown id"
pass "analyze of an unknown id: exit 1"

# A user who may not read the snapshot's files (latencyd's output directory is root's, 0750)
# is told so, not that it holds no trace: here (as nobody, lttng-env) a copy of mode 000.
cp -a "$path" "$T/unreadable"
chmod 000 "$T/unreadable"
out=$("$LATENCYCTL" analyze "$T/unreadable" 2>&1)
rc=$?
chmod 755 "$T/unreadable"
[ $rc = 1 ] && grep -q "unreadable: Permission denied: analyze reads the snapshot's files itself" <<<"$out" ||
	fail "analyze of files it may not read: exit $rc: $out"
pass "analyze of files it may not read: exit 1, it says why"

# Beside a copy it may read, two it may not (a directory of several hosts' snapshots): the
# result is that copy's, partial, the first left out named and the other counted.
mkdir "$T/mixed"
for c in a b c; do cp -a "$path" "$T/mixed/$c"; done
chmod 000 "$T/mixed/b" "$T/mixed/c"
mixed=$("$LATENCYCTL" --json analyze "$T/mixed" 2>"$T/mixed.err")
rc=$?
chmod 755 "$T/mixed/b" "$T/mixed/c"
[ $rc = 0 ] || fail "analyze of a copy beside two unreadable: exit $rc: $(cat "$T/mixed.err")"
[ "$(jq -r .partial <<<"$mixed")" = true ] &&
	[ "$(jq -r .events <<<"$mixed")" = "$(jq -r .events <<<"$out1")" ] &&
	jq -r '.problems[]' <<<"$mixed" | grep -Eqx "$T/mixed/[bc]: Permission denied: left out, and 1 other path\(s\) it may not read" ||
	fail "analyze of a copy beside two unreadable: $(jq -c '{partial, events, problems}' <<<"$mixed")"
pass "a copy beside two it may not read: analysed, partial, the unreadable said"
stop_daemon
