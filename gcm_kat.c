// SPDX-License-Identifier: GPL-2.0
/*
 * The known-answer test of one AES-GCM level (gcm_core.h): gcm_simd.c
 * runs it on a level before it uses it, bench/native/gcm_native.c on every
 * level the host has. The cases are gcm_kat_long.h's, whose tags come from
 * OpenSSL; their lengths take every level through its bulk steps and their
 * tails, so that a CPU (or emulator) that computes a wide instruction
 * wrongly is caught before the level carries traffic.
 */
#include <linux/types.h>
#include <linux/string.h>

#include "gcm_core.h"
#include "gcm_kat_long.h"

unsigned int gcm_kat_cases(void)
{
	return GCM_KAT_NR;
}

/*
 * Case @i at level @l: encrypt the case's plain text in one call and
 * compare the tag (it covers the cipher text: a wrong key stream byte gives
 * another tag), then decrypt the result in two calls split inside a block
 * and compare tag and plain text. Returns true if all matched. @wrong:
 * expect a tag with one bit flipped instead (to test the callers' failure
 * path). SIMD: the caller holds an FPU section (at most 2 * GCM_KAT_MAX_LEN
 * bytes of text go through it).
 */
bool gcm_known_answer(const struct gcm_impl *l, unsigned int i,
		      struct gcm_kat_work *w, bool wrong)
{
	const struct gcm_kat_case *c = &gcm_kat_long[i];
	unsigned int j, cut = c->len / 3 | 1;
	u8 want[GCM_TAG];
	bool ok;

	if (cut > c->len)
		cut = c->len;
	memcpy(want, c->tag, GCM_TAG);
	want[i % GCM_TAG] ^= wrong;
	for (j = 0; j < c->len; j++)
		w->text[j] = gcm_kat_pt_byte(i, j);
	if (!l->setkey(&w->key, c->key, c->keylen))
		return false;
	l->start(&w->key, &w->st, c->nonce, c->ad, c->adlen);
	l->enc(&w->key, &w->st, w->text, w->text, c->len);
	l->finish(&w->key, &w->st, w->tag);
	ok = !memcmp(w->tag, want, GCM_TAG);

	l->start(&w->key, &w->st, c->nonce, c->ad, c->adlen);
	l->dec(&w->key, &w->st, w->text, w->text, cut);
	l->dec(&w->key, &w->st, w->text + cut, w->text + cut, c->len - cut);
	l->finish(&w->key, &w->st, w->tag);
	ok &= !memcmp(w->tag, want, GCM_TAG);
	for (j = 0; j < c->len; j++)
		ok &= w->text[j] == gcm_kat_pt_byte(i, j);
	return ok;
}
