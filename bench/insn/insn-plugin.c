// SPDX-License-Identifier: GPL-2.0
/*
 * insn-plugin: counts the guest instructions each vCPU retires, kernel and
 * user apart, and the rep-prefixed string instructions among them, for
 * qemu-system-x86_64 (TCG plugin API version 1, QEMU 7.2).
 *
 *   qemu-system-x86_64 -plugin build/insn/insn-plugin.so,out=FILE[,profile=on] ...
 *
 * Why: TCG prices instructions unlike a real CPU, so emulated time says little
 * about what IPsec would cost on silicon; the instructions the guest retires
 * are the same as on a real CPU. Rep-string instructions are the exception:
 * TCG runs one element per execution (a 1448-byte `rep movsb` is 1448
 * executions, which a real CPU with fast strings moves in tens of cycles), so
 * they are counted apart, with the bytes they move, for the host to price.
 *
 * How: every translation block gets an execution callback that adds the
 * block's instruction count to its vCPU's counters. A rep-string instruction
 * ends its block. TCG runs it one element per execution and jumps back to it,
 * as a block of that one instruction, until the count is 0, which takes one
 * more execution: an instruction started once that moves N elements runs
 * N + 1 times (once for N = 0): the last execution moves nothing. It has
 * finished when its vCPU next runs the block right behind it, in the same
 * mode (an interrupt in between resumes it). Each mode keeps its own
 * unfinished one, so a user copy interrupted by the kernel's own copies is
 * still seen to finish; a kernel copy interrupted by another kernel copy is
 * counted as started twice (the bytes stay exact).
 *
 * Spin-waits: TCG ends a block at `pause` (what cpu_relax() executes in
 * every spin-wait loop), so a loop is the pause block and one or two blocks
 * around it that test and jump back. A vCPU is in a spin-wait from a pause
 * block on, for as long as the blocks it runs lie within SPIN_NEAR bytes of
 * that pause; their instructions are counted again as spin-wait
 * instructions (the test before the first pause is work; the few blocks
 * after the wait ends, near the loop, are counted as spin). They are part of
 * every total; the host takes them out of the work, because how long a vCPU
 * spins follows the host's scheduling of the lock holder's vCPU thread, not
 * the code: a spin-wait at 2 vCPUs on a shared host is a different number at
 * every run.
 *
 * Markers: the guest brackets a measurement with `insn-mark N` (insn-mark.c),
 * which executes `nopl 0x4553NNNN(%rax)`, a no-op nothing else executes. At
 * each one the plugin appends to FILE one line per vCPU:
 *   snap N MARKER_VCPU VCPU INSN_KERNEL INSN_USER REPX_KERNEL REPX_USER
 *        REPS_KERNEL REPS_USER REPB_KERNEL REPB_USER SPIN_KERNEL SPIN_USER
 * (cumulative counts: instructions, rep-string executions and starts, the
 * bytes their elements moved, the spin-wait instructions among them).
 * With profile=on, a marker whose N has bit 15 set also writes every kernel
 * block executed so far: "tb N VADDR INSNS REPX REPS REPB SPIN" (cumulative,
 * merged by address: instructions, of its rep-string instruction the
 * executions, starts and bytes, and its instructions counted as
 * spin-wait), for a per-function profile against the guest's /proc/kallsyms.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_MAGIC	0x4553u		/* "ES": high half of the displacement */
#define MARK_DUMP	0x8000u		/* N with this bit: dump the blocks too */
#define KERNEL_BASE	0xffff800000000000ull
#define SPIN_NEAR	128		/* a spin loop's blocks: this close to its pause */

struct vcpu_ctr {
	uint64_t insns[2];	/* [0] user, [1] kernel */
	uint64_t rep_execs[2];	/* executions of rep-string instructions */
	uint64_t rep_starts[2];	/* ...of which starts */
	uint64_t rep_bytes[2];	/* bytes their elements moved */
	uint64_t spin[2];	/* instructions of spin-wait blocks */
	uint64_t spin_pc[2];	/* in a spin-wait: its pause's block, else 0 */
	uint64_t rep_pc[2];	/* unfinished rep-string instruction, or 0 */
	uint64_t rep_next[2];	/* ...the address right behind it */
	unsigned int rep_size[2];	/* ...its element size */
	struct tb_info *rep_tb[2];	/* ...the block it last ran in (profile=on) */
} __attribute__((aligned(64)));

struct tb_prof {		/* per vCPU, with profile=on */
	uint64_t execs;
	uint64_t rep_starts;
	int64_t rep_bytes;	/* a block's last execution is taken off another's */
	uint64_t spin_execs;	/* executions counted as spin-wait */
};

struct tb_info {
	uint64_t vaddr;
	uint64_t rep_pc;	/* its rep-string instruction (the last), or 0 */
	uint64_t rep_next;	/* ...the address right behind it */
	uint32_t insns;
	uint8_t rep_size;	/* ...its element size */
	uint8_t kernel;
	uint8_t pause;		/* has a `pause`: a spin-wait loop's body */
	struct tb_prof prof[];	/* per vCPU, with profile=on */
};

static struct vcpu_ctr *ctrs;
static int nr_vcpus;
static bool profile;
static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct tb_info **tbs;	/* every kernel block, with profile=on */
static size_t nr_tbs, tbs_cap;

static inline void count_tb(unsigned int vcpu, struct tb_info *t, bool prof)
{
	struct vcpu_ctr *c = &ctrs[vcpu];
	unsigned int k = t->kernel;

	c->insns[k] += t->insns;
	if (prof)
		t->prof[vcpu].execs++;
	if (t->pause)
		c->spin_pc[k] = t->vaddr;
	else if (c->spin_pc[k] && t->vaddr - c->spin_pc[k] + SPIN_NEAR >= 2 * SPIN_NEAR)
		c->spin_pc[k] = 0;
	if (c->spin_pc[k]) {
		c->spin[k] += t->insns;
		if (prof)
			t->prof[vcpu].spin_execs++;
	}
	if (c->rep_pc[k] && t->vaddr == c->rep_next[k]) {
		/* the unfinished one ran out: its last execution moved nothing */
		c->rep_bytes[k] -= c->rep_size[k];
		if (prof && c->rep_tb[k])
			c->rep_tb[k]->prof[vcpu].rep_bytes -= c->rep_size[k];
		c->rep_pc[k] = 0;
	}
	if (t->rep_size) {
		c->rep_execs[k]++;
		c->rep_bytes[k] += t->rep_size;
		if (prof) {
			t->prof[vcpu].rep_bytes += t->rep_size;
			c->rep_tb[k] = t;
		}
		if (c->rep_pc[k] != t->rep_pc) {
			c->rep_starts[k]++;
			if (prof)
				t->prof[vcpu].rep_starts++;
			c->rep_pc[k] = t->rep_pc;
			c->rep_next[k] = t->rep_next;
			c->rep_size[k] = t->rep_size;
		}
	}
}

static void tb_exec(unsigned int vcpu, void *udata)
{
	count_tb(vcpu, udata, false);
}

/* only kernel blocks are profiled; user ones may feed rep_tb[0]: not used */
static void tb_exec_profiled(unsigned int vcpu, void *udata)
{
	count_tb(vcpu, udata, true);
}

/*
 * The element size of a rep-prefixed string instruction (movs, stos, lods,
 * cmps, scas, ins, outs), or 0 for any other instruction.
 */
static unsigned int rep_string_size(const uint8_t *p, size_t len)
{
	bool rep = false, opsize = false, rexw = false;
	size_t i = 0;

	for (; i < len; i++) {
		switch (p[i]) {
		case 0xf2: case 0xf3:
			rep = true;
			continue;
		case 0x66:
			opsize = true;
			continue;
		case 0xf0: case 0x2e: case 0x36: case 0x3e: case 0x26:
		case 0x64: case 0x65: case 0x67:
			continue;
		}
		break;
	}
	if (i < len && (p[i] & 0xf0) == 0x40) {
		rexw = p[i] & 0x08;
		i++;
	}
	if (!rep || i >= len)
		return 0;
	if (!((p[i] >= 0xa4 && p[i] <= 0xa7) || (p[i] >= 0xaa && p[i] <= 0xaf) ||
	      (p[i] >= 0x6c && p[i] <= 0x6f)))
		return 0;
	if (!(p[i] & 1))
		return 1;
	return rexw ? 8 : opsize ? 2 : 4;
}

/* `pause` (f3 90) */
static bool is_pause(const struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);

	return qemu_plugin_insn_size(insn) == 2 && p[0] == 0xf3 && p[1] == 0x90;
}

/* The marker's N if @insn is `nopl 0x4553NNNN(%rax)` (0f 1f 80 disp32), else -1. */
static int marker_tag(const struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);

	if (qemu_plugin_insn_size(insn) != 7 || p[0] != 0x0f || p[1] != 0x1f ||
	    p[2] != 0x80 || (p[5] | p[6] << 8) != MARK_MAGIC)
		return -1;
	return p[3] | p[4] << 8;
}

static int tb_cmp(const void *a, const void *b)
{
	const struct tb_info *x = *(struct tb_info * const *)a;
	const struct tb_info *y = *(struct tb_info * const *)b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* Every kernel block executed so far, merged by address; lock held. */
static void dump_tbs(unsigned int tag)
{
	size_t i = 0;

	qsort(tbs, nr_tbs, sizeof(*tbs), tb_cmp);
	while (i < nr_tbs) {
		uint64_t vaddr = tbs[i]->vaddr, insns = 0, repx = 0, reps = 0;
		uint64_t spin = 0;
		int64_t repb = 0;

		for (; i < nr_tbs && tbs[i]->vaddr == vaddr; i++) {
			const struct tb_info *t = tbs[i];
			int v;

			for (v = 0; v < nr_vcpus; v++) {
				insns += t->prof[v].execs * t->insns;
				if (t->rep_size)
					repx += t->prof[v].execs;
				reps += t->prof[v].rep_starts;
				repb += t->prof[v].rep_bytes;
				spin += t->prof[v].spin_execs * t->insns;
			}
		}
		if (insns)
			fprintf(out, "tb %u %" PRIx64 " %" PRIu64 " %" PRIu64
				" %" PRIu64 " %" PRId64 " %" PRIu64 "\n", tag, vaddr,
				insns, repx, reps, repb, spin);
	}
}

static void marker_exec(unsigned int vcpu, void *udata)
{
	unsigned int tag = (uintptr_t)udata;
	int v;

	pthread_mutex_lock(&lock);
	for (v = 0; v < nr_vcpus; v++) {
		const struct vcpu_ctr *c = &ctrs[v];

		fprintf(out, "snap %u %u %d %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 "\n", tag, vcpu, v, c->insns[1],
			c->insns[0], c->rep_execs[1], c->rep_execs[0],
			c->rep_starts[1], c->rep_starts[0], c->rep_bytes[1],
			c->rep_bytes[0], c->spin[1], c->spin[0]);
	}
	if (profile && (tag & MARK_DUMP))
		dump_tbs(tag);
	fflush(out);
	pthread_mutex_unlock(&lock);
}

static void remember_tb(struct tb_info *t)
{
	pthread_mutex_lock(&lock);
	if (nr_tbs == tbs_cap) {
		tbs_cap = tbs_cap ? 2 * tbs_cap : 65536;
		tbs = realloc(tbs, tbs_cap * sizeof(*tbs));
		if (!tbs) {
			fprintf(stderr, "insn-plugin: out of memory\n");
			abort();
		}
	}
	tbs[nr_tbs++] = t;
	pthread_mutex_unlock(&lock);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	bool prof = profile;
	struct tb_info *t;

	t = calloc(1, sizeof(*t) + (prof ? nr_vcpus * sizeof(struct tb_prof) : 0));
	if (!t) {
		fprintf(stderr, "insn-plugin: out of memory\n");
		abort();
	}
	t->vaddr = qemu_plugin_tb_vaddr(tb);
	t->insns = n;
	t->kernel = t->vaddr >= KERNEL_BASE;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		unsigned int sz = rep_string_size(qemu_plugin_insn_data(insn),
						  qemu_plugin_insn_size(insn));
		int tag = marker_tag(insn);

		/* a rep-string insn ends its block: it is the last one */
		if (sz) {
			t->rep_size = sz;
			t->rep_pc = qemu_plugin_insn_vaddr(insn);
			t->rep_next = t->rep_pc + qemu_plugin_insn_size(insn);
		}
		if (is_pause(insn))
			t->pause = 1;
		if (tag >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_exec,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)tag);
	}
	prof = prof && t->kernel;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, prof ? tb_exec_profiled : tb_exec,
					     QEMU_PLUGIN_CB_NO_REGS, t);
	/* blocks are never freed: QEMU may run a block after a flush began */
	if (prof)
		remember_tb(t);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	pthread_mutex_lock(&lock);
	fflush(out);
	pthread_mutex_unlock(&lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strcmp(argv[i], "profile=on"))
			profile = true;
		else if (strcmp(argv[i], "profile=off")) {
			fprintf(stderr, "insn-plugin: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "insn-plugin: out=FILE is required\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	nr_vcpus = qemu_plugin_n_max_vcpus();
	if (nr_vcpus < 1)
		nr_vcpus = 1;
	ctrs = aligned_alloc(64, nr_vcpus * sizeof(*ctrs));
	if (!ctrs)
		return -1;
	memset(ctrs, 0, nr_vcpus * sizeof(*ctrs));
	fprintf(out, "start vcpus %d profile %d\n", nr_vcpus, profile);
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
