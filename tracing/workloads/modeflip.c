// SPDX-License-Identifier: GPL-2.0
/*
 * modeflip: pages stamped with access times in NUMA balancing's tiering
 * mode, moved to the top tier in its normal mode and faulted on there.
 *
 *   modeflip MIB SLOW_NODE FAST_NODE SECONDS
 *
 * Writes 2 to /proc/sys/kernel/numa_balancing, faults in MIB of shared
 * anonymous 4K pages and moves them to SLOW_NODE (below the top tier)
 * with move_pages(2), then runs on the CPU for SECONDS without touching
 * them: in tiering mode NUMA balancing's first scan of the range keeps
 * each slow page's scan time where a page of the top tier keeps the last
 * CPU and PID that touched it.  Then it writes 1 (normal mode), moves the
 * pages to FAST_NODE and forks a child that writes them over and over for
 * SECONDS: the child's own first scan makes them fault, and each hint
 * fault reads that field as a CPU and PID.  Prints
 *
 *   slow=PAGES fast=PAGES passes=N
 *
 * (the pages move_pages put on each node, the child's passes) and exits
 * 0; 1 on error, 2 on wrong usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MPOL_MF_MOVE	(1 << 1)

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "modeflip: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int set_mode(const char *mode)
{
	FILE *f = fopen("/proc/sys/kernel/numa_balancing", "w");

	if (!f || fputs(mode, f) == EOF || fclose(f) == EOF) {
		perror("modeflip: /proc/sys/kernel/numa_balancing");
		return -1;
	}
	return 0;
}

/* move_pages() every page to @node: how many are there after it */
static long move_to(void **pages, int *nodes, int *status, long npages,
		    int node)
{
	long i, there = 0;

	for (i = 0; i < npages; i++)
		nodes[i] = node;
	if (syscall(SYS_move_pages, 0, npages, pages, nodes, status,
		    MPOL_MF_MOVE) < 0) {
		perror("modeflip: move_pages");
		exit(1);
	}
	for (i = 0; i < npages; i++)
		there += status[i] == node;
	return there;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Write every page of [@first, @last) until @seconds have passed */
static long touch(char *p, long page, long first, long last, double seconds)
{
	double end = now() + seconds;
	long i, passes;

	for (passes = 0; now() < end; passes++)
		for (i = first; i < last; i++)
			p[i * page]++;
	return passes;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), npages, i, slow, fast;
	int *nodes, *status, wstatus, fds[2];
	long passes = -1;
	double seconds;
	void **pages;
	pid_t child;
	char *p;

	if (argc != 5) {
		fprintf(stderr, "usage: modeflip MIB SLOW_NODE FAST_NODE SECONDS\n");
		return 2;
	}
	npages = (number(argv[1]) << 20) / page;
	seconds = number(argv[4]);
	/* Shared: the child maps the same pages with its own, unscanned mm */
	p = mmap(NULL, npages * page, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pages = calloc(npages, sizeof(*pages));
	nodes = calloc(npages, sizeof(*nodes));
	status = calloc(npages, sizeof(*status));
	if (p == MAP_FAILED || !pages || !nodes || !status || pipe(fds)) {
		perror("modeflip: memory");
		return 1;
	}
	if (set_mode("2"))
		return 1;
	for (i = 0; i < npages; i++) {
		p[i * page] = 1;
		pages[i] = p + i * page;
	}
	slow = move_to(pages, nodes, status, npages, number(argv[2]));
	touch(p, page, 0, 0, seconds);

	if (set_mode("1"))
		return 1;
	fast = move_to(pages, nodes, status, npages, number(argv[3]));
	child = fork();
	if (child < 0) {
		perror("modeflip: fork");
		return 1;
	}
	if (!child) {
		passes = touch(p, page, 0, npages, seconds);
		return write(fds[1], &passes, sizeof(passes)) != sizeof(passes);
	}
	if (waitpid(child, &wstatus, 0) < 0 || !WIFEXITED(wstatus) ||
	    WEXITSTATUS(wstatus) ||
	    read(fds[0], &passes, sizeof(passes)) != sizeof(passes)) {
		fprintf(stderr, "modeflip: the child failed\n");
		return 1;
	}
	printf("slow=%ld fast=%ld passes=%ld\n", slow, fast, passes);
	return 0;
}
