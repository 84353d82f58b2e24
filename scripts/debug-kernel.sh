#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/debug-kernel.sh - build the kernel "make check-debug" runs the selftests on:
# Debian's linux-source-6.1 with KASAN, kmemleak, lockdep, UBSAN and the net debug
# options (scripts/debug-kernel.config over x86_64 defconfig + kvm_guest.config).
#
# Output: build/debug-kernel/src (the tree, which the module is built against),
# build/debug-kernel/vmlinuz, build/debug-kernel/release; the modules go to
# /lib/modules/<release> (without a build link, so that nothing picks it up as a
# Debian kernel to build for). Does nothing if the image is newer than the config.
# Takes about 35 minutes on 2 cores. Env: DEBUG_KSRC_TAR (/usr/src/linux-source-6.1.tar.xz).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$ROOT/build/debug-kernel
CONF=$ROOT/scripts/debug-kernel.config
TAR=${DEBUG_KSRC_TAR:-/usr/src/linux-source-6.1.tar.xz}
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

if [ -s "$D/vmlinuz" ] && [ "$D/vmlinuz" -nt "$CONF" ] && [ -s "$D/release" ] &&
   [ -d "/lib/modules/$(cat "$D/release")" ]; then
	echo "debug-kernel: up to date: $D/vmlinuz ($(cat "$D/release"))"
	exit 0
fi
need=
for c in flex bison bc; do command -v $c > /dev/null || need="$need $c"; done
[ -r "$TAR" ] || need="$need linux-source-6.1"
[ -r /usr/include/libelf.h ] || need="$need libelf-dev"
[ -r /usr/include/openssl/ssl.h ] || need="$need libssl-dev"
if [ -n "$need" ]; then
	echo "debug-kernel: installing$need"
	$SUDO apt-get -y -q install $need > /dev/null
fi

mkdir -p "$D"
if [ ! -e "$D/src/Makefile" ]; then
	echo "debug-kernel: unpacking $TAR"
	rm -rf "$D/src" "$D/src.tmp"; mkdir -p "$D/src.tmp"
	tar -xf "$TAR" -C "$D/src.tmp" --strip-components=1
	mv "$D/src.tmp" "$D/src"
fi
cd "$D/src"
make -s defconfig > /dev/null
make -s kvm_guest.config > /dev/null
scripts/kconfig/merge_config.sh -m .config "$CONF" > /dev/null
make -s olddefconfig
bad=
for o in KASAN DEBUG_KMEMLEAK PROVE_LOCKING UBSAN DEBUG_NET INET_ESP_OFFLOAD VETH \
	 CRYPTO_AES_NI_INTEL NFT_QUEUE NET_SCH_PLUG; do
	grep -qE "^CONFIG_$o=(y|m)" .config || bad="$bad $o"
done
[ -z "$bad" ] || { echo "debug-kernel: the merged config lacks:$bad" >&2; exit 1; }
echo "debug-kernel: building in $D/src (log: $D/build.log)"
make -j"$(nproc)" bzImage modules > "$D/build.log" 2>&1 ||
	{ tail -20 "$D/build.log" >&2; exit 1; }
rel=$(make -s kernelrelease)
$SUDO make -s modules_install INSTALL_MOD_PATH=/ > /dev/null
$SUDO rm -f "/lib/modules/$rel/build" "/lib/modules/$rel/source"
cp arch/x86/boot/bzImage "$D/vmlinuz"
echo "$rel" > "$D/release"
echo "debug-kernel: $D/vmlinuz ($rel), modules in /lib/modules/$rel"
