# SPDX-License-Identifier: GPL-2.0
# The module's AES-GCM core (gcm_vec.h, one object per level) against
# OpenSSL's EVP (bench/native/gcm_native.c).
#   test: known answers and random messages, every level: natively where
#         this CPU runs it, under qemu-x86_64 -cpu max where only qemu does,
#         else "skipped: <why>"; and whether a VAES level could be tested
#         here (qemu_vaes.c: see gcm_core.h)
#   bench: cycles per byte of every level this CPU runs and of OpenSSL,
#         pinned to one CPU, inside the cpu lock (GCM_CPU, GCM_REPS)
GCM_LEVELS := aesni aesni-avx
GCM_OBJS := $(OUT)/gcm_aesni.o $(OUT)/gcm_aesni_avx.o
GCM_CPU ?= 1
GCM_REPS ?= 20
GCM_QEMU ?= qemu-x86_64 -cpu max
# the machine's shared lock for timing runs where it has one
CPU_LOCK ?= $(or $(wildcard /work/locks/cpu.lock),$(OUT)/cpu.lock)

$(OUT)/gcm_aesni.o: NATIVE_GCM_FLAGS := -maes -mpclmul -msse4.1
$(OUT)/gcm_aesni_avx.o: NATIVE_GCM_FLAGS := -maes -mpclmul -mavx
$(OUT)/gcm_%.o: $(TOP)/gcm_%.c $(TOP)/gcm_vec.h $(TOP)/gcm_core.h | $(OUT)
	$(CC) $(NATIVE_CFLAGS) $(NATIVE_GCM_FLAGS) -c -o $@ $<

$(OUT)/gcm_native: $(SRC)/gcm_native.c $(GCM_OBJS) $(TOP)/gcm_kat.h $(TOP)/gcm_core.h | $(OUT)
	$(CC) $(NATIVE_CFLAGS) -o $@ $< $(GCM_OBJS) $(LDLIBS_SSL)

$(OUT)/qemu_vaes: $(SRC)/qemu_vaes.c | $(OUT)
	$(CC) $(NATIVE_CFLAGS) -o $@ $<

gcm-test: $(OUT)/gcm_native $(OUT)/qemu_vaes
	@for l in $(GCM_LEVELS); do \
		if $(OUT)/gcm_native supported $$l; then \
			$(OUT)/gcm_native test $$l || exit 1; \
		elif $(GCM_QEMU) $(OUT)/gcm_native supported $$l 2>/dev/null; then \
			echo "gcm $$l: not on this CPU: under $(GCM_QEMU)"; \
			$(GCM_QEMU) $(OUT)/gcm_native test $$l 1000 || exit 1; \
		else \
			echo "gcm $$l: skipped: neither this CPU nor $(GCM_QEMU) runs its instructions"; \
		fi; \
	done; \
	for w in "" "$(GCM_QEMU)"; do \
		$$w $(OUT)/qemu_vaes; rc=$$?; \
		case $$rc in \
		0) echo "gcm vaes: $${w:-this CPU} runs VAES right: a VAES level could be written and tested here" ;; \
		1) echo "gcm vaes: skipped: $${w:-this CPU} computes VAESENC (ymm) wrongly, no VAES level (gcm_core.h)" ;; \
		2) echo "gcm vaes: skipped: $${w:-this CPU} has no VAES" ;; \
		*) echo "gcm vaes: skipped: $$w cannot run (exit $$rc)" ;; \
		esac; \
	done; \
	echo "gcm vpclmulqdq, avx512: skipped: neither this CPU nor $(GCM_QEMU) has them, no such level (gcm_core.h)"

gcm-bench: $(OUT)/gcm_native
	@lv=""; for l in $(GCM_LEVELS); do \
		if $(OUT)/gcm_native supported $$l; then lv="$$lv $$l"; \
		else echo "gcm $$l: skipped: this CPU lacks its instructions (not timeable here)"; fi; \
	done; \
	flock $(CPU_LOCK) taskset -c $(GCM_CPU) $(OUT)/gcm_native bench $$lv openssl -r $(GCM_REPS)

TESTS += gcm-test
BENCHES += gcm-bench
