#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The build steps of the container image (contrib/container/Containerfile),
# as a script so that they also run, and are tested, where no container
# engine exists (tests/system/product/test_container.sh):
#
#   build.sh SRC [BUILD_DIR]
#
# installs the build dependencies (unless IBEX_SKIP_DEPS=1), configures a
# release build without tests into BUILD_DIR (default SRC/build-image) and
# installs it under --prefix /usr, into DESTDIR when that is set.
set -eu
src=$1
build=${2:-$src/build-image}

if [ "${IBEX_SKIP_DEPS:-0}" != 1 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends \
		dpdk dpdk-dev libdpdk-dev libbpf-dev libpcap-dev libedit-dev \
		libmicrohttpd-dev \
		meson ninja-build pkg-config gcc go-md2man git ca-certificates \
		>/dev/null
fi
meson setup "$build" "$src" --prefix=/usr -Dtests=false -Dman=enabled \
	-Dmetrics=enabled --buildtype=release
ninja -C "$build"
if [ -n "${DESTDIR:-}" ]; then
	meson install -C "$build" --no-rebuild --destdir "$DESTDIR"
else
	meson install -C "$build" --no-rebuild
fi
