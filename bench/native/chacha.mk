# SPDX-License-Identifier: GPL-2.0
#
# ChaCha20-Poly1305: the module's chacha_core.c and level files built for the
# host, with the code generation flags the kernel builds them with (no FPU
# registers in the core; the level files with their -m flags as in Kbuild;
# zeroed locals, no red zone, retpolines), linked with a test and timing
# harness (chacha.c) against OpenSSL's libcrypto.
#
#   test:  chacha_kat.h is what chacha_kat_gen.c writes; then every level this
#          CPU has: known answers, random messages vs OpenSSL (chacha test);
#          on an AVX2 host without AVX-512, the avx512 level's source built
#          for AVX2 as well (chacha-512on2)
#   bench: cycles per byte at 64/576/1420/8192 bytes per level and OpenSSL,
#          pinned to CHACHA_CPU under the shared CPU lock (chacha bench)
#   chacha-callgrind: instructions per byte at CHACHA_LEN (1420) per level,
#          the whole AEAD (seal), its ChaCha20 alone, the rest, and the whole
#          AEAD's decryption (open) (valgrind; no AVX-512 there)

CHACHA_KFLAGS := -O2 -fno-strict-aliasing -fno-common -fcf-protection=none \
	-falign-jumps=1 -falign-loops=1 -mno-red-zone -fno-jump-tables \
	-fno-strict-overflow -fconserve-stack -ftrivial-auto-var-init=zero \
	-fno-stack-clash-protection -mindirect-branch=thunk \
	-mfunction-return=thunk -mindirect-branch-register
CHACHA_NOFPU := -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -mno-80387 \
	-mno-fp-ret-in-387
CHACHA_CFLAGS := $(filter-out -O%,$(NATIVE_CFLAGS)) $(CHACHA_KFLAGS)
CHACHA_OBJS := $(addprefix $(OUT)/chacha-,core.o ssse3.o avx2.o avx512.o)
CHACHA_HDRS := $(wildcard $(TOP)/chacha_*.h)
CHACHA_CPU ?= $(shell echo $$(($$(nproc) - 1)))
CHACHA_LOCK ?= /work/locks/cpu.lock
CHACHA_ROUNDS ?= 300
CHACHA_ITERS ?= 3000
CHACHA_LEN ?= 1420

$(OUT)/chacha-core.o: $(TOP)/chacha_core.c $(CHACHA_HDRS) | $(OUT)
	$(CC) $(CHACHA_CFLAGS) $(CHACHA_NOFPU) -c -o $@ $<
$(OUT)/chacha-ssse3.o: $(TOP)/chacha_ssse3.c $(CHACHA_HDRS) | $(OUT)
	$(CC) $(CHACHA_CFLAGS) -msse2 -mssse3 -c -o $@ $<
$(OUT)/chacha-avx2.o: $(TOP)/chacha_avx2.c $(CHACHA_HDRS) | $(OUT)
	$(CC) $(CHACHA_CFLAGS) -mavx -mavx2 -c -o $@ $<
$(OUT)/chacha-avx512.o: $(TOP)/chacha_avx512.c $(CHACHA_HDRS) | $(OUT)
	$(CC) $(CHACHA_CFLAGS) -mavx -mavx2 -mavx512f -mavx512vl -c -o $@ $<

$(OUT)/chacha: $(SRC)/chacha.c $(CHACHA_OBJS) $(TOP)/chacha_core.h | $(OUT)
	$(CC) $(NATIVE_CFLAGS) -o $@ $< $(CHACHA_OBJS) $(LDLIBS_SSL)

# The AVX-512VL level's source built for AVX2 (its rotates then shifts and
# ors): on a host without AVX-512 its C code runs and is tested all the same.
$(OUT)/chacha-avx512-on-avx2.o: $(TOP)/chacha_avx512.c $(CHACHA_HDRS) | $(OUT)
	$(CC) $(CHACHA_CFLAGS) -mavx -mavx2 -c -o $@ $<
CHACHA_OBJS_512ON2 := $(filter-out %/chacha-avx512.o,$(CHACHA_OBJS)) \
	$(OUT)/chacha-avx512-on-avx2.o
$(OUT)/chacha-512on2: $(SRC)/chacha.c $(CHACHA_OBJS_512ON2) | $(OUT)
	$(CC) $(NATIVE_CFLAGS) -DCHACHA_AVX512_ON_AVX2 -o $@ $< \
		$(CHACHA_OBJS_512ON2) $(LDLIBS_SSL)

$(OUT)/chacha_kat_gen: $(SRC)/chacha_kat_gen.c | $(OUT)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS_SSL)

chacha-kat: $(OUT)/chacha_kat_gen
	$(OUT)/chacha_kat_gen | diff -u $(TOP)/chacha_kat.h - && \
		echo "chacha: chacha_kat.h is what chacha_kat_gen writes"

chacha-test: chacha-kat $(OUT)/chacha $(OUT)/chacha-512on2
	$(OUT)/chacha test $(CHACHA_ITERS)
	@if grep -qw avx2 /proc/cpuinfo && ! grep -qw avx512vl /proc/cpuinfo; then \
		echo "chacha: the avx512 level's source, built for AVX2:"; \
		$(OUT)/chacha-512on2 test $(CHACHA_ITERS); fi

chacha-bench: $(OUT)/chacha
	$(if $(wildcard $(CHACHA_LOCK)),flock $(CHACHA_LOCK)) \
		taskset -c $(CHACHA_CPU) $(OUT)/chacha bench $(CHACHA_ROUNDS)

# Ir per byte: (Ir of N messages - Ir of none) / (N * LEN), N = 200
chacha-callgrind: $(OUT)/chacha
	@for l in generic ssse3 avx2; do \
	  for m in run open stream; do \
	    for n in 0 200; do \
	      valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		$(OUT)/chacha $$m $$l $(CHACHA_LEN) $$n 2>&1 | \
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p' > $(OUT)/cg-$$m-$$n; \
	    done; \
	    echo "$$l $$m $$(cat $(OUT)/cg-$$m-0) $$(cat $(OUT)/cg-$$m-200)"; \
	  done; \
	done | awk -v len=$(CHACHA_LEN) '{ ir[$$1, $$2] = ($$4 - $$3) / (200 * len); \
		lv[$$1] = 1 } END { printf "chacha callgrind at %u bytes, Ir/byte: level aead chacha20 rest open\n", len; \
		for (l in lv) printf "  %-8s %6.2f %6.2f %6.2f %6.2f\n", l, ir[l, "run"], \
		ir[l, "stream"], ir[l, "run"] - ir[l, "stream"], ir[l, "open"] }'

TESTS += chacha-test
BENCHES += chacha-bench
.PHONY: chacha-kat chacha-callgrind
