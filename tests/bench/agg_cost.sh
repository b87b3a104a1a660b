#!/usr/bin/env bash
# The switch's cost of in-network aggregation through ibex-switch's data
# path (docs/aggregation.md, "On the switch"): receive, steer, the slot's
# add or copy, the build and send of the results, per contribution. One
# switch is the root of job 1, its CHILDREN (2) children one net_pcap port
# each; agg_frames writes each child's contributions (slots 0..SLOTS-1,
# use after use), so every frame is a contribution summed once. Every run
# is checked: contributions = frames received, no duplicate, stale, early,
# mismatch or refusal, nothing dropped. For each element type (TYPES,
# "fp32 int32") and elements a packet (ELEMENTS, "64 256 1024": 256 B,
# 1 KiB, 4 KiB of elements):
#  - instructions a contribution, counted by callgrind (deterministic), on
#    the worker loop only (PMD calls included), as count_instr.sh, over
#    DURATION (6) seconds of valgrind;
#  - contributions a second of the one worker core without valgrind: the
#    switch's throughput lines (--stats-period 0.2) over the interval its
#    pcaps last, the first line left out, median of RUNS (3) runs; and the
#    worker's busy TSC cycles a contribution (its final summary, idle
#    polls left out) with what they make a second. Rates on a shared
#    machine depend on its neighbours.
# A "fwd" row a size runs the same frames without aggregation (static FDB
# entries send each child's frames out of the next child's port): the
# receive and send that aggregation shares with forwarding, for scale.
# The pcaps are read once, not looped (a use number seen again is stale):
# each port's holds PCAP_MB (512) MiB, and a callgrind run whose pcaps
# ran out fails (idle polls would count). MODE=instr or MODE=rate runs
# one half only.
#
#   [TYPES=...] [ELEMENTS=...] [CHILDREN=N] [SLOTS=N] [PCAP_MB=N]
#   [DURATION=S] [RUNS=N] [MODE=instr|rate] tests/bench/agg_cost.sh BUILD
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { sed -n "2,30p" "$0"; exit 2; }
b=$1
gen=$b/tests/bench/agg_frames
[ -x "$gen" ] || { echo "$gen: not built (ninja -C $b tests/bench/agg_frames)" >&2; exit 2; }
mode=${MODE:-both}
case $mode in both | instr | rate) ;; *) echo "MODE: instr or rate" >&2; exit 2 ;; esac
[ "$mode" = rate ] || command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 2; }
children=${CHILDREN:-2} slots=${SLOTS:-64} duration=${DURATION:-6} runs=${RUNS:-3}
# a port may run a burst (32) ahead of another: its use u + 2 of a slot
# then must come 2 x SLOTS frames after its use u
[ "$children" -ge 2 ] && [ "$children" -le 8 ] || { echo "CHILDREN: 2..8" >&2; exit 2; }
[ "$slots" -ge 32 ] || { echo "SLOTS: 32 at least" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ibex-agg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

vdevs=() kids=""
for ((c = 0; c < children; c++)); do
	vdevs+=(--vdev "net_pcap$c,rx_pcap=$tmp/c$c.pcap")
	kids+="${kids:+,}p$c"
done

# conf KIND ELEMENTS: agg (root of job 1) or fwd (no aggregation)
conf() {
	local len=$((64 + 4 * $2)) c
	for ((c = 0; c < children; c++)); do echo "port p$c dev net_pcap$c"; done
	echo "switch workers 1"
	echo "fdb learning off"
	# a frame in one mbuf, headroom included
	[ $len -le 1900 ] || echo "switch mbuf-size $(((len + 128 + 1023) / 1024))KB"
	if [ "$1" = agg ]; then
		echo "aggregation pool $((2 * children * 4 * $2 * slots / 1048576 + 2))M"
		echo "aggregation job 1 children $kids parent root slots $slots elements $2"
	else
		for ((c = 0; c < children; c++)); do
			printf 'fdb static 02:00:00:0e:ff:%02x port p%d vlan 1\n' \
				"$c" $(((c + 1) % children))
		done
	fi
}

# switch [EXTRA...]: one run on $tmp/st.conf, final counters in $tmp/out.json
switch() {
	rm -f "$tmp/out.json"
	"$@" "$b/app/ibex-switch/ibex-switch" --lcores 0@0,1@1 --no-huge -m 1024 \
		--no-pci --log-level='lib.*:notice' \
		"${vdevs[@]}" --file-prefix="ibexagg$$" -- --config "$tmp/st.conf" \
		--json "$tmp/out.json" "${sargs[@]}" >"$tmp/log" 2>&1 ||
		{ echo "ibex-switch failed:" >&2; tail -n 5 "$tmp/log" >&2; exit 1; }
}

# check KIND FRAMES-A-PORT: every frame summed once (or forwarded), none
# dropped; with FRAMES-A-PORT, no port read its pcap to the end.
# Prints "FRAMES BUSY-CYCLES-A-FRAME TSC-HZ".
check() {
	python3 - "$tmp/out.json" "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
kind, cap = sys.argv[2], int(sys.argv[3])
rx = sum(p["rx_frames"] for p in d["ports"])
bad = ["%s dropped %d" % (p["name"], p["dropped"]) for p in d["ports"] if p["dropped"]]
if cap and any(p["rx_frames"] >= cap for p in d["ports"]):
    bad.append("a pcap ran out (raise PCAP_MB)")
if kind == "agg":
    d = dict(d, **d["aggregation"])
    if d["contributions"] != rx:
        bad.append("contributions %d != frames %d" % (d["contributions"], rx))
    for k in ("duplicates", "stale", "early", "mismatch", "no_job", "not_mine",
              "bad_slot", "bad_child", "too_long", "result_unexpected",
              "jobs_refused"):
        if d[k]:
            bad.append("%s %d" % (k, d[k]))
    if any(d["malformed"].values()):
        bad.append("malformed %s" % d["malformed"])
if bad:
    sys.exit("agg_cost.sh: " + ", ".join(bad))
print(rx, d["busy_cycles_per_frame"], d["meta"]["tsc_hz"])
EOF
}

# rate: frames a second over the throughput lines while every pcap still
# had frames (the first line left out: it holds the start)
rate() {
	awk -v final="$1" '/ rx [0-9]+ frames, / {
		for (i = 1; i < NF; i++) if ($i == "rx") break
		rx = $(i + 1); mpps = $(i + 3)
		n++
		if (n > 1 && rx < final && rx > last && mpps > 0) {
			f += rx - last; t += (rx - last) / (mpps * 1e6)
		}
		last = rx
	} END { if (t > 0) printf "%.0f\n", f / t; else print "-" }' "$tmp/log"
}

printf '%-5s %-5s %5s %11s %14s %14s %12s %14s\n' kind type elems \
	frame-bytes instr/frame frames/s busy-cyc/fr busy-frames/s
for e in ${ELEMENTS:-64 256 1024}; do
	len=$((64 + 4 * e))
	frames=$((${PCAP_MB:-512} * 1048576 / (len + 16)))
	for t in ${TYPES:-fp32 int32} fwd; do
		kind=agg gt=$t
		[ "$t" != fwd ] || kind=fwd gt=fp32
		if [ "$kind" = agg ] || [ ! -e "$tmp/c0.pcap" ]; then
			"$gen" "$tmp/c" "$children" "$gt" "$e" "$slots" \
				$(((frames + slots - 1) / slots)) >/dev/null
		fi
		conf "$kind" "$e" >"$tmp/st.conf"
		instr=- fps=- busy=- bfps=-
		if [ "$mode" != rate ]; then
			sargs=(--duration "$duration")
			switch valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
				--toggle-collect=ibex_dp_worker_main
			out=$(check "$kind" "$frames")
			read -r n _ _ <<<"$out"
			total=$(callgrind_annotate "$tmp/cg.out" 2>/dev/null |
				awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
			instr=$(printf '%.1f' "$(echo "$total / $n" | bc -l)")
		fi
		if [ "$mode" != instr ]; then
			sargs=(--stats-period 0.2 --idle-stop 0.5)
			rs=() bs=()
			for ((r = 0; r < runs; r++)); do
				switch
				out=$(check "$kind" 0)
				read -r n busy hz <<<"$out"
				rs+=("$(rate "$n")")
				bs+=("$busy")
			done
			fps=$(printf '%s\n' "${rs[@]}" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
			busy=$(printf '%s\n' "${bs[@]}" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
			bfps=$(echo "$hz / $busy" | bc)
			[ "$runs" -le 1 ] || echo "# $kind $t $e: frames/s ${rs[*]}; busy cycles ${bs[*]}" >&2
		fi
		printf '%-5s %-5s %5s %11s %14s %14s %12s %14s\n' "$kind" \
			"$([ "$kind" = fwd ] && echo - || echo "$t")" "$e" "$len" \
			"$instr" "$fps" "$busy" "$bfps"
	done
done
