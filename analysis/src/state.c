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
	free(a->index);
	a->cg = NULL;
	a->index = NULL;
	a->nr_cg = 0;
}

uint64_t analysis_interval(const struct analysis *a)
{
	return a->interval;
}

const struct bucket *tier_bucket(const struct tier_state *t, uint32_t k)
{
	uint32_t lo = 0, hi = t->nb;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->b[mid].k < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nb && t->b[lo].k == k ? &t->b[lo] : NULL;
}

uint32_t tier_span(const struct tier_state *t)
{
	return t->nb ? t->b[t->nb - 1].k + 1 : 0;
}

/* @y, the bucket after @x in time, merged into @x */
static void merge_bucket(struct bucket *x, const struct bucket *y)
{
	x->charged += y->charged;
	x->uncharged += y->uncharged;
	x->reclaims += y->reclaims;
	x->refused_folios += y->refused_folios;
	x->steered_away += y->steered_away;
	x->steered_in += y->steered_in;
	x->flips += y->flips;
	x->reclaimed += y->reclaimed;
	x->recharged += y->recharged;
	x->refused_pages += y->refused_pages;
	x->steered_in_pages += y->steered_in_pages;
	x->moved_in += y->moved_in;
	if (y->peak > x->peak)
		x->peak = y->peak;
	if (y->has_usage) {
		x->usage = y->usage;
		x->high = y->high;
		x->max = y->max;
		x->has_usage = true;
	}
}

/* Double the bucket length, merging every pair of neighbours */
static void coarsen(struct analysis *a)
{
	uint32_t i, k, n;
	int s;

	for (i = 0; i < a->nr_cg; i++) {
		for (s = 0; s < TIER_MAX_SLOTS; s++) {
			struct tier_state *t = &a->cg[i].tier[s];

			for (k = 0, n = 0; k < t->nb; k++) {
				struct bucket b = t->b[k];

				b.k /= 2;
				if (n && t->b[n - 1].k == b.k)
					merge_bucket(&t->b[n - 1], &b);
				else
					t->b[n++] = b;
			}
			t->nb = n;
		}
	}
	a->nb = (a->nb + 1) / 2;
	a->interval *= 2;
}

void analysis_tick(struct analysis *a, uint64_t ts)
{
	if (!a->started) {
		a->started = true;
		a->first_ts = ts;
		/* A damaged first timestamp must not wrap the window round */
		a->t0 = ts > UINT64_MAX - a->cfg.since ? UINT64_MAX :
			ts + a->cfg.since;
	}
	if (ts > a->last_ts)
		a->last_ts = ts;
	a->records++;
}

bool analysis_past_until(const struct analysis *a, uint64_t ts)
{
	/* A timestamp before the first is going back, not past the end */
	return a->started && a->cfg.until && ts > a->first_ts &&
	       ts - a->first_ts > a->cfg.until;
}

/*
 * The bucket of @ts for tier @t; NULL when out of memory or when a fixed
 * --bucket would need more than BUCKETS_MAX of them (*too_many set).
 */
static struct bucket *bucket_at(struct analysis *a, struct tier_state *t,
				uint64_t ts, bool *too_many)
{
	uint64_t idx = (ts - a->t0) / a->interval;
	uint32_t pos;

	while (!a->cfg.interval && idx >= a->cfg.max_buckets) {
		coarsen(a);
		idx = (ts - a->t0) / a->interval;
	}
	if (idx >= BUCKETS_MAX) {
		*too_many = true;
		return NULL;
	}
	if (idx >= a->nb)
		a->nb = idx + 1;
	/* Records come in time order: the bucket is the last one or new */
	pos = t->nb;
	while (pos && t->b[pos - 1].k > idx)
		pos--;		/* a timestamp that went back: damage, said */
	if (pos && t->b[pos - 1].k == idx)
		return &t->b[pos - 1];
	if (t->nb == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;	/* <= 2 * BUCKETS_MAX */
		struct bucket *b = realloc(t->b, (size_t)cap * sizeof(*b));

		if (!b)
			return NULL;
		t->b = b;
		t->cap = cap;
	}
	memmove(&t->b[pos + 1], &t->b[pos], (t->nb - pos) * sizeof(*t->b));
	t->nb++;
	memset(&t->b[pos], 0, sizeof(*t->b));
	t->b[pos].k = idx;
	return &t->b[pos];
}

static uint32_t id_hash(uint64_t id, uint32_t mask)
{
	return (uint32_t)((id * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

/* The index slot of @id: where it is, or the empty one it would take */
static uint32_t *index_slot(const struct analysis *a, uint64_t id)
{
	uint32_t h = id_hash(id, a->index_mask);

	while (a->index[h] && a->cg[a->index[h] - 1].id != id)
		h = (h + 1) & a->index_mask;
	return &a->index[h];
}

/* Keep the index at most half full: rebuilt at twice the cgroups */
static bool index_grow(struct analysis *a)
{
	uint32_t size = a->index ? (a->index_mask + 1) * 2 : 64, i;
	uint32_t *index;

	if (a->index && a->nr_cg < (a->index_mask + 1) / 2)
		return true;
	index = calloc(size, sizeof(*index));
	if (!index)
		return false;
	free(a->index);
	a->index = index;
	a->index_mask = size - 1;
	for (i = 0; i < a->nr_cg; i++)
		*index_slot(a, a->cg[i].id) = i + 1;
	return true;
}

struct cgroup_state *analysis_find(struct analysis *a, uint64_t id)
{
	uint32_t *slot;

	if (!a->index)
		return NULL;
	slot = index_slot(a, id);
	return *slot ? &a->cg[*slot - 1] : NULL;
}

struct cgroup_state *analysis_cgroup(struct analysis *a, uint64_t id)
{
	struct cgroup_state *cg;
	uint32_t *slot;
	int s;

	if (a->hint < a->nr_cg && a->cg[a->hint].id == id)
		return &a->cg[a->hint];
	if (!index_grow(a))
		return NULL;
	slot = index_slot(a, id);
	if (*slot)
		return &a->cg[a->hint = *slot - 1];
	if (a->nr_cg == a->cap_cg) {
		uint32_t cap = a->cap_cg ? a->cap_cg * 2 : 16;

		cg = realloc(a->cg, (size_t)cap * sizeof(*cg));
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
	*slot = ++a->nr_cg;
	a->hint = a->nr_cg - 1;
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

/* A node belongs to one tier: a record that moves it is damaged */
static void learn_node(struct analysis *a, int nid, int slot, uint64_t ts)
{
	if (nid < 0 || nid >= TIER_MAX_NODES || slot < 0)
		return;
	if (a->node_slot[nid] >= 0 && a->node_slot[nid] != slot) {
		if (!a->bad_nodes++)
			a->first_bad_node_ts = ts;
		return;
	}
	a->node_slot[nid] = slot;
}

static void chain_break(struct tier_state *t, uint64_t ts)
{
	if (!t->bad_records++)
		t->first_bad_ts = ts;
	t->open = 0;
}

/*
 * Each charge record carries its tier's usage as read after its own
 * change, so in a whole capture it is the previous record's usage plus
 * its nr_pages.  Charges to one tier that race on several CPUs bend that
 * for a few records: a record can read the counter after a later
 * record's change, so the running difference ("open") leaves zero, by
 * no more than the pages of the racing records, and returns to zero
 * within OPEN_RECORDS records.  A record whose usage or nr_pages was
 * damaged opens a difference that no later record closes, or one larger
 * than the pages around it.
 */
#define OPEN_RECORDS 16

static uint64_t pages_abs(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

static void check_chain(struct tier_state *t, const struct tier_record *r)
{
	int64_t d;

	/*
	 * The account starts at two records that agree: the first record
	 * of a tier may itself have read a racing charge.
	 */
	if (!t->chained) {
		t->chained = t->have_prev &&
			r->usage == t->chain_usage + (uint64_t)r->pages;
		t->have_prev = true;
		t->chain_usage = r->usage;
		return;
	}
	/* A damaged usage can be anything: overflowing is breaking */
	if (__builtin_sub_overflow((int64_t)(r->usage - t->chain_usage),
				   r->pages, &d)) {
		t->chain_usage = r->usage;
		chain_break(t, r->ts);
		return;
	}
	t->chain_usage = r->usage;
	if (!t->open && !d)
		return;
	if (!t->open) {
		t->open_left = OPEN_RECORDS;
		t->open_ts = r->ts;
		t->open_most = t->cover = 0;
	}
	if (__builtin_add_overflow(t->open, d, &t->open)) {
		chain_break(t, t->open_ts);
		return;
	}
	t->cover += pages_abs(r->pages);
	if (pages_abs(t->open) > t->open_most)
		t->open_most = pages_abs(t->open);
	if (!t->open) {
		if (t->open_most > t->cover)
			chain_break(t, t->open_ts);
		return;
	}
	if (--t->open_left <= 0)
		chain_break(t, t->open_ts);
}

/* Every chain is cut where the ring buffer dropped records */
void analysis_lost(struct analysis *a, uint64_t n)
{
	uint32_t i;
	int s;

	a->lost += n;
	for (i = 0; i < a->nr_cg; i++)
		for (s = 0; s < TIER_MAX_SLOTS; s++) {
			a->cg[i].tier[s].chained = false;
			a->cg[i].tier[s].have_prev = false;
			a->cg[i].tier[s].open = 0;
		}
}

void analysis_finish(struct analysis *a)
{
	uint32_t i;
	int s;

	for (i = 0; i < a->nr_cg; i++)
		for (s = 0; s < TIER_MAX_SLOTS; s++) {
			struct tier_state *t = &a->cg[i].tier[s];

			if (t->open)
				chain_break(t, t->open_ts);
			/* Usage left by records before --since held in it */
			if (t->usage_known && t->usage > t->peak)
				t->peak = t->usage;
		}
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

enum feed_result analysis_feed(struct analysis *a,
			       const struct tier_record *r)
{
	bool in_range = r->ts >= a->t0;
	struct cgroup_state *cg;
	struct tier_state *t;
	bool too_many = false;
	struct bucket *b;
	int slot;

	if (r->kind == REC_MKDIR || r->kind == REC_RMDIR) {
		if (!analysis_name(a, r->cgroup_id, r->path, r->path_len))
			return FEED_NOMEM;
		if (r->kind == REC_RMDIR)
			analysis_cgroup(a, r->cgroup_id)->removed = true;
		return FEED_OK;
	}
	cg = analysis_cgroup(a, r->cgroup_id);
	if (!cg)
		return FEED_NOMEM;
	cg->records = true;
	if (in_range)
		a->counted[r->kind]++;

	slot = r->slot;
	if (r->kind == REC_STEER)
		slot = steer_slot(a, r->nid, r->excluded, false);
	t = &cg->tier[slot];
	t->seen = true;
	if (in_range && !t->in_window) {
		t->in_window = true;
		/* The usage carried into the window is part of it */
		if (t->usage_known && t->usage > t->peak)
			t->peak = t->usage;
	}
	switch (r->kind) {
	case REC_CHARGE:
		learn_node(a, r->nid, r->slot, r->ts);
		check_chain(t, r);
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
		learn_node(a, r->nid, r->slot, r->ts);
		learn_node(a, r->src_nid, r->src_slot, r->ts);
		break;
	default:
		break;
	}
	if (!in_range)
		return FEED_OK;
	if (t->usage_known && t->usage > t->peak)
		t->peak = t->usage;
	b = bucket_at(a, t, r->ts, &too_many);
	if (!b)
		return too_many ? FEED_TOO_MANY_BUCKETS : FEED_NOMEM;

	switch (r->kind) {
	case REC_CHARGE:
		feed_charge(a, t, r, b);
		break;
	case REC_RECLAIM:
		feed_reclaim(a, t, r, b);
		break;
	case REC_REFUSE:
		t->refused_folios[r->reason]++;
		t->refused_pages[r->reason] += r->pages;
		b->refused_folios++;
		b->refused_pages += r->pages;
		break;
	case REC_STEER: {
		int from = steer_slot(a, r->src_nid, r->excluded, true);
		struct bucket *fb;

		/* The same time as b's: no coarsening can move b */
		cg->tier[from].seen = true;
		fb = bucket_at(a, &cg->tier[from], r->ts, &too_many);
		if (!fb)
			return too_many ? FEED_TOO_MANY_BUCKETS : FEED_NOMEM;
		cg->tier[from].steered_away++;
		fb->steered_away++;
		t->steered_in++;
		b->steered_in++;
		b->steered_in_pages += r->pages;
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
	return FEED_OK;
}
