// SPDX-License-Identifier: GPL-2.0
/*
 * slowtier: the modeled slow tier (tracing/workloads/slowtier.h) that the
 * benchmark jobs run with.
 *
 * One mapping, its first half bound by mbind() to node 0 (the top tier)
 * and its second half to node 1 (the tier below), a pointer-chasing cycle
 * over each half, one model over the whole mapping.  The two cycles are
 * walked in turns of STEPS steps, ROUNDS turns each, and the time per
 * step of each is compared: whatever else slows the guest (a busy host
 * under TCG) slows both alike, and turns this short keep QEMU's software
 * TLB, which resizes to what was touched lately, sized for both halves.
 * What a step on node 1 owes the model is paid in steps of a second walk
 * round the same cycle, as ptrchase pays it round its hot cycle: the
 * pages touched meanwhile stay the same set.  The guest's tiers have the same latency, so
 *
 *   - ratio 3: a step on node 1 costs 3 times one on node 0, within 10%;
 *   - ratio 1 (the model off): a step on node 1 costs what one on node 0
 *     does, within 10%.
 *
 * 3 rather than the default 2, so that a model that does nothing (1x)
 * and one that charges twice too much (5x) are both far outside the band.
 * Skips unless node 0 is alone on the top tier and node 1 below it.
 * Output: "ok - ..." / "not ok - ..." lines for the test scenario.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../../tracing/workloads/slowtier.h"

#define MPOL_BIND	2
#define HALF_MIB	16
#define ROUNDS		640
#define STEPS		(1L << 10)

struct chase {
	char **p, **w;	/* the walk, and the model's round the same cycle */
	struct slowtier *st;
};

static void chase(struct chase *c, long n)
{
	char **p = c->p, **w = c->w;
	long i, owed;

	for (i = 0; i < n; i++) {
		for (owed = slowtier_access(c->st, p); owed > 0; owed--)
			w = (char **)*w;
		p = (char **)*p;
	}
	c->p = p;
	c->w = w;
}

/* Pages [first, first + n) linked into one random cycle */
static void link_cycle(char *base, long page, long first, long n)
{
	long *order = malloc(n * sizeof(*order)), i, j, t;

	if (!order)
		slowtier_die("out of memory");
	for (i = 0; i < n; i++)
		order[i] = first + i;
	for (i = n - 1; i > 0; i--) {
		j = random() % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		*(char **)(base + order[i] * page) =
			base + order[(i + 1) % n] * page;
	free(order);
}

static void bind(char *p, long len, int node)
{
	unsigned long mask = 1UL << node;

	if (syscall(SYS_mbind, p, len, MPOL_BIND, &mask, 64, 0))
		slowtier_die("mbind failed");
}

/* The ns per step on node 0 and on node 1 at @ratio, walked in turn */
static void measure(double ratio, double *ns0, double *ns1)
{
	long page = sysconf(_SC_PAGESIZE), half = (long)HALF_MIB << 20;
	long pages = 2 * half / page, off;
	struct chase c0, c1;
	struct slowtier st;
	double t, t0 = 0, t1 = 0;
	char *base;
	int round;

	base = mmap(NULL, 2 * half, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		slowtier_die("mmap failed");
	madvise(base, 2 * half, MADV_NOHUGEPAGE);
	bind(base, half, 0);
	bind(base + half, half, 1);
	for (off = 0; off < 2 * half; off += page)
		base[off] = 1;
	link_cycle(base, page, 0, pages / 2);
	link_cycle(base, page, pages / 2, pages / 2);
	slowtier_init(&st, ratio, base, pages);
	/* What a step owes is paid in steps round the same cycle */
	c0 = (struct chase){ .p = (char **)base, .w = (char **)base, .st = &st };
	c1 = (struct chase){ .p = (char **)(base + half),
			     .w = (char **)(base + half + half / 2), .st = &st };
	for (round = 0; round < ROUNDS; round++) {
		t = slowtier_now_ms();
		chase(&c0, STEPS);
		t0 += slowtier_now_ms() - t;
		t = slowtier_now_ms();
		chase(&c1, STEPS);
		t1 += slowtier_now_ms() - t;
		slowtier_tick(&st);
	}
	*ns0 = t0 * 1e6 / (ROUNDS * STEPS);
	*ns1 = t1 * 1e6 / (ROUNDS * STEPS);
	munmap(base, 2 * half);
}

static void check(double ratio)
{
	double ns0, ns1;
	int ok;

	measure(ratio, &ns0, &ns1);
	ok = ns1 >= 0.9 * ratio * ns0 && ns1 <= 1.1 * ratio * ns0;
	printf("%sok - ratio %g%s: %.1f ns per step on node 1 against %.1f on node 0 (%.2fx), want %gx within 10%%\n",
	       ok ? "" : "not ", ratio, ratio == 1.0 ? " (the model off)" : "",
	       ns1, ns0, ns1 / ns0, ratio);
}

int main(void)
{
	unsigned char slow[SLOWTIER_MAX_NODES];

	setvbuf(stdout, NULL, _IOLBF, 0);
	slowtier_nodes(slow);
	if (slow[0] || !slow[1]) {
		printf("ok - skipped: node 0 is not on the top memory tier with node 1 below it # SKIP\n");
		return 0;
	}
	srandom(1);
	check(3.0);
	check(1.0);
	return 0;
}
