/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a capture could not be trusted for.  The reader notes what the
 * file itself gives away (a CPU's records ending before its data does,
 * records no format describes or too short for their fields, time going
 * backwards, records the ring buffer dropped); the state adds records that
 * contradict each other (a tier's usage account that does not add up,
 * usage above the tier's capacity, a node in two tiers, a cgroup that
 * nothing names).  Reports are still printed, with this list first, and
 * the exit status says the figures are not whole.
 */
#ifndef DAMAGE_H
#define DAMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state.h"
#include "table.h"

/* The exit status of a run whose capture was damaged */
#define EXIT_DAMAGED 3

enum damage_kind {
	DMG_STREAM_CUT,		/* a CPU's records end before its data */
	DMG_BAD_RECORD,		/* undecodable: too short, out of range */
	DMG_UNKNOWN_EVENT,	/* an event id the capture's formats lack */
	DMG_TIME_BACKWARDS,	/* a CPU's timestamps went back */
	DMG_LOST,		/* the ring buffer dropped records */
	DMG_ACCOUNT,		/* a tier's usage does not add up */
	DMG_CAPACITY,		/* usage above the tier's capacity */
	DMG_NODE,		/* a node in two tiers */
	DMG_PHANTOM,		/* records of a cgroup nothing names */
	NR_DAMAGE_KINDS,
};

struct damage_entry {
	enum damage_kind kind;
	int cpu;		/* -1: not one CPU's */
	uint64_t cgroup_id;	/* with cg */
	const struct cgroup_state *cg;
	int tier;		/* -1: no tier */
	uint64_t ts;		/* first seen */
	uint64_t count;		/* records (or bytes, for a cut stream) */
	char detail[160];
};

struct damage {
	struct damage_entry *e;
	size_t n, cap;
	uint64_t until;		/* earliest time from which figures miss data */
};

void damage_init(struct damage *d);
void damage_free(struct damage *d);
/* Note one problem; false when out of memory */
bool damage_add(struct damage *d, enum damage_kind kind, int cpu,
		uint64_t ts, uint64_t count, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* The contradictions the state found, after analysis_finish() */
bool damage_from_state(struct damage *d, const struct analysis *a);
/* As a table for the renderers; false when out of memory */
bool damage_table(struct table *t, const struct damage *d);

#endif
