#!/bin/bash
# test-dkms.sh BUILD_DIR: the module source that "cmake --install" ships, built and installed
# by the real dkms for the VM's kernel (the ABI of linux-headers-amd64) in a private DKMS
# tree, the way a server gets it: lttng-modules-dkms provides lttng-modules' source under
# /usr/src and its modules for the kernel; here they are Debian's lttng-modules-dkms source
# and the modules the VM harness built from it (tests/vm/lttng-modules-dir).
# Checks the installed .ko files: every module, built for that kernel, with the probe's
# symbol versions equal to the ones lttng-modules exports. And that a missing lttng-modules
# source is a clear error.
set -euo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
. "$(dirname "$0")/../vm/host-lib.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: dkms needs root"; exit 77; }
command -v dkms >/dev/null || { echo "SKIP: dkms is not installed (tools/install-deps)"; exit 77; }

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
pass() { echo "ok: $*"; }

kver=$(vm_kver)
kdir=$(vm_kdir "$kver")
[ -d "$kdir" ] || fail "no kernel headers at $kdir"
lttng_built=$("$VM_DIR/lttng-modules-dir")
lttng_deb=$(fetch_deb lttng-modules-dkms)

T=$(mktemp -d /tmp/latencyd-dkms.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/dkms" "$T/src" "$T/root/lib/modules/$kver/updates/dkms"
dkms_opts=(--dkmstree "$T/dkms" --sourcetree "$T/src" --installtree "$T/root/lib/modules"
	-k "$kver" --kernelsourcedir "$kdir")

# What "cmake --install --prefix /usr" puts under /usr/src.
DESTDIR=$T/dest cmake --install "$BUILD" --prefix /usr --component dkms >/dev/null
src=$(ls -d "$T"/dest/usr/src/latency-tracker-*)
[ -f "$src/dkms.conf" ] || fail "cmake --install put no dkms.conf in $src"
version=${src##*/latency-tracker-}
mv "$src" "$T/src/"
pass "cmake --install: $(find "$T/src" -type f | wc -l) files in /usr/src/latency-tracker-$version"

# What lttng-modules-dkms leaves on a server: its source, and its modules for the kernel.
dpkg-deb -x "$lttng_deb" "$T/deb"
lttng_src=$(ls -d "$T"/deb/usr/src/lttng-modules-*)
find "$lttng_built" -name 'lttng-*.ko' -exec cp {} "$T/root/lib/modules/$kver/updates/dkms/" \;

dkms add -m latency-tracker -v "$version" "${dkms_opts[@]}" >"$T/add.log" 2>&1 ||
	{ cat "$T/add.log"; fail "dkms add"; }

# Without lttng-modules' source the build stops and says what to install.
if dkms build -m latency-tracker -v "$version" "${dkms_opts[@]}" >"$T/build.log" 2>&1; then
	fail "dkms build succeeded without the lttng-modules source"
fi
grep -q "its source is not in $T/src/lttng-modules-" "$T/dkms/latency-tracker/$version/build/make.log" ||
	{ cat "$T/build.log" "$T/dkms/latency-tracker/$version/build/make.log"; fail "no clear error"; }
pass "without lttng-modules' source: $(grep -o 'dkms-build: error: .*' \
	"$T/dkms/latency-tracker/$version/build/make.log" | cut -c1-100)..."

mv "$lttng_src" "$T/src/"
dkms build -m latency-tracker -v "$version" "${dkms_opts[@]}" >"$T/build.log" 2>&1 ||
	{ cat "$T/build.log" "$T/dkms/latency-tracker/$version/build/make.log" 2>/dev/null; fail "dkms build"; }
# depmod is ours: dkms would run it on the host's /lib/modules.
dkms install -m latency-tracker -v "$version" "${dkms_opts[@]}" --no-depmod >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "dkms install"; }
dkms status -m latency-tracker "${dkms_opts[@]}" | grep -q "latency-tracker/$version, $kver, .*: installed" ||
	{ dkms status "${dkms_opts[@]}"; fail "dkms status does not say installed"; }
pass "dkms add, build, install for $kver"

# Every module, from the source tree itself: the core, one per tracker, the probe.
expected="latency_tracker lttng-probe-latency_tracker"
for c in "$REPO_DIR"/kmod/trackers/*.c; do
	t=$(basename "$c" .c)
	[ "$t" = common ] || expected="$expected latency_tracker_$t"
done
mods=$T/root/lib/modules/$kver
for m in $expected; do
	ko=$(find "$mods" -name "$m.ko*" | head -n1)
	[ -n "$ko" ] || fail "$m.ko is not installed"
	[ "$(modinfo -F name "$ko")" = "$(echo "$m" | tr - _)" ] || fail "$ko: name $(modinfo -F name "$ko")"
	vermagic=$(modinfo -F vermagic "$ko")
	case $vermagic in "$kver "*) ;; *) fail "$m: vermagic '$vermagic' is not $kver" ;; esac
done
pass "installed for $kver: $expected"

# (no modules.builtin and modules.order here: depmod warns about them, which is fine)
/sbin/depmod -b "$T/root" "$kver" 2>/dev/null
deps=$(/sbin/modprobe -d "$T/root" -S "$kver" --show-depends lttng-probe-latency_tracker)
echo "$deps" | grep -q '/lttng-tracer.ko' || { echo "$deps"; fail "the probe does not depend on lttng-tracer"; }
deps=$(/sbin/modprobe -d "$T/root" -S "$kver" --show-depends latency_tracker_syscalls)
echo "$deps" | grep -q '/latency_tracker.ko' || { echo "$deps"; fail "a tracker does not depend on the core"; }
pass "depmod: the probe needs lttng-tracer, the trackers the core"

# The probe's symbol versions are the ones that modpost wrote when lttng-modules was built:
# the kernel refuses a module whose CRC disagrees.
probe=$(find "$mods" -name 'lttng-probe-latency_tracker.ko*')
n=0
while read -r crc sym; do
	want=$(awk -v s="$sym" '$2 == s {print $1}' "$lttng_built/Module.symvers")
	[ -n "$want" ] || continue
	[ "$((crc))" = "$((want))" ] || fail "$sym: the probe has CRC $crc, lttng-modules exports $want"
	n=$((n + 1))
done < <(/sbin/modprobe --dump-modversions "$probe")
[ "$n" -gt 0 ] || fail "the probe uses no lttng-modules symbol with a version"
pass "the probe's $n lttng-modules symbol versions match lttng-modules' Module.symvers"
