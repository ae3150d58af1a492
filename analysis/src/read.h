/* SPDX-License-Identifier: GPL-2.0 */
/* Reading a trace-cmd capture and the files record.sh writes beside it */
#ifndef READ_H
#define READ_H

#include <stdbool.h>
#include <stddef.h>

#include "state.h"

/*
 * Stream every record of @file through the decoder into @a.  Returns 0,
 * or -1 with a message in err that names the problem (the caller adds
 * the file name): empty, not a capture, truncated, no memcg_tier
 * events, a malformed record.  *page_size is the capture's.
 */
int read_capture(struct analysis *a, const char *file, int *page_size,
		 char *err, size_t errlen);

/* "ID PATH" lines: cgroups that existed before recording started */
int read_cgroup_map(struct analysis *a, const char *file,
		    char *err, size_t errlen);

/*
 * A memory.tier_stat snapshot, "ID PATH tierN key=value..." lines: tier
 * nodes and limits, and usage at the capture's start.
 */
int read_tier_stat(struct analysis *a, const char *file, int page_size,
		   char *err, size_t errlen);

/* TRACE.dat -> TRACE.SUFFIX, when that file exists; NULL otherwise */
char *sidecar(const char *trace, const char *suffix);

#endif
