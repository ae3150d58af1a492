// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into test_memcontrol: its stdout goes to a file, and a fully
 * buffered stdout is copied into every child it forks, so each child's
 * exit would print the parent's pending results again.
 */
#include <stdio.h>

__attribute__((constructor)) static void line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
