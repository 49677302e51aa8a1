# Two VMs (tests/vm/vm-pair, both run this): they ping each other over the private link,
# each reaches a host service through its guestfwd, and nothing else of the host or beyond.
# Run as: vm-pair --forward 8080:HOSTPORT pair-net.sh HOSTPORT, where a TCP server on the
# host's 127.0.0.1:HOSTPORT answers "host got LINE" to a LINE (the ctest vm-pair-net).
. "$VM_IN/scenarios/guest-lib.sh"
hostport=$1
[ -n "${VM_NAME:-}" ] || fail "not run by vm-pair"
[ "$(hostname)" = "$VM_NAME" ] || fail "hostname $(hostname), not $VM_NAME"

# The daemon the fleet tests will run and its MQTT process: their libraries are here, and
# libmosquitto is the unprivileged process's only.
for p in latencyd latencyd-fleet; do
	libs=$(/lib64/ld-linux-x86-64.so.2 --list /usr/bin/$p) || fail "$p's libraries: $libs"
	echo "$libs" | grep 'not found' && fail "$p misses a library"
done
echo "$libs" | grep -q libmosquitto || fail "latencyd-fleet does not link libmosquitto"
/lib64/ld-linux-x86-64.so.2 --list /usr/bin/latencyd | grep -q libmosquitto && fail "latencyd links libmosquitto"
pass "latencyd and latencyd-fleet find their libraries; libmosquitto is latencyd-fleet's only"

vm_net_up
vm_link_up
ip route | grep '^default' && fail "a default route"
pass "$VM_NAME: $VM_HOST_IF 10.0.2.15 (host), $VM_LINK_IF $VM_LINK_ADDR (link), no default route"

vm_peer_wait 120
ping -c 3 -W 2 "$VM_PEER" >/tmp/ping.log 2>&1 || { cat /tmp/ping.log; fail "ping $VM_PEER"; }
pass "$VM_NAME pings $VM_PEER ($VM_PEER_ADDR) over the link"

# Two connections in a row: each is its own connection on the host (a reconnecting client).
for n in 1 2; do
	got=$(echo "$VM_NAME-$n" | timeout 20 nc -w 5 "$VM_HOST" 8080 2>&1)
	[ "$got" = "host got $VM_NAME-$n" ] || fail "host service through $VM_HOST:8080, connection $n: '$got'"
done
pass "$VM_NAME reaches the host service at $VM_HOST:8080, twice"

# Nothing else answers: the same host service by the host's own address on the user network,
# a port of $VM_HOST that is not forwarded, the host's ssh, and (with a route out) the world.
unreachable() {
	got=$(timeout 15 nc -w 5 "$1" "$2" </dev/null 2>&1) && fail "$1:$2 answered ('$got')"
	echo "$got" | grep -q 'host got' && fail "$1:$2 reached the host service"
	echo "$VM_NAME: $1:$2 unreachable: $got"
}
unreachable 10.0.2.2 "$hostport"
unreachable "$VM_HOST" 8081
unreachable 10.0.2.2 22
ip route add default via 10.0.2.2 dev "$VM_HOST_IF" || fail "ip route add default"
unreachable 8.8.8.8 53
unreachable 10.0.2.3 53
ip route del default
pass "$VM_NAME reaches nothing else (restrict=on)"

vm_barrier end 120
pass "$VM_NAME and $VM_PEER both done"
