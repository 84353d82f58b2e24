#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/lint.sh [KVER] - static checks on the project's own *.c *.h (not generated ones):
#   1. checkpatch.pl --strict --no-tree -f (from the linux-source-6.1 package; the
#      scripts it needs are unpacked once into build/tools/)
#   2. a W=1 build: any compiler warning in our files fails (also modpost warnings)
#   3. sparse (C=2, checks every file): any sparse warning in our files fails
# KVER defaults to the newest installed 6.1.x. Exit status 0 only if all three are clean.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
want=${1:-6.1}
# shellcheck source=kver.sh
. "$ROOT/scripts/kver.sh"
KVER=$(kver_pick "$want")
[ -n "$KVER" ] || { echo "lint: no kernel headers for $want (run scripts/install-deps.sh)" >&2; exit 2; }
shopt -s nullglob
SRCS=()
for f in *.c *.h; do case $f in *.mod.c) ;; *) SRCS+=("$f") ;; esac; done
[ ${#SRCS[@]} -gt 0 ] || { echo "lint: no *.c / *.h files in $ROOT" >&2; exit 1; }
fails=0

# ---- checkpatch
CP=${CHECKPATCH:-}
if [ -z "$CP" ]; then
	for c in /usr/src/linux-source-6.1/scripts/checkpatch.pl "$ROOT/build/tools/linux-source-6.1/scripts/checkpatch.pl"; do
		[ -r "$c" ] && { CP=$c; break; }
	done
fi
if [ -z "$CP" ]; then
	tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -1)
	if [ -n "$tarball" ]; then
		echo "lint: unpacking checkpatch.pl from $tarball (once)"
		mkdir -p "$ROOT/build/tools"
		tar -C "$ROOT/build/tools" -xf "$tarball" linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt linux-source-6.1/scripts/const_structs.checkpatch \
			2>/dev/null
		CP=$ROOT/build/tools/linux-source-6.1/scripts/checkpatch.pl
	fi
fi
if [ -r "$CP" ]; then
	# compat.h is the one file allowed to test kernel versions (see its header)
	CP_SRCS=()
	for f in "${SRCS[@]}"; do [ "$f" = compat.h ] || CP_SRCS+=("$f"); done
	out=$(perl "$CP" --strict --no-tree --terse --show-types -f "${CP_SRCS[@]}" 2>&1
	      [ -e compat.h ] && perl "$CP" --strict --no-tree --terse --show-types \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f compat.h 2>&1)
	n=$(printf '%s\n' "$out" | grep -cE ': (ERROR|WARNING|CHECK):')
	printf '%s\n' "$out" | grep -E ': (ERROR|WARNING|CHECK):' | sed 's/^/# checkpatch: /'
	echo "lint: checkpatch --strict: $n issue(s) in ${#SRCS[@]} files"
	[ "$n" -eq 0 ] || fails=$((fails + 1))
else
	echo "lint: checkpatch.pl not found (apt-get install linux-source-6.1)"
	fails=$((fails + 1))
fi

# ---- W=1 + sparse in a scratch copy (does not disturb build/<kver>/)
B=$ROOT/build/lint-$KVER
rm -rf "$B"; mkdir -p "$B"
cp -p "${SRCS[@]}" "$B/"
for f in *.S Kbuild Makefile; do cp -p "$f" "$B/"; done
log=$B/build.log
make -C "/lib/modules/$KVER/build" M="$B" W=1 C=2 CHECK="sparse" -j"$(nproc)" modules > "$log" 2>&1
brc=$?
names=$(printf '%s\n' "${SRCS[@]}" | sed 's/\./\\./g' | paste -sd'|')
# "path/file.c:12:3: warning: ..." from gcc or sparse, for our files only
ours=$(grep -E "^([^: ]*/)?($names):[0-9]+(:[0-9]+)?: (warning|error|note)?" "$log" | grep -E ': (warning|error):' | sort -u)
# sparse lines follow a "  CHECK file" line; gcc ones do not. Split by the message kind:
# gcc warnings end with a [-Wxxx] tag, sparse ones do not.
w1=$(printf '%s\n' "$ours" | grep -E '\[-W[^]]*\]$|: error:' | grep -v '^$')
sp=$(printf '%s\n' "$ours" | grep -vE '\[-W[^]]*\]$|: error:' | grep -v '^$')
mp=$(grep -E '^WARNING: modpost:|^ERROR: modpost:' "$log")
nw=$(printf '%s' "$w1" | grep -c .); ns=$(printf '%s' "$sp" | grep -c .); nm=$(printf '%s' "$mp" | grep -c .)
[ -n "$w1" ] && printf '%s\n' "$w1" | sed "s|^$B/||; s/^/# W=1: /"
[ -n "$sp" ] && printf '%s\n' "$sp" | sed "s|^$B/||; s/^/# sparse: /"
[ -n "$mp" ] && printf '%s\n' "$mp" | sed 's/^/# modpost: /'
echo "lint: W=1 build for $KVER: exit $brc, $nw compiler warning(s)/error(s) in our files, $nm modpost warning(s)"
echo "lint: sparse: $ns warning(s) in our files"
[ $brc -eq 0 ] && [ "$nw" -eq 0 ] && [ "$nm" -eq 0 ] || fails=$((fails + 1))
[ "$ns" -eq 0 ] || fails=$((fails + 1))
if [ $brc -ne 0 ] && [ "$nw" -eq 0 ]; then
	grep -E 'error|Error' "$log" | head -20 | sed 's/^/# build: /'
fi
[ $fails -eq 0 ] && echo "lint: OK" || echo "lint: FAILED ($fails of 3 checks)"
[ $fails -eq 0 ]
