#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/install-deps.sh - install (idempotently) everything the build, the lint and
# the VM selftests need on Debian 12. Fast no-op when everything is already present
# (checked with dpkg-query; no apt-get update then).
# Kernels: Debian 12's 6.1 (linux-image-amd64 / linux-headers-amd64) and the 6.12 line
# from bookworm-backports (added to the apt sources if missing).
set -eu
PKGS="qemu-system-x86 busybox-static cpio kmod iproute2 iperf3 ethtool sparse socat nftables
      linux-source-6.1 strongswan-charon strongswan-swanctl libstrongswan-extra-plugins
      gnuplot-nox dkms jq bc python3 python3-cryptography xz-utils make gcc libssl-dev procps coreutils
      util-linux file"
BPO_LINE='deb http://deb.debian.org/debian bookworm-backports main'
export DEBIAN_FRONTEND=noninteractive
APT="apt-get -y -q -o DPkg::Lock::Timeout=900 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

installed() { # pkg -> 0 if installed
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]
}
# shellcheck source=kver.sh
. "$(dirname "$0")/kver.sh"
# kver_ok PREFIX: an installed kernel <PREFIX>.x with image, modules and headers
kver_ok() {
	[ -n "$(kver_pick "$1" boot)" ]
}

missing=
for p in $PKGS; do installed "$p" || missing="$missing $p"; done
need61=0; need612=0
kver_ok 6.1 || need61=1
kver_ok 6.12 || need612=1
if [ -z "$missing" ] && [ $need61 = 0 ] && [ $need612 = 0 ]; then
	echo "install-deps: all present"
	exit 0
fi
echo "install-deps: missing:$missing$([ $need61 = 1 ] && echo ' kernel-6.1')$([ $need612 = 1 ] && echo ' kernel-6.12')"

if ! grep -rqsE '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "$BPO_LINE" | $SUDO tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
fi
$SUDO $APT update || echo "install-deps: apt-get update reported errors; continuing with what is available" >&2

k61= k612=
if [ $need61 = 1 ]; then
	# Debian 12's own kernel: the default-release metapackages give 6.1.
	if installed linux-image-amd64 && dpkg-query -W -f='${Version}' linux-image-amd64 | grep -q bpo; then
		# metapackage already points at backports: install the versioned 6.1 packages
		v=$(apt-cache show linux-image-amd64 | awk '/^Version:/{v=$2} /^Depends:/{print v, $2}' |
			grep -v bpo | sort -V | tail -1 | awk '{print $2}')
		k61="$v ${v/linux-image-/linux-headers-}"
	else
		k61="linux-image-amd64 linux-headers-amd64"
	fi
fi
if [ $need612 = 1 ]; then
	v=$(apt-cache show linux-image-amd64 | awk '/^Version:/{v=$2} /^Depends:/{print v, $2}' |
		grep '^6\.12\..*bpo' | sort -V | tail -1 | awk '{print $2}')
	[ -n "$v" ] || { echo "install-deps: no 6.12 kernel in bookworm-backports" >&2; exit 1; }
	k612="$v ${v/linux-image-/linux-headers-}"
fi
# --no-install-recommends keeps it small (a qemu -kernel boot needs no firmware).
# Everything but the 6.12 kernel comes from the default release (bookworm: qemu 7.2,
# kernel 6.1); the 6.12 packages only exist in bookworm-backports. If their
# dependencies need backports versions too, retry with -t bookworm-backports for
# those packages only.
if [ -n "$missing$k61" ]; then
	$SUDO $APT install --no-install-recommends $missing $k61
fi
if [ -n "$k612" ]; then
	$SUDO $APT install --no-install-recommends $k612 ||
		$SUDO $APT install --no-install-recommends -t bookworm-backports $k612
fi
kver_ok 6.1 && kver_ok 6.12 || { echo "install-deps: kernels still missing" >&2; exit 1; }
echo "install-deps: done"
