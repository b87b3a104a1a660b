#!/usr/bin/env bash
# net_ibexlink inside the apps: --vdev works in ibex-gen and ibex-switch
# (the driver's constructor is linked in). ibex-gen runs a 2-rank ring
# all-reduce across one emulated 10G wire with 20 us of delay: nothing is
# lost and the delay shows in the latency (without the wire the minimum is
# 1-2 us). ibex-gen reads its clock once per loop iteration, so on a busy
# machine a frame can look up to one iteration younger than it is: the
# bound is half the delay (the dp test checks the exact one on the PMD's
# own clock).
#   apps.sh IBEX_GEN IBEX_SWITCH
set -euo pipefail
gen=$1 sw=$2
eal=(-l 0 --no-huge -m 1024 --no-pci --log-level='lib.*:error')
pair=(--vdev net_ibexlink0,rate=10G,delay=20us
      --vdev net_ibexlink1,peer=net_ibexlink0)
tmp=$(mktemp -d /tmp/ibexlink-apps.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$gen" "${eal[@]}" --file-prefix="ibxlg$$" "${pair[@]}" -- \
	--engine ring --ranks 2 -b 4K -e 64K -n 10 -w 2 >"$tmp/gen" 2>&1 ||
	{ echo "FAIL: ibex-gen exited $?"; cat "$tmp/gen"; exit 1; }
grep -q "2 port(s), 2 ranks" "$tmp/gen" ||
	{ echo "FAIL: ibex-gen did not get the two ibexlink ports"; cat "$tmp/gen"; exit 1; }
grep -Eq "sequence: lost 0 " "$tmp/gen" ||
	{ echo "FAIL: frames lost"; cat "$tmp/gen"; exit 1; }
min=$(sed -n 's/^# latency (ns): frames [0-9]* min \([0-9]*\) .*/\1/p' "$tmp/gen")
[ -n "$min" ] && [ "$min" -ge 10000 ] ||
	{ echo "FAIL: min latency '$min' ns: the 20 us delay does not show"; cat "$tmp/gen"; exit 1; }
echo "ok: ibex-gen over net_ibexlink: min latency $min ns, nothing lost"

# the switch needs a worker lcore besides its control thread
"$sw" -l 0-1 "${eal[@]:2}" --file-prefix="ibxls$$" "${pair[@]}" -- --duration 1 \
	>"$tmp/sw" 2>&1 || { echo "FAIL: ibex-switch exited $?"; cat "$tmp/sw"; exit 1; }
for p in net_ibexlink0 net_ibexlink1; do
	grep -q "^$p " "$tmp/sw" ||
		{ echo "FAIL: ibex-switch has no port $p"; cat "$tmp/sw"; exit 1; }
done
echo "ok: ibex-switch opened both ibexlink ports"
echo PASS
