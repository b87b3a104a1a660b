#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The container recipe (contrib/container/Containerfile). With podman or
# docker it would be built; this machine has neither, so the test runs the
# recipe's build steps itself (contrib/container/build.sh, the script the
# Containerfile's RUN calls) in a fresh copy of the source tree, without
# apt (the build deps are here), into a DESTDIR image root; then runs the
# image's command (run.sh) from that root without hugepages on net_pcap
# ports and checks that the frames went through (tshark counts them).
# That run uses the host's libraries: whether the image's runtime stage
# has them is test_container_deps.sh's question, and the af_packet mode
# (a containerlab node) test_container_af_packet.sh's.
#
#   test_container.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN SRC_DIR
set -euo pipefail
TEST_NAME=container
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

pcapgen=$2 src=$5
require_cmds git meson ninja tshark
tmp=$(mktemp -d /tmp/ibex-container.XXXXXX)
on_exit rm -rf "$tmp"

engine=$(command -v podman docker 2>/dev/null | head -1 || true)
[ -z "$engine" ] || info "$engine exists; the build steps run without it anyway"
cf=$src/contrib/container/Containerfile
grep -q '^FROM debian:12' "$cf" && grep -q 'contrib/container/build.sh' "$cf" ||
	fail "Containerfile: not from debian:12 or not built by build.sh"
grep -q 'no-huge' "$src/contrib/container/run.sh" || fail "run.sh: hugepages"

# The build context: the files git knows (tracked and new), as COPY sees.
mkdir "$tmp/src"
(cd "$src" && git ls-files -co --exclude-standard -z |
	xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$tmp/src"
[ -f "$tmp/src/meson.build" ] || fail "copy of the source"
IBEX_SKIP_DEPS=1 DESTDIR="$tmp/image" \
	"$tmp/src/contrib/container/build.sh" "$tmp/src" "$tmp/build" \
	>"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log"; fail "build.sh"; }
img=$tmp/image/usr
for f in bin/ibex-switch bin/ibex-ctl bin/ibex-gen share/man/man1/ibex-switch.1 \
	share/ibex/container/run.sh share/ibex/container/ibex.clab.yml \
	share/ibex/conf/lanes.conf; do
	[ -e "$img/$f" ] || fail "image lacks /usr/$f"
done
# Not `--version | grep -q`: grep leaves after the first line, the
# switch's second write then gets SIGPIPE, and pipefail fails the test
# (half the runs here).
ver=$("$img/bin/ibex-switch" --version) || fail "--version: exit $?"
[[ $ver == "ibex-switch "* ]] || fail "--version: $ver"
check_ok "build.sh in a fresh copy: image root with binaries, man pages, configs"

# The image's command on net_pcap ports: in0.pcap -> out1.pcap.
run=$tmp/run
mkdir "$run"
"$pcapgen" -o "$run/in0.pcap" -n 300 -p 4 >/dev/null
"$pcapgen" -o "$run/in1.pcap" -n 0 >/dev/null
dpdk_prefix prefix img
PATH=$img/bin:$PATH IBEX_RUN_DIR=$run IBEX_PORTS=pcap \
	IBEX_FILE_PREFIX=$prefix \
	"$img/share/ibex/container/run.sh" --idle-stop 1 --duration 60 \
	>"$tmp/run.log" 2>&1 || { show_log "$tmp/run.log"; fail "run.sh"; }
n=$(tshark -r "$run/out1.pcap" 2>/dev/null | wc -l)
[ "$n" -eq 300 ] || { show_log "$tmp/run.log"; fail "out1.pcap: $n frames, want 300"; }
check_ok "the image's run.sh forwarded 300 frames on net_pcap without hugepages"
