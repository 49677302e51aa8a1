# Sourced by the host sides of the fleet's two-VM tests (pair-fleet, pair-chain): a mosquitto
# broker and an lttng-relayd on 127.0.0.1 (free ports), stopped and removed at exit, and
# vm-pair run with the guestfwd forwards the scenarios' fleet-lib expects.
command -v mosquitto >/dev/null || { echo "${0##*/}: mosquitto is not installed"; exit 77; }
latencyctl=$BUILD_DIR/client/latencyctl
work=$(mktemp -d "${TMPDIR:-/tmp}/${0##*/}.XXXXXX")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
# first_incident RELAYD_OUT ORIGIN: the incident ORIGIN's first snapshot opened (ORIGIN-N,
# N its catalog's incident_base + 1), from the snapshot's name in relayd's tree.
first_incident() {
	find "$1/$2" -maxdepth 2 -type d -name "snap-1-$2-*@$2-*" | head -1 |
		sed "s|.*/snap-1-\($2-[0-9]*\)@.*|\1|"
}

# pair_services OUT: the broker and the relayd (its tree in $work/relayd), logs in OUT.
pair_services() {
	mq=$(free_port tcp)
	printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$mq" >"$work/mosquitto.conf"
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
	"$here/vm-pair" --out "$out" --forward 1883:"$mq" --forward 5342:"$ctl" \
		--forward 5343:"$data" "$@"
}
