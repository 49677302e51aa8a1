#!/bin/bash
# hist (#29): the real latencyd and latencyctl against a fake sysfs tree whose hist/ files
# are written as the module writes them (latency_tracker ABI 1.4): text and JSON agree,
# --interval prints differences, --reset reaches the kernel's file, io aligns its levels,
# and every bad argument gets its error.
set -u
. "$(dirname "$0")/lib.sh"

S=$T/sys/kernel/latency_tracker
tracker() { # NAME PER: a tracker with its hist/ group
	mkdir -p "$S/$1/stats" "$S/$1/hist"
	echo 1 >"$S/$1/enabled"
	echo 5000000 >"$S/$1/threshold_ns"
	echo 0 >"$S/$1/timeout_ns"
	echo "$2" >"$S/$1/hist/per"
	: >"$S/$1/hist/reset"
}
for t in block iosched syscalls; do tracker $t none; done
mkdir -p "$S/wakeup"
echo 0 >"$S/wakeup/enabled" # a tracker from before ABI 1.4: no hist/
echo 1.4 >"$S/abi_version"
mkdir -p "$T/sys/dev/block"
ln -s ../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda "$T/sys/dev/block/253:0"
ln -s ../../devices/virtual/block/loop0 "$T/sys/dev/block/7:0"

# block: 1+3+... delays; its buckets 4us, 8us, 1ms; p50 in the 8us bucket.
printf 'since_ns 1000000000 now_ns 13300000000\n4096 10\n8192 25\n1048576 5\n' \
	>"$S/block/hist/delay_ns"
printf 'since_ns 1000000000 now_ns 13300000000\nper none\n' >"$S/block/hist/by_key"
printf 'since_ns 1000000000 now_ns 13300000000\n2048 40\n4096 2\n' >"$S/iosched/hist/delay_ns"
printf 'since_ns 1000000000 now_ns 13300000000\nper disk\n253:0 2048 30\n253:0 4096 2\n7:0 2048 10\n' \
	>"$S/iosched/hist/by_key"
printf 'since_ns 1000000000 now_ns 13300000000\n0 3\n16384 7\n2097152 1\n' \
	>"$S/syscalls/hist/delay_ns"

SOCK=$T/ctl.sock
write_conf <<CONF
control: { socket = "$SOCK"; read_group = "nogroup"; };
session: { enabled = false; };
CONF
LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"
ctl() { "$LATENCYCTL" -s "$SOCK" "$@"; }

# Text and JSON, from one read each of the same files: the same counts and percentiles.
run ctl hist block
expect_rc 0 "hist block"
cp "$T/out" "$T/text"
expect_out "Tracker block: 40 delays over 12.3 s since the last reset"
grep -Eq '^ +usecs +: count +distribution$' "$T/out" || fail "hist block: no runqlat header"
grep -Eq '^ +4\.096 -> 8\.192 +: 10 +\|\*{16} +\|$' "$T/out" || fail "hist block: 4us row"
grep -Eq '^ +8\.192 -> 16\.384 +: 25 +\|\*{40}\|$' "$T/out" || fail "hist block: 8us row"
grep -Eq '^ +16\.384 -> 32\.768 +: 0 +\| +\|$' "$T/out" || fail "hist block: an empty row between"
expect_out "p50 ≤ 16.384µs, p90 ≤ 2.097152ms, p99 ≤ 2.097152ms, max ≤ 2.097152ms (bucket upper bounds)"
run ctl hist --json block
expect_rc 0 "hist --json block"
jq -e '.hists | length == 1' "$T/out" >/dev/null || fail "hist --json: $(cat "$T/out")"
jq -e '.hists[0] | .tracker == "block" and .count == 40 and .since_ns == 1000000000 and
	.now_ns == 13300000000 and .buckets == [
	{"lower_ns": 4096, "upper_ns": 8192, "count": 10},
	{"lower_ns": 8192, "upper_ns": 16384, "count": 25},
	{"lower_ns": 1048576, "upper_ns": 2097152, "count": 5}] and
	.percentiles == {"p50": 16384, "p90": 2097152, "p99": 2097152, "max": 2097152}' \
	"$T/out" >/dev/null || fail "hist --json block: $(cat "$T/out")"
# Each row of the text is a bucket of the JSON, with its count.
jq -r '.hists[0].buckets[] | "\(.lower_ns) \(.count)"' "$T/out" | while read -r lower count; do
	lo=$(awk -v n="$lower" 'BEGIN { s = sprintf("%.3f", n / 1000); sub(/\.?0+$/, "", s); print s }')
	grep -Eq "^ *$lo -> [0-9.]+ +: $count +\|" "$T/text" || fail "text lacks bucket $lo: $count"
done || exit 1
p=$(jq -r '.hists[0].percentiles | "\(.p50) \(.p99)"' "$T/out")
[ "$p" = "16384 2097152" ] || fail "JSON percentiles $p"
pass "hist: runqlat bars, percentiles as bucket bounds; text and JSON agree"

# --per disk: the keys named after /sys/dev/block; --disk keeps one disk.
printf 'since_ns 5000000000 now_ns 13300000000\nper disk\n253:0 4096 9\n253:0 8192 20\n7:0 1048576 5\n' \
	>"$S/block/hist/by_key"
echo disk >"$S/block/hist/per"
run ctl hist block --per disk --json
expect_rc 0 "hist block --per disk"
jq -e '.hists[0] | .per == "disk" and .count == 40 and
	(.keys | map({key, name, count})) == [{"key": "253:0", "name": "vda", "count": 29},
					       {"key": "7:0", "name": "loop0", "count": 5}] and
		.keys_since_ns == 5000000000 and .keys[0].percentiles.p50 == 16384' "$T/out" >/dev/null || fail "--per disk: $(cat "$T/out")"
run ctl hist block --per disk
expect_out "Per disk over 8.3 s since the split was set or the last reset:"
expect_out "disk vda (253:0): 29 delays"
expect_out "disk loop0 (7:0): 5 delays"
run ctl --json hist block --disk vda
expect_rc 0 "hist block --disk vda"
jq -e '.hists[0] | .disk == "vda" and .count == 29 and .since_ns == 5000000000 and
	(.buckets | map(.count)) == [9, 20]' "$T/out" >/dev/null || fail "--disk: $(cat "$T/out")"
pass "hist --per disk names the disks; --disk keeps one"

# --disk never changes a split, which every user sees: on a tracker not split per disk it is
# refused, saying how to split it; with --per disk as well, the split is set as --per sets it.
run ctl hist io --disk vda
expect_rc 1 "hist io --disk vda, iosched not split per disk"
expect_err "disk: tracker iosched is per none, not per disk: set its split first, 'latencyctl hist iosched --per disk' (admin access; a change resets the split histograms every user sees)"
[ "$(cat "$S/iosched/hist/per")" = none ] || fail "hist io --disk changed iosched's split"
run ctl --json hist iosched --disk vda
expect_rc 1 "hist --json iosched --disk vda"
jq -e '.error.code == "refused"' "$T/out" >/dev/null || fail "iosched --disk --json: $(cat "$T/out")"
[ "$(cat "$S/iosched/hist/per")" = none ] || fail "hist iosched --disk changed its split"
run ctl --json hist iosched --disk vda --per disk
expect_rc 0 "hist iosched --disk vda --per disk"
[ "$(cat "$S/iosched/hist/per")" = disk ] || fail "hist --per disk --disk did not set the split"
jq -e '.hists[0] | .disk == "vda" and .count == 32' "$T/out" >/dev/null ||
	fail "iosched --disk --per disk: $(cat "$T/out")"
pass "hist --disk: refused on a tracker not split per disk (never changes the split); set with --per disk"

# io: the levels side by side on the same rows; fs is not loaded, so it is skipped.
run ctl hist io --disk vda
expect_rc 0 "hist io"
expect_out "I/O delays by level; block and iosched on disk vda"
expect_out "Not loaded, skipped: fs."
grep -Eq '^ +nsecs +: syscalls +iosched +block' "$T/out" || fail "hist io: no level header"
grep -Eq '^ +0 -> 2 +: 3 +\|\*+ *\| 0 +\| +\| 0 +\| +\|$' "$T/out" || fail "hist io: row 0"
grep -Eq '^ +4096 -> 8192 +: 0 +\| +\| 2 +\| +\| 9 +\|\*+ *\|$' "$T/out" || fail "hist io: row 4096"
expect_out "block on vda: 29 delays over 8.3 s since the last reset; p50 ≤ 16.384µs"
run ctl --json hist io --disk vda
jq -e '(.hists | map(.tracker)) == ["syscalls", "iosched", "block"] and
	.skipped == [{"tracker": "fs", "reason": "not loaded"}] and .hists[2].count == 29' \
	"$T/out" >/dev/null || fail "hist io --json: $(cat "$T/out")"
pass "hist io: levels aligned, a missing one skipped"

# --interval: each period the difference from the previous read. delay_ns becomes a FIFO,
# so that each read latencyd makes gets the next text written here, whatever the timing;
# the next text waits until latencyd has closed the FIFO, lest two reads run into one.
D=$S/block/hist/delay_ns
rm "$D"
mkfifo "$D"
reading() { ls -l "/proc/$DAEMON_PID/fd" 2>/dev/null | grep -qF -- "-> $D"; }
feed() { # the texts of the successive reads
	for text in "$@"; do
		printf '%b' "$text" >"$D"
		while reading; do sleep 0.01; done
	done
}
R1='since_ns 1000000000 now_ns 20000000000\n4096 10\n8192 25\n1048576 5\n'
R2='since_ns 1000000000 now_ns 22000000000\n4096 14\n8192 25\n1048576 6\n'
R3='since_ns 1000000000 now_ns 23000000000\n4096 14\n8192 26\n1048576 6\n2097152 1\n'
R4='since_ns 23500000000 now_ns 24000000000\n8192 3\n' # reset in between
feed "$R1" "$R2" "$R3" "$R4" &
FEED=$!
run ctl --json hist block --interval 100ms 3
wait $FEED
expect_rc 0 "hist --interval 100ms 3"
jq -s -c '[.[] | .delta, (.hists[0] | .since_ns, .now_ns, .count, (.buckets | map([.lower_ns, .count])))]' \
	"$T/out" >"$T/periods"
[ "$(cat "$T/periods")" = '[true,20000000000,22000000000,5,[[4096,4],[1048576,1]],true,22000000000,23000000000,2,[[8192,1],[2097152,1]],true,23500000000,24000000000,3,[[8192,3]]]' ] ||
	fail "--interval periods: $(cat "$T/periods")"
pass "hist --interval: each period the difference of two reads; a reset starts anew"

feed "$R1" "$R2" &
FEED=$!
run ctl hist block --interval 1 1
wait $FEED
expect_rc 0 "hist --interval 1 1 (text)"
expect_out "Tracker block: 5 delays over 2.0 s since the previous read"
grep -Eq '^ +4\.096 -> 8\.192 +: 4 +\|' "$T/out" || fail "--interval text: 4us row"
grep -Eq '^ *1048\.576 -> 2097\.152 +: 1 +\|' "$T/out" || fail "--interval text: 1ms row"
expect_out "p50 ≤ 8.192µs, p90 ≤ 2.097152ms"
pass "hist --interval: text says the period's counts too"
rm "$D"
printf 'since_ns 1000000000 now_ns 13300000000\n4096 10\n8192 25\n1048576 5\n' >"$D"

# --reset: after the read, the kernel's hist/reset gets "1".
run ctl hist block --reset
expect_rc 0 "hist --reset"
expect_out "Histograms reset after this read."
[ "$(cat "$S/block/hist/reset")" = 1 ] || fail "hist/reset got '$(cat "$S/block/hist/reset")'"
: >"$S/block/hist/reset"
run ctl --json hist io --reset
jq -e '.was_reset' "$T/out" >/dev/null || fail "hist io --reset --json: $(cat "$T/out")"
for t in block iosched syscalls; do
	[ "$(cat "$S/$t/hist/reset")" = 1 ] || fail "hist io --reset: $t not reset"
done
pass "hist --reset writes 1 to hist/reset of what was read"

# Bad arguments: the client's own checks (exit 2), latencyd's (exit 1), each named.
bad() { # RC MESSAGE ARGS...
	local rc=$1 msg=$2
	shift 2
	run ctl hist "$@"
	expect_rc "$rc" "hist $*"
	grep -qF -- "$msg" "$T/err" "$T/out" || fail "hist $*: no '$msg': $(cat "$T/err" "$T/out")"
}
bad 1 "no tracker 'blok' (did you mean 'block'?); the kernel has block, iosched, syscalls, wakeup (and io: syscalls, fs, iosched, block)" blok
bad 2 "latencyctl: invalid tracker name 'a/b'" a/b
bad 2 "invalid --interval '0': it must be positive" block --interval 0
bad 2 "invalid --interval '-1s': it must be positive" block --interval -1s
bad 2 "invalid --interval '1x'" block --interval 1x
bad 2 "invalid COUNT 'many': a positive number of periods" block --interval 1s many
bad 2 "invalid COUNT '0'" block --interval 1s 0
bad 2 "unexpected argument '3' (a COUNT goes with --interval)" block 3
bad 2 "invalid --per 'disks': cpu, disk or syscall" block --per disks
bad 2 "hist: wants TRACKER|io" --per cpu
bad 1 "no disk 'sdz'; the disks are" block --disk sdz
bad 1 "vda" block --disk sdz
bad 1 "disk: tracker syscalls has no disks (disk is for block, iosched and io)" syscalls --disk vda
bad 1 "per: not with io" io --per cpu
bad 1 "disk: a disk's histogram is per disk, not per cpu" block --disk vda --per cpu
bad 1 "no tracker 'app'; the kernel has block, iosched, syscalls, wakeup" app
bad 1 "tracker wakeup has no histograms (hist/): its module is older than latency_tracker ABI 1.4" wakeup
printf 'since_ns 1000000000 now_ns 13300000000\n4096 10\n4000 2\n' >"$S/iosched/hist/delay_ns"
bad 1 "iosched/hist/delay_ns line 3: 4000 is no bucket's lower bound" iosched
run ctl --json hist app
expect_rc 1 "hist --json app"
jq -e '.error.code == "not-found"' "$T/out" >/dev/null || fail "hist --json app: $(cat "$T/out")"
pass "hist: every bad argument named, with its exit status"

# A reader (nobody, in read_group nogroup) reads, but neither resets nor changes the split
# that every user sees; asking for the split the tracker has is a read.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && getent group nogroup >/dev/null; then
	chmod 755 "$T"
	reader() { run setpriv --reuid=65534 --regid=65534 --clear-groups "$LATENCYCTL" -s "$SOCK" hist "$@"; }
	reader block
	expect_rc 0 "hist block as a reader"
	: >"$S/block/hist/reset"
	reader block --reset
	expect_rc 1 "hist --reset as a reader"
	expect_err "'hist --reset' needs admin access: uid 65534 is neither root nor in admin_group"
	[ ! -s "$S/block/hist/reset" ] || fail "a reader's --reset reached hist/reset"
	reader block --per disk
	expect_rc 0 "hist --per disk as a reader, the split the tracker has"
	reader block --per cpu
	expect_rc 1 "hist --per cpu as a reader"
	expect_err "'hist --per cpu (tracker block is per disk)' needs admin access"
	[ "$(cat "$S/block/hist/per")" = disk ] || fail "a reader changed hist/per"
	# --disk is a read on a tracker split per disk; else refused as for root, not as a
	# change of the split.
	reader block --disk vda
	expect_rc 0 "hist block --disk vda as a reader"
	expect_out "29 delays"
	echo none >"$S/block/hist/per"
	reader block --disk vda
	expect_rc 1 "hist block --disk vda as a reader, block not split per disk"
	expect_err "disk: tracker block is per none, not per disk: set its split first"
	[ "$(cat "$S/block/hist/per")" = none ] || fail "a reader's --disk changed hist/per"
	echo disk >"$S/block/hist/per"
	pass "hist: a reader reads, --disk too; --reset and a change of --per need admin"
fi

run ctl hist --help
expect_rc 0 "hist --help"
expect_out "Usage: latencyctl [OPTIONS] hist TRACKER|io"
expect_out "Percentiles are bucket upper bounds"
stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"

# Without the module: the tracker cannot be read, and the message says why.
rm -rf "$T/sys/kernel"
LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"
bad 1 "no tracker 'block': the latency_tracker module is not loaded" block
bad 1 "io: the latency_tracker module is not loaded" io
mkdir -p "$S/wakeup"
echo 0 >"$S/wakeup/enabled"
bad 1 "io: none of its trackers (syscalls, fs, iosched, block) is loaded" io
pass "hist without the module, or without io's trackers, says so"
stop_daemon TERM

# An unprivileged latencyd (nobody) over a tree with the kernel's modes: hist/per 0644,
# hist/by_key 0400 and hist/reset 0200, all root's. It reads delay_ns, but refuses a split or
# a reset that root's client may ask for, saying that the kernel keeps those files to root
# and that latencyd is not root; nothing reaches the files.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	rm -rf "$T/sys/kernel"
	tracker block none
	echo 1.4 >"$S/abi_version"
	printf 'since_ns 1000000000 now_ns 13300000000\n4096 10\n' >"$S/block/hist/delay_ns"
	printf 'since_ns 1000000000 now_ns 13300000000\nper disk\n253:0 4096 10\n' \
		>"$S/block/hist/by_key"
	chmod 400 "$S/block/hist/by_key"
	chmod 200 "$S/block/hist/reset"
	chmod 755 "$T"
	mkdir "$T/run"
	chown 65534:65534 "$T/run"
	SOCK=$T/run/ctl.sock
	write_conf <<CONF
control: { socket = "$SOCK"; };
session: { enabled = false; };
CONF
	printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups %q "$@"\n' \
		"$LATENCYD" >"$T/as-nobody"
	chmod 755 "$T/as-nobody"
	# The readiness socket: nobody must be able to send to it.
	umask 000
	LATENCYD=$T/as-nobody LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"
	umask 022
	[ "$(stat -c %u "/proc/$DAEMON_PID")" = 65534 ] || fail "latencyd does not run as nobody"
	run ctl hist block
	expect_rc 0 "hist block, latencyd unprivileged"
	expect_out "Tracker block: 10 delays"
	bad 1 "cannot set hist/per of block to cpu: Permission denied: the kernel lets root alone write it, and latencyd does not run as root" \
		block --per cpu
	[ "$(cat "$S/block/hist/per")" = none ] || fail "hist/per became '$(cat "$S/block/hist/per")'"
	echo disk >"$S/block/hist/per" # as root sets it
	bad 1 "cannot read hist/by_key of tracker block: Permission denied: the kernel lets root alone read it, and latencyd does not run as root" \
		block --per disk
	run ctl --json hist block --per disk
	jq -e '.error.code == "refused"' "$T/out" >/dev/null || fail "--per disk --json: $(cat "$T/out")"
	bad 1 "cannot reset the histograms of block: Permission denied: the kernel lets root alone write it, and latencyd does not run as root" \
		block --reset
	[ ! -s "$S/block/hist/reset" ] || fail "hist/reset got '$(cat "$S/block/hist/reset")'"
	pass "hist, latencyd unprivileged: delay_ns read; --per and --reset refused, saying why"
	stop_daemon TERM
	expect_rc 0 "unprivileged latencyd after SIGTERM"
	! grep -qE "AddressSanitizer|LeakSanitizer|runtime error:" "$T/latencyd.log" ||
		fail "a sanitizer report in the unprivileged latencyd's log"
fi
