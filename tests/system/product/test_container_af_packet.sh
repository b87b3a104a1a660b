#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The container image as a containerlab node: contrib/container/ibex.clab.yml
# built in network namespaces (no container engine here), the way
# containerlab would:
#   - one namespace per node; per link a veth pair whose ends get the
#     endpoint names (eth1...) in their nodes' namespaces;
#   - the switch node (the one with IBEX_PORTS in its env) runs the image's
#     run.sh (from this tree, with this build's binaries) in its namespace
#     with that env and CLAB_INTFS = its number of links, started BEFORE
#     the links exist, as containerlab starts a node and then wires it:
#     run.sh has to wait for eth1..ethN;
#   - the hosts run their `exec` lines;
# then every host pings every other through the switch, the switch stops
# cleanly on SIGTERM and its JSON shows frames in and out of every port.
# Also: IBEX_PORTS=af_packet with no interface to take fails with a
# message instead of starting a switch without ports.
#
#   test_container_af_packet.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL IBEX_GEN SRC_DIR
#
# Needs root (namespaces, veth); exits 77 (skipped) without that.

# Helpers passed to wait_until* by name look unreachable to shellcheck.
# shellcheck disable=SC2317
set -euo pipefail
TEST_NAME=container_af_packet
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

ibex=$1 src=$5
clab=$src/contrib/container/ibex.clab.yml
run_sh=$src/contrib/container/run.sh
require_cmds ip ping ethtool jq awk
[ -f "$clab" ] || fail "no $clab"
tmp=$(mktemp -d /tmp/ibex-container-afp.XXXXXX)
on_exit rm -rf "$tmp"

# --- the topology file ----------------------------------------------------
# The file's own shape (block style, two-space indents, links in flow
# style): "node NAME", "env NAME KEY VALUE", "exec NAME CMD", "link A:IF B:IF".
awk '
	function unq(s) { gsub(/^["'\'' ]+|["'\'' ]+$/, "", s); return s }
	/^[ \t]*(#|$)/ { next }
	/^  nodes:/ { sec = "nodes"; next }
	/^  links:/ { sec = "links"; next }
	/^  [a-z]/ { sec = ""; next }
	sec == "nodes" && /^    [^ ]/ {
		node = $1; sub(/:$/, "", node); sub_ = ""; print "node " node; next
	}
	sec == "nodes" && /^      [^ ]/ {
		sub_ = $1; sub(/:$/, "", sub_)
		if (sub_ == "kind") print "kind " node " " unq($2)
		next
	}
	sec == "nodes" && sub_ == "env" && /^        [A-Za-z_]/ {
		k = $1; sub(/:$/, "", k); v = $0; sub(/^[^:]*:/, "", v)
		print "env " node " " k " " unq(v); next
	}
	sec == "nodes" && sub_ == "exec" && /^        - / {
		c = $0; sub(/^        - /, "", c); print "exec " node " " unq(c); next
	}
	sec == "links" && /endpoints:/ {
		n = split($0, q, "\"")
		if (n != 5) { print "bad " $0; next }
		print "link " q[2] " " q[4]
	}' "$clab" >"$tmp/topo"
grep -q '^bad ' "$tmp/topo" && fail "$clab: links not as [\"a:ethN\", \"b:ethM\"]: $(grep '^bad ' "$tmp/topo")"
mapfile -t nodes < <(awk '$1 == "node" { print $2 }' "$tmp/topo")
sw=$(awk '$1 == "env" && $3 == "IBEX_PORTS" { print $2 }' "$tmp/topo")
[ -n "$sw" ] || fail "$clab: no node with IBEX_PORTS in its env"
[ "$(awk -v n="$sw" '$1 == "env" && $2 == n && $3 == "IBEX_PORTS" { print $4 }' "$tmp/topo")" = af_packet ] ||
	fail "$clab: $sw's IBEX_PORTS is not af_packet"
[ "$(grep -c '^kind .* linux$' "$tmp/topo")" -eq ${#nodes[@]} ] ||
	fail "$clab: every node is to be of kind linux"
mapfile -t links < <(awk '$1 == "link" { print $2 " " $3 }' "$tmp/topo")
hosts=()
for n in "${nodes[@]}"; do [ "$n" = "$sw" ] || hosts+=("$n"); done
[ ${#hosts[@]} -ge 2 ] || fail "$clab: fewer than two hosts"
nsw=$(printf '%s\n' "${links[@]}" | grep -c "\(^\| \)$sw:" || true)
info "$clab: switch $sw with $nsw links, hosts ${hosts[*]}"

# --- a namespace per node ----------------------------------------------------
declare -A ns=()
for n in "${nodes[@]}"; do
	ns[$n]=ibex-clab-$$-$n
	if ! ip netns add "${ns[$n]}" 2>"$tmp/netns.err"; then
		[ "$n" = "${nodes[0]}" ] || fail "ip netns add ${ns[$n]}"
		skip "cannot create network namespaces: $(cat "$tmp/netns.err")"
	fi
	on_exit ip netns del "${ns[$n]}"
	ip -n "${ns[$n]}" link set lo up
done

# With no interface to take (no IBEX_IFACES, no CLAB_INTFS, no ethN),
# run.sh stops at once with a message.
rc=0
ip netns exec "${ns[$sw]}" env -u CLAB_INTFS -u IBEX_IFACES IBEX_PORTS=af_packet \
	IBEX_RUN_DIR="$tmp/run-none" PATH="$(dirname "$ibex"):$PATH" \
	sh "$run_sh" >"$tmp/none.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q 'no interfaces' "$tmp/none.log" ||
	{ show_log "$tmp/none.log"; fail "run.sh af_packet without interfaces: exit $rc, want 2 and a message"; }
check_ok "run.sh af_packet without interfaces: exit 2, '$(head -1 "$tmp/none.log")'"

# --- the switch node, started before its links exist ---------------------------
envs=()
while read -r _ node k v; do
	[ "$node" = "$sw" ] && envs+=("$k=$v")
done < <(grep '^env ' "$tmp/topo")
# start_switch TAG [VAR=VALUE...]: run.sh in the switch's namespace with the
# node's env, then these (later ones win), as containerlab would start it.
start_switch() {
	local tag=$1 prefix

	shift
	mkdir -p "$tmp/run-$tag"
	dpdk_prefix prefix "$tag"
	start_bg SW "$tmp/switch-$tag.log" ip netns exec "${ns[$sw]}" env "${envs[@]}" \
		CLAB_INTFS="$nsw" IBEX_RUN_DIR="$tmp/run-$tag" IBEX_FILE_PREFIX="$prefix" \
		PATH="$(dirname "$ibex"):$PATH" "$@" \
		sh "$run_sh" --json "$tmp/switch-$tag.json"
	info "run.sh (pid $SW) in ${ns[$sw]}: ${envs[*]} CLAB_INTFS=$nsw $*"
}
start_switch af_packet

# --- the links ---------------------------------------------------------------
i=0
for l in "${links[@]}"; do
	a=${l%% *} b=${l#* }
	an=${a%%:*} ai=${a#*:} bn=${b%%:*} bi=${b#*:}
	[ -n "${ns[$an]:-}" ] && [ -n "${ns[$bn]:-}" ] || fail "$clab: link $l: unknown node"
	ta=ibx$$l${i}a tb=ibx$$l${i}b
	ip link add "$ta" type veth peer name "$tb" || fail "ip link add $ta"
	ip link set "$ta" netns "${ns[$an]}" || fail "move $ta"
	ip link set "$tb" netns "${ns[$bn]}" || fail "move $tb"
	ip -n "${ns[$an]}" link set "$ta" name "$ai" mtu 1500 up || fail "$an: $ai"
	ip -n "${ns[$bn]}" link set "$tb" name "$bi" mtu 1500 up || fail "$bn: $bi"
	i=$((i + 1))
done
# The hosts' setup, as containerlab runs it after the links.
while read -r _ node cmd; do
	ip netns exec "${ns[$node]}" sh -c "$cmd" >"$tmp/exec.log" 2>&1 ||
		{ show_log "$tmp/exec.log"; fail "$node: exec '$cmd'"; }
done < <(grep '^exec ' "$tmp/topo")

# A host's address on eth1, from its exec lines.
addr_of() {
	awk -v n="$1" '$1 == "exec" && $2 == n && $3 == "ip" && $5 == "add" {
		sub(/\/.*/, "", $6); print $6 }' "$tmp/topo"
}
h0=${hosts[0]} h1=${hosts[1]}
a1=$(addr_of "$h1")
[ -n "$a1" ] || fail "$clab: no 'ip addr add' for $h1"
ping_once() {
	ip netns exec "${ns[$h0]}" ping -c 1 -W 1 "$a1"
}
# check_switch MODE: wait for the first ping, ping every pair of hosts,
# stop the switch, and check its JSON.
check_switch() {
	local mode=$1 log=$tmp/switch-$1.log json=$tmp/switch-$1.json x y ay np p f

	case $(wait_until_or_dead 90 "$SW" ping_once; echo $?) in
	0) ;;
	2) wait_exit "$SW" 1; show_log "$log"
	   fail "$mode: run.sh/ibex-switch exited ($WAIT_RC) before forwarding" ;;
	*) show_log "$log"; fail "$mode: no ping reply $h0 -> $h1 ($a1) within 90 s" ;;
	esac
	grep -q "run.sh: $mode ports on eth1" "$log" ||
		{ show_log "$log"; fail "$mode: run.sh did not name its interfaces"; }
	check_ok "$(grep "run.sh: $mode" "$log")"
	for x in "${hosts[@]}"; do
		for y in "${hosts[@]}"; do
			[ "$x" != "$y" ] || continue
			ay=$(addr_of "$y")
			ip netns exec "${ns[$x]}" ping -c 3 -i 0.2 -W 2 "$ay" >"$tmp/ping.log" 2>&1 ||
				{ show_log "$tmp/ping.log"; show_log "$log"; fail "$mode: ping $x -> $y ($ay)"; }
		done
	done
	check_ok "$mode: every host pings every other through the switch (${#hosts[@]} hosts, 3 pings each way)"

	stop_pid "$SW" TERM
	[ "$WAIT_RC" = 0 ] || { show_log "$log"; fail "$mode: the switch exited with $WAIT_RC on SIGTERM"; }
	[ -s "$json" ] || { show_log "$log"; fail "$mode: no JSON summary"; }
	np=$(jq '.ports | length' "$json")
	[ "$np" = "$nsw" ] || fail "$mode: JSON: $np ports, want $nsw"
	for ((p = 0; p < np; p++)); do
		for f in rx_frames tx_frames; do
			[ "$(json_port_field "$json" $p $f)" -gt 0 ] || fail "$mode: port $p: $f is 0"
		done
	done
	check_ok "$mode: stopped on SIGTERM; each of its $np ports received and sent frames"
}
# The file's mode, started before the links were there.
check_switch af_packet

# The same node in af_xdp mode (the links are there now), where this
# DPDK has the driver.
if compgen -G "/usr/lib/*/dpdk/pmds-*/librte_net_af_xdp.so*" >/dev/null; then
	start_switch af_xdp IBEX_PORTS=af_xdp
	check_switch af_xdp
else
	info "no net_af_xdp driver in this DPDK: af_xdp mode not tried"
fi
info "PASS"
