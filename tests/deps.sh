#!/usr/bin/env bash
# Install what ibex needs to build, run and test on Debian 12, and nothing
# when it is all there already. Used by the README's two commands and CI.
set -euo pipefail

pkgs=(dpdk dpdk-dev libdpdk-dev libbpf-dev libcmocka-dev libpcap-dev libyaml-dev
      meson ninja-build pkg-config gcc clang libclang-rt-14-dev
      tshark iproute2 iputils-ping ethtool netcat-openbsd procps
      gnuplot-nox python3 jq bc kmod libedit-dev go-md2man man-db bash-completion
      dpkg-dev debhelper lintian libmicrohttpd-dev prometheus
      libopenmpi-dev openmpi-bin python3-jsonschema)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
# IBEX_DEPS_NO_INSTALL=1 (the doc_commands test): say what is missing, fail.
if [ "${IBEX_DEPS_NO_INSTALL:-0}" = 1 ]; then
	echo "ibex: missing ${missing[*]} (not installed: IBEX_DEPS_NO_INSTALL=1)" >&2
	exit 1
fi

echo "ibex: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
