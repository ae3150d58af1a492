// SPDX-License-Identifier: GPL-2.0
/*
 * tierstress: seeded randomized stress of tier-aware memory cgroup limits,
 * as root in the test guest only (it writes cgroups, sysctls, swap and
 * memory hotplug state).
 *
 *   tierstress [-s SEED] [-t SECONDS] [-w WORKERS] [-r DIR] [-f FILEDIR]
 *              [-S SWAPDEV] [-m MIN_EACH]
 *
 * -s seed (default: time and pid; printed first, "seed N"), -t run time
 * (default 60 s), -w worker processes (default 4, at most 16), -r the
 * cgroup everything is made under (default /sys/fs/cgroup/tierstress;
 * run tierstress outside it), -f directory for file mappings (default
 * /tmp), -S swap device for the swapoff op (skipped without), -m fail
 * unless every op ran at least MIN_EACH times.
 *
 * With -m, a run that reaches the run time with ops short of MIN_EACH
 * goes on for at most half the run time more, running the short ops and
 * one draw in four of the others (they make the state the short ones need:
 * a block offline to online, a child to move): how many iterations fit in
 * the run time depends on the machine, the coverage asked for should not.
 *
 * Workers, each in its leaf DIR/wN, loop until the deadline: draw an op
 * from a shuffled bag of ops[] by weight, run it under an alarm, count
 * it.  Ops map, touch,
 * advise, lock, remap and free anon, memfd and file regions, fork, exec,
 * mbind, set_mempolicy, move_pages, migrate_pages; make, kill, remove and
 * populate cgroups DIR/a0 .. DIR/a1/b1/c0 with short-lived children, write
 * their limits, tier limits and cpusets; flip numa_balancing, demotion, swap,
 * drop_caches and node 1's memory blocks.  Errors are counted, not fatal.
 * The bag's shuffles and every iteration's NARGS arguments, always as
 * many, come from the worker's splitmix64 stream seeded from SEED and its
 * index: a seed replays the same choices.  What they meet (regions, cgroups, memory
 * blocks, failures, the number of iterations) depends on timing.  An
 * OOM-killed worker is restarted with a new generation in its seed.
 *
 * Checked as it goes ("violation: WHAT DETAILS"; the run goes on):
 *   split    each tier limit is floor(limit_pages * capacity / total) over
 *            the tiers of the nodes its cpuset allows or, for a parent,
 *            the union of its leaf memcgs' nodes
 *   empty    a killed, reclaimed cgroup at memory.current 0 has no tier usage
 *   sum      a frozen leaf's tier usages are at most memory.current + 2M
 *            per CPU (charge batches)
 *   content  pages read what was written (or 0 after MADV_FREE/DONTNEED of
 *            private memory) across migration, swap, COW and hotplug
 *   kernel   no BUG, WARNING, Oops, KASAN, UBSAN, lockdep or kmemleak report
 *            in /dev/kmsg
 * At the end: check, errno and skip counts, "op NAME COUNT ERRORS
 * LONGEST_MS" per op, "violations N", "tierstress: ok" or "tierstress:
 * FAIL".  An op stuck in the kernel is named when it is, with the blocked
 * tasks' stacks, on the console (see stuck()).  Exit 0 if ok,
 * 1 on a violation or an op run fewer than MIN_EACH times, 2 on misuse.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/* No <numaif.h> in a static plain-libc build */
#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_PREFERRED_MANY 5
#define MPOL_MF_MOVE (1 << 1)
#define NODE_BITS (8 * sizeof(unsigned long))

#define MIB (1UL << 20)
#define REGION_MAX (16 * MIB)	/* no region grows beyond */
#define BUDGET (24 * MIB)	/* a worker's regions in all: no OOM */
#define MAX_REGIONS 6
#define MAX_PAGES (REGION_MAX / 4096)
#define RANGE_PAGES 512	/* a partial range: at most 2M */
#define MAX_KIDS 6
#define MAX_WORKERS 16
#define MAX_OPS 64
#define MAX_TIERS 8
#define MAX_BLOCKS 256
#define MAX_CGS 512
#define NARGS 6
#define OP_TIMEOUT 15		/* s: the alarm bounding one operation */
#define RATE_MS 400		/* swapoff, offline: at most this often */
#define STUCK_S 120		/* s: an op past its alarm this long is stuck */
#define ERRNO_MAX 256
#define EXIT_FLAG "--tierstress-exit"
#define SYSMEM "/sys/devices/system/memory"

enum { OP_OK, OP_ERR, OP_SKIP };
enum { CK_OK, CK_BAD, CK_SKIP };
enum { CHK_SPLIT, CHK_EMPTY, CHK_SUM, CHK_CONTENT, NR_CHECKS };
enum { R_ANON, R_SHMEM, R_FILE };
enum { NO_REGION, ANY_REGION, ANON_REGION };

static const char *const check_names[] = { "split", "empty", "sum", "content" };
static const char *const kind_names[] = { "anon", "shmem", "file" };
static const char *const lim_names[] = {
	"min", "low", "high", "max", "reclaim",
};

/* The cgroups operations make, fill and remove: DIR/<slot> */
static const char *const slots[] = {
	"a0", "a0/b0", "a0/b0/c0", "a0/b0/c1", "a0/b1", "a1",
	"a1/b0", "a1/b0/c0", "a1/b1", "a1/b1/c0", "a2", "a2/b0",
};
#define NSLOTS ((int)(sizeof(slots) / sizeof(slots[0])))

static const char *const kmsg_bad[] = {
	"BUG:", "WARNING:", "Oops", "general protection", "kernel BUG",
	"KASAN", "UBSAN", "page_counter", "possible circular locking",
	"unreferenced object",
};

/* In a MAP_SHARED mapping: atomics, or the sys lock where said */
struct shared {
	int stop;
	long violations;
	long checks[NR_CHECKS][3];	/* by CK_* */
	long errnos[ERRNO_MAX];
	struct {
		long count, errors, skipped;
		long longest_ms;
	} op[MAX_OPS];
	/* Each worker's op under way (-1: none) and its start, for stuck() */
	struct {
		int op;
		long since;
	} cur[MAX_WORKERS];
	/* Under the sys lock: rate limits, swapon to do, blocks we offlined */
	long last_swapoff, last_offline;
	int swap_off;
	int nr_offlined, offlined[MAX_BLOCKS];
};

struct region {
	char *p;
	size_t len;
	int kind;
	int fd;
	size_t fsize;		/* the file's size */
	uint64_t serial;
	int zero_ok;		/* pages may read 0: unwritten or freed */
};

struct worker {
	int id;
	uint64_t rng;
	struct region reg[MAX_REGIONS];
	int nreg;
	size_t used;
	uint64_t serials;
	struct {
		pid_t pid;
		long until;
	} kids[MAX_KIDS];
	int err;		/* errno of the failed call */
	int away;		/* moved out of its leaf, not back yet */
	char leaf[16];
	int *bag, bag_left;	/* ops still to draw this round */
};

/* One operation's arguments, and its region and range when it needs one */
struct call {
	const uint64_t *a;
	int arg;
	struct region *r;
	size_t off, len;
};

struct op {
	const char *name;
	int weight;
	int (*fn)(struct worker *w, struct call *c);
	int arg;
	int region;
};

static struct shared *sh;
static const char *cg_dir = "/sys/fs/cgroup/tierstress";
static const char *file_dir = "/tmp";
static const char *swap_dev;
static uint64_t seed;
static long deadline, overtime_end, min_each;
static int nworkers = 4;
static long page;
static int ncpus;
static char lock_dir[64];
static volatile sig_atomic_t timed_out, interrupted;
static void *pg_addr[MAX_PAGES];
static int pg_node[MAX_PAGES], pg_status[MAX_PAGES];

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Returns early on a signal: the alarm ends every wait */
static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A line in one write(2): lines never mix, no stdio buffer to fork */
static void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDOUT_FILENO, buf, n) < 0)
		return;
}

static void violation(const char *fmt, ...)
{
	char buf[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	__atomic_add_fetch(&sh->violations, 1, __ATOMIC_RELAXED);
	say("violation: %s", buf);
}

static void count_check(int check, int res)
{
	__atomic_add_fetch(&sh->checks[check][res], 1, __ATOMIC_RELAXED);
}

/* OP_OK, or OP_ERR with errno kept for the counts when @failed */
static int done(struct worker *w, long failed)
{
	if (!failed)
		return OP_OK;
	w->err = errno;
	return OP_ERR;
}

/* The content, NUL-terminated: its length, or -1 with errno */
static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	size_t total = 0;
	ssize_t n = 1;

	if (fd < 0)
		return -1;
	while (total < size - 1 && (n = read(fd, buf + total,
					     size - 1 - total)) > 0)
		total += n;
	e = errno;
	close(fd);
	buf[total] = 0;
	errno = e;
	return n < 0 ? -1 : (int)total;
}

/* 0, or -1 with errno: kernfs and sysfs fail the write itself */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0, e;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) < 0)
		ret = -1;
	e = errno;
	close(fd);
	errno = e;
	return ret;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!strncmp(s, "max", 3)) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s ? -1 : 0;
}

/* DIR/NAME/FILE, NAME or FILE may be "" */
static void cg_file(char *buf, const char *name, const char *file)
{
	snprintf(buf, PATH_MAX, "%s%s%s%s%s", cg_dir, *name ? "/" : "",
		 name, *file ? "/" : "", file);
}

static int cg_write(const char *name, const char *file, const char *s)
{
	char path[PATH_MAX];

	cg_file(path, name, file);
	return write_file(path, s);
}

static int cg_u64(const char *name, const char *file, uint64_t *v)
{
	char path[PATH_MAX], buf[64];

	cg_file(path, name, file);
	return read_file(path, buf, sizeof(buf)) < 0 ? -1 : parse_u64(buf, v);
}

/* Until cgroup.events says "KEY VAL": 0, or -1 when @ms passed */
static int cg_wait_event(const char *name, const char *key, int val, long ms)
{
	char path[PATH_MAX], buf[256], *p;
	long end = now_ms() + ms;

	for (cg_file(path, name, "cgroup.events");; sleep_ms(20)) {
		p = read_file(path, buf, sizeof(buf)) < 0 ? NULL : buf;
		for (; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (!strncmp(p, key, strlen(key)) &&
			    p[strlen(key)] == ' ' &&
			    atoi(p + strlen(key) + 1) == val)
				return 0;
		if (now_ms() >= end || timed_out)
			return -1;
	}
}

/*
 * Locks: flocks on files in lock_dir, opened per use and closed to unlock
 * (close(-1) is harmless), so that no fork inherits one.  Order: sys,
 * topo, one cgroup's.  The alarm interrupts a wait: -1.
 */
static int lock_take(const char *prefix, const char *name, int how)
{
	char path[PATH_MAX], *c;
	int fd;

	snprintf(path, sizeof(path), "%s/%s%s", lock_dir, prefix, name);
	for (c = path + strlen(lock_dir) + 1; *c; c++)
		if (*c == '/')
			*c = '.';
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	while (fd >= 0 && flock(fd, how)) {
		if (errno != EINTR || timed_out) {
			close(fd);
			return -1;
		}
	}
	return fd;
}
#define lock_cg(name) lock_take("cg-", name, LOCK_EX)

/* "0-1,3" to a mask */
static uint64_t parse_nodes(const char *s)
{
	uint64_t mask = 0;
	long a, b;
	char *end;

	while (*s >= '0' && *s <= '9') {
		a = b = strtol(s, &end, 10);
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (; a <= b && a < 64; a++)
			mask |= 1ULL << a;
		s = *end == ',' ? end + 1 : end;
	}
	return mask;
}

/* How memory.tier_limits set a tier's limit: as in memcg_tier_setting */
enum { SET_SHARE, SET_PAGES, SET_PERCENT };

struct tier {
	int id;
	uint64_t nodes, cap, usage, lim[4];
	int set_kind[4];
	uint64_t set_val[4];	/* pages (UINT64_MAX: "max"), or percent */
};

/* memory.tier_stat, keys by name: the number of tiers, or -1 */
static int read_tiers(const char *name, struct tier *t)
{
	char path[PATH_MAX], buf[4096], *line, *tok, *v, *s1, *s2;
	int n = 0, have, k;

	cg_file(path, name, "memory.tier_stat");
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &s1); line && n < MAX_TIERS;
	     line = strtok_r(NULL, "\n", &s1), n++) {
		tok = strtok_r(line, " ", &s2);
		if (!tok || sscanf(tok, "tier%d", &t[n].id) != 1)
			return -1;
		have = 0;
		while ((tok = strtok_r(NULL, " ", &s2))) {
			if (!(v = strchr(tok, '=')))
				continue;
			*v++ = 0;
			if (!strcmp(tok, "nodes")) {
				t[n].nodes = parse_nodes(v);
				have |= 1;
			}
			if (!strcmp(tok, "capacity") &&
			    !parse_u64(v, &t[n].cap))
				have |= 2;
			if (!strcmp(tok, "usage") &&
			    !parse_u64(v, &t[n].usage))
				have |= 4;
			for (k = 0; k < 4; k++)
				if (!strcmp(tok, lim_names[k]) &&
				    !parse_u64(v, &t[n].lim[k]))
					have |= 8 << k;
		}
		if (have != 0x7f)
			return -1;
	}
	return n;
}

/*
 * The nodes the kernel splits the limits over: cpuset.mems.effective of
 * the cgroup, or without the cpuset controller of its nearest ancestor.
 */
static int effective_mems(const char *name, uint64_t *mask)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], buf[256], *slash;

	cg_file(dir, name, "");
	for (;;) {
		snprintf(path, sizeof(path), "%s/cpuset.mems.effective", dir);
		if (read_file(path, buf, sizeof(buf)) >= 0) {
			*mask = parse_nodes(buf);
			return 0;
		}
		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		slash = strrchr(dir, '/');
		if (access(path, F_OK) || !slash || slash == dir)
			return -1;
		*slash = 0;
	}
}

/*
 * The nodes the kernel splits a cgroup's limits over (memcg_tier_nodes()):
 * the union of effective_mems() of the memcgs below it that have no child
 * memcg, or its own when it has none.  A child with memory.current has a
 * memcg of its own.
 */
static int split_mems(const char *name, uint64_t *mask)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], child[PATH_MAX];
	struct dirent *e;
	uint64_t m;
	int children = 0, ret = 0;
	DIR *d;

	*mask = 0;
	cg_file(dir, name, "");
	if (!(d = opendir(dir)))
		return -1;
	while (!ret && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/memory.current", dir,
			 e->d_name);
		if (access(path, F_OK))
			continue;
		snprintf(child, sizeof(child), "%s%s%.200s", name,
			 *name ? "/" : "", e->d_name);
		ret = split_mems(child, &m);
		*mask |= m;
		children++;
	}
	closedir(d);
	return ret || children ? ret : effective_mems(name, mask);
}

static const char *lim_str(char *buf, uint64_t v)
{
	if (v == UINT64_MAX)
		return "max";
	snprintf(buf, 24, "%llu", (unsigned long long)v);
	return buf;
}

/*
 * What memory.tier_limits says was set by hand ("KEY=VALUE[SET]") into
 * @t, tier by tier as read_tiers() read them: 0, or -1 when the lines
 * do not match.
 */
static int read_settings(const char *name, struct tier *t, int n)
{
	char path[PATH_MAX], buf[4096], *line, *tok, *v, *set, *s1, *s2;
	uint64_t val;
	int i = 0, id, k;

	cg_file(path, name, "memory.tier_limits");
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &s1); line;
	     line = strtok_r(NULL, "\n", &s1), i++) {
		tok = strtok_r(line, " ", &s2);
		if (i >= n || !tok || sscanf(tok, "tier%d", &id) != 1 ||
		    id != t[i].id)
			return -1;
		for (k = 0; k < 4; k++)
			t[i].set_kind[k] = SET_SHARE;
		while ((tok = strtok_r(NULL, " ", &s2))) {
			if (!(v = strchr(tok, '=')))
				continue;
			*v = 0;
			for (k = 0; k < 4 && strcmp(tok, lim_names[k]); k++)
				;
			if (k == 4 || !(set = strchr(v + 1, '[')))
				continue;
			set++;
			if (parse_u64(set, &val))
				return -1;
			if (strchr(set, '%')) {
				t[i].set_kind[k] = SET_PERCENT;
				t[i].set_val[k] = val;
			} else {
				t[i].set_kind[k] = SET_PAGES;
				t[i].set_val[k] = val == UINT64_MAX ? val :
						  val / page;
			}
		}
	}
	return i == n ? 0 : -1;
}

/* mul_u64_u64_div_u64() of the kernel, for page counts */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	return (unsigned __int128)a * b / c;
}

/*
 * Tier @i's limit @k in pages as memcg_tier_split_limit() resolves it:
 * a value set by hand, bounded by the cgroup's limit @lim (pages, or
 * UINT64_MAX), else (or outside the cpuset) a share of what the set
 * tiers leave.  @caps are the
 * capacities in pages inside the cpuset, @total their sum.
 */
static uint64_t tier_want(const struct tier *t, int n, int i, int k,
			  uint64_t lim, const uint64_t *caps, uint64_t total)
{
	uint64_t rest = lim, rest_total = total, v;
	int j;

	for (j = 0; j < n; j++) {
		/* A set tier outside the cpuset counts as unset */
		if (t[j].set_kind[k] == SET_SHARE || (total && !caps[j]))
			continue;
		v = t[j].set_val[k];
		if (t[j].set_kind[k] == SET_PAGES)
			v = v < lim ? v : lim;
		else if (lim == UINT64_MAX)
			v = v ? UINT64_MAX : 0;
		else
			v = muldiv(lim, v, 100);
		if (j == i)
			return v;
		if (rest != UINT64_MAX)
			rest -= v < rest ? v : rest;
		rest_total -= caps[j] < rest_total ? caps[j] : rest_total;
	}
	if (!total)
		return lim;
	if (rest == UINT64_MAX)
		return rest;
	return rest_total ? muldiv(rest, caps[i], rest_total) : 0;
}

/*
 * Invariant 1, once: a tier's limit is its share of the cgroup's,
 * mult_frac(limit_pages, capacity, total) over the tiers of split_mems();
 * one outside them gets 0; with no capacity allowed at all
 * every tier keeps the whole limit (memcg_tier_share()).  A limit set in
 * memory.tier_limits replaces the share (tier_want()).  Skips when a
 * capacity or the nodes moved meanwhile (hotplug), or when the cpuset
 * allows part of a multi-node tier (its capacity there is not shown).
 */
static int check_split_once(const char *name, char *why, size_t size)
{
	struct tier t1[MAX_TIERS], t2[MAX_TIERS];
	uint64_t lim[4], mems, mems2, total = 0, caps[MAX_TIERS], want, in;
	char file[32], b1[24], b2[24], b3[24];
	int n1, n2, i, k;

	for (k = 0; k < 4; k++) {
		snprintf(file, sizeof(file), "memory.%s", lim_names[k]);
		if (cg_u64(name, file, &lim[k]))
			return CK_SKIP;
	}
	if (split_mems(name, &mems))
		return CK_SKIP;
	n1 = read_tiers(name, t1);
	n2 = read_tiers(name, t2);	/* the capacities again */
	if (n1 <= 0 || n2 != n1 || split_mems(name, &mems2) ||
	    mems2 != mems || read_settings(name, t1, n1))
		return CK_SKIP;
	for (i = 0; i < n1; i++) {
		in = t1[i].nodes & mems;
		if (t1[i].id != t2[i].id || t1[i].nodes != t2[i].nodes ||
		    t1[i].cap != t2[i].cap || (in && in != t1[i].nodes))
			return CK_SKIP;
		caps[i] = in ? t1[i].cap / page : 0;
		total += caps[i];
	}
	for (i = 0; i < n1; i++) {
		for (k = 0; k < 4; k++) {
			want = tier_want(t1, n1, i, k, lim[k] == UINT64_MAX ?
					 UINT64_MAX : lim[k] / page, caps, total);
			want = want == UINT64_MAX ? UINT64_MAX : want * page;
			if (t1[i].lim[k] == want)
				continue;
			snprintf(why, size, "tier%d %s=%s want %s (memory.%s=%s capacity=%llu total_pages=%llu mems=%#llx)",
				 t1[i].id, lim_names[k],
				 lim_str(b1, t1[i].lim[k]), lim_str(b2, want),
				 lim_names[k], lim_str(b3, lim[k]),
				 (unsigned long long)t1[i].cap,
				 (unsigned long long)total,
				 (unsigned long long)mems);
			return CK_BAD;
		}
	}
	return CK_OK;
}

/* Invariant 2 on a killed, emptied cgroup, its lock held */
static void check_empty(const char *name)
{
	struct tier t[MAX_TIERS];
	uint64_t c1, c2;
	int i, n, bad = 0, res = CK_SKIP;

	/* EAGAIN when less than that was left: try again anyway */
	for (i = 0; i < 3 && !cg_u64(name, "memory.current", &c1) && c1; i++)
		cg_write(name, "memory.reclaim", "256M");
	/* A charge racing in (a swap-in of a shared page) shows in c2 */
	for (i = 0; i < 3 && !timed_out; i++, sleep_ms(100)) {
		res = CK_SKIP;
		if (cg_u64(name, "memory.current", &c1) || c1 ||
		    (n = read_tiers(name, t)) <= 0 ||
		    cg_u64(name, "memory.current", &c2) || c2)
			break;
		for (bad = 0; bad < n && !t[bad].usage; bad++)
			;
		if ((res = bad < n ? CK_BAD : CK_OK) == CK_OK)
			break;
	}
	count_check(CHK_EMPTY, res);
	if (res == CK_BAD)
		violation("empty %s: memory.current 0 but tier%d usage=%llu",
			  name, t[bad].id, (unsigned long long)t[bad].usage);
}

/* Invariant 3 on a frozen leaf; retried: kswapd may still move pages */
static int check_sum(const char *name, char *why, size_t size)
{
	struct tier t[MAX_TIERS];
	uint64_t c1, c2, sum = 0, slack = 2 * MIB * ncpus;
	int i, n, try;

	for (try = 0; try < 3; try++, sleep_ms(100)) {
		if (cg_u64(name, "memory.current", &c1) ||
		    (n = read_tiers(name, t)) <= 0 ||
		    cg_u64(name, "memory.current", &c2) || timed_out)
			return CK_SKIP;
		for (sum = i = 0; i < n; i++)
			sum += t[i].usage;
		if (sum <= (c1 > c2 ? c1 : c2) + slack)
			return CK_OK;
	}
	snprintf(why, size, "tier usage %llu > memory.current %llu + %llu",
		 (unsigned long long)sum, (unsigned long long)c1,
		 (unsigned long long)slack);
	return CK_BAD;
}

/* Content: worker, region and page; never 0 */
static uint64_t tag(const struct region *r, size_t i)
{
	return 1ULL << 63 | r->serial << 24 | i;
}

/* The whole region one time in 8, else up to RANGE_PAGES: short ops */
static void pick_range(struct call *c, uint64_t a)
{
	size_t pages = c->r->len / page, start = (a >> 3) % pages;
	size_t n = 1 + (a >> 24) % RANGE_PAGES;

	if (!(a & 7)) {
		start = 0;
		n = pages;
	}
	c->off = start * page;
	c->len = (n < pages - start ? n : pages - start) * page;
}

static void touch_range(struct region *r, size_t off, size_t len)
{
	size_t o;

	for (o = off; o < off + len; o += page)
		*(volatile uint64_t *)(r->p + o) = tag(r, o / page);
	if (!off && len == r->len)
		r->zero_ok = 0;
}

/* Invariant 4: what was written is there */
static void verify_range(struct region *r, size_t off, size_t len,
			 const char *who)
{
	uint64_t v, first_v = 0;
	size_t o, first = 0, bad = 0;

	for (o = off; o < off + len; o += page) {
		v = *(volatile uint64_t *)(r->p + o);
		if (v == tag(r, o / page) || (r->zero_ok && !v))
			continue;
		if (!bad++) {
			first = o / page;
			first_v = v;
		}
	}
	count_check(CHK_CONTENT, bad ? CK_BAD : CK_OK);
	if (bad)
		violation("content %s: %s region %llx page %zu = %#llx, want %#llx%s (%zu bad pages)",
			  who, kind_names[r->kind],
			  (unsigned long long)r->serial, first,
			  (unsigned long long)first_v,
			  (unsigned long long)tag(r, first),
			  r->zero_ok ? " or 0" : "", bad);
}

static int fill_zeros(int fd, size_t from, size_t to)
{
	static const char zeros[65536];
	size_t n;

	for (; from < to; from += n) {
		n = to - from < sizeof(zeros) ? to - from : sizeof(zeros);
		if (pwrite(fd, zeros, n, from) != (ssize_t)n)
			return -1;
	}
	return 0;
}

static void region_free(struct worker *w, int i)
{
	struct region *r = &w->reg[i];

	munmap(r->p, r->len);
	if (r->fd >= 0)
		close(r->fd);
	w->used -= r->len;
	memmove(r, r + 1, (w->nreg - i - 1) * sizeof(*r));
	w->nreg--;
}

/* Frees the oldest regions but @keep until @need more fits: @keep's index */
static int make_room(struct worker *w, size_t need, int keep, int adding)
{
	int i;

	while ((adding && w->nreg >= MAX_REGIONS) || w->used + need > BUDGET) {
		i = keep == 0 ? 1 : 0;
		if (i >= w->nreg)
			break;
		region_free(w, i);
		if (keep > i)
			keep--;
	}
	return keep;
}

/* A new region: its index, or -1 with errno */
static int region_new(struct worker *w, int kind, size_t len)
{
	char path[PATH_MAX];
	struct region *r;
	int fd = -1, e;
	void *p;

	make_room(w, len, -1, 1);
	r = &w->reg[w->nreg];
	w->serials++;
	if (kind == R_SHMEM) {
		fd = syscall(SYS_memfd_create, "tierstress", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, REGION_MAX))
			goto fail;
	} else if (kind == R_FILE) {
		snprintf(path, sizeof(path), "%s/tierstress.%d.%llx", file_dir,
			 (int)getpid(), (unsigned long long)w->serials);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		/* Blocks allocated now: no SIGBUS on a full disk later */
		if (fd < 0 || unlink(path) || fill_zeros(fd, 0, len))
			goto fail;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 kind == R_ANON ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	*r = (struct region){ .p = p, .len = len, .kind = kind, .fd = fd,
			      .fsize = kind == R_SHMEM ? REGION_MAX : len,
			      .serial = w->serials, .zero_ok = 1 };
	w->used += len;
	return w->nreg++;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}

/* A region (anonymous when @anon) by @a, made when there is none */
static struct region *region_get(struct worker *w, uint64_t a, int anon)
{
	int i, k;

	for (k = 0; k < w->nreg; k++) {
		i = (k + (a >> 16)) % w->nreg;
		if (!anon || w->reg[i].kind == R_ANON)
			return &w->reg[i];
	}
	i = region_new(w, anon ? R_ANON : (int)(a % 3),
		       (1 + (a >> 8) % 4) * MIB);
	return i < 0 ? NULL : &w->reg[i];
}

/* Op-made cgroups first, then (with @leaves) the workers' leaves */
static const char *target(char *buf, uint64_t a, int leaves)
{
	int i = a % (NSLOTS + (leaves ? nworkers : 0));

	if (i < NSLOTS)
		return slots[i];
	snprintf(buf, 16, "w%d", i - NSLOTS);
	return buf;
}

/* Waits for a child, SIGKILLs it when late: its status, or -1 */
static int wait_child(pid_t pid, long ms)
{
	long end = now_ms() + ms;
	int st, killed = 0;
	pid_t r;

	while ((r = waitpid(pid, &st, WNOHANG)) != pid) {
		if (r < 0)
			return -1;
		if (now_ms() >= end || timed_out) {
			if (killed++)
				return -1;
			kill(pid, SIGKILL);
			end = now_ms() + 2000;
		}
		sleep_ms(5);
	}
	return st;
}

static void kids_reap(struct worker *w)
{
	pid_t r;
	int i, st;

	for (i = 0; i < MAX_KIDS; i++) {
		if (!w->kids[i].pid)
			continue;
		r = waitpid(w->kids[i].pid, &st, WNOHANG);
		if (r == w->kids[i].pid || (r < 0 && errno == ECHILD))
			w->kids[i].pid = 0;
		else if (now_ms() > w->kids[i].until + 2000)
			kill(w->kids[i].pid, SIGKILL);
	}
}

/* A child's life in a cgroup: charge memory there until @until */
static void __attribute__((noreturn))
kid_main(struct worker *w, const uint64_t *a, int *fds, long until)
{
	size_t len = (1 + a[4] % 8) * MIB, o;
	struct region *r = NULL;
	pid_t parent = getppid();
	char c, *p = MAP_FAILED;
	int i;

	close(fds[1]);
	write_file("/proc/self/oom_score_adj", "500");
	if (read(fds[0], &c, 1) != 1 || c != 'g')
		_exit(0);
	/* Anonymous memory of its own, or the worker's shared pages */
	for (i = 0; a[3] & 1 && i < w->nreg; i++)
		if (w->reg[(i + a[4]) % w->nreg].kind != R_ANON)
			r = &w->reg[(i + a[4]) % w->nreg];
	if (!r)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	while (now_ms() < until && getppid() == parent) {
		if (r)
			touch_range(r, 0, r->len);	/* the same tags */
		for (o = 0; p != MAP_FAILED && o < len; o += page)
			p[o]++;
		sleep_ms(50);
	}
	_exit(0);
}

/*
 * Forks a child that waits on a pipe until the worker has moved it into
 * @cg (holding that cgroup's lock) or left it home (@cg NULL), then
 * charges memory for up to 3 s.  0, or -1 with errno.
 */
static int kid_start(struct worker *w, const uint64_t *a, const char *cg)
{
	long until = now_ms() + 200 + a[2] % 2800;
	int i, fds[2], ret = 0, lock, e;
	char pid_s[16];
	pid_t pid;

	kids_reap(w);
	for (i = 0; i < MAX_KIDS && w->kids[i].pid; i++)
		;
	if (i == MAX_KIDS || pipe2(fds, O_CLOEXEC)) {
		errno = i == MAX_KIDS ? EAGAIN : errno;
		return -1;
	}
	pid = fork();
	if (!pid)
		kid_main(w, a, fds, until);
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		return -1;
	}
	if (cg) {
		lock = lock_cg(cg);
		snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
		ret = lock < 0 ? -1 : cg_write(cg, "cgroup.procs", pid_s);
		close(lock);
	}
	e = errno;
	if (write(fds[1], ret ? "q" : "g", 1) < 0)
		ret = -1;
	close(fds[1]);
	w->kids[i].pid = pid;
	w->kids[i].until = until;
	errno = e;
	return ret;
}

/* Memory */

static int op_mmap(struct worker *w, struct call *c)
{
	return done(w, region_new(w, c->arg, (1 + c->a[2] % 16) * MIB) < 0);
}

/* arg 0: write the range; 1: read it and check it */
static int op_touch(struct worker *w, struct call *c)
{
	(void)w;
	if (c->arg)
		verify_range(c->r, c->off, c->len, "read");
	else
		touch_range(c->r, c->off, c->len);
	return OP_OK;
}

static int op_munmap(struct worker *w, struct call *c)
{
	region_free(w, c->r - w->reg);
	return OP_OK;
}

static int op_madvise(struct worker *w, struct call *c)
{
	/* Private pages may be gone after these, even on an error */
	if ((c->arg == MADV_FREE || c->arg == MADV_DONTNEED) &&
	    c->r->kind == R_ANON)
		c->r->zero_ok = 1;
	return done(w, madvise(c->r->p + c->off, c->len, c->arg));
}

/* Private pages given back, then used again: read, then written */
static int op_reuse(struct worker *w, struct call *c)
{
	int ret = op_madvise(w, c);

	verify_range(c->r, c->off, c->len, "reuse");
	touch_range(c->r, c->off, c->len);
	return ret;
}

static int op_mlock(struct worker *w, struct call *c)
{
	char *p = c->r->p + c->off;

	return done(w, c->arg ? munlock(p, c->len) : mlock(p, c->len));
}

/* arg 0: grow, 1: shrink, 2: move */
static int op_mremap(struct worker *w, struct call *c)
{
	struct region *r = c->r;
	int flags = MREMAP_MAYMOVE, e;
	size_t len = r->len;
	void *p, *to = NULL;

	if (c->arg == 0) {
		len = len + (1 + c->a[2] % 4) * MIB;
		len = len < REGION_MAX ? len : REGION_MAX;
		r = &w->reg[make_room(w, len - r->len, r - w->reg, 0)];
		if (r->kind == R_FILE && len > r->fsize) {
			if (fill_zeros(r->fd, r->fsize, len))
				return done(w, 1);
			r->fsize = len;
		}
		r->zero_ok = 1;		/* anonymous growth reads 0 */
	} else if (c->arg == 1) {
		len = (1 + c->a[2] % (len / page)) * page;
		flags = 0;
	} else {
		to = mmap(NULL, len, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (to == MAP_FAILED)
			return done(w, 1);
		flags |= MREMAP_FIXED;
	}
	p = mremap(r->p, r->len, len, flags, to);
	if (p == MAP_FAILED) {
		e = errno;
		if (to)
			munmap(to, len);
		errno = e;
		return done(w, 1);
	}
	r->p = p;
	w->used = w->used - r->len + len;
	r->len = len;
	if (to)
		verify_range(r, c->off, c->len, "mremap");
	return OP_OK;
}

/*
 * A child checks the range and writes its copy of it (private: other
 * values; shared: the same tags) and exits: the parent's stays as it was.
 */
static int op_fork_cow(struct worker *w, struct call *c)
{
	struct region *r = c->r;
	pid_t pid = fork();
	size_t o;

	if (pid < 0)
		return done(w, 1);
	if (!pid) {
		verify_range(r, c->off, c->len, "cow child");
		for (o = c->off; o < c->off + c->len; o += page)
			*(volatile uint64_t *)(r->p + o) = r->kind == R_ANON ?
				~tag(r, o / page) : tag(r, o / page);
		_exit(0);
	}
	errno = ETIMEDOUT;
	if (wait_child(pid, 5000) == -1)
		return done(w, 1);
	verify_range(r, c->off, c->len, "cow parent");
	return OP_OK;
}

static int op_exec(struct worker *w, struct call *c)
{
	pid_t pid = fork();
	int st;

	(void)c;
	if (pid < 0)
		return done(w, 1);
	if (!pid) {
		execl("/bin/true", "true", (char *)NULL);
		execl("/proc/self/exe", "tierstress", EXIT_FLAG, (char *)NULL);
		_exit(127);
	}
	st = wait_child(pid, 5000);
	errno = st == -1 ? ETIMEDOUT : ENOEXEC;
	return done(w, st == -1 || !WIFEXITED(st) || WEXITSTATUS(st));
}

/* Placement: arg is the mode | the nodes << 8, random nodes when 0 */

static unsigned long nodes_of(const struct call *c)
{
	if (c->arg >> 8)
		return c->arg >> 8;
	if ((c->arg & 0xff) == MPOL_PREFERRED)
		return 1UL << (c->a[3] & 1);
	return 1 + c->a[3] % 3;
}

/* With MPOL_MF_MOVE or not; then maybe new pages under the policy */
static int op_mbind(struct worker *w, struct call *c)
{
	unsigned long mask = nodes_of(c);
	int mode = c->arg & 0xff;

	if (syscall(SYS_mbind, c->r->p + c->off, c->len, mode,
		    mode == MPOL_DEFAULT ? NULL : &mask,
		    mode == MPOL_DEFAULT ? 0 : NODE_BITS,
		    c->a[2] & 1 ? MPOL_MF_MOVE : 0))
		return done(w, 1);
	if (c->a[2] & 2)
		touch_range(c->r, c->off, c->len);
	return OP_OK;
}

/* The task's policy for new memory, then the default again */
static int op_setpol(struct worker *w, struct call *c)
{
	unsigned long mask = nodes_of(c);
	size_t len = (1 + c->a[4] % 4) * MIB, o;
	int ret;
	char *p;

	if (syscall(SYS_set_mempolicy, c->arg & 0xff, &mask, NODE_BITS))
		return done(w, 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ret = done(w, p == MAP_FAILED);
	for (o = 0; p != MAP_FAILED && o < len; o += page)
		p[o] = 1;
	if (p != MAP_FAILED)
		munmap(p, len);
	syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0);
	return ret;
}

/* > 0: pages left where they were, not an error */
static int op_move_pages(struct worker *w, struct call *c)
{
	size_t i, n = c->len / page;

	for (i = 0; i < n && i < MAX_PAGES; i++) {
		pg_addr[i] = c->r->p + c->off + i * page;
		pg_node[i] = c->a[3] & 1;
	}
	return done(w, syscall(SYS_move_pages, 0, i, pg_addr, pg_node,
			       pg_status, MPOL_MF_MOVE) < 0);
}

static int op_migrate_pages(struct worker *w, struct call *c)
{
	unsigned long from = 1UL << (c->a[2] & 1), to = 3 & ~from;

	return done(w, syscall(SYS_migrate_pages, getpid(), NODE_BITS,
			       &from, &to) < 0);
}

/* Cgroups */

static int op_cg_mkdir(struct worker *w, struct call *c)
{
	const char *name = slots[c->a[2] % NSLOTS];
	char parent[32], path[PATH_MAX], *slash;
	int topo = lock_take("", "topo", LOCK_EX), ret;

	if (topo < 0)
		return OP_SKIP;
	snprintf(parent, sizeof(parent), "%s", name);
	slash = strrchr(parent, '/');
	if (slash) {
		/* EBUSY when the parent has tasks: no internal processes */
		*slash = 0;
		cg_write(parent, "cgroup.subtree_control", "+memory");
		if (c->a[3] & 3)	/* some without: an ancestor's mems */
			cg_write(parent, "cgroup.subtree_control", "+cpuset");
	}
	cg_file(path, name, "");
	ret = done(w, mkdir(path, 0755));
	close(topo);
	return ret;
}

/*
 * Writes @val to @file of cgroup @name under its lock, and the topology
 * lock first when @topo (cpusets); OP_SKIP when the alarm ends a wait.
 */
static int locked_write(struct worker *w, int topo, const char *name,
			const char *file, const char *val)
{
	int t = topo ? lock_take("", "topo", LOCK_EX) : -2, lock = -1, ret;

	if (t != -1)
		lock = lock_cg(name);
	if (lock < 0) {
		close(t);
		return OP_SKIP;
	}
	ret = done(w, cg_write(name, file, val));
	close(lock);
	close(t);
	return ret;
}

/* arg 0: cgroup.kill; 1: kill, wait, check invariant 2, rmdir */
static int op_cg_kill(struct worker *w, struct call *c)
{
	const char *name = slots[c->a[2] % NSLOTS];
	char path[PATH_MAX];
	int lock, ret;

	if (!c->arg)
		return locked_write(w, 0, name, "cgroup.kill", "1");
	if ((lock = lock_cg(name)) < 0)
		return OP_SKIP;
	ret = cg_write(name, "cgroup.kill", "1");
	if (!ret && !cg_wait_event(name, "populated", 0, 5000))
		check_empty(name);
	cg_file(path, name, "");
	ret = done(w, ret || rmdir(path));
	close(lock);
	return ret;
}

/*
 * arg 0: a new child into a made cgroup; 1: one of the worker's children
 * (a new one when none is left) into a made cgroup or back home
 */
static int op_cg_move(struct worker *w, struct call *c)
{
	int i, t = c->a[5] % (NSLOTS + 1);
	char pid_s[16];
	pid_t pid = 0;

	if (!c->arg)
		return done(w, kid_start(w, c->a, slots[c->a[5] % NSLOTS]));
	kids_reap(w);
	for (i = 0; i < MAX_KIDS && !pid; i++)
		pid = w->kids[(i + c->a[0]) % MAX_KIDS].pid;
	if (!pid && !kid_start(w, c->a, NULL))
		for (i = 0; i < MAX_KIDS && !pid; i++)
			pid = w->kids[i].pid;
	if (!pid)
		return OP_SKIP;
	snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
	return locked_write(w, 0, t < NSLOTS ? slots[t] : w->leaf,
			    "cgroup.procs", pid_s);
}

/* The worker itself charges memory in another worker's leaf, and returns */
static int op_move_self(struct worker *w, struct call *c)
{
	char name[16];
	int other = nworkers > 1 ? nworkers - 1 : 1;

	other = (w->id + 1 + c->a[2] % other) % nworkers;
	snprintf(name, sizeof(name), "w%d", other);
	if (cg_write(name, "cgroup.procs", "0"))
		return done(w, 1);
	touch_range(c->r, c->off, c->len);
	w->away = !!cg_write(w->leaf, "cgroup.procs", "0");
	return OP_OK;
}

/*
 * memory.{min,low,high,max} (arg 0-3): 0..96M or max.  Worker leaves get
 * at most 32M of protection and 64M..128M (or max) of high and max, for
 * their workers not to be OOM-killed.  arg 4: memory.reclaim of 1-16M
 * (EAGAIN when less was there: fine).
 */
static int op_limit(struct worker *w, struct call *c)
{
	char buf[16], file[32], val[32];
	const char *name = target(buf, c->a[2], 1);
	uint64_t v = c->a[3] % (96 * MIB + 1);

	if (name == buf && c->arg < 2)
		v = c->a[3] % (32 * MIB + 1);
	else if (name == buf)
		v = c->a[4] & 3 ? 64 * MIB + c->a[3] % (64 * MIB) : UINT64_MAX;
	else if (!(c->a[4] & 15))
		v = UINT64_MAX;
	if (c->arg == 4)
		v = (1 + c->a[3] % 16) * MIB;
	snprintf(file, sizeof(file), "memory.%s", lim_names[c->arg]);
	return locked_write(w, 0, name, file, lim_str(val, v));
}

/*
 * A memory.tier_limits line for any cgroup: one to four keys of tier 0
 * or 1 (now and then a tier that does not exist), each a size, "max", a
 * percentage (now and then over 100) or, half the time, "default", so
 * that settings come and go.  EINVAL is counted like any error.
 */
static int op_tier_limits(struct worker *w, struct call *c)
{
	char buf[16], line[160];
	const char *name = target(buf, c->a[2], 1);
	uint64_t r = c->a[4], v;
	int k, len, tier = c->a[3] % 16 ? (int)(c->a[3] & 1) : 9;

	len = snprintf(line, sizeof(line), "tier%d", tier);
	for (k = 0; k < 4; k++, r >>= 8) {
		if (k != (int)(c->a[5] % 4) && r & 1)
			continue;	/* at least one key, up to four */
		v = c->a[5] >> (8 * k);
		switch (r >> 1 & 7) {
		case 0:
			len += snprintf(line + len, sizeof(line) - len,
					" %s=max", lim_names[k]);
			break;
		case 1:
		case 2:
			len += snprintf(line + len, sizeof(line) - len,
					" %s=%u%%", lim_names[k],
					(unsigned int)(v % 111));
			break;
		case 3:
			len += snprintf(line + len, sizeof(line) - len,
					" %s=%uM", lim_names[k],
					(unsigned int)(v % 97));
			break;
		default:
			len += snprintf(line + len, sizeof(line) - len,
					" %s=default", lim_names[k]);
		}
	}
	return locked_write(w, 0, name, "memory.tier_limits", line);
}

/*
 * arg 0: cpuset.mems of any cgroup; 1: +cpuset or -cpuset in DIR's or a
 * made cgroup's subtree_control (EBUSY, ENOENT: fine)
 */
static int op_cpuset(struct worker *w, struct call *c)
{
	static const char *const mems[] = { "0", "1", "0-1" };
	int t = c->a[2] % (NSLOTS + 1);
	char buf[16];

	if (!c->arg)
		return locked_write(w, 1, target(buf, c->a[2], 1),
				    "cpuset.mems", mems[c->a[3] % 3]);
	return locked_write(w, 1, t < NSLOTS ? slots[t] : "",
			    "cgroup.subtree_control",
			    c->a[3] & 1 ? "+cpuset" : "-cpuset");
}

/*
 * Invariant 1 under the topology lock (shared: this program changes no
 * cpuset and no memory block meanwhile) and the cgroup's (no limit
 * write); retried: the kernel rescales just after a capacity change.
 */
static int op_check_split(struct worker *w, struct call *c)
{
	char buf[16], why[512];
	const char *name = target(buf, c->a[2], 1);
	int topo = lock_take("", "topo", LOCK_SH), lock, res = CK_SKIP, i;

	(void)w;
	lock = topo < 0 ? -1 : lock_cg(name);
	if (lock < 0) {
		close(topo);
		return OP_SKIP;
	}
	for (i = 0; i < 5 && !timed_out; i++, sleep_ms(200))
		if ((res = check_split_once(name, why, sizeof(why))) != CK_BAD)
			break;
	close(lock);
	close(topo);
	count_check(CHK_SPLIT, res);
	if (res == CK_BAD)
		violation("split %s: %s", name, why);
	return OP_OK;
}

/* Invariant 3 on a frozen op-made leaf: never a worker's */
static int op_check_sum(struct worker *w, struct call *c)
{
	const char *name = slots[c->a[2] % NSLOTS];
	int lock = lock_cg(name), res = CK_SKIP, ret = -1;
	char why[256], path[PATH_MAX];
	struct dirent *de = NULL;
	DIR *d;

	if (lock < 0)
		return OP_SKIP;
	cg_file(path, name, "");
	d = opendir(path);
	while (d && (de = readdir(d)) && (de->d_type != DT_DIR ||
					  de->d_name[0] == '.'))
		;
	/* A leaf only: a parent is no error, just not checked */
	if (d && !de && !(ret = cg_write(name, "cgroup.freeze", "1"))) {
		if (!cg_wait_event(name, "frozen", 1, 2000))
			res = check_sum(name, why, sizeof(why));
		cg_write(name, "cgroup.freeze", "0");
	}
	ret = done(w, !d || (!de && ret));
	if (d)
		closedir(d);
	close(lock);
	count_check(CHK_SUM, res);
	if (res == CK_BAD)
		violation("sum %s: %s", name, why);
	return ret;
}

/* System-wide, serialized by the sys lock */

static const struct {
	const char *path, *vals[3];
} knobs[] = {
	{ "/proc/sys/kernel/numa_balancing", { "0", "1", "2" } },
	{ "/sys/kernel/mm/numa/demotion_enabled", { "0", "1", "1" } },
	{ "/proc/sys/vm/drop_caches", { "1", "2", "3" } },
};

static int op_knob(struct worker *w, struct call *c)
{
	int lock = lock_take("", "sys", LOCK_EX), ret;

	if (lock < 0)
		return OP_SKIP;
	ret = write_file(knobs[c->arg].path, knobs[c->arg].vals[c->a[2] % 3]);
	close(lock);
	return done(w, ret);
}

/* swapoff, then swapon again (only that, when a swapon failed before) */
static int op_swapoff(struct worker *w, struct call *c)
{
	int lock, ret = 0;

	(void)c;
	if (!swap_dev)
		return OP_SKIP;
	lock = lock_take("", "sys", LOCK_EX);
	if (lock < 0 || now_ms() - sh->last_swapoff < RATE_MS) {
		close(lock);
		return OP_SKIP;
	}
	/* The alarm ends a long swapoff: EINTR */
	if (!sh->swap_off && !(ret = swapoff(swap_dev)))
		sh->swap_off = 1;
	if (sh->swap_off && !swapon(swap_dev, 0))
		sh->swap_off = 0;
	else if (sh->swap_off)
		ret = -1;
	sh->last_swapoff = now_ms();
	close(lock);
	return done(w, ret);
}

/* Node 1's memory blocks in state @want, sorted: readdir order varies */
static int node1_blocks(int *ids, const char *want)
{
	DIR *d = opendir("/sys/devices/system/node/node1");
	char path[PATH_MAX], buf[32];
	int n = 0, id, i, j;
	struct dirent *de;

	while (d && (de = readdir(d)) && n < MAX_BLOCKS) {
		if (sscanf(de->d_name, "memory%d", &id) != 1)
			continue;
		snprintf(path, sizeof(path), SYSMEM "/memory%d/state", id);
		if (read_file(path, buf, sizeof(buf)) <= 0)
			continue;
		buf[strcspn(buf, "\n")] = 0;
		for (i = n; !strcmp(buf, want) && i > 0 && ids[i - 1] > id; i--)
			ids[i] = ids[i - 1];
		if (!strcmp(buf, want)) {
			ids[i] = id;
			n++;
		}
	}
	if (d)
		closedir(d);
	for (i = j = 0; !strcmp(want, "offline") && i < n; i++)
		for (id = 0; id < sh->nr_offlined; id++)
			if (sh->offlined[id] == ids[i]) {
				ids[j++] = ids[i];
				break;
			}
	return !strcmp(want, "offline") ? j : n;
}

static int block_write(int id, const char *state)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), SYSMEM "/memory%d/state", id);
	return write_file(path, state);
}

/*
 * arg 0: offline a node 1 block, 1: online one it offlined (the shell's
 * hotplug loop owns the others).  Under the sys lock, then the topology
 * lock exclusively.  The alarm ends a long offline: EINTR.
 */
static int op_block(struct worker *w, struct call *c)
{
	int ids[MAX_BLOCKS], sys, topo = -1, n = 0, i, ret = OP_SKIP;

	sys = lock_take("", "sys", LOCK_EX);
	if (sys >= 0 && (c->arg || now_ms() - sh->last_offline >= RATE_MS))
		topo = lock_take("", "topo", LOCK_EX);
	if (topo >= 0)
		n = node1_blocks(ids, c->arg ? "offline" : "online");
	if (n) {
		n = ids[c->a[2] % n];
		ret = done(w, block_write(n, c->arg ? "online_movable" :
						      "offline"));
		for (i = 0; i < sh->nr_offlined && sh->offlined[i] != n; i++)
			;
		if (ret == OP_OK && c->arg)
			sh->offlined[i] = sh->offlined[--sh->nr_offlined];
		else if (ret == OP_OK && i == sh->nr_offlined &&
			 i < MAX_BLOCKS)
			sh->offlined[sh->nr_offlined++] = n;
		if (!c->arg)
			sh->last_offline = now_ms();
	}
	close(topo);
	close(sys);
	return ret;
}

/*
 * Every operation: name, weight, function, argument, region needed.  An
 * op of weight w runs about N * w / 190 times in N iterations: the least
 * weighted (w = 3) reach 100 at N = 6330, 5.3 per second per worker over
 * 300 s with 4 workers.  Moving a task and swapoff weigh more because
 * about a third of their draws skip (no child can be started to move,
 * another swapoff is under way), the memory-block ops more still because
 * over a third do (no block may change state).  A slower machine gets
 * -m's overtime.
 */
static const struct op ops[] = {
	{ "mmap_anon", 4, op_mmap, R_ANON, NO_REGION },
	{ "mmap_shmem", 4, op_mmap, R_SHMEM, NO_REGION },
	{ "mmap_file", 4, op_mmap, R_FILE, NO_REGION },
	{ "touch", 6, op_touch, 0, ANY_REGION },
	{ "read", 6, op_touch, 1, ANY_REGION },
	{ "munmap", 3, op_munmap, 0, ANY_REGION },
	{ "madv_free", 3, op_madvise, MADV_FREE, ANY_REGION },
	{ "madv_dontneed", 3, op_madvise, MADV_DONTNEED, ANY_REGION },
	{ "madv_cold", 3, op_madvise, MADV_COLD, ANY_REGION },
	{ "madv_pageout", 3, op_madvise, MADV_PAGEOUT, ANY_REGION },
	{ "madv_willneed", 3, op_madvise, MADV_WILLNEED, ANY_REGION },
	{ "madv_hugepage", 3, op_madvise, MADV_HUGEPAGE, ANY_REGION },
	{ "madv_nohugepage", 3, op_madvise, MADV_NOHUGEPAGE, ANY_REGION },
	{ "madv_collapse", 3, op_madvise, MADV_COLLAPSE, ANY_REGION },
	{ "free_reuse", 3, op_reuse, MADV_FREE, ANON_REGION },
	{ "dontneed_reuse", 3, op_reuse, MADV_DONTNEED, ANON_REGION },
	{ "mlock", 3, op_mlock, 0, ANY_REGION },
	{ "munlock", 3, op_mlock, 1, ANY_REGION },
	{ "mremap_grow", 3, op_mremap, 0, ANY_REGION },
	{ "mremap_shrink", 3, op_mremap, 1, ANY_REGION },
	{ "mremap_move", 3, op_mremap, 2, ANY_REGION },
	{ "fork_cow", 3, op_fork_cow, 0, ANY_REGION },
	{ "exec", 3, op_exec, 0, NO_REGION },
	{ "mbind_bind0", 3, op_mbind, MPOL_BIND | 1 << 8, ANY_REGION },
	{ "mbind_bind1", 3, op_mbind, MPOL_BIND | 2 << 8, ANY_REGION },
	{ "mbind_bind01", 3, op_mbind, MPOL_BIND | 3 << 8, ANY_REGION },
	{ "mbind_preferred", 3, op_mbind, MPOL_PREFERRED, ANY_REGION },
	{ "mbind_interleave", 3, op_mbind, MPOL_INTERLEAVE, ANY_REGION },
	{ "mbind_prefmany", 3, op_mbind, MPOL_PREFERRED_MANY, ANY_REGION },
	{ "mbind_default", 3, op_mbind, MPOL_DEFAULT, ANY_REGION },
	{ "setpol_bind", 3, op_setpol, MPOL_BIND, NO_REGION },
	{ "setpol_preferred", 3, op_setpol, MPOL_PREFERRED, NO_REGION },
	{ "setpol_interleave", 3, op_setpol, MPOL_INTERLEAVE, NO_REGION },
	{ "setpol_prefmany", 3, op_setpol, MPOL_PREFERRED_MANY, NO_REGION },
	{ "move_pages", 3, op_move_pages, 0, ANY_REGION },
	{ "migrate_pages", 3, op_migrate_pages, 0, NO_REGION },
	{ "cg_mkdir", 5, op_cg_mkdir, 0, NO_REGION },
	{ "cg_rmdir", 3, op_cg_kill, 1, NO_REGION },
	{ "cg_kill", 3, op_cg_kill, 0, NO_REGION },
	{ "cg_spawn", 4, op_cg_move, 0, NO_REGION },
	{ "cg_move", 4, op_cg_move, 1, NO_REGION },
	{ "move_self", 3, op_move_self, 0, ANY_REGION },
	{ "mem_min", 3, op_limit, 0, NO_REGION },
	{ "mem_low", 3, op_limit, 1, NO_REGION },
	{ "mem_high", 3, op_limit, 2, NO_REGION },
	{ "mem_max", 3, op_limit, 3, NO_REGION },
	{ "mem_reclaim", 3, op_limit, 4, NO_REGION },
	{ "tier_limits", 4, op_tier_limits, 0, NO_REGION },
	{ "cpuset_mems", 3, op_cpuset, 0, NO_REGION },
	{ "subtree_cpuset", 3, op_cpuset, 1, NO_REGION },
	{ "check_split", 4, op_check_split, 0, NO_REGION },
	{ "check_sum", 3, op_check_sum, 0, NO_REGION },
	{ "numa_balancing", 3, op_knob, 0, NO_REGION },
	{ "demotion", 3, op_knob, 1, NO_REGION },
	{ "drop_caches", 3, op_knob, 2, NO_REGION },
	{ "swapoff", 4, op_swapoff, 0, NO_REGION },
	{ "block_offline", 5, op_block, 0, NO_REGION },
	{ "block_online", 5, op_block, 1, NO_REGION },
};
#define NR_OPS ((int)(sizeof(ops) / sizeof(ops[0])))
_Static_assert(NR_OPS <= MAX_OPS, "MAX_OPS too small");

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * The next op: from a bag that holds each op as many times as it weighs,
 * shuffled and refilled when empty, so that every op runs its share of
 * each round of @total draws and a run's counts follow the weights
 * closely rather than only on average.
 */
static int bag_draw(struct worker *w, int total)
{
	int i, j, k, t;

	if (!w->bag_left) {
		for (i = 0, k = 0; i < NR_OPS; i++)
			for (j = 0; j < ops[i].weight; j++)
				w->bag[k++] = i;
		for (i = total - 1; i > 0; i--) {
			j = splitmix64(&w->rng) % (i + 1);
			t = w->bag[i];
			w->bag[i] = w->bag[j];
			w->bag[j] = t;
		}
		w->bag_left = total;
	}
	return w->bag[--w->bag_left];
}

/* An op still short of -m's count (swapoff cannot run without -S) */
static int op_short(int i)
{
	return __atomic_load_n(&sh->op[i].count, __ATOMIC_RELAXED) < min_each &&
	       (ops[i].fn != op_swapoff || swap_dev);
}

static int ops_short(void)
{
	int i;

	for (i = 0; i < NR_OPS; i++)
		if (op_short(i))
			return 1;
	return 0;
}

/* Keep the longest run of op @i */
static void op_took(int i, long ms)
{
	long old = __atomic_load_n(&sh->op[i].longest_ms, __ATOMIC_RELAXED);

	while (ms > old &&
	       !__atomic_compare_exchange_n(&sh->op[i].longest_ms, &old, ms, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Whether the run goes on at @t: its time, then the overtime of -m */
static int run_on(long t)
{
	return t < deadline || (t < overtime_end && ops_short());
}

static void __attribute__((noreturn)) worker_main(int id, int gen)
{
	static struct worker wk;
	struct worker *w = &wk;
	struct sigaction sa = { .sa_handler = on_alarm };	/* EINTR */
	uint64_t s1 = seed, s2 = (uint64_t)id << 32 | gen, a[NARGS], coin;
	int total = 0, i, res;
	long t;
	struct call c;

	w->id = id;
	w->rng = splitmix64(&s1) ^ splitmix64(&s2);
	w->serials = (uint64_t)(id + 1) << 32 | (uint64_t)gen << 24;
	snprintf(w->leaf, sizeof(w->leaf), "w%d", id);
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGINT, SIG_IGN);	/* the parent stops them */
	signal(SIGTERM, SIG_IGN);
	if (cg_write(w->leaf, "cgroup.procs", "0"))
		say("note: worker %d stays out of %s/%s", id, cg_dir, w->leaf);
	write_file("/proc/self/oom_score_adj", "-900");
	for (i = 0; i < NR_OPS; i++)
		total += ops[i].weight;
	w->bag = calloc(total, sizeof(*w->bag));
	if (!w->bag)
		_exit(1);

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED) &&
	       run_on(t = now_ms())) {
		kids_reap(w);
		if (w->away)
			w->away = !!cg_write(w->leaf, "cgroup.procs", "0");
		/* The same draws whatever the ops met: the choices replay */
		i = bag_draw(w, total);
		for (res = 0; res < NARGS; res++)
			a[res] = splitmix64(&w->rng);
		/* Overtime: the short ops, and 1 in 4 of the others */
		coin = splitmix64(&w->rng) % 4;
		if (t >= deadline && !op_short(i) && coin)
			continue;
		c = (struct call){ .a = a, .arg = ops[i].arg };
		timed_out = 0;
		__atomic_store_n(&sh->cur[w->id].since, t, __ATOMIC_RELAXED);
		__atomic_store_n(&sh->cur[w->id].op, i, __ATOMIC_RELEASE);
		alarm(OP_TIMEOUT);
		if (ops[i].region)
			c.r = region_get(w, a[0], ops[i].region == ANON_REGION);
		if (c.r)
			pick_range(&c, a[1]);
		res = ops[i].region && !c.r ? done(w, 1) : ops[i].fn(w, &c);
		alarm(0);
		__atomic_store_n(&sh->cur[w->id].op, -1, __ATOMIC_RELAXED);
		op_took(i, now_ms() - t);
		if (res == OP_SKIP) {
			__atomic_add_fetch(&sh->op[i].skipped, 1,
					   __ATOMIC_RELAXED);
			continue;
		}
		__atomic_add_fetch(&sh->op[i].count, 1, __ATOMIC_RELAXED);
		if (res == OP_ERR) {
			__atomic_add_fetch(&sh->op[i].errors, 1,
					   __ATOMIC_RELAXED);
			__atomic_add_fetch(&sh->errnos[w->err % ERRNO_MAX], 1,
					   __ATOMIC_RELAXED);
		}
	}
	for (i = 0; i < MAX_KIDS; i++)
		if (w->kids[i].pid)
			wait_child(w->kids[i].pid, 0);
	while (w->nreg)
		region_free(w, 0);
	exit(0);
}

/* Parent */

static int kmsg_fd = -1;
static pid_t wpid[MAX_WORKERS];
static int wgen[MAX_WORKERS];

static void kmsg_drain(void)
{
	char buf[8192], *msg;
	unsigned int i;
	ssize_t n;

	while (kmsg_fd >= 0) {
		n = read(kmsg_fd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			return;
		buf[n] = 0;
		msg = strchr(buf, ';') ? strchr(buf, ';') + 1 : buf;
		msg[strcspn(msg, "\n")] = 0;
		for (i = 0; i < sizeof(kmsg_bad) / sizeof(*kmsg_bad); i++)
			if (strstr(msg, kmsg_bad[i])) {
				violation("kernel %s", msg);
				break;
			}
	}
}

static pid_t worker_start(int id)
{
	pid_t pid = fork();

	if (!pid)
		worker_main(id, wgen[id]);
	if (pid < 0)
		say("note: fork worker %d: %s", id, strerror(errno));
	return pid < 0 ? 0 : pid;
}

/*
 * An op still running STUCK_S after its alarm went off waits in the
 * kernel for something that does not come: say which, once per op, with
 * the blocked tasks' stacks on the console, while they are still there.
 * Not a violation: a slow host can get there too; a hang then ends in the
 * guest's timeout, whose report these lines explain.
 */
static void stuck(void)
{
	static long said[MAX_WORKERS];
	long t = now_ms(), since;
	char msg[128];
	int i, op;

	for (i = 0; i < nworkers; i++) {
		op = __atomic_load_n(&sh->cur[i].op, __ATOMIC_ACQUIRE);
		since = __atomic_load_n(&sh->cur[i].since, __ATOMIC_RELAXED);
		if (op < 0 || said[i] == since ||
		    t - since < (OP_TIMEOUT + STUCK_S) * 1000L)
			continue;
		said[i] = since;
		snprintf(msg, sizeof(msg),
			 "tierstress: worker %d stuck in %s for %ld s: blocked tasks follow",
			 i, ops[op].name, (t - since) / 1000);
		say("note: %s", msg);
		write_file("/dev/kmsg", msg);
		write_file("/proc/sysrq-trigger", "w");
	}
}

/* Reaps workers and orphans (it is their subreaper): workers left */
static int reap(int restart)
{
	int st, i, live = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (i = 0; i < nworkers && wpid[i] != pid; i++)
			;
		if (i == nworkers)
			continue;
		wpid[i] = 0;
		/* A worker killed mid-op is not stuck in it */
		__atomic_store_n(&sh->cur[i].op, -1, __ATOMIC_RELAXED);
		if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
			violation("worker %d died of signal %d", i,
				  WTERMSIG(st));
		else if (WIFEXITED(st) && WEXITSTATUS(st))
			say("note: worker %d exited %d", i, WEXITSTATUS(st));
		if (restart && WIFSIGNALED(st) && wgen[i] < 100) {
			say("note: worker %d killed, restarted", i);
			wgen[i]++;
			wpid[i] = worker_start(i);
		}
	}
	for (i = 0; i < nworkers; i++)
		live += !!wpid[i];
	return live;
}

/* The cgroups below @dir, children before parents */
static int cg_collect(const char *dir, char **list, int n)
{
	char path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)) && n < MAX_CGS - 16) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = cg_collect(path, list, n);
		if ((list[n] = strdup(path)))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* Thaws and kills everything under DIR, removes its cgroups bottom-up */
static void cg_cleanup(int top)
{
	char *list[MAX_CGS], path[PATH_MAX + 32];
	int n = cg_collect(cg_dir, list, 0), i, left = n, try;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/cgroup.freeze", list[i]);
		write_file(path, "0");
	}
	cg_write("", "cgroup.kill", "1");
	cg_wait_event("", "populated", 0, 10000);
	for (try = 0; try < 10 && left; try++, sleep_ms(200))
		for (left = i = 0; i < n; i++)
			left += rmdir(list[i]) && errno != ENOENT;
	for (i = 0; i < n; free(list[i++]))
		if (!access(list[i], F_OK))
			say("note: cgroup %s stays", list[i]);
	reap(0);
	if (top && rmdir(cg_dir) && errno != ENOENT)
		say("note: cgroup %s stays: %s", cg_dir, strerror(errno));
}

/* Are we in DIR's subtree?  (cgroup2 at /sys/fs/cgroup) */
static int inside_dir(void)
{
	char buf[PATH_MAX], *rel = buf + 3;
	size_t n = strlen("/sys/fs/cgroup");

	if (read_file("/proc/self/cgroup", buf, sizeof(buf)) < 0 ||
	    strncmp(buf, "0::", 3) || strncmp(cg_dir, "/sys/fs/cgroup", n))
		return 0;
	rel[strcspn(rel, "\n")] = 0;
	n = strlen(cg_dir + n);
	if (strncmp(rel, cg_dir + strlen("/sys/fs/cgroup"), n) ||
	    (rel[n] != '/' && rel[n]))
		return 0;
	fprintf(stderr, "tierstress: runs inside %s, which it kills\n", cg_dir);
	return 1;
}

/* Is SWAPDEV, or what it links to, a line of /proc/swaps? */
static int swap_is_on(void)
{
	char buf[8192], real[PATH_MAX], *p;
	size_t n;

	if (!realpath(swap_dev, real) ||
	    read_file("/proc/swaps", buf, sizeof(buf)) < 0)
		return 0;
	for (n = strlen(real), p = buf; (p = strstr(p, real)); p += n)
		if ((p == buf || p[-1] == '\n') &&
		    (p[n] == ' ' || p[n] == '\t'))
			return 1;
	return 0;
}

static void setting(const char *path, char *val, size_t size, int restore)
{
	if (restore && *val && write_file(path, val))
		say("note: restore %s=%s: %s", path, val, strerror(errno));
	if (!restore && read_file(path, val, size) < 0)
		val[0] = 0;
	val[strcspn(val, "\n")] = 0;
}

/* +memory +cpuset from the root down to DIR, then DIR and its leaves */
static int cg_setup(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], buf[256], *s;
	int i;

	for (i = 0; (s = strchr(cg_dir + i + 1, '/')); i = s - cg_dir) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(s - cg_dir), cg_dir);
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
		if (access(path, F_OK))
			continue;	/* not a cgroup yet: above the mount */
		write_file(path, "+memory");
		write_file(path, "+cpuset");
	}
	if (mkdir(cg_dir, 0755) && errno != EEXIST)
		return -1;
	cg_write("", "cgroup.subtree_control", "+memory");
	cg_write("", "cgroup.subtree_control", "+cpuset");
	cg_file(path, "", "cgroup.subtree_control");
	errno = ENOTSUP;
	if (read_file(path, buf, sizeof(buf)) < 0 || !strstr(buf, "memory"))
		return -1;
	if (!strstr(buf, "cpuset"))
		say("note: no cpuset controller in %s", cg_dir);
	for (i = 0; i < nworkers; i++) {
		snprintf(buf, sizeof(buf), "w%d", i);
		cg_file(path, buf, "");
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
	}
	return 0;
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr, "usage: tierstress [-s SEED] [-t SECONDS] [-w WORKERS] [-r DIR] [-f FILEDIR] [-S SWAPDEV] [-m MIN_EACH]\n");
	exit(2);
}

static unsigned long long number(const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !*s || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	char numa[32], demote[32], path[PATH_MAX], state[32];
	struct sigaction sa = { .sa_handler = on_stop };
	int opt, i, try, swap_was_on = 0, created, short_ops = 0;
	long end, over, secs = 60;
	struct timespec ts;
	struct dirent *de;
	struct stat sb;
	DIR *d;

	if (argc == 2 && !strcmp(argv[1], EXIT_FLAG))
		return 0;	/* the exec op's fallback */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	seed = (uint64_t)time(NULL) << 24 ^ (uint64_t)getpid() << 8 ^
	       ts.tv_nsec;
	while ((opt = getopt(argc, argv, "s:t:w:r:f:S:m:")) != -1) {
		switch (opt) {
		case 's': seed = number(optarg, ULLONG_MAX); break;
		case 't': secs = number(optarg, 10000000); break;
		case 'w': nworkers = number(optarg, MAX_WORKERS); break;
		case 'r': cg_dir = optarg; break;
		case 'f': file_dir = optarg; break;
		case 'S': swap_dev = optarg; break;
		case 'm': min_each = number(optarg, LONG_MAX); break;
		default: usage();
		}
	}
	if (optind != argc || nworkers < 1 || cg_dir[0] != '/' || inside_dir())
		usage();
	say("seed %llu", (unsigned long long)seed);

	page = sysconf(_SC_PAGESIZE);
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	ncpus = ncpus > 0 ? ncpus : 1;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	snprintf(lock_dir, sizeof(lock_dir), "/tmp/tierstress.%d",
		 (int)getpid());
	if (sh == MAP_FAILED || (mkdir(lock_dir, 0700) && errno != EEXIST)) {
		say("tierstress: %s: %s", lock_dir, strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	write_file("/proc/self/oom_score_adj", "-1000");
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	/* What the end restores */
	setting("/proc/sys/kernel/numa_balancing", numa, sizeof(numa), 0);
	setting("/sys/kernel/mm/numa/demotion_enabled", demote,
		sizeof(demote), 0);
	if (swap_dev) {
		swap_was_on = swap_is_on();
		sh->swap_off = !swap_was_on;
	}
	created = stat(cg_dir, &sb) != 0;
	if (!created)
		cg_cleanup(0);	/* what a run that did not end left */
	if (cg_setup()) {
		say("tierstress: setup %s: %s", cg_dir, strerror(errno));
		say("tierstress: FAIL");
		return 1;
	}
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd < 0)
		say("note: /dev/kmsg: %s: no kernel report checked",
		    strerror(errno));
	else
		lseek(kmsg_fd, 0, SEEK_END);

	deadline = now_ms() + secs * 1000;
	overtime_end = min_each ? deadline + secs * 500 : deadline;
	for (i = 0; i < nworkers; i++) {
		sh->cur[i].op = -1;
		wpid[i] = worker_start(i);
	}
	while ((end = deadline - now_ms()) > 0 && !interrupted) {
		kmsg_drain();
		stuck();
		reap(1);
		sleep_ms(end < 200 ? end : 200);
	}
	for (over = 0; run_on(now_ms()) && !interrupted; over++) {
		kmsg_drain();
		stuck();
		reap(1);
		sleep_ms(200);
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	if (over)
		say("overtime %ld s: ops short of %ld ran on",
		    (now_ms() - deadline + 999) / 1000, min_each);

	/* Workers end their op (alarm-bounded): 30 s, then SIGKILL */
	for (end = now_ms() + 30000; reap(0) && now_ms() < end; sleep_ms(100)) {
		kmsg_drain();
		stuck();
	}
	for (i = 0; i < nworkers; i++)
		if (wpid[i]) {
			say("note: worker %d still running: SIGKILL", i);
			kill(wpid[i], SIGKILL);
		}
	for (end = now_ms() + 5000; reap(0) && now_ms() < end;)
		sleep_ms(100);

	cg_cleanup(created);
	if (swap_dev && swap_was_on != swap_is_on() &&
	    (swap_was_on ? swapon(swap_dev, 0) : swapoff(swap_dev)))
		say("note: restore swap %s: %s", swap_dev, strerror(errno));
	for (i = 0; i < sh->nr_offlined; i++) {
		snprintf(path, sizeof(path), SYSMEM "/memory%d/state",
			 sh->offlined[i]);
		for (try = 0; try < 5; try++, sleep_ms(200)) {
			setting(path, state, sizeof(state), 0);
			if (strcmp(state, "offline") ||
			    !block_write(sh->offlined[i], "online_movable"))
				break;
		}
		if (try == 5)
			say("note: memory%d stays offline", sh->offlined[i]);
	}
	setting("/proc/sys/kernel/numa_balancing", numa, 0, 1);
	setting("/sys/kernel/mm/numa/demotion_enabled", demote, 0, 1);
	for (d = opendir(lock_dir); d && (de = readdir(d));) {
		snprintf(path, sizeof(path), "%s/%s", lock_dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(lock_dir);
	sleep_ms(500);		/* what the cleanup made the kernel say */
	kmsg_drain();

	/* The report: the ops last, then the verdict */
	for (i = 0; i < NR_CHECKS; i++)
		say("check %s ok=%ld bad=%ld skipped=%ld", check_names[i],
		    sh->checks[i][CK_OK], sh->checks[i][CK_BAD],
		    sh->checks[i][CK_SKIP]);
	for (i = 1; i < ERRNO_MAX; i++)
		if (sh->errnos[i])
			say("errno %s %ld", strerrorname_np(i) ?: "?",
			    sh->errnos[i]);
	for (i = 0; i < NR_OPS; i++)
		if (sh->op[i].skipped)
			say("skipped %s %ld", ops[i].name, sh->op[i].skipped);
	if (min_each && !swap_dev)
		say("min-each: swapoff not checked: no -S");
	for (i = 0; i < NR_OPS; i++) {
		if (!op_short(i))
			continue;
		say("min-each: %s ran %ld < %ld", ops[i].name,
		    sh->op[i].count, min_each);
		short_ops++;
	}
	for (i = 0; i < NR_OPS; i++)
		say("op %s %ld %ld %ld", ops[i].name, sh->op[i].count,
		    sh->op[i].errors, sh->op[i].longest_ms);
	say("violations %ld", sh->violations);
	say("tierstress: %s", sh->violations || short_ops ? "FAIL" : "ok");
	return sh->violations || short_ops ? 1 : 0;
}
