# SPDX-License-Identifier: GPL-2.0
# 24-hotplug: CPU 1 goes offline and comes back five times during a 6 s iperf3 over
# ESP (aes-gcm, esp-null, then aes-gcm with the homes moving every 300 packets). The
# SAs homed on CPU 1 leave it without any packet overtaking an older one or getting
# lost: no xfrm error (a packet behind the replay window), nothing out of order at
# TCP (a lost segment puts the ones after it there), no packet dropped by the module.
# Retransmits are printed, not counted: an offline takes long enough under TCG that
# TCP may time out once (TcpExtTCPTimeouts), undone by DSACK (TcpExtTCPLossUndo).
# Across the runs, packets must have waited in a queue whose CPU went offline
# (rx_cpu_offline), or the cases proved nothing.
HP=/sys/devices/system/cpu/cpu1/online

hotplug_case() { # NAME ALGO REHOME_EVERY
	local name=$1 algo=$2 p=/sys/module/esp_swoffload/parameters
	local ofo0 ofo1 bd0 bd1 errs plug rc
	if ! ns_setup tso-off-both 2> "$T_TMP/err" || ! xfrm_setup "$algo" transport 4 2>> "$T_TMP/err"; then
		t_fail "$name: setup" "ns_setup/xfrm_setup failed: $(cat "$T_TMP/err")"
		return
	fi
	echo "$3" > $p/rx_rehome_every
	ofo0=$(tcp_ofo b)
	bd0=$(( $(counter a rx_drop_backlog) + $(counter b rx_drop_backlog) ))
	( sleep 1; for k in 1 2 3 4 5; do echo 0 > $HP; sleep 0.4; echo 1 > $HP; sleep 0.4; done ) &
	plug=$!
	iperf_run a b "$ADDR_B" 6
	rc=$?
	wait $plug
	echo 1 > $HP
	echo 0 > $p/rx_rehome_every
	if [ $rc -ne 0 ]; then
		t_fail "$name: iperf3 ran" "$(head -c 600 "$IPERF_JSON" 2>/dev/null)"
		return
	fi
	ofo1=$(tcp_ofo b)
	bd1=$(( $(counter a rx_drop_backlog) + $(counter b rx_drop_backlog) ))
	errs=$(( $(xfrm_errors_total a) + $(xfrm_errors_total b) ))
	OFFLINE=$(( OFFLINE + $(counter a rx_cpu_offline) + $(counter b rx_cpu_offline) ))
	t_diag "$name: $(( IPERF_BPS / 1000000 )) Mbit/s, rx_cpu_offline $(counter a rx_cpu_offline) + $(counter b rx_cpu_offline), rx_rehomed $(counter b rx_rehomed), TcpExtTCPOFOQueue +$((ofo1 - ofo0)), retransmits $IPERF_RETR"
	t_expect "$name: zero xfrm errors" "$errs" -eq 0
	t_expect "$name: every segment in order (TcpExtTCPOFOQueue +$((ofo1 - ofo0)))" "$((ofo1 - ofo0))" -eq 0
	t_expect "$name: no module drop (rx_drop_backlog +$((bd1 - bd0)))" "$((bd1 - bd0))" -eq 0
	[ "$errs" = 0 ] || for ns in a b; do xfrm_errors $ns | sed "s/^/xfrm_stat $ns: /" | while read -r l; do t_diag "$l"; done; done
	[ "$IPERF_RETR" = 0 ] || retrans_why a b | while read -r l; do t_diag "$l"; done
	ns_cleanup
}

if ! have_module && [ -z "$ESP_MODULE" ]; then
	t_skip "hotplug: SAs leave an offline CPU in order" "no module loaded"
elif [ "$(nproc)" -ne 2 ] || [ ! -w $HP ]; then
	t_skip "hotplug: SAs leave an offline CPU in order" "needs 2 CPUs, CPU 1 hotpluggable"
else
	OFFLINE=0
	for i in $(seq 1 "${HOTPLUG_ROUNDS:-1}"); do
		hotplug_case "hotplug gcm128" gcm128 0
		hotplug_case "hotplug null" null 0
		hotplug_case "hotplug gcm128, homes moving" gcm128 300
	done
	t_expect "hotplug: packets waited on an offline CPU (rx_cpu_offline $OFFLINE)" "$OFFLINE" -gt 0
	t_expect "hotplug: CPU 1 back online" "$(cat $HP)" -eq 1
fi
