/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slowtier.h: a modeled slow memory tier for the benchmark workloads.
 *
 * A guest whose tiers have the same latency makes every page on the slow
 * tier free and every migration pure overhead.  The model puts the cost
 * back in the workload: an access to a page on any tier but the top one
 * owes RATIO - 1 times what an access costs, in time.  The workload
 * counts its accesses in batches; at the end of a batch the model takes
 * the CPU time the batch took, its share of accesses to slow pages f, and
 * spins for (RATIO - 1) f times that time, so the batch costs 1 + (RATIO
 * - 1) f times what it would with every page on the top tier.  Owing time
 * measured on the batch itself, not accesses, keeps the ratio whatever an
 * access costs at that moment (under TCG the same walk's cost varied 4.6x
 * from run to run, and a slow step that owed a step of a second walk cost
 * 2.3x-3.8x a fast one instead of 2x, by how the host translated the
 * second walk's pages), and a spin on the CPU time keeps it when the job
 * shares its CPU: a slow access stalls the CPU, it does not give it away.
 *
 * Where each page sits comes from /proc/self/pagemap (its PFN; needs
 * CAP_SYS_ADMIN), the memory blocks under /sys/devices/system/node/ (the
 * PFN's node) and /sys/devices/virtual/memory_tiering/ (the node's tier),
 * refreshed SLOWTIER_REFRESH_MS apart so that the model follows
 * migrations.
 *
 * Use: slowtier_init() once the region is faulted in; then, for each
 * batch, slowtier_begin(), slowtier_access() after each access and
 * slowtier_end() with the number of accesses; slowtier_tick() between
 * batches.  A ratio of 1.0 turns the model off: every call returns at
 * once.
 */
#ifndef SLOWTIER_H
#define SLOWTIER_H

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * CXL-attached memory adds about 70-90 ns to a load from local DRAM,
 * about twice its latency (Li et al., "Pond: CXL-Based Memory Pooling
 * Systems for Cloud Platforms", ASPLOS 2023); four real CXL devices
 * measured 140-410 ns (Liu et al., "Systematic CXL Memory
 * Characterization and Performance Analysis at Scale", ASPLOS 2025).
 * The default is the low end, the best case a CXL host sees.
 */
#define SLOWTIER_RATIO		2.0
#define SLOWTIER_REFRESH_MS	250
#define SLOWTIER_MAX_NODES	64

struct slowtier {
	char *base;
	long pages;
	int page_shift;
	unsigned char *slow;		/* per page: on a slower tier */
	unsigned char *block_slow;	/* per memory block, grown on demand */
	long blocks, block_pages;
	int pagemap;
	double next_ms, ratio;
	unsigned long long slow_pages;	/* at the last refresh */
	unsigned long long slow_accesses;
	/* The batch under way: CPU time and slow accesses at its start */
	long long batch_ns;
	unsigned long long batch_slow;
	/* CPU time of the batches' accesses, what they owed, what was spun */
	unsigned long long walk_ns, owed_ns, paid_ns;
	double spin_per_us;		/* turns of the spin loop */
};

static inline double slowtier_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The calling thread's CPU time, user and system, in nanoseconds */
static inline long long slowtier_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void slowtier_die(const char *what)
{
	fprintf(stderr, "slowtier: %s\n", what);
	exit(1);
}

/* A sysfs file's first line, or NULL */
static inline char *slowtier_read(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");
	char *s;

	if (!f)
		return NULL;
	s = fgets(buf, len, f);
	fclose(f);
	return s;
}

/*
 * The nodes on a tier below the top one: the top tier is the memory_tier
 * with the smallest id (the smallest abstract distance).  A node list is
 * "0", "1-3" or "0,2".
 */
static inline void slowtier_nodes(unsigned char *slow)
{
	const char *dir = "/sys/devices/virtual/memory_tiering";
	char path[512], buf[256], *s, *end;
	int top = -1, id, n, m;
	struct dirent *e;
	DIR *d = opendir(dir);

	memset(slow, 0, SLOWTIER_MAX_NODES);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "memory_tier%d", &id) == 1 &&
		    (top < 0 || id < top))
			top = id;
	rewinddir(d);
	while ((e = readdir(d))) {
		if (sscanf(e->d_name, "memory_tier%d", &id) != 1 || id == top)
			continue;
		snprintf(path, sizeof(path), "%s/%s/nodelist", dir, e->d_name);
		if (!slowtier_read(path, buf, sizeof(buf)))
			continue;
		for (s = buf; *s >= '0' && *s <= '9'; s = end + (*end == ',')) {
			n = m = strtol(s, &end, 10);
			if (*end == '-')
				m = strtol(end + 1, &end, 10);
			for (; n <= m && n < SLOWTIER_MAX_NODES; n++)
				slow[n] = 1;
		}
	}
	closedir(d);
}

/* Which memory blocks are on a slow node, from the nodes' memoryN links */
static inline void slowtier_blocks(struct slowtier *st)
{
	const char *nodes = "/sys/devices/system/node";
	unsigned char slow[SLOWTIER_MAX_NODES];
	struct dirent *e, *m;
	char path[300];
	DIR *d, *nd;
	long b;
	int n;

	slowtier_nodes(slow);
	if (st->blocks)
		memset(st->block_slow, 0, st->blocks);
	d = opendir(nodes);
	if (!d)
		slowtier_die("no /sys/devices/system/node");
	while ((e = readdir(d))) {
		if (sscanf(e->d_name, "node%d", &n) != 1 || n < 0 ||
		    n >= SLOWTIER_MAX_NODES)
			continue;
		snprintf(path, sizeof(path), "%s/%s", nodes, e->d_name);
		nd = opendir(path);
		if (!nd)
			continue;
		while ((m = readdir(nd))) {
			if (sscanf(m->d_name, "memory%ld", &b) != 1 || b < 0)
				continue;
			if (b >= st->blocks) {	/* grows with hotplug */
				st->block_slow = realloc(st->block_slow, b + 1);
				if (!st->block_slow)
					slowtier_die("out of memory");
				memset(st->block_slow + st->blocks, 0,
				       b + 1 - st->blocks);
				st->blocks = b + 1;
			}
			st->block_slow[b] = slow[n];
		}
		closedir(nd);
	}
	closedir(d);
}

/* Where every page of the region sits now */
static inline void slowtier_refresh(struct slowtier *st)
{
	enum { CHUNK = 4096 };
	uint64_t pm[CHUNK], pfn;
	long i, j, n, b, present = 0, zero = 0;

	slowtier_blocks(st);
	st->slow_pages = 0;
	for (i = 0; i < st->pages; i += n) {
		n = st->pages - i < CHUNK ? st->pages - i : CHUNK;
		if (pread(st->pagemap, pm, n * sizeof(*pm),
			  (((uintptr_t)st->base >> st->page_shift) + i) *
			  sizeof(*pm)) !=
		    (ssize_t)(n * sizeof(*pm)))
			slowtier_die("reading /proc/self/pagemap failed");
		for (j = 0; j < n; j++) {
			/* bit 63: present; bits 0-54: the PFN */
			pfn = pm[j] & ((1ULL << 55) - 1);
			b = pfn / st->block_pages;
			present += pm[j] >> 63;
			zero += (pm[j] >> 63) && !pfn;
			st->slow[i + j] = (pm[j] >> 63) && b < st->blocks &&
					  st->block_slow[b];
			st->slow_pages += st->slow[i + j];
		}
	}
	if (present && zero == present)
		slowtier_die("/proc/self/pagemap shows no PFN: it needs CAP_SYS_ADMIN");
	st->next_ms = slowtier_now_ms() + SLOWTIER_REFRESH_MS;
}

/*
 * Link pages [first, first + n) of @base into one random cycle through the
 * pointer at byte @off of each page, so that a walk follows *(char **)p:
 * every step a dependent load on another page, as a pointer-chasing job
 * makes them.
 */
static inline void slowtier_link_cycle(char *base, long page, long first,
				       long n, long off)
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
		*(char **)(base + order[i] * page + off) =
			base + order[(i + 1) % n] * page + off;
	free(order);
}

/* What a slow access owes from now on: RATIO - 1 accesses' time */
static inline void slowtier_set_ratio(struct slowtier *st, double ratio)
{
	if (!(ratio >= 1.0))
		slowtier_die("the ratio must be at least 1");
	st->ratio = ratio;
}

/* The model for [base, base + pages * page), faulted in */
static inline void slowtier_init(struct slowtier *st, double ratio,
				 char *base, long pages)
{
	char buf[64];

	memset(st, 0, sizeof(*st));
	st->spin_per_us = 10;		/* low: the first check corrects it */
	slowtier_set_ratio(st, ratio);
	if (ratio == 1.0)
		return;
	st->base = base;
	st->pages = pages;
	st->page_shift = __builtin_ctzl(sysconf(_SC_PAGESIZE));
	if (!slowtier_read("/sys/devices/system/memory/block_size_bytes",
			   buf, sizeof(buf)))
		slowtier_die("no /sys/devices/system/memory/block_size_bytes");
	st->block_pages = strtol(buf, NULL, 16) >> st->page_shift;
	st->slow = calloc(pages, 1);
	st->pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (!st->block_pages || !st->slow || st->pagemap < 0)
		slowtier_die("cannot set up (block size, calloc or /proc/self/pagemap)");
	slowtier_refresh(st);
	fprintf(stderr, "slowtier: ratio %.2f: %llu of %ld pages on a slower tier\n",
		ratio, st->slow_pages, pages);
}

/* Before a batch of accesses */
static inline void slowtier_begin(struct slowtier *st)
{
	if (!st->slow)
		return;
	st->batch_slow = st->slow_accesses;
	st->batch_ns = slowtier_cpu_ns();
}

/* After an access to @addr, in the region: count it if its page is slow */
static inline void slowtier_access(struct slowtier *st, const void *addr)
{
	if (st->slow)
		st->slow_accesses +=
			st->slow[((const char *)addr - st->base) >> st->page_shift];
}

/*
 * Spin until the thread's CPU time is @until (ns), from @now: a loop in
 * user space, checked against the CPU time (a system call) once every
 * SLOWTIER_SPIN_NS by the speed it had last time, so that time spent
 * waiting for a CPU does not count as paid.  Not a clock read per turn:
 * where the clocksource has no vDSO read (hpet, which the kernel falls
 * back to when its watchdog finds the TSC unstable, as it does under TCG)
 * each read is a system call, and the spin would be system time.
 * Return: the CPU time at the end.
 */
#define SLOWTIER_SPIN_NS	50000
static inline long long slowtier_spin(struct slowtier *st, long long now,
				      long long until)
{
	long long left, then;
	unsigned long n, i;

	while ((left = until - now) > 0) {
		n = st->spin_per_us *
		    (left < SLOWTIER_SPIN_NS ? left : SLOWTIER_SPIN_NS) / 1000 + 1;
		for (i = 0; i < n; i++)
			__asm__ __volatile__("" ::: "memory");
		then = now;
		now = slowtier_cpu_ns();
		if (now > then)
			st->spin_per_us = n * 1000.0 / (now - then);
	}
	return now;
}

/*
 * After a batch of @accesses: spin until the thread has used what the
 * batch's slow accesses owe, (RATIO - 1) f times the batch's CPU time.
 * That time includes the kernel's work for the job during the batch (its
 * faults, NUMA hint faults and the promotions they make), scaled with the
 * rest as if it were memory latency.
 */
static inline void slowtier_end(struct slowtier *st, long accesses)
{
	long long now, walk, owed;

	if (!st->slow || accesses <= 0)
		return;
	now = slowtier_cpu_ns();
	walk = now - st->batch_ns;
	owed = (long long)((st->ratio - 1.0) * walk *
			   (double)(st->slow_accesses - st->batch_slow) /
			   accesses);
	st->walk_ns += walk;
	st->owed_ns += owed;
	st->paid_ns += slowtier_spin(st, now, now + owed) - now;
}

/* Now and then: refresh where the pages are once the period is over */
static inline void slowtier_tick(struct slowtier *st)
{
	if (st->slow && slowtier_now_ms() >= st->next_ms)
		slowtier_refresh(st);
}

#endif
