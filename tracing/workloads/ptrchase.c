// SPDX-License-Identifier: GPL-2.0
/*
 * ptrchase: the fairness benchmark's job, after the cover letter's.
 *
 *   ptrchase [-r RATIO] [-n NODE] SIZE_MIB HOT_PERCENT STEPS_MILLIONS
 *
 * Faults in SIZE_MIB of anonymous memory, links one pointer per 4K page
 * into a random cycle over the first HOT_PERCENT of the pages (the hot
 * set) and a second over the rest, then follows the hot cycle for
 * STEPS_MILLIONS million steps, touching the cold one once every 64
 * steps so it stays resident but cold (at 100% every page is hot, and
 * that second walk goes round the hot cycle too).  Every step is a dependent load
 * on another page, so the job's speed depends on which tier its hot
 * pages sit on.  An access to a page on a slower tier costs RATIO times
 * one to the top tier (slowtier.h; 1.0 turns the model off); -n binds
 * the memory to NODE.  Prints
 *
 *   ptrchase: done in S.SSS s, N.N ns/step, C.C cpu ns/step (U.U user, K.K sys),
 *             SLOW% of steps slow, ratio R, O.O ns/step owed
 *
 * (the time from the first fault to the last step; the steps' time, and
 * the CPU time they took, which leaves out the time the job waited for a
 * CPU, split into the job's own and the kernel's on its behalf: its
 * faults, NUMA hint faults included, and the model's reads of
 * /proc/self/pagemap; the share of the steps, the cold walk's included,
 * on a slow page, 0 with the model off; and the CPU time per step the
 * model added for them, part of the figures before).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "slowtier.h"

#define MPOL_BIND	2

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The user and system CPU time the job has used, in seconds: the kernel
 * scales its tick samples to the task's exact runtime, so the two add up
 * to CLOCK_PROCESS_CPUTIME_ID's
 */
static void cpu_split(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	*sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

struct chase {
	char **p, **q;	/* the hot walk, the cold one */
	struct slowtier *st;
};

/*
 * @n steps of the hot cycle, and one of the cold every 64: one batch of
 * the model, which then makes the job pay for the steps on slow pages
 */
static void chase(struct chase *c, long n)
{
	struct slowtier *st = c->st;
	char **p = c->p, **q = c->q;
	long i;

	slowtier_begin(st);
	for (i = 0; i < n; i++) {
		slowtier_access(st, p);
		p = (char **)*p;
		if (!(i & 63)) {
			slowtier_access(st, q);
			q = (char **)*q;
		}
	}
	slowtier_end(st, n + (n + 63) / 64);
	c->p = p;
	c->q = q;
}

static double number(const char *s, double max)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !(v >= 0 && v <= max)) {
		fprintf(stderr, "ptrchase: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), pages, hot, chunk = 1L << 16;
	double start, steps_start, stop, ratio = SLOWTIER_RATIO;
	double user_start, sys_start, user, sys;
	unsigned long long steps, done;
	struct slowtier st;
	struct chase c;
	int opt, node = -1;
	char *base, *end;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		switch (opt) {
		case 'r': ratio = number(optarg, 100); break;
		case 'n':
			node = strtol(optarg, &end, 10);
			if (*end || end == optarg || node < 0 || node > 63)
				argc = 0;
			break;
		default: argc = 0;
		}
	}
	if (argc - optind != 3 || ratio < 1.0) {
		fprintf(stderr, "usage: ptrchase [-r RATIO >= 1] [-n NODE] SIZE_MIB HOT_PERCENT STEPS_MILLIONS\n");
		return 2;
	}
	argv += optind;
	pages = (atol(argv[0]) << 20) / page;
	hot = pages * atol(argv[1]) / 100;
	steps = strtoull(argv[2], NULL, 10) * 1000000ULL;
	if (pages < 2 || hot < 1 || hot > pages || !steps) {
		fprintf(stderr, "ptrchase: bad size, hot percentage or step count\n");
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
	if (node >= 0) {
		unsigned long mask = 1UL << node;

		/* maxnode counts one past the last node the mask holds */
		if (syscall(SYS_mbind, base, pages * page, MPOL_BIND, &mask,
			    65, 0)) {
			perror("ptrchase: mbind");
			return 1;
		}
	}
	srandom(getpid());
	slowtier_link_cycle(base, page, 0, hot, 0);
	if (hot < pages)
		slowtier_link_cycle(base, page, hot, pages - hot, 0);

	slowtier_init(&st, ratio, base, pages);
	c = (struct chase){ .p = (char **)base,
			    .q = (char **)(base + (hot < pages ? hot : 0) * page),
			    .st = &st };
	steps_start = now();
	cpu_split(&user_start, &sys_start);
	for (done = 0; done < steps; done += chunk) {
		chase(&c, steps - done < (unsigned long long)chunk ?
			  (long)(steps - done) : chunk);
		slowtier_tick(&st);
	}
	stop = now();
	cpu_split(&user, &sys);
	printf("ptrchase: done in %.3f s, %.1f ns/step, %.1f cpu ns/step (%.1f user, %.1f sys), %.1f%% of steps slow, ratio %.2f, %.1f ns/step owed (%p %p)\n",
	       stop - start, (stop - steps_start) * 1e9 / steps,
	       (user - user_start + sys - sys_start) * 1e9 / steps,
	       (user - user_start) * 1e9 / steps, (sys - sys_start) * 1e9 / steps,
	       100.0 * st.slow_accesses / (steps + steps / 64), ratio,
	       (double)st.owed_ns / steps, (void *)c.p, (void *)c.q);
	return 0;
}
