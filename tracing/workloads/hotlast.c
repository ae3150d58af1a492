// SPDX-License-Identifier: GPL-2.0
/*
 * hotlast: a working set whose hot part is allocated last.
 *
 *   hotlast [--lazyfree] COLD_MIB HOT_MIB SECONDS [UNTIL_PCT]
 *
 * Faults in COLD_MIB of anonymous 4K pages (no THP) and leaves them
 * alone, then HOT_MIB that it keeps touching for SECONDS.  With
 * --lazyfree it gives the hot part back with MADV_FREE right after
 * faulting it in, as malloc implementations do, and goes on reading it:
 * the pages stay in place, lazily freed, until reclaim takes them.  A cgroup whose
 * fast-tier share fills with the cold part gets the start of the hot part
 * on the fast tier and the rest steered to a slow one: placement serves
 * the workload only if the hot part moves up.  Every second it asks
 * move_pages(2) where the hot pages are and prints
 *
 *   t=SECONDS hot_fast=PERCENT fast=PAGES hot=PAGES
 *
 * (fast: hot pages on node 0).  With UNTIL_PCT it stops as soon as
 * PERCENT reaches it.  Exits 0 at the end, 1 on error.
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

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "hotlast: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static char *map(long len, long page)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long off;

	if (p == MAP_FAILED) {
		perror("hotlast: mmap");
		exit(1);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (off = 0; off < len; off += page)
		p[off] = 1;
	return p;
}

/* Pages of [p, p + len) on node 0, by move_pages(2) without nodes */
static long on_node0(char *p, long len, long page, void **pages, int *status)
{
	long n = len / page, i, fast = 0;

	for (i = 0; i < n; i++)
		pages[i] = p + i * page;
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0)) {
		perror("hotlast: move_pages");
		exit(1);
	}
	for (i = 0; i < n; i++)
		fast += status[i] == 0;
	return fast;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), cold, hot, seconds, until = -1;
	long n, off, fast;
	time_t start, next, now;
	void **pages;
	int *status, lazyfree = 0;
	volatile char *h;	/* the reads of --lazyfree must happen */

	if (argc > 1 && !strcmp(argv[1], "--lazyfree")) {
		lazyfree = 1;
		argv++;
		argc--;
	}
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: hotlast [--lazyfree] COLD_MIB HOT_MIB SECONDS [UNTIL_PCT]\n");
		return 2;
	}
	cold = number(argv[1]) << 20;
	hot = number(argv[2]) << 20;
	seconds = number(argv[3]);
	if (argc == 5)
		until = number(argv[4]);
	if (cold)
		map(cold, page);
	h = map(hot, page);
	if (lazyfree && madvise((char *)h, hot, MADV_FREE)) {
		perror("hotlast: madvise(MADV_FREE)");
		return 1;
	}
	n = hot / page;
	pages = calloc(n, sizeof(*pages));
	status = calloc(n, sizeof(*status));
	if (!pages || !status) {
		perror("hotlast: calloc");
		return 1;
	}

	start = time(NULL);
	next = start;
	for (;;) {
		now = time(NULL);
		if (now >= next) {
			fast = on_node0((char *)h, hot, page, pages, status);
			printf("t=%ld hot_fast=%.1f fast=%ld hot=%ld\n",
			       (long)(now - start), 100.0 * fast / n, fast, n);
			fflush(stdout);
			if ((until >= 0 && fast * 100 >= until * n) ||
			    now - start >= seconds)
				return 0;
			next = now + 1;
		}
		for (off = 0; off < hot; off += page) {
			if (lazyfree)
				(void)h[off];
			else
				h[off]++;
		}
	}
}
