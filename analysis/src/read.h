/* SPDX-License-Identifier: GPL-2.0 */
/* Reading a trace-cmd capture and the files record.sh writes beside it */
#ifndef READ_H
#define READ_H

#include <stdbool.h>
#include <stddef.h>

#include "damage.h"
#include "state.h"

/*
 * Called with each record's timestamp before the record is fed: how
 * memcg-tier-report top -i plays a capture at its pace.  Returning false
 * stops the reading there, as --until would.
 */
struct read_pace {
	bool (*at)(void *arg, uint64_t ts);
	void *arg;
};

/*
 * Stream every record of @file, in time order across CPUs, through the
 * decoder into @a, up to --until.  A compressed capture is first
 * decompressed whole, each CPU's data into a file of libtracecmd's own,
 * which it then reads in linear time.  @buffer names the buffer
 * instance to read ("top" or NULL for the main buffer; a capture with
 * instances needs one named); @pace, if not NULL, sees each record
 * first.  What the capture gives away as damaged
 * goes into @dmg and the reading goes on.  Returns 0, or -1 with a
 * message in err that names the problem (the caller adds the file
 * name): empty, not a capture, unreadable headers, no memcg_tier events,
 * an unknown buffer, a window past the capture's end.
 */
int read_capture(struct analysis *a, const char *file, const char *buffer,
		 const struct read_pace *pace, struct damage *dmg,
		 char *err, size_t errlen);

/* "ID PATH" lines: cgroups that existed before recording started */
int read_cgroup_map(struct analysis *a, const char *file,
		    char *err, size_t errlen);

/*
 * A memory.tier_stat snapshot, "ID PATH tierN key=value..." lines.  The
 * one taken at the capture's start gives tier nodes, limits and starting
 * usage; the one taken at its end (@end) the promoted and demoted
 * counters the summary subtracts the start's from.
 */
int read_tier_stat(struct analysis *a, const char *file, int page_size,
		   bool end, char *err, size_t errlen);

/*
 * One line of that form read live: the tier's usage and limits as they
 * are now (memcg-tier-report top).  @line is modified.
 */
int tier_stat_now(struct analysis *a, char *line, int page_size,
		  char *err, size_t errlen);

/* TRACE.dat -> TRACE.SUFFIX, when that file exists; NULL otherwise */
char *sidecar(const char *trace, const char *suffix);

#endif
