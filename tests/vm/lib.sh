# Shared by the VM harness scripts (sourced, not run). Paths, the kernel ABI and the caches.
# Every cache entry is a directory named after a hash of its inputs; a finished entry holds
# a .done file, so an interrupted build is never mistaken for a good one.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$VM_DIR/../.." && pwd)
BUILD_DIR=${LATENCYD_BUILD_DIR:-$REPO_DIR/build}
CACHE_DIR=${LATENCYD_VM_CACHE:-$BUILD_DIR/vm-cache}

log() { printf 'vm: %s\n' "$*" >&2; }
die() { printf 'vm: error: %s\n' "$*" >&2; exit "${VM_EXIT_SETUP:-90}"; }

# The ABI of Debian's linux-headers-amd64, derived, never hard-coded.
vm_kver() {
	if [ -n "${LATENCYD_VM_KVER:-}" ]; then
		echo "$LATENCYD_VM_KVER"
		return
	fi
	local pkg
	pkg=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		grep -o 'linux-headers-[^ ,]*' | head -n1) || true
	[ -n "$pkg" ] || die "linux-headers-amd64 is not installed (run tools/install-deps)"
	echo "${pkg#linux-headers-}"
}

vm_kdir() { echo "/usr/src/linux-headers-$1"; }

# Hash of files' contents and of extra strings: the cache key of an entry.
hash_inputs() {
	{
		for a in "$@"; do
			if [ -f "$a" ]; then sha256sum "$a" | cut -d' ' -f1; else echo "$a"; fi
		done
	} | sha256sum | cut -c1-16
}

# Downloads a Debian package into the cache (never installs it) and prints the .deb path.
fetch_deb() {
	local name=$1 debs="$CACHE_DIR/debs" ver f
	mkdir -p "$debs"
	ver=$(apt-cache policy "$name" | awk '/Candidate:/ {print $2}')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "package $name not found (apt-get update?)"
	f=$(ls "$debs/${name}_"*.deb 2>/dev/null | grep -F "_$(echo "$ver" | sed 's/^[0-9]*://')_" | head -n1) || true
	if [ -z "$f" ]; then
		(cd "$debs" && apt-get download -q "$name=$ver" >/dev/null 2>&1) ||
			die "apt-get download $name=$ver failed"
		f=$(ls "$debs/${name}_"*.deb | grep -F "_$(echo "$ver" | sed 's/^[0-9]*://')_" | head -n1)
	fi
	echo "$f"
}

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo none; }

# free_port tcp|udp [EXCLUDE...]: a port on 127.0.0.1 that no socket of this machine uses now
# (and none of EXCLUDE). Only a hint: the caller still meets a bind that fails.
free_port() {
	local proto=$1 p
	shift
	for _ in $(seq 1 500); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		case " $* " in *" $p "*) continue ;; esac
		if [ -z "$(ss -Hna "--$proto" "sport = :$p" 2>/dev/null)" ]; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
