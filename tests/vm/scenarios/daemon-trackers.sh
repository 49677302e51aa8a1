# latencyd configures the trackers from /etc/latencyd.conf on the real kernel: it loads
# every tracker module (disabled ones register no probe), writes trackers.* to sysfs, an
# app marker around a 60 ms sleep becomes a snapshot, latencyctl set-threshold syscalls 5ms
# reaches the kernel, a reload changes only what the edit changed, list-snapshots --tracker
# finds the snapshot, a filter_cgroup given as a path follows its cgroup made again (a
# service restarted), and SIGTERM unloads every module latencyd loaded.
. "$VM_IN/scenarios/guest-lib.sh"

D=/tmp/latencyd
S=/sys/kernel/latency_tracker
CG=/sys/fs/cgroup
grep -q "^cgroup2 $CG " /proc/mounts || mount -t cgroup2 cgroup2 $CG || fail "mount cgroup2"
mkdir -p $CG/svc || fail "mkdir $CG/svc"
conf_base 'trackers: {
	app: { enabled = true; threshold = "20ms"; };
	syscalls: { threshold = "250ms"; filter_comm = "nosuchtask"; max_keys = 256; };
	offcpu: { filter_cgroup = "svc"; };
};'
ctl() { latencyctl -s $D/ctl.sock "$@"; }

start_sessiond
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
LPID=$!
wait_recording $D/latencyd.log $D/ctl.sock
for t in syscalls wakeup offcpu block irq net app fs iosched; do
	[ -d /sys/module/latency_tracker_$t ] || fail "latencyd did not load latency_tracker_$t"
done
[ "$(cat $S/app/enabled)" = 1 ] || fail "app not enabled"
[ "$(cat $S/app/threshold_ns)" = 20000000 ] || fail "app threshold $(cat $S/app/threshold_ns)"
[ "$(cat $S/syscalls/enabled)" = 0 ] || fail "syscalls enabled"
[ "$(cat $S/syscalls/threshold_ns)" = 250000000 ] || fail "syscalls threshold"
[ "$(cat $S/syscalls/filter_comm)" = nosuchtask ] || fail "syscalls filter_comm"
[ "$(cat $S/syscalls/max_keys)" = 256 ] || fail "syscalls max_keys $(cat $S/syscalls/max_keys)"
[ "$(grep -c ' 1$' $S/wakeup/probes)" = 0 ] || fail "disabled wakeup has probes: $(cat $S/wakeup/probes)"
ctl trackers | tee "$VM_OUT/trackers.txt"
pass "every tracker module loaded; trackers.* written to sysfs; disabled ones cost nothing"

sleep 0.5 # some history before the latency
echo "begin req7" >/dev/latency_tracker_app || fail "begin"
usleep 60000
echo "end req7" >/dev/latency_tracker_app || fail "end"
i=0
until ctl --json list-snapshots --tracker app 2>/dev/null | grep -q '"status": *"complete"'; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat $D/latencyd.log; fail "no app snapshot"; }
	sleep 0.1
done
ctl list-snapshots | tee "$VM_OUT/snapshots.txt"
grep -q "app pid [0-9]* (sh)" "$VM_OUT/snapshots.txt" || fail "list-snapshots does not show the app cause"
pass "an app marker around a 60 ms sleep: a snapshot, found by list-snapshots --tracker app"

ctl set-threshold syscalls 5ms || fail "set-threshold syscalls 5ms"
[ "$(cat $S/syscalls/threshold_ns)" = 5000000 ] || fail "set-threshold did not reach the kernel"
sed -i 's/threshold = "20ms"/threshold = "30ms"/' $D/latencyd.conf
kill -HUP $LPID
i=0
until [ "$(cat $S/app/threshold_ns)" = 30000000 ]; do
	i=$((i + 1))
	[ $i -lt 50 ] || { cat $D/latencyd.log; fail "reload did not apply app.threshold"; }
	sleep 0.1
done
[ "$(cat $S/syscalls/threshold_ns)" = 5000000 ] || fail "the reload reset syscalls' threshold"
pass "set-threshold syscalls 5ms reaches the kernel; a reload writes only what changed"

[ "$(cat $S/offcpu/filter_cgroup_id)" = "$(stat -c %i $CG/svc)" ] ||
	fail "offcpu filter_cgroup_id $(cat $S/offcpu/filter_cgroup_id), svc is $(stat -c %i $CG/svc)"
rmdir $CG/svc && mkdir $CG/svc || fail "svc made again"
i=0
until [ "$(cat $S/offcpu/filter_cgroup_id)" = "$(stat -c %i $CG/svc)" ]; do
	i=$((i + 1))
	[ $i -lt 50 ] || { cat $D/latencyd.log; fail "the filter did not follow svc made again"; }
	sleep 0.1
done
pass "filter_cgroup = \"svc\": the kernel's filter follows svc made again"

kill -TERM $LPID
wait $LPID || { cat $D/latencyd.log; fail "latencyd exited with $?"; }
cp $D/latencyd.log $D/catalog.json "$VM_OUT/"
for t in latency_tracker_app latency_tracker_syscalls latency_tracker; do
	[ ! -d /sys/module/$t ] || fail "latencyd did not unload $t"
done
pass "SIGTERM: latencyd unloaded every module it loaded"
