#!/usr/bin/env bash
# Every example in conf/ is accepted by ibex-switch --check-config, and a
# broken copy of one is refused with file:line and a non-zero exit.
#   test_conf_examples.sh IBEX_SWITCH IBEX_PCAPGEN CONF_DIR
set -euo pipefail
sw=$1 dir=$3
eal=(-l 0 --no-huge -m 256 --no-pci --log-level='lib.*:error')
n=0
for c in "$dir"/*.conf; do
	"$sw" "${eal[@]}" --file-prefix="ibexconf$$" -- --config "$c" --check-config \
		|| { echo "FAIL: $c rejected"; exit 1; }
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no examples in $dir"; exit 1; }
echo "ok: $n example configurations accepted"

tmp=$(mktemp -d /tmp/ibex-conf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
{ cat "$dir/demo.conf"; echo "port p9 speeed 10G"; } >"$tmp/bad.conf"
line=$(wc -l <"$tmp/bad.conf")
if "$sw" "${eal[@]}" --file-prefix="ibexconf$$" -- --config "$tmp/bad.conf" \
	--check-config >"$tmp/out" 2>&1; then
	echo "FAIL: a bad configuration was accepted"; exit 1
fi
grep -q "bad.conf:$line: .*speeed" "$tmp/out" ||
	{ echo "FAIL: no file:line error:"; cat "$tmp/out"; exit 1; }
echo "ok: bad configuration refused: $(grep -o "bad.conf:$line:.*" "$tmp/out")"
echo PASS
