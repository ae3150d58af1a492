// SPDX-License-Identifier: GPL-2.0
/*
 * slowtier: the modeled slow tier (tracing/workloads/slowtier.h) that the
 * benchmark jobs run with.
 *
 * One mapping, its first half bound by mbind() to node 0 (the top tier)
 * and its second half to node 1 (the tier below), one pointer-chasing
 * cycle over all its pages, one model over it.  The cycle is walked in
 * turns of STEPS steps, each a batch of the model, the ratio 3 and 1 in
 * turn, ROUNDS turns each.  At ratio 3 a batch with a share f of its
 * steps on node 1 owes 2f times its own CPU time, so a step at ratio 3
 * costs 1 + 2f times one at ratio 1, and the checks are:
 *
 *   - that cost within 10%.  The cost is the median over the rounds of
 *     each round's two turns, which go in alternating order: a host that
 *     stalls the guest during a few turns, as a busy CI machine does,
 *     moves a sum of all turns but not that median;
 *   - the model counted the steps on node 1 (about half), owed 2f times
 *     the batch's time at ratio 3 and nothing at ratio 1, and spun for
 *     what it owed: in every turn at least that CPU time, and in the
 *     median turn at most 25% more (a host that stalls the guest during
 *     a spin makes that turn pay the stall too);
 *   - with the model off (-r 1) it does nothing, as the jobs ran before.
 *
 * Not a walk bound to node 1 against one bound to node 0: under TCG an
 * access costs what QEMU's software TLB holds, which depends on what was
 * touched just before, so walks of different pages in turn differed by
 * up to 30% with the model off; one walk over both nodes, with both
 * ratios on the same pages, compares like with like.
 * 3 rather than the default 2, so that a model that does nothing (1x)
 * and one that charges twice too much (3x) are both far outside the band.
 * Skips unless node 0 is alone on the top tier and node 1 below it.
 * Output: "ok - ..." / "not ok - ..." lines for the test scenario.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../../tracing/workloads/slowtier.h"

#define MPOL_BIND	2
#define HALF_MIB	16
#define ROUNDS		160
#define STEPS		(1L << 12)

/* Where the walk ended, so that the compiler keeps it */
static char **volatile sink;

static char **chase(struct slowtier *st, char **p, long n)
{
	long i;

	slowtier_begin(st);
	for (i = 0; i < n; i++) {
		slowtier_access(st, p);
		p = (char **)*p;
	}
	slowtier_end(st, n);
	return p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void bind(char *p, long len, int node)
{
	unsigned long mask = 1UL << node;

	/* maxnode counts one past the last node the mask holds */
	if (syscall(SYS_mbind, p, len, MPOL_BIND, &mask, 65, 0))
		slowtier_die("mbind failed");
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE), half = (long)HALF_MIB << 20;
	long pages = 2 * half / page, off, wrong;
	unsigned long long steps = (unsigned long long)ROUNDS * STEPS;
	unsigned long long before, slow3 = 0;	/* slow steps at ratio 3 */
	unsigned long long owed1 = 0;		/* owed at ratio 1 */
	double walk3 = 0, owed3_want = 0;	/* at ratio 3: CPU time, 2f of it */
	unsigned char slow[SLOWTIER_MAX_NODES];
	struct slowtier st, off_st;
	double t, turn[2], ns[2] = { 0, 0 }, f, want, got;	/* [ratio 3?] */
	static double per_round[ROUNDS];	/* ratio 3's turn over ratio 1's */
	static double spun[ROUNDS];		/* ratio 3's: paid over owed */
	unsigned long long walk_before, owed_before, paid_before;
	int round, i, three, ok;
	char *base, **p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	slowtier_nodes(slow);
	if (slow[0] || !slow[1]) {
		printf("ok - skipped # SKIP node 0 is not on the top memory tier with node 1 below it\n");
		return 0;
	}
	srandom(1);
	base = mmap(NULL, 2 * half, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		slowtier_die("mmap failed");
	madvise(base, 2 * half, MADV_NOHUGEPAGE);
	bind(base, half, 0);
	bind(base + half, half, 1);
	for (off = 0; off < 2 * half; off += page)
		base[off] = 1;
	slowtier_link_cycle(base, page, 0, pages, 0);
	slowtier_init(&st, 3.0, base, pages);
	p = (char **)base;

	/* Turns at ratio 3 and at ratio 1, the same walk and pages */
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < 2; i++) {
			three = (round & 1) ^ i;
			slowtier_set_ratio(&st, three ? 3.0 : 1.0);
			before = st.slow_accesses;
			walk_before = st.walk_ns;
			owed_before = st.owed_ns;
			paid_before = st.paid_ns;
			t = slowtier_now_ms();
			p = chase(&st, p, STEPS);
			turn[three] = slowtier_now_ms() - t;
			ns[three] += turn[three];
			if (three) {
				slow3 += st.slow_accesses - before;
				walk3 += st.walk_ns - walk_before;
				owed3_want += 2.0 * (st.walk_ns - walk_before) *
					      (st.slow_accesses - before) / STEPS;
				spun[round] = st.owed_ns > owed_before ?
					(double)(st.paid_ns - paid_before) /
					(st.owed_ns - owed_before) : 0;
			} else {
				owed1 += st.owed_ns - owed_before;
			}
		}
		per_round[round] = turn[1] / turn[0];
		slowtier_tick(&st);
	}
	sink = p;
	f = (double)st.slow_accesses / (2 * steps);
	want = 1 + f * (3.0 - 1.0);
	qsort(per_round, ROUNDS, sizeof(*per_round), cmp_double);
	qsort(spun, ROUNDS, sizeof(*spun), cmp_double);
	got = (per_round[ROUNDS / 2 - 1] + per_round[ROUNDS / 2]) / 2;
	ok = got >= 0.9 * want && got <= 1.1 * want;
	printf("%sok - ratio 3 against 1 over one walk of both nodes, %.1f%% of its steps on node 1: %.2fx per round (median of %d; %.1f against %.1f ns per step in all, %.2fx), want 1 + %.3f x 2 = %.2fx within 10%%\n",
	       ok ? "" : "not ", 100 * f, got, ROUNDS, ns[1] * 1e6 / steps,
	       ns[0] * 1e6 / steps, ns[1] / ns[0], f, want);
	/* The map the model keeps: node 1's half slow, node 0's not */
	for (off = 0, wrong = 0; off < pages; off++)
		wrong += st.slow[off] != (off >= pages / 2);
	/* Node 1's steps and only they counted; 2f of the time at ratio 3 */
	ok = !wrong && st.slow_accesses >= 0.45 * 2 * steps &&
	     st.slow_accesses <= 0.55 * 2 * steps && !owed1 &&
	     st.owed_ns >= 0.99 * owed3_want && st.owed_ns <= 1.01 * owed3_want &&
	     spun[0] >= 1.0 && spun[ROUNDS / 2] <= 1.25;
	printf("%sok - the model had %ld pages on the wrong tier, want 0; counted %llu of %llu steps slow (half the pages are on node 1), %llu of them at ratio 3; owed %.0f us at ratio 3, want 2f x %.0f us = %.0f us, and %llu ns at ratio 1, want 0; spun %.0f us of CPU time, per turn %.3fx to %.3fx what it owed (median %.3fx), want at least 1x, median at most 1.25x\n",
	       ok ? "" : "not ", wrong, st.slow_accesses, 2 * steps, slow3,
	       (st.owed_ns - owed1) / 1e3, walk3 / 1e3, owed3_want / 1e3,
	       owed1, st.paid_ns / 1e3, spun[0], spun[ROUNDS - 1],
	       spun[ROUNDS / 2]);
	/* -r 1: the model off does nothing at all, as the jobs ran before it */
	slowtier_init(&off_st, 1.0, base, pages);
	sink = chase(&off_st, p, STEPS);
	ok = !off_st.slow && !off_st.slow_accesses && !off_st.owed_ns &&
	     !off_st.walk_ns && !off_st.paid_ns;
	printf("%sok - the model off (-r 1): no page map, %llu slow steps, %llu ns owed\n",
	       ok ? "" : "not ", off_st.slow_accesses, off_st.owed_ns);
	return 0;
}
