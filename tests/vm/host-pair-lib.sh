# Sourced on the host, after host-lib.sh, by the host sides of the fleet's two-VM tests
# (pair-fleet, pair-chain): a mosquitto broker and an lttng-relayd on 127.0.0.1 (free
# ports), stopped and removed at exit, and vm-pair run with the guestfwd forwards the
# scenarios' guest-fleet-lib.sh expects.
command -v mosquitto >/dev/null || { echo "${0##*/}: mosquitto is not installed"; exit 77; }
latencyctl=$BUILD_DIR/client/latencyctl
work=$(mktemp -d "${TMPDIR:-/tmp}/${0##*/}.XXXXXX")
pids=()
# "|| true": under set -e, a service that died already would end the trap before the rest.
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
# first_incident RELAYD_OUT ORIGIN: the incident ORIGIN's first snapshot opened (ORIGIN-N,
# N its catalog's incident_base + 1), from the snapshot's name in relayd's tree.
first_incident() {
	find "$1/$2" -maxdepth 2 -type d -name "snap-1-$2-*@$2-*" | head -1 |
		sed "s|.*/snap-1-\($2-[0-9]*\)@.*|\1|"
}

# pair_pki OUT: a CA, the broker's certificate for 10.0.2.100 (where the guests reach it)
# and a client certificate per VM (CN = its fleet name), made here with openssl, never
# kept; each VM finds the CA and its own pair in its $VM_OUT/pki.
pair_pki() {
	local p=$work/pki n
	mkdir -p "$p"
	key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$p/$1.key"; }
	cert() { # NAME CN EXTENSION
		key "$1" && openssl req -new -key "$p/$1.key" -subj "/CN=$2" -out "$p/$1.csr" &&
			printf '%s\n' "$3" >"$p/$1.ext" &&
			openssl x509 -req -in "$p/$1.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" \
				-CAcreateserial -days 2 -extfile "$p/$1.ext" -out "$p/$1.crt"
	}
	{
		key ca && openssl req -x509 -new -key "$p/ca.key" -subj "/CN=latencyd vm test CA" \
			-days 2 -addext basicConstraints=critical,CA:TRUE -out "$p/ca.crt" &&
			cert server 10.0.2.100 subjectAltName=IP:10.0.2.100 &&
			cert vm1 vm1 extendedKeyUsage=clientAuth && cert vm2 vm2 extendedKeyUsage=clientAuth
	} >"$1/pki.log" 2>&1 || fail "openssl: $(cat "$1/pki.log")"
	for n in vm1 vm2; do
		mkdir -p "$1/$n/pki"
		cp "$p/ca.crt" "$p/$n.crt" "$p/$n.key" "$1/$n/pki/"
	done
}

# pair_services OUT [tls]: the broker and the relayd (its tree in $work/relayd), logs in
# OUT. With tls, the broker takes only clients with a certificate of pair_pki's CA, each
# user named by its certificate and allowed to publish on its own topics only (README's
# ACL); the guests reach it as 10.0.2.100:8883, else as :1883, anonymous.
pair_services() {
	mq=$(free_port tcp)
	if [ "${2:-}" = tls ]; then
		pair_pki "$1"
		mq_guest=8883
		cat >"$work/acl" <<ACL
pattern write latencyd/+/alert/%u
pattern write latencyd/+/result/+/%u
pattern write latencyd/+/presence/%u
pattern read latencyd/#
ACL
		cat >"$work/mosquitto.conf" <<CONF
per_listener_settings false
allow_anonymous false
persistence false
acl_file $work/acl
message_size_limit 4096
set_tcp_nodelay true
listener $mq 127.0.0.1
cafile $work/pki/ca.crt
certfile $work/pki/server.crt
keyfile $work/pki/server.key
require_certificate true
use_identity_as_username true
CONF
	else
		mq_guest=1883
		printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$mq" >"$work/mosquitto.conf"
	fi
	# Started as root, mosquitto reads its ACL and TLS files as the user mosquitto.
	[ "${2:-}" = tls ] && chmod 755 "$work" "$work/pki" && chmod 644 "$work/acl" "$work/pki"/*
	mosquitto -c "$work/mosquitto.conf" >"$1/mosquitto.log" 2>&1 &
	pids+=($!)
	ctl=$(free_port tcp) data=$(free_port tcp) live=$(free_port tcp)
	[ "$ctl" != "$data" ] && [ "$data" != "$live" ] || { ctl=$((ctl + 1)); data=$((ctl + 1)); live=$((ctl + 2)); }
	mkdir -p "$work/relayd"
	lttng-relayd -C "tcp://127.0.0.1:$ctl" -D "tcp://127.0.0.1:$data" -L "tcp://127.0.0.1:$live" \
		-o "$work/relayd" >"$1/relayd.log" 2>&1 &
	pids+=($!)
	sleep 0.5
}

# pair_run OUT SCRIPT ARGS...: both VMs run SCRIPT, reaching the broker and the relayd.
pair_run() {
	local out=$1
	shift
	"$here/vm-pair" --out "$out" --forward "$mq_guest:$mq" --forward 5342:"$ctl" \
		--forward 5343:"$data" "$@"
}
