// SPDX-License-Identifier: GPL-2.0
/*
 * ChaCha20-Poly1305 core (see chacha_core.h): the portable C level, the
 * dispatch to a level's block and fused functions, the keystream and
 * Poly1305 buffering for text split at any byte, and the tag. Built in the
 * module without FPU registers, and for bench/native/ as a user program.
 */

#include "chacha_impl.h"
#include "chacha_poly.h"
#include "chacha_kat.h"

static __always_inline unsigned int cc_min(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

/* ------------------------------------------------------------------ */
/* ChaCha20, portable C                                                */

static __always_inline u32 cc_rol32(u32 v, int n)
{
	return (v << n) | (v >> (32 - n));
}

static __always_inline void cc_qr(u32 *x, int a, int b, int c, int d)
{
	x[a] += x[b];
	x[d] = cc_rol32(x[d] ^ x[a], 16);
	x[c] += x[d];
	x[b] = cc_rol32(x[b] ^ x[c], 12);
	x[a] += x[b];
	x[d] = cc_rol32(x[d] ^ x[a], 8);
	x[c] += x[d];
	x[b] = cc_rol32(x[b] ^ x[c], 7);
}

void chacha_xor_generic(u32 *state, u8 *dst, const u8 *src,
			unsigned int nblocks)
{
	u32 x[16];
	unsigned int i;

	while (nblocks--) {
		memcpy(x, state, sizeof(x));
		for (i = 0; i < 10; i++) {
			cc_qr(x, 0, 4, 8, 12);
			cc_qr(x, 1, 5, 9, 13);
			cc_qr(x, 2, 6, 10, 14);
			cc_qr(x, 3, 7, 11, 15);
			cc_qr(x, 0, 5, 10, 15);
			cc_qr(x, 1, 6, 11, 12);
			cc_qr(x, 2, 7, 8, 13);
			cc_qr(x, 3, 4, 9, 14);
		}
		for (i = 0; i < 16; i++) {
			u32 k = x[i] + state[i];

			if (src)
				k ^= cc_le32(src + 4 * i);
			cc_put_le32(k, dst + 4 * i);
		}
		state[12]++;
		dst += CHACHA_BLOCK_SIZE;
		if (src)
			src += CHACHA_BLOCK_SIZE;
	}
	memzero_explicit(x, sizeof(x));
}

/* 16 blocks (1 KiB) ciphered, then hashed while they are in L1 */
#define CC_GENERIC_RUN 16U

static void cc_xor_bytes(u8 *dst, const u8 *src, const u8 *ks,
			 unsigned int n);

/* seal and open take the @pn blocks before dst or src as chacha_impl.h says */
void cc_seal_generic(struct cc_aead *a, u8 *dst, const u8 *src,
		     unsigned int nblocks, unsigned int pn)
{
	cc_xor_bytes(dst - 16 * pn, src - 16 * pn,
		     a->ks + a->ks_len - 16 * pn, 16 * pn);
	cc_poly_blocks(&a->poly, dst - 16 * pn, pn, 1);
	while (nblocks) {
		unsigned int n = cc_min(nblocks, CC_GENERIC_RUN);

		chacha_xor_generic(a->state, dst, src, n);
		cc_poly_blocks(&a->poly, dst, n * 4, 1);
		dst += n * CHACHA_BLOCK_SIZE;
		src += n * CHACHA_BLOCK_SIZE;
		nblocks -= n;
	}
}

void cc_open_generic(struct cc_aead *a, u8 *dst, const u8 *src,
		     unsigned int nblocks, unsigned int pn)
{
	cc_poly_blocks(&a->poly, src - 16 * pn, pn, 1);
	cc_xor_bytes(dst - 16 * pn, src - 16 * pn,
		     a->ks + a->ks_len - 16 * pn, 16 * pn);
	while (nblocks) {
		unsigned int n = cc_min(nblocks, CC_GENERIC_RUN);

		cc_poly_blocks(&a->poly, src, n * 4, 1);
		chacha_xor_generic(a->state, dst, src, n);
		dst += n * CHACHA_BLOCK_SIZE;
		src += n * CHACHA_BLOCK_SIZE;
		nblocks -= n;
	}
}

/* ------------------------------------------------------------------ */
/* Dispatch: direct calls (no indirect branch per piece of text)       */

#define CC_DISPATCH(level, fn, ...)				\
	do {							\
		switch (level) {				\
		case CC_SSSE3:					\
			fn##_ssse3(__VA_ARGS__);		\
			break;					\
		case CC_AVX2:					\
			fn##_avx2(__VA_ARGS__);			\
			break;					\
		case CC_AVX512:					\
			fn##_avx512(__VA_ARGS__);		\
			break;					\
		default:					\
			fn##_generic(__VA_ARGS__);		\
			break;					\
		}						\
	} while (0)

void cc_chacha(enum cc_level level, u32 *state, u8 *dst, const u8 *src,
	       unsigned int nblocks)
{
	CC_DISPATCH(level, chacha_xor, state, dst, src, nblocks);
}

/* ------------------------------------------------------------------ */
/* The AEAD                                                            */

void cc_setkey(struct cc_key *k, const u8 *key)
{
	int i;

	for (i = 0; i < 8; i++)
		k->key[i] = cc_le32(key + 4 * i);
	k->salt = cc_le32(key + CC_KEY_SIZE);
}

/*
 * Block 0 is the Poly1305 key; the blocks after it, as many as the text
 * needs up to CC_KS_BLOCKS in all, come out of the same call and wait in
 * a->ks for the first bytes of the text.
 */
void cc_aead_init(struct cc_aead *a, enum cc_level level,
		  const struct cc_key *k, const u8 *iv, unsigned int textlen)
{
	unsigned int n;

	a->state[0] = 0x61707865;
	a->state[1] = 0x3320646e;
	a->state[2] = 0x79622d32;
	a->state[3] = 0x6b206574;
	memcpy(&a->state[4], k->key, sizeof(k->key));
	a->state[12] = 0;
	a->state[13] = k->salt;
	a->state[14] = cc_le32(iv);
	a->state[15] = cc_le32(iv + 4);
	a->level = level;
	a->adlen = 0;
	a->textlen = 0;
	a->buflen = 0;
	a->in_text = false;

	n = 1 + (textlen + CHACHA_BLOCK_SIZE - 1) / CHACHA_BLOCK_SIZE;
	n = cc_min(n, CC_KS_BLOCKS);
	cc_chacha(level, a->state, a->ks, NULL, n);
	cc_poly_init(&a->poly, a->ks);
	a->ks_pos = CHACHA_BLOCK_SIZE;
	a->ks_len = n * CHACHA_BLOCK_SIZE;
	a->ks_hi = a->ks_len;
}

/* Poly1305 over bytes that may not fill a 16-byte block */
static void cc_poly_update(struct cc_aead *a, const u8 *m, unsigned int len)
{
	unsigned int n;

	if (a->buflen) {
		n = cc_min(len, 16 - a->buflen);
		memcpy(a->buf + a->buflen, m, n);
		a->buflen += n;
		m += n;
		len -= n;
		if (a->buflen < 16)
			return;
		cc_poly_blocks(&a->poly, a->buf, 1, 1);
		a->buflen = 0;
	}
	if (len >= 16) {
		cc_poly_blocks(&a->poly, m, len / 16, 1);
		m += len & ~15U;
		len &= 15;
	}
	if (len) {
		memcpy(a->buf, m, len);
		a->buflen = len;
	}
}

/* Zero-pad to a 16-byte boundary, as the AEAD construction does */
static void cc_poly_pad(struct cc_aead *a)
{
	if (!a->buflen)
		return;
	memset(a->buf + a->buflen, 0, 16 - a->buflen);
	cc_poly_blocks(&a->poly, a->buf, 1, 1);
	a->buflen = 0;
}

void cc_aead_ad(struct cc_aead *a, const u8 *ad, unsigned int len)
{
	cc_poly_update(a, ad, len);
	a->adlen += len;
}

static void cc_xor_bytes(u8 *dst, const u8 *src, const u8 *ks,
			 unsigned int n)
{
	for (; n >= 8; n -= 8, dst += 8, src += 8, ks += 8) {
		u64 v, k;

		memcpy(&v, src, 8);
		memcpy(&k, ks, 8);
		v ^= k;
		memcpy(dst, &v, 8);
	}
	while (n--)
		*dst++ = *src++ ^ *ks++;
}

/*
 * The text: buffered keystream first; then whole blocks through the
 * level's fused pass (the text is 64-byte aligned there: the buffer holds
 * whole blocks, so it runs dry only at a block boundary, where Poly1305 has
 * no partial block either); a last partial block through the buffer.
 * Buffered keystream that ends at a block boundary right before such a
 * pass is left to the pass (@pn blocks): it absorbs that cipher text in
 * its first group, where the vector work hides Poly1305's, and xors it.
 */
static void cc_aead_text(struct cc_aead *a, u8 *dst, const u8 *src,
			 unsigned int len, bool enc)
{
	unsigned int n, pn = 0;

	if (!a->in_text) {
		cc_poly_pad(a);
		a->in_text = true;
	}
	a->textlen += len;
	while (len) {
		if (a->ks_pos < a->ks_len) {
			n = cc_min(len, a->ks_len - a->ks_pos);
			if (n == a->ks_len - a->ks_pos && !a->buflen &&
			    !(n % 16) && len - n >= CHACHA_BLOCK_SIZE) {
				pn = n / 16;	/* for the pass, below */
			} else {
				if (!enc)
					cc_poly_update(a, src, n);
				cc_xor_bytes(dst, src, a->ks + a->ks_pos, n);
				if (enc)
					cc_poly_update(a, dst, n);
			}
			a->ks_pos += n;
		} else if (len >= CHACHA_BLOCK_SIZE) {
			n = len / CHACHA_BLOCK_SIZE;
			if (enc)
				CC_DISPATCH(a->level, cc_seal, a, dst, src, n,
					    pn);
			else
				CC_DISPATCH(a->level, cc_open, a, dst, src, n,
					    pn);
			pn = 0;
			n *= CHACHA_BLOCK_SIZE;
		} else {
			cc_chacha(a->level, a->state, a->ks, NULL, 1);
			a->ks_pos = 0;
			a->ks_len = CHACHA_BLOCK_SIZE;
			continue;
		}
		dst += n;
		src += n;
		len -= n;
	}
}

void cc_aead_encrypt(struct cc_aead *a, u8 *dst, const u8 *src,
		     unsigned int len)
{
	cc_aead_text(a, dst, src, len, true);
}

void cc_aead_decrypt(struct cc_aead *a, u8 *dst, const u8 *src,
		     unsigned int len)
{
	cc_aead_text(a, dst, src, len, false);
}

void cc_aead_tag(struct cc_aead *a, u8 *tag)
{
	u8 lens[16];

	cc_poly_pad(a);
	cc_put_le64(a->adlen, lens);
	cc_put_le64(a->textlen, lens + 8);
	cc_poly_blocks(&a->poly, lens, 1, 1);
	cc_poly_final(&a->poly, tag);
}

void cc_aead_wipe(struct cc_aead *a)
{
	/* all but the keystream buffer's unwritten end */
	memzero_explicit(a, sizeof(*a) - sizeof(a->ks) + a->ks_hi);
}

bool cc_equal(const u8 *a, const u8 *b, unsigned int n)
{
	u8 d = 0;

	while (n--)
		d |= *a++ ^ *b++;
	return !d;
}

void cc_seal(enum cc_level level, const struct cc_key *k, const u8 *iv,
	     const u8 *ad, unsigned int adlen, u8 *dst, const u8 *src,
	     unsigned int len, u8 *tag)
{
	struct cc_aead a __uninitialized;

	cc_aead_init(&a, level, k, iv, len);
	cc_aead_ad(&a, ad, adlen);
	cc_aead_encrypt(&a, dst, src, len);
	cc_aead_tag(&a, tag);
	cc_aead_wipe(&a);
}

bool cc_open(enum cc_level level, const struct cc_key *k, const u8 *iv,
	     const u8 *ad, unsigned int adlen, u8 *dst, const u8 *src,
	     unsigned int len, const u8 *tag)
{
	struct cc_aead a __uninitialized;
	u8 mine[CC_TAG_SIZE];
	bool ok;

	cc_aead_init(&a, level, k, iv, len);
	cc_aead_ad(&a, ad, adlen);
	cc_aead_decrypt(&a, dst, src, len);
	cc_aead_tag(&a, mine);
	ok = cc_equal(mine, tag, CC_TAG_SIZE);
	cc_aead_wipe(&a);
	memzero_explicit(mine, sizeof(mine));
	return ok;
}

/* ------------------------------------------------------------------ */
/* Known-answer test                                                   */

unsigned int cc_kat_cases(void)
{
	return CC_KAT_NR;
}

/*
 * Case @i at @level, buf holding CC_KAT_BUF_SIZE bytes: encrypt the
 * case's plain text in one piece and compare the tag (it covers the
 * cipher text: a wrong keystream byte gives another tag), then decrypt in
 * three pieces split inside blocks, through the keystream buffer, and
 * compare tag and plain text. Returns true if all matched. @wrong: expect
 * a tag with one bit flipped instead (to test the callers' failure path).
 */
bool cc_known_answer(enum cc_level level, unsigned int i, u8 *buf,
		     bool wrong)
{
	const struct cc_kat_case *c = &cc_kat[i];
	u8 *pt = buf, *ct = buf + CC_KAT_MAX_LEN, tag[CC_TAG_SIZE];
	u8 want[CC_TAG_SIZE];
	unsigned int j, cut1, cut2;
	struct cc_aead a __uninitialized;
	struct cc_key k;
	bool ok;

	memcpy(want, c->tag, CC_TAG_SIZE);
	want[i % CC_TAG_SIZE] ^= wrong;
	for (j = 0; j < c->len; j++)
		pt[j] = cc_kat_pt_byte(i, j);
	cc_setkey(&k, c->key);
	cc_seal(level, &k, c->iv, c->ad, c->adlen, ct, pt, c->len, tag);
	ok = cc_equal(tag, want, CC_TAG_SIZE);

	cut1 = c->len / 3 | 1;
	cut2 = cc_min(c->len, cut1 + 2 * CHACHA_BLOCK_SIZE + 5);
	cut1 = cc_min(cut1, c->len);
	cc_aead_init(&a, level, &k, c->iv, c->len);
	j = c->adlen / 2;
	cc_aead_ad(&a, c->ad, j);
	cc_aead_ad(&a, c->ad + j, c->adlen - j);
	cc_aead_decrypt(&a, ct, ct, cut1);
	cc_aead_decrypt(&a, ct + cut1, ct + cut1, cut2 - cut1);
	cc_aead_decrypt(&a, ct + cut2, ct + cut2, c->len - cut2);
	cc_aead_tag(&a, tag);
	cc_aead_wipe(&a);
	ok &= cc_equal(tag, want, CC_TAG_SIZE);
	for (j = 0; j < c->len; j++)
		ok &= ct[j] == pt[j];
	memzero_explicit(&k, sizeof(k));
	return ok;
}
