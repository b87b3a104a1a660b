#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# System test: eBPF classifiers loaded, replaced and removed through
# ibex-ctl while the switch forwards.
#   - show bpf names the running program, JIT or interpreter, and counts;
#   - a program rte_bpf's verifier refuses (reads out of its context) and a
#     file that is not ELF are refused with the loader's reason: the
#     running program stays and keeps counting;
#   - replacing and removing take effect; forwarding never stops and
#     nothing is dropped on the way.
#
# Traffic: p0 replays RoCEv2 frames A_i -> B_i forever (net_pcap
# infinite_rx); the B_i are static on p1 (net_null).
#
#   test_ctl_bpf.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL QP_RANGE.O DSCP_CNP.O OOB.O
set -euo pipefail
TEST_NAME=ctl_bpf
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=$1 gen=$2 ctl=$3 qp=$4 dscp=$5 oob=$6
require_cmds jq

tmp=$(mktemp -d /tmp/ibex-ctlbpf.XXXXXX)
on_exit rm -rf "$tmp"
dpdk_prefix prefix sock
sock="$tmp/ctl.sock"

"$gen" -o "$tmp/in.pcap" -n 200 -p 4 --kind roce --dscp 26 >/dev/null
cat >"$tmp/switch.conf" <<EOF
port p0 dev net_pcap0 sl-from bpf $qp
port p1 dev net_null0
fdb static 02:00:00:00:0b:00 port p1
fdb static 02:00:00:00:0b:01 port p1
fdb static 02:00:00:00:0b:02 port p1
fdb static 02:00:00:00:0b:03 port p1
EOF

start_bg swpid "$tmp/switch.log" "$sw" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap,infinite_rx=1" \
	--vdev "net_null0,no-rx=1" \
	-- --config "$tmp/switch.conf" --ctl-socket "$sock" --duration 120
c() { "$ctl" --socket "$sock" "$@"; }
if ! wait_until_or_dead 30 "$swpid" c show ports; then
	show_log "$tmp/switch.log"
	fail "the control socket did not answer"
fi
grep -q "qp_range.o:ibex: [0-9]* instructions, \(JIT\|interpreted\)" \
	"$tmp/switch.log" || { show_log "$tmp/switch.log"; fail "no load line at start"; }
check_ok "$(grep -o 'qp_range.o:ibex: .*' "$tmp/switch.log")"

bpf() { c show bpf p0 --json | jq -r ".bpf.p0.$1"; }
frames() { bpf frames; }
# grows NAME: the program's frame count goes on growing.
grows() {
	local f0

	f0=$(frames)
	wait_until 30 sh -c "[ \$($ctl --socket $sock show bpf p0 --json | jq -r .bpf.p0.frames) -gt $f0 ]" ||
		fail "$1: the program's frame count stays at $f0"
}
tx() { c show ports --json | jq -r '.ports[] | select(.name == "p1") | .tx_frames'; }
tx_grows() {
	local t0

	t0=$(tx)
	wait_until 30 sh -c "[ \$($ctl --socket $sock show ports --json | jq -r '.ports[] | select(.name == \"p1\") | .tx_frames') -gt $t0 ]" ||
		fail "$1: p1 stopped forwarding"
}

[ "$(bpf on)" = true ] || fail "show bpf: no program on p0"
[ "$(bpf section)" = ibex ] && [ "$(bpf function)" = qp_range ] ||
	fail "show bpf: $(c show bpf p0 --json)"
grows "qp_range"
# pcapgen's RoCEv2 frames carry QPs from 0x100 up: SL 2.
[ "$(c show bpf p0 --json | jq -r '.bpf.p0.sl[2]')" -gt 0 ] ||
	fail "no SL 2 verdicts: $(c show bpf p0 --json)"
check_ok "qp_range runs ($(bpf jit | sed 's/true/JIT/;s/false/interpreted/')), $(frames) frames so far"
c show bpf

refused() { # cmd want
	local out rc=0

	out=$(c "$1" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "'$1' exit status $rc, want 1 ($out)"
	case "$out" in
	*"$2"*) check_ok "refused: ${out#ibex-ctl: }" ;;
	*) fail "'$1': '$out' lacks '$2'" ;;
	esac
	[ "$(bpf function)" = qp_range ] || fail "the running program changed"
	grows "after a refused load"
}
refused "set port p0 sl-from bpf $oob" "rejected by rte_bpf"
refused "set port p0 sl-from bpf $tmp/switch.conf" "not a proper ELF object"
refused "set port p0 sl-from bpf $dscp" "2 programs: name one with FILE:SECTION"

c set port p0 sl-from bpf "$dscp:ibex/dscp_cnp" || fail "replace refused"
[ "$(bpf function)" = dscp_cnp ] || fail "not replaced: $(c show bpf p0 --json)"
s3=$(c show bpf p0 --json | jq -r '.bpf.p0.sl[3]')
grows "dscp_cnp"
tx_grows "after the replace"
wait_until 30 sh -c "[ \$($ctl --socket $sock show bpf p0 --json | jq -r '.bpf.p0.sl[3]') -gt $s3 ]" ||
	fail "dscp_cnp gives DSCP 26 no SL 3"
check_ok "replaced live by dscp_cnp: DSCP 26 -> SL 3"

c set port p0 sl-from pcp || fail "remove refused"
[ "$(bpf on)" = false ] || fail "not removed: $(c show bpf p0 --json)"
tx_grows "after the removal"
check_ok "removed live: the built-in classifier again"

drops=$(c show drops p0 --json | jq '[.drops.p0[]] | add // 0')
[ "$drops" -eq 0 ] || fail "p0 dropped $drops frames: $(c show drops p0)"
check_ok "no frame dropped through the changes"
stop_pid "$swpid" INT
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/switch.log"; fail "switch exit status $WAIT_RC"; }
echo PASS
