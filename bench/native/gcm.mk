# SPDX-License-Identifier: GPL-2.0
# The module's AES-GCM core (gcm_vec.h, one object per level; gcm_kat.c)
# against OpenSSL's EVP (bench/native/gcm_native.c).
#   test: gcm_kat_long.h is what gcm_kat_gen.c writes; known answers and
#         random messages, every level: natively where this CPU runs it,
#         under qemu-x86_64 -cpu max where only qemu does (not the VAES
#         levels where qemu computes VAES wrongly: qemu_vaes.c), else
#         "skipped: <why>"
#   bench: cycles per byte of every level this CPU runs and of OpenSSL,
#         pinned to one CPU, inside the cpu lock (GCM_CPU, GCM_REPS)
GCM_LEVELS := aesni aesni-avx vaes-avx2 vaes-avx512
GCM_OBJS := $(OUT)/gcm_aesni.o $(OUT)/gcm_aesni_avx.o $(OUT)/gcm_vaes_avx2.o \
	$(OUT)/gcm_vaes_avx512.o $(OUT)/gcm_kat.o
GCM_CPU ?= 1
GCM_REPS ?= 20
GCM_QEMU ?= qemu-x86_64 -cpu max
# the machine's shared lock for timing runs where it has one
CPU_LOCK ?= $(or $(wildcard /work/locks/cpu.lock),$(OUT)/cpu.lock)

$(OUT)/gcm_aesni.o: NATIVE_GCM_FLAGS := -maes -mpclmul -msse4.1
$(OUT)/gcm_aesni_avx.o: NATIVE_GCM_FLAGS := -maes -mpclmul -mavx
$(OUT)/gcm_vaes_avx2.o: NATIVE_GCM_FLAGS := -maes -mpclmul -mavx -mavx2 -mvaes -mvpclmulqdq
$(OUT)/gcm_vaes_avx512.o: NATIVE_GCM_FLAGS := -maes -mpclmul -mavx -mavx2 \
	-mavx512f -mavx512vl -mavx512bw -mvaes -mvpclmulqdq
$(OUT)/gcm_kat.o: NATIVE_GCM_FLAGS :=
$(OUT)/gcm_kat.o: $(TOP)/gcm_kat_long.h
# as the kernel builds them: Debian's kernels zero uninitialized locals
GCM_KFLAGS := -ftrivial-auto-var-init=zero
$(OUT)/gcm_%.o: $(TOP)/gcm_%.c $(TOP)/gcm_vec.h $(TOP)/gcm_wide.h $(TOP)/gcm_core.h \
		$(SRC)/gcm.mk | $(OUT)
	$(CC) $(NATIVE_CFLAGS) $(GCM_KFLAGS) $(NATIVE_GCM_FLAGS) -c -o $@ $<

$(OUT)/gcm_native: $(SRC)/gcm_native.c $(GCM_OBJS) $(TOP)/gcm_kat.h $(TOP)/gcm_core.h | $(OUT)
	$(CC) $(NATIVE_CFLAGS) -o $@ $< $(GCM_OBJS) $(LDLIBS_SSL)

$(OUT)/qemu_vaes: $(SRC)/qemu_vaes.c | $(OUT)
	$(CC) $(NATIVE_CFLAGS) -o $@ $<

$(OUT)/gcm_kat_gen: $(SRC)/gcm_kat_gen.c | $(OUT)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS_SSL)

gcm-kat: $(OUT)/gcm_kat_gen
	$(OUT)/gcm_kat_gen | diff -u $(TOP)/gcm_kat_long.h - && \
		echo "gcm: gcm_kat_long.h is what gcm_kat_gen writes"

gcm-test: gcm-kat $(OUT)/gcm_native $(OUT)/qemu_vaes
	@for l in $(GCM_LEVELS); do \
		if $(OUT)/gcm_native supported $$l; then \
			$(OUT)/gcm_native test $$l || exit 1; \
		elif ! command -v $(firstword $(GCM_QEMU)) >/dev/null; then \
			echo "gcm $$l: skipped: this CPU lacks $$($(OUT)/gcm_native lacks $$l), and there is no $(firstword $(GCM_QEMU)) to run it"; \
		elif ! $(GCM_QEMU) $(OUT)/gcm_native supported $$l 2>/dev/null; then \
			echo "gcm $$l: skipped: this CPU lacks $$($(OUT)/gcm_native lacks $$l), and $(GCM_QEMU) does not run it"; \
		elif case $$l in vaes*) ! $(GCM_QEMU) $(OUT)/qemu_vaes >/dev/null;; *) false;; esac; then \
			echo "gcm $$l: skipped: this CPU lacks $$($(OUT)/gcm_native lacks $$l), and $(GCM_QEMU) computes VAESENC (ymm) wrongly (qemu_vaes.c)"; \
		else \
			echo "gcm $$l: not on this CPU: under $(GCM_QEMU)"; \
			$(GCM_QEMU) $(OUT)/gcm_native test $$l 1000 || exit 1; \
		fi; \
	done

gcm-bench: $(OUT)/gcm_native
	@lv=""; for l in $(GCM_LEVELS); do \
		if $(OUT)/gcm_native supported $$l; then lv="$$lv $$l"; \
		else echo "gcm $$l: skipped: this CPU lacks $$($(OUT)/gcm_native lacks $$l) (not timeable here)"; fi; \
	done; \
	flock $(CPU_LOCK) taskset -c $(GCM_CPU) $(OUT)/gcm_native bench $$lv openssl -r $(GCM_REPS)

TESTS += gcm-test
BENCHES += gcm-bench
