#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The container's default command: ibex-switch without hugepages on
#   IBEX_PORTS=memif (default)  two memif server ports in /run/ibex;
#   IBEX_PORTS=pcap             net_pcap files (/run/ibex/in0.pcap -> out1.pcap);
#   IBEX_PORTS=af_packet        the container's interfaces, one
#   IBEX_PORTS=af_xdp           net_af_packet (or net_af_xdp) port each: the
#                               names in IBEX_IFACES ("eth1 eth2", commas
#                               too), else eth1..ethN with N from CLAB_INTFS
#                               (containerlab sets it: the node's links), else
#                               every ethN (N >= 1) present at start. It
#                               waits up to IBEX_IFACE_WAIT seconds (300) for
#                               them to exist and be up: containerlab adds
#                               them after the container has started.
# with the configuration IBEX_CONF (default: every port in VLAN 1), EAL cores
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
af_packet | af_xdp)
	ifaces=$(echo "${IBEX_IFACES:-}" | tr ',' ' ')
	if [ -z "$ifaces" ] && [ -n "${CLAB_INTFS:-}" ]; then
		case $CLAB_INTFS in
		'' | *[!0-9]*)
			echo "run.sh: CLAB_INTFS is not a number: $CLAB_INTFS" >&2
			exit 2 ;;
		esac
		i=1
		while [ "$i" -le "$CLAB_INTFS" ]; do
			ifaces="$ifaces eth$i"
			i=$((i + 1))
		done
	fi
	if [ -z "$ifaces" ]; then
		ifaces=$(for p in /sys/class/net/eth*; do
			n=${p##*/eth}
			case $n in '' | 0 | *[!0-9]*) continue ;; esac
			echo "$n eth$n"
		done | sort -n | cut -d' ' -f2)
	fi
	# shellcheck disable=SC2086,SC2116 # one space between the names
	ifaces=$(echo $ifaces)
	if [ -z "$ifaces" ]; then
		echo "run.sh: $IBEX_PORTS: no interfaces (none of eth1..ethN; set IBEX_IFACES or CLAB_INTFS)" >&2
		exit 2
	fi
	# An interface is there and up (IFF_UP, bit 0 of its flags).
	if_up() {
		[ -r "/sys/class/net/$1/flags" ] &&
			[ $(($(cat "/sys/class/net/$1/flags") & 1)) -eq 1 ]
	}
	wait_s=${IBEX_IFACE_WAIT:-300}
	start=$(date +%s)
	for i in $ifaces; do
		until if_up "$i"; do
			if [ $(($(date +%s) - start)) -ge "$wait_s" ]; then
				echo "run.sh: $i not there or not up after $wait_s s" >&2
				exit 1
			fi
			sleep 0.2
		done
	done
	vdevs="" n=0
	for i in $ifaces; do
		if [ "$IBEX_PORTS" = af_packet ]; then
			vdevs="$vdevs --vdev net_af_packet$n,iface=$i,qpairs=1"
		else
			vdevs="$vdevs --vdev net_af_xdp$n,iface=$i,start_queue=0,queue_count=1"
		fi
		n=$((n + 1))
	done
	echo "run.sh: $IBEX_PORTS ports on $ifaces" >&2 ;;
*)
	echo "run.sh: IBEX_PORTS is memif, pcap, af_packet or af_xdp" >&2
	exit 2 ;;
esac
conf=""
[ -n "${IBEX_CONF:-}" ] && conf="--config $IBEX_CONF"
# shellcheck disable=SC2086
exec ibex-switch ${IBEX_LCORES:--l 0-1} --no-huge -m ${IBEX_MEM_MB:-1024} \
	--no-pci --file-prefix "${IBEX_FILE_PREFIX:-ibex}" $vdevs -- $conf \
	--ctl-socket "$dir/ibex-ctl.sock" "$@"
