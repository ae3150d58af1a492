// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: migrate a working set between node 0 and node 1 until told
 * to stop, with both system calls that move pages on request.
 *
 *   pingpong SIZE_MIB SECONDS
 *
 * Faults in SIZE_MIB of anonymous memory (THP as the system is set),
 * then in turns: move_pages(2) of every page to node 1 and back to node
 * 0, then mbind(2) with MPOL_MF_MOVE to node 1 and back, each call
 * followed by a query of where the pages are.
 * Node 1 may lose its memory at any time (the stress test hot-removes
 * it): a call that fails is counted, not fatal.  At the end prints
 *
 *   move_pages=CALLS mbind=CALLS to_fast=PAGES to_slow=PAGES failed=CALLS
 *
 * (PAGES: pages found on the other node after a call than before it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MPOL_BIND 2
#define MPOL_DEFAULT 0
#define MPOL_MF_MOVE (1 << 1)

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "pingpong: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void **pages;
static int *nodes, *status;
static long npages;

/* Pages on @node now, from a query of every page */
static long on_node(int node)
{
	long i, n = 0;

	if (syscall(SYS_move_pages, 0, npages, pages, NULL, status, 0))
		return -1;
	for (i = 0; i < npages; i++)
		n += status[i] == node;
	return n;
}

static int by_move_pages(int node)
{
	long i;

	for (i = 0; i < npages; i++)
		nodes[i] = node;
	/* > 0: pages left where they were, which a full tier may cause */
	return syscall(SYS_move_pages, 0, npages, pages, nodes, status,
		       MPOL_MF_MOVE) < 0 ? -1 : 0;
}

static int by_mbind(char *p, long size, int node)
{
	unsigned long mask = 1UL << node;
	int ret;

	ret = syscall(SYS_mbind, p, size, MPOL_BIND, &mask, 8 * sizeof(mask),
		      MPOL_MF_MOVE);
	/* Later faults may go anywhere again */
	syscall(SYS_mbind, p, size, MPOL_DEFAULT, NULL, 0, 0);
	return ret;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), size, i, calls_mp = 0, calls_mb = 0;
	long to_fast = 0, to_slow = 0, failed = 0, before, after;
	time_t end;
	int round;
	char *p;

	if (argc != 3) {
		fprintf(stderr, "usage: pingpong SIZE_MIB SECONDS\n");
		return 2;
	}
	size = number(argv[1]) << 20;
	end = time(NULL) + number(argv[2]);
	npages = size / page;
	pages = calloc(npages, sizeof(*pages));
	nodes = calloc(npages, sizeof(*nodes));
	status = calloc(npages, sizeof(*status));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pages || !nodes || !status || p == MAP_FAILED) {
		perror("pingpong: memory");
		return 1;
	}
	for (i = 0; i < npages; i++) {
		pages[i] = p + i * page;
		p[i * page] = 1;
	}

	for (round = 0; time(NULL) < end; round = (round + 1) % 4) {
		int to = round % 2 ? 0 : 1, ret;

		before = on_node(to);
		if (round < 2) {
			ret = by_move_pages(to);
			calls_mp++;
		} else {
			ret = by_mbind(p, size, to);
			calls_mb++;
		}
		after = on_node(to);
		if (ret || before < 0 || after < 0) {
			failed++;
			usleep(100000);
			continue;
		}
		if (after > before)
			*(to ? &to_slow : &to_fast) += after - before;
		/* Keep the pages in use between moves */
		for (i = 0; i < size; i += page)
			p[i]++;
	}
	printf("move_pages=%ld mbind=%ld to_fast=%ld to_slow=%ld failed=%ld\n",
	       calls_mp, calls_mb, to_fast, to_slow, failed);
	return 0;
}
