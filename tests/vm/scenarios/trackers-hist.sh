# The hist/ files (ABI 1.4) of the block and syscalls trackers: block kept per disk on a
# qemu-throttled virtio disk, syscalls per system call. The header's since_ns <= now_ns;
# the buckets of hist/delay_ns add up to stats/delay_count and those of hist/by_key to
# hist/delay_ns; the disk key is the throttled disk's MAJ:MIN and the median of 40 reads
# issued one at a time is in the bucket the throttle implies; dd's read and write calls
# are keyed by their numbers; a reset empties both files and moves since_ns, and leaves
# stats/ alone; per none empties by_key; bad writes fail with EINVAL or EOPNOTSUPP.
# vm-options: --disk 64M:iops-total=20
. "$VM_IN/scenarios/guest-lib.sh"

H=/tmp/hist

# A copy of hist/FILE of $T in $H.FILE (one read: the lines agree with one another),
# its header checked; sets SINCE and NOW.
snap() {
	cat "$T/hist/$1" >"$H.$1" || fail "read $T/hist/$1"
	set -- "$1" $(head -n 1 "$H.$1")
	[ "$2 $4" = "since_ns now_ns" ] && [ $# = 5 ] || fail "$1 header: $(head -n 1 "$H.$1")"
	SINCE=$3 NOW=$5
	[ "$SINCE" -le "$NOW" ] || fail "$1: since_ns $SINCE > now_ns $NOW"
}

# Counts of hist/delay_ns, of hist/by_key (all keys, or key $1).
delay_sum() { tail -n +2 "$H.delay_ns" | awk '{ s += $2 } END { print s + 0 }'; }
key_sum() { tail -n +3 "$H.by_key" | awk -v k="$1" 'k == "" || $1 == k { s += $3 } END { print s + 0 }'; }

# Every line after the header: "<bucket> <count>" (delay_ns), "<key> <bucket> <count>"
# (by_key), buckets powers of two (or 0), increasing within a key, counts not 0.
check_lines() {
	tail -n +2 "$H.delay_ns" | awk '
		NF != 2 || $2 < 1 || ($1 != 0 && and($1, $1 - 1) != 0) || $1 <= last { bad = 1 }
		{ last = $1 } END { exit bad }' || fail "delay_ns lines: $(cat "$H.delay_ns")"
	[ "$(sed -n 2p "$H.by_key")" = "per $1" ] || fail "by_key line 2: $(cat "$H.by_key")"
	tail -n +3 "$H.by_key" | awk '
		NF != 3 || $3 < 1 || ($2 != 0 && and($2, $2 - 1) != 0) { bad = 1 }
		$1 == key && $2 <= last { bad = 1 }
		{ if ($1 != key && seen[$1]) bad = 1; seen[$1] = 1; key = $1; last = $2 }
		END { exit bad }' || fail "by_key lines: $(cat "$H.by_key")"
}

# expect_err ERRNO-TEXT FILE VALUE: writing VALUE (echo) fails with that error.
expect_err() {
	msg=$( (echo "$3" >"$2") 2>&1) && fail "writing '$3' to $2 succeeded"
	case $msg in *"$1"*) ;; *) fail "writing '$3' to $2: '$msg', expected '$1'" ;; esac
}

# Both files empty after a reset: the headers only, since_ns moved past $1.
check_reset() {
	snap delay_ns
	[ "$(wc -l <"$H.delay_ns")" = 1 ] || fail "delay_ns after reset: $(cat "$H.delay_ns")"
	[ "$SINCE" -gt "$1" ] || fail "delay_ns since_ns $SINCE did not move past $1"
	snap by_key
	[ "$(wc -l <"$H.by_key")" = 2 ] || fail "by_key after reset: $(cat "$H.by_key")"
	[ "$SINCE" -gt "$1" ] || fail "by_key since_ns $SINCE did not move past $1"
}

vm_disk vmdisk0
D=/dev/$B
DEVNO=$(cat /sys/block/$B/dev)

tracker_load block 5 2
[ "$(cat $T/hist/per)" = none ] || fail "block per: $(cat $T/hist/per)"
expect_err "Invalid argument" $T/hist/per bogus
expect_err "Operation not supported" $T/hist/per syscall
expect_err "Invalid argument" $T/hist/reset 0
expect_err "Invalid argument" $T/hist/reset yes
echo disk >$T/hist/per || fail "per disk"
[ "$(cat $T/hist/per)" = disk ] || fail "block per: $(cat $T/hist/per)"
pass "block: per accepts disk, refuses syscall (EOPNOTSUPP) and junk (EINVAL)"

tracker_enable
dd if=$D of=/dev/null bs=4096 skip=100 count=10 iflag=direct 2>/dev/null || fail "dd read"
dd if=/dev/zero of=$D bs=4096 seek=200 count=5 oflag=direct conv=notrunc 2>/dev/null ||
	fail "dd write"
tracker_disable
snap delay_ns
since0=$SINCE
snap by_key
check_lines disk
cat "$H.by_key"
count=$(cat $T/stats/delay_count)
[ "$(delay_sum)" = "$count" ] || fail "delay_ns holds $(delay_sum), stats/delay_count $count"
[ "$(key_sum)" = "$count" ] || fail "by_key holds $(key_sum), delay_ns $count"
[ "$(key_sum "$DEVNO")" -ge 15 ] || fail "disk $DEVNO: $(key_sum "$DEVNO") of 15 requests"
pass "block: $count delays, in delay_ns and by_key, $(key_sum "$DEVNO") under $DEVNO"

cp $T/stats/delay_hist_ns $H.stats
echo 1 >$T/hist/reset || fail "reset"
check_reset "$since0"
cmp -s $T/stats/delay_hist_ns $H.stats || fail "stats/delay_hist_ns changed at a reset"
pass "block: reset empties delay_ns and by_key, moves since_ns, leaves stats/ alone"

# 20 requests/s: a request issued at once after the previous one completed waits about
# 50 ms (1 s / 20, less dd's turnaround), inside the bucket [2^25, 2^26) ns (33.6 to 67.1
# ms); only the throttle's small burst goes faster.
tracker_enable
dd if=$D of=/dev/null bs=4096 skip=1000 count=40 iflag=direct 2>/dev/null || fail "dd read"
tracker_disable
snap delay_ns
snap by_key
check_lines disk
cat "$H.by_key"
[ "$(key_sum)" = "$(delay_sum)" ] || fail "by_key holds $(key_sum), delay_ns $(delay_sum)"
[ "$(delay_sum)" = $(($(cat $T/stats/delay_count) - count)) ] ||
	fail "delay_ns holds $(delay_sum) since the reset, stats/ $count then $(cat $T/stats/delay_count)"
median=$(tail -n +3 "$H.by_key" | awk -v k="$DEVNO" -v n="$(key_sum "$DEVNO")" '
	$1 == k { c += $3; if (!m && 2 * c >= n) m = $2 } END { print m + 0 }')
[ "$median" = 33554432 ] || fail "median bucket of $DEVNO: $median, expected 33554432"
pass "block: 40 throttled reads, median bucket 2^25 ns"

echo none >$T/hist/per || fail "per none"
snap by_key
[ "$(wc -l <"$H.by_key")" = 2 ] && [ "$(sed -n 2p "$H.by_key")" = "per none" ] ||
	fail "by_key with per none: $(cat "$H.by_key")"
pass "block: per none keeps nothing by key"
rmmod latency_tracker_block || fail "rmmod latency_tracker_block"

tracker_load syscalls 2 3
expect_err "Operation not supported" $T/hist/per disk
expect_err "Invalid argument" $T/hist/per "syscall x"
echo syscall >$T/hist/per || fail "per syscall"
tracker_enable
# 1000 read(2) and 1000 write(2) calls.
dd if=/dev/zero of=/dev/null bs=1 count=1000 2>/dev/null || fail "dd"
tracker_disable
snap delay_ns
since0=$SINCE
snap by_key
check_lines syscall
count=$(cat $T/stats/delay_count)
[ "$(delay_sum)" = "$count" ] || fail "delay_ns holds $(delay_sum), stats/delay_count $count"
[ "$(key_sum)" = "$count" ] || fail "by_key holds $(key_sum), delay_ns $count"
nread=$(key_sum 0)
nwrite=$(key_sum 1)
[ "$nread" -ge 1000 ] && [ "$nwrite" -ge 1000 ] || fail "read $nread, write $nwrite calls"
keys=$(tail -n +3 "$H.by_key" | awk '{ print $1 }' | uniq | wc -l)
[ "$keys" -le 65 ] || fail "$keys keys"
pass "syscalls: $count calls in delay_ns and by_key, $keys numbers, read $nread, write $nwrite"

echo 1 >$T/hist/reset || fail "reset"
check_reset "$since0"
[ "$(cat $T/stats/delay_count)" = "$count" ] || fail "stats/delay_count changed at a reset"
pass "syscalls: reset empties delay_ns and by_key"

rmmod latency_tracker_syscalls || fail "rmmod latency_tracker_syscalls"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "hist files"
