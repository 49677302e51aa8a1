# vm-options: --timeout 900 --smp 2 --mem 2G
# What the fleet's packet events cost (#16): net_dev_queue and netif_receive_skb, which the
# kernel session adds when fleet.enabled, recorded with their IP and TCP headers. Inside the
# test VM, lt-rpc's client makes COUNT TCP request/reply round trips over loopback with an
# echo server (each one sends and receives two packets); rounds interleave three set-ups:
# no session, latencyd's default kernel events in an LTTng snapshot session, and the same
# plus the two packet events. Raw results: $VM_OUT/net.tsv (round, setup, ns); run by
# bench/net-run, which writes bench/net-results.md.
#   tests/vm/vm-run --out DIR bench/net-bench.sh [rounds=N] [count=N]
. "$VM_IN/scenarios/guest-lib.sh"
rounds=9 count=3000
for a in "$@"; do
	case $a in
	rounds=* | count=*)
		v=${a#*=}
		case $v in '' | *[!0-9]*) fail "net-bench: $a: not a number" ;; esac
		eval "${a%%=*}=$v"
		;;
	*) fail "net-bench: unknown setting: $a" ;;
	esac
done
ip link set lo up
start_sessiond
# latencyd's default kernel events (daemon/conf/table.c), from the sample configuration.
events=$(sed -n '/^[[:space:]]*events = \[/,/\]/p' /usr/share/latencyd/latencyd.conf | tr -d ' \t\n"[]' |
	sed 's/^events=//; s/;$//; s/,latency_tracker_alert//')
[ -n "$events" ] || fail "no default event list in /usr/share/latencyd/latencyd.conf"
echo "default events: $events"
lt-rpc server 5432 echo >/tmp/server.txt 2>&1 &
sleep 0.5
grep -q '^server=' /tmp/server.txt || fail "rpc-server: $(cat /tmp/server.txt)"

session() { # $1: extra events, or none
	lttng create nb --snapshot -o /tmp/nb >/dev/null || fail "lttng create"
	lttng enable-channel -k c --subbuf-size 262144 --num-subbuf 4 >/dev/null || fail "channel"
	lttng enable-event -k -c c "$events${1:+,$1}" >/dev/null || fail "enable-event $events${1:+,$1}"
	lttng start >/dev/null || fail "lttng start"
}
: >"$VM_OUT/net.tsv"
for r in $(seq "$rounds"); do
	for setup in none default packets; do
		case $setup in
		default) session ;;
		packets) session net_dev_queue,net_if_receive_skb ;;
		esac
		ns=$(lt-rpc client 127.0.0.1 5432 "$count" | sed -n 's/^ns=//p')
		[ -n "$ns" ] || fail "rpc-client round $r ($setup)"
		[ "$setup" = none ] || lttng destroy nb >/dev/null
		printf '%s\t%s\t%s\n' "$r" "$setup" "$ns" >>"$VM_OUT/net.tsv"
	done
done
# What the packet events add to the flight recorder: a snapshot of the last set-up's load.
session net_dev_queue,net_if_receive_skb
lt-rpc client 127.0.0.1 5432 "$count" >/dev/null || fail "rpc-client"
lttng snapshot record >/dev/null || fail "lttng snapshot record"
lttng destroy nb >/dev/null
cp -r /tmp/nb "$VM_OUT/snapshot" || fail "copy the snapshot"
pass "net-bench: $rounds rounds of $count round trips"
