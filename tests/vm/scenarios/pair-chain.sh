# The wait that crosses hosts (tests/vm/pair-chain is the host side): rpc-client on vm1
# sends a request over TCP, on the private link, to rpc-server on vm2, which waits about
# 50 ms before it replies: on a timer (MODE timer) or on an O_DIRECT read of a disk qemu
# throttles to 20 requests/s (MODE disk); or over UDP, on a timer, over IPv4 (MODE udp: the
# IP ids tell the replies apart) or over IPv6 (MODE udp6, addresses fd99::1 and fd99::2 on
# the link: the replies, all of one length, are alike). vm1's syscalls tracker catches the client blocked
# in read; the incident's snapshots (vm1's and vm2's) stream to the host's relayd, where
# latencyctl analyze --incident must follow the wait into vm2.
# vm-options: --disk 64M:iops-total=20
. "$VM_IN/scenarios/guest-lib.sh"
[ -n "${VM_NAME:-}" ] || fail "not run by vm-pair"
. "$VM_IN/scenarios/guest-fleet-lib.sh"
mode=${1:?usage: pair-chain.sh timer|disk|udp|udp6}

vm_net_up
vm_link_up
peer=$VM_PEER_ADDR
if [ "$mode" = udp6 ]; then
	# A unique local address on the link only; no duplicate detection to wait for.
	echo 0 >/proc/sys/net/ipv6/conf/$VM_LINK_IF/accept_dad
	ip -6 addr add fd99::$VM_INDEX/64 dev $VM_LINK_IF || fail "fd99::$VM_INDEX on $VM_LINK_IF"
	peer=fd99::$((3 - VM_INDEX))
fi
if [ "$VM_NAME" = vm1 ]; then
	fleet_start 'syscalls: { enabled = true; threshold = "30ms"; filter_comm = "rpc-client"; };' \
		'syscalls = true;'
else
	fleet_start 'syscalls: { enabled = false; };' 'syscalls = true;'
	dev=
	if [ "$mode" = disk ]; then
		vm_disk vmdisk0
		dev=/dev/$B
	fi
	case $mode in
	udp*) lt-rpc udp-server 5432 >"$VM_OUT/server.txt" 2>&1 & ;;
	*) lt-rpc server 5432 "$mode" $dev >"$VM_OUT/server.txt" 2>&1 & ;;
	esac
	i=0
	until grep -q '^server=' "$VM_OUT/server.txt"; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "rpc-server did not start: $(cat "$VM_OUT/server.txt")"
		sleep 0.1
	done
fi
vm_peer_wait 120
vm_barrier ready 300
sleep 1 # some history in both buffers

if [ "$VM_NAME" = vm1 ]; then
	# Ten requests: the throttled disk lets its first ones through at once (a run of
	# 2026-11-24 had all of four served in 65 ms, none over the threshold); past that burst
	# each waits about 50 ms, 20 reads a second.
	case $mode in
	udp*) how=udp-client ;;
	*) how=client ;;
	esac
	lt-rpc $how "$peer" 5432 10 >"$VM_OUT/client.txt" || fail "rpc-client: $(cat "$VM_OUT/client.txt")"
	cat "$VM_OUT/client.txt"
fi
fleet_recorded vm1
pass "$VM_NAME recorded incident $INCIDENT ($mode) to lttng-relayd"
vm_barrier done 300
