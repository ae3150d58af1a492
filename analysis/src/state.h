/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-cgroup, per-tier state built one record at a time.  Memory grows
 * with cgroups x tiers x time buckets, never with the number of records:
 * every figure a report prints is a running sum, a latest value or a
 * per-bucket aggregate.
 */
#ifndef STATE_H
#define STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "decode.h"

#define NO_LIMIT (~0ULL)

/*
 * What one tier of one cgroup saw in one time bucket.  A tier keeps only
 * the buckets it had a record in, in time order: thousands of cgroups
 * with a few records each cost their records' buckets, not the capture's.
 */
struct bucket {
	uint32_t k;			/* its index: k * interval from t0 */
	int64_t charged, uncharged;	/* pages */
	uint64_t usage;			/* at the bucket's last event */
	uint64_t peak;
	uint64_t high, max;
	uint32_t reclaims, flips;
	/* folios refused migration into the tier, and their pages */
	uint32_t refused_folios;
	int64_t refused_pages;
	/* allocations steered away from the tier, and placed on it instead */
	uint32_t steered_away, steered_in;
	int64_t steered_in_pages;
	int64_t reclaimed, recharged, moved_in;
	bool has_usage;
};

struct tier_state {
	bool seen;			/* any event, or a tier_stat line */
	bool usage_known;
	uint64_t usage, peak;		/* pages */
	/* at the capture's start, from a tier_stat snapshot */
	bool start_known;
	uint64_t start_usage, start_high, start_max;
	uint64_t min, low, high, max;	/* pages; NO_LIMIT for "max" */
	/* memory.tier_stat's promoted, demoted: pages, at start and end */
	uint64_t promoted_at[2], demoted_at[2];
	bool moves_at[2];
	bool min_low_known;		/* from a tier_stat snapshot */
	char nodes[32];			/* "0" or "1-3", when known */
	int64_t charged, uncharged;
	uint64_t forced;		/* charges over the tier's max */
	uint64_t reclaims[NR_RECLAIM_REASONS];
	int64_t reclaimed[NR_RECLAIM_REASONS];
	/* migrations into the tier refused: folios, and their pages */
	uint64_t refused_folios[NR_REFUSE_REASONS];
	int64_t refused_pages[NR_REFUSE_REASONS];
	/*
	 * Allocations (of a folio of any order) steered away from the tier
	 * because its share was full, and placed on it instead of the tier
	 * they preferred: memory.tier_stat's "steered" is steered_away.
	 */
	uint64_t steered_away, steered_in;
	int64_t recharged;		/* reclaimed, then charged back */
	/* reclaim churn: pages reclaimed and not yet charged back */
	int64_t pool;
	uint64_t last_reclaim_ts;
	bool in_window;			/* a record inside --since/--until */
	/*
	 * The charge records' own account, checked record by record: each
	 * one's usage is the last one's plus its nr_pages, except where
	 * two charges raced (see check_chain() in state.c).
	 */
	bool have_prev;			/* chain_usage holds a record's */
	bool chained;			/* and the account has started */
	uint64_t chain_usage;
	int64_t open;			/* a race's pages not yet seen */
	uint64_t open_most, cover;	/* its largest; the pages of its records */
	int open_left;			/* records that may still close it */
	uint64_t open_ts;
	uint64_t bad_records;		/* records that broke the account */
	uint64_t first_bad_ts;
	struct bucket *b;		/* by k, only those with a record */
	uint32_t nb, cap;		/* buckets held, allocated */
};

struct cgroup_state {
	uint64_t id;
	char *path;			/* NULL until named */
	bool removed;
	bool records;			/* any memcg_tier record names it */
	int last_steer_slot;		/* -1 before the first steer */
	struct tier_state tier[TIER_MAX_SLOTS];
};

/* Time buckets per tier at most, whatever --bucket asks for */
#define BUCKETS_MAX 100000U

struct analysis_config {
	uint64_t interval;		/* bucket length, ns; 0: automatic */
	uint64_t window;		/* reclaim-recharge window, ns */
	uint64_t since, until;		/* relative to the first record, ns */
	uint32_t max_buckets;		/* with an automatic interval */
};

struct analysis {
	struct analysis_config cfg;
	uint64_t interval;		/* current bucket length */
	uint64_t first_ts, last_ts;	/* of any record in the capture */
	uint64_t t0;			/* start of bucket 0 */
	bool started;
	uint32_t nb;			/* buckets spanned so far */
	struct cgroup_state *cg;
	uint32_t nr_cg, cap_cg;
	uint32_t hint;			/* the cgroup looked up last */
	uint32_t *index;		/* id hash: cg index + 1, 0 empty */
	uint32_t index_mask;
	int node_slot[TIER_MAX_NODES];	/* learnt from events; -1 unknown */
	uint64_t capacity[TIER_MAX_SLOTS];	/* pages, from a snapshot; 0 unknown */
	bool snapshot;			/* a tier_stat snapshot named the cgroups */
	/* Records that contradict the capture: see struct damage in read.h */
	uint64_t bad_nodes;		/* a node in two tiers */
	uint64_t first_bad_node_ts;
	uint64_t records;		/* records of any event */
	uint64_t counted[REC_NR_KINDS];	/* inside --since/--until */
	uint64_t lost;			/* ring buffer overruns */
	int page_size;			/* the capture's */
};

void analysis_init(struct analysis *a, const struct analysis_config *cfg);
void analysis_free(struct analysis *a);

/*
 * Account one record's timestamp (every record read passes, whatever its
 * event, to fix the capture's time span).
 */
void analysis_tick(struct analysis *a, uint64_t ts);
/* Whether @ts is past --until, counted from the first record */
bool analysis_past_until(const struct analysis *a, uint64_t ts);
enum feed_result { FEED_OK, FEED_NOMEM, FEED_TOO_MANY_BUCKETS };

/* Feed one decoded record */
enum feed_result analysis_feed(struct analysis *a,
			       const struct tier_record *r);

/* @n records the ring buffer dropped: the usage account restarts */
void analysis_lost(struct analysis *a, uint64_t n);
/* After the last record: close the open accounts, settle the peaks */
void analysis_finish(struct analysis *a);

struct cgroup_state *analysis_cgroup(struct analysis *a, uint64_t id);
/* The cgroup of @id, or NULL when there is none (nothing is made) */
struct cgroup_state *analysis_find(struct analysis *a, uint64_t id);
bool analysis_name(struct analysis *a, uint64_t id, const char *path,
		   int len);
/* Tier state as a snapshot line gives it; sizes in pages */
struct tier_state *analysis_tier(struct analysis *a, uint64_t id, int slot);

/* Bucket @k of @t, or NULL when the tier had no record in it */
const struct bucket *tier_bucket(const struct tier_state *t, uint32_t k);
/* One past the tier's last bucket with a record */
uint32_t tier_span(const struct tier_state *t);

/* The bucket length that applies once a whole capture has been read */
uint64_t analysis_interval(const struct analysis *a);

#endif
