// SPDX-License-Identifier: GPL-2.0
/*
 * Writes chacha_kat.h, the module's known-answer test (run at every load,
 * chacha_core.c: cc_known_answer()), to stdout. The expected tags come from
 * OpenSSL's EVP chacha20-poly1305, not from the module's code: keys, IVs
 * and AD are fixed pseudo-random bytes, the plain text a formula (printed
 * into the header, so both sides compute the same bytes), the lengths
 * chosen so that every level's paths run: empty, sub-block, one block,
 * the 4- and 8-block passes and their tails, with AD of 0, 8 and 12
 * bytes (ESP: SPI and sequence number, the second with ESN).
 *
 * make -C bench/native test checks that the committed header is what this
 * program writes.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <openssl/evp.h>

/* used with plain variables only: its text goes into the header as is */
#define KAT_PT_BYTE(i, j) j * 167 + (j >> 8) * 13 + i * 41 + 1
#define STR_(x) #x
#define STR(x) STR_(x)

static const struct { unsigned int len, adlen; } cases[] = {
	{ 0, 8 }, { 1, 12 }, { 15, 8 }, { 63, 0 }, { 64, 8 }, { 65, 12 },
	{ 191, 8 }, { 256, 8 }, { 449, 8 }, { 511, 12 }, { 576, 8 },
	{ 1024, 8 }, { 1420, 8 }, { 1500, 12 }, { 2048, 8 },
};
#define MAX_LEN 2048	/* CC_KAT_MAX_LEN */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint8_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (rng * 0x2545f4914f6cdd1dULL) >> 56;
}

static void hexline(const char *field, const uint8_t *b, unsigned int n)
{
	unsigned int i;

	printf("\t\t.%s = {", field);
	for (i = 0; i < n; i++)
		printf("%s0x%02x,", i % 12 ? " " : "\n\t\t\t", b[i]);
	printf("\n\t\t},\n");
}

static int seal(const uint8_t *key, const uint8_t *iv, const uint8_t *ad,
		unsigned int adlen, const uint8_t *pt, unsigned int len,
		uint8_t *ct, uint8_t *tag)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t nonce[12];
	int n, ok;

	/* rfc7539esp: nonce = salt (key[32..35]) || IV */
	for (n = 0; n < 4; n++)
		nonce[n] = key[32 + n];
	for (n = 0; n < 8; n++)
		nonce[4 + n] = iv[n];
	ok = c && EVP_EncryptInit_ex(c, EVP_chacha20_poly1305(), NULL, key,
				     nonce) &&
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
	       " * Known-answer cases for cc_known_answer() (chacha_core.c). Written by\n"
	       " * bench/native/chacha_kat_gen.c: the tags are OpenSSL's EVP\n"
	       " * chacha20-poly1305 of the plain text cc_kat_pt_byte() under key (with\n"
	       " * the 4-byte salt) and IV, AD of adlen bytes. Do not edit.\n"
	       " */\n"
	       "#ifndef _ESP_CHACHA_KAT_H\n#define _ESP_CHACHA_KAT_H\n\n"
	       "struct cc_kat_case {\n"
	       "\tu16 len;\n\tu8 adlen;\n\tu8 key[36];\n\tu8 iv[8];\n"
	       "\tu8 ad[12];\n\tu8 tag[16];\n};\n\n"
	       "static inline u8 cc_kat_pt_byte(unsigned int i, unsigned int j)\n"
	       "{\n\treturn %s;\n}\n\n"
	       "#define CC_KAT_NR %zu\n\n"
	       "static const struct cc_kat_case cc_kat[CC_KAT_NR] = {\n",
	       STR(KAT_PT_BYTE(i, j)), sizeof(cases) / sizeof(cases[0]));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t key[36], iv[8], ad[12], tag[16];

		if (cases[i].len > MAX_LEN || cases[i].adlen > sizeof(ad))
			return 1;
		for (j = 0; j < sizeof(key); j++)
			key[j] = rnd();
		for (j = 0; j < sizeof(iv); j++)
			iv[j] = rnd();
		for (j = 0; j < sizeof(ad); j++)
			ad[j] = j < cases[i].adlen ? rnd() : 0;
		for (j = 0; j < cases[i].len; j++)
			pt[j] = (uint8_t)(KAT_PT_BYTE(i, j));
		if (!seal(key, iv, ad, cases[i].adlen, pt, cases[i].len, ct,
			  tag)) {
			fprintf(stderr, "chacha_kat_gen: OpenSSL failed\n");
			return 1;
		}
		printf("\t{\n\t\t.len = %u,\n\t\t.adlen = %u,\n",
		       cases[i].len, cases[i].adlen);
		hexline("key", key, sizeof(key));
		hexline("iv", iv, sizeof(iv));
		hexline("ad", ad, sizeof(ad));
		hexline("tag", tag, sizeof(tag));
		printf("\t},\n");
	}
	printf("};\n\n#endif /* _ESP_CHACHA_KAT_H */\n");
	return 0;
}
