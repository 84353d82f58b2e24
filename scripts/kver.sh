# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# scripts/kver.sh - sourced by build.sh, check.sh, lint.sh, install-deps.sh and hostlib.sh:
# which installed kernel a version names, the same for every script.

# kver_pick WANT [boot]: the newest kernel under /lib/modules named WANT, WANT.* or WANT-*
# (WANT is a full version, or a prefix such as 6.1 or 6.12) that has headers, and with
# "boot" also a /boot/vmlinuz to boot. Prints nothing if none has. Requiring headers
# keeps make check-debug's kernel (6.1.x-esodbg, which sorts above Debian's 6.1.0-N)
# out: it has modules but none.
kver_pick() {
	local k
	for k in /lib/modules/"$1" /lib/modules/"$1".* /lib/modules/"$1"-*; do
		[ -e "$k/build/Makefile" ] || continue
		[ "${2:-}" != boot ] || [ -r "/boot/vmlinuz-${k##*/}" ] || continue
		echo "${k##*/}"
	done | sort -uV | tail -1
}
