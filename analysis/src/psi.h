/* SPDX-License-Identifier: GPL-2.0 */
/* A cgroup's memory pressure, as the kernel's PSI accounts it */
#ifndef PSI_H
#define PSI_H

#include <stdbool.h>
#include <stdint.h>

/*
 * memory.pressure's avg10 of its "some" and "full" lines: the share of
 * the last 10 s in which some, or all, of the cgroup's tasks stalled on
 * memory; in hundredths of a percent.
 */
struct psi {
	int64_t some, full;
};

/*
 * Read memory.pressure in the directory @dir (a cgroup's).  False when
 * there is none or it says nothing we know: a kernel without
 * CONFIG_PSI, or booted with psi=0.
 */
bool psi_read(int dir, struct psi *p);

#endif
