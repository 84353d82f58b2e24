// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark N: executes the marker `nopl 0x4553NNNN(%rax)` once, for
 * insn-plugin.c to snapshot its counters under tag N (0..65535; bit 15 also
 * dumps the kernel blocks with profile=on). N is encoded in the instruction
 * itself, so the marker is written into a fresh executable page at run time
 * (QEMU translates it there like any code) and called.
 * Without the plugin it is a no-op on any x86-64 CPU.
 *
 * insn-mark N NETNS PORT: first reads the payload bytes received so far by the
 * established TCP sockets on local port PORT in network namespace NETNS
 * (sock_diag, tcp_info.tcpi_bytes_received), then marks, then prints the
 * bytes. Two such calls bracket a window of a running transfer, so the
 * instructions between the markers and the bytes between the readings cover
 * the same stretch of time (each reading leads its marker by the same few
 * microseconds), and neither start-up nor teardown of the transfer is in it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

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
/* Sum of tcpi_bytes_received over family's established TCP sockets on port. */
static int tcp_rx_bytes(int nl, int family, uint16_t port, uint64_t *sum)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} q = {
		.nlh.nlmsg_len = sizeof(q),
		.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY,
		.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.req.sdiag_family = family,
		.req.sdiag_protocol = IPPROTO_TCP,
		.req.idiag_states = 1 << 1,	/* TCP_ESTABLISHED */
		.req.idiag_ext = 1 << (INET_DIAG_INFO - 1),
	};
	static char buf[1 << 16];

	if (send(nl, &q, sizeof(q), 0) != sizeof(q))
		return -1;
	for (;;) {
		ssize_t n = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n <= 0)
			return -1;
		for (; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct inet_diag_msg *m = NLMSG_DATA(h);
			struct rtattr *a;
			int len;

			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			if (ntohs(m->id.idiag_sport) != port)
				continue;
			len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
			for (a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
				struct tcp_info ti = { 0 };
				size_t l = RTA_PAYLOAD(a);

				if (a->rta_type != INET_DIAG_INFO)
					continue;
				memcpy(&ti, RTA_DATA(a), l < sizeof(ti) ? l : sizeof(ti));
				*sum += ti.tcpi_bytes_received;
			}
		}
	}
}

/* @s as a number no larger than @max, or -1 */
static long parse_num(const char *s, unsigned long max)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	return (*s && !*end && v <= max) ? (long)v : -1;
}

int main(int argc, char **argv)
{
	long tag = argc > 1 ? parse_num(argv[1], 0xffff) : -1;
	long port = argc == 4 ? parse_num(argv[3], 0xffff) : 0;
	uint64_t bytes = 0;
	char path[256];
	int fd, nl;

	if ((argc != 2 && argc != 4) || tag < 0 || port < 0) {
		fprintf(stderr, "usage: insn-mark N [NETNS PORT]  (N: 0..65535)\n");
		return 2;
	}
	if (argc == 2) {
		insn_mark(tag);
		return 0;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", argv[2]);
	fd = open(path, O_RDONLY);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		perror(path);
		return 1;
	}
	nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl < 0 || tcp_rx_bytes(nl, AF_INET, port, &bytes) ||
	    tcp_rx_bytes(nl, AF_INET6, port, &bytes)) {
		perror("insn-mark: sock_diag");
		return 1;
	}
	insn_mark(tag);
	printf("%llu\n", (unsigned long long)bytes);
	return 0;
}
#endif
