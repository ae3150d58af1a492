// SPDX-License-Identifier: GPL-2.0
/*
 * ptrchase: the fairness benchmark's job, after the cover letter's.
 *
 *   ptrchase SIZE_MIB HOT_PERCENT STEPS_MILLIONS
 *
 * Faults in SIZE_MIB of anonymous memory, links one pointer per 4K page
 * into a random cycle over the first HOT_PERCENT of the pages (the hot
 * set) and a second over the rest, then follows the hot cycle for
 * STEPS_MILLIONS million steps, touching the cold one once every 64
 * steps so it stays resident but cold.  Every step is a dependent load
 * on another page, so the job's speed depends on which tier its hot
 * pages sit on.  Prints "ptrchase: done in S.SSS s" (from the first
 * fault to the last step).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Link pages [first, first + n) into one random cycle */
static void link_cycle(char *base, long page, long first, long n)
{
	long *order = malloc(n * sizeof(*order)), i;

	if (!order) {
		perror("ptrchase: malloc");
		exit(1);
	}
	for (i = 0; i < n; i++)
		order[i] = first + i;
	for (i = n - 1; i > 0; i--) {
		long j = random() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		*(char **)(base + order[i] * page) =
			base + order[(i + 1) % n] * page;
	free(order);
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), pages, hot, i;
	unsigned long long steps;
	char **p, **q, *base;
	double start;

	if (argc != 4) {
		fprintf(stderr, "usage: ptrchase SIZE_MIB HOT_PERCENT STEPS_MILLIONS\n");
		return 2;
	}
	pages = (atol(argv[1]) << 20) / page;
	hot = pages * atol(argv[2]) / 100;
	steps = strtoull(argv[3], NULL, 10) * 1000000ULL;
	if (pages < 2 || hot < 1 || hot >= pages) {
		fprintf(stderr, "ptrchase: bad size or hot percentage\n");
		return 2;
	}
	start = now();
	base = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("ptrchase: mmap");
		return 1;
	}
	/* 4K pages, so placement and NUMA balancing work page by page */
	madvise(base, pages * page, MADV_NOHUGEPAGE);
	srandom(getpid());
	link_cycle(base, page, 0, hot);
	link_cycle(base, page, hot, pages - hot);

	p = (char **)base;
	q = (char **)(base + hot * page);
	for (i = 0; (unsigned long long)i < steps; i++) {
		p = (char **)*p;
		if (!(i & 63))
			q = (char **)*q;
	}
	printf("ptrchase: done in %.3f s (%p %p)\n", now() - start,
	       (void *)p, (void *)q);
	return 0;
}
