#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/wirecompat-guest.sh - one side of the two-VM wire-compatibility test
# (run in both VMs by scripts/vmpair, see selftests/wirecompat.sh on the host side).
#
# VM1 (VMPAIR_SIDE=1) loads $ESP_MODULE if set; VM2 runs the stock ESP path (no
# esp4_offload/esp6_offload, no module). For every algorithm x mode x family both VMs
# install the same SAs/policies in their root netns on the virtio link, then WIRE_MB MiB
# go 1->2 and 2->1 over TCP at the same time; each receiver compares sha256 with the
# data sent and checks that both its SAs counted the bytes. With the module, VM1 also
# checks that its counters grew (tx_segments and rx_gro_packets).
# The two sides run in lockstep through barrier files in /shared.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SIDE=${VMPAIR_SIDE:?run me through scripts/vmpair}
PEER=$((3 - SIDE))
SH=/shared
export T_RESULTS=/tmp/wire.results T_TMP=/tmp/wire.tmp
rm -rf "$T_RESULTS" "$T_TMP"; : > "$T_RESULTS"; mkdir -p "$T_TMP"
. "$HERE/lib.sh"
ESP_MODULE=${ESP_MODULE:-}
MB=${WIRE_MB:-1}
WHO=$([ -n "$ESP_MODULE" ] && echo module || echo stock)

abort() {
	t_fail "wirecompat vm$SIDE: $1" "${2:-}"
	touch "$SH/$SIDE.abort"
	finish
}
finish() {
	local n nfail
	n=$(wc -l < "$T_RESULTS"); nfail=$(grep -c '^fail' "$T_RESULTS")
	echo "1..$n"
	t_diag "wirecompat vm$SIDE: $((n - nfail)) passed, $nfail failed"
	[ "$nfail" -eq 0 ] || touch "$SH/$SIDE.failed"
	exit $([ "$nfail" -eq 0 ] && echo 0 || echo 1)
}
# barrier NAME: wait until the peer reached the same point
barrier() {
	local i=0
	touch "$SH/$SIDE.b.$1"
	while [ ! -e "$SH/$PEER.b.$1" ]; do
		[ -e "$SH/$PEER.abort" ] && abort "peer aborted" "vm$PEER gave up before barrier $1"
		i=$((i + 1))
		[ $i -gt "${BARRIER_TIMEOUT:-900}" ] && abort "barrier $1" "vm$PEER did not arrive in time"
		sleep 0.1
	done
}

# ---- setup
t_diag "vm$SIDE: kernel $(uname -r), $WHO ESP path"
for m in aesni_intel ghash_clmulni_intel chacha_x86_64 poly1305_x86_64 sha256_ssse3; do
	modprobe -q "$m" 2>/dev/null
done
modprobe -a esp4 esp6 xfrm_user || abort "modprobe esp4 esp6 xfrm_user"
if [ -n "$ESP_MODULE" ]; then
	out=$(insmod "$ESP_MODULE" 2>&1) && have_module ||
		abort "insmod $(basename "$ESP_MODULE")" "$out $(dmesg | tail -10)"
	t_ok "wirecompat vm$SIDE: insmod $(basename "$ESP_MODULE")"
fi
if lsmod | grep -qE '^esp[46]_offload'; then
	abort "stock offload modules not loaded" "$(lsmod | grep offload)"
fi
DEV=$(ls /sys/class/net | grep -v '^lo$' | head -1)
[ -n "$DEV" ] || abort "NIC present" "no network interface besides lo"
# Name the root netns so that lib.sh's "ip -n NS" helpers work on it.
mkdir -p /run/netns; touch /run/netns/root
mount --bind /proc/self/ns/net /run/netns/root || abort "bind root netns"
MY=root
IP4_1=10.9.0.1 IP4_2=10.9.0.2 IP6_1=fd09::1 IP6_2=fd09::2
IN4_1=10.9.1.1 IN4_2=10.9.2.1 IN6_1=fd09:1::1 IN6_2=fd09:2::1
MAC_1=52:54:00:12:34:01 MAC_2=52:54:00:12:34:02
v() { eval echo "\$$1_$2"; }
{
	ip link set "$DEV" up &&
	ip addr add "$(v IP4 $SIDE)/24" dev "$DEV" &&
	ip addr add "$(v IP6 $SIDE)/64" dev "$DEV" nodad &&
	ip addr add "$(v IN4 $SIDE)/32" dev lo &&
	ip addr add "$(v IN6 $SIDE)/128" dev lo nodad &&
	ip neigh replace "$(v IP4 $PEER)" lladdr "$(v MAC $PEER)" dev "$DEV" nud permanent &&
	ip neigh replace "$(v IP6 $PEER)" lladdr "$(v MAC $PEER)" dev "$DEV" nud permanent &&
	ip route add "$(v IN4 $PEER)/32" via "$(v IP4 $PEER)" dev "$DEV" src "$(v IN4 $SIDE)" &&
	ip -6 route add "$(v IN6 $PEER)/128" via "$(v IP6 $PEER)" dev "$DEV" src "$(v IN6 $SIDE)" &&
	sysctl -qw net.ipv4.conf.all.rp_filter=0 "net.ipv4.conf.$DEV.rp_filter=0"
} 2> "$T_TMP/err" || abort "network setup" "$(cat "$T_TMP/err")"
ethtool -K "$DEV" gro on >/dev/null 2>&1
t_diag "vm$SIDE: $DEV $(cat /sys/class/net/$DEV/address), offloads: $(ethtool -k "$DEV" 2>/dev/null | grep -E '^(tcp-segmentation-offload|generic-receive-offload|tx-checksumming):' | tr -d '\n')"

if [ "$SIDE" = 1 ]; then
	head -c $((MB * 1048576)) /dev/urandom > "$T_TMP/data"
	cp "$T_TMP/data" "$SH/data.tmp" && mv "$SH/data.tmp" "$SH/data"
fi
echo "$WHO" > "$SH/who$SIDE"
barrier start
WHO1=$(cat "$SH/who1") WHO2=$(cat "$SH/who2")
# Plain (no IPsec) reachability first, so a broken link is not reported 40 times.
PING=ping; command -v ping > /dev/null || PING="busybox ping"
ok=0
for i in $(seq 30); do $PING -c 1 -W 2 "$(v IP4 $PEER)" > /dev/null 2>&1 && { ok=1; break; }; done
[ $ok = 1 ] ||
	abort "link up (ping vm$PEER in the clear)" "$(ip -s link show "$DEV")"
t_ok "wirecompat vm$SIDE: link up (ping vm$PEER in the clear)"
barrier linkok
[ "$SIDE" = 2 ] && cp "$SH/data" "$T_TMP/data"
WANT=$(sha256sum < "$T_TMP/data" | cut -d' ' -f1)

# setup_sa ALGO MODE FAM: the same SAs in both VMs (SPI 0x1000: 1->2, 0x2000: 2->1)
setup_sa() {
	local algo=$1 mode=$2 fam=$3 o1 o2 a1 a2 plen
	ip xfrm policy flush; ip xfrm state flush
	if [ "$fam" = 6 ]; then o1=$IP6_1 o2=$IP6_2 plen=128; else o1=$IP4_1 o2=$IP4_2 plen=32; fi
	a1=$o1 a2=$o2
	if [ "$mode" = tunnel ]; then
		if [ "$fam" = 6 ]; then a1=$IN6_1 a2=$IN6_2; else a1=$IN4_1 a2=$IN4_2; fi
	fi
	ADDR_PEER=$(eval echo "\$a$PEER") ADDR_SELF=$(eval echo "\$a$SIDE")
	_xfrm_sa $MY "$o1" "$o2" 0x1000 1 "$mode" "$algo" 1 "" &&
	_xfrm_sa $MY "$o2" "$o1" 0x2000 2 "$mode" "$algo" 2 "" || return 1
	if [ "$SIDE" = 1 ]; then
		_xfrm_pol $MY "$a1" "$a2" "$o1" "$o2" "$mode" 1 2 $plen
	else
		_xfrm_pol $MY "$a2" "$a1" "$o2" "$o1" "$mode" 2 1 $plen
	fi
}

# sa_bytes_all: "SPI BYTES" for every SA (one "ip" call)
sa_bytes_all() {
	local l spi= next=0
	while IFS= read -r l; do
		case $l in
		*"proto esp spi "*) spi=${l#*spi }; spi=${spi%% *}; spi=${spi%%(*} ;;
		*"lifetime current:"*) next=1; continue ;;
		esac
		if [ $next = 1 ]; then l=${l%%(bytes)*}; echo "$spi $((l + 0))"; next=0; fi
	done <<< "$(ip -s xfrm state)"
}

# Each case: both VMs send WIRE_MB MiB to each other at the same time (TCP, socat),
# each checks what it received (sha256) and that both of its SAs counted >= WIRE_MB MiB.
# SAs are fresh for every case, so their byte counters start at 0.
k=0
for algo in ${WIRE_ALGOS:-$ALGOS}; do
for mode in $MODES; do
for fam in $FAMILIES; do
	k=$((k + 1))
	case=$(printf '%s %s ipv%s' "$algo" "$mode" "$fam")
	name="wirecompat $case: $(eval echo "\$WHO$PEER")->$WHO data intact (vm$SIDE received)"
	T1=$(date +%s%N)
	why=
	setup_sa "$algo" "$mode" "$fam" 2> "$T_TMP/err" || why="SA setup failed: $(cat "$T_TMP/err")"
	c0=$(counter $MY tx_segments 2>/dev/null) r0=$(counter $MY rx_gro_packets 2>/dev/null)
	port=$((30000 + k))
	case $ADDR_SELF in *:*) l="TCP6-LISTEN:$port,reuseaddr" ;; *) l="TCP4-LISTEN:$port,reuseaddr" ;; esac
	case $ADDR_PEER in *:*) c="TCP6:[$ADDR_PEER]:$port" ;; *) c="TCP4:$ADDR_PEER:$port" ;; esac
	rm -f "$T_TMP/recv"
	timeout 90 socat -u "$l" "CREATE:$T_TMP/recv" &
	pid=$!
	barrier "$k.sa"
	# the peer may not listen yet: retry connecting
	timeout 90 socat -u "OPEN:$T_TMP/data" "$c,retry=100,interval=0.1,connect-timeout=5" 2> "$T_TMP/err" ||
		why="${why:+$why; }sending to vm$PEER failed: $(head -c 300 "$T_TMP/err")"
	wait $pid || why="${why:+$why; }receiving socat failed"
	got=$(sha256sum < "$T_TMP/recv" 2>/dev/null); got=${got%% *}
	[ "$got" = "$WANT" ] || why="${why:+$why; }sha256 mismatch: got ${got:-nothing} ($(stat -c %s "$T_TMP/recv" 2>/dev/null || echo 0) bytes), want $WANT"
	barrier "$k.done"
	# both transfers are complete now: check the SA counters
	bytes=$(sa_bytes_all)
	for spi in 0x00001000 0x00002000; do
		b=0
		while read -r x y; do [ "$x" = $spi ] && b=$y; done <<< "$bytes"
		[ "$b" -ge $((MB * 1048576)) ] || why="${why:+$why; }SA $spi counted $b bytes (< $MB MiB)"
	done
	t_diag "$case: vm$SIDE $(( ($(date +%s%N) - T1) / 1000000 )) ms; SA bytes: $(echo $bytes)"
	if [ -z "$why" ]; then t_ok "$name"; else t_fail "$name" "$why"; fi
	if [ -n "$ESP_MODULE" ]; then
		c1=$(counter $MY tx_segments) r1=$(counter $MY rx_gro_packets)
		if [ -n "$c1" ] && [ -n "$r1" ] && [ "$c1" -gt "${c0:-0}" ] && [ "$r1" -gt "${r0:-0}" ]; then
			t_ok "wirecompat $case: vm$SIDE module fast path used both ways"
		else
			t_fail "wirecompat $case: vm$SIDE module fast path used both ways" "tx_segments ${c0:-?} -> ${c1:-?}, rx_gro_packets ${r0:-?} -> ${r1:-?}"
		fi
	fi
done
done
done
e=$(xfrm_errors $MY)
[ -z "$e" ] || t_diag "vm$SIDE xfrm_stat: $(echo $e)"
finish
