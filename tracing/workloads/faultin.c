// SPDX-License-Identifier: GPL-2.0
/*
 * faultin: fault-in throughput of private anonymous memory.
 *
 *   faultin [-h HOLD_MIB] SIZE_MIB REPS
 *
 * Each repetition maps SIZE_MIB, writes one byte per page (one page fault
 * and one memcg charge per page with THP off) and unmaps it.  Only the
 * writes are timed: the figure is the cost of the fault and charge path,
 * not of mmap or of the uncharge at munmap.  One untimed repetition comes
 * first so that page tables and per-cpu caches are warm.  Prints one line
 * per timed repetition, "MIB_PER_SECOND", for the caller to summarise.
 * With -h it first faults in HOLD_MIB that it keeps until it exits: a
 * cgroup's fast-tier share filled, so that every timed fault is placed
 * where the tiers' limits send it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long parse(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "faultin: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds spent faulting in len bytes, or a negative value on error */
static double one_rep(size_t len, long page)
{
	volatile char *buf;
	double t0, t1;
	size_t off;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -1;
	t0 = now();
	for (off = 0; off < len; off += page)
		buf[off] = 1;
	t1 = now();
	munmap((void *)buf, len);
	return t1 - t0;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	long mib, reps, i, hold = 0;
	volatile char *held;
	size_t off;
	double s;
	int opt;

	while ((opt = getopt(argc, argv, "h:")) != -1) {
		if (opt != 'h')
			argc = 0;
		else
			hold = parse(optarg, "size to hold");
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: faultin [-h HOLD_MIB] SIZE_MIB REPS\n");
		return 2;
	}
	mib = parse(argv[optind], "size");
	reps = parse(argv[optind + 1], "repetition count");
	if (hold) {
		held = mmap(NULL, (size_t)hold << 20, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (held == MAP_FAILED) {
			fprintf(stderr, "faultin: mmap %ld MiB: %s\n", hold,
				strerror(errno));
			return 1;
		}
		for (off = 0; off < (size_t)hold << 20; off += page)
			held[off] = 1;
	}

	for (i = 0; i <= reps; i++) {
		s = one_rep((size_t)mib << 20, page);
		if (s < 0) {
			fprintf(stderr, "faultin: mmap %ld MiB: %s\n", mib,
				strerror(errno));
			return 1;
		}
		if (i > 0)
			printf("%.1f\n", mib / s);
	}
	return 0;
}
