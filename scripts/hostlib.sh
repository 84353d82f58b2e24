# SPDX-License-Identifier: GPL-2.0
# scripts/hostlib.sh - sourced by demo.sh, bench.sh, soak.sh and profile.sh (host side):
# which kernel to boot, what to install first, and (soak, profile) the run directory and
# module build. The caller defines say() and runs from the repo root.

# shellcheck source=kver.sh
. "$ROOT/scripts/kver.sh"

# pick_kv WANT: the kernel to build for and boot (kver_pick WANT boot; WANT defaults
# to 6.1).
pick_kv() {
	kver_pick "${1:-6.1}" boot
}

# deps_missing "COMMANDS": print the first of COMMANDS not on PATH, or the kernel
# ${KV:-6.1} if its image or headers are missing; return 1 if nothing is.
deps_missing() {
	local c
	for c in $1; do
		command -v "$c" >/dev/null 2>&1 || { echo "$c"; return 0; }
	done
	[ -n "$(pick_kv "${KV:-}")" ] || { echo "kernel ${KV:-6.1}"; return 0; }
	return 1
}

# ensure_deps "COMMANDS" "PACKAGES": run scripts/install-deps.sh (a fast no-op when all
# is present); if a command or the kernel is still missing, apt-get PACKAGES and the
# kernel (6.12 from bookworm-backports). Returns 1 if something is missing after that.
ensure_deps() {
	local cmds=$1 pkgs=$2 m
	if [ -x scripts/install-deps.sh ]; then
		scripts/install-deps.sh >&2 || say "scripts/install-deps.sh failed"
	fi
	m=$(deps_missing "$cmds") || return 0
	say "still missing: $m; installing with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	# shellcheck disable=SC2086
	apt-get install -y -qq $pkgs >&2
	if [ -z "$(pick_kv "${KV:-}")" ]; then
		case ${KV:-6.1} in
		6.12*) apt-get install -y -qq -t bookworm-backports linux-image-amd64 linux-headers-amd64 >&2 ;;
		*) apt-get install -y -qq -t bookworm linux-image-amd64 linux-headers-amd64 >&2 ;;
		esac
	fi
	if m=$(deps_missing "$cmds"); then
		say "still missing after install: $m"
		return 1
	fi
}

# prepare_vm_run NAME: what soak.sh and profile.sh need before their VM: the packages
# (ensure_deps), the kernel (KV, from pick_kv), a run directory
# OUT=bench/out/NAME-<date>-<kv>, and esp_swoffload.ko built into OUT/build (MODULE; log
# in OUT/build.log). Exits the caller on failure.
prepare_vm_run() {
	ensure_deps "qemu-system-x86_64 busybox iperf3 ethtool ip python3 cpio modprobe make gcc jq" \
		"qemu-system-x86 busybox-static iperf3 ethtool iproute2 kmod python3 cpio xz-utils make gcc jq" ||
		exit 1
	KV=$(pick_kv "${KV:-}")
	[ -n "$KV" ] || { say "no kernel found under /lib/modules"; exit 1; }
	OUT=$ROOT/bench/out/$1-$(date +%Y%m%d-%H%M%S)-$KV
	mkdir -p "$OUT"
	say "building esp_swoffload.ko for $KV"
	MODULE=$(BUILD_DIR="$OUT/build" scripts/build.sh "$KV" 2>"$OUT/build.log" | tail -1)
	[ -n "$MODULE" ] && [ -r "$MODULE" ] || { tail -5 "$OUT/build.log" >&2; say "build failed"; exit 1; }
}
