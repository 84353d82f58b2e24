# SPDX-License-Identifier: GPL-2.0
# selftests/lib.sh - helpers for the in-VM selftests (sourced; runs as root in the guest).
#
# TAP output (numbering is global across test files, kept in $T_RESULTS):
#   t_ok NAME            -> "ok N - NAME"
#   t_fail NAME WHY      -> "not ok N - NAME" + "# WHY"
#   t_skip NAME WHY      -> "ok N - NAME # SKIP WHY"
#   t_check NAME CMD...  -> t_ok if CMD succeeds, else t_fail with CMD's output
#   t_diag MSG           -> "# MSG" (diagnostics; any line starting "# " is one)
# Kernel log: kernel_log_check NAME (t_fail if BUG/WARNING/KASAN/...; then clears it),
#   dmesg_clear (the same; tests use it instead of dmesg -C)
# Topology (two netns joined by a veth pair, GRO on both ends):
#   ns_setup [tso-off|tso-off-both|gro-off|mtu=N]...   ns "a" (va) <-> ns "b" (vb)
#       a: 10.0.0.1 fd00::1 (tunnel-mode inner: 10.1.0.1 fd01::1 on lo)
#       b: 10.0.0.2 fd00::2 (tunnel-mode inner: 10.2.0.1 fd02::1 on lo)
#       static neighbour entries; no ARP/ND traffic. "a" is the sender by convention.
#       (IPv4 only where IPv6 is off: ipv6_up)
#   ns_cleanup;  nsx NS CMD...  (= ip netns exec NS CMD...)
# IPsec (ip xfrm, no IKE):
#   xfrm_setup ALGO MODE FAMILY [esn]   ALGO: null gcm128 gcm256 chacha cbc-sha256
#       MODE: transport|tunnel, FAMILY: 4|6. Installs a->b (SPI 0x1000) and b->a
#       (SPI 0x2000) SAs + out/in policies in both netns; sets ADDR_A / ADDR_B (the
#       addresses traffic must use: inner ones in tunnel mode) and OUT_A / OUT_B.
#   xfrm_flush;  ALGOS, MODES, FAMILIES: the full matrix (FAMILIES=4 where IPv6 is off)
#   sa_bytes NS SPI                 current byte counter of that SA in NS
#   sa_packets NS SPI               current packet counter of that SA in NS
# Counters:
#   have_module                     /proc/net/esp_swoffload exists (module loaded)
#   counter NS NAME                 value from /proc/net/esp_swoffload in NS (rc 1 if absent)
#   counters NS                     the whole file
#   xfrm_errors NS                  the non-zero lines of /proc/net/xfrm_stat
#   xfrm_errors_total NS            their sum
#   xfrm_stat NS NAME               one counter of /proc/net/xfrm_stat
#   sa_oseq NS SPI                  the SA's last output sequence number
#   link_stat NS DEV rx|tx FIELD    e.g. link_stat a va tx dropped
#   tcp_retrans NS                  TCP retransmits other than tail-loss probes, so far
#   busy_jiffies                    the guest's busy time so far (/proc/stat, USER_HZ):
#                                   user + nice + system + irq + softirq
# Module and crypto:
#   load_simd_crypto                modprobe the SIMD AES/GHASH/ChaCha/Poly1305 drivers
#                                   (no udev in the guest loads them; missing ones are fine)
#   unload_module [TRIES]           rmmod esp_swoffload, retrying every 0.25 s (40 tries)
#   flush_defer_lists               run NET_RX on every CPU: frees skbs (and SAs) parked there
#   seqiv_driver AEAD               driver behind "seqiv(AEAD)" (not pcrypt/cryptd)
#   $CU add|del INSTANCE            crypto_user; pcrypt_del INSTANCE [TRIES] retries del
# Traffic:
#   xfer SRC_NS DST_NS DST_IP MB    TCP-transfer MB MiB of random data (socat), compare
#                                   sha256 end to end; rc 0 if equal, else XFER_WHY says why
#   iperf_run CLI_NS SRV_NS SRV_IP SECONDS [iperf3 client args]
#                                   sets IPERF_BPS (receiver bits/s), IPERF_RETR, IPERF_JSON
#   $KNOBS                          the module's switches for tests (debugfs):
#                                   echo 0 > $KNOBS/rx_steer
# Env: ESP_MODULE (path of the module; set => module assertions are mandatory).

T_RESULTS=${T_RESULTS:-/tmp/selftests.results}
[ -e "$T_RESULTS" ] || : > "$T_RESULTS"
T_TMP=${T_TMP:-/tmp/selftests.tmp}
mkdir -p "$T_TMP"
KNOBS=/sys/kernel/debug/esp_swoffload

# ---------------------------------------------------------------- TAP
# (no forks here: process creation is slow under TCG)
_t_next() {
	local lines
	mapfile -t lines < "$T_RESULTS"
	echo $(( ${#lines[@]} + 1 ))
}
t_ok() {
	echo "ok $(_t_next) - $1"
	echo "ok $1" >> "$T_RESULTS"
}
t_fail() {
	echo "not ok $(_t_next) - $1"
	shift
	[ $# -gt 0 ] && t_diag "$*"
	echo "fail" >> "$T_RESULTS"
}
t_skip() {
	echo "ok $(_t_next) - $1 # SKIP ${2:-}"
	echo "skip $1" >> "$T_RESULTS"
}
t_diag() {
	local l
	while IFS= read -r l; do echo "# $l"; done <<< "$*"
}
t_check() {
	local name=$1 out; shift
	if out=$("$@" 2>&1); then t_ok "$name"; else t_fail "$name" "failed: $* -> ${out:-(no output)}"; fi
}
# t_expect NAME ACTUAL OP EXPECTED  (OP: -eq -ne -gt -ge -lt -le)
t_expect() {
	if [ -n "$2" ] && [ "$2" "$3" "$4" ] 2>/dev/null; then t_ok "$1"
	else t_fail "$1" "expected ${2:-<empty>} $3 $4"; fi
}

# ---------------------------------------------------------------- kernel log
# What the kernel prints when something is wrong (BUG, lockdep and other WARNINGs,
# Oops, KASAN, UBSAN, refcount_t).
T_KERNEL_BAD='BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|refcount_t'
# A frame of the module's code in a kernel report or allocation trace
T_MODULE_CODE='esp_swoffload|eso_|esp_chacha'
# kernel_reports: each report in the kernel log (from a line matching $T_KERNEL_BAD,
# at most 60 lines), blank-line separated. A report that matches $T_KERNEL_ALLOW
# (make check-debug: a known report of the kernel's own) and names none of the
# module's code is left out, and said on stderr.
kernel_reports() {
	dmesg | awk -v bad="$T_KERNEL_BAD" -v allow="${T_KERNEL_ALLOW:-}" -v ours="$T_MODULE_CODE" '
		function flush() {
			if (allow != "" && blk ~ allow && blk !~ ours)
				print "kernel report matching T_KERNEL_ALLOW left out: " first > "/dev/stderr"
			else
				print blk "\n"
			blk = ""
		}
		$0 ~ bad { if (blk != "") flush(); blk = first = $0; n = 1; next }
		blk != "" && n < 60 { blk = blk "\n" $0; n++ }
		END { if (blk != "") flush() }'
}
# kernel_log_check NAME: t_fail NAME if the kernel log has a report, and then clear
# the log (each report counts once; other lines stay for tests that look for them).
# dmesg_clear: the check, then dmesg -C, for a test that clears the log to look for a
# line of its own (a plain dmesg -C would hide from run.sh what happened before it).
kernel_log_check() {
	local r
	r=$(kernel_reports 2> "$T_TMP/kernel.allowed")
	[ -s "$T_TMP/kernel.allowed" ] && t_diag "$(cat "$T_TMP/kernel.allowed")"
	[ -n "$r" ] && t_fail "$1" "$(head -80 <<< "$r")"
	if [ -n "$r" ] || [ -s "$T_TMP/kernel.allowed" ]; then dmesg -C; fi
	return 0
}
dmesg_clear() { kernel_log_check "kernel log clean before a dmesg -C"; dmesg -C; }

# hold_nf_keys: keep the kernel's LOCAL_OUT netfilter static keys on for the whole run.
# The module hooks LOCAL_OUT in every netns (tx_order.c), so each insmod and rmmod
# turns nf_hooks_needed[][NF_INET_LOCAL_OUT] on or off, and the kernel rewrites
# __ip_local_out() and ip6_local_out() with text_poke_bp() while the tests' traffic
# runs through them. A real CPU serialises that; under TCG a vCPU can still execute
# the int3 after the patch is over and oops "int3" ("Fatal exception in interrupt":
# seen for another key, in inet6_ehashfn(), during make bench). A hook of our own in
# the init netns (an empty accept chain) keeps the count above zero, so the tests
# patch no hot text but what they mean to (CPU hotplug).
hold_nf_keys() {
	nft -f - <<-EOF
		table inet selftests_hold_keys {
			chain out { type filter hook output priority 0; policy accept; }
		}
	EOF
}

# ---------------------------------------------------------------- netns
NS_A=a NS_B=b DEV_A=va DEV_B=vb
MAC_A=02:00:00:00:00:0a MAC_B=02:00:00:00:00:0b
IP4_A=10.0.0.1 IP4_B=10.0.0.2 IP6_A=fd00::1 IP6_B=fd00::2
IN4_A=10.1.0.1 IN4_B=10.2.0.1 IN6_A=fd01::1 IN6_B=fd02::1

# nsx NS CMD...: run CMD in netns NS. nsenter (setns only) is cheaper than
# "ip netns exec" (which also remounts /sys); use "ip netns exec" yourself if you
# need the netns' own /sys/class/net.
if command -v nsenter > /dev/null; then
	nsx() { local ns=$1; shift; nsenter --net="/run/netns/$ns" "$@"; }
else
	nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
fi

# ns_pid NS: pid of a process living in NS (ns_setup keeps one per netns), so that
# /proc/<pid>/net/... can be read without entering the netns.
declare -A _NS_PID
ns_pid() {
	local p=${_NS_PID[$1]:-}
	if [ -z "$p" ] || ! [ "/proc/$p/ns/net" -ef "/run/netns/$1" ]; then
		p=$(ip netns pids "$1" 2>/dev/null | head -1)
		if [ -z "$p" ]; then
			# exec: $! must be the process inside the netns, not a subshell
			( exec nsenter --net="/run/netns/$1" sleep 1000000 > /dev/null 2>&1 < /dev/null ) &
			p=$!
			local i=0
			while ! [ "/proc/$p/ns/net" -ef "/run/netns/$1" ] && [ $i -lt 100 ]; do
				sleep 0.05; i=$((i + 1))
			done
		fi
		_NS_PID[$1]=$p
	fi
	echo "$p"
}

ns_cleanup() {
	local ns
	for ns in $NS_A $NS_B; do
		[ -e "/run/netns/$ns" ] || continue
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
		unset "_NS_PID[$ns]"
	done
	return 0
}

# ipv6_up: IPv6 is on (not booted with ipv6.disable=1)
ipv6_up() { [ -d /proc/sys/net/ipv6 ]; }

# _ns_addrs NS DEV MAC PEERMAC ip4 ip6 in4 in6 peer4 peer6 peerin4 peerin6
# (the IPv6 lines only where IPv6 is up)
_ns_addrs() {
	local ns=$1 dev=$2 peermac=$4 v6=
	ipv6_up && v6=1
	{
		echo "link set lo up"
		echo "link set $dev address $3 up"
		echo "addr add $5/24 dev $dev"
		echo "addr add $7/32 dev lo"
		echo "neigh replace $9 lladdr $peermac dev $dev nud permanent"
		echo "route add ${11}/32 via $9 dev $dev src $7"
		if [ -n "$v6" ]; then
			echo "addr add $6/64 dev $dev nodad"
			echo "addr add $8/128 dev lo nodad"
			echo "neigh replace ${10} lladdr $peermac dev $dev nud permanent"
			echo "route add ${12}/128 via ${10} dev $dev src $8"
		fi
	} | ip -n "$ns" -batch - || return 1
	nsx "$ns" sh -c "for f in all default $dev; do echo 0 > /proc/sys/net/ipv4/conf/\$f/rp_filter; done
		${v6:+echo 0 > /proc/sys/net/ipv6/conf/all/accept_dad}"
}

ns_setup() {
	local o tso_a=on tso_b=on gro=on mtu=
	for o in "$@"; do
		case $o in
		tso-off) tso_a=off ;;
		tso-off-both) tso_a=off; tso_b=off ;;
		gro-off) gro=off ;;
		mtu=*) mtu=${o#mtu=} ;;
		*) echo "ns_setup: unknown option $o" >&2; return 1 ;;
		esac
	done
	ns_cleanup
	ip -batch - <<-EOB || return 1
		netns add $NS_A
		netns add $NS_B
		link add $DEV_A netns $NS_A type veth peer name $DEV_B netns $NS_B
	EOB
	_ns_addrs $NS_A $DEV_A $MAC_A $MAC_B $IP4_A $IP6_A $IN4_A $IN6_A $IP4_B $IP6_B $IN4_B $IN6_B || return 1
	_ns_addrs $NS_B $DEV_B $MAC_B $MAC_A $IP4_B $IP6_B $IN4_B $IN6_B $IP4_A $IP6_A $IN4_A $IN6_A || return 1
	if [ -n "$mtu" ]; then
		ip -n $NS_A link set $DEV_A mtu "$mtu"; ip -n $NS_B link set $DEV_B mtu "$mtu"
	fi
	nsx $NS_A ethtool -K $DEV_A gro $gro tso $tso_a >/dev/null 2>&1 || return 1
	nsx $NS_B ethtool -K $DEV_B gro $gro tso $tso_b >/dev/null 2>&1 || return 1
	ns_pid $NS_A > /dev/null; ns_pid $NS_B > /dev/null
	return 0
}

# ---------------------------------------------------------------- IPsec
ALGOS="null gcm128 gcm256 chacha cbc-sha256"
MODES="transport tunnel"
FAMILIES="4 6"
ipv6_up || FAMILIES=4
SPI_AB=0x1000 SPI_BA=0x2000
XFRM_REPLAY=${XFRM_REPLAY:-64}

# _alg ALGO DIR(1|2) -> sets the array ALG to the ip xfrm algorithm words
# (keys differ per direction)
_alg() {
	local d=$2 k16 k32
	k16=${d}0112233445566778899aabbccddeeff
	k32=${k16}00112233445566778899aabbccddeeff
	case $1 in
	null) ALG=(enc 'ecb(cipher_null)' '') ;;
	gcm128) ALG=(aead 'rfc4106(gcm(aes))' "0x${k16}cafe0${d}0" 128) ;;
	gcm256) ALG=(aead 'rfc4106(gcm(aes))' "0x${k32}cafe0${d}0" 128) ;;
	chacha) ALG=(aead 'rfc7539esp(chacha20,poly1305)' "0x${k32}cafe0${d}0" 128) ;;
	cbc-sha256) ALG=(enc 'cbc(aes)' "0x$k16" auth-trunc 'hmac(sha256)' "0x$k32" 128) ;;
	*) return 1 ;;
	esac
}

xfrm_flush() {
	local ns
	for ns in $NS_A $NS_B; do
		printf 'xfrm policy flush\nxfrm state flush\n' | ip -n "$ns" -batch - 2>/dev/null
	done
	return 0
}

# _xfrm_sa_cmd SRC DST SPI REQID MODE ALGO DIR ESN -> an "ip -batch" line adding one SA
_xfrm_sa_cmd() {
	local src=$1 dst=$2 spi=$3 reqid=$4 mode=$5 algo=$6 d=$7 esn=$8 flags= w out=
	_alg "$algo" "$d" || { echo "unknown algorithm $algo" >&2; return 1; }
	[ "$esn" = esn ] && flags="flag esn"
	for w in "${ALG[@]}"; do out="$out \"$w\""; done
	echo "xfrm state add src $src dst $dst proto esp spi $spi reqid $reqid" \
		"mode $mode replay-window $XFRM_REPLAY $flags$out"
}
# _xfrm_sa NS SRC DST SPI REQID MODE ALGO DIR ESN -> one SA in NS
_xfrm_sa() {
	local ns=$1 cmd; shift
	cmd=$(_xfrm_sa_cmd "$@") || return 1
	ip -n "$ns" -batch - <<< "$cmd"
}

# _xfrm_pol_cmd LOCAL_SEL PEER_SEL LOCAL_OUT PEER_OUT MODE REQID_OUT REQID_IN PLEN
_xfrm_pol_cmd() {
	local l=$1 p=$2 lo=$3 po=$4 mode=$5 ro=$6 ri=$7 plen=$8
	echo "xfrm policy add src $l/$plen dst $p/$plen dir out tmpl src $lo dst $po proto esp reqid $ro mode $mode"
	echo "xfrm policy add src $p/$plen dst $l/$plen dir in tmpl src $po dst $lo proto esp reqid $ri mode $mode"
}
# _xfrm_pol NS ...: the out/in policy pair in NS
_xfrm_pol() {
	local ns=$1; shift
	_xfrm_pol_cmd "$@" | ip -n "$ns" -batch -
}

# xfrm_addrs MODE FAMILY -> sets OUT_A OUT_B (outer) ADDR_A ADDR_B (traffic) PLEN
xfrm_addrs() {
	if [ "$2" = 6 ]; then OUT_A=$IP6_A OUT_B=$IP6_B PLEN=128
	else OUT_A=$IP4_A OUT_B=$IP4_B PLEN=32; fi
	ADDR_A=$OUT_A ADDR_B=$OUT_B
	if [ "$1" = tunnel ]; then
		if [ "$2" = 6 ]; then ADDR_A=$IN6_A ADDR_B=$IN6_B
		else ADDR_A=$IN4_A ADDR_B=$IN4_B; fi
	fi
}

xfrm_setup() {
	local algo=$1 mode=$2 fam=$3 esn=${4:-} ns
	case $mode in transport|tunnel) ;; *) echo "xfrm_setup: bad mode $mode" >&2; return 1 ;; esac
	case $fam in 4|6) ;; *) echo "xfrm_setup: bad family $fam" >&2; return 1 ;; esac
	xfrm_addrs "$mode" "$fam"
	local sa1 sa2
	sa1=$(_xfrm_sa_cmd "$OUT_A" "$OUT_B" $SPI_AB 1 "$mode" "$algo" 1 "$esn") &&
	sa2=$(_xfrm_sa_cmd "$OUT_B" "$OUT_A" $SPI_BA 2 "$mode" "$algo" 2 "$esn") || return 1
	# one "ip" per netns: flush, both SAs, both policies
	{
		printf 'xfrm policy flush\nxfrm state flush\n%s\n%s\n' "$sa1" "$sa2"
		_xfrm_pol_cmd "$ADDR_A" "$ADDR_B" "$OUT_A" "$OUT_B" "$mode" 1 2 $PLEN
	} | ip -n $NS_A -batch - || return 1
	{
		printf 'xfrm policy flush\nxfrm state flush\n%s\n%s\n' "$sa1" "$sa2"
		_xfrm_pol_cmd "$ADDR_B" "$ADDR_A" "$OUT_B" "$OUT_A" "$mode" 2 1 $PLEN
	} | ip -n $NS_B -batch -
}

# sa_bytes NS SPI -> bytes counter of the SA with that SPI (0 if none)
sa_bytes() {
	local l next=0
	while IFS= read -r l; do
		if [ $next = 1 ]; then l=${l%%(bytes)*}; echo $((l + 0)); return 0; fi
		case $l in *"lifetime current:"*) next=1 ;; esac
	done <<< "$(ip -n "$1" -s xfrm state list spi "$2" 2>/dev/null)"
	echo 0
}

# sa_packets NS SPI -> packets counter of the SA with that SPI (0 if none)
sa_packets() {
	local l next=0
	while IFS= read -r l; do
		if [ $next = 1 ]; then l=${l#*(bytes), }; l=${l%%(packets)*}; echo $((l + 0)); return 0; fi
		case $l in *"lifetime current:"*) next=1 ;; esac
	done <<< "$(ip -n "$1" -s xfrm state list spi "$2" 2>/dev/null)"
	echo 0
}

# ---------------------------------------------------------------- counters
have_module() { [ -r /proc/net/esp_swoffload ]; }
busy_jiffies() { awk '$1 == "cpu" {print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }
counters() { cat "/proc/$(ns_pid "$1")/net/esp_swoffload"; }
counter() {
	local n v f
	f=/proc/$(ns_pid "$1")/net/esp_swoffload
	[ -r "$f" ] || return 1
	while read -r n v; do
		[ "$n" = "$2" ] && { echo "$v"; return 0; }
	done < "$f"
	return 1
}
xfrm_errors() {
	local n v
	while read -r n v; do [ "$v" != 0 ] && echo "$n $v"; done < "/proc/$(ns_pid "$1")/net/xfrm_stat"
	return 0
}
# sa_oseq NS SPI -> the SA's last output sequence number (0x...)
sa_oseq() {
	ip -n "$1" xfrm state list spi "$2" 2> /dev/null | grep -o ' oseq 0x[0-9a-f]*' | awk '{print $2}'
}
# xfrm_stat NS NAME -> one counter of NS's /proc/net/xfrm_stat
xfrm_stat() {
	awk -v n="$2" '$1 == n {print $2}' "/proc/$(ns_pid "$1")/net/xfrm_stat"
}
xfrm_errors_total() {
	local n v s=0
	while read -r n v; do s=$((s + v)); done < "/proc/$(ns_pid "$1")/net/xfrm_stat"
	echo $s
}
link_stat() {
	ip -n "$1" -s -j link show "$2" | jq -r ".[0].stats64.$3.$4 // empty"
}
# a short transfer often ends with one tail-loss probe (TcpExtTCPLossProbes), which
# TcpRetransSegs counts although nothing was lost
tcp_retrans() {
	nsx "$1" nstat -az TcpRetransSegs TcpExtTCPLossProbes |
		awk '/TcpRetransSegs/ {r = $2} /TcpExtTCPLossProbes/ {p = $2} END {print r - p}'
}

# tcp_dsacked NS: segments the peer reported receiving twice (DSACK): retransmitted
# although the first copy had arrived
tcp_dsacked() {
	nsx "$1" nstat -az TcpExtTCPDSACKRecvSegs | awk '/TcpExtTCPDSACKRecvSegs/ {print $2; exit}'
}

# tcp_ofo NS: segments the netns's TCP received out of order and queued (TCPOFOQueue)
tcp_ofo() {
	nsx "$1" nstat -az TcpExtTCPOFOQueue | awk '/TcpExtTCPOFOQueue/ {print $2; exit}'
}

# retrans_why NS...: what each netns's TCP, devices and module counted (since the netns
# was made) that explains retransmits or reordering (SACKs, timeouts, drops), for a
# failing check's diagnostics
retrans_why() {
	local ns
	for ns in "$@"; do
		echo "$ns: $(nsx "$ns" nstat -az 2>/dev/null |
			awk '$1 ~ /Retrans|Loss|Timeout|SpuriousRTO|Reorder|SACK|OFO|Drop|Prune|Collapse/ && $2 != 0 {printf "%s=%s ", $1, $2}')"
		echo "$ns: devices: $(ip -n "$ns" -s link 2>/dev/null |
			awk '/^[0-9]+:/ {d = $2} /RX:|TX:/ {dir = $1; getline; if ($4 != 0) printf "%s %s dropped=%s ", d, dir, $4}')"
		echo "$ns: module: $(counters "$ns" 2>/dev/null | awk '$1 ~ /drop|error|fallback/ && $2 != 0 {printf "%s=%s ", $1, $2}')"
	done
}

# ---------------------------------------------------------------- module, crypto
# flush_defer_lists: run the NET_RX softirq on every CPU. TCP hands an skb it has
# read back to the CPU that allocated it (skb_attempt_defer_free(), 6.1 and 6.12),
# which frees it in its next NET_RX softirq only. A GRO-merged skb keeps the sec_path
# of every packet chained in its frag_list (TCP drops only the head's), and with it a
# reference on their SA and on this module: on an idle CPU, for good. A datagram
# over lo from each CPU runs that softirq there.
flush_defer_lists() {
	local c
	ip link set lo up
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" bash -c 'echo x > /dev/udp/127.0.0.1/9' 2> /dev/null
	done
	return 0
}

# unload_module [TRIES]: rmmod, every 0.25 s; the SAs just deleted let go of the
# module after xfrm's state GC, the netns teardown and flush_defer_lists
unload_module() {
	local i
	for i in $(seq 1 "${1:-40}"); do
		rmmod esp_swoffload 2>/dev/null && return 0
		[ $((i % 4)) = 1 ] && flush_defer_lists
		sleep 0.25
	done
	return 1
}

# no udev in the guest: nothing loads the SIMD crypto drivers (missing ones are fine)
load_simd_crypto() {
	local m
	for m in aesni_intel ghash_clmulni_intel chacha_x86_64 poly1305_x86_64; do
		modprobe -q "$m" 2>/dev/null
	done
	return 0
}

# seqiv_driver AEAD: the driver behind "seqiv(AEAD)" (what esp4 allocates)
seqiv_driver() {
	awk -v want="seqiv($1)" '
		/^name/ {n = $3} /^driver/ {d = $3}
		/^priority/ {if (n == want && d !~ /^(pcrypt|cryptd)/ && $3 + 0 >= best) {best = $3 + 0; drv = d}}
		END {print drv}' /proc/crypto
}

CU="python3 $(dirname "${BASH_SOURCE[0]}")/cryptouser.py"
# espinject.py: crafted ESP frames for the bad-input tests
INJ="python3 $(dirname "${BASH_SOURCE[0]}")/espinject.py"
# tapgso.py: a VM's TSO packets, through a tap
TAPGSO="python3 $(dirname "${BASH_SOURCE[0]}")/tapgso.py"
# pcrypt_del INSTANCE [TRIES]: SAs using it go once the xfrm GC ran; then it can go
pcrypt_del() {
	local i
	for i in $(seq 1 "${2:-10}"); do
		$CU del "$1" 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}

# ---------------------------------------------------------------- traffic
_T_PORT=${_T_PORT:-20000}
_next_port() { _T_PORT=$((_T_PORT + 1)); }

# wait_listen NS PORT [SECONDS]
wait_listen() {
	local i=0 max=$(( ${3:-15} * 10 ))
	while [ $i -lt $max ]; do
		nsx "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q . && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

# xfer_data MB -> path of a cached file of MB MiB of random data
xfer_data() {
	local f=$T_TMP/data.$1
	if ! [ -s "$f.sha256" ]; then
		head -c $(( $1 * 1048576 )) /dev/urandom > "$f"
		sha256sum < "$f" | cut -d' ' -f1 > "$f.sha256"
	fi
	echo "$f"
}

xfer() {
	local src=$1 dst=$2 ip=$3 mb=$4 data rcv pid want got tcp listen rc
	XFER_WHY=
	data=$(xfer_data "$mb"); rcv=$T_TMP/recv.$$
	rm -f "$rcv"
	_next_port
	case $ip in *:*) tcp="TCP6:[$ip]:$_T_PORT" listen="TCP6-LISTEN:$_T_PORT,reuseaddr" ;;
	*) tcp="TCP4:$ip:$_T_PORT" listen="TCP4-LISTEN:$_T_PORT,reuseaddr" ;; esac
	nsx "$dst" timeout "${XFER_TIMEOUT:-90}" socat -u "$listen" "CREATE:$rcv" &
	pid=$!
	# the sender retries connecting until the receiver listens (no polling with ss)
	if [ -n "${XFER_SENDFILE:-}" ]; then
		# sendfile(): TCP sends the page cache's pages (SKBFL_SHARED_FRAG)
		nsx "$src" timeout "${XFER_TIMEOUT:-90}" python3 -c '
import socket, sys, time
for _ in range(100):
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit(1)
s.settimeout(None)
with open(sys.argv[3], "rb") as f:
    s.sendfile(f)
s.close()' "$ip" "$_T_PORT" "$data"
	else
		nsx "$src" timeout "${XFER_TIMEOUT:-90}" socat -u "OPEN:$data" \
			"$tcp,retry=100,interval=0.1,connect-timeout=5${XFER_OPTS:+,$XFER_OPTS}"
	fi
	rc=$?
	if [ $rc -ne 0 ]; then
		kill $pid 2>/dev/null; wait $pid 2>/dev/null
		XFER_WHY="sender (${XFER_SENDFILE:+python3 sendfile}${XFER_SENDFILE:-socat}) exited $rc"; return 1
	fi
	wait $pid
	want=$(< "$data.sha256")
	got=$(sha256sum < "$rcv" 2>/dev/null); got=${got%% *}
	if [ "$want" != "$got" ]; then
		XFER_WHY="sha256 mismatch: sent $want, received $got ($(stat -c %s "$rcv" 2>/dev/null || echo 0) of $(stat -c %s "$data") bytes)"
		return 1
	fi
	rm -f "$rcv"
	return 0
}

iperf_run() {
	local cli=$1 srv=$2 ip=$3 secs=$4 pid; shift 4
	IPERF_BPS= IPERF_RETR= IPERF_JSON=$T_TMP/iperf.$$.json
	_next_port
	nsx "$srv" timeout $((secs + 60)) iperf3 -s -1 -p $_T_PORT > /dev/null 2>&1 &
	pid=$!
	wait_listen "$srv" $_T_PORT || { kill $pid 2>/dev/null; wait $pid 2>/dev/null; return 1; }
	nsx "$cli" timeout $((secs + 60)) iperf3 -c "$ip" -p $_T_PORT -t "$secs" -J "$@" > "$IPERF_JSON" ||
		{ kill $pid 2>/dev/null; wait $pid 2>/dev/null; return 1; }
	wait $pid
	IPERF_BPS=$(jq -r '.end.sum_received.bits_per_second // empty | floor' "$IPERF_JSON" 2>/dev/null)
	IPERF_RETR=$(jq -r '.end.sum_sent.retransmits // empty' "$IPERF_JSON" 2>/dev/null)
	[ -n "$IPERF_BPS" ] && [ -n "$IPERF_RETR" ]
}
