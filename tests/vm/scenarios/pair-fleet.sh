# The fleet on two kernels (tests/vm/vm-pair runs this on both VMs; tests/vm/pair-fleet is
# the host side): a mosquitto broker and an lttng-relayd on the host's 127.0.0.1, reached
# only through guestfwd as 10.0.2.100:8883 (TLS, client certificates) and :5342/:5343. vm1's syscalls tracker catches
# a real 200 ms nanosleep; its snapshot is published as an incident of vm1 and vm2 records its
# own kernel history of that moment; both snapshots stream to the relayd. The host then
# finds both in relayd's tree and analyses the incident.
. "$VM_IN/scenarios/guest-lib.sh"
[ -n "${VM_NAME:-}" ] || fail "not run by vm-pair"
. "$VM_IN/scenarios/guest-fleet-lib.sh"

vm_net_up
vm_link_up
enabled=false
[ "$VM_NAME" = vm1 ] && enabled=true
# Over TLS, known to the broker by this VM's certificate: the key readable by the fleet
# process's group only, as the README says.
pki=$VM_OUT/pki
[ -d "$pki" ] || pki=$VM_OUT/first-attempt/pki # a first boot that panicked moved it
mkdir -p /etc/latencyd
cp "$pki/ca.crt" "$pki/$VM_NAME.crt" "$pki/$VM_NAME.key" /etc/latencyd/ || fail "no PKI in $pki"
if grep -q '^_latencyd:' /etc/passwd; then fleet_user=_latencyd; else fleet_user=nobody; fi
chown root:"$(id -gn $fleet_user)" /etc/latencyd/$VM_NAME.key
chmod 640 /etc/latencyd/$VM_NAME.key
FLEET_PKI=/etc/latencyd fleet_start "syscalls: { enabled = $enabled; threshold = \"100ms\"; filter_comm = \"usleep\"; };"
# Root parses nothing from the network: latencyd-fleet does, as fleet_user, no capability.
helper=$(pidof latencyd-fleet) || fail "no latencyd-fleet process"
grep -q "^Uid:[[:space:]]*$(id -u $fleet_user)[[:space:]]" /proc/$helper/status &&
	grep -q '^CapEff:[[:space:]]*0000000000000000' /proc/$helper/status &&
	grep -q '^CapBnd:[[:space:]]*0000000000000000' /proc/$helper/status ||
	fail "latencyd-fleet: $(grep -E '^(Uid|CapEff|CapBnd)' /proc/$helper/status)"
grep -q libssl /proc/$helper/maps && ! grep -q 'libssl\|libmosquitto' /proc/$(pidof latencyd)/maps ||
	fail "TLS and MQTT libraries are not latencyd-fleet's alone"
pass "$VM_NAME: latencyd-fleet (pid $helper) runs as $fleet_user with no capability; latencyd maps no MQTT or TLS library"
vm_barrier ready 300
sleep 1 # some history in both buffers

# The incident: vm1's first snapshot.
[ "$VM_NAME" = vm1 ] && usleep 200000
fleet_recorded vm1
latencyctl -s $D/ctl.sock list-snapshots --incident "$INCIDENT" | tee "$VM_OUT/list.txt"
if [ "$VM_NAME" = vm1 ]; then
	grep -q '"comm": *"usleep"' $D/catalog.json || fail "vm1's cause is not usleep"
else
	grep -q '"reason": *"peer"' $D/catalog.json || fail "vm2's cause is not vm1's alert"
	grep -q '"origin": *"vm1"' $D/catalog.json || fail "vm2's cause does not name vm1"
fi
pass "$VM_NAME recorded incident $INCIDENT to lttng-relayd"
# vm2's result reaches the origin: vm1 knows both recorded, vm2 what it did itself.
want=vm2
[ "$VM_NAME" = vm1 ] && want='vm1, vm2'
i=0
until latencyctl -s $D/ctl.sock incidents | grep -q "$INCIDENT .* $want "; do
	i=$((i + 1))
	[ $i -lt 300 ] || { latencyctl -s $D/ctl.sock incidents; fail "the incident does not list $want"; }
	sleep 0.1
done
latencyctl -s $D/ctl.sock incidents | tee "$VM_OUT/incidents.txt"
vm_barrier done 300
