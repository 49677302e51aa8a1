#!/bin/bash
# test-deb.sh OUT_DIR: the Debian packages as an admin builds them from a clone:
# "dpkg-buildpackage -us -uc -b" in a copy of the tree (the files git knows, so that no build
# directory leaks in), lintian without an error, and what each package holds: latencyd's
# programs, units, drop-in, manual pages, completion, account and journal catalog, with
# /etc/latencyd.conf a conffile; latency-tracker-dkms's module source whose dkms.conf names
# every module the tree builds, at the project's version. The .deb files land in OUT_DIR
# for the VM test that installs them (vm-systemd-package).
set -euo pipefail
OUT=${1:?usage: $0 OUT_DIR}
REPO=$(cd "$(dirname "$0")/../.." && pwd)

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
pass() { echo "ok: $*"; }

for tool in dpkg-buildpackage dh lintian dh_dkms; do
	command -v "$tool" >/dev/null || fail "$tool not found (tools/install-deps installs it)"
done

T=$(mktemp -d /tmp/latencyd-deb.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/latencyd"
if git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$REPO" ls-files -co --exclude-standard -z | (cd "$REPO" && xargs -0 cp --parents -P -t "$T/latencyd")
else
	tar -C "$REPO" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$T/latencyd" -xf -
fi

version=$(sed -n 's/^project(latencyd VERSION \([0-9.]*\).*/\1/p' "$REPO/CMakeLists.txt")
debversion=$(cd "$T/latencyd" && dpkg-parsechangelog -S Version)
[ "${debversion%-*}" = "$version" ] ||
	fail "debian/changelog says $debversion, CMakeLists.txt $version: add a changelog entry"

echo "== dpkg-buildpackage -us -uc -b"
if ! (cd "$T/latencyd" && dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$T/build.log" 2>&1; then
	tail -n 40 "$T/build.log"
	fail "dpkg-buildpackage"
fi
deb=$T/latencyd_${debversion}_$(dpkg --print-architecture).deb
dkms_deb=$T/latency-tracker-dkms_${debversion}_all.deb
[ -f "$deb" ] && [ -f "$dkms_deb" ] || { ls "$T"; fail "dpkg-buildpackage made no $deb and $dkms_deb"; }
pass "dpkg-buildpackage: $(cd "$T" && ls ./*.deb | xargs -n1 basename | tr '\n' ' ')"

echo "== lintian"
lintian --pedantic --display-info "$T"/latencyd_*.changes >"$T/lintian.log" 2>&1 || true
grep -v '^running with root privileges' "$T/lintian.log" || true
grep -q '^E: ' "$T/lintian.log" && fail "lintian reports errors"
grep -qE '^(internal error|Unknown|.*lintian: )' "$T/lintian.log" && fail "lintian did not run"
pass "lintian: no error ($(grep -c '^W: ' "$T/lintian.log") warnings)"

echo "== what latencyd holds"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$T/files"
for f in /usr/sbin/latencyd /usr/bin/latencyctl /usr/bin/latencyctl-lami \
	/usr/libexec/latencyd/latencyd-fleet /lib/systemd/system/latencyd.service \
	/lib/systemd/system/latencyd.socket /lib/systemd/system/lttng-sessiond.service.d/latencyd.conf \
	/usr/share/man/man8/latencyd.8.gz /usr/share/man/man1/latencyctl.1.gz \
	/usr/share/man/man5/latencyd.conf.5.gz /usr/share/bash-completion/completions/latencyctl \
	/usr/lib/sysusers.d/latencyd.conf /usr/lib/systemd/catalog/latencyd.catalog \
	/etc/latencyd.conf /usr/share/doc/latencyd/copyright; do
	grep -qx "$f" "$T/files" || fail "latencyd has no $f"
done
dpkg-deb -e "$deb" "$T/ctl"
grep -qx /etc/latencyd.conf "$T/ctl/conffiles" || fail "/etc/latencyd.conf is not a conffile"
grep -q 'systemd-sysusers.*latencyd.conf' "$T/ctl/postinst" || fail "postinst does not create the account"
grep -q "deb-systemd-invoke stop 'latencyd.service'" "$T/ctl/prerm" || fail "prerm does not stop latencyd"
grep -q 'rm -rf /var/lib/latencyd' "$T/ctl/postrm" || fail "postrm purge keeps /var/lib/latencyd"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./lib/systemd/system/latencyd.service >"$T/unit"
grep -qx 'ExecStart=/usr/sbin/latencyd' "$T/unit" || fail "the unit does not run /usr/sbin/latencyd: $(grep ExecStart "$T/unit")"
dpkg-deb -f "$deb" Depends | grep -q 'lttng-tools' || fail "latencyd does not depend on lttng-tools"
pass "latencyd: programs, units, drop-in, man pages, completion, account, catalog; conffile; stop on removal, state purged"

echo "== what latency-tracker-dkms holds"
mkdir "$T/dkms"
dpkg-deb -x "$dkms_deb" "$T/dkms"
conf=$T/dkms/usr/src/latency-tracker-$version/dkms.conf
[ -f "$conf" ] || fail "no /usr/src/latency-tracker-$version/dkms.conf"
grep -qx "PACKAGE_VERSION=\"$version\"" "$conf" || fail "dkms.conf: $(grep PACKAGE_VERSION "$conf")"
for c in "$REPO"/kmod/trackers/*.c; do
	t=$(basename "$c" .c)
	[ "$t" = common ] && continue
	grep -q "latency_tracker_$t" "$conf" || fail "dkms.conf does not build latency_tracker_$t"
	[ -f "$T/dkms/usr/src/latency-tracker-$version/trackers/$t.c" ] || fail "no source for $t"
done
[ -f "$T/dkms/usr/share/man/man4/latency_tracker.4.gz" ] || fail "no latency_tracker(4)"
dpkg-deb -f "$dkms_deb" Depends | grep -q 'lttng-modules-dkms' || fail "not depending on lttng-modules-dkms"
dpkg-deb -f "$dkms_deb" Depends | grep -q 'dkms' || fail "not depending on dkms"
dpkg-deb -e "$dkms_deb" "$T/dkms-ctl"
grep -qx 'DKMS_NAME=latency-tracker' "$T/dkms-ctl/postinst" && grep -q 'common.postinst' "$T/dkms-ctl/postinst" ||
	fail "postinst does not run dkms for latency-tracker"
grep -q 'dkms remove -m $DKMS_NAME' "$T/dkms-ctl/prerm" || fail "prerm does not remove the modules"
pass "latency-tracker-dkms: dkms.conf at $version naming every tracker, their source, dkms on install and removal"

echo "== the two packages upgraded together"
# One version of each at a time: latencyd reads the module's records (ABI), and neither may
# be upgraded, nor downgraded, alone.
dpkg-deb -f "$deb" Recommends | grep -qF "latency-tracker-dkms (= $debversion)" ||
	fail "latencyd Recommends: $(dpkg-deb -f "$deb" Recommends), not latency-tracker-dkms (= $debversion)"
dpkg-deb -f "$deb" Breaks | grep -qF "latency-tracker-dkms (<< $debversion)" ||
	fail "latencyd Breaks: $(dpkg-deb -f "$deb" Breaks), not latency-tracker-dkms (<< $debversion)"
dpkg-deb -f "$dkms_deb" Breaks | grep -qF "latencyd (<< $debversion)" ||
	fail "latency-tracker-dkms Breaks: $(dpkg-deb -f "$dkms_deb" Breaks), not latencyd (<< $debversion)"
# The postinst restarts latencyd onto the modules once DKMS built them, not before: a start
# without them fails (restarted by latencyd's postinst meanwhile: started again).
sh -n "$T/dkms-ctl/postinst" || fail "latency-tracker-dkms's postinst is not valid sh"
built=$(grep -n 'common.postinst' "$T/dkms-ctl/postinst" | tail -n 1 | cut -d: -f1)
restart=$(grep -n 'deb-systemd-invoke try-restart latencyd.service' "$T/dkms-ctl/postinst" | cut -d: -f1)
failed=$(grep -n 'deb-systemd-invoke reset-failed latencyd.service' "$T/dkms-ctl/postinst" | cut -d: -f1)
[ -n "$restart" ] && [ -n "$failed" ] || fail "latency-tracker-dkms's postinst does not restart latencyd"
[ "$restart" -gt "$built" ] && [ "$failed" -gt "$built" ] ||
	fail "latency-tracker-dkms's postinst restarts latencyd (line $restart) before DKMS builds (line $built)"
grep -E '^[EW]: latency-tracker-dkms.*(postinst|maintainer-script)' "$T/lintian.log" &&
	fail "lintian warns about latency-tracker-dkms's postinst"
pass "versions pinned together (Recommends =, Breaks << both ways); latencyd restarted after the DKMS build"

mkdir -p "$OUT"
rm -f "$OUT"/*.deb
cp "$deb" "$dkms_deb" "$OUT/"
pass "the packages are in $OUT"
