# Shared by the VM harness scripts on the host (sourced, not run; the guest's helpers are
# scenarios/guest-lib.sh). Paths, the kernel ABI and the caches.
# Every cache entry is a directory named after a hash of its inputs; a finished entry holds
# a .done file, so an interrupted build is never mistaken for a good one.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$VM_DIR/../.." && pwd)
BUILD_DIR=${LATENCYD_BUILD_DIR:-$REPO_DIR/build}
# Outside the build tree: a new clone or build directory reuses lttng-modules and the images.
CACHE_DIR=${LATENCYD_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/latencyd/vm}

# vm_cache_lock OUT: takes OUT.lock, held until vm_cache_unlock or the script's exit, so that
# two builders of one cache entry (ctest -j, checkouts sharing the cache) never build into
# the same OUT.tmp: the second waits, then finds OUT done.
vm_cache_lock() {
	mkdir -p "$(dirname "$1")"
	exec {VM_CACHE_LOCK_FD}>"$1.lock"
	flock "$VM_CACHE_LOCK_FD"
}
vm_cache_unlock() { exec {VM_CACHE_LOCK_FD}>&-; }
# Where the project's shared sources are (../shared next to the clone): third-party trees.
THIRD_PARTY_DIR=${LATENCYD_THIRD_PARTY:-$REPO_DIR/../shared/third_party}

log() { printf 'vm: %s\n' "$*" >&2; }
die() { printf 'vm: error: %s\n' "$*" >&2; exit "${VM_EXIT_SETUP:-90}"; }

# depmod_over MODULES_DIR KVER SUBDIR DEST KO...: depmod's view of a kernel's module tree
# (MODULES_DIR/KVER, a copy of an image's lib/modules/KVER) with the KOs added in SUBDIR, as
# modules.* files in DEST. Run on the host over a tree of symbolic links: depmod in the
# guest costs the boot TCG seconds, and the image's own tree stays untouched.
depmod_over() {
	local modules=$1 kver=$2 subdir=$3 dest=$4 tree
	shift 4
	tree=$(mktemp -d "${TMPDIR:-/tmp}/latencyd-depmod.XXXXXX")
	mkdir -p "$tree/lib/modules"
	cp -as "$modules/$kver" "$tree/lib/modules/"
	mkdir -p "$tree/lib/modules/$kver/$subdir"
	cp -s "$@" "$tree/lib/modules/$kver/$subdir/"
	/sbin/depmod -b "$tree" "$kver" || { rm -rf "$tree"; die "depmod over $modules/$kver and the project's modules failed"; }
	mkdir -p "$dest"
	cp "$tree/lib/modules/$kver"/modules.* "$dest/"
	rm -rf "$tree"
}

# The kernel ABI the VM boots: LATENCYD_VM_KVER as given, else LATENCYD_VM_KERNEL (vm-run
# --kernel): 6.1 (default: the ABI of Debian's linux-headers-amd64), 6.1-rt, 6.12, 6.12-rt
# (the newest 6.12 ABI of Debian's archive), derived, never hard-coded.
vm_kver() {
	if [ -n "${LATENCYD_VM_KVER:-}" ]; then
		echo "$LATENCYD_VM_KVER"
		return
	fi
	local pkg flavour=amd64 series
	case ${LATENCYD_VM_KERNEL:-6.1} in
	6.1 | 6.1-rt)
		pkg=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
			grep -o 'linux-headers-[^ ,]*' | head -n1) || true
		[ -n "$pkg" ] || die "linux-headers-amd64 is not installed (run tools/install-deps)"
		pkg=${pkg#linux-headers-}
		[ "${LATENCYD_VM_KERNEL:-6.1}" = 6.1 ] && echo "$pkg" || echo "${pkg%-amd64}-rt-amd64"
		;;
	6.12 | 6.12-rt)
		[ "$LATENCYD_VM_KERNEL" = 6.12-rt ] && flavour=rt-amd64
		series=$(vm_abis 6.12 "$flavour" | tail -n1)
		[ -n "$series" ] || die "no linux-headers-6.12.*-$flavour in Debian's archive (apt-get update?)"
		echo "$series"
		;;
	*) die "unknown kernel '${LATENCYD_VM_KERNEL}' (6.1, 6.1-rt, 6.12 or 6.12-rt)" ;;
	esac
}

# vm_abis SERIES FLAVOUR: the ABIs of SERIES (6.12) with FLAVOUR (amd64, rt-amd64) that
# Debian's archive has headers for, oldest first.
vm_abis() {
	apt_query apt-cache pkgnames "linux-headers-$1." 2>/dev/null |
		sed -n "s/^linux-headers-\($1\.[0-9]*+deb[0-9]*-$2\)\$/\1/p" | sort -V
}

# The headers to build against for KVER: the installed ones (linux-headers-amd64, 6.1; 6.1-rt
# by tools/install-deps), else Debian's packages unpacked into the cache: 6.12's headers
# depend on the linux-image package, which the host must not install.
vm_kdir() {
	if [ -d "/usr/src/linux-headers-$1" ]; then
		echo "/usr/src/linux-headers-$1"
		return
	fi
	local kver=$1 out key p
	local debs=()
	for p in $(apt_query apt-cache depends "linux-headers-$kver" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p'); do
		debs+=("$(fetch_deb "$p")")
	done
	debs+=("$(fetch_deb "linux-headers-$kver")")
	key=$(hash_inputs "${debs[@]}")
	out="$CACHE_DIR/headers-$key"
	vm_cache_lock "$out"
	if [ ! -f "$out/.done" ]; then
		log "unpacking the headers of $kver into $out"
		rm -rf "$out" "$out.tmp"
		mkdir -p "$out.tmp"
		for p in "${debs[@]}"; do dpkg-deb -x "$p" "$out.tmp"; done
		# Its Makefile includes the -common tree by absolute path.
		sed -i "s|/usr/src/|$out/usr/src/|" "$out.tmp/usr/src/linux-headers-$kver/Makefile"
		touch "$out.tmp/.done"
		mv "$out.tmp" "$out"
	fi
	vm_cache_unlock
	echo "$out/usr/src/linux-headers-$kver"
}

# Every VM run asks apt and hashes the same packages again (a kernel package is 70-110 MB,
# and this apt keeps no binary cache: each query parses the lists), which cost 3-10 s of
# each boot. The answers are kept under the cache while what they depend on is unchanged.

# apt_query CMD...: the output of CMD (an apt-cache query), kept until apt's lists, dpkg's
# status or apt's configuration change.
apt_query() {
	local stamp f
	stamp=$(stat -c '%.9Y' /var/lib/apt/lists /var/lib/dpkg/status /etc/apt /etc/apt/sources.list.d \
		/etc/apt/preferences.d 2>/dev/null | tr '\n' .)
	f="$CACHE_DIR/apt-queries/$(printf '%s\n' "$stamp" "$@" | sha256sum | cut -c1-32)"
	if [ ! -f "$f" ]; then
		mkdir -p "${f%/*}"
		"$@" >"$f.$$" || { rm -f "$f.$$"; return 1; }
		mv -f "$f.$$" "$f"
	fi
	cat "$f"
}

# file_sha256 FILE: its SHA-256, kept while its device, inode, size and mtime are the same.
file_sha256() {
	local f
	f="$CACHE_DIR/sums/$(printf '%s\n' "$1" "$(stat -L -c '%d.%i.%s.%.9Y' "$1")" | sha256sum | cut -c1-32)"
	if [ ! -f "$f" ]; then
		mkdir -p "${f%/*}"
		sha256sum <"$1" | cut -d' ' -f1 >"$f.$$"
		mv -f "$f.$$" "$f"
	fi
	cat "$f"
}

# Hash of files' contents and of extra strings: the cache key of an entry.
hash_inputs() {
	{
		for a in "$@"; do
			if [ -f "$a" ]; then file_sha256 "$a"; else echo "$a"; fi
		done
	} | sha256sum | cut -c1-16
}

# Downloads a Debian package into the cache (never installs it) and prints the .deb path.
fetch_deb() {
	local name=$1 debs="$CACHE_DIR/debs" ver f
	mkdir -p "$debs"
	ver=$(apt_query apt-cache policy "$name" | awk '/Candidate:/ {print $2}')
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

# qemu's TCG can run a stale translation of kernel text that another CPU patched: an int3
# trap at an address that no longer holds an int3 (the oops' Code: line, read from memory
# after the trap, shows the patched instruction's byte before the bracketed one).
# text_poke_bp() serialises every CPU between its steps, so hardware cannot do this: it is
# the emulator's, never the code under test's (seen at tracepoint (un)registration).
# stale_int3 CONSOLE_LOG: true when the kernel died of such a trap.
stale_int3() {
	local code
	grep -q 'Oops: int3' "$1" || return 1
	code=$(sed -n '/Oops: int3/,$p' "$1" | grep -m1 'Code: ') || return 1
	[[ $code =~ ([0-9a-f]{2})\ \<[0-9a-f]{2}\> ]] || return 1
	[ "${BASH_REMATCH[1]}" != cc ]
}

# A CPU stuck in the kernel for the watchdog's 20 s (vm-run makes it a panic): the hang
# multi-threaded TCG has shown while probes were registered (sessiond enabling its events,
# a tracker enabled), which also ends a run that is retried once on timeout.
# soft_lockup CONSOLE_LOG: true when the kernel died of a soft lockup.
soft_lockup() {
	grep -q 'Kernel panic - not syncing: softlockup' "$1"
}
