// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark N: executes the marker `nopl 0x4553NNNN(%rax)` once, for
 * insn-plugin.c to snapshot its counters under tag N (0..65535; bit 15 also
 * dumps the kernel blocks with profile=on). N is encoded in the instruction
 * itself, so the marker is written into a fresh executable page at run time
 * (QEMU translates it there like any code) and called.
 * Without the plugin it is a no-op on any x86-64 CPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void insn_mark(unsigned int tag)
{
	const uint8_t code[] = {
		0x0f, 0x1f, 0x80, tag & 0xff, (tag >> 8) & 0xff, 0x53, 0x45, /* nopl */
		0xc3,							     /* ret */
	};
	void (*fn)(void);
	void *page;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("insn-mark: mmap");
		exit(1);
	}
	memcpy(page, code, sizeof(code));
	fn = (void (*)(void))page;
	fn();
	munmap(page, 4096);
}

#ifndef INSN_MARK_NO_MAIN
int main(int argc, char **argv)
{
	char *end;
	unsigned long tag;

	if (argc != 2 || (tag = strtoul(argv[1], &end, 0), *end) || tag > 0xffff) {
		fprintf(stderr, "usage: insn-mark N (0..65535)\n");
		return 2;
	}
	insn_mark(tag);
	return 0;
}
#endif
