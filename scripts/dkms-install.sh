#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/dkms-install.sh [--remove]   (make dkms-install)
#
# Install esp_swoffload with DKMS, so it is rebuilt for every new kernel:
#   1. copies the sources (*.c *.h Kbuild Makefile dkms.conf) to
#      /usr/src/esp_swoffload-<version>/ (<version>: PACKAGE_VERSION in dkms.conf),
#      replacing an earlier registration of the same version;
#   2. dkms add, then dkms build + dkms install for every installed kernel that has
#      headers (/lib/modules/<kver>/build), or only those in $DKMS_KERNELS;
#      the module lands in /lib/modules/<kver>/updates/dkms/ and depmod runs;
#   3. installs /etc/modprobe.d/esp_swoffload.conf (keeps esp4_offload/esp6_offload
#      out, loads esp4/esp6 before esp_swoffload) and
#      /etc/modules-load.d/esp_swoffload.conf (loads esp_swoffload at boot).
# Then: `modprobe esp_swoffload` (and restart the IKE daemon: only SAs created after
# the module loaded use it).
# --remove: dkms remove --all, delete /usr/src/esp_swoffload-<version> and both snippets.
# Env: DKMS_KERNELS="6.1.0-57-amd64 ..." (default: all kernels with headers),
#      DESTDIR_ETC (default /etc). Installs dkms with apt-get if it is missing.
# Exit status: 0 if every selected kernel got the module.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=esp_swoffload
ETC=${DESTDIR_ETC:-/etc}
VER=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$ROOT/dkms.conf")
[ -n "$VER" ] || { echo "dkms-install: no PACKAGE_VERSION in $ROOT/dkms.conf" >&2; exit 2; }
SRC=/usr/src/$NAME-$VER
[ "$(id -u)" = 0 ] || { echo "dkms-install: must run as root" >&2; exit 2; }

if ! command -v dkms > /dev/null; then
	echo "dkms-install: installing dkms"
	DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=600 \
		install --no-install-recommends dkms || { echo "dkms-install: dkms missing" >&2; exit 2; }
fi

# an earlier registration of this version (any state): drop it first
unregister() {
	if dkms status -m "$NAME" -v "$VER" 2>/dev/null | grep -q .; then
		dkms remove -m "$NAME" -v "$VER" --all || true
	fi
}

if [ "${1:-}" = --remove ]; then
	unregister
	rm -rf "$SRC"
	rm -f "$ETC/modprobe.d/$NAME.conf" "$ETC/modules-load.d/$NAME.conf"
	echo "dkms-install: removed $NAME $VER (a loaded module stays loaded until rmmod $NAME)"
	exit 0
fi

unregister
rm -rf "$SRC"
mkdir -p "$SRC"
(
	cd "$ROOT"
	shopt -s nullglob
	files=()
	for f in *.c *.h *.S Kbuild Makefile dkms.conf; do
		case $f in *.mod.c) continue ;; esac
		files+=("$f")
	done
	cp -p "${files[@]}" "$SRC/"
)
dkms add -m "$NAME" -v "$VER"

if [ -n "${DKMS_KERNELS:-}" ]; then
	kernels=$DKMS_KERNELS
else
	kernels=$(for d in /lib/modules/*; do
		[ -e "$d/build/Makefile" ] && echo "${d##*/}"; done | sort -V)
fi
[ -n "$kernels" ] || { echo "dkms-install: no kernel with headers under /lib/modules (apt-get install linux-headers-amd64)" >&2; exit 1; }

failed=
for k in $kernels; do
	if [ ! -e "/lib/modules/$k/build/Makefile" ]; then
		echo "dkms-install: $k: no headers (/lib/modules/$k/build), skipped" >&2
		failed="$failed $k"; continue
	fi
	echo "dkms-install: building $NAME $VER for $k"
	if dkms build -m "$NAME" -v "$VER" -k "$k" && dkms install -m "$NAME" -v "$VER" -k "$k"; then
		echo "dkms-install: $k: installed"
	else
		echo "dkms-install: $k: FAILED (see /var/lib/dkms/$NAME/$VER/build/make.log)" >&2
		failed="$failed $k"
	fi
done

install -D -m 0644 "$ROOT/packaging/modprobe.d/$NAME.conf" "$ETC/modprobe.d/$NAME.conf"
install -D -m 0644 "$ROOT/packaging/modules-load.d/$NAME.conf" "$ETC/modules-load.d/$NAME.conf"
echo "dkms-install: installed $ETC/modprobe.d/$NAME.conf and $ETC/modules-load.d/$NAME.conf"
dkms status -m "$NAME" -v "$VER" || true
if [ -n "$failed" ]; then
	echo "dkms-install: failed for:$failed" >&2
	exit 1
fi
echo "dkms-install: done. Load it with 'modprobe $NAME', then restart the IKE daemon (only SAs created after loading use it)."
