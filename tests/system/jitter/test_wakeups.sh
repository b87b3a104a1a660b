#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The wake-up budget of docs/design.md ("Threads and wake-ups"): while a
# worker forwards (and learns: the pcap's stations keep refreshing their
# entries), and again while the built-in generator runs beside the control
# thread on CPU 0, the control thread (the main lcore: the thread whose id
# is the process id) and every other non-lcore thread ibex or EAL started
# (interrupts, multi-process, telemetry) wake at most BUDGET times a
# second, counted as voluntary context switches in /proc over WINDOW_S
# seconds. The old loop (usleep 200 us) woke 5,000 times a second.
#
#   test_wakeups.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL
set -euo pipefail
TEST_NAME=wakeups
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

sw=${1:?usage: test_wakeups.sh IBEX_SWITCH IBEX_PCAPGEN IBEX_CTL}
gen=${2:?}
ctl=${3:?}
[ -x "$sw" ] || skip "no ibex-switch at $sw"
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"

BUDGET=100
WINDOW_S=${WAKEUPS_WINDOW_S:-5}

tmp=$(mktemp -d /tmp/ibex-wakeups.XXXXXX)
on_exit rm -rf "$tmp"

# vcs PID TID: the thread's voluntary context switches.
vcs() {
	awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/task/$2/status"
}

# The threads to count: all but the EAL worker lcores (rte-worker-N),
# which poll and never sleep. "tid name" per line.
threads() {
	local t

	for t in /proc/"$1"/task/*; do
		case "$(cat "$t/comm")" in
		rte-worker-*|lcore-worker-*) ;;
		*) printf '%s %s\n' "${t##*/}" "$(cat "$t/comm")" ;;
		esac
	done
}

# measure NAME PID: count over WINDOW_S, fail above the budget.
measure() {
	local name=$1 pid=$2 tid comm n0 n1 rate worst=0
	declare -A before

	while read -r tid comm; do
		before[$tid]=$(vcs "$pid" "$tid")
	done < <(threads "$pid")
	# The measurement window itself: a rate needs an interval.
	sleep "$WINDOW_S"
	is_alive "$pid" || { show_log "$tmp/$name.log"; fail "$name: switch died"; }
	while read -r tid comm; do
		[ -n "${before[$tid]:-}" ] || continue
		n0=${before[$tid]}
		n1=$(vcs "$pid" "$tid")
		rate=$(( (n1 - n0) / WINDOW_S ))
		info "$name: thread $tid ($comm): $((n1 - n0)) wake-ups in ${WINDOW_S} s"
		[ "$rate" -le "$BUDGET" ] ||
			fail "$name: thread $tid ($comm) woke $rate times a second (budget $BUDGET)"
		[ "$tid" != "$pid" ] || worst=$rate
	done < <(threads "$pid")
	check_ok "$name: control thread $worst wake-ups/s (budget $BUDGET)"
}

# ---- a worker forwarding and learning ----
# With the Prometheus endpoint on (a build with libmicrohttpd): its
# thread is one of those counted, and must sleep while nobody scrapes.
metrics=()
if pkg-config --exists libmicrohttpd 2>/dev/null; then
	metrics=(--metrics "$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')")
fi
dpdk_prefix p1 fwd
"$gen" -o "$tmp/in.pcap" -n 200 -p 4 --kind roce >/dev/null
start_bg swpid "$tmp/fwd.log" "$sw" --lcores 0@0,1@1 --no-huge -m 1024 \
	--no-pci --file-prefix="$p1" --log-level='lib.*:notice' \
	--vdev "net_pcap0,rx_pcap=$tmp/in.pcap,infinite_rx=1" \
	--vdev "net_null0,no-rx=1" \
	-- --ctl-socket "$tmp/fwd.sock" --json "$tmp/fwd.json" "${metrics[@]}"
c() { "$ctl" --socket "$tmp/fwd.sock" "$@"; }
wait_until_or_dead 30 "$swpid" c show ports ||
	{ show_log "$tmp/fwd.log"; fail "the control socket did not answer"; }
rx_moving() {
	local a b
	a=$(c show ports | awk 'NR > 1 { s += $5 } END { print s + 0 }')
	b=$(c show ports | awk 'NR > 1 { s += $5 } END { print s + 0 }')
	[ "$b" -gt "$a" ]
}
wait_until_or_dead 30 "$swpid" rx_moving ||
	{ c show ports; show_log "$tmp/fwd.log"; fail "no traffic"; }
if [ ${#metrics[@]} -gt 0 ]; then
	threads "$swpid" | grep -q ' MHD' ||
		fail "fwd: --metrics started no libmicrohttpd thread"
fi
measure fwd "$swpid"
stop_pid "$swpid" TERM
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/fwd.log"; fail "switch exit $WAIT_RC"; }
learned=$(jq -e '.fdb.learned' "$tmp/fwd.json")
[ "$learned" -gt 0 ] || fail "nothing learned"
check_ok "fwd: forwarded and learned $learned station(s)"

# ---- the built-in generator on the control thread's CPU ----
dpdk_prefix p2 gen
start_bg swpid "$tmp/gen.log" "$sw" --lcores 0@0,1@1,2@0 --no-huge -m 1024 \
	--no-pci --file-prefix="$p2" --log-level='lib.*:notice' \
	-- --ctl-socket "$tmp/gen.sock" \
	--gen "--engine rate --ranks 2 --rate 200000 --duration 600 --quiet"
c() { "$ctl" --socket "$tmp/gen.sock" "$@"; }
wait_until_or_dead 30 "$swpid" c show ports ||
	{ show_log "$tmp/gen.log"; fail "the control socket did not answer"; }
wait_until_or_dead 30 "$swpid" rx_moving ||
	{ c show ports; show_log "$tmp/gen.log"; fail "the generator sends nothing"; }
measure gen "$swpid"
stop_pid "$swpid" TERM
[ "$WAIT_RC" -eq 0 ] || { show_log "$tmp/gen.log"; fail "switch exit $WAIT_RC"; }
