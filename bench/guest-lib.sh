# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# guest-lib.sh - sourced INSIDE the VM by guest-bench.sh and guest-profile.sh.

# sleep_until US: until the guest's clock reads US microseconds since the epoch
# (${EPOCHREALTIME/./}); at once if it did. No fork but sleep's: it runs inside the
# window whose instructions are counted.
sleep_until() {
	local left=$(($1 - ${EPOCHREALTIME/./})) s

	[ $left -gt 0 ] || return 0
	printf -v s '%d.%06d' $((left / 1000000)) $((left % 1000000))
	sleep "$s"
}
