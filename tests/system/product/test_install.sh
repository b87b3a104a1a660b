#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# `meson install --destdir` of this build puts in place: the six
# binaries, seven man pages (each rendered by `man -l` with a NAME
# section), bash completion for ibex-ctl and ibex-switch (and it completes
# "show r" to "show rates" when bash-completion is there), the example
# configs, both Wireshark dissectors, the systemd unit (Type=notify,
# ExecReload SIGHUP, ExecStart at the installed binary) and the two files
# it reads in SYSCONFDIR (ibex/ibex.conf, which --check-config accepts,
# and default/ibex-switch), the eBPF header and its pkg-config file, the
# README and docs/ in share/doc/ibex, the BPF example sources once, and
# the container recipe. The installed switch then signals readiness on NOTIFY_SOCKET
# the way systemd expects (READY=1 once its control socket answers,
# STOPPING=1 at the end).
#
#   test_install.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN BUILD_DIR
set -euo pipefail
TEST_NAME=install
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

build=$5
require_cmds meson man python3
tmp=$(mktemp -d /tmp/ibex-install.XXXXXX)
on_exit rm -rf "$tmp"
dest=$tmp/root

meson install -C "$build" --no-rebuild --quiet --destdir "$dest" \
	>"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "meson install"; }
opt() { # name -> the build's value of that option
	meson introspect "$build" --buildoptions | python3 -c 'import json,sys
print([o["value"] for o in json.load(sys.stdin) if o["name"]==sys.argv[1]][0])' "$1"
}
prefix=$(opt prefix)
root=$dest$prefix
sysconf=$(opt sysconfdir)
case $sysconf in /*) etc=$dest$sysconf ;; *) etc=$root/$sysconf ;; esac
(cd "$dest" && find . \( -type f -o -type l \) | sort) >"$tmp/files"
want=(bin/ibex-switch bin/ibex-ctl bin/ibex-gen bin/ibex-pcapgen
      bin/ibex-fabric bin/ibex-topo
      share/man/man1/ibex-switch.1 share/man/man1/ibex-ctl.1
      share/man/man1/ibex-gen.1 share/man/man1/ibex-pcapgen.1
      share/man/man1/ibex-fabric.1 share/man/man1/ibex-topo.1
      share/man/man5/ibex.conf.5
      share/bash-completion/completions/ibex-ctl
      share/bash-completion/completions/ibex-switch
      share/bash-completion/completions/ibex-gen
      share/bash-completion/completions/ibex-fabric
      share/bash-completion/completions/ibex-pcapgen
      share/bash-completion/completions/ibex-topo
      share/ibex/conf/lanes.conf share/ibex/conf/lossless.conf
      share/ibex/wireshark/ibexfc.lua share/ibex/wireshark/ibexprobe.lua
      share/ibex/wireshark/ibexagg.lua
      lib/systemd/system/ibex-switch.service
      share/pkgconfig/ibex.pc include/ibex/ibex_bpf_ctx.h
      share/doc/ibex/README.md share/doc/ibex/docs/configuration.md
      share/ibex/container/Containerfile share/ibex/container/build.sh
      share/ibex/container/run.sh)
for f in "${want[@]}"; do
	[ -e "$root/$f" ] || { cat "$tmp/files"; fail "not installed: $f"; }
done
check_ok "installed: ${#want[@]} files (binaries, man, completion, configs, dissectors, unit, pkg-config, docs, container)"
for f in ibex/ibex.conf default/ibex-switch; do
	[ -f "$etc/$f" ] || { cat "$tmp/files"; fail "not installed: $etc/$f"; }
done
"$root/bin/ibex-switch" --check-config "$etc/ibex/ibex.conf" >"$tmp/check.log" 2>&1 ||
	{ cat "$tmp/check.log"; fail "the installed ibex.conf is refused"; }
check_ok "the unit's files in $etc: ibex/ibex.conf (check-config passes), default/ibex-switch"
for c in "$(dirname "$0")"/../../../conf/*.conf; do
	[ -f "$root/share/ibex/conf/$(basename "$c")" ] ||
		fail "config $(basename "$c") not installed"
done
check_ok "every example config installed"

for m in "$root"/share/man/man1/*.1 "$root"/share/man/man5/*.5; do
	MANWIDTH=100 man -l "$m" >"$tmp/page" 2>"$tmp/man.err" ||
		{ cat "$tmp/man.err"; fail "man -l $(basename "$m")"; }
	grep -q "^NAME" "$tmp/page" && grep -q "^SYNOPSIS" "$tmp/page" ||
		{ head "$tmp/page"; fail "$(basename "$m"): no NAME/SYNOPSIS"; }
	[ "$(wc -l <"$tmp/page")" -ge 20 ] || fail "$(basename "$m"): too short"
done
grep -q "lossless" "$tmp/page" || fail "ibex.conf.5 lacks the reference"
check_ok "man -l renders every page"

unit=$root/lib/systemd/system/ibex-switch.service
etc_abs=${etc#"$dest"}
grep -q "^Type=notify" "$unit" && grep -q '^ExecReload=.*-HUP' "$unit" &&
	grep -q "^ExecStart=$prefix/bin/ibex-switch .* --config $etc_abs/ibex/ibex.conf " "$unit" &&
	grep -qx "ExecStartPre=$prefix/bin/ibex-switch --check-config $etc_abs/ibex/ibex.conf" "$unit" &&
	grep -qx "EnvironmentFile=-$etc_abs/default/ibex-switch" "$unit" ||
	{ cat "$unit"; fail "the unit"; }
check_ok "unit: Type=notify, ExecReload SIGHUP, ExecStart at $prefix/bin, files in $etc_abs"

# The BPF examples once, in share/ibex/bpf (not again under share/ibex/conf).
[ "$(grep -c '/qp_range\.c$' "$tmp/files")" -eq 1 ] ||
	{ grep 'bpf/' "$tmp/files"; fail "BPF sources installed twice"; }
check_ok "BPF example sources installed once"

comp=$root/share/bash-completion/completions/ibex-ctl
bash -n "$comp" || fail "completion: syntax"
if [ -f /usr/share/bash-completion/bash_completion ]; then
	got=$(bash -c '. /usr/share/bash-completion/bash_completion; . "$1"
		COMP_WORDS=(ibex-ctl show ra); COMP_CWORD=2; COMP_LINE="ibex-ctl show ra"
		COMP_POINT=${#COMP_LINE}; _ibex_ctl; echo "${COMPREPLY[*]}"' _ "$comp")
	[ "$got" = rates ] || fail "completion of 'show ra': '$got'"
	check_ok "completion: 'ibex-ctl show ra' -> rates"
fi

# Readiness: a datagram listener in the role of systemd.
dpdk_prefix prefix sw
cat >"$tmp/notify.py" <<'PY'
import os, socket, subprocess, sys, time
path, sock_path, *cmd = sys.argv[1:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(60)
env = dict(os.environ, NOTIFY_SOCKET=path)
p = subprocess.Popen(cmd, env=env, stdout=open(path + ".log", "w"),
                     stderr=subprocess.STDOUT)
msgs = []
try:
    while not any(m.startswith("READY=1") for m in msgs):
        msgs.append(s.recv(4096).decode())
    ready = [m for m in msgs if m.startswith("READY=1")][0]
    assert "MAINPID=%d" % p.pid in ready, ready
    assert os.path.exists(sock_path), "READY before the control socket"
    p.terminate()
    while not any(m.startswith("STOPPING=1") for m in msgs):
        msgs.append(s.recv(4096).decode())
    p.wait(60)
finally:
    if p.poll() is None:
        p.kill()
print("notify:", " | ".join(m.replace("\n", "; ") for m in msgs))
PY
python3 "$tmp/notify.py" "$tmp/notify.sock" "$tmp/ctl.sock" \
	"$root/bin/ibex-switch" -l 0-1 --no-huge -m 512 --no-pci \
	--file-prefix="$prefix" --vdev net_null0 --vdev net_null1 -- \
	--ctl-socket "$tmp/ctl.sock" --duration 30 ||
	{ show_log "$tmp/notify.sock.log"; fail "sd_notify readiness"; }
check_ok "installed ibex-switch: READY=1 with MAINPID once the socket exists, STOPPING=1"
