#!/bin/bash
# A tracker's filter_cgroup written as a path follows the cgroup at that path: a service
# restarted by systemd gets a new cgroup, a new id, at the same path, and the kernel filters
# on the id. The real latencyd on a real cgroup v2 tree (mkdir and rmdir as systemd does
# them), its trackers in a fake sysfs (LATENCYD_TEST_SYSFS_ROOT): the module's side of the
# id is tested in the VM (trackers-cgroup).
set -u
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: must run as root (makes cgroups)"; exit 77; }
ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$ROOT" ]; then
	ROOT=$T/cgroup2
	mkdir -p "$ROOT" && mount -t cgroup2 none "$ROOT" || fail "no cgroup v2 mounted, none mountable"
	UNMOUNT=$ROOT
fi
CG=$ROOT/latencyd-test-$$
CG2=$ROOT/latencyd-test2-$$
remove_cgroups() {
	rmdir "$CG2/payload" "$CG" "$CG2" 2>/dev/null
	[ -n "${UNMOUNT:-}" ] && umount "$UNMOUNT"
	cleanup
}
trap remove_cgroups EXIT
mkdir "$CG" "$CG2" || fail "mkdir $CG $CG2"
id_of() { stat -c %i "$1"; }

fake_sysfs 1.3 offcpu wakeup
SOCK=$T/ctl.sock
write_conf <<CONF
control: { socket = "$SOCK"; save_file = "$T/saved.conf"; };
session: { enabled = false; };
trackers: {
	offcpu: { enabled = true; filter_cgroup = "$CG"; };
	wakeup: { enabled = true; filter_cgroup = "12345"; };
};
CONF
LATENCYD_TEST_SYSFS_ROOT=$T/sys start_daemon -c "$T/latencyd.conf"
held() { cat "$S/$1/filter_cgroup_id"; }
[ "$(held offcpu)" = "$(id_of "$CG")" ] || fail "offcpu's filter: $(held offcpu), expected $(id_of "$CG")"
[ "$(held wakeup)" = 12345 ] || fail "wakeup's filter: $(held wakeup)"
pass "a path resolved at start"

old=$(id_of "$CG")
rmdir "$CG"
wait_for 50 grep -q "trackers.offcpu.filter_cgroup: .*the filter matches nothing" "$T/latencyd.log" ||
	fail "the removed cgroup not said"
mkdir "$CG"
new=$(id_of "$CG")
[ "$new" != "$old" ] || fail "the cgroup made again has the same id $new"
wait_for 50 sh -c "[ \"\$(cat '$S/offcpu/filter_cgroup_id')\" = $new ]" ||
	fail "the filter did not follow the cgroup made again: $(held offcpu), expected $new"
grep -q "tracker offcpu: cgroup $CG was made again (id $new, was $old)" "$T/latencyd.log" ||
	fail "the new id not said"
[ "$(held wakeup)" = 12345 ] || fail "a filter by id changed: $(held wakeup)"
pass "a service's cgroup made again: the filter follows it, a filter by id stays"

# Changed at run time (as latencyctl filter does): that one stays.
echo 777 >"$S/offcpu/filter_cgroup_id"
rmdir "$CG" && mkdir "$CG"
mkdir "$ROOT/latencyd-test-$$-sibling" && rmdir "$ROOT/latencyd-test-$$-sibling"
sleep 0.5
[ "$(held offcpu)" = 777 ] || fail "a filter set at run time overwritten: $(held offcpu)"
pass "a filter changed at run time is left alone"

# A reload to another path: that one is followed (the run-time filter is replaced by the
# reload's change, as for every setting a reload changes).
sed -i "s|filter_cgroup = \"$CG\"|filter_cgroup = \"$CG2\"|" "$T/latencyd.conf"
hup
[ "$(held offcpu)" = "$(id_of "$CG2")" ] || fail "reload: $(held offcpu), expected $(id_of "$CG2")"
rmdir "$CG2" && mkdir "$CG2"
wait_for 50 sh -c "[ \"\$(cat '$S/offcpu/filter_cgroup_id')\" = $(id_of "$CG2") ]" ||
	fail "after the reload the filter did not follow $CG2: $(held offcpu)"
pass "after a reload, the new path is followed"

# A path under a cgroup that goes and comes back (a delegated service's own tree, a user's
# slice at each login): followed all the same, its parent made again first.
NEST=$CG2/payload
mkdir "$NEST" || fail "mkdir $NEST"
sed -i "s|filter_cgroup = \"$CG2\"|filter_cgroup = \"$NEST\"|" "$T/latencyd.conf"
hup
[ "$(held offcpu)" = "$(id_of "$NEST")" ] || fail "reload: $(held offcpu), expected $(id_of "$NEST")"
rmdir "$NEST" "$CG2"
sleep 0.2
mkdir "$CG2" && mkdir "$NEST"
wait_for 50 sh -c "[ \"\$(cat '$S/offcpu/filter_cgroup_id')\" = $(id_of "$NEST") ]" ||
	fail "the filter did not follow $NEST, its parent made again: $(held offcpu), expected $(id_of "$NEST")"
rmdir "$NEST" && mkdir "$NEST"
wait_for 50 sh -c "[ \"\$(cat '$S/offcpu/filter_cgroup_id')\" = $(id_of "$NEST") ]" ||
	fail "the filter did not follow $NEST made again after: $(held offcpu)"
# Siblings made and removed by the hundred, then the path made again: still followed.
for i in $(seq 100); do mkdir "$CG2/sib$i" && rmdir "$CG2/sib$i"; done
rmdir "$NEST" && mkdir "$NEST"
wait_for 50 sh -c "[ \"\$(cat '$S/offcpu/filter_cgroup_id')\" = $(id_of "$NEST") ]" ||
	fail "the filter did not follow $NEST after its siblings came and went: $(held offcpu)"
kill -0 "$DAEMON_PID" || fail "latencyd died"
pass "a path whose parent is made again is followed, and after siblings by the hundred"
sed -i "s|filter_cgroup = \"$NEST\"|filter_cgroup = \"$CG2\"|" "$T/latencyd.conf"
hup
rmdir "$NEST"

# latencyctl filter --save: the path saved is part of the configuration, followed too; one
# not saved is resolved once.
run "$LATENCYCTL" -s "$SOCK" filter offcpu --cgroup "$CG" --save
expect_rc 0 "filter --cgroup --save"
[ "$(held offcpu)" = "$(id_of "$CG")" ] || fail "filter --save: $(held offcpu)"
rmdir "$CG" && mkdir "$CG"
wait_for 50 sh -c "[ \"\$(cat '$S/offcpu/filter_cgroup_id')\" = $(id_of "$CG") ]" ||
	fail "a saved path not followed: $(held offcpu), expected $(id_of "$CG")"
run "$LATENCYCTL" -s "$SOCK" filter offcpu --cgroup "$CG2"
expect_rc 0 "filter --cgroup (runtime only)"
runtime=$(id_of "$CG2")
rmdir "$CG2" && mkdir "$CG2"
rmdir "$CG" && mkdir "$CG"
sleep 0.5
[ "$(held offcpu)" = "$runtime" ] || fail "a runtime filter replaced: $(held offcpu), expected $runtime"
pass "a path saved by latencyctl filter --save is followed; a runtime one is not replaced"

stop_daemon TERM
expect_rc 0 "latencyd after SIGTERM"
