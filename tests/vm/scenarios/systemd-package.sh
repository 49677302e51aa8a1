# vm-options: --image systemd
# The Debian packages as an admin uses them (ctest gives vm-run --debs: the .deb files of the
# package-deb test in /var/cache/latencyd-debs, nothing of the project installed): "apt
# install" of latencyd and latency-tracker-dkms, the modules through DKMS, "systemctl enable
# --now", an alert and its snapshot, a reload, then "apt purge", after which no unit, module,
# configuration or state of latencyd is left.
# The image has no compiler nor kernel headers, so DKMS builds nothing at install (as on a
# server without headers, it says so and goes on); the build step is replaced by the modules
# built on the host, put where "dkms build" leaves them, and "dkms install" does the rest.
# "dkms build" itself is the host-dkms test's.
. "$VM_IN/scenarios/guest-lib.sh"
DEBS=/var/cache/latencyd-debs
CONF=/etc/latencyd.conf
CATALOG=/var/lib/latencyd/catalog.json
kver=$(uname -r)

echo "== apt install ./latencyd_*.deb ./latency-tracker-dkms_*.deb"
ls "$DEBS"/*.deb || fail "no packages in $DEBS (vm-run --debs)"
command -v latencyd >/dev/null && fail "latencyd is installed before the packages"
cd "$DEBS" || fail "cd $DEBS"
apt-get install -y --no-install-recommends ./latencyd_*.deb ./latency-tracker-dkms_*.deb \
	>/tmp/apt-install.log 2>&1 || { cat /tmp/apt-install.log; fail "apt install"; }
cd /tmp || fail "cd /tmp"
grep -E 'Setting up|skipped|dkms' /tmp/apt-install.log
dpkg -s latencyd latency-tracker-dkms | grep -c '^Status: install ok installed' | grep -qx 2 ||
	fail "the two packages are not installed"
getent passwd _latencyd >/dev/null || fail "no _latencyd account"
[ "$(systemctl is-enabled latencyd)" = disabled ] || fail "latencyd is enabled at install"
[ "$(systemctl is-active latencyd)" = inactive ] || fail "latencyd runs at install"
dkms status latency-tracker | grep -q 'latency-tracker/0.1.0: added' ||
	{ dkms status; fail "dkms status does not say latency-tracker added"; }
pass "apt installed both packages; _latencyd exists; latencyd neither enabled nor running; DKMS has the source"

echo "== the modules, through DKMS"
arch=$(uname -m)
built=/var/lib/dkms/latency-tracker/0.1.0/$kver/$arch
mkdir -p "$built/module" "$built/log"
cp "$DEBS"/modules/*.ko "$built/module/"
echo "built on the host for $kver (tests/vm/image/build-kmod)" >"$built/log/make.log"
dkms install latency-tracker/0.1.0 -k "$kver" >/tmp/dkms-install.log 2>&1 ||
	{ cat /tmp/dkms-install.log; fail "dkms install"; }
dkms status latency-tracker | grep -q "latency-tracker/0.1.0, $kver, $arch: installed" ||
	{ dkms status; fail "dkms status does not say installed"; }
modinfo -n latency_tracker | grep -q "/lib/modules/$kver/updates/dkms/latency_tracker.ko" ||
	fail "modprobe does not find latency_tracker in updates/dkms: $(modinfo -n latency_tracker 2>&1)"
pass "dkms install: latency_tracker and its trackers in updates/dkms"

echo "== /etc/latencyd.conf: the syscalls tracker at 10 ms for tasks named lt-sleeper"
conf_lt_sleeper $CONF

echo "== systemctl enable --now latencyd"
systemctl enable --now latencyd || sfail "systemctl enable --now latencyd"
wait_service_recording
lsmod | grep -q '^latency_tracker ' || sfail "latency_tracker is not loaded"
latencyctl status || sfail "latencyctl status"
pass "latencyd started by systemd from the package, recording"

echo "== an alert and its snapshot"
/tmp/lt-sleeper 0.03
i=0
until grep -q '"status": *"complete"' $CATALOG 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 200 ] || sfail "no snapshot in the catalog"
	sleep 0.1
done
latencyctl list-snapshots || sfail "latencyctl list-snapshots"
pass "an alert of lt-sleeper: a complete snapshot in $CATALOG"

echo "== systemctl reload"
sed -i 's/^\tburst = 3;/\tburst = 4;/' $CONF
systemctl reload latencyd || sfail "systemctl reload"
latencyctl --json config | grep -qE '"burst": *4' || sfail "the reload did not take burst = 4"
pass "systemctl reload: burst = 4 taken"

echo "== apt purge latencyd latency-tracker-dkms"
apt-get purge -y latencyd latency-tracker-dkms >/tmp/apt-purge.log 2>&1 ||
	{ cat /tmp/apt-purge.log; fail "apt purge"; }
grep -E 'Removing|Purging|dkms' /tmp/apt-purge.log
left=""
for f in /lib/systemd/system/latencyd.service /lib/systemd/system/latencyd.socket \
	/lib/systemd/system/lttng-sessiond.service.d/latencyd.conf \
	/etc/systemd/system/multi-user.target.wants/latencyd.service /etc/latencyd.conf \
	/var/lib/latencyd /run/latencyd /usr/src/latency-tracker-0.1.0 \
	/var/lib/dkms/latency-tracker /usr/sbin/latencyd /usr/bin/latencyctl; do
	[ -e "$f" ] && left="$left $f"
done
[ -z "$left" ] || fail "left after purge:$left"
mods=$(find /lib/modules -name 'latency_tracker*' -o -name 'lttng-probe-latency_tracker*')
[ -z "$mods" ] || fail "modules left after purge: $mods"
loaded=$(lsmod | grep -E '^(latency_tracker|lttng_probe_latency_tracker)' || true)
[ -z "$loaded" ] || fail "modules still loaded after purge: $loaded"
state=$(systemctl show -p LoadState --value latencyd)
[ "$state" = not-found ] || fail "systemd still knows latencyd.service: LoadState=$state"
lttng list 2>/dev/null | grep -q latencyd && fail "latencyd's LTTng session is left"
dpkg -l latencyd latency-tracker-dkms 2>/dev/null | grep -E '^(ii|rc)' && fail "a package is left in dpkg's database"
pass "apt purge: no unit, module, configuration, state or session of latencyd left"
