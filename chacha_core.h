/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ChaCha20-Poly1305 core of rfc7539esp: ChaCha20 at each instruction
 * set level, Poly1305, the fused pass over the data and the tag. It has no
 * crypto API, scatterlist or FPU code, so it builds both in the module
 * (chacha_simd.c is the kernel glue) and as a user program on the host
 * (bench/native/, with shim headers for the few <linux/...> it includes).
 *
 * One message is one struct cc_aead: cc_aead_init(), the AD in any number
 * of cc_aead_ad() calls, the text in any number of cc_aead_encrypt() or
 * cc_aead_decrypt() calls (one per contiguous segment of a scatterlist,
 * split anywhere), then cc_aead_tag(). Nothing but the AEAD construction
 * is assumed of the split. At a SIMD level every call from init to tag
 * runs with the FPU usable (kernel: inside kernel_fpu_begin()/_end(), which
 * may be ended and begun again between two calls: no register state is
 * kept between calls).
 *
 * Its working state (struct cc_aead, the levels' vectors) is written before
 * it is read and wiped after use: it is declared __uninitialized, which
 * spares the kernel's -ftrivial-auto-var-init=zero some 700 bytes of
 * stores per message.
 *
 * rfc7539esp semantics, as crypto/chacha20poly1305.c: the key is 32 bytes
 * of ChaCha20 key and a 4-byte salt; the nonce is salt || 8-byte IV.
 */
#ifndef _ESP_CHACHA_CORE_H
#define _ESP_CHACHA_CORE_H

#include <linux/types.h>

#define CHACHA_BLOCK_SIZE	64
#define CC_KEY_SIZE		32
#define CC_SALT_SIZE		4
#define CC_IV_SIZE		8
#define CC_TAG_SIZE		16
/* keystream buffered at once: the widest level's blocks per pass */
#define CC_KS_BLOCKS		8U

/* Instruction set levels, in the order of preference (best last). */
enum cc_level {
	CC_GENERIC,	/* portable C */
	CC_SSSE3,	/* 4 blocks in 128-bit vectors */
	CC_AVX2,	/* 8 blocks in 256-bit vectors */
	CC_AVX512,	/* the AVX2 code with AVX-512VL rotates */
	CC_NR_LEVELS
};

struct cc_key {
	u32 key[8];
	u32 salt;
};

/* Poly1305 state: r and h in radix 2^64 (see chacha_poly.h) */
struct cc_poly {
	u64 r[2], s1;
	u64 h[3];
	u64 pad[2];
};

struct cc_aead {
	u32 state[16];		/* ChaCha20 input, state[12] the block counter */
	struct cc_poly poly;
	u64 adlen, textlen;
	enum cc_level level;
	unsigned int ks_pos, ks_len;	/* unused keystream ks[ks_pos..ks_len) */
	unsigned int ks_hi;		/* ks[0..ks_hi) was written: wiped */
	unsigned int buflen;		/* bytes waiting in buf for Poly1305 */
	bool in_text;			/* the AD has been padded */
	u8 buf[16];
	u8 ks[CC_KS_BLOCKS * CHACHA_BLOCK_SIZE];	/* last: see cc_aead_wipe() */
};

void cc_setkey(struct cc_key *k, const u8 *key);
/* @textlen: the text's length if known (only sizes the first keystream) */
void cc_aead_init(struct cc_aead *a, enum cc_level level,
		  const struct cc_key *k, const u8 *iv, unsigned int textlen);
void cc_aead_ad(struct cc_aead *a, const u8 *ad, unsigned int len);
void cc_aead_encrypt(struct cc_aead *a, u8 *dst, const u8 *src,
		     unsigned int len);
void cc_aead_decrypt(struct cc_aead *a, u8 *dst, const u8 *src,
		     unsigned int len);
void cc_aead_tag(struct cc_aead *a, u8 *tag);
/* Clears @a as far as it was written (after cc_aead_init(), or ks_hi = 0) */
void cc_aead_wipe(struct cc_aead *a);
/* constant time: true if the n bytes at a and b are equal */
bool cc_equal(const u8 *a, const u8 *b, unsigned int n);

/* One linear message (the AD without the IV that ESP appends to it). */
void cc_seal(enum cc_level level, const struct cc_key *k, const u8 *iv,
	     const u8 *ad, unsigned int adlen, u8 *dst, const u8 *src,
	     unsigned int len, u8 *tag);
/* Returns false (dst holds unauthenticated text) if the tag differs. */
bool cc_open(enum cc_level level, const struct cc_key *k, const u8 *iv,
	     const u8 *ad, unsigned int adlen, u8 *dst, const u8 *src,
	     unsigned int len, const u8 *tag);

/*
 * Known-answer test (chacha_kat.h: expected tags computed with OpenSSL by
 * bench/native/chacha_kat_gen.c): case @i (0 .. cc_kat_cases() - 1) at
 * @level, in @buf of CC_KAT_BUF_SIZE bytes. Returns true if it matched
 * (@wrong: if it matched a wrong tag instead, for tests of the callers).
 * A case handles at most CC_KAT_MAX_LEN bytes of text, twice.
 */
#define CC_KAT_MAX_LEN		2048U
#define CC_KAT_BUF_SIZE		(2 * CC_KAT_MAX_LEN)
unsigned int cc_kat_cases(void);
bool cc_known_answer(enum cc_level level, unsigned int i, u8 *buf,
		     bool wrong);

/* The raw keystream at @level: nblocks * 64 bytes xored into dst (src NULL:
 * the keystream itself), the block counter state[12] advanced.
 */
void cc_chacha(enum cc_level level, u32 *state, u8 *dst, const u8 *src,
	       unsigned int nblocks);

#endif /* _ESP_CHACHA_CORE_H */
