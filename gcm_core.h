/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AES-GCM over linear buffers: the SIMD core of the module's
 * rfc4106(gcm(aes)) (gcm_simd.c), built per instruction set from
 * gcm_vec.h (gcm_aesni.c, gcm_aesni_avx.c, gcm_vaes_avx2.c,
 * gcm_vaes_avx512.c). It uses nothing but <linux/types.h>, so the same files build as user programs
 * (bench/native/gcm.mk, with bench/native/shim/) for the differential test
 * against OpenSSL and for timing.
 *
 * A message is gcm_start() (96-bit nonce, associated data), any number of
 * gcm_enc()/gcm_dec() calls over consecutive pieces of the text (of any
 * lengths: a partial block is carried in the state), then gcm_finish(). All
 * state lives in struct gcm_state between calls, so the caller may end
 * and restart its FPU section between any two calls. Every level reads and
 * writes the same gcm_key and gcm_state layout: a message may be begun at
 * one level and ended at another.
 *
 * Constant time: no branch and no memory index depends on the key or the
 * data, only on lengths.
 */
#ifndef _ESP_GCM_CORE_H
#define _ESP_GCM_CORE_H

#include <linux/types.h>

#define GCM_BLOCK	16
#define GCM_NONCE	12
#define GCM_TAG		16
#define GCM_MAX_ROUNDS	14
/* GHASH key powers: most blocks hashed per reduction (vaes-avx512's step) */
#define GCM_NPOWERS	32

struct gcm_key {
	/* AES-128/256 encryption round keys */
	u8 rk[GCM_MAX_ROUNDS + 1][GCM_BLOCK] __aligned(16);
	/*
	 * H^32 .. H^1 (h[GCM_NPOWERS - i] = H^i), byte-reflected and times x
	 * (gcm_vec.h); hx[j] holds the xor of h[j]'s two halves in both
	 * halves (the middle product of Karatsuba multiplication). Powers
	 * in a row are in a row in memory: the wide levels load H^(i+3) ..
	 * H^i as one 512-bit vector.
	 */
	u8 h[GCM_NPOWERS][GCM_BLOCK] __aligned(16);
	u8 hx[GCM_NPOWERS][GCM_BLOCK] __aligned(16);
	u32 rounds;		/* 10 or 14 */
};

struct gcm_state {
	u8 ctr[GCM_BLOCK] __aligned(16);	/* next counter block */
	u8 ekj0[GCM_BLOCK] __aligned(16);	/* E(K, J0): masks the tag */
	u8 acc[GCM_BLOCK] __aligned(16);	/* GHASH so far, byte-reflected */
	u8 ks[GCM_BLOCK] __aligned(16);		/* key stream of a partial block */
	u8 part[GCM_BLOCK] __aligned(16);	/* cipher text of that block */
	u64 adlen, textlen;			/* bytes */
	u32 partlen;				/* bytes in part[] */
};

/*
 * One instruction-set level. setkey takes 16 or 32 key bytes and returns
 * false for any other length. The text functions may be called with
 * dst == src.
 */
struct gcm_impl {
	const char *name;
	bool (*setkey)(struct gcm_key *k, const u8 *key, unsigned int keylen);
	void (*start)(const struct gcm_key *k, struct gcm_state *st,
		      const u8 *nonce, const u8 *ad, unsigned int adlen);
	void (*enc)(const struct gcm_key *k, struct gcm_state *st, u8 *dst,
		    const u8 *src, unsigned int len);
	void (*dec)(const struct gcm_key *k, struct gcm_state *st, u8 *dst,
		    const u8 *src, unsigned int len);
	void (*finish)(const struct gcm_key *k, struct gcm_state *st, u8 *tag);
};

/*
 * The levels. The VAES levels run eight vectors of 2 (256-bit) or 4
 * (512-bit) blocks a step: 16 or 32 blocks through the AES at once, their
 * GHASH with VPCLMULQDQ and one reduction (gcm_wide.h).
 */
extern const struct gcm_impl gcm_impl_aesni;		/* AES-NI, PCLMULQDQ, SSE4.1 */
extern const struct gcm_impl gcm_impl_aesni_avx;	/* the same, VEX-encoded */
extern const struct gcm_impl gcm_impl_vaes_avx2;	/* VAES, VPCLMULQDQ, AVX2 */
extern const struct gcm_impl gcm_impl_vaes_avx512;	/* the same, AVX512F/VL/BW */

/*
 * gcm_kat.c: the known-answer test of a level, case by case
 * (gcm_kat_long.h). The work area holds a key: wipe it after use.
 */
#define GCM_KAT_MAX_LEN	2000

struct gcm_kat_work {
	struct gcm_key key;
	struct gcm_state st;
	u8 text[GCM_KAT_MAX_LEN];
	u8 tag[GCM_TAG];
};

unsigned int gcm_kat_cases(void);
bool gcm_known_answer(const struct gcm_impl *l, unsigned int i,
		      struct gcm_kat_work *w, bool wrong);

#endif /* _ESP_GCM_CORE_H */
