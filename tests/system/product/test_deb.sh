#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The Debian package: `dpkg-buildpackage -b -us -uc` in a fresh copy of the
# source tree (the files git knows, tracked and new) builds ibex's .deb,
# and the .deb holds:
#   - every file meson installed (the build's install log), man pages and
#     .md docs as dh leaves them; so whatever meson installs is packaged;
#   - the six binaries, the unit in /lib/systemd/system with its
#     ExecStartPre/ExecStart at /usr/bin and /etc/ibex/ibex.conf; the
#     maintainer scripts do not enable it, nor stop or restart it on an
#     upgrade, and stop it on removal;
#   - /etc/ibex/ibex.conf and /etc/default/ibex-switch as conffiles, the
#     former accepted by the packaged `ibex-switch --check-config`;
#   - share/pkgconfig/ibex.pc: `pkg-config --cflags ibex` against the
#     extracted tree names the directory of ibex_bpf_ctx.h, and a packaged
#     example program compiles with it (when clang targets bpf);
#   - README, docs/*.md and the figures in /usr/share/doc/ibex (the .md
#     files uncompressed, so their links hold), copyright, changelog;
#   - no file twice (the BPF sources were once installed in two places);
# and lintian reports no error on it (warnings are printed).
#
# The package is built with DEB_BUILD_OPTIONS="nolto nocheck" unless
# DEB_BUILD_OPTIONS is set (even empty): what is tested is the packaging,
# and LTO's link and the package's own unit-test run add minutes that the
# unit suite and the release build of test_container already spend
# (docs/packaging.md: ~3 minutes, against ~4 to 8 with the unit tests and
# more with LTO). A whole package build, as a release:
#   DEB_BUILD_OPTIONS= meson test -C build deb --print-errorlogs
#
#   test_deb.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN SRC_DIR
set -euo pipefail
TEST_NAME=deb
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

src=$5
require_cmds git dpkg-buildpackage dpkg-checkbuilddeps dh lintian dpkg-deb \
	pkg-config
tmp=$(mktemp -d /tmp/ibex-deb.XXXXXX)
on_exit rm -rf "$tmp"

(cd "$src" && dpkg-checkbuilddeps) >"$tmp/deps.log" 2>&1 ||
	skip "build dependencies missing: $(cat "$tmp/deps.log")"

mkdir -p "$tmp/src/ibex"
(cd "$src" && git ls-files -co --exclude-standard -z |
	xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$tmp/src/ibex"
[ -f "$tmp/src/ibex/debian/rules" ] || fail "copy of the source: no debian/rules"
t0=$(date +%s)
(cd "$tmp/src/ibex" &&
	DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS-nolto nocheck} dpkg-buildpackage -b -us -uc) \
	>"$tmp/build.log" 2>&1 ||
	{ show_log "$tmp/build.log" 60; fail "dpkg-buildpackage"; }
debs=("$tmp"/src/ibex_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] ||
	{ ls -l "$tmp/src"; fail "not one ibex_*.deb"; }
deb=${debs[0]}
check_ok "dpkg-buildpackage -b: $(basename "$deb") in $(( $(date +%s) - t0 )) s" \
	"(DEB_BUILD_OPTIONS='${DEB_BUILD_OPTIONS-nolto nocheck}')"

root=$tmp/root
dpkg-deb -x "$deb" "$root"
dpkg-deb -e "$deb" "$tmp/control"
(cd "$root" && find . \( -type f -o -type l \) | sed 's|^\./|/|' | sort) \
	>"$tmp/files"

# Every file meson installed is in the package (dh compresses man pages).
log=$(echo "$tmp"/src/ibex/obj-*/meson-logs/install-log.txt)
[ -f "$log" ] || fail "no meson install log"
pkgdir=$tmp/src/ibex/debian/ibex
n=0
while read -r f; do
	case $f in \#*|'') continue ;; esac
	f=${f#"$pkgdir"}
	[ -d "$root$f" ] && continue	# the log names directories too
	grep -qxF -e "$f" -e "$f.gz" "$tmp/files" ||
		{ cat "$tmp/files"; fail "meson installed $f, the package lacks it"; }
	n=$((n + 1))
done <"$log"
[ "$n" -ge 40 ] || fail "meson installed only $n files"
check_ok "all $n files meson installed are in the package"

want=(/usr/bin/ibex-switch /usr/bin/ibex-ctl /usr/bin/ibex-gen
      /usr/bin/ibex-pcapgen /usr/bin/ibex-fabric /usr/bin/ibex-topo
      /lib/systemd/system/ibex-switch.service
      /etc/ibex/ibex.conf /etc/default/ibex-switch
      /usr/share/man/man1/ibex-switch.1.gz /usr/share/man/man5/ibex.conf.5.gz
      /usr/share/bash-completion/completions/ibex-ctl
      /usr/include/ibex/ibex_bpf_ctx.h /usr/share/pkgconfig/ibex.pc
      /usr/share/doc/ibex/README.md /usr/share/doc/ibex/docs/configuration.md
      /usr/share/doc/ibex/docs/ecn-curve.png /usr/share/doc/ibex/copyright
      /usr/share/doc/ibex/changelog.gz
      /usr/share/ibex/conf/lanes.conf /usr/share/ibex/bpf/qp_range.c
      /usr/share/ibex/bpf/qp_range.o /usr/share/ibex/wireshark/ibexfc.lua)
for f in "${want[@]}"; do
	grep -qxF "$f" "$tmp/files" || { cat "$tmp/files"; fail "not packaged: $f"; }
done
for d in "$src"/docs/*.md "$src"/docs/*.png; do
	grep -qxF "/usr/share/doc/ibex/docs/$(basename "$d")" "$tmp/files" ||
		fail "doc not packaged: docs/$(basename "$d")"
done
for b in "$root"/usr/bin/*; do
	[ -x "$b" ] || fail "$b: not executable"
done
check_ok "${#want[@]} key files, every docs/*.md and figure, binaries executable"

# No file twice: the same content at two paths (symlinks aside).
(cd "$root" && find . -type f -size +0 -exec md5sum {} + | sort) >"$tmp/sums"
dups=$(awk '{print $1}' "$tmp/sums" | uniq -d)
if [ -n "$dups" ]; then
	grep -F "$dups" "$tmp/sums"
	fail "files packaged twice (above)"
fi
[ "$(grep -c '/qp_range\.c$' "$tmp/files")" -eq 1 ] || fail "qp_range.c twice"
check_ok "no file packaged twice (BPF sources once, in /usr/share/ibex/bpf)"

# Conffiles, and the unit pointing at them; not enabled nor started.
for c in /etc/ibex/ibex.conf /etc/default/ibex-switch; do
	grep -qxF "$c" "$tmp/control/conffiles" ||
		{ cat "$tmp/control/conffiles"; fail "$c: not a conffile"; }
done
unit=$root/lib/systemd/system/ibex-switch.service
grep -qx 'ExecStartPre=/usr/bin/ibex-switch --check-config /etc/ibex/ibex.conf' "$unit" &&
	grep -q '^ExecStart=/usr/bin/ibex-switch .* --config /etc/ibex/ibex.conf ' "$unit" &&
	grep -qx 'EnvironmentFile=-/etc/default/ibex-switch' "$unit" ||
	{ cat "$unit"; fail "the unit's paths"; }
# dh_installsystemd --no-enable --no-stop-on-upgrade: the not-enabling
# snippet (the enabling one "runs enable" on new installations); no stop
# before an upgrade, no restart after it; a stop on removal.
ctl=$tmp/control
grep -q "deb-systemd-helper debian-installed 'ibex-switch.service'" "$ctl/postinst" &&
	! grep -q 'new installations run enable' "$ctl/postinst" ||
	{ cat "$ctl/postinst"; fail "postinst enables ibex-switch.service"; }
! grep -Eq 'deb-systemd-invoke (try-)?restart|_dh_action=restart' "$ctl/postinst" ||
	{ cat "$ctl/postinst"; fail "postinst restarts ibex-switch.service on upgrade"; }
[ ! -f "$ctl/preinst" ] || ! grep -q 'deb-systemd-invoke stop' "$ctl/preinst" ||
	{ cat "$ctl/preinst"; fail "preinst stops ibex-switch.service on upgrade"; }
grep -q "deb-systemd-invoke stop 'ibex-switch.service'" "$ctl/prerm" ||
	{ cat "$ctl/prerm"; fail "prerm does not stop ibex-switch.service on removal"; }
"$root/usr/bin/ibex-switch" --check-config "$root/etc/ibex/ibex.conf" \
	>"$tmp/check.log" 2>&1 || { cat "$tmp/check.log"; fail "shipped ibex.conf rejected"; }
grep -q -- '--no-huge' "$root/etc/default/ibex-switch" ||
	fail "/etc/default/ibex-switch: the default needs hugepages"
check_ok "conffiles /etc/ibex/ibex.conf (check-config passes) and /etc/default/ibex-switch; unit at them; not enabled, not stopped or restarted by an upgrade, stopped on removal"

# pkg-config against the extracted tree.
cflags=$(PKG_CONFIG_PATH=$root/usr/share/pkgconfig PKG_CONFIG_LIBDIR=/nonexistent \
	PKG_CONFIG_SYSROOT_DIR=$root pkg-config --cflags ibex) ||
	fail "pkg-config --cflags ibex"
cflags=${cflags%% }	# pkg-config ends its words with a blank
[ "$cflags" = "-I$root/usr/include/ibex" ] || fail "pkg-config --cflags ibex: '$cflags'"
[ -f "${cflags#-I}/ibex_bpf_ctx.h" ] || fail "no ibex_bpf_ctx.h in ${cflags#-I}"
if command -v clang >/dev/null && clang -print-targets 2>/dev/null | grep -qw bpf; then
	# shellcheck disable=SC2086 # cflags: words for clang
	clang -O2 -g -target bpf $cflags -c "$root/usr/share/ibex/bpf/qp_range.c" \
		-o "$tmp/qp_range.o" || fail "qp_range.c with pkg-config's cflags"
	check_ok "pkg-config --cflags ibex: $cflags; the packaged qp_range.c compiles with it"
else
	check_ok "pkg-config --cflags ibex: $cflags holds ibex_bpf_ctx.h (no bpf clang to compile with)"
fi

# lintian: no error. Warnings and overrides are docs/packaging.md's list.
lintian --tag-display-limit 0 "$deb" >"$tmp/lintian.log" 2>&1 || true
if grep -q '^E: ' "$tmp/lintian.log"; then
	cat "$tmp/lintian.log"
	fail "lintian errors"
fi
info "lintian: $(grep -c '^W: ' "$tmp/lintian.log" || true) warnings"
grep '^[WI]: ' "$tmp/lintian.log" | sed "s/^/$TEST_NAME:   /" || true
check_ok "lintian: no error"
