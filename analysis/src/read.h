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
 * decoder into @a, up to --until, in time linear in the capture (with
 * libtracecmd before 1.5.1, by decompressing a compressed capture whole
 * first: libtracecmd-workaround.h).  @buffer names the buffer
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

/*
 * The side files below are read only from a regular file, with something
 * in it for a cgroup map (it names the root at least; a snapshot of a
 * kernel without the feature is empty); any other is refused with a
 * message naming it and what it was meant to be.  check_side_files()
 * says so before the capture is read, of the cgroup map and the
 * tier_stat snapshots taken at the start and at the end (each NULL when
 * there is none); read_side_files() reads them once the capture is, and
 * refuses another capture's.  *@named: how many of the file's lines are
 * of a cgroup the capture has records of.
 */
int check_side_files(const char *map, const char *start, const char *end,
		     char *err, size_t errlen);
int read_side_files(struct analysis *a, const char *map, const char *start,
		    const char *end, char *err, size_t errlen);

/* "ID PATH" lines: cgroups that existed before recording started */
int read_cgroup_map(struct analysis *a, const char *file,
		    unsigned int *named, char *err, size_t errlen);

/*
 * A memory.tier_stat snapshot, "ID PATH tierN key=value..." lines.  The
 * one taken at the capture's start gives tier nodes, limits and starting
 * usage; the one taken at its end (@end) the promoted and demoted
 * counters the summary subtracts the start's from.
 */
int read_tier_stat(struct analysis *a, const char *file, int page_size,
		   bool end, unsigned int *named, char *err, size_t errlen);

/*
 * One line of that form read live: the tier's usage and limits as they
 * are now (memcg-tier-report top).  @line is modified.
 */
int tier_stat_now(struct analysis *a, char *line, int page_size,
		  char *err, size_t errlen);

/* TRACE.dat -> TRACE.SUFFIX, when that file exists; NULL otherwise */
char *sidecar(const char *trace, const char *suffix);

#endif
