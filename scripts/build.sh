#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/build.sh [KVER] [make args...] - build esp_swoffload.ko for one kernel without
# touching the source tree: copies *.c *.h *.S Kbuild Makefile into build/<kver>/ and
# runs kbuild there; the selftests' fixture module (selftests/nicsim) into
# build/<kver>/nicsim/. KVER: a full version (6.12.95+deb12-amd64) or a prefix (6.1, 6.12)
# meaning the newest installed match; default 6.1. KDIR=<built kernel tree> builds
# against that tree instead (make check-debug's). Build log goes to stderr; the last
# line on stdout is the path of the .ko. Exit status: make's.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
want=${1:-6.1}; [ $# -gt 0 ] && shift
# shellcheck source=kver.sh
. "$ROOT/scripts/kver.sh"
if [ -n "${KDIR:-}" ]; then
	KVER=$(cat "$KDIR/include/config/kernel.release")
else
	KVER=$(kver_pick "$want")
	[ -n "$KVER" ] || { echo "build.sh: no kernel headers for '$want' under /lib/modules (run scripts/install-deps.sh)" >&2; exit 2; }
	KDIR=/lib/modules/$KVER/build
fi
B=${BUILD_DIR:-$ROOT/build/$KVER}
mkdir -p "$B"
# Several people/CI jobs may build the same kernel's tree at once: serialize.
exec 9> "$B/.lock"
flock -w 600 9 || { echo "build.sh: $B is locked by another build" >&2; exit 1; }
# Fresh copy of the sources (stale ones removed, mtimes kept so kbuild rebuilds only
# what changed).
find "$B" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.S' \) -delete
(
	cd "$ROOT"
	shopt -s nullglob
	files=()
	for f in *.c *.h *.S Kbuild Makefile; do
		case $f in *.mod.c) continue ;; esac
		files+=("$f")
	done
	cp -p "${files[@]}" "$B/"
)
echo "build.sh: building in $B for $KVER" >&2
make -C "$KDIR" M="$B" -j"$(nproc)" "$@" modules >&2
# the test fixture of selftests/75-nicoffload.sh, next to the module: nicsim/
if [ -d "$ROOT/selftests/nicsim" ]; then
	mkdir -p "$B/nicsim"
	find "$B/nicsim" -maxdepth 1 -type f -name '*.c' -delete
	cp -p "$ROOT/selftests/nicsim/"*.c "$ROOT/selftests/nicsim/Kbuild" "$B/nicsim/"
	make -C "$KDIR" M="$B/nicsim" -j"$(nproc)" "$@" modules >&2
fi
ko=$(ls "$B"/*.ko 2>/dev/null | head -1)
[ -n "$ko" ] || { echo "build.sh: no .ko produced in $B" >&2; exit 1; }
echo "$ko"
