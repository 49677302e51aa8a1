# Issue #17: filter_cgroup_id matches the cgroup and every cgroup below it, on a real
# cgroup v2 tree. With the filter on /sys/fs/cgroup/svc, app markers (begin/end around a
# 50 ms sleep, over a 10 ms threshold) written by a task in svc/child and in svc alert;
# from the root cgroup, from a sibling svc2 (same depth, other id) and, with the filter on
# svc/child, from its parent svc, they do not. An id that is no cgroup fails with ENOENT
# and leaves the filter as it was; 0 clears it.
. "$VM_IN/scenarios/guest-lib.sh"

CG=/sys/fs/cgroup
grep -q "^cgroup2 $CG " /proc/mounts || mount -t cgroup2 cgroup2 $CG || fail "mount cgroup2"
mkdir -p $CG/svc/child $CG/svc/child/deeper $CG/svc2 || fail "mkdir cgroups"
cgid() { stat -c %i "$CG/$1"; }

tracker_load app 8 0
D=/dev/latency_tracker_app
wait_for $D 50 || fail "no $D"
echo 10000000 >$T/threshold_ns || fail "threshold_ns"
tracker_enable

# marker EXPECT COOKIE CGROUP: a new shell moved into CGROUP ("" = the root) writes begin
# and end around a 50 ms sleep; EXPECT alerts of COOKIE must come.
marker() {
	m=$(lt-dump -n) || fail "lt-dump -n"
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 1
		[ "$(cat /proc/self/cgroup)" = "0::/${2#/}" ] || { echo "in $(cat /proc/self/cgroup)"; exit 1; }
		echo "begin $3" >/dev/latency_tracker_app && sleep 0.05 &&
		echo "end $3" >/dev/latency_tracker_app' marker "$CG/$3" "$3" "$2" ||
		fail "marker $2 from cgroup /$3"
	wait_ms=1000
	[ "$1" = 0 ] && wait_ms=300
	n=$(lt-dump -f "$m" -t app -w $wait_ms | grep -c " cookie=$2\$")
	[ "$n" = "$1" ] || fail "cookie $2 from cgroup /$3: $n alerts, expected $1"
}

marker 1 nofilter svc/child
pass "no filter: an alert from svc/child"

id=$(cgid svc)
echo "$id" >$T/filter_cgroup_id || fail "filter_cgroup_id $id"
[ "$(cat $T/filter_cgroup_id)" = "$id" ] || fail "filter_cgroup_id reads $(cat $T/filter_cgroup_id)"
marker 1 inchild svc/child
marker 1 indeeper svc/child/deeper
marker 1 insvc svc
pass "filter svc: the tasks of svc, svc/child and svc/child/deeper alert"

marker 0 inroot ""
marker 0 insibling svc2
pass "filter svc: the root cgroup and the sibling svc2 do not"

# An id that names no cgroup (a fresh VM has a few hundred).
bogus=999999999
[ -z "$(find $CG -type d -inum $bogus)" ] || fail "a cgroup has id $bogus"
if echo "$bogus" >$T/filter_cgroup_id 2>/tmp/err; then fail "filter_cgroup_id $bogus accepted"; fi
grep -qi "no such file" /tmp/err || fail "filter_cgroup_id $bogus: $(cat /tmp/err), expected ENOENT"
[ "$(cat $T/filter_cgroup_id)" = "$id" ] || fail "a refused id changed the filter"
pass "an id of no cgroup fails with ENOENT and changes nothing"

echo "$(cgid svc/child)" >$T/filter_cgroup_id || fail "filter_cgroup_id svc/child"
marker 1 child2 svc/child/deeper
marker 0 parent svc
pass "filter svc/child: its descendant alerts, its parent svc does not"

echo 0 >$T/filter_cgroup_id || fail "clear filter_cgroup_id"
marker 1 cleared ""
pass "filter cleared: the root cgroup alerts again"

# A removed cgroup's id matches nothing, and its id is refused from then on.
echo "$(cgid svc/child/deeper)" >$T/filter_cgroup_id || fail "filter deeper"
gone=$(cgid svc/child/deeper)
rmdir $CG/svc/child/deeper || fail "rmdir deeper"
marker 0 afterrm svc/child
if echo "$gone" >$T/filter_cgroup_id 2>/dev/null; then fail "the id of a removed cgroup accepted"; fi
echo 0 >$T/filter_cgroup_id

tracker_disable
rmmod latency_tracker_app || fail "rmmod latency_tracker_app"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "cgroup filter"
