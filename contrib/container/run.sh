#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The container's default command: ibex-switch without hugepages on two
# memif server ports in /run/ibex (IBEX_PORTS="memif" default), or on
# net_pcap files (IBEX_PORTS="pcap": /run/ibex/in0.pcap -> out1.pcap), with
# the configuration IBEX_CONF (default: every port in VLAN 1), EAL cores
# IBEX_LCORES (-l 0-1), memory IBEX_MEM_MB, file prefix IBEX_FILE_PREFIX and the
# control socket /run/ibex/ibex-ctl.sock. Extra ibex-switch options: "$@".
set -eu
dir=${IBEX_RUN_DIR:-/run/ibex}
# Owner-only (docs/configuration.md, "memif sockets"): the peers run as
# the same user (root) and reach it through the volume.
mkdir -p -m 0700 "$dir"
case ${IBEX_PORTS:-memif} in
memif)
	# Socket files (not DPDK's default abstract names, which any
	# process in the network namespace could attach to): peers mount
	# $dir and give socket=$dir/memif.sock,socket-abstract=no,id=N.
	vdevs="--vdev net_memif0,role=server,socket=$dir/memif.sock,socket-abstract=no,id=0
	       --vdev net_memif1,role=server,socket=$dir/memif.sock,socket-abstract=no,id=1" ;;
pcap)
	vdevs="--vdev net_pcap0,rx_pcap=$dir/in0.pcap,tx_pcap=$dir/out0.pcap
	       --vdev net_pcap1,rx_pcap=$dir/in1.pcap,tx_pcap=$dir/out1.pcap" ;;
*)
	echo "run.sh: IBEX_PORTS is memif or pcap" >&2
	exit 2 ;;
esac
conf=""
[ -n "${IBEX_CONF:-}" ] && conf="--config $IBEX_CONF"
# shellcheck disable=SC2086
exec ibex-switch ${IBEX_LCORES:--l 0-1} --no-huge -m ${IBEX_MEM_MB:-1024} \
	--no-pci --file-prefix "${IBEX_FILE_PREFIX:-ibex}" $vdevs -- $conf \
	--ctl-socket "$dir/ibex-ctl.sock" "$@"
