#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-bench.sh - runs INSIDE the VM (started by scripts/bench.sh or scripts/demo.sh
# through scripts/vmrun). Measures single-stream iperf3 over veth between two netns,
# clear and ESP transport mode, under three kernel configurations:
#   stock   esp4/esp6 only (no GSO/GRO for ESP)
#   offload esp4 + esp4_offload, esp6 + esp6_offload (the stock software offload)
#   module  esp4/esp6 + esp_swoffload.ko (this project)
# It only collects raw data; the host computes medians, ratios and goals.
#
# Input:  /out/config.sh (written by the host script), which sets
#   T        iperf3 duration in seconds
#   REPS     repetitions per cell
#   FAMS     "4 6" or "4"
#   PHASES   e.g. "stock:clear_tso,clear_gso,null,gcm,chacha offload:null,gcm,chacha"
#   MODULE   path of esp_swoffload.ko (host path, visible here), or empty
#   TCRYPT   1 to measure the raw AEAD ceiling with tcrypt first, 0 to skip
#   INSN_MARK path of bench/insn's insn-mark (the VM runs under insn-plugin.so), or
#            empty: each run is bracketed by two markers, tags in runs.tsv
# Output: /out/runs.tsv (one line per iperf3 run), /out/raw/* (iperf3 JSON, tcrypt dmesg,
#   TCP counters of both ends per run (*.nstat),
#   /proc/net/esp_swoffload snapshots), progress on stdout (-> /out/guest.log).
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
. /out/config.sh
RAW=/out/raw
RUNS=/out/runs.tsv
mkdir -p "$RAW"
A4=10.0.0.1 B4=10.0.0.2 A6=fd00::1 B6=fd00::2

log() { echo "[$(date +%H:%M:%S)] $*"; }

# -------------------------------------------------------------------------------- setup
log "guest kernel $(uname -r), $(nproc) vCPU, T=${T}s REPS=$REPS FAMS='$FAMS'"
# No udev in the guest: load the SIMD crypto drivers by hand (missing ones are fine).
for m in aesni_intel ghash_clmulni_intel chacha_x86_64 poly1305_x86_64; do
	modprobe "$m" 2>/dev/null || log "note: modprobe $m failed (continuing)"
done
modprobe -a veth xfrm_user esp4 esp6 2>/dev/null
grep -E '^(name|driver|priority)' /proc/crypto >"$RAW/proc-crypto.txt" 2>/dev/null

ip netns add a && ip netns add b || { log "FATAL: cannot create netns"; exit 1; }
ip link add va netns a type veth peer name vb netns b || { log "FATAL: no veth"; exit 1; }
ip -n a link set lo up; ip -n b link set lo up
ip -n a addr add $A4/24 dev va; ip -n b addr add $B4/24 dev vb
ip -n a addr add $A6/64 dev va nodad; ip -n b addr add $B6/64 dev vb nodad
ip -n a link set va up; ip -n b link set vb up
# Static neighbours: no ARP/ND through (or around) the IPsec policies.
MA=$(ip -n a -o link show va | sed 's/.*link\/ether \([0-9a-f:]*\).*/\1/')
MB=$(ip -n b -o link show vb | sed 's/.*link\/ether \([0-9a-f:]*\).*/\1/')
ip -n a neigh replace $B4 lladdr "$MB" dev va nud permanent
ip -n a neigh replace $B6 lladdr "$MB" dev va nud permanent
ip -n b neigh replace $A4 lladdr "$MA" dev vb nud permanent
ip -n b neigh replace $A6 lladdr "$MA" dev vb nud permanent
# Receiver: GRO on (veth does GRO only when asked). Sender: GSO on, TSO per cell.
ip netns exec b ethtool -K vb gro on >/dev/null 2>&1 || log "note: ethtool -K vb gro on failed"
ip netns exec a ethtool -K va gso on >/dev/null 2>&1
# Full-sized GSO packets whatever rate TCG gives: TCP sizes them by its pacing rate
# (tcp_tso_autosize()), and emulation runs 10-100x slower than the servers this
# measures for, so the instructions per byte would follow the host's load. 45
# segments of the largest MSS (1448) and their headers still fit 64 KB. More do
# not: 6.12 then sends GSO packets of tcp_min_tso_segs segments past the device's
# gso_max_size (64 segments, 90,832 bytes, on veth's 65,536), and an IPv6 packet
# over 64 KB carries a jumbo hop-by-hop header that xfrm_dev_offload_ok() counts
# against the MTU: xfrm segments it and esp6 sends the segments one by one,
# by-passing any offload (docs/design.md, "IPv6 BIG TCP").
for ns in a b; do ip netns exec $ns sysctl -qw net.ipv4.tcp_min_tso_segs=45; done
# The stock ESP paths deliver an SA's packets out of order now and then, and TCP took
# that for loss in a third of their runs (up to 148 retransmitted segments, most of
# them reported back as duplicates): each such run read 10-20 % fewer instructions
# per byte than a run without, so a cell's median moved with how many of its runs
# had them. The sender now takes a segment for lost only once 127 later ones have
# arrived (tcp_reordering; RACK, whose time window still fired, off: tcp_recovery
# 0), or at its timeout; veth loses nothing (each run checks its drop counters).
ip netns exec a sysctl -qw net.ipv4.tcp_reordering=127 net.ipv4.tcp_recovery=0
ip netns exec b iperf3 -s -D --logfile "$RAW/iperf3-server.log" || { log "FATAL: iperf3 -s"; exit 1; }
for _ in $(seq 50); do
	ip netns exec b sh -c 'grep -qi ":145[12] " /proc/net/tcp /proc/net/tcp6 2>/dev/null' && break
	sleep 0.2
done

# ------------------------------------------------------------------- raw AEAD ceiling
# tcrypt_run MODE TAG: one tcrypt speed test, dmesg kept in raw/tcrypt-MODE-TAG.txt
tcrypt_run() {
	log "tcrypt mode=$1 sec=1 (raw AEAD speed; modprobe returns an error by design)"
	dmesg -C
	modprobe tcrypt mode=$1 sec=1 >/dev/null 2>&1
	dmesg >"$RAW/tcrypt-$1-$2.txt"
	grep -A8 'testing speed of' "$RAW/tcrypt-$1-$2.txt" | grep -E 'testing speed|1420 byte' | sed 's/^\[[^]]*\] */    /'
}
# Before the iperf3 runs (rfc4106/gcm: mode 211; chacha20-poly1305: mode 213); mode 211
# runs again after them, and the host averages the two ceilings.
if [ "${TCRYPT:-0}" = 1 ]; then
	tcrypt_run 211 start
	tcrypt_run 213 start
fi

# ----------------------------------------------------------------------------- helpers
hexkey() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

# alg_args CELL -> the ip xfrm algorithm arguments in ALG (array); fresh keys every call
alg_args() {
	case $1 in
	null) ALG=(enc 'ecb(cipher_null)' '') ;;
	gcm) ALG=(aead 'rfc4106(gcm(aes))' "0x$(hexkey 20)" 128) ;;
	chacha) ALG=(aead 'rfc7539esp(chacha20,poly1305)' "0x$(hexkey 36)" 128) ;;
	*) return 1 ;;
	esac
}

flush_sa() {
	for ns in a b; do ip -n $ns xfrm policy flush; ip -n $ns xfrm state flush; done
}

# add_sa CELL SRC DST PLEN: transport-mode SAs a->b (spi 0x100) and b->a (spi 0x200)
add_sa() {
	local cell=$1 s=$2 d=$3 p=$4 ns
	alg_args "$cell" || return 1
	local out=("${ALG[@]}")
	alg_args "$cell"
	local back=("${ALG[@]}")
	for ns in a b; do
		ip -n $ns xfrm state add src $s dst $d proto esp spi 0x100 reqid 1 mode transport "${out[@]}" || return 1
		ip -n $ns xfrm state add src $d dst $s proto esp spi 0x200 reqid 2 mode transport "${back[@]}" || return 1
	done
	ip -n a xfrm policy add src $s/$p dst $d/$p dir out tmpl src $s dst $d proto esp reqid 1 mode transport || return 1
	ip -n a xfrm policy add src $d/$p dst $s/$p dir in tmpl src $d dst $s proto esp reqid 2 mode transport || return 1
	ip -n b xfrm policy add src $d/$p dst $s/$p dir out tmpl src $d dst $s proto esp reqid 2 mode transport || return 1
	ip -n b xfrm policy add src $s/$p dst $d/$p dir in tmpl src $s dst $d proto esp reqid 1 mode transport || return 1
}

# busy jiffies (user+nice+system+irq+softirq) over all CPUs
busy_jiffies() { awk '$1=="cpu"{print $2+$3+$4+$7+$8; exit}' /proc/stat; }

# snap FILE: the veth drop counters of both ends (every mode) and /proc/net/esp_swoffload
# (module mode), per netns, prefixed "a " / "b "
snap() {
	local ns dev st
	: >"$1"
	for ns in a b; do
		dev=v$ns
		for st in tx_dropped rx_dropped; do
			echo "$ns veth_$st $(ip netns exec $ns cat /sys/class/net/$dev/statistics/$st 2>/dev/null || echo 0)" >>"$1"
		done
	done
	[ "$CUR_MODE" = module ] || return 0
	ip netns exec a cat /proc/net/esp_swoffload 2>/dev/null | sed 's/^/a /' >>"$1"
	ip netns exec b cat /proc/net/esp_swoffload 2>/dev/null | sed 's/^/b /' >>"$1"
}
# deltas BEFORE AFTER ->
#   "tx_segments(a) rx_gro_packets(b) fallback_*+rx_drop_*(a+b) veth_*_dropped(a+b) rx_steered(b)"
deltas() {
	awk 'FNR==NR{v0[$1" "$2]=$3; next} {d[$1" "$2]=$3-v0[$1" "$2]}
	     END{for(k in d){split(k,p," "); if(p[2]~/^(fallback_|rx_drop_)/) f+=d[k]
	                     if(p[2]~/^veth_/) v+=d[k]}
	         printf "%d %d %d %d %d", d["a tx_segments"], d["b rx_gro_packets"], f, v, d["b rx_steered"]}' "$1" "$2"
}

# The TCP/IP counters of both ends over a run (raw/*.nstat): why a cell
# retransmitted. A segment the receiver reports as a duplicate (TcpExtTCPDSACKRecvSegs)
# answered reordering, not a loss; TcpExtTCPSACKReorder and TcpExtTCPOFOQueue say so.
# One history file per namespace: nstat's default is per user, shared by both.
nstat_reset() {
	local ns
	for ns in a b; do NSTAT_HISTORY=/tmp/nstat.$ns ip netns exec $ns nstat -n 2>/dev/null; done
}
nstat_read() {
	local ns
	for ns in a b; do
		NSTAT_HISTORY=/tmp/nstat.$ns ip netns exec $ns nstat 2>/dev/null | sed -n "s/^\([A-Z]\)/$ns \1/p"
	done
}

loaded() { grep -q "^$1 " /proc/modules; }
# unload M: rmmod, retrying while freed states still hold a reference
unload() {
	local _
	for _ in $(seq 20); do
		loaded "$1" || return 0
		rmmod "$1" 2>/dev/null && return 0
		sleep 0.5
	done
	rmmod "$1"
}

# set_mode MODE: load/unload so exactly one ESP offload provider (or none) is present.
# Returns 1 (with a reason in MODE_ERR) if the mode cannot be set up.
set_mode() {
	MODE_ERR=
	case $1 in
	stock)
		unload esp_swoffload
		for m in esp4_offload esp6_offload; do unload $m; done
		modprobe -a esp4 esp6
		;;
	offload)
		unload esp_swoffload
		modprobe -a esp4_offload esp6_offload || { MODE_ERR="modprobe esp4_offload esp6_offload failed"; return 1; }
		;;
	module)
		for m in esp4_offload esp6_offload; do unload $m; done
		modprobe -a esp4 esp6
		if [ -z "${MODULE:-}" ] || [ ! -r "$MODULE" ]; then
			MODE_ERR="module not built"; return 1
		fi
		loaded esp_swoffload || insmod "$MODULE" || {
			MODE_ERR="insmod failed: $(dmesg | tail -3 | tr '\n' ' ')"; return 1; }
		;;
	esac
	# Sanity: the offload providers that must be absent are absent.
	case $1 in
	stock) ! loaded esp4_offload && ! loaded esp6_offload && ! loaded esp_swoffload ;;
	offload) loaded esp4_offload && loaded esp6_offload && ! loaded esp_swoffload ;;
	module) ! loaded esp4_offload && ! loaded esp6_offload && loaded esp_swoffload ;;
	esac || { MODE_ERR="module set wrong: $(grep -oE '^esp[a-z0-9_]*' /proc/modules | tr '\n' ' ')"; return 1; }
}

# ---------------------------------------------------------------------------- one run
# receiver_quickack 1|0: the receiver's routes to the sender with the quickack metric
# (or without). Every cell runs in quickack. Each ACK is a packet and two wake-ups
# (about 30,000 instructions, both ends; an ESP packet more on the IPsec cells), and
# without quickack how many ACKs a megabyte took was set by when the receiver's reads
# fell between arrivals: TCG's timing, not the stack. Clear TCP with TSO on read 6.7 to
# 21.3 ACKs per MB over twelve runs (insn/B 0.48 to 0.92), the module's IPv6 esp-null
# cell 11.0 to 19.6 (5.10 to 5.45 insn/B). With quickack the receiver ACKs every
# packet it takes: docs/performance.md, "Repeatability".
receiver_quickack() {
	ip -n b route change 10.0.0.0/24 dev vb quickack "$1" &&
		ip -n b -6 route change fd00::/64 dev vb proto kernel metric 256 quickack "$1" ||
		log "note: ip route change ... quickack $1 failed"
}
# Runs of clear TCP with TSO on per repetition: what is left of its scatter (about
# +-5 % per run) is wider than the 3 % two bench runs' medians are to agree within,
# and at about 13 s a run the extra runs are cheap.
TSO_RUNS=${TSO_RUNS:-3}
# ... and their sender paced by TCP itself (SO_MAX_PACING_RATE, iperf3 --fq-rate) at
# TSO_RATE: about 1,300 instructions per 1448 bytes leave the guest's time-driven
# work (ticks, timers: about 4 million instructions per second) a visible share, which
# TCG's speed of the moment (240 to 530 Mbit/s unpaced) spread over more or fewer
# bytes: insn/B followed 1/throughput (r = 0.75, IPv6), and two runs' medians 3 %
# apart. At a fixed rate every run has the same time per byte. Not iperf3 -b: its own
# 1 ms pacing loop added 0.3 insn/B.
TSO_RATE=${TSO_RATE:-200M}
# The stock ESP cells run sender and receiver on vCPU 0 (iperf3 -A 0,0). Without GRO
# the receiver takes every segment alone and in quickack ACKs each one, but those that
# arrive while its reader holds the socket go to the backlog, which merges them
# (tcp_add_backlog()), and each merged run gets one ACK. On two vCPUs the reader
# copies while the sender's softirq delivers, so how many merged followed TCG's speed:
# 410 to 567 ACKs per MB over two runs of the IPv4 cells, and insn/B with them (v4
# esp-null 24.94 to 26.73, medians of two runs 4.8 % apart). On one vCPU sender and
# reader take turns and the segments reach the socket one by one: 697 to 714 ACKs per
# MB (one per segment) in 18 runs, and two runs' medians within 0.6 %
# (docs/performance.md, "Repeatability").
# The GRO cells (clear_gso, offload, module) ACK per GRO packet and stay unpinned.
STOCK_PIN="-A 0,0"
# Runs of each module cell per repetition. The module decrypts an SA's packets on its
# home CPU, the other vCPU here, and GRO there merges what each poll finds queued, so
# its packets per GRO packet, and with them the receiver's ACKs, follow the two vCPUs'
# timing: esp-null read 16.7 to 27.6 ACKs per MB in 24 runs, and insn/B followed them
# (r = 0.81, about 32,000 instructions an ACK; 5.17 to 5.53), wider than 3 % between
# two medians of three. esp4/6_offload decrypts where GRO took the packet and was
# steady. Three runs a repetition make the median one of nine.
MODULE_RUNS=${MODULE_RUNS:-3}
# runs_per_rep MODE CELL: how many runs the cell gets in each repetition
runs_per_rep() {
	case $1:$2 in
	*:clear_tso) echo "$TSO_RUNS" ;;
	module:*) echo "$MODULE_RUNS" ;;
	*) echo 1 ;;
	esac
}
echo -e "mode\tcell\tfam\trep\tstatus\tbusy_jiffies\thz\tesp_bytes\ttx_segments\trx_gro_packets\tfallback_drop\tjson\tnote\tinsn_t0\tinsn_t1\twin_bytes\twhole_t0\twhole_t1" >"$RUNS"
HZ=$(getconf CLK_TCK)
CUR_MODE=
NRUN=0
NTOTAL=0
for ph in $PHASES; do
	for c in $(echo "${ph#*:}" | tr ',' ' '); do
		NTOTAL=$((NTOTAL + $(runs_per_rep "${ph%%:*}" "$c") * REPS * $(echo $FAMS | wc -w)))
	done
done

record() { # mode cell fam rep status busy esp txs rxg fb json note [t0 t1 win_bytes whole_t0 whole_t1]
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$HZ" "$7" "$8" "$9" "${10}" "${11}" "${12}" \
		"${13:--}" "${14:--}" "${15:--}" "${16:--}" "${17:--}" >>"$RUNS"
	sync
}
# The marker program runs from the guest's own memory: its first start from the
# host's directory can take a second or more under TCG, which pushed the window's
# end past the transfer's (a window then reads fewer bytes at its end than at its
# start).
if [ -n "${INSN_MARK:-}" ]; then
	cp "$INSN_MARK" /tmp/insn-mark && INSN_MARK=/tmp/insn-mark
fi
# mark TAG: an instruction-count snapshot (no-op without the plugin)
mark() { [ -z "${INSN_MARK:-}" ] || "$INSN_MARK" "$1"; }
# shellcheck source=guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
# insn/B is counted over a window of the transfer: from WIN_SKIP seconds after
# iperf3 starts to WIN_SKIP seconds before it ends. Outside it are costs that do not
# scale with the bytes (iperf3 and netns start-up, handshake, slow start, teardown,
# the JSON report); divided by the bytes of a whole run they make a cell's insn/B
# follow its TCG-timed throughput. `insn-mark TAG b 5201` reads the receiver's TCP
# payload bytes and then marks, so the window's bytes and instructions cover the
# same time. Both ends of the window are timed from the start of iperf3, so a slow
# first marker does not move the second. The whole run is marked too
# (whole_t0/1), to show the difference.
WIN_SKIP=1

run_cell() { # MODE CELL FAM REP
	local mode=$1 cell=$2 fam=$3 rep=$4 s d p note=
	NRUN=$((NRUN + 1))
	if [ "$fam" = 4 ]; then s=$A4 d=$B4 p=32; else s=$A6 d=$B6 p=128; fi
	flush_sa
	case $cell in
	clear_tso) ip netns exec a ethtool -K va tso on >/dev/null 2>&1 ;;
	*) ip netns exec a ethtool -K va tso off >/dev/null 2>&1 ;;
	esac
	receiver_quickack 1
	case $cell in
	clear_*) ;;
	*)
		if ! add_sa "$cell" $s $d $p; then
			log "[$NRUN/$NTOTAL] v$fam $cell $mode rep$rep: SA setup FAILED"
			record "$mode" "$cell" "$fam" "$rep" fail 0 0 0 0 0 - "SA setup failed"
			return
		fi
		;;
	esac
	local j0 j1 base=$RAW/$mode-$cell-v$fam-r$rep
	local json=$base.json
	snap "$base.counters0"
	nstat_reset
	local t0=$((4 * NRUN - 3)) t1=$((4 * NRUN - 2)) w0=$((4 * NRUN - 1)) w1=$((4 * NRUN))
	local b0= b1= win=-
	mark $w0
	j0=$(busy_jiffies)
	local start=${EPOCHREALTIME/./}
	local opt=
	case $mode:$cell in
	*:clear_tso) opt="--fq-rate $TSO_RATE" ;;
	*:clear_*) ;;
	stock:*) opt=$STOCK_PIN ;;
	esac
	# shellcheck disable=SC2086 # $opt: no option or one with its value
	timeout $((T + 40)) ip netns exec a iperf3 -c $d -t "$T" $opt -J --connect-timeout 5000 >"$json" 2>"$json.err" &
	local ipid=$!
	if [ -n "${INSN_MARK:-}" ] && [ "$T" -gt $((2 * WIN_SKIP)) ]; then
		sleep_until $((start + WIN_SKIP * 1000000))
		b0=$("$INSN_MARK" $t0 b 5201)
		sleep_until $((start + (T - WIN_SKIP) * 1000000))
		b1=$("$INSN_MARK" $t1 b 5201)
		[ -n "$b0" ] && [ -n "$b1" ] && win=$((b1 - b0))
	fi
	wait $ipid
	local rc=$?
	j1=$(busy_jiffies)
	mark $w1
	snap "$base.counters1"
	nstat_read >"$base.nstat"
	local tx rx fb vd st
	read -r tx rx fb vd st <<<"$(deltas "$base.counters0" "$base.counters1")"
	local esp=0
	case $cell in clear_*) ;; *)
		esp=$(ip -n a -s xfrm state get src $s dst $d proto esp spi 0x100 2>/dev/null |
			grep -A1 'lifetime current' | sed -n 's/^[[:space:]]*\([0-9][0-9]*\)(bytes).*/\1/p')
		esp=${esp:-0}
		;;
	esac
	# Quick numbers for the progress line (the host re-reads the JSON).
	local q
	q=$(awk '/"sum_sent"/{s=1} s&&/"retransmits"/{r=$2+0; s=0}
		/"sum_received"/{v=1} v&&/"bits_per_second"/{b=$2+0; v=0}
		END{printf "%.1f %d", b/1e6, r}' "$json" 2>/dev/null)
	local status=ok
	[ $rc -ne 0 ] && { status=fail; note="iperf3 rc=$rc $(head -c 200 "$json.err" | tr '\t\n' '  ')"; }
	record "$mode" "$cell" "$fam" "$rep" $status $((j1 - j0)) "$esp" "$tx" "$rx" "$fb" "$(basename "$json")" "$note" \
		"$([ "$win" != - ] && echo $t0 || echo -)" "$([ "$win" != - ] && echo $t1 || echo -)" "$win" \
		"$([ -n "${INSN_MARK:-}" ] && echo $w0 || echo -)" "$([ -n "${INSN_MARK:-}" ] && echo $w1 || echo -)"
	local extra=" veth drops+$vd"
	# steered: the share of packets decrypted on another CPU than the one that
	# took them at GRO (on veth, the sender's); the rest competed with the sender
	[ "$mode" = module ] && extra="$extra tx_segments+$tx rx_gro+$rx fallback/drop+$fb"
	[ "$mode" = module ] && [ "$rx" -gt 0 ] && extra="$extra steered $((100 * st / rx))%"
	log "[$NRUN/$NTOTAL] v$fam $cell $mode rep$rep: ${q% *} Mbit/s, retr ${q#* }, cpu $((j1 - j0)) jiffies$extra ${note:+($note)}"
}

# ------------------------------------------------------------------------------ phases
# Repetition outermost: every rep cycles through all modes, so slow drift of the host's
# load (the guest clock is real time, the guest CPU is not) hits every cell alike.
# The order of the modes alternates between reps (forward, backward, ...), so a
# load that rises or falls during the run does not always favour the same mode.
PHASES_REV=$(printf '%s\n' $PHASES | tac | tr '\n' ' ')
for rep in $(seq "$REPS"); do
	order=$PHASES
	[ $((rep % 2)) = 0 ] && order=$PHASES_REV
	for ph in $order; do
		mode=${ph%%:*}; cells=$(echo "${ph#*:}" | tr ',' ' ')
		CUR_MODE=$mode
		flush_sa
		if ! set_mode "$mode"; then
			log "rep $rep: mode $mode unavailable: $MODE_ERR; its cells are skipped"
			for fam in $FAMS; do for cell in $cells; do
				NRUN=$((NRUN + 1))
				record "$mode" "$cell" "$fam" "$rep" skip 0 0 0 0 0 - "$MODE_ERR"
			done; done
			continue
		fi
		log "rep $rep, mode $mode: $(grep -oE '^(esp[a-z0-9_]*|xfrm[a-z0-9_]*)' /proc/modules | tr '\n' ' ')"
		for fam in $FAMS; do
			for cell in $cells; do
				run_cell "$mode" "$cell" "$fam" "$rep"
				for k in $(seq 2 "$(runs_per_rep "$mode" "$cell")"); do
					run_cell "$mode" "$cell" "$fam" "$rep.$k"
				done
			done
		done
	done
done
flush_sa
unload esp_swoffload || log "note: rmmod esp_swoffload failed"
[ "${TCRYPT:-0}" = 1 ] && tcrypt_run 211 end
log "done"
exit 0
