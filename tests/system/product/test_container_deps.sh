#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The container image's runtime stage holds every library its binaries and
# its DPDK drivers need, from its own packages: not the host's.
#
# No container engine runs here, so the test rebuilds the image's runtime
# root the way `apt-get install` in the Containerfile would:
#   1. the package list is read from the Containerfile's last stage (the
#      words between --no-install-recommends and &&): one source;
#   2. apt resolves it from scratch (an empty dpkg status, Debian 12's
#      archive in its own lists, recommends off), downloads the closure
#      (cached in IBEX_APT_CACHE, default /var/tmp/ibex-container-apt) and
#      unpacks it into an empty root; this build's `meson install` goes on
#      top, as COPY --from=build does;
#   3. every ibex binary and every driver in the root's EAL plugin
#      directory (EAL dlopens them all at start) has each DT_NEEDED,
#      recursively, as a file in that root;
#   4. the drivers ibex documents as ports are in the plugin directory;
#   5. as root: ibex-pcapgen and ibex-switch run chrooted in that root (no
#      host library reachable; /dev, /proc, /sys bound in a private mount
#      namespace) on two net_pcap ports without hugepages, and the frames
#      go through.
#
#   test_container_deps.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN SRC_DIR BUILD_DIR
#
# IBEX_CONTAINERFILE=FILE checks another Containerfile (an old one, say).
# Skipped (77) without apt/dpkg-deb/readelf or when Debian's archive is not
# reachable.
set -euo pipefail
TEST_NAME=container_deps
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

src=$5 build=$6
cf=${IBEX_CONTAINERFILE:-$src/contrib/container/Containerfile}
require_cmds apt-get dpkg-deb readelf meson tshark flock python3
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || skip "no $keyring (debian-archive-keyring)"
tmp=$(mktemp -d /tmp/ibex-container-deps.XXXXXX)
on_exit rm -rf "$tmp"

# --- 1. the runtime stage's packages ---------------------------------------
# The last FROM starts the runtime stage; its apt-get install line runs
# from --no-install-recommends to the next &&.
mapfile -t pkgs < <(awk '
	/^FROM / { stage = ""; next }
	{ stage = stage " " $0 }
	END {
		sub(/.*--no-install-recommends/, "", stage)
		sub(/&&.*/, "", stage)
		gsub(/\\/, " ", stage)
		n = split(stage, w, /[ \t]+/)
		for (i = 1; i <= n; i++)
			if (w[i] != "" && w[i] !~ /^-/)
				print w[i]
	}' "$cf")
[ ${#pkgs[@]} -gt 0 ] || fail "$cf: no package list after --no-install-recommends in the last stage"
info "runtime stage of $cf: ${pkgs[*]}"

# --- 2. resolve, download, unpack ------------------------------------------
cache=${IBEX_APT_CACHE:-/var/tmp/ibex-container-apt}
mkdir -p "$cache/lists/partial" "$cache/archives/partial" "$cache/debs"
cat >"$cache/sources.list" <<EOF
deb [signed-by=$keyring] http://deb.debian.org/debian bookworm main
deb [signed-by=$keyring] http://deb.debian.org/debian bookworm-updates main
deb [signed-by=$keyring] http://deb.debian.org/debian-security bookworm-security main
EOF
: >"$tmp/status"	# nothing installed: the closure is complete
apt_opts=(-o "Dir::Etc::SourceList=$cache/sources.list"
	-o Dir::Etc::SourceParts=/nonexistent
	-o Dir::Etc::PreferencesParts=/nonexistent
	-o Dir::Etc::Preferences=/nonexistent
	-o "Dir::State::Lists=$cache/lists"
	-o "Dir::State::status=$tmp/status"
	-o "Dir::Cache=$cache"
	-o "Dir::Cache::Archives=$cache/archives"
	-o Debug::NoLocking=1 -o APT::Sandbox::User=root
	-o "APT::Architecture=$(dpkg --print-architecture)"
	-o "APT::Architectures=$(dpkg --print-architecture)")
# One run at a time updates and fills the cache (apt's own locks are off:
# the cache is not the system's).
exec 9>"$cache/lock"
flock -w 300 9 || fail "$cache/lock: still held after 300 s"
# Lists older than a day are fetched again (security updates).
if [ -z "$(find "$cache/lists" -name '*_Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
	info "apt-get update of Debian 12's lists into $cache"
	apt-get "${apt_opts[@]}" update -qq >"$tmp/update.log" 2>&1 ||
		{ show_log "$tmp/update.log"; skip "Debian's archive not reachable (apt-get update)"; }
fi
apt-get "${apt_opts[@]}" install -s -q --no-install-recommends "${pkgs[@]}" \
	>"$tmp/resolve.log" 2>&1 ||
	{ show_log "$tmp/resolve.log"; fail "apt cannot install the runtime stage's packages"; }
mapfile -t inst < <(sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1=\2/p' "$tmp/resolve.log")
[ ${#inst[@]} -gt 0 ] || { show_log "$tmp/resolve.log"; fail "apt resolved no packages"; }
info "the closure: ${#inst[@]} packages"

# The .deb of NAME=VERSION is NAME_VERSION_ARCH.deb, the epoch's colon
# written %3a; only those not yet in the cache are downloaded.
need=()
for nv in "${inst[@]}"; do
	n=${nv%%=*} v=${nv#*=}
	compgen -G "$cache/debs/${n}_${v//:/%3a}_*.deb" >/dev/null || need+=("$nv")
done
if [ ${#need[@]} -gt 0 ]; then
	(cd "$cache/debs" && apt-get "${apt_opts[@]}" download -q "${need[@]}") \
		>"$tmp/download.log" 2>&1 ||
		{ show_log "$tmp/download.log"; skip "apt-get download from Debian's archive failed"; }
fi
root=$tmp/root
mkdir "$root"
for nv in "${inst[@]}"; do
	n=${nv%%=*} v=${nv#*=}
	deb=$(compgen -G "$cache/debs/${n}_${v//:/%3a}_*.deb" | head -1)
	[ -n "$deb" ] || fail "$nv: not downloaded"
	dpkg-deb -x "$deb" "$root" || fail "dpkg-deb -x $deb"
done
meson install -C "$build" --no-rebuild --quiet --destdir "$root" \
	>"$tmp/install.log" 2>&1 || { show_log "$tmp/install.log"; fail "meson install"; }
# meson installs under its --prefix: /usr in the image (build.sh).
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
if [ "$prefix" != /usr ]; then
	mkdir -p "$root/usr/bin"
	cp -a "$root$prefix/bin/." "$root/usr/bin/"
fi
check_ok "the image's root: ${#inst[@]} Debian 12 packages and this build's install"

# --- 3. every DT_NEEDED is a file in the root --------------------------------
# The multiarch directory (x86_64-linux-gnu) is the C library's.
libc=$(find "$root" -name libc.so.6 | head -1)
[ -n "$libc" ] || fail "no libc.so.6 in the closure"
ma=$(basename "$(dirname "$libc")")
# EAL's plugin directory (RTE_EAL_PMD_PATH): /usr/lib/<multiarch>/dpdk/pmds-<ABI>.
pmds=$(find "$root/usr/lib/$ma/dpdk" -maxdepth 1 -type d -name 'pmds-*' 2>/dev/null | head -1 || true)
[ -n "$pmds" ] || info "the runtime stage has no EAL plugin directory (/usr/lib/$ma/dpdk/pmds-*)"
libdirs=("$root/lib/$ma" "$root/usr/lib/$ma" "$root/lib" "$root/usr/lib" "$root/lib64")

# The sanitizers' runtimes of an ASan build are not part of the image.
sanitizer_lib() {
	case $1 in libasan.so* | libubsan.so* | liblsan.so* | libtsan.so*) return 0 ;; esac
	return 1
}
# in_root PATH: PATH (a path inside the root, with $root in front) with
# its symbolic links followed inside the root (an absolute link target is
# the root's, not the host's); prints the file, fails when there is none.
in_root() {
	local p=$1 t i

	for ((i = 0; i < 40; i++)); do
		if [ -L "$p" ]; then
			t=$(readlink "$p")
			case $t in
			/*) p=$root$t ;;
			*) p=$(dirname "$p")/$t ;;
			esac
		elif [ -f "$p" ]; then
			printf '%s\n' "$p"
			return 0
		else
			return 1
		fi
	done
	return 1
}
declare -A seen=() missing=()
# check ELF WHO: resolve ELF's DT_NEEDED in the root, recursively.
check() {
	local elf=$1 who=$2 so d found

	for so in $(readelf -d "$elf" 2>/dev/null |
			sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -z "${seen[$so]:-}" ] || continue
		sanitizer_lib "$so" && continue
		found=""
		for d in "${libdirs[@]}"; do
			found=$(in_root "$d/$so") && break
		done
		if [ -z "$found" ]; then
			missing[$so]="${missing[$so]:-}${missing[$so]:+, }$who"
			continue
		fi
		seen[$so]=$found
		check "$found" "$who"
	done
}
nbin=0
for b in "$root"/usr/bin/ibex-*; do
	[ -f "$b" ] && readelf -h "$b" >/dev/null 2>&1 || continue
	check "$b" "$(basename "$b")"
	nbin=$((nbin + 1))
done
[ "$nbin" -ge 4 ] || fail "only $nbin ibex binaries in the root"
ndrv=0
# EAL's plugin scan takes *.so and *.so.<ABI>; both are links to one file.
for f in ${pmds:+"$pmds"/*.so*}; do
	[ -e "$f" ] || continue
	d=$(in_root "$f") || fail "$(basename "$f"): a link to nothing in the image"
	check "$d" "$(basename "$f")"
	ndrv=$((ndrv + 1))
done
if [ ${#missing[@]} -gt 0 ]; then
	for so in "${!missing[@]}"; do
		printf '%s: not in the image: %s (needed by %s)\n' "$TEST_NAME" "$so" "${missing[$so]}"
	done | sort >&2
	fail "${#missing[@]} libraries the binaries or drivers need are not in the runtime stage"
fi
check_ok "$nbin binaries and $ndrv driver files: ${#seen[@]} libraries, all in the image"

# --- 4. the drivers ibex uses as ports ----------------------------------------
nodrv=()
for d in bus_vdev mempool_ring mempool_stack net_ring net_null net_memif net_pcap \
		net_af_packet net_af_xdp net_virtio net_vhost net_tap; do
	[ -n "$pmds" ] && compgen -G "$pmds/librte_$d.so*" >/dev/null || nodrv+=("$d")
done
[ ${#nodrv[@]} -eq 0 ] || fail "drivers not in the image's EAL plugin directory: ${nodrv[*]}"
check_ok "drivers in the image: mempool ring and stack, ring, null, memif, pcap, af_packet, af_xdp, virtio, vhost, tap"

# --- 5. run it in that root alone -------------------------------------------
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v chroot >/dev/null; then
	info "not root (or no unshare/chroot): the chrooted run is left out"
	info "PASS"
	exit 0
fi
mkdir -p "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/run/ibex" "$root/var/run"
# inroot CMD...: CMD chrooted in the root, with /dev, /proc and /sys of the
# host in a mount namespace of its own (they go when it ends).
inroot() {
	unshare --mount --propagation private sh -c '
		r=$1; shift
		mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
		mount --rbind /sys "$r/sys" && exec chroot "$r" "$@"' sh "$root" "$@"
}
inroot /usr/bin/ibex-switch --version >"$tmp/version.log" 2>&1 ||
	{ show_log "$tmp/version.log"; fail "ibex-switch --version in the image's root"; }
grep -q '^ibex-switch ' "$tmp/version.log" || { show_log "$tmp/version.log"; fail "--version"; }
inroot /usr/bin/ibex-pcapgen -o /run/ibex/in0.pcap -n 200 -p 4 >/dev/null 2>&1 &&
	inroot /usr/bin/ibex-pcapgen -o /run/ibex/in1.pcap -n 0 >/dev/null 2>&1 ||
	fail "ibex-pcapgen in the image's root"
dpdk_prefix prefix root
on_exit rm -rf "$root/var/run/dpdk/$prefix"
if ! inroot /usr/bin/ibex-switch -l 0-1 --no-huge -m 512 --no-pci \
		--file-prefix "$prefix" \
		--vdev net_pcap0,rx_pcap=/run/ibex/in0.pcap,tx_pcap=/run/ibex/out0.pcap \
		--vdev net_pcap1,rx_pcap=/run/ibex/in1.pcap,tx_pcap=/run/ibex/out1.pcap \
		-- --idle-stop 1 --duration 60 >"$tmp/run.log" 2>&1; then
	show_log "$tmp/run.log"
	fail "ibex-switch on net_pcap in the image's root"
fi
n=$(tshark -r "$root/run/ibex/out1.pcap" 2>/dev/null | wc -l)
[ "$n" -eq 200 ] || { show_log "$tmp/run.log"; fail "out1.pcap: $n frames, want 200"; }
check_ok "chrooted in the image's root: --version, and 200 frames through net_pcap without hugepages"
info "PASS"
