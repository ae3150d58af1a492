// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cgroup, per-tier accumulation.  Usage and limits are taken from the
 * records themselves (each charge carries the tier's usage, high and max
 * after it), so a capture that starts after its cgroups did still shows
 * exact usage from the first record of each tier on.
 *
 * Time buckets: with --interval the length is fixed.  Without it the
 * analyzer cannot know the capture's length before reading it all, so
 * it starts at 10 ms and doubles the length, merging neighbours, each
 * time the capture outgrows max_buckets: one pass, bounded memory, and a
 * resolution that suits the capture.
 */
#include <stdlib.h>
#include <string.h>

#include "state.h"

#define AUTO_FIRST_INTERVAL 10000000ULL	/* 10 ms */

void analysis_init(struct analysis *a, const struct analysis_config *cfg)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	if (!a->cfg.max_buckets)
		a->cfg.max_buckets = 200;
	a->interval = cfg->interval ? cfg->interval : AUTO_FIRST_INTERVAL;
	for (i = 0; i < TIER_MAX_NODES; i++)
		a->node_slot[i] = -1;
}

void analysis_free(struct analysis *a)
{
	uint32_t i;
	int s;

	for (i = 0; i < a->nr_cg; i++) {
		free(a->cg[i].path);
		for (s = 0; s < TIER_MAX_SLOTS; s++)
			free(a->cg[i].tier[s].b);
	}
	free(a->cg);
	a->cg = NULL;
	a->nr_cg = 0;
}

uint64_t analysis_interval(const struct analysis *a)
{
	return a->interval;
}

static void merge_bucket(struct bucket *d, const struct bucket *x,
			 const struct bucket *y)
{
	struct bucket m = *x;

	m.charged += y->charged;
	m.uncharged += y->uncharged;
	m.reclaims += y->reclaims;
	m.refusals += y->refusals;
	m.steers += y->steers;
	m.flips += y->flips;
	m.reclaimed += y->reclaimed;
	m.recharged += y->recharged;
	m.refused += y->refused;
	m.steered_in += y->steered_in;
	m.moved_in += y->moved_in;
	if (y->peak > m.peak)
		m.peak = y->peak;
	if (y->has_usage) {
		m.usage = y->usage;
		m.high = y->high;
		m.max = y->max;
		m.has_usage = true;
	}
	*d = m;
}

/* Double the bucket length, merging every pair of neighbours */
static void coarsen(struct analysis *a)
{
	uint32_t i, k;
	int s;

	for (i = 0; i < a->nr_cg; i++) {
		for (s = 0; s < TIER_MAX_SLOTS; s++) {
			struct tier_state *t = &a->cg[i].tier[s];
			static const struct bucket empty;

			for (k = 0; k < t->nb; k += 2)
				merge_bucket(&t->b[k / 2], &t->b[k],
					     k + 1 < t->nb ? &t->b[k + 1] : &empty);
			t->nb = (t->nb + 1) / 2;
			if (t->b)
				memset(t->b + t->nb, 0,
				       (t->cap - t->nb) * sizeof(*t->b));
		}
	}
	a->nb = (a->nb + 1) / 2;
	a->interval *= 2;
}

bool analysis_tick(struct analysis *a, uint64_t ts)
{
	if (!a->started) {
		a->started = true;
		a->first_ts = ts;
		a->t0 = ts + a->cfg.since;
	}
	if (ts > a->last_ts)
		a->last_ts = ts;
	a->records++;
	if (a->cfg.until && ts > a->first_ts + a->cfg.until)
		return false;
	return true;
}

/* The bucket of @ts for tier @t; NULL when out of memory */
static struct bucket *bucket_at(struct analysis *a, struct tier_state *t,
				uint64_t ts)
{
	uint64_t idx = (ts - a->t0) / a->interval;

	while (!a->cfg.interval && idx >= a->cfg.max_buckets) {
		coarsen(a);
		idx = (ts - a->t0) / a->interval;
	}
	if (idx >= a->nb)
		a->nb = idx + 1;
	if (idx >= t->cap) {
		uint32_t cap = t->cap ? t->cap : 16;
		struct bucket *b;

		while (cap <= idx)
			cap *= 2;
		b = realloc(t->b, cap * sizeof(*b));
		if (!b)
			return NULL;
		memset(b + t->cap, 0, (cap - t->cap) * sizeof(*b));
		t->b = b;
		t->cap = cap;
	}
	if (idx >= t->nb)
		t->nb = idx + 1;
	return &t->b[idx];
}

struct cgroup_state *analysis_cgroup(struct analysis *a, uint64_t id)
{
	struct cgroup_state *cg;
	uint32_t i;
	int s;

	if (a->hint < a->nr_cg && a->cg[a->hint].id == id)
		return &a->cg[a->hint];
	for (i = 0; i < a->nr_cg; i++)
		if (a->cg[i].id == id)
			return &a->cg[a->hint = i];
	if (a->nr_cg == a->cap_cg) {
		uint32_t cap = a->cap_cg ? a->cap_cg * 2 : 16;

		cg = realloc(a->cg, cap * sizeof(*cg));
		if (!cg)
			return NULL;
		a->cg = cg;
		a->cap_cg = cap;
	}
	cg = &a->cg[a->nr_cg];
	memset(cg, 0, sizeof(*cg));
	cg->id = id;
	cg->last_steer_slot = -1;
	for (s = 0; s < TIER_MAX_SLOTS; s++) {
		cg->tier[s].high = cg->tier[s].max = NO_LIMIT;
		cg->tier[s].min = cg->tier[s].low = 0;
	}
	a->hint = a->nr_cg++;
	return cg;
}

bool analysis_name(struct analysis *a, uint64_t id, const char *path, int len)
{
	struct cgroup_state *cg = analysis_cgroup(a, id);
	char *p;

	if (!cg)
		return false;
	p = malloc(len + 1);
	if (!p)
		return false;
	if (len)
		memcpy(p, path, len);
	p[len] = '\0';
	free(cg->path);
	cg->path = p;
	return true;
}

struct tier_state *analysis_tier(struct analysis *a, uint64_t id, int slot)
{
	struct cgroup_state *cg;

	if (slot < 0 || slot >= TIER_MAX_SLOTS)
		return NULL;
	cg = analysis_cgroup(a, id);
	if (!cg)
		return NULL;
	cg->tier[slot].seen = true;
	return &cg->tier[slot];
}

static void learn_node(struct analysis *a, int nid, int slot)
{
	if (nid >= 0 && nid < TIER_MAX_NODES && slot >= 0)
		a->node_slot[nid] = slot;
}

/*
 * A steer event names nodes, not slots: the slot of a node seen in an
 * earlier charge, or else the first slot the event does not exclude
 * (for a target) or does (for the tier that was full).
 */
static int steer_slot(const struct analysis *a, int nid,
		      uint64_t excluded, bool full)
{
	int s;

	if (nid >= 0 && nid < TIER_MAX_NODES && a->node_slot[nid] >= 0)
		return a->node_slot[nid];
	for (s = 0; s < TIER_MAX_SLOTS; s++)
		if (!!(excluded & (1ULL << s)) == full)
			return s;
	return 0;
}

static void note_usage(struct tier_state *t, struct bucket *b)
{
	b->usage = t->usage;
	b->high = t->high;
	b->max = t->max;
	b->has_usage = true;
	if (t->usage > b->peak)
		b->peak = t->usage;
}

static void feed_charge(struct analysis *a, struct tier_state *t,
			const struct tier_record *r, struct bucket *b)
{
	if (r->pages > 0) {
		t->charged += r->pages;
		b->charged += r->pages;
	} else {
		t->uncharged -= r->pages;
		b->uncharged -= r->pages;
	}
	if (r->outcome == OUTCOME_FORCED)
		t->forced++;
	if (r->reason == CAUSE_MIGRATE && r->pages > 0)
		b->moved_in += r->pages;
	/* Pages reclaimed from this tier coming back within the window */
	if (r->pages > 0 && r->outcome != OUTCOME_FAILED && t->pool > 0 &&
	    r->ts - t->last_reclaim_ts <= a->cfg.window) {
		int64_t n = r->pages < t->pool ? r->pages : t->pool;

		t->pool -= n;
		t->recharged += n;
		b->recharged += n;
	}
}

static void feed_reclaim(struct analysis *a, struct tier_state *t,
			 const struct tier_record *r, struct bucket *b)
{
	t->reclaims[r->reason]++;
	t->reclaimed[r->reason] += r->pages;
	b->reclaims++;
	b->reclaimed += r->pages;
	if (r->ts - t->last_reclaim_ts > a->cfg.window)
		t->pool = 0;
	t->pool += r->pages;
	t->last_reclaim_ts = r->ts;
}

bool analysis_feed(struct analysis *a, const struct tier_record *r)
{
	bool in_range = r->ts >= a->t0;
	struct cgroup_state *cg;
	struct tier_state *t;
	struct bucket *b;
	int slot;

	if (r->kind == REC_MKDIR || r->kind == REC_RMDIR) {
		if (!analysis_name(a, r->cgroup_id, r->path, r->path_len))
			return false;
		if (r->kind == REC_RMDIR)
			analysis_cgroup(a, r->cgroup_id)->removed = true;
		return true;
	}
	cg = analysis_cgroup(a, r->cgroup_id);
	if (!cg)
		return false;
	if (in_range)
		a->counted[r->kind]++;

	slot = r->slot;
	if (r->kind == REC_STEER)
		slot = steer_slot(a, r->nid, r->excluded, false);
	t = &cg->tier[slot];
	t->seen = true;
	switch (r->kind) {
	case REC_CHARGE:
		learn_node(a, r->nid, r->slot);
		t->usage = r->usage;
		t->high = r->high;
		t->max = r->max;
		t->usage_known = true;
		break;
	case REC_RECLAIM:
		t->usage = r->usage;
		t->usage_known = true;
		break;
	case REC_REFUSE:
		learn_node(a, r->nid, r->slot);
		learn_node(a, r->src_nid, r->src_slot);
		break;
	default:
		break;
	}
	if (!in_range)
		return true;
	if (t->usage_known && t->usage > t->peak)
		t->peak = t->usage;
	b = bucket_at(a, t, r->ts);
	if (!b)
		return false;

	switch (r->kind) {
	case REC_CHARGE:
		feed_charge(a, t, r, b);
		break;
	case REC_RECLAIM:
		feed_reclaim(a, t, r, b);
		break;
	case REC_REFUSE:
		t->refusals[r->reason]++;
		t->refused[r->reason] += r->pages;
		b->refusals++;
		b->refused += r->pages;
		break;
	case REC_STEER: {
		int from = steer_slot(a, r->src_nid, r->excluded, true);

		cg->tier[from].seen = true;
		cg->tier[from].steered_away++;
		t->steered_in++;
		b->steers++;
		b->steered_in += r->pages;
		if (cg->last_steer_slot >= 0 && cg->last_steer_slot != slot)
			b->flips++;
		cg->last_steer_slot = slot;
		break;
	}
	default:
		break;
	}
	if (t->usage_known)
		note_usage(t, b);
	return true;
}
