# Helpers for VM scenarios, run inside the guest: sourced as ". $VM_IN/scenarios/guest-lib.sh".
# Busybox sh. (The host side's helpers are tests/vm/host-lib.sh.)

fail() {
	echo "FAIL: $*"
	exit 1
}

pass() {
	echo "PASS: $*"
}

# Starts the root lttng-sessiond with the project's LTTng probe; it loads lttng-modules itself,
# only the probes the tests record, with the network timeout (as
# systemd/lttng-sessiond.service.d/latencyd.conf has both).
LTTNG_PROBES=sched,irq,timer,block,net,statedump
start_sessiond() {
	LTTNG_NETWORK_SOCKET_TIMEOUT=2000 \
		lttng-sessiond --background --kmod-probes=$LTTNG_PROBES --extra-kmod-probes=latency_tracker "$@" ||
		fail "lttng-sessiond did not start"
	i=0
	while ! lttng list >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "lttng-sessiond does not answer"
		sleep 0.1
	done
}

# Every directory under $1 that holds a CTF "metadata" file (babeltrace2 does not recurse).
trace_dirs() {
	find "$1" -name metadata -exec dirname {} \; | sort
}

# Prints the decoded events of the trace(s) under $1.
read_trace() {
	# shellcheck disable=SC2046
	babeltrace2 $(trace_dirs "$1")
}

# wait_recording LOG [SOCKET]: waits up to 10 s for latencyd (on control socket SOCKET, or
# latencyctl's default) to report its session recording; otherwise fails, LOG shown.
wait_recording() {
	i=0
	until latencyctl ${2:+-s "$2"} --json status 2>/dev/null | grep -q '"state": *"recording"'; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat "$1"; fail "latencyd does not record"; }
		sleep 0.1
	done
}

# wait_snapshots CATALOG N WHAT: waits up to 10 s for N complete snapshots in latencyd's
# CATALOG (catalog.json), else fails saying no snapshot came for WHAT.
wait_snapshots() {
	i=0
	until [ "$(cat "$1" 2>/dev/null | grep -c '"status": *"complete"')" -ge "$2" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "no snapshot for $3"
		sleep 0.1
	done
}

# Waits up to $2 tenths of a second for a file or socket $1 to exist.
wait_for() {
	i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -lt "${2:-100}" ] || return 1
		sleep 0.1
	done
}

# key=value field $2 of an lt-dump line $1
val() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# A kernel snapshot session "lt" recording the alert event (and $1, a comma list, if given),
# output under /tmp/snap. Starts lttng-sessiond if it is not running.
snapshot_start() {
	lttng list >/dev/null 2>&1 || start_sessiond
	rm -rf /tmp/snap
	lttng create lt --snapshot --output=/tmp/snap >/dev/null || fail "lttng create"
	lttng enable-channel -k --overwrite --subbuf-size=256k --num-subbuf=4 chan >/dev/null ||
		fail "lttng enable-channel"
	lttng enable-event -k -c chan "latency_tracker_alert${1:+,$1}" >/dev/null ||
		fail "lttng enable-event"
	lttng start >/dev/null || fail "lttng start"
}

# Records the snapshot, destroys the session and prints the alert events of tracker $1 in
# it (babeltrace2 text, one per line); fails if there is none.
snapshot_alerts() {
	lttng snapshot record >/dev/null || fail "lttng snapshot record"
	lttng destroy lt >/dev/null
	read_trace /tmp/snap >/tmp/snap.txt || fail "babeltrace2"
	grep "latency_tracker_alert:.*tracker = \"$1\"" /tmp/snap.txt ||
		fail "no $1 alert in the LTTng snapshot"
}

# Sets B to the block device name of the disk with serial $1 (vm-run --disk N: vmdiskN),
# waiting for it: virtio_blk is a module that the VM's init does not load.
vm_disk() {
	modprobe virtio_blk || fail "modprobe virtio_blk"
	B=
	i=0
	while [ -z "$B" ] && [ $i -lt 50 ]; do
		for s in /sys/block/*/serial; do
			[ "$(cat "$s" 2>/dev/null)" = "$1" ] && B=$(basename "$(dirname "$s")")
		done
		i=$((i + 1))
		[ -n "$B" ] || sleep 0.1
	done
	[ -n "$B" ] && [ -b "/dev/$B" ] || fail "no disk with serial $1"
}

# tracker_load NAME TYPE NPROBES: loads latency_tracker_NAME, sets T to its sysfs directory,
# checks its type and that its NPROBES probes are there and none is registered.
tracker_load() {
	modprobe "latency_tracker_$1" || fail "modprobe latency_tracker_$1"
	T=/sys/kernel/latency_tracker/$1
	T_PROBES=$3
	[ -d "$T" ] || fail "no $T"
	[ "$(cat "$T/type")" = "$2" ] || fail "type $(cat "$T/type")"
	probes_are 0
}

# probes_are 0|1: each of $T's $T_PROBES probes is (1) or is not (0) registered.
probes_are() {
	[ "$(wc -l <"$T/probes")" = "$T_PROBES" ] && [ "$(grep -c " $1\$" "$T/probes")" = "$T_PROBES" ] ||
		fail "not all $T_PROBES probes $1: $(cat "$T/probes")"
}

# Enables or disables $T and checks that its probes followed.
tracker_enable() {
	echo 1 >"$T/enabled" || fail "enable $T"
	probes_are 1
}
tracker_disable() {
	echo 0 >"$T/enabled" || fail "disable $T"
	probes_are 0
}

mem() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# Slab, vmalloc, per-CPU, and all memory in use, in kB, caches dropped (large kmalloc()s
# bypass the slab counters).
mem_counters() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	echo "$(mem Slab) $(mem VmallocUsed) $(mem Percpu)" \
		"$(($(mem MemTotal) - $(mem MemFree) - $(mem Buffers) - $(mem Cached)))"
}

# mem_baseline, then after the load/unload cycles expect_no_leak LOG: slab, vmalloc and
# per-CPU memory back to the baseline, within less than one cycle's leak repeated 100
# times would add; the counters go to LOG. Memory in use is only reported: loading and
# unloading any module drifts it.
mem_baseline() {
	set -- $(mem_counters)
	slab0=$1 vmalloc0=$2 percpu0=$3 used0=$4
}
expect_no_leak() {
	set -- "$1" $(mem_counters)
	echo "slab ${slab0}->$2 kB, vmalloc ${vmalloc0}->$3 kB, percpu ${percpu0}->$4 kB," \
		"in use ${used0}->$5 kB" | tee -a "$1"
	[ $(($2 - slab0)) -lt 1024 ] || fail "slab grew by $(($2 - slab0)) kB"
	[ $(($3 - vmalloc0)) -lt 1024 ] || fail "vmalloc grew by $(($3 - vmalloc0)) kB"
	[ $(($4 - percpu0)) -lt 64 ] || fail "per-CPU memory grew by $(($4 - percpu0)) kB"
	pass "no leak: slab, vmalloc and per-CPU memory back to the baseline"
}

# Two VMs (tests/vm/vm-pair). Sets IF to the network interface with MAC address $1, waiting
# for it: virtio_net is a module that the VM's init does not load.
vm_nic() {
	modprobe virtio_net || fail "modprobe virtio_net"
	IF=
	i=0
	while [ -z "$IF" ] && [ $i -lt 50 ]; do
		for a in /sys/class/net/*/address; do
			[ "$(cat "$a")" = "$1" ] && IF=$(basename "$(dirname "$a")")
		done
		i=$((i + 1))
		[ -n "$IF" ] || sleep 0.1
	done
	[ -n "$IF" ] || fail "no network interface with MAC $1"
}

# The NIC to the host: 10.0.2.15/24 on qemu's user network, where only the ports given to
# vm-pair --forward answer, at $VM_HOST (10.0.2.100). No default route. Sets VM_HOST_IF.
vm_net_up() {
	[ -n "${VM_INDEX:-}" ] || fail "vm_net_up: not run by vm-pair"
	vm_nic "52:54:00:10:00:0$VM_INDEX"
	ip link set "$IF" up && ip addr add 10.0.2.15/24 dev "$IF" || fail "vm_net_up: $IF"
	VM_HOST_IF=$IF
}

# The private link to the other VM: $VM_LINK_ADDR/24, the peer at $VM_PEER_ADDR (and as
# $VM_PEER in /etc/hosts), nothing else on it. Starts this VM's side of vm_barrier: a
# server on port 7000 that notes each tag the peer sends (and answers "ok" first). Sets
# VM_LINK_IF.
vm_link_up() {
	[ -n "${VM_INDEX:-}" ] || fail "vm_link_up: not run by vm-pair"
	if [ -n "${VM_COUNT:-}" ]; then
		vm_links_up
		return
	fi
	vm_nic "52:54:00:99:00:0$VM_INDEX"
	ip link set "$IF" up && ip addr add "$VM_LINK_ADDR/24" dev "$IF" || fail "vm_link_up: $IF"
	VM_LINK_IF=$IF
	printf '%s %s\n%s %s\n' "$VM_LINK_ADDR" "$VM_NAME" "$VM_PEER_ADDR" "$VM_PEER" >>/etc/hosts
	mkdir -p /tmp/vm-barrier
	printf '#!/bin/sh\nread -r tag\necho ok\ntouch "/tmp/vm-barrier/$tag"\n' >/tmp/vm-barrier-serve
	chmod +x /tmp/vm-barrier-serve
	nc -ll -p 7000 -e /tmp/vm-barrier-serve </dev/null >/dev/null 2>&1 &
}

# vm-pair --vms N: every link of this VM ($VM_LINKS); VM_LINK_IF is its first link's NIC.
vm_links_up() {
	VM_LINK_IF=
	for _l in $VM_LINKS; do
		IFS=, read -r _mac _addr _peer _paddr <<EOF_LINK
$_l
EOF_LINK
		vm_nic "$_mac"
		ip link set "$IF" up && ip addr add "$_addr/24" dev "$IF" || fail "vm_link_up: $IF"
		[ -n "$VM_LINK_IF" ] || VM_LINK_IF=$IF
		printf '%s %s\n' "$_paddr" "$_peer" >>/etc/hosts
	done
	printf '%s %s\n' "$VM_LINK_ADDR" "$VM_NAME" >>/etc/hosts
}

# vm_peer_wait [SECONDS]: waits (default 120 s) until the peer answers a ping on the link
# (with vm-pair --vms N, every neighbour on its link).
vm_peer_wait() {
	if [ -n "${VM_COUNT:-}" ]; then
		_first=$VM_PEER_ADDR
		for _l in $VM_LINKS; do
			VM_PEER_ADDR=${_l##*,}
			_vm_ping "${1:-120}" "${_l#*,*,}"
		done
		VM_PEER_ADDR=$_first
		return
	fi
	_vm_ping "${1:-120}" "$VM_PEER"
}
_vm_ping() {
	_t0=$(date +%s)
	until ping -c 1 -W 1 "$VM_PEER_ADDR" >/dev/null 2>&1; do
		[ $(($(date +%s) - _t0)) -lt "$1" ] ||
			fail "${2%%,*} ($VM_PEER_ADDR) does not answer on the link"
		sleep 0.2
	done
}

# vm_barrier TAG [SECONDS]: returns once the peer has called vm_barrier TAG too (fails after
# SECONDS, default 120; a TAG serves once): each VM hands TAG to the other's server until it answers "ok", and
# waits for the other's TAG. When the peer's TAG is here but the peer no longer answers, the
# peer has left the barrier (its exit needs our TAG): the "ok" was lost as it powered off.
vm_barrier() {
	if [ -n "${VM_COUNT:-}" ]; then
		_t0=$(date +%s)
		# The host's barrier service (vm-pair): "ok" once all VM_COUNT VMs said TAG.
		until [ "$(echo "$1 $VM_NAME" | timeout 5 nc -w 2 "$VM_HOST" 7001 2>/dev/null)" = ok ]; do
			[ $(($(date +%s) - _t0)) -lt "${2:-120}" ] || fail "barrier $1: not all $VM_COUNT VMs came"
			sleep 0.2
		done
		return 0
	fi
	_sent='' _gone=0 _t0=$(date +%s)
	while :; do
		if [ -z "$_sent" ]; then
			if [ "$(echo "$1" | timeout 5 nc -w 2 "$VM_PEER_ADDR" 7000 2>/dev/null)" = ok ]; then
				_sent=1
			elif [ -e "/tmp/vm-barrier/$1" ]; then
				_gone=$((_gone + 1))
			fi
		fi
		if [ -e "/tmp/vm-barrier/$1" ]; then
			[ -n "$_sent" ] || [ $_gone -ge 2 ] && return 0
		fi
		[ $(($(date +%s) - _t0)) -lt "${2:-120}" ] || fail "barrier $1: $VM_PEER did not come"
		sleep 0.2
	done
}

# The systemd image's scenarios (latencyd as a service).
# On failure, what the service and the journal said.
sfail() {
	systemctl status latencyd --no-pager -l 2>&1 | tail -n 20
	journalctl -u latencyd --no-pager 2>&1 | tail -n 40
	fail "$@"
}

# wait_recording with the service's status and journal on failure, and 30 s: the unit
# starts sessiond first.
wait_service_recording() {
	i=0
	until latencyctl --json status 2>/dev/null | grep -q '"state": *"recording"'; do
		i=$((i + 1))
		[ $i -lt 300 ] || sfail "latencyd does not record"
		sleep 0.1
	done
}

# conf_lt_sleeper FILE: the syscalls tracker enabled at 10 ms for tasks named lt-sleeper (a
# copy of sleep at /tmp/lt-sleeper) in the sample configuration FILE, checked.
conf_lt_sleeper() {
	cp /bin/sleep /tmp/lt-sleeper
	sed -i -e '/^\tsyscalls: {/,/};/ s/enabled = false;/enabled = true;/' \
		-e '/^\tsyscalls: {/,/};/ s/threshold = "100ms";/threshold = "10ms";/' \
		-e '/^\tsyscalls: {/,/};/ s/filter_comm = "";/filter_comm = "lt-sleeper";/' "$1"
	grep -q 'filter_comm = "lt-sleeper"' "$1" || fail "could not edit $1"
	latencyd --check-config || fail "the edited $1 is refused"
}

# conf_base [LINE...]: writes $D/latencyd.conf (D: the scenario's directory, created) with
# the settings the daemon-* and fault-* scenarios share: the control socket at $D/ctl.sock
# (or CONF_SOCKET), snapshots under $D/snapshots, the catalog in $D; then each LINE, the
# scenario's own settings (one group per LINE, which may span lines).
conf_base() {
	[ -n "${D:-}" ] || fail "conf_base: D is not set"
	mkdir -p "$D" || fail "conf_base: mkdir $D"
	{
		echo "control: { socket = \"${CONF_SOCKET:-$D/ctl.sock}\"; };"
		echo "output: { directory = \"$D/snapshots\"; };"
		echo "catalog: { directory = \"$D\"; };"
		for _l in "$@"; do
			printf '%s\n' "$_l"
		done
	} >"$D/latencyd.conf" || fail "conf_base: cannot write $D/latencyd.conf"
}
