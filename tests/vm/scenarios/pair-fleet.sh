# The fleet on two kernels (tests/vm/vm-pair runs this on both VMs; tests/vm/pair-fleet is
# the host side): a mosquitto broker and an lttng-relayd on the host's 127.0.0.1, reached
# only through guestfwd as 10.0.2.100:1883 and :5342/:5343. vm1's syscalls tracker catches
# a real 200 ms nanosleep; its snapshot is published as incident vm1-1 and vm2 records its
# own kernel history of that moment; both snapshots stream to the relayd. The host then
# finds both in relayd's tree and analyses the incident.
. "$VM_IN/scenarios/lib.sh"
[ -n "${VM_NAME:-}" ] || fail "not run by vm-pair"
D=/tmp/latencyd
mkdir -p $D

vm_net_up
vm_link_up
enabled=false
[ "$VM_NAME" = vm1 ] && enabled=true
cat >$D/latencyd.conf <<CONF
control: { socket = "$D/ctl.sock"; };
session: { subbuf_size = 262144; num_subbuf = 4; };
output: { directory = "$D/snapshots"; relayd = "net://$VM_HOST:5342:5343"; fallback_local = false; };
catalog: { directory = "$D"; };
analysis: { auto = false; };
fleet: { enabled = true; broker = "mqtt://$VM_HOST:1883"; host = "$VM_NAME"; group = "vmpair"; };
trackers: { syscalls: { enabled = $enabled; threshold = "100ms"; filter_comm = "usleep"; }; };
CONF
latencyd --check-config $D/latencyd.conf || fail "--check-config"
start_sessiond
latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
wait_recording $D/latencyd.log $D/ctl.sock
i=0
until latencyctl -s $D/ctl.sock --json status | grep -q '"connected": *true'; do
	i=$((i + 1))
	[ $i -lt 300 ] || { cat $D/latencyd.log; fail "not connected to the broker"; }
	sleep 0.1
done
pass "$VM_NAME: kernel session recording, connected to the broker through $VM_HOST:1883"
vm_barrier ready 300
sleep 1 # some history in both buffers

# The incident: vm1's first snapshot, vm1-1.
[ "$VM_NAME" = vm1 ] && usleep 200000
i=0
until grep -q '"incident": *"vm1-1"' $D/catalog.json 2>/dev/null &&
	grep -q '"status": *"complete"' $D/catalog.json; do
	i=$((i + 1))
	[ $i -lt 600 ] || { cat $D/latencyd.log; fail "no snapshot of incident vm1-1"; }
	sleep 0.1
done
cp $D/catalog.json $D/latencyd.log "$VM_OUT/"
latencyctl -s $D/ctl.sock list-snapshots --incident vm1-1 | tee "$VM_OUT/list.txt"
if [ "$VM_NAME" = vm1 ]; then
	grep -q '"comm": *"usleep"' $D/catalog.json || fail "vm1's cause is not usleep"
else
	grep -q '"reason": *"peer"' $D/catalog.json || fail "vm2's cause is not vm1's alert"
	grep -q '"origin": *"vm1"' $D/catalog.json || fail "vm2's cause does not name vm1"
fi
pass "$VM_NAME recorded incident vm1-1 to lttng-relayd"
# The results (recorded) reach the other host: each knows both recorded.
i=0
until latencyctl -s $D/ctl.sock incidents | grep -q 'vm1, vm2'; do
	i=$((i + 1))
	[ $i -lt 300 ] || { latencyctl -s $D/ctl.sock incidents; fail "incidents do not list vm1, vm2"; }
	sleep 0.1
done
latencyctl -s $D/ctl.sock incidents | tee "$VM_OUT/incidents.txt"
vm_barrier done 300
