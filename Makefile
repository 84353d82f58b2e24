# SPDX-License-Identifier: GPL-2.0
#
# esp_swoffload: software GSO/GRO offload for IPsec ESP.
#
#   make                 build against Debian's 6.1 headers (newest 6.1.x installed)
#   make KVER=6.12.x     build against another installed kernel
#   make check           install what is missing, build for 6.1 and 6.12, run every
#                        selftest inside a VM per kernel; ends "N passed, N failed"
#   make demo            boot a VM, set up SAs, print the iperf3 throughput table
#   make demo-swan       the same with SAs negotiated by strongSwan (IKEv2)
#   make bench           the full benchmark (bench/results.json, bench/results.png)
#   make soak            SOAK_MIN (10) minutes of traffic, floods, async and reloads
#   make profile         guest instructions per byte by kernel function (QEMU plugin)
#   make check-debug     the selftests on a kernel built with KASAN, kmemleak, lockdep
#                        and UBSAN (built first: about 35 minutes on 2 cores)
#   make dkms-install    build and install with DKMS for every installed kernel

# the newest 6.1.x with headers (make check-debug's kernel has none: not that one)
KVER ?= $(lastword $(shell printf '%s\n' $(notdir $(patsubst %/build/Makefile,%,\
	$(wildcard /lib/modules/6.1.*/build/Makefile))) | sort -V))
KDIR ?= /lib/modules/$(KVER)/build

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

# Static checks: W=1, sparse and checkpatch --strict on the project's own sources.
lint:
	scripts/lint.sh

deps:
	scripts/install-deps.sh

check:
	scripts/check.sh

demo:
	scripts/demo.sh

# the demo with SAs negotiated by strongSwan (IKEv2) instead of ip xfrm
demo-swan:
	scripts/demo.sh --swan

bench:
	scripts/bench.sh

soak:
	scripts/soak.sh

profile:
	scripts/profile.sh

# make check plus the DKMS install test in the guest (slow: it compiles under TCG)
check-dkms:
	DKMS_SELFTEST=1 scripts/check.sh

check-debug:
	scripts/check-debug.sh

# Install through DKMS for every installed kernel with headers (docs/deploy.md).
dkms-install:
	scripts/dkms-install.sh

dkms-remove:
	scripts/dkms-install.sh --remove

.PHONY: modules clean lint deps check check-dkms check-debug demo demo-swan bench soak profile dkms-install dkms-remove
