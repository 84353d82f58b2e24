/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gcm_simd: the module's rfc4106(gcm(aes)) (driver ESP_GCM_DRIVER), AES-NI
 * and PCLMULQDQ or VAES and VPCLMULQDQ, at the best level this CPU has
 * whose known answers pass (gcm_core.h), registered above every stock
 * implementation, plus a batch entry point for GSO/GRO.
 * Where SIMD cannot be used (crypto_simd_usable() false), and for AES-192,
 * requests go to the stock rfc4106(gcm(aes)) through a fallback tfm.
 */
#ifndef _ESP_GCM_SIMD_H
#define _ESP_GCM_SIMD_H

#include <linux/types.h>

struct crypto_aead;
struct aead_request;

#define ESP_GCM_DRIVER "rfc4106-gcm-aes-espsw"

/* Module init/exit hooks: register/unregister the AEAD. */
int esp_gcm_init(void);
void esp_gcm_exit(void);

/* True if esp_gcm_init() registered the AEAD (the CPU has what it needs). */
bool esp_gcm_registered(void);

/* True if @tfm is an instance of this module's AEAD. */
bool esp_gcm_is_ours(struct crypto_aead *tfm);

/*
 * True if esp_gcm_batch() can do @tfm's requests here and now: SIMD is
 * usable in this context and the key is one the SIMD code takes (AES-128
 * or AES-256). False: the requests must go through crypto_aead_encrypt()
 * and crypto_aead_decrypt(), which may complete them asynchronously.
 */
bool esp_gcm_batch_ready(struct crypto_aead *tfm);

/*
 * esp_gcm_batch - encrypt or decrypt @n requests in one FPU section
 * @tfm:  the AEAD every request was set up with (esp_gcm_is_ours(tfm))
 * @reqs: the requests, fully set up (aead_request_set_crypt/_ad); their
 *        completion callbacks are NOT called: the work is done
 *        synchronously, exactly as if crypto_aead_encrypt()/decrypt()
 *        had returned the same status for each of them.
 * @n:    number of requests
 * @enc:  true to encrypt, false to decrypt
 * @errs: optional (may be NULL); errs[i] receives the status of reqs[i]:
 *        0, -EBADMSG (tag mismatch on decrypt), -EINVAL (bad lengths),
 *        -ENOKEY (no key set, or the last setkey failed) or -EAGAIN (not
 *        esp_gcm_batch_ready(): nothing was done).
 *
 * Context: any context that may call crypto_aead_encrypt() synchronously
 * (process or softirq). The section is ended and begun again every 4 KiB.
 * Return: 0 if every request succeeded, else the first non-zero status.
 */
int esp_gcm_batch(struct crypto_aead *tfm, struct aead_request **reqs,
		  unsigned int n, bool enc, int *errs);

#endif /* _ESP_GCM_SIMD_H */
