/* SPDX-License-Identifier: GPL-2.0 */
/*
 * chacha_simd: ChaCha20-Poly1305 for ESP (rfc7539esp) with SIMD ChaCha20
 * and Poly1305 fused in one pass, registered with the crypto API as
 * "rfc7539esp(chacha20,poly1305)" (driver ESP_CHACHA_DRIVER) above the
 * stock template, plus a batch entry point for GSO/GRO.
 */
#ifndef _ESP_CHACHA_SIMD_H
#define _ESP_CHACHA_SIMD_H

#include <linux/types.h>

struct crypto_aead;
struct aead_request;

#define ESP_CHACHA_DRIVER "rfc7539esp-chacha20poly1305-espsw"

/*
 * Module init/exit hooks: register/unregister the AEAD, after a
 * known-answer test at the level chosen by CPU features.
 */
int esp_chacha_init(void);
void esp_chacha_exit(void);

/* True if @tfm is an instance of this module's AEAD. */
bool esp_chacha_is_ours(struct crypto_aead *tfm);

/*
 * esp_chacha_batch - encrypt or decrypt @n requests in one FPU section
 * @tfm:  the AEAD every request was set up with (esp_chacha_is_ours(tfm))
 * @reqs: the requests, fully set up (aead_request_set_crypt/_ad); their
 *        completion callbacks are NOT called: the work is done
 *        synchronously, exactly as if crypto_aead_encrypt()/decrypt()
 *        had returned the same status for each of them.
 * @n:    number of requests
 * @enc:  true to encrypt, false to decrypt
 * @errs: optional (may be NULL); errs[i] receives the status of reqs[i]:
 *        0, -EBADMSG (tag mismatch on decrypt), -EINVAL (bad lengths)
 *        or -ENOKEY (no key set, or the last setkey failed).
 *
 * Context: any context that may call crypto_aead_encrypt() synchronously
 * (process or softirq). Uses SIMD when crypto_simd_usable(), the portable
 * C code otherwise.
 * Return: 0 if every request succeeded, else the first non-zero status.
 */
int esp_chacha_batch(struct crypto_aead *tfm, struct aead_request **reqs,
		     unsigned int n, bool enc, int *errs);

/* For the self-test (chacha_test.c) */
const char *esp_chacha_level_name(void);
unsigned long esp_chacha_fpu_sections(void);
void esp_chacha_xor_raw(u32 *state, u8 *dst, const u8 *src,
			unsigned int nblocks);
/* chacha_test.c: @iters random cases at the active level @level */
int esp_chacha_selftest(const char *level, unsigned int iters);

#endif /* _ESP_CHACHA_SIMD_H */
