# Three VMs in a chain (tests/vm/vm-pair --vms 3, all three run this): vm1-vm2 and vm2-vm3
# are two point-to-point links; each VM pings its neighbours by name, vm2 both; vm1 and vm3
# do not reach each other (nothing routes between the links); the barrier holds all three.
. "$VM_IN/scenarios/guest-lib.sh"
[ "${VM_COUNT:-}" = 3 ] || fail "not run by vm-pair --vms 3"
[ "$(hostname)" = "$VM_NAME" ] || fail "hostname $(hostname), not $VM_NAME"

vm_net_up
vm_link_up
want=$((VM_INDEX == 2 ? 2 : 1))
[ "$(echo $VM_LINKS | wc -w)" = $want ] || fail "$VM_NAME has links '$VM_LINKS', expected $want"
vm_peer_wait 120
for l in $VM_LINKS; do
	peer=$(echo "$l" | cut -d, -f3)
	ping -c 2 -W 2 "$peer" >/tmp/ping.log 2>&1 || { cat /tmp/ping.log; fail "ping $peer"; }
done
pass "$VM_NAME pings its neighbours: $(echo $VM_LINKS | tr ' ' '\n' | cut -d, -f3 | tr '\n' ' ')"

case $VM_NAME in
vm1) far=10.99.1.3 ;;
vm3) far=10.99.0.1 ;;
*) far= ;;
esac
if [ -n "$far" ]; then
	ping -c 1 -W 2 "$far" >/dev/null 2>&1 && fail "$VM_NAME reaches $far across vm2"
	pass "$VM_NAME does not reach $far: nothing routes between the links"
fi

vm_barrier ready 300
t=$(date +%s)
[ "$VM_NAME" = vm3 ] && sleep 5 # the others must wait for it
vm_barrier done 300
[ "$VM_NAME" = vm3 ] || [ $(($(date +%s) - t)) -ge 4 ] ||
	fail "$VM_NAME left the barrier before vm3 came"
pass "the barrier held all three VMs"
