// SPDX-License-Identifier: GPL-2.0
/*
 * tierpush: a workload with a known answer for the analyzer.
 *
 *   tierpush SIZE_MIB TIMES READY_FILE
 *
 * Faults in SIZE_MIB of anonymous 4K pages (no THP), so that a cgroup
 * whose fast-tier max is below SIZE_MIB gets the rest steered to the
 * slow tier.  Then TIMES times, one move_pages() call per page, asks for
 * one of its pages that are not on node 0 to move to node 0: with the
 * fast tier at its max every one is refused.  Prints "pushed TIMES
 * refused R moved M" (R: calls that left the page where it was),
 * creates READY_FILE and sleeps until killed, so
 * that its memory is still charged when the capture stops.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_MF_MOVE (1 << 1)

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0) {
		fprintf(stderr, "tierpush: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), size, times, i, done = 0;
	long refused = 0, moved = 0, ret;
	char *p;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: tierpush SIZE_MIB TIMES READY_FILE\n");
		return 2;
	}
	size = number(argv[1]) << 20;
	times = number(argv[2]);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("tierpush: mmap");
		return 1;
	}
	madvise(p, size, MADV_NOHUGEPAGE);
	for (i = 0; i < size; i += page)
		p[i] = 1;

	for (i = 0; i < size && done < times; i += page) {
		void *addr = p + i;
		int node = 0, status = -1;

		/* Where is it?  Only pages off node 0 are pushed */
		if (syscall(SYS_move_pages, 0, 1, &addr, NULL, &status, 0) ||
		    status == 0)
			continue;
		/*
		 * 6.12 returns the number of pages it could not migrate and
		 * leaves their status alone; a refusal is not an errno here.
		 */
		status = -1;
		ret = syscall(SYS_move_pages, 0, 1, &addr, &node, &status,
			      MPOL_MF_MOVE);
		done++;
		if (ret == 0 && status == 0)
			moved++;
		else if (ret > 0)
			refused++;
	}
	printf("pushed %ld refused %ld moved %ld\n", done, refused, moved);
	fflush(stdout);
	fd = open(argv[3], O_CREAT | O_WRONLY, 0644);
	if (fd < 0) {
		perror("tierpush: ready file");
		return 1;
	}
	close(fd);
	for (;;)
		pause();
}
