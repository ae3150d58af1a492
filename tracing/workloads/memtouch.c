// SPDX-License-Identifier: GPL-2.0
/*
 * memtouch: fault in anonymous memory and optionally keep it busy.
 *
 *   memtouch [-l] SIZE_MIB [HOLD_SECONDS]
 *
 * Maps SIZE_MIB of private anonymous memory, writes one byte per page so
 * every page is charged to the caller's memory cgroup, then, if asked,
 * keeps re-touching the pages for HOLD_SECONDS so they stay hot.  With -l
 * the pages are mlocked: reclaim cannot take them, only other memory.  Exits 0
 * when done; an OOM kill shows as death by SIGKILL to the caller.
 */
#include <errno.h>
#include <stdbool.h>
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
	if (errno || *end || v < 0) {
		fprintf(stderr, "memtouch: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	long mib, hold;
	size_t len, off;
	time_t end;
	bool lock = argc > 1 && !strcmp(argv[1], "-l");
	char *buf;

	argc -= lock;
	argv += lock;
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: memtouch [-l] SIZE_MIB [HOLD_SECONDS]\n");
		return 2;
	}
	mib = parse(argv[1], "size");
	hold = argc == 3 ? parse(argv[2], "hold time") : 0;
	len = (size_t)mib << 20;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "memtouch: mmap %ld MiB: %s\n", mib, strerror(errno));
		return 1;
	}
	if (lock && mlock(buf, len)) {
		fprintf(stderr, "memtouch: mlock %ld MiB: %s\n", mib, strerror(errno));
		return 1;
	}
	for (off = 0; off < len; off += page)
		buf[off] = 1;

	end = time(NULL) + hold;
	while (time(NULL) < end)
		for (off = 0; off < len; off += page)
			buf[off]++;
	return 0;
}
