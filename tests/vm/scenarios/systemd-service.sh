# vm-options: --image systemd
# latencyd as a server runs it: Debian 12 booted with systemd, the project installed with
# "cmake --install --prefix /usr", the modules where DKMS puts them, Debian's lttng-tools
# with its lttng-sessiond.service. Checks the installed units (systemd-analyze verify),
# "systemctl enable --now", latencyctl, the structured journal entries of an alert, a
# refused reload of a bad configuration, a restart after kill -9, and the manual page.
. "$VM_IN/scenarios/guest-lib.sh"
CONF=/etc/latencyd.conf
CATALOG=/var/lib/latencyd/catalog.json

# Makes a 30 ms system call in a task named lt-sleeper and waits for snapshot number $1 in
# the catalog.
latency() {
	/tmp/lt-sleeper 0.03
	i=0
	until n=$(grep -c '"status": *"complete"' $CATALOG 2>/dev/null) && [ "$n" -ge "$1" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || sfail "no snapshot $1 in the catalog"
		sleep 0.1
	done
}

# The journal entries of latencyd's alerts, as JSON lines, with a snapshot id $1.
journal_alert() {
	journalctl -u latencyd -o json --no-pager |
		grep '"TRACKER" *: *"syscalls"' | grep "\"SNAPSHOT_ID\" *: *\"$1\""
}

echo "== the installed units"
out=$(systemd-analyze verify /usr/lib/systemd/system/latencyd.service \
	/usr/lib/systemd/system/latencyd.socket 2>&1) || { echo "$out"; fail "systemd-analyze verify"; }
[ -z "$out" ] || { echo "$out"; fail "systemd-analyze verify warns"; }
pass "systemd-analyze verify: latencyd.service and latencyd.socket are clean"

echo "== /etc/latencyd.conf: the syscalls tracker at 10 ms for tasks named lt-sleeper"
conf_lt_sleeper $CONF

echo "== systemctl enable --now latencyd"
systemctl enable --now latencyd || sfail "systemctl enable --now latencyd"
wait_service_recording
[ "$(systemctl is-enabled latencyd)" = enabled ] || sfail "latencyd is not enabled"
systemctl show -p After latencyd | grep -q 'lttng-sessiond.service' || sfail "not after lttng-sessiond"
[ "$(systemctl is-active lttng-sessiond)" = active ] || sfail "lttng-sessiond is not active"
latencyctl status || sfail "latencyctl status"
tr '\0' '\n' </proc/"$(systemctl show -p MainPID --value latencyd)"/environ | grep -qx LD_BIND_NOW=1 ||
	sfail "latencyd runs without LD_BIND_NOW=1"
pass "latencyd runs under systemd (every library bound at load), after lttng-sessiond, and answers latencyctl"
# The drop-in latencyd installs for lttng-sessiond.service: only the probes it records.
systemctl cat lttng-sessiond | grep -q -- '--kmod-probes=' || sfail "lttng-sessiond.service has no --kmod-probes drop-in"
lsmod | grep -q '^lttng_probe_sched ' || sfail "lttng-probe-sched is not loaded"
lsmod | grep -q '^lttng_probe_writeback ' && sfail "lttng-probe-writeback loaded: the drop-in was not applied"
pass "lttng-sessiond.service loads only the probes latencyd records"

echo "== an alert: the snapshot, and latencyd's structured journal entry"
latency 1
i=0
until journal_alert 1 >/tmp/alert.json; do
	i=$((i + 1))
	[ $i -lt 50 ] || sfail "no journal entry with TRACKER=syscalls and SNAPSHOT_ID=1"
	sleep 0.1
done
journalctl -u latencyd --no-pager -n 5
grep -q '"COMM" *: *"lt-sleeper"' /tmp/alert.json || sfail "the journal entry does not name lt-sleeper"
grep -qE '"DELAY_NS" *: *"[0-9]{8,}"' /tmp/alert.json || sfail "the journal entry has no delay of 10 ms or more"
pass "journalctl -o json: TRACKER=syscalls COMM=lt-sleeper SNAPSHOT_ID=1 with DELAY_NS"

echo "== systemctl reload: a good edit is taken, a bad one refused"
sed -i 's/^\tburst = 3;/\tburst = 4;/' $CONF
systemctl reload latencyd || sfail "systemctl reload of a valid configuration"
latencyctl --json config | grep -qE '"burst": *4' || sfail "the reload did not take burst = 4"
cp $CONF /tmp/good.conf
sed -i 's/^\tburst = 4;/\tburst = "many";/' $CONF
line=$(grep -n 'burst = "many"' $CONF | cut -d: -f1)
if systemctl reload latencyd 2>/tmp/reload.err; then
	sfail "systemctl reload accepted burst = \"many\""
fi
cat /tmp/reload.err
[ "$(systemctl is-active latencyd)" = active ] || sfail "latencyd stopped after a refused reload"
journalctl -u latencyd --no-pager | grep "$CONF:$line: ratelimit.burst" ||
	sfail "the journal does not say $CONF:$line: ratelimit.burst"
latencyctl --json config | grep -qE '"burst": *4' || sfail "latencyd does not keep burst = 4"
cp /tmp/good.conf $CONF
pass "a bad edit is refused with $CONF:$line in the journal; latencyd keeps the old configuration"

echo "== kill -9: systemd restarts latencyd and it records again"
pid=$(systemctl show -p MainPID --value latencyd)
[ "$pid" -gt 0 ] || sfail "no main pid"
kill -9 "$pid"
i=0
until new=$(systemctl show -p MainPID --value latencyd) && [ "$new" -gt 0 ] && [ "$new" != "$pid" ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || sfail "systemd did not restart latencyd"
	sleep 0.1
done
wait_service_recording
[ "$(systemctl show -p NRestarts --value latencyd)" = 1 ] || sfail "NRestarts is not 1"
latency 2
i=0
until journal_alert 2 >/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || sfail "no journal entry for the snapshot after the restart"
	sleep 0.1
done
latencyctl list-snapshots
pass "latencyd restarted (pid $pid, then $new) and recorded snapshot 2"

echo "== man latencyd"
man -P cat latencyd 2>/tmp/man.err >/tmp/man.txt || { cat /tmp/man.err; fail "man latencyd"; }
grep -q 'runtime latency detection daemon' /tmp/man.txt || fail "man latencyd: no NAME line"
head -n 8 /tmp/man.txt
pass "man latencyd renders"

echo "== systemctl stop latencyd"
systemctl stop latencyd || sfail "systemctl stop"
[ "$(systemctl show -p ExecMainStatus --value latencyd)" = 0 ] || sfail "latencyd did not exit 0"
journalctl -u latencyd --no-pager >"$VM_OUT/latencyd-journal.log"
# Errors were provoked above (the bad edit, kill -9); the restarted daemon must have none.
journalctl -u latencyd -p err "_PID=$new" --no-pager -q | grep . && sfail "latencyd logged errors"
pass "latencyd under systemd: enable, alert, journal, reload, restart, stop"
