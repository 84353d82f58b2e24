# SPDX-License-Identifier: GPL-2.0
# 90-dkms: `make dkms-install` (scripts/dkms-install.sh) inside the guest, for the running
# kernel: the guest's / is the host's, read-only, under a tmpfs overlay, so /usr/src,
# /var/lib/dkms, /lib/modules/<kver>/updates and /etc/modprobe.d are written to the
# throw-away overlay only. dkms builds with the host's headers and gcc.
# Checks: dkms builds and installs into /lib/modules/<kver>/updates/dkms, depmod finds it,
# `modprobe esp_swoffload` loads that file with esp4 pulled in first (and esp6 by its init), the
# modprobe.d snippet refuses esp4_offload/esp6_offload, the modules-load.d snippet loads
# the module (systemd-modules-load), and the DKMS-built module carries traffic.
# The dkms build runs inside the TCG guest: several minutes (measured 539 s on 6.12 with the
# host busy). Env: DKMS_TEST_KERNELS (default: the running kernel), DKMS_SELFTEST=0 skips.
KV=$(uname -r)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." 2>/dev/null && pwd)
[ -x "$ROOT/scripts/dkms-install.sh" ] || ROOT=$(cd "$(dirname "$ESP_MODULE")/../.." 2>/dev/null && pwd)
name="dkms"

if [ "${DKMS_SELFTEST:-1}" = 0 ]; then
	t_skip "$name" "DKMS_SELFTEST=0"; return 0 2>/dev/null || exit 0
fi
if ! command -v dkms > /dev/null; then
	t_skip "$name" "dkms not installed"; return 0 2>/dev/null || exit 0
fi
if [ ! -e "/lib/modules/$KV/build/Makefile" ]; then
	t_skip "$name" "no headers for $KV"; return 0 2>/dev/null || exit 0
fi
if [ ! -x "$ROOT/scripts/dkms-install.sh" ]; then
	t_fail "$name: scripts/dkms-install.sh found" "not under $ROOT"; return 0 2>/dev/null || exit 0
fi

# 1. start from nothing: the module run.sh insmod'ed, esp4 and esp6 unloaded (the netns of
#    the earlier tests are gone; their SAs are freed by the xfrm GC, so retry a little)
ns_cleanup
lsmod | grep -q '^esp_swoffload ' && unload_module
for i in $(seq 1 20); do
	rmmod esp6 esp4 2>/dev/null
	lsmod | grep -qE '^esp[46] ' || break
	sleep 0.25
done
left=$(lsmod | awk '$1 ~ /^(esp_swoffload|esp4|esp6|esp4_offload|esp6_offload)$/ {print $1}' | tr '\n' ' ')
t_diag "$name: before install, loaded: ${left:-none of esp_swoffload esp4 esp6}"
clean_start=0; [ -z "$left" ] && clean_start=1

# 2. dkms-install.sh for the running kernel
t0=$(date +%s)
if DKMS_KERNELS=${DKMS_TEST_KERNELS:-$KV} "$ROOT/scripts/dkms-install.sh" > "$T_TMP/dkms.out" 2>&1; then
	t_ok "$name: dkms-install.sh built and installed for ${DKMS_TEST_KERNELS:-$KV} ($(( $(date +%s) - t0 )) s)"
else
	t_fail "$name: dkms-install.sh built and installed for ${DKMS_TEST_KERNELS:-$KV}" \
		"$(tail -25 "$T_TMP/dkms.out")" "$(tail -25 /var/lib/dkms/esp_swoffload/*/build/make.log 2>/dev/null)"
fi
t_diag "$(dkms status esp_swoffload 2>&1)"
ko=$(ls /lib/modules/"$KV"/updates/dkms/esp_swoffload.ko* 2>/dev/null | head -1)
t_check "$name: module file in /lib/modules/$KV/updates/dkms" test -n "$ko"
path=$(modinfo -n esp_swoffload 2>/dev/null)
t_expect "$name: depmod resolves esp_swoffload to it (${path:-none})" "${path:-x}" = "${ko:-y}"
t_check "$name: /etc/modprobe.d/esp_swoffload.conf installed" \
	grep -q '^install esp4_offload /bin/false' /etc/modprobe.d/esp_swoffload.conf
t_check "$name: /etc/modules-load.d/esp_swoffload.conf installed" \
	grep -qx 'esp_swoffload' /etc/modules-load.d/esp_swoffload.conf
t_diag "modprobe -n -v esp_swoffload: $(modprobe -n -v esp_swoffload 2>&1 | tr '\n' ';')"

# 3. modprobe loads it, esp4 first; its init loads esp6
if out=$(modprobe esp_swoffload 2>&1) && [ -r /proc/net/esp_swoffload ]; then
	t_ok "$name: modprobe esp_swoffload"
else
	t_fail "$name: modprobe esp_swoffload" "$out" "$(dmesg | tail -5)"
fi
if [ -r /sys/module/esp_swoffload/srcversion ] && [ -n "$ko" ]; then
	t_expect "$name: the loaded module is the DKMS-built file (srcversion)" \
		"$(cat /sys/module/esp_swoffload/srcversion)" = "$(modinfo -F srcversion "$ko")"
fi
if [ $clean_start = 1 ]; then
	t_check "$name: esp4 and esp6 were loaded with it" \
		bash -c "lsmod | grep -q '^esp4 ' && lsmod | grep -q '^esp6 '"
else
	t_skip "$name: esp4 and esp6 were loaded with it" "could not unload them first ($left)"
fi

# 4. the stock offload modules are refused
for m in esp4_offload esp6_offload; do
	if out=$(modprobe $m 2>&1); then
		t_fail "$name: modprobe $m refused" "it loaded: $(lsmod | grep "^$m")"
		rmmod $m 2>/dev/null
	else
		t_ok "$name: modprobe $m refused"
	fi
done
t_check "$name: esp_swoffload still loaded, no stock offload module" \
	bash -c "test -r /proc/net/esp_swoffload && ! lsmod | grep -qE '^esp[46]_offload '"

# 5. the DKMS-built module carries traffic
if ns_setup tso-off && xfrm_setup gcm128 transport 4; then
	tx0=$(counter a tx_segments) rx0=$(counter b rx_gro_packets)
	if xfer a b "$ADDR_B" 2; then t_ok "$name: 2 MiB over aes-gcm with the DKMS module, sha256 equal"
	else t_fail "$name: 2 MiB over aes-gcm with the DKMS module, sha256 equal" "$XFER_WHY"; fi
	tx1=$(counter a tx_segments) rx1=$(counter b rx_gro_packets)
	t_diag "$name: tx_segments(a) $tx0 -> $tx1, rx_gro_packets(b) $rx0 -> $rx1"
	t_expect "$name: fast path (tx_segments and rx_gro_packets grew)" \
		$(( ${tx1:-0} > ${tx0:-0} && ${rx1:-0} > ${rx0:-0} )) -eq 1
else
	t_fail "$name: traffic setup" "ns_setup/xfrm_setup failed"
fi
xfrm_flush
ns_cleanup

# 6. modules-load.d at boot: systemd-modules-load loads it
sml=$(ls /lib/systemd/systemd-modules-load /usr/lib/systemd/systemd-modules-load 2>/dev/null | head -1)
unloaded=0
# the netns and SAs of step 5 go away asynchronously (netns cleanup, xfrm GC), and
# until they have, the SAs hold the module: allow them 60 s under emulation
unload_module 240 && unloaded=1
if [ -n "$sml" ] && [ $unloaded = 1 ]; then
	out=$("$sml" 2>&1)
	t_check "$name: systemd-modules-load loads it from modules-load.d" test -r /proc/net/esp_swoffload
	[ -n "$out" ] && t_diag "systemd-modules-load: $out"
else
	t_skip "$name: systemd-modules-load loads it" "$([ -z "$sml" ] && echo 'no systemd-modules-load' || echo "could not unload the module: $(lsmod | grep '^esp_swoffload')")"
	modprobe esp_swoffload 2>/dev/null
fi
