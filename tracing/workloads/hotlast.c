// SPDX-License-Identifier: GPL-2.0
/*
 * hotlast: a working set whose hot part is allocated last.
 *
 *   hotlast [--lazyfree] [-r RATIO] COLD_MIB HOT_MIB SECONDS [UNTIL_PCT]
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
 *   t=SECONDS hot_fast=PERCENT fast=PAGES hot=PAGES rate=TOUCHES speed=PCT
 *
 * (fast: hot pages on node 0; rate: hot pages touched in the last
 * second).  A touch of a page on a slower tier costs RATIO times one on
 * the top tier (slowtier.h; the default models CXL, 1.0 turns the model
 * off), and speed is the CPU time of the last second's touches as a share
 * of that and the time the model added: the share of the touches they
 * would have been with every touched page on the top tier; 100 with the
 * model off.  With UNTIL_PCT
 * it stops as soon as hot_fast reaches it.  Exits 0 at the end, 1 on
 * error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "slowtier.h"

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || end == s) {
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

struct touch {
	volatile char *h;	/* the reads of --lazyfree must happen */
	long len, page;
	int lazyfree;
	struct slowtier *st;
};

/*
 * One touch of every page of the hot part: one batch of the model, which
 * then makes the pass pay for the touches of slow pages
 */
static void touch_all(struct touch *t)
{
	long off;

	slowtier_begin(t->st);
	for (off = 0; off < t->len; off += t->page) {
		if (t->lazyfree)
			(void)t->h[off];
		else
			t->h[off]++;
		slowtier_access(t->st, (char *)t->h + off);
	}
	slowtier_end(t->st, t->len / t->page);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lazyfree", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	long page = sysconf(_SC_PAGESIZE), cold, hot, seconds, until = -1;
	long n, fast, touches = 0;
	/* The model's figures at the last line */
	unsigned long long walk_ns = 0, owed_ns = 0;
	double ratio = SLOWTIER_RATIO;
	time_t start, next, now;
	struct slowtier st;
	struct touch t = { .page = page };
	void **pages;
	int *status, opt;
	char *end;

	while ((opt = getopt_long(argc, argv, "r:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l': t.lazyfree = 1; break;
		case 'r':
			ratio = strtod(optarg, &end);
			if (*end || !(ratio >= 1.0 && ratio <= 100))
				argc = 0;
			break;
		default: argc = 0;
		}
	}
	if (argc - optind != 3 && argc - optind != 4) {
		fprintf(stderr, "usage: hotlast [--lazyfree] [-r RATIO >= 1] COLD_MIB HOT_MIB SECONDS [UNTIL_PCT]\n");
		return 2;
	}
	argv += optind;
	cold = number(argv[0]) << 20;
	hot = number(argv[1]) << 20;
	seconds = number(argv[2]);
	if (argc - optind == 4)
		until = number(argv[3]);
	if (cold)
		map(cold, page);
	t.h = map(hot, page);
	t.len = hot;
	if (t.lazyfree && madvise((char *)t.h, hot, MADV_FREE)) {
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
	slowtier_init(&st, ratio, (char *)t.h, n);
	t.st = &st;

	start = time(NULL);
	next = start;
	for (;;) {
		now = time(NULL);
		if (now >= next) {
			fast = on_node0((char *)t.h, hot, page, pages, status);
			printf("t=%ld hot_fast=%.1f fast=%ld hot=%ld rate=%ld speed=%.1f\n",
			       (long)(now - start), 100.0 * fast / n, fast, n,
			       touches, st.walk_ns > walk_ns ?
			       100.0 * (st.walk_ns - walk_ns) /
			       (st.walk_ns - walk_ns + st.owed_ns - owed_ns) :
			       100.0);
			fflush(stdout);
			if ((until >= 0 && fast * 100 >= until * n) ||
			    now - start >= seconds)
				return 0;
			next = now + 1;
			touches = 0;
			walk_ns = st.walk_ns;
			owed_ns = st.owed_ns;
		}
		touch_all(&t);
		touches += n;
		slowtier_tick(&st);
	}
}
