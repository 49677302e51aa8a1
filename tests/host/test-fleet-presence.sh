#!/bin/bash
# A fleet presence must be renewed: a real mosquitto with persistence on (its database saved
# every second) and lttng-relayd on 127.0.0.1, three latencyd (h1, h2, h3 in group "lab",
# fleet.presence_every 3 s).
# - each presence says every_s and goes with the message expiry 9 s (3 times it);
# - live members stay online across several renewals, with no log line per renewal, nothing
#   counted as dropped and no publish counted for them;
# - the broker stalled (SIGSTOP) 15 s, 5 periods, each host still connected as far as it
#   knows: nobody is timed out, during the stall or once it resumes;
# - the broker killed (no last will can go out), h2 killed while it is down, the broker
#   back from its saved database with h2's "online" (checked on the broker): h1 counts h2
#   out once 3 periods passed, said once in its log ("no presence for N s") by its own
#   timer (nothing reads its status meanwhile), and its next incident does not list h2;
#   the broker drops h2's presence by itself;
# - h3 killed while the broker is up: its last will (offline) expires too.
# Usage: lttng-env --relayd test-fleet-presence.sh LATENCYD LATENCYCTL ALERT_WRITE UST_APP
set -u
ALERT_WRITE=${3:?} UST_APP=${4:?}
. "$(dirname "$0")/lib.sh"
[ -n "${LATENCYD_TEST_RELAYD_URL:-}" ] || { echo "SKIP: run me under lttng-env --relayd"; exit 77; }
command -v mosquitto_sub >/dev/null || { echo "SKIP: mosquitto_sub is not installed"; exit 77; }

# Debian's mosquitto runs with persistence on; it saves at exit and every autosave_interval.
# It runs as this test's user (root would make it switch to "mosquitto", which cannot
# write into $T).
mkdir -p "$T/broker"
broker_conf() {
	cat <<CONF
listener $PORT 127.0.0.1
allow_anonymous true
persistence true
persistence_location $T/broker/
autosave_interval 1
set_tcp_nodelay true
user $(id -un)
CONF
}
. "$(dirname "$0")/fleet-lib.sh"
# A broker left stopped by a failure would never end: continued first.
trap '[ -n "$BROKER_PID" ] && kill -CONT "$BROKER_PID" 2>/dev/null; stop_all; cleanup' EXIT
start_fleet_broker

# Whether NODE's log says TEXT after line MARK.
logged() { tail -n +$(($2 + 1)) "$T/$1/latencyd.log" | grep -qF "$3"; }
jinc() { local out; out=$(ctl "$1" --json incidents 2>/dev/null) && [ -n "$out" ] && jq -e "$2" <<<"$out" >/dev/null; }
incident() { ctl "$1" --json incidents | jq -c ".incidents[] | select(.incident == \"$2\")"; }
next_incident() { incident_of h1 $(( $(ctl h1 --json list-snapshots | jq '[.snapshots[].id] | max // 0') + 1 )); }
st() { ctl "$1" --json status | jq "$2"; }
# The retained presence of HOST the broker holds, as "EXPIRY PAYLOAD" ("" for none): its
# remaining message expiry in seconds (MQTT v5), then the message.
retained() {
	mosquitto_sub -V mqttv5 -h 127.0.0.1 -p "$PORT" -t "latencyd/lab/presence/$1" -C 1 -W 2 \
		-F '%E %p' 2>/dev/null | grep -v '^Timed out'
}
# It expires within 3 renewals: 1 to 9 s left.
expiring() { local e=${1%% *}; [ -n "$e" ] && [ "$e" -ge 1 ] && [ "$e" -le 9 ]; }
no_retained() { [ -z "$(retained "$1")" ]; }

export FLEET_EXTRA='presence_every = "3s";'
for n in h1 h2 h3; do node $n lab 10 10; done
for h in h1 h2 h3; do
	wait_for 200 jst $h '.session.state == "recording" and .fleet.subscribed and .fleet.members_online == 2' ||
		fail "$h: not recording with two members: $(ctl $h --json status | jq -c .fleet)"
done
pass "three hosts, each seeing the two others"

# 1. What a member publishes: its period, and an expiry of 3 of them.
r=$(retained h3)
expiring "$r" || fail "h3's retained presence has no expiry of 9 s at most: '$r'"
jq -e '.state == "online" and .every_s == 3' <<<"${r#* }" >/dev/null ||
	fail "h3's retained presence does not say every_s 3: '$r'"
pass "a presence says every_s 3 and expires in 9 s at most: '$r'"

# 2. Live members stay online across renewals: 12 presences reach h1 (its own, h2's, h3's:
# four periods, past the 9 s bound), and h1 counts both all along, silently.
mark=$(wc -l <"$T/h1/latencyd.log")
before=$(ctl h1 --json status | jq -c '.fleet | {dropped, notes_dropped}')
pub=$(st h3 '[.fleet.published, .fleet.failed]')
received=$(st h1 .fleet.received)
n=0
while [ $(( $(st h1 .fleet.received) - received )) -lt 12 ]; do
	jst h1 '.fleet.members_online == 2' ||
		fail "h1 lost a live member after $(( $(st h1 .fleet.received) - received )) presences: $(tail -n +$((mark + 1)) "$T/h1/latencyd.log")"
	n=$((n + 1))
	[ "$n" -lt 600 ] || fail "h1 got $(( $(st h1 .fleet.received) - received )) presences in 60 s: nothing renews them"
	sleep 0.1
done
jst h3 '.fleet.members_online == 2' || fail "h3 lost a live member: $(tail "$T/h3/latencyd.log")"
tail -n +$((mark + 1)) "$T/h1/latencyd.log" | grep -q "fleet: member" &&
	fail "h1 logged members while they renewed: $(tail -n +$((mark + 1)) "$T/h1/latencyd.log")"
[ "$(ctl h1 --json status | jq -c '.fleet | {dropped, notes_dropped}')" = "$before" ] ||
	fail "renewals counted as dropped at h1: $before, then $(ctl h1 --json status | jq -c .fleet)"
[ "$(st h3 '[.fleet.published, .fleet.failed]')" = "$pub" ] ||
	fail "h3 counted its renewals as publishes: $pub, then $(st h3 '[.fleet.published, .fleet.failed]')"
pass "live members renewed across four periods: online all along, nothing logged or counted"

# 3. The broker stalls 15 s (5 periods) while every member lives. Each host still counts
# itself connected (its keepalive, 30 s, has not run out) but hears no renewal, its own
# neither: nobody is timed out, for nothing says who is silent. Resumed, the broker hands on
# what it held, ours and the members' in any order: nobody flaps either.
declare -A smark
for h in h1 h2 h3; do smark[$h]=$(wc -l <"$T/$h/latencyd.log"); done
received=$(st h1 .fleet.received)
kill -STOP "$BROKER_PID"
for _ in $(seq 15); do
	sleep 1
	jst h1 '.fleet.connected and .fleet.members_online == 2' ||
		fail "h1 lost a live member while the broker stalled: $(ctl h1 --json status | jq -c .fleet); $(tail -n +$((smark[h1] + 1)) "$T/h1/latencyd.log")"
done
kill -CONT "$BROKER_PID"
# What the broker held and the renewals due at once behind it (6 presences at h1, within
# milliseconds), then two periods more.
wait_for 150 jst h1 ".fleet.received >= $((received + 12))" ||
	fail "h1 heard no renewals once the broker resumed: $(ctl h1 --json status | jq -c .fleet)"
for h in h1 h2 h3; do
	logged $h "${smark[$h]}" "fleet: member" &&
		fail "$h logged members over the broker's stall: $(tail -n +$((smark[$h] + 1)) "$T/$h/latencyd.log")"
	jst $h '.fleet.connected and .fleet.members_online == 2' ||
		fail "$h: not two members after the broker's stall: $(ctl $h --json status | jq -c .fleet)"
done
pass "a broker stalled 5 periods: no member timed out or back, at any host"

# 4. The broker killed (no will goes out), h2 killed while it is down: the broker restores
# h2's "online" from its database. h1 counts h2 out once 3 periods pass without a presence
# of its, which the broker drops by then too. Only h1's log is read until it says so: a
# status read would time members out itself, and the timer must.
mark=$(wc -l <"$T/h1/latencyd.log")
kill -KILL "$BROKER_PID"
wait "$BROKER_PID" 2>/dev/null
wait_for 100 logged h1 "$mark" "fleet: not connected to" ||
	fail "h1 did not see the broker go: $(tail -n +$((mark + 1)) "$T/h1/latencyd.log")"
kill -KILL "$PID_h2"
wait "$PID_h2" 2>/dev/null
start_broker
kept=$(retained h2)
expiring "$kept" && [[ "$kept" == *'"state":"online"'* ]] ||
	fail "the broker did not restore h2's presence, with its expiry: '$kept'"
wait_for 300 logged h1 "$mark" "fleet: member h2 went away (no presence for" ||
	fail "h1 did not time h2 out, killed while the broker was down: $(tail -n +$((mark + 1)) "$T/h1/latencyd.log")"
logged h1 "$mark" "fleet: connected to" ||
	fail "h1 timed h2 out before it reconnected: $(tail -n +$((mark + 1)) "$T/h1/latencyd.log")"
gone=$(tail -n +$((mark + 1)) "$T/h1/latencyd.log" | grep -c "fleet: member h2 went away")
line=$(tail -n +$((mark + 1)) "$T/h1/latencyd.log" | grep "fleet: member h2 went away")
[ "$gone" = 1 ] || fail "h1 said $gone times that h2 went away: $(tail -n +$((mark + 1)) "$T/h1/latencyd.log")"
grep -Eq "fleet: member h2 went away \(no presence for [0-9]+ s\)" <<<"$line" ||
	fail "h1's log does not say h2 went away for want of a presence: $line"
jst h1 '.fleet.members_online == 1' && sleep 1 && jst h1 '.fleet.members_online == 1' ||
	fail "h2 came back at h1: $(tail -n +$((mark + 1)) "$T/h1/latencyd.log")"
inc=$(next_incident)
alert h1
wait_for 100 jinc h1 "[.incidents[] | select(.incident == \"$inc\" and .members == [\"h1\",\"h3\"])] | length == 1" ||
	fail "$inc at h1 lists a member dead while the broker was down: $(incident h1 "$inc")"
wait_for 150 no_retained h2 || fail "the broker still holds h2's presence: '$(retained h2)'"
pass "a member killed while a persistent broker was down: out of h1 ($line), of its next incident, and of the broker"

# 5. A member killed while the broker is up: its last will (offline) goes out, retained,
# and expires like any presence.
kill -KILL "$PID_h3"
wait "$PID_h3" 2>/dev/null
wait_for 100 jst h1 '.fleet.members_online == 0' ||
	fail "h1 still counts h3, whose last will went out: $(ctl h1 --json status | jq -c .fleet)"
r=$(retained h3)
expiring "$r" && [[ "$r" == *'"state":"offline"'* ]] ||
	fail "h3's last will is not retained with an expiry of 9 s at most: '$r'"
wait_for 150 no_retained h3 || fail "the broker still holds h3's last will: '$(retained h3)'"
pass "a member's last will expires too: '$r'"

kill -0 "$PID_h1" || fail "h1 died"
kill "$PID_h1"
sleep 1
for n in h1 h2 h3; do
	grep -q "AddressSanitizer\|runtime error" "$T/$n/latencyd.log" && fail "$n: $(cat "$T/$n/latencyd.log")"
done
pass "fleet presence"
