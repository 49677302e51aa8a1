# Sourced in the guest, after guest-lib.sh, by the pair-*.sh fleet scenarios (vm-pair runs
# them in both VMs; their host side is tests/vm/host-pair-lib.sh): latencyd with the fleet
# on, reaching the host's mosquitto (10.0.2.100:1883) and lttng-relayd (:5342/:5343) only
# through guestfwd.
D=/tmp/latencyd

# fleet_start TRACKERS [SESSION]: "trackers: { TRACKERS };" of latencyd.conf, SESSION more
# session settings. Returns once the kernel session records and the broker is connected.
# With FLEET_PKI (a directory with ca.crt, VM_NAME.crt and .key), over TLS at :8883 with
# this VM's client certificate.
fleet_start() {
	local broker="broker = \"mqtt://$VM_HOST:1883\";"
	[ -n "${FLEET_PKI:-}" ] &&
		broker="broker = \"mqtts://$VM_HOST:8883\"; ca_file = \"$FLEET_PKI/ca.crt\";
	cert_file = \"$FLEET_PKI/$VM_NAME.crt\"; key_file = \"$FLEET_PKI/$VM_NAME.key\";"
	mkdir -p $D
	cat >$D/latencyd.conf <<CONF
control: { socket = "$D/ctl.sock"; };
session: { subbuf_size = 262144; num_subbuf = 4; ${2:-} };
output: { directory = "$D/snapshots"; relayd = "net://$VM_HOST:5342:5343"; fallback_local = false; };
catalog: { directory = "$D"; };
analysis: { auto = false; };
fleet: { enabled = true; $broker host = "$VM_NAME"; group = "vmpair"; };
trackers: { $1 };
CONF
	latencyd --check-config $D/latencyd.conf || fail "--check-config"
	start_sessiond
	latencyd -c $D/latencyd.conf 2>$D/latencyd.log &
	wait_recording $D/latencyd.log $D/ctl.sock
	local i=0
	until latencyctl -s $D/ctl.sock --json status | grep -q '"connected": *true'; do
		i=$((i + 1))
		[ $i -lt 300 ] || { cat $D/latencyd.log; fail "not connected to the broker"; }
		sleep 0.1
	done
	pass "$VM_NAME: kernel session recording, connected to the broker through $VM_HOST${FLEET_PKI:+ over TLS}"
}

# fleet_recorded ORIGIN: waits for this host's complete snapshot of an incident of ORIGIN
# (ORIGIN-N: N is the origin catalog's incident_base + its snapshot id), sets INCIDENT to
# it, keeps the catalog and log in the results.
fleet_recorded() {
	local i=0
	until INCIDENT=$(grep -o "\"incident\": *\"$1-[0-9]*\"" $D/catalog.json 2>/dev/null |
		head -1 | sed 's/.*"\([^"]*\)"$/\1/') && [ -n "$INCIDENT" ] &&
		grep -q '"status": *"complete"' $D/catalog.json; do
		i=$((i + 1))
		[ $i -lt 600 ] || { cat $D/latencyd.log; fail "no snapshot of an incident of $1"; }
		sleep 0.1
	done
	cp $D/catalog.json $D/latencyd.log "$VM_OUT/"
}
