# SPDX-License-Identifier: GPL-2.0
# 23-homes: where the SAs' RX homes are (rx_steer.c, debugfs rx_homes: "home_cpus" and
# the CPUs they may be on, then "CPU SLOTS" per CPU). Every one of the 256 slots must be
# on an online CPU that is neither isolated (isolcpus=, /sys/devices/system/cpu/isolated)
# nor tickless (nohz_full=), with the counts of those CPUs at most one apart: after a
# fresh insmod, after a CPU went offline (its slots went to one heir first), after it
# came back (it held none), and after a CPU that was never online comes up. make check
# runs it in a 2-CPU VM, and in a 4-CPU one booted with maxcpus=3 isolcpus=1: CPU 3 is
# possible but not online, CPU 1 isolated. Hashed over the possible CPUs, as they were,
# the homes of CPU 3 fell to CPU 0 and CPU 1 got its share (128, 64, 64).

# cpu_list LIST: "0-2,5" -> "0 1 2 5"
cpu_list() {
	local r a b
	for r in ${1//,/ }; do
		a=${r%-*} b=${r#*-}
		case $a$b in *[!0-9]*) continue ;; esac	# "(null)": none
		seq "$a" "$b"
	done | tr '\n' ' '
}

# the CPUs homes may be on: online, not isolated, not nohz_full (all online if none)
home_cpus_expected() {
	local c out="" skip
	skip=" $(cpu_list "$(cat /sys/devices/system/cpu/isolated 2>/dev/null)") $(cpu_list "$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)") "
	for c in $(cpu_list "$(cat /sys/devices/system/cpu/online)"); do
		case $skip in *" $c "*) ;; *) out="$out $c" ;; esac
	done
	[ -n "$out" ] || out=" $(cpu_list "$(cat /sys/devices/system/cpu/online)")"
	echo "${out# }" | sed 's/ *$//'
}

# homes_ok: rc 0 if rx_homes shows the placement asked for; HOMES_WHY says why not
homes_ok() {
	local want got cpu n sum=0 on=0 min=999 max=0
	want=$(home_cpus_expected)
	got=$(awk '$1 == "home_cpus" {$1 = ""; print substr($0, 2)}' "$KNOBS/rx_homes")
	HOMES_SHOW=$(tr '\n' ';' < "$KNOBS/rx_homes")
	if [ "$got" != "$want" ]; then
		HOMES_WHY="home CPUs '$got', expected '$want'"
		return 1
	fi
	while read -r cpu n; do
		[ "$cpu" = home_cpus ] && continue
		sum=$((sum + n))
		case " $want " in
		*" $cpu "*)
			on=$((on + n))
			[ "$n" -lt "$min" ] && min=$n
			[ "$n" -gt "$max" ] && max=$n ;;
		esac
	done < "$KNOBS/rx_homes"
	HOMES_WHY="$on of $sum slots on home CPUs, $min to $max per home CPU"
	[ "$sum" = 256 ] && [ "$on" = 256 ] && [ $((max - min)) -le 1 ] && [ "$min" -gt 0 ]
}

# homes_expect NAME: homes_ok within 20 s (a rebalance moves one slot at a time)
homes_expect() {
	local _
	for _ in $(seq 1 80); do
		homes_ok && break
		sleep 0.25
	done
	if homes_ok; then t_ok "$1 ($HOMES_WHY)"
	else t_fail "$1" "$HOMES_WHY; rx_homes: $HOMES_SHOW"; fi
}

if ! have_module || [ -z "$ESP_MODULE" ]; then
	t_skip "homes: spread over the online housekeeping CPUs" "no module loaded"
	return 0 2>/dev/null || exit 0
fi
t_diag "homes: possible $(cat /sys/devices/system/cpu/possible), online $(cat /sys/devices/system/cpu/online), isolated '$(cat /sys/devices/system/cpu/isolated)', nohz_full '$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)'"

# a fresh load places them (earlier tests' traffic moved some: rx_rehome)
if ! unload_module || ! insmod "$ESP_MODULE"; then
	t_fail "homes: reload the module" "$(lsmod | grep esp_swoffload)"
	return 0 2>/dev/null || exit 0
fi
if [ ! -r "$KNOBS/rx_homes" ]; then
	t_fail "homes: $KNOBS/rx_homes exists"
	return 0 2>/dev/null || exit 0
fi
homes_expect "homes: after insmod, spread evenly over the online housekeeping CPUs"

# a home CPU goes offline, then comes back: not CPU 0, which may not go
victim=
for c in $(home_cpus_expected); do
	[ "$c" != 0 ] && [ -w /sys/devices/system/cpu/cpu$c/online ] && victim=$c
done
if [ -z "$victim" ]; then
	t_skip "homes: across CPU hotplug" "no hotpluggable home CPU but CPU 0"
else
	echo 0 > /sys/devices/system/cpu/cpu$victim/online
	homes_expect "homes: CPU $victim offline, spread over the others"
	echo 1 > /sys/devices/system/cpu/cpu$victim/online
	homes_expect "homes: CPU $victim back, spread over it too"
	# a CPU present but never brought up (maxcpus=)
	for c in $(cpu_list "$(cat /sys/devices/system/cpu/present)"); do
		[ -w /sys/devices/system/cpu/cpu$c/online ] || continue
		[ "$(cat /sys/devices/system/cpu/cpu$c/online)" = 0 ] || continue
		echo 1 > /sys/devices/system/cpu/cpu$c/online
		homes_expect "homes: CPU $c, online for the first time, spread over it too"
	done
	# data still flows over SAs whose homes moved
	ns_setup tso-off
	xfrm_setup gcm128 transport 4
	if xfer a b "$ADDR_B" 2; then t_ok "homes: data intact after the hotplug"
	else t_fail "homes: data intact after the hotplug" "$XFER_WHY"; fi
	ns_cleanup
fi
