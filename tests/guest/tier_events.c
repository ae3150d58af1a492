// SPDX-License-Identifier: GPL-2.0
/*
 * Every enforcement point of tiered memcg limits, driven one at a time,
 * checked through its memcg_tier trace event, memory.tier_stat and where
 * the pages really are (move_pages() queries).
 *
 * Each test makes one cgroup under the root, moves this process into it,
 * works, moves back and removes the cgroup, on every path.  Expected
 * figures come from the cgroup's own tier limits, which tiers.sh checks
 * against the node sizes.  Booted without cgroup.memory=tiered_limits the
 * same workloads run and no memcg_tier event may fire.
 *
 * Output: "ok - ..." / "not ok - ..." lines for the test scenario.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CGROOT "/sys/fs/cgroup"
#define TRACING "/sys/kernel/tracing"
#define MPOL_DEFAULT 0
#define MPOL_BIND 2
#define MPOL_MF_MOVE (1 << 1)
#define MB (1UL << 20)

static long page_size;
static int feature_on;
static long demotions_refused;	/* over all the tests' traces */

static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int write_file(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd, len, ret;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len) == len ? 0 : -errno;
	close(fd);
	return ret;
}

/*
 * In the cgroup's flat-keyed FILE, the number after KEY on the line that
 * starts with LINE: -2 for "max", -1 when there is none.
 */
static long keyed(const char *cg, const char *file, const char *line,
		  const char *key)
{
	char path[256], buf[1024], *p;
	long val = -1;
	FILE *f;

	snprintf(path, sizeof(path), CGROOT "/%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		if (strncmp(buf, line, strlen(line)))
			continue;
		p = strstr(buf, key);
		if (p) {
			p += strlen(key);
			val = !strncmp(p, "max", 3) ? -2 : strtol(p, NULL, 10);
		}
		break;
	}
	fclose(f);
	return val;
}

/* memory.tier_stat's KEY of tier SLOT: amounts in pages, counters as is */
static long tier_stat(const char *cg, int slot, const char *key)
{
	char line[16], k[32];
	long val;

	snprintf(line, sizeof(line), "tier%d ", slot);
	snprintf(k, sizeof(k), " %s=", key);
	val = keyed(cg, "memory.tier_stat", line, k);
	if (val >= 0 && strcmp(key, "reclaims") && strcmp(key, "refused") &&
	    strcmp(key, "steered"))
		val /= page_size;
	return val;
}

/*
 * Wait until CG's reclaim and migration counters stay the same for a
 * second (15 s at most): the high worker reclaims in batches and can run
 * on after a tier is back within its limit, and a counter read after the
 * trace stopped must not count what the trace missed.
 */
static void settle(const char *cg)
{
	static const char *const keys[] = {
		"reclaims", "reclaimed", "promoted", "demoted", "usage",
	};
	unsigned long last = 0, sum;
	unsigned int i, slot, n;

	for (n = 0; n < 15; n++) {
		sum = 0;
		for (slot = 0; slot < 2; slot++)
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
				sum = sum * 31 +
				      (unsigned long)tier_stat(cg, slot, keys[i]);
		if (sum == last)
			return;
		last = sum;
		sleep(1);
	}
}

/* Bytes of memory.numa_stat KEY (anon, file, ...) on NODE */
static long numa_stat(const char *cg, const char *key, int node)
{
	char line[32], k[16];

	snprintf(line, sizeof(line), "%s ", key);
	snprintf(k, sizeof(k), " N%d=", node);
	return keyed(cg, "memory.numa_stat", line, k);
}

/* Is A within PCT percent of B? */
static int values_close(long a, long b, int pct)
{
	long d = a > b ? a - b : b - a;

	return d * 100 <= (b > 0 ? b : 1) * pct;
}

/* A node's MemTotal in bytes, from its meminfo */
static long node_bytes(int node)
{
	char path[64], line[128];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "MemTotal:"))
			sscanf(strstr(line, "MemTotal:") + 9, "%ld", &kib);
	if (f)
		fclose(f);
	return kib * 1024;
}

static unsigned long cg_id(const char *cg)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), CGROOT "/%s", cg);
	return stat(path, &st) ? 0 : st.st_ino;
}

static int cg_create(const char *cg, unsigned long max)
{
	char path[256];

	write_file(CGROOT "/cgroup.subtree_control", "+memory");
	snprintf(path, sizeof(path), CGROOT "/%s", cg);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), CGROOT "/%s/memory.max", cg);
	if (write_file(path, "%lu", max))
		return -1;
	snprintf(path, sizeof(path), CGROOT "/%s/cgroup.procs", cg);
	return write_file(path, "%d", getpid());
}

static void cg_destroy(const char *cg)
{
	char path[256];

	write_file(CGROOT "/cgroup.procs", "%d", getpid());
	snprintf(path, sizeof(path), CGROOT "/%s", cg);
	rmdir(path);
}

static long mbind_(void *addr, unsigned long len, int mode, unsigned long nodes)
{
	return syscall(SYS_mbind, addr, len, mode, mode == MPOL_DEFAULT ?
		       NULL : &nodes, mode == MPOL_DEFAULT ? 0 : 64, 0);
}

/* A private anonymous region of 4K pages on NODE (-1: default policy) */
static char *region(unsigned long len, int node)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long off;

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE);
	if (node >= 0 && mbind_(p, len, MPOL_BIND, 1UL << node)) {
		munmap(p, len);
		return NULL;
	}
	for (off = 0; off < len; off += page_size)
		p[off] = 1;
	if (node >= 0)
		mbind_(p, len, MPOL_DEFAULT, 0);
	return p;
}

/*
 * move_pages() REGION to NODE, or query where its pages are (node -1).
 * Return the syscall's result; count the pages found on COUNT_NODE.
 */
static long move_region(char *p, unsigned long len, int node, int count_node,
			long *on_node)
{
	long n = len / page_size, i, ret;
	void **pages = calloc(n, sizeof(*pages));
	int *nodes = calloc(n, sizeof(*nodes)), *status = calloc(n, sizeof(*status));

	for (i = 0; i < n; i++) {
		pages[i] = p + i * page_size;
		nodes[i] = node;
	}
	ret = syscall(SYS_move_pages, 0, n, pages, node < 0 ? NULL : nodes,
		      status, MPOL_MF_MOVE);
	if (on_node) {
		syscall(SYS_move_pages, 0, n, pages, NULL, status, 0);
		for (*on_node = 0, i = 0; i < n; i++)
			*on_node += status[i] == count_node;
	}
	free(pages);
	free(nodes);
	free(status);
	return ret;
}

static void trace_start(void)
{
	write_file(TRACING "/events/memcg_tier/enable", "0");
	write_file(TRACING "/buffer_size_kb", "8192");
	write_file(TRACING "/trace", "");
	write_file(TRACING "/events/memcg_tier/enable", "1");
}

struct trace_counts {
	long charge, steer, steer_to_other, refuse_max, refuse_gate;
	long sum[2];		/* nr_pages summed per tier slot */
	long peak[2];		/* highest tier usage the events saw */
	long reclaim;		/* reclaim events */
	long reclaim_charge[2], reclaim_high[2];	/* per slot and reason */
	long reclaim_stray;	/* events whose nodes are not their tier's */
	long moved_in[2];	/* pages charged per slot by cause=migrate */
	long forced_in[2];	/* of those, charged over the tier's max */
};

static long field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtol(p + strlen(key), NULL, 0) : -1;
}

/*
 * Read back the memcg_tier events of cgroup CG (NULL: of all), counted
 * into C, and keep
 * a copy in the results (trace-CG.txt) for whoever debugs a failure.
 * Tier slot N is node N in this guest: reclaim of slot N must target
 * node N alone, steering must go to STEER_NODE.
 */
static void trace_stop(const char *cg, int steer_node, struct trace_counts *c)
{
	unsigned long cgid = cg ? cg_id(cg) : 0;
	char line[1024], path[256];
	FILE *f, *copy = NULL;

	write_file(TRACING "/events/memcg_tier/enable", "0");
	memset(c, 0, sizeof(*c));
	f = fopen(TRACING "/trace", "r");
	if (!f)
		return;
	if (getenv("TIERED_OUT")) {
		snprintf(path, sizeof(path), "%s/trace-%s.txt",
			 getenv("TIERED_OUT"), cg ? cg : "all");
		copy = fopen(path, "w");
	}
	while (fgets(line, sizeof(line), f)) {
		long slot = field(line, " slot=");

		if (copy)
			fputs(line, copy);
		if (line[0] == '#' ||
		    (cgid && field(line, "cgroup_id=") != (long)cgid))
			continue;
		if (strstr(line, "memcg_tier_charge:")) {
			c->charge++;
			if (slot == 0 || slot == 1) {
				long n = field(line, "nr_pages=");

				c->sum[slot] += n;
				if (field(line, "usage=") > c->peak[slot])
					c->peak[slot] = field(line, "usage=");
				if (n > 0 && strstr(line, "cause=migrate"))
					c->moved_in[slot] += n;
				if (n > 0 && strstr(line, "cause=migrate") &&
				    strstr(line, "outcome=forced"))
					c->forced_in[slot] += n;
			}
		} else if (strstr(line, "memcg_tier_steer:")) {
			c->steer++;
			c->steer_to_other += field(line, "target_nid=") != steer_node;
		} else if (strstr(line, "memcg_tier_reclaim:")) {
			char *nodes = strstr(line, "nodes=");
			char *end = nodes ? strchr(nodes, ' ') : NULL;

			c->reclaim++;
			if (slot != 0 && slot != 1)
				continue;
			c->reclaim_charge[slot] += !!strstr(line, "reason=charge");
			c->reclaim_high[slot] += !!strstr(line, "reason=high");
			/* the last hex digit holds nodes 0-3 */
			if (!end || strtol(end - 1, NULL, 16) != 1L << slot)
				c->reclaim_stray++;
		} else if (strstr(line, "memcg_tier_migrate_refuse:")) {
			c->refuse_max += !!strstr(line, "refuse=tier_max");
			c->refuse_gate += !!strstr(line, "refuse=promotion_gate");
			demotions_refused += !!strstr(line, "migrate_reason=demotion");
		}
	}
	fclose(f);
	if (copy)
		fclose(copy);
}

/*
 * /sys/fs/cgroup/steer   memory.max = 112M (tier 0 max = its share T0,
 *                        about 84M)
 *   touch 96M (default policy): tier 0 fills to T0 without reclaim, the
 *   rest is steered to node 1;  then 8M mbind()-ed to node 0: honoured,
 *   and the full tier 0 is reclaimed at charge time, node 0 only.
 */
static void test_steering_and_charge_reclaim(void)
{
	const char *cg = "steer";
	struct trace_counts c;
	long t0max, on0, bound0, u0, u1;
	char *a = NULL, *b = NULL;

	if (cg_create(cg, 112 * MB)) {
		tap(0, "steering: create cgroup %s", cg);
		return;
	}
	trace_start();
	a = region(96 * MB, -1);
	t0max = tier_stat(cg, 0, "max");
	if (!feature_on) {
		move_region(a, 96 * MB, -1, 0, &on0);
		trace_stop(NULL, 1, &c);
		tap(a && c.charge + c.steer + c.reclaim == 0,
		    "steering: no memcg_tier event without the parameter (%ld)",
		    c.charge + c.steer + c.reclaim);
		tap(on0 * page_size > 90 * (long)MB,
		    "steering: without the parameter the 96M stay on node 0 (%ld pages)",
		    on0);
		goto out;
	}
	tap(a && tier_stat(cg, 0, "usage") <= t0max && tier_stat(cg, 0, "reclaims") == 0,
	    "steering: tier 0 fills to its max (%ld of %ld pages) without reclaim",
	    tier_stat(cg, 0, "usage"), t0max);
	move_region(a, 96 * MB, -1, 1, &on0);
	tap(on0 * page_size >= (96 * (long)MB - t0max * page_size) * 9 / 10,
	    "steering: the rest landed on node 1 (%ld pages)", on0);

	b = region(8 * MB, 0);
	move_region(b, 8 * MB, -1, 0, &bound0);
	tap(b && bound0 == (long)(8 * MB / page_size),
	    "charge reclaim: mbind() to node 0 is honoured (%ld of %lu pages)",
	    bound0, 8 * MB / page_size);
	/*
	 * A limit write drains the CPUs' tier stocks (the other CPUs' from a
	 * work item, at once), in events too: then the counters that the
	 * events add up to hold the tiers' pages only, as usage does.
	 */
	write_file(CGROOT "/steer/memory.high", "max");
	usleep(200000);
	/* Usage as tracing stops: the copy of the trace charges memory too */
	u0 = tier_stat(cg, 0, "usage");
	u1 = tier_stat(cg, 1, "usage");
	trace_stop(cg, 1, &c);
	tap(c.steer > 0 && c.steer_to_other == 0 &&
	    c.steer == tier_stat(cg, 0, "steered"),
	    "steering: %ld memcg_tier_steer events to node 1 = tier_stat steered %ld",
	    c.steer, tier_stat(cg, 0, "steered"));
	tap(c.reclaim_charge[0] > 0 && c.reclaim_charge[1] == 0 &&
	    c.reclaim_stray == 0,
	    "charge reclaim: %ld reason=charge events on tier 0, its node only (%ld on tier 1, %ld stray)",
	    c.reclaim_charge[0], c.reclaim_charge[1], c.reclaim_stray);
	tap(c.reclaim == tier_stat(cg, 0, "reclaims") + tier_stat(cg, 1, "reclaims"),
	    "charge reclaim: %ld memcg_tier_reclaim events = tier_stat reclaims %ld + %ld",
	    c.reclaim, tier_stat(cg, 0, "reclaims"), tier_stat(cg, 1, "reclaims"));
	tap(values_close(c.sum[0], u0, 1) && values_close(c.sum[1], u1, 1),
	    "accounting: memcg_tier_charge sums %ld + %ld = tier usage %ld + %ld (1%%)",
	    c.sum[0], c.sum[1], u0, u1);
	for (int n = 0; n < 2; n++) {
		long node = numa_stat(cg, "anon", n) + numa_stat(cg, "file", n);

		tap(values_close(c.sum[n] * page_size, node, 2),
		    "accounting: node %d: memcg_tier_charge sum %ld bytes, memory.numa_stat anon+file %ld (2%%)",
		    n, c.sum[n] * page_size, node);
	}
out:
	if (a)
		munmap(a, 96 * MB);
	if (b)
		munmap(b, 8 * MB);
	cg_destroy(cg);
}

/*
 * /sys/fs/cgroup/refuse  memory.max = 80M (tier 0 max T0, about 60M)
 *   40M on node 0, 30M on node 1, then move_pages() the 30M to node 0:
 *   pages up to T0 move, the rest is refused (-EBUSY inside
 *   migrate_pages(), so 6.12's move_pages() returns how many did not
 *   move); tier 0 stays within T0.
 */
static void test_migration_refusal(void)
{
	const char *cg = "refuse";
	long t0max, before, moved, ret;
	struct trace_counts c;
	char *a, *b;

	if (cg_create(cg, 80 * MB)) {
		tap(0, "refusal: create cgroup %s", cg);
		return;
	}
	a = region(40 * MB, 0);
	b = region(30 * MB, 1);
	t0max = tier_stat(cg, 0, "max");
	before = tier_stat(cg, 0, "usage");
	trace_start();
	ret = move_region(b, 30 * MB, 0, 0, &moved);
	trace_stop(feature_on ? cg : NULL, 1, &c);
	if (!feature_on) {
		tap(a && b && ret == 0 && moved == (long)(30 * MB / page_size),
		    "refusal: without the parameter move_pages() moves all 30M (%ld pages)",
		    moved);
		tap(c.charge + c.steer + c.reclaim + c.refuse_max == 0,
		    "refusal: no memcg_tier event without the parameter");
		goto out;
	}
	tap(a && b && moved > 0 && ret > 0,
	    "refusal: move_pages() moved %ld pages, left %ld (tier 0 had %ld of %ld)",
	    moved, ret, before, t0max);
	tap(tier_stat(cg, 0, "usage") <= t0max,
	    "refusal: tier 0 stays within its max (%ld <= %ld)",
	    tier_stat(cg, 0, "usage"), t0max);
	tap(c.refuse_max > 0 && c.refuse_max == tier_stat(cg, 0, "refused"),
	    "refusal: %ld refuse=tier_max events = tier_stat refused %ld",
	    c.refuse_max, tier_stat(cg, 0, "refused"));
out:
	munmap(a, 40 * MB);
	munmap(b, 30 * MB);
	cg_destroy(cg);
}

/*
 * /sys/fs/cgroup/forced          memory.max = 80M (tier 0 max = its share
 *   forced/moved  (the test)     of 80M over both tiers, about 60M: its
 *   forced/other  (every node)   sibling keeps node 1 in the parent's split)
 *   40M on node 0, 30M on node 1, then moved's cpuset.mems = 0: the cpuset
 *   moves the 30M, which may not be refused off a node the cgroup may no
 *   longer use, into the parent's full tier 0.  Each page over the max is
 *   forced in, and the high worker reclaims the excess: no reclaim at
 *   charge time, which would run once per page under the mm's lock (with
 *   cgroup_mutex held by whoever flushes the cpuset's migrations).
 */
static void test_forced_move(void)
{
	const char *cg = "forced/moved", *other = CGROOT "/forced/other";
	long moved = 0, t0max, n = 30 * MB / page_size;
	char *a = NULL, *b = NULL;
	struct trace_counts c;
	int had_cpuset, written;
	char path[256];

	if (!feature_on)
		return;
	had_cpuset = keyed("", "cgroup.subtree_control", "", "cpuset") != -1;
	write_file(CGROOT "/cgroup.subtree_control", "+cpuset");
	/* forced holds no task once its children have controllers */
	if (cg_create("forced", 80 * MB) ||
	    write_file(CGROOT "/cgroup.procs", "%d", getpid()) ||
	    write_file(CGROOT "/forced/cgroup.subtree_control",
		       "+memory +cpuset") ||
	    (mkdir(other, 0755) && errno != EEXIST) ||
	    cg_create(cg, 80 * MB)) {
		tap(0, "forced move: create cgroups forced/moved and forced/other");
		goto out;
	}
	t0max = tier_stat("forced", 0, "max");
	a = region(40 * MB, 0);
	b = region(30 * MB, 1);
	trace_start();
	snprintf(path, sizeof(path), CGROOT "/%s/cpuset.mems", cg);
	/*
	 * Returns once the cpuset has migrated the pages; the trace stops
	 * before this process allocates, which would reclaim the full tier
	 */
	written = !write_file(path, "0");
	trace_stop(NULL, 0, &c);
	if (written)
		move_region(b, 30 * MB, -1, 0, &moved);
	/* The high worker may have demoted some of them meanwhile */
	tap(a && b && written && moved > 0 && c.forced_in[0] > 0,
	    "forced move: cpuset.mems=0 moved %ld pages into tier 0 (%ld on node 0 now), %ld over its max %ld",
	    n, moved, c.forced_in[0], t0max);
	tap(c.reclaim_charge[0] == 0,
	    "forced move: no reclaim at charge time (%ld reason=charge reclaims of tier 0)",
	    c.reclaim_charge[0]);
out:
	if (a)
		munmap(a, 40 * MB);
	if (b)
		munmap(b, 30 * MB);
	cg_destroy(cg);
	rmdir(other);
	cg_destroy("forced");
	if (!had_cpuset)
		write_file(CGROOT "/cgroup.subtree_control", "-cpuset");
}

/*
 * /sys/fs/cgroup/high  memory.max = 128M, memory.high = 100M
 *   (tier 0 high H0 = its share of 100M, about 75M)
 *   50M on node 0, 30M on node 1 (80M < memory.high), move the 30M to
 *   node 0: within tier 0's max but over H0 (the charge events show the
 *   peak; the worker may start before move_pages() returns); the high
 *   worker brings tier 0 back to H0 within 20 s, reason=high.
 */
static void test_high_worker(void)
{
	const char *cg = "high";
	struct trace_counts c;
	long h0, now = 0;
	char path[256];
	char *a, *b;
	int i;

	if (!feature_on)
		return;
	if (cg_create(cg, 128 * MB)) {
		tap(0, "high worker: create cgroup %s", cg);
		return;
	}
	snprintf(path, sizeof(path), CGROOT "/%s/memory.high", cg);
	write_file(path, "%lu", 100 * MB);
	h0 = tier_stat(cg, 0, "high");
	a = region(50 * MB, 0);
	b = region(30 * MB, 1);
	trace_start();
	move_region(b, 30 * MB, 0, 0, NULL);
	for (i = 0; i < 40; i++) {
		now = tier_stat(cg, 0, "usage");
		if (now <= h0)
			break;
		usleep(500000);
	}
	settle(cg);
	trace_stop(cg, 1, &c);
	tap(a && b && c.peak[0] > h0 && now <= h0,
	    "high worker: migration took tier 0 to %ld > high %ld, then back to %ld",
	    c.peak[0], h0, now);
	tap(c.reclaim_high[0] > 0 && c.reclaim_stray == 0,
	    "high worker: %ld reclaim events with reason=high on tier 0, its node only",
	    c.reclaim_high[0]);
	/*
	 * The 30M came up from the slow tier, the worker demoted some of it
	 * back: each tier's promoted + demoted is what its cause=migrate
	 * charges say, nothing comes up into the slow tier or down into the
	 * fast one.
	 */
	tap(tier_stat(cg, 0, "promoted") == (long)(30 * MB / page_size) &&
	    tier_stat(cg, 0, "promoted") + tier_stat(cg, 0, "demoted") == c.moved_in[0] &&
	    tier_stat(cg, 1, "demoted") > 0 &&
	    tier_stat(cg, 1, "promoted") + tier_stat(cg, 1, "demoted") == c.moved_in[1] &&
	    tier_stat(cg, 0, "demoted") == 0 && tier_stat(cg, 1, "promoted") == 0,
	    "moves: tier 0 promoted %ld + demoted %ld = its migrate charges %ld; tier 1 promoted %ld + demoted %ld = %ld",
	    tier_stat(cg, 0, "promoted"), tier_stat(cg, 0, "demoted"), c.moved_in[0],
	    tier_stat(cg, 1, "promoted"), tier_stat(cg, 1, "demoted"), c.moved_in[1]);
	munmap(a, 50 * MB);
	munmap(b, 30 * MB);
	cg_destroy(cg);
}

/*
 * One run of the protection test, KNOB ("memory.low", "memory.min" or
 * NULL for none) set to L on prot/a.  Returns a's anon bytes on node 0
 * at the end, per mille of what it had before b's pressure, or minus the
 * step that failed.
 */
static long protection_run(const char *knob, unsigned long m, unsigned long l,
			   unsigned long af, unsigned long as, unsigned long bf,
			   unsigned long x)
{
	long before, after = -1;
	char *a0, *a1, *b0 = NULL, *p;
	char path[256];
	int i;

	if (mkdir(CGROOT "/prot", 0755) && errno != EEXIST)
		return -2;
	write_file(CGROOT "/prot/memory.max", "%lu", m);
	write_file(CGROOT "/prot/cgroup.subtree_control", "+memory");
	if (cg_create("prot/a", m)) {
		after = -3;
		goto out;
	}
	snprintf(path, sizeof(path), CGROOT "/prot/a/%s", knob ? knob : "memory.low");
	write_file(path, "%lu", knob ? l : 0);
	a0 = region(af, -1);
	a1 = region(as, 1);
	before = numa_stat("prot/a", "anon", 0);
	if (!a0 || !a1)
		after = -4;
	else if (cg_create("prot/b", m))
		after = -5;
	else if (!(b0 = region(bf, 0)))
		after = -6;
	else if (mlock(b0, bf))
		after = -7;
	if (after == -1) {
		for (i = 0; i < 8; i++) {
			p = region(x, 0);
			if (p)
				munmap(p, x);
		}
		after = numa_stat("prot/a", "anon", 0) * 1000 /
			(before > 0 ? before : 1);
	}
	if (b0)
		munmap(b0, bf);
	cg_destroy("prot/b");
	if (a0)
		munmap(a0, af);
	if (a1)
		munmap(a1, as);
out:
	cg_destroy("prot/a");
	rmdir(CGROOT "/prot");
	return after;
}

/*
 * /sys/fs/cgroup/prot      memory.max = M = 2/5 of node 0; tier 0 max F
 *   prot/a   memory.low or memory.min = L = M/8; tier 0 share FL
 *            AF = 80% of FL on node 0, AS = 2/3 of prot's tier 1 share
 *            on node 1: a's total is about twice L, its tier 0 usage
 *            below FL, so only protection per tier covers its fast memory
 *            (memory's would only scale down how hard it is scanned)
 *   prot/b   fills tier 0 of prot up to F (bound to node 0, mlocked, so
 *            that a's pages are all there is to take besides b's new
 *            ones), then 8 times faults X = M/40 more there and frees
 *            it: each round makes prot's tier 0 reclaim (demote) about X
 * Tier shares are of node MemTotals, as tiers.sh checks the kernel's.
 * Feature on: a keeps >= 97% of AF on node 0 when protected, <= 90%
 * with no protection.  Off there is no tier limit, so no reclaim: a
 * keeps >= 97% in every case.
 */
static void test_protection(void)
{
	long n0 = node_bytes(0), n1 = node_bytes(1);
	unsigned long m = (n0 * 2 / 5) & ~(MB - 1), l = m / 8;
	unsigned long f = m * n0 / (n0 + n1);
	unsigned long af = (l * n0 / (n0 + n1) * 8 / 10) & ~(MB - 1);
	unsigned long as = ((m - f) * 2 / 3) & ~(MB - 1);
	unsigned long x = (m / 40) & ~(MB - 1), bf = (f - af) & ~(MB - 1);
	static const char * const knobs[] = { "memory.low", "memory.min", NULL };
	long kept;
	int i;

	for (i = 0; i < 3; i++) {
		const char *k = knobs[i] ? knobs[i] : "no protection";

		kept = protection_run(knobs[i], m, l, af, as, bf, x);
		if (kept < 0)
			tap(0, "protection: %s: set up prot/a and prot/b (step %ld)", k, -kept);
		else if (feature_on && !knobs[i])
			tap(kept <= 900,
			    "protection: %s: a's %luM on node 0 lose to b's pressure (%ld.%ld%% kept, <= 90%%)",
			    k, af / MB, kept / 10, kept % 10);
		else
			tap(kept >= 970,
			    "protection: %s: a's %luM on node 0 are kept (%ld.%ld%%, >= 97%%)%s",
			    k, af / MB, kept / 10, kept % 10,
			    feature_on ? "" : ", no tier limit without the parameter");
	}
}

/* Touch every page of a region until SECONDS pass */
static void keep_hot(char *p, unsigned long len, int seconds)
{
	time_t end = time(NULL) + seconds;
	unsigned long off;

	while (time(NULL) < end)
		for (off = 0; off < len; off += page_size)
			p[off]++;
}

/*
 * /sys/fs/cgroup/gate  memory.max = 64M (tier 0 max T0, about 48M),
 * kernel.numa_balancing = 2 (memory tiering), demotion off
 *   tier 0 filled to T0, 8M on node 1 kept hot until promotions are
 *   declined (refuse=promotion_gate) and the 8M stay on node 1: without
 *   demotion nothing makes room in tier 0 (placement.sh tests the
 *   exchange with demotion on); after the fill is freed, they are
 *   promoted within 30 hot seconds (NUMA scanning backs off while
 *   promotions are declined, so allow time).
 */
static void test_promotion_gate(void)
{
	const char *cg = "gate";
	struct trace_counts c;
	long slow_before, slow_after = 0;
	unsigned long fill_len;
	int i;
	char *fill, *hot;

	if (!feature_on)
		return;
	if (cg_create(cg, 64 * MB)) {
		tap(0, "promotion gate: create cgroup %s", cg);
		return;
	}
	write_file("/proc/sys/kernel/numa_balancing", "2");
	write_file("/sys/kernel/mm/numa/demotion_enabled", "0");
	fill_len = tier_stat(cg, 0, "max") * page_size;
	fill = region(fill_len, 0);
	hot = region(8 * MB, 1);
	trace_start();
	/* Until NUMA scanning has come round to the hot pages, 20 s at most */
	for (i = 0; i < 10 && tier_stat(cg, 0, "refused") <= 0; i++)
		keep_hot(hot, 8 * MB, 2);
	move_region(hot, 8 * MB, -1, 1, &slow_before);
	trace_stop(cg, 1, &c);
	tap(fill && hot && c.refuse_gate > 0 &&
	    slow_before == (long)(8 * MB / page_size),
	    "promotion gate: %ld promotions declined, hot pages stay on node 1 (%ld)",
	    c.refuse_gate, slow_before);
	munmap(fill, fill_len);
	for (i = 0; i < 15; i++) {
		keep_hot(hot, 8 * MB, 2);
		move_region(hot, 8 * MB, -1, 1, &slow_after);
		if (slow_after < slow_before)
			break;
	}
	tap(slow_after < slow_before,
	    "promotion gate: once tier 0 has room, %ld hot pages are promoted",
	    slow_before - slow_after);
	write_file("/proc/sys/kernel/numa_balancing", "0");
	write_file("/sys/kernel/mm/numa/demotion_enabled", "1");
	munmap(hot, 8 * MB);
	cg_destroy(cg);
}

/*
 * /sys/fs/cgroup/pinned  memory.max = 128M
 *   64K on node 1 (16 pages) held in a pipe by vmsplice(2): its pages
 *   have references that migration does not expect, so each move fails
 *   after the destination tier was charged, pass after pass.
 *   move_pages() to node 0 moves none of them, and no tier counts a page
 *   as promoted or demoted: the counters count moves that happened.
 */
static void test_failed_moves(void)
{
	const char *cg = "pinned";
	unsigned long len = 64 * 1024;
	long p0 = -1, d1 = -1, on0 = -1, ret = -1;
	int pipefd[2] = { -1, -1 };
	struct iovec iov;
	char *p;

	if (!feature_on)
		return;
	if (cg_create(cg, 128 * MB)) {
		tap(0, "failed moves: create cgroup %s", cg);
		return;
	}
	p = region(len, 1);
	iov.iov_base = p;
	iov.iov_len = len;
	if (p && !pipe(pipefd) &&
	    vmsplice(pipefd[1], &iov, 1, SPLICE_F_NONBLOCK) == (ssize_t)len) {
		p0 = tier_stat(cg, 0, "promoted");
		d1 = tier_stat(cg, 1, "demoted");
		ret = move_region(p, len, 0, 0, &on0);
		p0 = tier_stat(cg, 0, "promoted") - p0;
		d1 = tier_stat(cg, 1, "demoted") - d1;
	}
	tap(ret > 0 && on0 == 0 && p0 == 0 && d1 == 0,
	    "failed moves: %ld of %ld pages held by a pipe not moved (%ld moved), %ld counted promoted, %ld demoted",
	    ret, (long)(len / page_size), on0, p0, d1);
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	if (p)
		munmap(p, len);
	cg_destroy(cg);
}

/*
 * /sys/fs/cgroup/remote  memory.max = 112M (tier 0 max T0, about 84M)
 *   a child in it maps 96M and waits; this process, back in the root
 *   cgroup, writes every page through /proc/CHILD/mem.  Those faults are
 *   charged to the child's memcg, so steering follows it, not the
 *   writer's unlimited root: past T0 the rest lands on node 1 by
 *   steering, with no tier 0 reclaim to make room.
 */
static void test_remote_fault(void)
{
	const char *cg = "remote";
	unsigned long len = 96 * MB, addr = 0;
	long n = len / page_size, i, on1 = 0, t0max, steered = -1, reclaims = -1;
	int pipefd[2], *status = calloc(n, sizeof(int)), fd = -1;
	void **pages = calloc(n, sizeof(void *));
	char path[64];
	pid_t child;

	if (!feature_on || !status || !pages || pipe(pipefd))
		goto free;
	if (cg_create(cg, 112 * MB)) {
		tap(0, "remote fault: create cgroup %s", cg);
		goto free;
	}
	child = fork();
	if (!child) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		madvise(p, len, MADV_NOHUGEPAGE);
		addr = p == MAP_FAILED ? 0 : (unsigned long)p;
		if (write(pipefd[1], &addr, sizeof(addr)) == sizeof(addr))
			pause();
		_exit(1);
	}
	write_file(CGROOT "/cgroup.procs", "%d", getpid());
	t0max = tier_stat(cg, 0, "max");
	snprintf(path, sizeof(path), "/proc/%d/mem", child);
	if (child > 0 && read(pipefd[0], &addr, sizeof(addr)) == sizeof(addr) &&
	    addr && (fd = open(path, O_RDWR)) >= 0) {
		for (i = 0; i < n; i++) {
			pages[i] = (char *)addr + i * page_size;
			if (pwrite(fd, "1", 1, addr + i * page_size) != 1)
				break;
		}
		syscall(SYS_move_pages, child, n, pages, NULL, status, 0);
		for (i = 0; i < n; i++)
			on1 += status[i] == 1;
		steered = tier_stat(cg, 0, "steered");
		reclaims = tier_stat(cg, 0, "reclaims");
	}
	tap(fd >= 0 && steered > 0 && reclaims == 0 &&
	    on1 * page_size >= ((long)len - t0max * page_size) * 9 / 10,
	    "remote fault: 96M written through /proc/PID/mem into a cgroup with a tier 0 max of %ld pages: %ld pages on node 1, %ld allocations steered, %ld tier 0 reclaims",
	    t0max, on1, steered, reclaims);
	if (fd >= 0)
		close(fd);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	close(pipefd[0]);
	close(pipefd[1]);
	cg_destroy(cg);
free:
	free(status);
	free(pages);
}

int main(void)
{
	const char *mode = getenv("TIERED_MODE");
	char buffer_kb[64] = "";
	FILE *f = fopen(TRACING "/buffer_size_kb", "r");

	/* Leave the buffer size as found: trace-cmd runs after us */
	if (f) {
		if (!fgets(buffer_kb, sizeof(buffer_kb), f))
			buffer_kb[0] = 0;
		fclose(f);
	}

	page_size = sysconf(_SC_PAGESIZE);
	feature_on = mode && !strcmp(mode, "on");
	write_file("/sys/kernel/mm/numa/demotion_enabled", "1");
	write_file("/proc/sys/kernel/numa_balancing", "0");

	if (feature_on) {
		FILE *f = popen("trace-cmd list -e memcg_tier 2>/dev/null", "r");
		char line[128];
		int n = 0;

		while (f && fgets(line, sizeof(line), f))
			n += !strncmp(line, "memcg_tier:", 11);
		if (f)
			pclose(f);
		tap(n == 4, "trace-cmd list -e memcg_tier lists the 4 events (%d)", n);
	}

	test_steering_and_charge_reclaim();
	test_migration_refusal();
	test_forced_move();
	test_high_worker();
	test_failed_moves();
	test_remote_fault();
	test_promotion_gate();
	test_protection();

	/* Demotion is forced, never refused, whatever the tests did */
	tap(demotions_refused == 0, "no demotion was refused (%ld)",
	    demotions_refused);

	/* An unexpanded buffer reads "7 (expanded: 1408)": restore 1408 */
	write_file(TRACING "/trace", "");
	if (strstr(buffer_kb, "expanded: "))
		memmove(buffer_kb, strstr(buffer_kb, "expanded: ") + 10,
			strlen(strstr(buffer_kb, "expanded: ") + 10) + 1);
	if (atoi(buffer_kb) > 0)
		write_file(TRACING "/buffer_size_kb", "%d", atoi(buffer_kb));
	return 0;
}
