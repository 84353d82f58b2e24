# SPDX-License-Identifier: GPL-2.0
# 75-nicoffload: SAs with NIC crypto offload (`ip xfrm state ... offload dev X dir
# out|in`, strongSwan's hw_offload). The kernel binds them to the device only through
# the SA's type_offload, which is the module's while it is loaded, and the module used to
# drop every packet of theirs. Now they get what esp4_offload/esp6_offload give them
# (tx_nic.c): the ESP header, number and trailer, the packet left for the device to
# encrypt. Debian's kernels ship no netdevsim, so the device is selftests/nicsim's
# esp_nicsim fixture (built next to the module by scripts/build.sh): a pair of devices
# that take offloaded SAs, pass what they would encrypt to each other as it is, and
# hand it up as a NIC that decrypted it would (CRYPTO_DONE), so xfrm_input() checks its
# number against the replay window. A TCP transfer over such SAs, both directions
# offloaded, must arrive intact, every ESP packet handed to the driver for it to
# encrypt (none encrypted in software), no xfrm error on either side, and the kernel
# log must say what the module does with such SAs.

NICSIM=$(dirname "$ESP_MODULE" 2>/dev/null)/nicsim/esp_nicsim.ko
NSD=/sys/kernel/debug/esp_nicsim
KEY=0x0102030405060708090a0b0c0d0e0f1011121314

nic_stat() { awk -v k="$2" '$1 == k {print $2}' "$NSD/$1"; }

nic_sas() { # NS DEV FAMILY LOCAL PEER: out SA local->peer, in SA peer->local
	local ns=$1 dev=$2 fam=$3 lo=$4 pe=$5 spo spi
	if [ "$ns" = a ]; then spo=0x3000 spi=0x4000; else spo=0x4000 spi=0x3000; fi
	nsx "$ns" ip -$fam xfrm state add src "$lo" dst "$pe" proto esp spi $spo reqid 1 \
		mode transport aead 'rfc4106(gcm(aes))' $KEY 128 offload dev "$dev" dir out &&
	nsx "$ns" ip -$fam xfrm state add src "$pe" dst "$lo" proto esp spi $spi reqid 1 \
		mode transport aead 'rfc4106(gcm(aes))' $KEY 128 offload dev "$dev" dir in &&
	nsx "$ns" ip -$fam xfrm policy add src "$lo" dst "$pe" dir out \
		tmpl src "$lo" dst "$pe" proto esp reqid 1 mode transport &&
	nsx "$ns" ip -$fam xfrm policy add src "$pe" dst "$lo" dir in \
		tmpl src "$pe" dst "$lo" proto esp reqid 1 mode transport
}

nic_case() { # FAMILY ADDR_A ADDR_B
	local fam=$1 aa=$2 ab=$3 off0 off1 pl0 pl1 dec0 dec1 err tx0 name="NIC offload v$1"
	nsx a ip xfrm state flush; nsx a ip xfrm policy flush
	nsx b ip xfrm state flush; nsx b ip xfrm policy flush
	if ! nic_sas a esonic0 "$fam" "$aa" "$ab" 2> "$T_TMP/err" ||
	   ! nic_sas b esonic1 "$fam" "$ab" "$aa" 2>> "$T_TMP/err"; then
		t_fail "$name: SAs with offload dev added" "$(cat "$T_TMP/err")"
		return
	fi
	t_expect "$name: the devices took the SAs (sas $(nic_stat esonic0 sas) + $(nic_stat esonic1 sas))" \
		"$(( $(nic_stat esonic0 sas) + $(nic_stat esonic1 sas) ))" -eq 4
	off0=$(( $(nic_stat esonic0 xmit_offloaded) + $(nic_stat esonic1 xmit_offloaded) ))
	pl0=$(( $(nic_stat esonic0 xmit_esp_plain) + $(nic_stat esonic1 xmit_esp_plain) ))
	dec0=$(( $(nic_stat esonic0 rx_decrypted) + $(nic_stat esonic1 rx_decrypted) ))
	tx0=$(( $(counter a tx_segments) + $(counter b tx_segments) ))
	if xfer a b "$ab" 4; then t_ok "$name: 4 MiB intact"
	else t_fail "$name: 4 MiB intact" "$XFER_WHY"; fi
	off1=$(( $(nic_stat esonic0 xmit_offloaded) + $(nic_stat esonic1 xmit_offloaded) ))
	pl1=$(( $(nic_stat esonic0 xmit_esp_plain) + $(nic_stat esonic1 xmit_esp_plain) ))
	dec1=$(( $(nic_stat esonic0 rx_decrypted) + $(nic_stat esonic1 rx_decrypted) ))
	err=$(( $(xfrm_errors_total a) + $(xfrm_errors_total b) ))
	t_expect "$name: ESP packets handed to the devices to encrypt (+$((off1 - off0)))" \
		$((off1 - off0)) -gt 1000
	t_expect "$name: none encrypted in software instead (+$((pl1 - pl0)))" $((pl1 - pl0)) -eq 0
	t_expect "$name: all of them taken in as decrypted by the device (+$((dec1 - dec0)))" \
		$((dec1 - dec0)) -eq $((off1 - off0))
	t_expect "$name: no software TX path of the module's (tx_segments +$(( $(counter a tx_segments) + $(counter b tx_segments) - tx0 )))" \
		"$(( $(counter a tx_segments) + $(counter b tx_segments) - tx0 ))" -eq 0
	t_expect "$name: zero xfrm errors" "$err" -eq 0
	[ "$err" = 0 ] || for ns in a b; do xfrm_errors $ns | sed "s/^/xfrm_stat $ns: /" | while read -r l; do t_diag "$l"; done; done
}

if ! have_module || [ -z "$ESP_MODULE" ]; then
	t_skip "NIC offload" "no module loaded"
elif [ ! -r "$NICSIM" ]; then
	t_skip "NIC offload" "no fixture $NICSIM (scripts/build.sh builds it)"
elif ! insmod "$NICSIM"; then
	t_fail "NIC offload: insmod esp_nicsim"
else
	dmesg_clear
	ns_cleanup
	mac0=$(cat /sys/class/net/esonic0/address)
	mac1=$(cat /sys/class/net/esonic1/address)
	ip netns add a; ip netns add b
	ip link set esonic0 netns a; ip link set esonic1 netns b
	nsx a ip addr add 10.9.0.1/24 dev esonic0; nsx b ip addr add 10.9.0.2/24 dev esonic1
	nsx a ip link set lo up; nsx b ip link set lo up
	nsx a ip link set esonic0 up; nsx b ip link set esonic1 up
	nsx a ip neigh replace 10.9.0.2 lladdr "$mac1" dev esonic0 nud permanent
	nsx b ip neigh replace 10.9.0.1 lladdr "$mac0" dev esonic1 nud permanent
	nic_case 4 10.9.0.1 10.9.0.2
	t_check "NIC offload: the kernel log says what the module does with such SAs" \
		grep -q "has NIC crypto offload (offload dev esonic" <(dmesg)
	if ipv6_up; then
		nsx a ip addr add fd09::1/64 dev esonic0 nodad
		nsx b ip addr add fd09::2/64 dev esonic1 nodad
		nsx a ip neigh replace fd09::2 lladdr "$mac1" dev esonic0 nud permanent
		nsx b ip neigh replace fd09::1 lladdr "$mac0" dev esonic1 nud permanent
		nic_case 6 fd09::1 fd09::2
	fi
	ns_cleanup
	# the devices come back to the initial namespace once theirs are gone
	for _ in $(seq 1 40); do
		rmmod esp_nicsim 2>/dev/null && break
		flush_defer_lists
		sleep 0.25
	done
	t_check "NIC offload: the fixture unloads" bash -c '! grep -q "^esp_nicsim " /proc/modules'
fi
