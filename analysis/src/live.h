/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memcg_tier events read live from tracefs, through a tracing
 * instance of our own: the top-level buffer and every other instance
 * stay as they were, and removing the instance undoes all we changed.
 */
#ifndef LIVE_H
#define LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "state.h"

struct tracefs_instance;

struct live {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct tier_decoder dec;
	struct analysis *a;
	uint64_t records;	/* memcg_tier and cgroup records read */
	uint64_t bad;		/* records that did not decode */
	uint64_t lost;		/* overwritten before we read them */
	int nr_cpus;
	enum feed_result feed;	/* of the last record fed */
};

/*
 * Make the instance and enable the memcg_tier events and cgroup_mkdir /
 * cgroup_rmdir in it; records go into @a.  Returns 0, or -1 with a
 * message in err: no tracefs, no memcg_tier events, no permission.
 */
int live_open(struct live *l, struct analysis *a, char *err, size_t errlen);

/*
 * Feed every record the instance holds now into the analysis, and count
 * the records the ring buffer overwrote since the last call.  Returns 0,
 * -1 when out of memory, -2 when the buffers could not be read.
 */
int live_drain(struct live *l);

/* Stop the events, read what is left, and remove the instance; as above */
int live_close(struct live *l);

#endif
