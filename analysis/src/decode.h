/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding of memcg_tier and cgroup trace records, by field name, from the
 * event formats a capture carries.  Nothing here knows about files: the
 * reader, the unit tests and the fuzz target feed it raw record bytes.
 */
#ifndef DECODE_H
#define DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <event-parse.h>

/* Tier slots the analyzer tracks; the kernel hands out far fewer. */
#define TIER_MAX_SLOTS 16
/* Nodes a reclaim or steer event's nodemask is decoded for */
#define TIER_MAX_NODES 64

enum rec_kind {
	REC_CHARGE,
	REC_RECLAIM,
	REC_REFUSE,
	REC_STEER,
	REC_MKDIR,
	REC_RMDIR,
	REC_NR_KINDS,
};

/*
 * The enum values the kernel prints with __print_symbolic, by name.  The
 * decoder maps the capture's numbers to these through the capture's own
 * symbol tables, so a kernel that renumbers its enums still decodes.
 */
enum charge_cause { CAUSE_ALLOC, CAUSE_UNCHARGE, CAUSE_MIGRATE, CAUSE_REPLACE,
		    CAUSE_OTHER, NR_CAUSES };
enum charge_outcome { OUTCOME_CHARGED, OUTCOME_FORCED, OUTCOME_FAILED,
		      OUTCOME_OTHER, NR_OUTCOMES };
enum reclaim_reason { RECLAIM_CHARGE, RECLAIM_HIGH, RECLAIM_LIMIT,
		      RECLAIM_EXCHANGE, RECLAIM_OTHER, NR_RECLAIM_REASONS };
enum refuse_reason { REFUSE_TIER_MAX, REFUSE_PROMOTION_GATE, REFUSE_OTHER,
		     NR_REFUSE_REASONS };

extern const char *const cause_names[NR_CAUSES];
extern const char *const outcome_names[NR_OUTCOMES];
extern const char *const reclaim_reason_names[NR_RECLAIM_REASONS];
extern const char *const refuse_reason_names[NR_REFUSE_REASONS];

/* One decoded record; which members mean something depends on kind. */
struct tier_record {
	enum rec_kind kind;
	unsigned long long ts;
	unsigned long long cgroup_id;
	int slot;		/* charge, reclaim; refuse: destination */
	int nid;		/* charge; refuse: destination; steer: target */
	int src_slot;		/* refuse */
	int src_nid;		/* refuse; steer: the node that was asked for */
	long long pages;	/* charge: signed change; reclaim: reclaimed;
				 * refuse: refused; steer: 1 << order */
	unsigned long long requested;	/* reclaim */
	unsigned long long usage;	/* charge, reclaim: after */
	unsigned long long usage_before; /* reclaim */
	unsigned long long high, max;	/* charge */
	int reason;		/* cause, reclaim_reason or refuse_reason */
	int outcome;		/* charge */
	unsigned long long nodes;	/* reclaim, steer: first 64 nodes */
	unsigned long long excluded;	/* steer: full tier slots */
	const char *path;	/* mkdir, rmdir: not NUL-terminated */
	int path_len;
};

struct field_ref {
	int offset;
	int size;
	int is_signed;
	int dynamic;		/* __data_loc or __rel_loc */
	int relative;		/* __rel_loc */
};

struct event_ref {
	int id;			/* -1 when the capture lacks the event */
	const char *name;
	struct field_ref f[10];
	/* raw value -> enum, for the symbolic fields */
	int *sym_map[2];
	int sym_len[2];
};

struct tier_decoder {
	struct tep_handle *tep;
	bool swap;		/* the capture's byte order is not ours */
	int type_offset, type_size;
	struct event_ref ev[REC_NR_KINDS];
};

/*
 * Resolve every event and field the analyzer reads.  Returns 0, or -1
 * with a message in err: an event without a required field, or with a
 * field of a type the analyzer cannot read.  A capture may lack whole
 * events; tier_decoder_has() tells which are there.
 */
int tier_decoder_init(struct tier_decoder *d, struct tep_handle *tep,
		      char *err, size_t errlen);
void tier_decoder_free(struct tier_decoder *d);
int tier_decoder_has(const struct tier_decoder *d, enum rec_kind kind);

/*
 * Decode one record's payload.  Returns 1 with *out filled, 0 for a
 * record of another event, -1 for a record too short for its own fields
 * or with a value out of range (message in err).
 */
int tier_decode(const struct tier_decoder *d, const void *data, int size,
		unsigned long long ts, struct tier_record *out,
		char *err, size_t errlen);

#endif
