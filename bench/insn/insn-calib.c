// SPDX-License-Identifier: GPL-2.0
/*
 * insn-calib TAG: known work between markers, to check insn-plugin.c's counts
 * (make check). Pinned to one CPU, with every page touched beforehand so no
 * fault interrupts a counted stretch:
 *   markers TAG, TAG+1: a loop of exactly LOOP_INSNS user instructions;
 *   markers TAG+2, TAG+3: one `rep movsb` of COPY_BYTES bytes;
 *   markers TAG+5, TAG+6: a spin-wait loop (pause, dec, jnz) of SPIN_ITERS
 *   iterations, all of it to be counted as spin-wait.
 * Prints what the host is to expect between the markers, less the few
 * instructions of insn_mark() itself on either side (the host allows for
 * those).
 */
#define _GNU_SOURCE
#define INSN_MARK_NO_MAIN
#include "insn-mark.c"

#include <sched.h>

#define LOOP_ITERS	100000000ul	/* 2 instructions each: dec, jnz */
#define COPY_BYTES	(64ul << 20)
#define SPIN_ITERS	1000000ul	/* 3 instructions each: pause, dec, jnz */

int main(int argc, char **argv)
{
	unsigned long n = LOOP_ITERS, len = COPY_BYTES, spins = SPIN_ITERS;
	unsigned int tag;
	cpu_set_t set;
	uint8_t *src, *dst;
	void *s, *d;

	if (argc != 2) {
		fprintf(stderr, "usage: insn-calib TAG\n");
		return 2;
	}
	tag = strtoul(argv[1], NULL, 0);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("insn-calib: sched_setaffinity");
	src = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	dst = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (src == MAP_FAILED || dst == MAP_FAILED) {
		perror("insn-calib: mmap");
		return 1;
	}
	memset(src, 0x5a, len);
	memset(dst, 0, len);
	/* the marker's code page and the loop's too, once, uncounted */
	insn_mark(tag + 4);

	insn_mark(tag);
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
	insn_mark(tag + 1);

	s = src;
	d = dst;
	insn_mark(tag + 2);
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(len) : : "memory");
	insn_mark(tag + 3);

	insn_mark(tag + 5);
	__asm__ volatile("1: pause\n\tdec %0\n\tjnz 1b" : "+r"(spins) : : "cc");
	insn_mark(tag + 6);

	printf("loop_insns %lu\ncopy_bytes %lu\nspin_insns %lu\nvcpu 0\n",
	       2 * LOOP_ITERS, COPY_BYTES, 3 * SPIN_ITERS);
	return dst[12345] == 0x5a ? 0 : 1;
}
