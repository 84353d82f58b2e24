// SPDX-License-Identifier: GPL-2.0
/*
 * Writes gcm_kat_long.h, the known-answer test the module runs on an
 * AES-GCM level before it uses it (gcm_kat.c: gcm_known_answer()), to
 * stdout. The expected tags come from OpenSSL's EVP AES-128-GCM and
 * AES-256-GCM, not from the module's code: keys, nonces and AD are fixed
 * pseudo-random bytes, the plain text a formula (printed into the header,
 * so both sides compute the same bytes), the lengths chosen so that every
 * level's paths run: empty, sub-block, the 8-block (aesni), 16-block
 * (vaes-avx2) and 32-block (vaes-avx512) steps, their tails with a part
 * of a vector, and a partial last block; AD of 0, 8 and 12 bytes (ESP:
 * SPI and sequence number, the second with ESN). Each case's text is at
 * most 2000 bytes: encrypted and decrypted, 4 KiB of work for one FPU
 * section.
 *
 * make -C bench/native test checks that the committed header is what this
 * program writes.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <openssl/evp.h>

/* used with plain variables only: its text goes into the header as is */
#define KAT_PT_BYTE(i, j) j * 131 + (j >> 8) * 7 + i * 29 + 3
#define STR_(x) #x
#define STR(x) STR_(x)

static const struct { unsigned int len, keylen, adlen; } cases[] = {
	{ 0, 16, 8 }, { 1, 32, 12 }, { 16, 16, 8 }, { 64, 32, 8 },
	{ 100, 16, 0 }, { 255, 32, 12 }, { 511, 16, 8 }, { 512, 32, 8 },
	{ 1024, 16, 8 }, { 1420, 16, 8 }, { 1438, 32, 12 }, { 2000, 32, 8 },
};
#define MAX_LEN 2000	/* GCM_KAT_MAX_LEN */

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint8_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (rng * 0x9e3779b97f4a7c15ULL) >> 56;
}

static void hexline(const char *field, const uint8_t *b, unsigned int n)
{
	unsigned int i;

	printf("\t\t.%s = {", field);
	for (i = 0; i < n; i++)
		printf("%s0x%02x,", i % 12 ? " " : "\n\t\t\t", b[i]);
	printf("\n\t\t},\n");
}

static int seal(const uint8_t *key, unsigned int keylen, const uint8_t *nonce,
		const uint8_t *ad, unsigned int adlen, const uint8_t *pt,
		unsigned int len, uint8_t *ct, uint8_t *tag)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n, ok;

	ok = c && EVP_EncryptInit_ex(c, keylen == 16 ? EVP_aes_128_gcm() :
				     EVP_aes_256_gcm(), NULL, key, nonce) &&
	     EVP_EncryptUpdate(c, NULL, &n, ad, adlen) &&
	     EVP_EncryptUpdate(c, ct, &n, pt, len) &&
	     EVP_EncryptFinal_ex(c, ct + n, &n) &&
	     EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag);
	EVP_CIPHER_CTX_free(c);
	return ok;
}

int main(void)
{
	static uint8_t pt[MAX_LEN], ct[MAX_LEN];
	unsigned int i, j;

	printf("/* SPDX-License-Identifier: GPL-2.0 */\n"
	       "/*\n"
	       " * Known-answer cases for gcm_known_answer() (gcm_kat.c). Written by\n"
	       " * bench/native/gcm_kat_gen.c: the tags are OpenSSL's EVP AES-GCM of\n"
	       " * the plain text gcm_kat_pt_byte() under key (keylen bytes) and the\n"
	       " * 96-bit nonce, AD of adlen bytes. Do not edit.\n"
	       " */\n"
	       "#ifndef _ESP_GCM_KAT_LONG_H\n#define _ESP_GCM_KAT_LONG_H\n\n"
	       "struct gcm_kat_case {\n"
	       "\tu16 len;\n\tu8 keylen;\n\tu8 adlen;\n\tu8 key[32];\n"
	       "\tu8 nonce[12];\n\tu8 ad[12];\n\tu8 tag[16];\n};\n\n"
	       "static inline u8 gcm_kat_pt_byte(unsigned int i, unsigned int j)\n"
	       "{\n\treturn %s;\n}\n\n"
	       "#define GCM_KAT_NR %zu\n\n"
	       "static const struct gcm_kat_case gcm_kat_long[GCM_KAT_NR] = {\n",
	       STR(KAT_PT_BYTE(i, j)), sizeof(cases) / sizeof(cases[0]));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t key[32], nonce[12], ad[12], tag[16];

		if (cases[i].len > MAX_LEN || cases[i].adlen > sizeof(ad))
			return 1;
		for (j = 0; j < sizeof(key); j++)
			key[j] = j < cases[i].keylen ? rnd() : 0;
		for (j = 0; j < sizeof(nonce); j++)
			nonce[j] = rnd();
		for (j = 0; j < sizeof(ad); j++)
			ad[j] = j < cases[i].adlen ? rnd() : 0;
		for (j = 0; j < cases[i].len; j++)
			pt[j] = (uint8_t)(KAT_PT_BYTE(i, j));
		if (!seal(key, cases[i].keylen, nonce, ad, cases[i].adlen, pt,
			  cases[i].len, ct, tag)) {
			fprintf(stderr, "gcm_kat_gen: OpenSSL failed\n");
			return 1;
		}
		printf("\t{\n\t\t.len = %u,\n\t\t.keylen = %u,\n\t\t.adlen = %u,\n",
		       cases[i].len, cases[i].keylen, cases[i].adlen);
		hexline("key", key, sizeof(key));
		hexline("nonce", nonce, sizeof(nonce));
		hexline("ad", ad, sizeof(ad));
		hexline("tag", tag, sizeof(tag));
		printf("\t},\n");
	}
	printf("};\n\n#endif /* _ESP_GCM_KAT_LONG_H */\n");
	return 0;
}
