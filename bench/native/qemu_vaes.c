// SPDX-License-Identifier: GPL-2.0
/*
 * Does this CPU (or emulator) execute 256-bit VAESENC as two AESENCs, one
 * per 128-bit lane? Exit 0: yes; 1: no, the lanes printed; 2: no VAES.
 * qemu 7.2 (qemu-x86_64 -cpu max, and the test VM's TCG) says no: its
 * upper lane is the AESENC of the lower lane's state with the upper key.
 */
#include <stdio.h>
#include <string.h>

typedef char v32 __attribute__((vector_size(32)));
typedef long long v2 __attribute__((vector_size(16)));

__attribute__((target("avx2,vaes,aes"))) static int check(void)
{
	unsigned char s[32], k[32], got[32], want[32];
	v2 s0, s1, k0, k1, r;
	v32 sy, ky, ry;
	int i;

	for (i = 0; i < 32; i++) {
		s[i] = i * 7 + 1;
		k[i] = i * 13 + 5;
	}
	memcpy(&sy, s, 32);
	memcpy(&ky, k, 32);
	ry = __builtin_ia32_vaesenc_v32qi(sy, ky);
	memcpy(got, &ry, 32);
	memcpy(&s0, s, 16);
	memcpy(&s1, s + 16, 16);
	memcpy(&k0, k, 16);
	memcpy(&k1, k + 16, 16);
	r = __builtin_ia32_aesenc128(s0, k0);
	memcpy(want, &r, 16);
	r = __builtin_ia32_aesenc128(s1, k1);
	memcpy(want + 16, &r, 16);
	if (!memcmp(got, want, 32))
		return 0;
	for (i = 0; i < 2; i++)
		printf("VAESENC lane %d: %s\n", i,
		       memcmp(got + 16 * i, want + 16 * i, 16) ? "WRONG" : "right");
	return 1;
}

int main(void)
{
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("vaes") || !__builtin_cpu_supports("avx2"))
		return 2;
	return check();
}
