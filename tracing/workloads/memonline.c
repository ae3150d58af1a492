// SPDX-License-Identifier: GPL-2.0
/*
 * memonline: time a node's memory blocks going online or offline.
 *
 *   memonline NODE online_movable|offline
 *
 * Writes the state to every memory block of NODE that is not in it yet,
 * one block at a time in block order, and prints "memoryN NANOSECONDS"
 * per block, then "total NANOSECONDS BLOCKS".  Only the write is timed:
 * that is where the kernel onlines the block and runs the memory notifier
 * chain (tier slots, memcg tier limits).  Exits 1 if a write fails.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int by_block(const struct dirent **a, const struct dirent **b)
{
	return atol((*a)->d_name + 6) - atol((*b)->d_name + 6);
}

static int is_block(const struct dirent *d)
{
	return !strncmp(d->d_name, "memory", 6) &&
	       d->d_name[6] >= '0' && d->d_name[6] <= '9';
}

/* The block's state, the first word of its state file */
static int read_state(const char *path, char *state, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(state, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	state[strcspn(state, "\n")] = '\0';
	return 0;
}

int main(int argc, char **argv)
{
	char dir[64], path[64 + 256 + 8], state[32];
	const char *want, *target;
	struct dirent **blocks;
	long long t, total = 0;
	int i, n, failed, done = 0, status = 0;

	if (argc != 3 || (strcmp(argv[2], "online_movable") &&
			  strcmp(argv[2], "offline"))) {
		fprintf(stderr, "usage: memonline NODE online_movable|offline\n");
		return 2;
	}
	want = argv[2];
	/* A block onlined as movable reads back "online" */
	target = strcmp(want, "offline") ? "online" : "offline";
	snprintf(dir, sizeof(dir), "/sys/devices/system/node/node%s", argv[1]);
	n = scandir(dir, &blocks, is_block, by_block);
	if (n < 0) {
		fprintf(stderr, "memonline: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (i = 0; i < n && !status; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/state", dir, blocks[i]->d_name);
		if (read_state(path, state, sizeof(state))) {
			fprintf(stderr, "memonline: cannot read %s\n", path);
			status = 1;
			continue;
		}
		if (!strcmp(state, target))
			continue;
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "memonline: %s: %s\n", path, strerror(errno));
			status = 1;
			continue;
		}
		/* The kernel sees the write when the stream is flushed */
		t = now_ns();
		failed = fputs(want, f) < 0;
		failed |= fclose(f) != 0;
		t = now_ns() - t;
		if (failed) {
			fprintf(stderr, "memonline: %s: %s failed: %s\n",
				blocks[i]->d_name, want, strerror(errno));
			status = 1;
			continue;
		}
		printf("%s %lld\n", blocks[i]->d_name, t);
		total += t;
		done++;
	}
	for (i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
	printf("total %lld %d\n", total, done);
	return status;
}
