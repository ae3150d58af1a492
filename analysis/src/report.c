// SPDX-License-Identifier: GPL-2.0
/*
 * Reports over the accumulated state.  Churn findings are built from the
 * per-bucket aggregates: a finding is a run of consecutive buckets in
 * which one kind of churn happened, with the figures summed over the run,
 * so what the report can find is bounded by the state, not the capture.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

bool cgroup_selected(const struct cgroup_state *cg,
		     const struct report_opts *o)
{
	int i;

	if (!o->nr_cgroups)
		return true;
	for (i = 0; i < o->nr_cgroups; i++) {
		const char *want = o->cgroups[i];
		char *end;
		unsigned long long id = strtoull(want, &end, 10);

		if (isdigit((unsigned char)*want) && !*end && id == cg->id)
			return true;
		if (cg->path && (!strcmp(cg->path, want) ||
				 (*want != '/' && cg->path[0] == '/' &&
				  !strcmp(cg->path + 1, want))))
			return true;
	}
	return false;
}

const char *unknown_cgroup(const struct analysis *a,
			   const struct report_opts *o)
{
	struct report_opts one = { NULL, 1, 0 };
	uint32_t c;
	int i;

	for (i = 0; i < o->nr_cgroups; i++) {
		one.cgroups = &o->cgroups[i];
		for (c = 0; c < a->nr_cg; c++)
			if (cgroup_selected(&a->cg[c], &one))
				break;
		if (c == a->nr_cg)
			return o->cgroups[i];
	}
	return NULL;
}

static int by_path(const void *x, const void *y)
{
	const struct cgroup_state *a = *(struct cgroup_state *const *)x;
	const struct cgroup_state *b = *(struct cgroup_state *const *)y;
	int c = strcmp(a->path ? a->path : "~", b->path ? b->path : "~");

	return c ? c : (a->id > b->id) - (a->id < b->id);
}

/* The selected cgroups, by path; NULL (and *n 0) if none or no memory */
static struct cgroup_state **selected(const struct analysis *a,
				      const struct report_opts *o, uint32_t *n)
{
	struct cgroup_state **v = malloc((a->nr_cg + 1) * sizeof(*v));
	uint32_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < a->nr_cg; i++)
		if (cgroup_selected(&a->cg[i], o))
			v[(*n)++] = &a->cg[i];
	qsort(v, *n, sizeof(*v), by_path);
	return v;
}

/*
 * The kernel's "max" is PAGE_COUNTER_MAX, LONG_MAX / PAGE_SIZE pages;
 * anything at or past it (or the snapshot's "max") is no limit.
 */
bool no_limit(const struct analysis *a, uint64_t pages)
{
	return pages >= (uint64_t)INT64_MAX /
		(uint64_t)(a->page_size > 0 ? a->page_size : 4096);
}

static int64_t limit(const struct analysis *a, uint64_t pages)
{
	return no_limit(a, pages) ? CELL_NO_LIMIT : (int64_t)pages;
}

/* "0" or "0,2": the nodes records placed in slot @s */
static void learnt_nodes(const struct analysis *a, int s, char *buf,
			 size_t len)
{
	size_t used = 0;
	int nid;

	buf[0] = '\0';
	for (nid = 0; nid < TIER_MAX_NODES && used < len; nid++)
		if (a->node_slot[nid] == s)
			used += snprintf(buf + used, len - used, "%s%d",
					 used ? "," : "", nid);
}

/* The cgroup's id and path (last: a path can be long), into cells @id, @path */
static bool name_cells(struct cell *id, struct cell *path,
		       const struct cgroup_state *cg)
{
	cell_int(id, cg->id);
	return cg->path ? cell_str(path, cg->path) : true;
}

static const struct column meta_cols[] = {
	{ "file", "capture", COL_STR, true },
	{ "page_size", "page size", COL_INT, true },
	{ "first_ts", "start (s)", COL_TIME, true },
	{ "last_ts", "end (s)", COL_TIME, true },
	{ "records", "records", COL_INT, true },
	{ "charge_events", "memcg_tier_charge", COL_INT, true },
	{ "reclaim_events", "memcg_tier_reclaim", COL_INT, true },
	{ "refuse_events", "memcg_tier_migrate_refuse", COL_INT, true },
	{ "steer_events", "memcg_tier_steer", COL_INT, true },
	{ "lost_events", "lost events", COL_INT, true },
	{ "cgroups", "cgroups", COL_INT, true },
	{ "interval_ns", "bucket length (ns)", COL_INT, true },
	{ "window_ns", "churn window (ns)", COL_INT, true },
};

bool report_meta(struct table *t, const struct analysis *a,
		 const char *file, int page_size)
{
	struct cell *r;

	table_init(t, "capture", "capture", meta_cols,
		   sizeof(meta_cols) / sizeof(meta_cols[0]));
	r = table_row(t);
	if (!r || !cell_str(&r[0], file))
		return false;
	cell_int(&r[1], page_size);
	cell_int(&r[2], a->first_ts);
	cell_int(&r[3], a->last_ts);
	cell_int(&r[4], a->records);
	cell_int(&r[5], a->counted[REC_CHARGE]);
	cell_int(&r[6], a->counted[REC_RECLAIM]);
	cell_int(&r[7], a->counted[REC_REFUSE]);
	cell_int(&r[8], a->counted[REC_STEER]);
	cell_int(&r[9], a->lost);
	cell_int(&r[10], a->nr_cg);
	cell_int(&r[11], a->interval);
	cell_int(&r[12], a->cfg.window);
	return true;
}

static const struct column summary_cols[] = {
	{ "cgroup_id", "id", COL_INT, true },
	{ "tier", "tier", COL_INT, true },
	{ "nodes", "nodes", COL_STR, false },
	{ "usage_pages", "usage", COL_PAGES, true },
	{ "peak_pages", "peak", COL_PAGES, true },
	{ "min_pages", "min", COL_LIMIT, false },
	{ "low_pages", "low", COL_LIMIT, false },
	{ "high_pages", "high", COL_LIMIT, true },
	{ "max_pages", "max", COL_LIMIT, true },
	{ "charged_pages", "charged", COL_PAGES, true },
	{ "uncharged_pages", "uncharged", COL_PAGES, false },
	{ "forced", "forced charges", COL_INT, false },
	{ "reclaims", "reclaims", COL_INT, false },
	{ "reclaims_charge", "reclaims at charge", COL_INT, false },
	{ "reclaims_high", "reclaims over high", COL_INT, false },
	{ "reclaims_limit", "reclaims at limit", COL_INT, false },
	{ "reclaims_exchange", "reclaims for promotions", COL_INT, false },
	{ "reclaimed_pages", "reclaimed", COL_PAGES, true },
	{ "reclaimed_charge_pages", "reclaimed at charge", COL_PAGES, false },
	{ "reclaimed_high_pages", "reclaimed over high", COL_PAGES, false },
	{ "reclaimed_limit_pages", "reclaimed at limit", COL_PAGES, false },
	{ "reclaimed_exchange_pages", "reclaimed for promotions", COL_PAGES,
	  false },
	{ "recharged_pages", "charged back", COL_PAGES, false },
	{ "refused_pages", "refused", COL_PAGES, true },
	{ "refused_tier_max_pages", "refused at max", COL_PAGES, false },
	{ "refused_promotion_pages", "refused promotions", COL_PAGES, false },
	{ "refused_folios", "refused folios", COL_INT, false },
	{ "steered_away", "steered away", COL_INT, true },
	{ "steered_in", "steered in", COL_INT, false },
	{ "promoted_pages", "promoted", COL_PAGES, false },
	{ "demoted_pages", "demoted", COL_PAGES, false },
	{ "cgroup", "cgroup", COL_PATH, true },
};

/* The summary's columns by name: no figure lands in a wrong one */
enum { S_ID, S_TIER, S_NODES, S_USAGE, S_PEAK, S_MIN, S_LOW,
       S_HIGH, S_MAX, S_CHARGED, S_UNCHARGED, S_FORCED, S_RECLAIMS,
       S_RECLAIMS_BY, S_RECLAIMED = S_RECLAIMS_BY + RECLAIM_OTHER,
       S_RECLAIMED_BY, S_RECHARGED = S_RECLAIMED_BY + RECLAIM_OTHER,
       S_REFUSED, S_REFUSED_MAX,
       S_REFUSED_GATE, S_REFUSED_FOLIOS, S_STEERED_AWAY, S_STEERED_IN,
       S_PROMOTED, S_DEMOTED, S_CGROUP, NR_S };

bool report_summary(struct table *tb, const struct analysis *a,
		    const struct report_opts *o)
{
	struct cgroup_state **v;
	uint32_t n, i;
	bool ok = true;
	int s;

	table_init(tb, "summary",
		   "summary: per cgroup and tier (sizes in MiB; --fields picks the columns)",
		   summary_cols, sizeof(summary_cols) / sizeof(summary_cols[0]));
	v = selected(a, o, &n);
	for (i = 0; v && ok && i < n; i++) {
		for (s = 0; ok && s < TIER_MAX_SLOTS; s++) {
			const struct tier_state *t = &v[i]->tier[s];
			int64_t runs, pages, folios;
			struct cell *r;
			int k;

			if (!t->seen)
				continue;
			r = table_row(tb);
			if (!r || !name_cells(&r[S_ID], &r[S_CGROUP], v[i])) {
				ok = false;
				break;
			}
			cell_int(&r[S_TIER], s);
			if (t->nodes[0]) {
				ok = cell_str(&r[S_NODES], t->nodes);
			} else {
				char nodes[64];

				learnt_nodes(a, s, nodes, sizeof(nodes));
				if (nodes[0])
					ok = cell_str(&r[S_NODES], nodes);
			}
			if (t->usage_known) {
				cell_int(&r[S_USAGE], t->usage);
				cell_int(&r[S_PEAK], t->peak);
				cell_int(&r[S_HIGH], limit(a, t->high));
				cell_int(&r[S_MAX], limit(a, t->max));
			}
			if (t->min_low_known) {
				cell_int(&r[S_MIN], limit(a, t->min));
				cell_int(&r[S_LOW], limit(a, t->low));
			}
			cell_int(&r[S_CHARGED], t->charged);
			cell_int(&r[S_UNCHARGED], t->uncharged);
			cell_int(&r[S_FORCED], t->forced);
			/* By reason; "other" counts only in the totals */
			for (k = 0, runs = 0, pages = 0; k < NR_RECLAIM_REASONS; k++) {
				runs += t->reclaims[k];
				pages += t->reclaimed[k];
				if (k == RECLAIM_OTHER)
					continue;
				cell_int(&r[S_RECLAIMS_BY + k], t->reclaims[k]);
				cell_int(&r[S_RECLAIMED_BY + k], t->reclaimed[k]);
			}
			cell_int(&r[S_RECLAIMS], runs);
			cell_int(&r[S_RECLAIMED], pages);
			cell_int(&r[S_RECHARGED], t->recharged);
			for (k = 0, folios = 0, pages = 0; k < NR_REFUSE_REASONS; k++) {
				folios += t->refused_folios[k];
				pages += t->refused_pages[k];
			}
			cell_int(&r[S_REFUSED], pages);
			cell_int(&r[S_REFUSED_MAX], t->refused_pages[REFUSE_TIER_MAX]);
			cell_int(&r[S_REFUSED_GATE], t->refused_pages[REFUSE_PROMOTION_GATE]);
			cell_int(&r[S_REFUSED_FOLIOS], folios);
			cell_int(&r[S_STEERED_AWAY], t->steered_away);
			cell_int(&r[S_STEERED_IN], t->steered_in);
			/* From the snapshots: the events cannot tell up from down */
			if (t->moves_at[0] && t->moves_at[1] &&
			    t->promoted_at[1] >= t->promoted_at[0] &&
			    t->demoted_at[1] >= t->demoted_at[0]) {
				cell_int(&r[S_PROMOTED], t->promoted_at[1] - t->promoted_at[0]);
				cell_int(&r[S_DEMOTED], t->demoted_at[1] - t->demoted_at[0]);
			}
		}
	}
	free(v);
	return ok && v;
}

void carry_init(struct carry *c, const struct tier_state *t)
{
	c->known = t->start_known;
	c->usage = t->start_usage;
	c->high = t->start_high;
	c->max = t->start_max;
}

void carry_bucket(struct carry *c, const struct tier_state *t, uint32_t k)
{
	const struct bucket *b = tier_bucket(t, k);

	if (b && b->has_usage) {
		c->usage = b->usage;
		c->high = b->high;
		c->max = b->max;
		c->known = true;
	}
}

/* Bucket @k of @t, empty when the tier had no record in it */
static const struct bucket *bucket_or_none(const struct tier_state *t,
					   uint32_t k)
{
	static const struct bucket none;
	const struct bucket *b = tier_bucket(t, k);

	return b ? b : &none;
}

static const struct column timeline_cols[] = {
	{ "ts", "t (s)", COL_TIME, true },
	{ "cgroup_id", "id", COL_INT, true },
	{ "tier", "tier", COL_INT, true },
	{ "usage_pages", "usage", COL_PAGES, true },
	{ "peak_pages", "peak", COL_PAGES, true },
	{ "high_pages", "high", COL_LIMIT, true },
	{ "max_pages", "max", COL_LIMIT, true },
	{ "charged_pages", "charged", COL_PAGES, true },
	{ "uncharged_pages", "uncharged", COL_PAGES, false },
	{ "reclaims", "reclaims", COL_INT, false },
	{ "reclaimed_pages", "reclaimed", COL_PAGES, true },
	{ "refused_folios", "refused folios", COL_INT, false },
	{ "refused_pages", "refused", COL_PAGES, true },
	{ "steered_away", "steered away", COL_INT, true },
	{ "steered_in", "steered in", COL_INT, true },
	{ "steer_flips", "target changes", COL_INT, false },
	{ "cgroup", "cgroup", COL_PATH, true },
};

enum { L_TS, L_ID, L_TIER, L_USAGE, L_PEAK, L_HIGH, L_MAX, L_CHARGED,
       L_UNCHARGED, L_RECLAIMS, L_RECLAIMED, L_REFUSED_FOLIOS, L_REFUSED,
       L_STEERED_AWAY, L_STEERED_IN, L_FLIPS, L_CGROUP };

static bool bucket_active(const struct bucket *b)
{
	return b->has_usage || b->reclaims || b->refused_folios ||
	       b->steered_away || b->steered_in;
}

bool report_timeline(struct table *tb, const struct analysis *a,
		     const struct report_opts *o)
{
	struct cgroup_state **v;
	uint32_t n, i, k;
	bool ok = true;
	int s;

	table_init(tb, "timeline", "timeline: per cgroup, tier and bucket",
		   timeline_cols,
		   sizeof(timeline_cols) / sizeof(timeline_cols[0]));
	v = selected(a, o, &n);
	for (i = 0; v && ok && i < n; i++) {
		for (s = 0; ok && s < TIER_MAX_SLOTS; s++) {
			const struct tier_state *t = &v[i]->tier[s];
			bool started = t->start_known;
			struct carry c;

			if (!t->seen)
				continue;
			carry_init(&c, t);
			for (k = 0; ok && k < a->nb; k++) {
				const struct bucket *b = bucket_or_none(t, k);
				struct cell *r;

				carry_bucket(&c, t, k);
				started = started || bucket_active(b);
				if (!started)
					continue;
				r = table_row(tb);
				if (!r || !name_cells(&r[L_ID], &r[L_CGROUP], v[i])) {
					ok = false;
					break;
				}
				cell_int(&r[L_TS], a->t0 + (uint64_t)k * a->interval);
				cell_int(&r[L_TIER], s);
				if (c.known) {
					cell_int(&r[L_USAGE], c.usage);
					cell_int(&r[L_PEAK], b->has_usage ? b->peak : c.usage);
					cell_int(&r[L_HIGH], limit(a, c.high));
					cell_int(&r[L_MAX], limit(a, c.max));
				}
				cell_int(&r[L_CHARGED], b->charged);
				cell_int(&r[L_UNCHARGED], b->uncharged);
				cell_int(&r[L_RECLAIMS], b->reclaims);
				cell_int(&r[L_RECLAIMED], b->reclaimed);
				cell_int(&r[L_REFUSED_FOLIOS], b->refused_folios);
				cell_int(&r[L_REFUSED], b->refused_pages);
				cell_int(&r[L_STEERED_AWAY], b->steered_away);
				cell_int(&r[L_STEERED_IN], b->steered_in);
				cell_int(&r[L_FLIPS], b->flips);
			}
		}
	}
	free(v);
	return ok && v;
}

enum churn_kind { RECLAIM_CHURN, PING_PONG, REFUSAL_BURST, STEER_FLIPS };

static const char *const churn_names[] = {
	"reclaim_churn", "ping_pong", "refusal_burst", "steer_flips",
};

struct finding {
	enum churn_kind kind;
	const struct cgroup_state *cg;
	int tier;			/* -1: the cgroup as a whole */
	uint32_t k0, k1;		/* bucket range, inclusive */
	int64_t pages;			/* what ranks it */
	int64_t events;			/* -1: not counted */
	char detail[64];	/* what events and amount count, other figures */
};

struct findings {
	struct finding *f;
	size_t n, cap;
};

static struct finding *add_finding(struct findings *fs)
{
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 32;
		struct finding *f = realloc(fs->f, cap * sizeof(*f));

		if (!f)
			return NULL;
		fs->f = f;
		fs->cap = cap;
	}
	memset(&fs->f[fs->n], 0, sizeof(fs->f[0]));
	return &fs->f[fs->n++];
}

/*
 * Per tier: reclaim churn (runs of buckets with reclaim or recharge,
 * reported when pages came back) and refusal bursts.
 */
static bool tier_findings(struct findings *fs, const struct cgroup_state *cg,
			  int s)
{
	const struct tier_state *t = &cg->tier[s];
	uint32_t k, start, nb = tier_span(t);
	const struct bucket *b;

	for (k = 0; k < nb; k++) {
		int64_t recharged = 0, reclaimed = 0, runs = 0;
		struct finding *f;

		b = bucket_or_none(t, k);
		if (!b->reclaims && !b->recharged)
			continue;
		for (start = k; k < nb && (b = bucket_or_none(t, k)) &&
		     (b->reclaims || b->recharged); k++) {
			recharged += b->recharged;
			reclaimed += b->reclaimed;
			runs += b->reclaims;
		}
		if (!recharged)
			continue;
		f = add_finding(fs);
		if (!f)
			return false;
		*f = (struct finding){ RECLAIM_CHURN, cg, s, start, k - 1,
				       recharged, runs, "" };
		snprintf(f->detail, sizeof(f->detail),
			 "pages back of %" PRId64 " reclaimed; runs", reclaimed);
	}
	for (k = 0; k < nb; k++) {
		int64_t pages = 0, n = 0;
		struct finding *f;

		if (!bucket_or_none(t, k)->refused_folios)
			continue;
		for (start = k; k < nb && (b = bucket_or_none(t, k))->refused_folios;
		     k++) {
			pages += b->refused_pages;
			n += b->refused_folios;
		}
		f = add_finding(fs);
		if (!f)
			return false;
		*f = (struct finding){ REFUSAL_BURST, cg, s, start, k - 1,
				       pages, n, "" };
		snprintf(f->detail, sizeof(f->detail),
			 "refused pages; folios");
	}
	return true;
}

/*
 * Per cgroup: promote/demote ping-pong (runs of buckets with cross-tier
 * moves, in both directions) and steering that flips between tiers.
 * Slot order is tier order at boot, so the cgroup's lowest slot is its
 * fastest tier: moves into it are promotions, moves elsewhere demotions.
 */
static bool cgroup_findings(struct findings *fs, const struct cgroup_state *cg,
			    uint32_t nb)
{
	int s, j, fast, slots[TIER_MAX_SLOTS], nslots = 0;
	uint32_t k, start, end;

	/* Only the tiers with records: most cgroups have two of sixteen */
	for (s = 0; s < TIER_MAX_SLOTS; s++)
		if (cg->tier[s].seen)
			slots[nslots++] = s;
	if (!nslots)
		return true;
	fast = slots[0];

#define B(s, k) tier_bucket(&cg->tier[s], k)
	for (k = 0; k < nb; k++) {
		int64_t promoted = 0, demoted = 0, flips = 0, steered = 0;
		bool moves = false, steers = false;
		struct finding *f;

		for (j = 0; j < nslots; j++) {
			const struct bucket *b = B(slots[j], k);

			moves |= b && b->moved_in;
			steers |= b && b->steered_in;
		}
		if (moves) {
			for (start = k; k < nb; k++) {
				bool more = false;

				for (j = 0; j < nslots; j++) {
					const struct bucket *b = B(slots[j], k);

					if (!b || !b->moved_in)
						continue;
					more = true;
					if (slots[j] == fast)
						promoted += b->moved_in;
					else
						demoted += b->moved_in;
				}
				if (!more)
					break;
			}
			if (promoted && demoted) {
				f = add_finding(fs);
				if (!f)
					return false;
				*f = (struct finding){ PING_PONG, cg, fast, start,
						       k - 1, promoted < demoted ?
						       promoted : demoted,
						       -1, "" };
				snprintf(f->detail, sizeof(f->detail),
					 promoted < demoted ?
					 "pages promoted (%" PRId64 " demoted)" :
					 "pages demoted (%" PRId64 " promoted)",
					 promoted < demoted ? demoted : promoted);
			}
			if (k < nb)
				k--;	/* look at the bucket that ended it again */
			continue;
		}
		if (!steers)
			continue;
		for (start = k; k < nb; k++) {
			bool more = false;

			for (j = 0; j < nslots; j++) {
				const struct bucket *b = B(slots[j], k);

				if (!b || !b->steered_in)
					continue;
				more = true;
				flips += b->flips;
				steered += b->steered_in_pages;
			}
			if (!more)
				break;
		}
		end = k - 1;
		if (k < nb)
			k--;	/* look at the bucket that ended it again */
		/* One change of target is steering starting; two is flipping */
		if (flips >= 2) {
			f = add_finding(fs);
			if (!f)
				return false;
			*f = (struct finding){ STEER_FLIPS, cg, -1, start, end,
					       steered, flips, "" };
			snprintf(f->detail, sizeof(f->detail),
				 "pages steered in; target changes");
		}
	}
#undef B
	return true;
}

static int worst_first(const void *x, const void *y)
{
	const struct finding *a = x, *b = y;

	if (a->pages != b->pages)
		return a->pages < b->pages ? 1 : -1;
	if (a->k0 != b->k0)
		return a->k0 < b->k0 ? -1 : 1;
	return (a->cg->id > b->cg->id) - (a->cg->id < b->cg->id);
}

static const struct column churn_cols[] = {
	{ "rank", "#", COL_INT, true },
	{ "kind", "kind", COL_STR, true },
	{ "cgroup_id", "id", COL_INT, true },
	{ "tier", "tier", COL_INT, true },
	{ "start_ts", "from (s)", COL_TIME, true },
	{ "end_ts", "to (s)", COL_TIME, true },
	{ "pages", "amount", COL_PAGES, true },
	{ "events", "events", COL_INT, true },
	{ "detail", "counting", COL_STR, true },
	{ "cgroup", "cgroup", COL_PATH, true },
};

enum { C_RANK, C_KIND, C_ID, C_TIER, C_START, C_END, C_PAGES, C_EVENTS,
       C_DETAIL, C_CGROUP };

bool report_churn(struct table *tb, const struct analysis *a,
		  const struct report_opts *o)
{
	struct findings fs = { NULL, 0, 0 };
	struct cgroup_state **v;
	uint32_t n, i;
	bool ok = true;
	size_t j;
	int s;

	table_init(tb, "churn",
		   "churn: worst first by amount (counting: what amount; what events count)",
		   churn_cols, sizeof(churn_cols) / sizeof(churn_cols[0]));
	v = selected(a, o, &n);
	for (i = 0; v && ok && i < n; i++) {
		for (s = 0; ok && s < TIER_MAX_SLOTS; s++)
			if (v[i]->tier[s].seen)
				ok = tier_findings(&fs, v[i], s);
		ok = ok && cgroup_findings(&fs, v[i], a->nb);
	}
	if (ok)
		qsort(fs.f, fs.n, sizeof(*fs.f), worst_first);
	if (o->top && fs.n > (size_t)o->top)
		tb->left_out = fs.n - o->top;
	for (j = 0; ok && j < fs.n && (!o->top || j < (size_t)o->top); j++) {
		const struct finding *f = &fs.f[j];
		uint64_t end = a->t0 + (uint64_t)(f->k1 + 1) * a->interval;
		struct cell *r = table_row(tb);

		if (!r || !name_cells(&r[C_ID], &r[C_CGROUP], f->cg) ||
		    !cell_str(&r[C_KIND], churn_names[f->kind]) ||
		    !cell_str(&r[C_DETAIL], f->detail)) {
			ok = false;
			break;
		}
		cell_int(&r[C_RANK], j + 1);
		if (f->tier >= 0)
			cell_int(&r[C_TIER], f->tier);
		cell_int(&r[C_START], a->t0 + (uint64_t)f->k0 * a->interval);
		cell_int(&r[C_END], end < a->last_ts ? end : a->last_ts);
		cell_int(&r[C_PAGES], f->pages);
		if (f->events >= 0)
			cell_int(&r[C_EVENTS], f->events);
	}
	free(fs.f);
	free(v);
	return ok && v;
}
