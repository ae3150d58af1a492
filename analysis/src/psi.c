// SPDX-License-Identifier: GPL-2.0
/*
 * memory.pressure: "some avg10=1.23 avg60=... avg300=... total=..." and
 * the same for "full".  Only avg10 is kept: top refreshes every second
 * or so, and the 10 s average is the one that moves with it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "psi.h"

/* "avg10=12.34" -> 1234; -1 when the line has no such field */
static int64_t avg10(const char *line)
{
	unsigned int whole, frac;
	const char *p = strstr(line, " avg10=");

	if (!p || sscanf(p + 7, "%u.%2u", &whole, &frac) != 2)
		return -1;
	return (int64_t)whole * 100 + frac;
}

bool psi_read(int dir, struct psi *p)
{
	int fd = openat(dir, "memory.pressure", O_RDONLY);
	char line[256];
	FILE *f;

	p->some = p->full = -1;
	if (fd < 0)
		return false;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "some ", 5))
			p->some = avg10(line);
		else if (!strncmp(line, "full ", 5))
			p->full = avg10(line);
	}
	fclose(f);
	return p->some >= 0 || p->full >= 0;
}
