# SPDX-License-Identifier: GPL-2.0
# swan.sh - strongSwan helpers, sourced by 80-strongswan.sh and the strongSwan demo
# (bench/guest-swan.sh) after lib.sh: two charon instances, one per netns (a initiates,
# b responds), each with its own strongswan.conf, private /run and vici socket under
# /var/tmp/<ns>/, IKEv2 with a pre-shared key. For a (initiator) the swanctl.conf has one
# child per family x mode x algorithm: v4-tr-gcm, v4-tu-chacha, v6-tr-chacha, ...
# The swanctl.conf written here is the one shown in docs/deploy.md.
CHARON=${CHARON:-/usr/lib/ipsec/charon}
SW_PSK='esp-swoffload-selftest-psk-0123456789'

sw_dir() { echo "/var/tmp/$1"; }
# swc NS SWANCTL-ARGS... : swanctl talking to the charon of NS
swc() {
	local ns=$1; shift
	STRONGSWAN_CONF=$(sw_dir "$ns")/strongswan.conf timeout 60 swanctl "$@" \
		--uri "unix://$(sw_dir "$ns")/charon.vici" 2> "$T_TMP/swc.err"
}

# sw_conf NS : strongswan.conf for the charon in NS
sw_conf() {
	local d; d=$(sw_dir "$1")
	mkdir -p "$d"
	cat > "$d/strongswan.conf" <<-EOF
	# Debian's defaults first (plugin list, logging), then the overrides.
	charon {
		load_modular = yes
		plugins {
			include /etc/strongswan.d/charon/*.conf
		}
	}
	include /etc/strongswan.d/*.conf
	charon {
		# the netns already route the inner addresses
		install_routes = no
		retransmit_tries = 3
		plugins {
			# bypass-lan would exempt the connected /24 from IPsec: off
			bypass-lan { load = no }
			stroke { load = no }
			vici { socket = unix://$d/charon.vici }
		}
		filelog {
			main {
				path = $d/charon.log
				default = 1
				knl = 2
				time_format = %T
			}
		}
	}
	EOF
}

# sw_swanctl NS ID PEER_ID : swanctl.conf of NS (a: initiator children; b: responder)
sw_swanctl() {
	local ns=$1 d me peer fam v4l v4r v6l v6r in4l in4r in6l in6r
	d=$(sw_dir "$ns")
	if [ "$ns" = a ]; then
		me=a.esp.test peer=b.esp.test
		v4l=$IP4_A v4r=$IP4_B v6l=$IP6_A v6r=$IP6_B
		in4l=$IN4_A in4r=$IN4_B in6l=$IN6_A in6r=$IN6_B
	else
		me=b.esp.test peer=a.esp.test
		v4l=$IP4_B v4r=$IP4_A v6l=$IP6_B v6r=$IP6_A
		in4l=$IN4_B in4r=$IN4_A in6l=$IN6_B in6r=$IN6_A
	fi
	{
		echo "connections {"
		for fam in 4 6; do
			local l r il ir pl
			if [ $fam = 4 ]; then l=$v4l r=$v4r il=$in4l ir=$in4r pl=32
			else l=$v6l r=$v6r il=$in6l ir=$in6r pl=128; fi
			cat <<-EOF
				v$fam {
					version = 2
					local_addrs = $l
					remote_addrs = $r
					proposals = aes128-sha256-x25519
					local {
						auth = psk
						id = $me
					}
					remote {
						auth = psk
						id = $peer
					}
					children {
			EOF
			if [ "$ns" = a ]; then
				# one child config per mode x algorithm; the test brings up one at a time
				local alg prop
				for alg in gcm chacha; do
					if [ $alg = gcm ]; then prop=aes128gcm16; else prop=chacha20poly1305; fi
					cat <<-EOF
						v$fam-tr-$alg {
							mode = transport
							esp_proposals = $prop
						}
						v$fam-tu-$alg {
							mode = tunnel
							local_ts = $il/$pl
							remote_ts = $ir/$pl
							esp_proposals = $prop
						}
					EOF
				done
			else
				cat <<-EOF
						v$fam-tr {
							mode = transport
							esp_proposals = aes128gcm16, chacha20poly1305
						}
						v$fam-tu {
							mode = tunnel
							local_ts = $il/$pl
							remote_ts = $ir/$pl
							esp_proposals = aes128gcm16, chacha20poly1305
						}
				EOF
			fi
			echo "		}"
			echo "	}"
		done
		echo "}"
		cat <<-EOF
		secrets {
			ike-ab {
				id-a = a.esp.test
				id-b = b.esp.test
				secret = "$SW_PSK"
			}
		}
		EOF
	} > "$d/swanctl.conf"
}

SW_PIDS=
# sw_start NS : start charon in NS, load its swanctl.conf
sw_start() {
	local ns=$1 d i
	d=$(sw_dir "$ns")
	rm -f "$d/charon.vici" "$d/charon.log"
	sw_conf "$ns"; sw_swanctl "$ns"
	# private /run (charon.pid) per instance: ip netns exec runs in its own mount ns
	ip netns exec "$ns" sh -c 'mount -t tmpfs none /run && STRONGSWAN_CONF=$1/strongswan.conf exec "$2"' \
		_ "$d" "$CHARON" > "$d/charon.out" 2>&1 < /dev/null &
	SW_PIDS="$SW_PIDS $!"
	for i in $(seq 1 150); do
		[ -S "$d/charon.vici" ] && swc "$ns" --stats > /dev/null && break
		sleep 0.2
	done
	swc "$ns" --load-all --noprompt --file "$d/swanctl.conf" > "$d/load.out" ||
		{ cat "$d/load.out" "$T_TMP/swc.err" "$d/charon.out"; tail -20 "$d/charon.log"; return 1; }
}
sw_stop() {
	local p
	for p in $SW_PIDS; do kill "$p" 2>/dev/null; done
	for p in $SW_PIDS; do wait "$p" 2>/dev/null; done
	SW_PIDS=
}

# out_spis NS SRC DST : SPIs of the ESP states SRC->DST in NS
out_spis() {
	ip -n "$1" xfrm state list src "$2" dst "$3" proto esp 2>/dev/null |
		awk '/proto esp spi/ {print $4}' | tr '\n' ' '
}
# wait_spi_change NS SRC DST OLD : wait (10 s) until the only SA SRC->DST is not OLD
wait_spi_change() {
	local i s
	for i in $(seq 1 50); do
		s=$(out_spis "$1" "$2" "$3")
		[ -n "$s" ] && [ "$s" != "$4 " ] && [ "$(echo $s | wc -w)" = 1 ] && { echo "$s"; return 0; }
		sleep 0.2
	done
	echo "$s"; return 1
}
