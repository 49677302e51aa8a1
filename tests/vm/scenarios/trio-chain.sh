# A wait across two hops, three tiers (tests/vm/trio-chain is the host side; vm-pair --vms 3
# runs this in all three VMs): rpc-client on vm1 calls rpc-middle on vm2 over TCP, which
# asks rpc-server on vm3, which waits about 50 ms before it replies: on a timer (MODE
# timer) or on an O_DIRECT read of a disk qemu throttles to 20 requests/s (MODE disk).
# vm1's syscalls tracker catches the client blocked in read; the incident's snapshots (all
# three VMs') stream to the host's relayd, where latencyctl analyze --incident must follow
# the wait into vm2, then from vm2 into vm3.
# vm-options: --disk 64M:iops-total=20
. "$VM_IN/scenarios/guest-lib.sh"
[ "${VM_COUNT:-}" = 3 ] || fail "not run by vm-pair --vms 3"
. "$VM_IN/scenarios/guest-fleet-lib.sh"
mode=${1:?usage: trio-chain.sh timer|disk}

# started NAME FILE: waits for lt-rpc's "NAME=TID" line in FILE.
started() {
	i=0
	until grep -q "^$1=" "$2"; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "rpc-$1 did not start: $(cat "$2")"
		sleep 0.1
	done
}

vm_net_up
vm_link_up
# The disk first, as a server's disks are there before latencyd starts: its session then
# names it (the module's device_names).
if [ "$VM_NAME" = vm3 ] && [ "$mode" = disk ]; then
	vm_disk vmdisk0
fi
if [ "$VM_NAME" = vm1 ]; then
	fleet_start 'syscalls: { enabled = true; threshold = "30ms"; filter_comm = "rpc-client"; };' \
		'syscalls = true;'
else
	fleet_start 'syscalls: { enabled = false; };' 'syscalls = true;'
fi
vm_peer_wait 120
if [ "$VM_NAME" = vm3 ]; then
	dev=
	[ "$mode" = disk ] && dev=/dev/$B
	lt-rpc server 5432 "$mode" $dev >"$VM_OUT/server.txt" 2>&1 &
	started server "$VM_OUT/server.txt"
fi
vm_barrier backend 300
if [ "$VM_NAME" = vm2 ]; then
	lt-rpc middle 5433 10.99.1.3 5432 >"$VM_OUT/middle.txt" 2>&1 &
	started middle "$VM_OUT/middle.txt"
fi
vm_barrier ready 300
# MODE disk: the throttle lets a first burst through at once, and a client slowed past the
# threshold by the VMs' own CPU then (TCG) would be recorded with no wait on the disk in
# it. A reader of its own keeps the throttle's bucket empty, so that every request of the
# server waits on the disk.
if [ "$VM_NAME" = vm3 ] && [ "$mode" = disk ]; then
	dd if=/dev/$B of=/dev/null iflag=direct bs=4096 count=100000 2>/dev/null &
	DRAIN=$!
fi
sleep 1 # some history in every buffer

if [ "$VM_NAME" = vm1 ]; then
	# Past the throttle's first burst (MODE disk), each request waits about 50 ms.
	lt-rpc client 10.99.0.2 5433 10 >"$VM_OUT/client.txt" || fail "rpc-client: $(cat "$VM_OUT/client.txt")"
	cat "$VM_OUT/client.txt"
fi
fleet_recorded vm1
pass "$VM_NAME recorded incident $INCIDENT ($mode) to lttng-relayd"
[ -n "${DRAIN:-}" ] && kill "$DRAIN" 2>/dev/null
vm_barrier done 300
