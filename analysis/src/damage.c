// SPDX-License-Identifier: GPL-2.0
/* The list of what a capture could not be trusted for: see damage.h */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damage.h"
#include "report.h"

static const char *const kind_names[NR_DAMAGE_KINDS] = {
	"stream_cut", "bad_record", "unknown_event", "time_backwards",
	"lost_records", "usage_account", "over_capacity", "node_moved",
	"unnamed_cgroup",
};

void damage_init(struct damage *d)
{
	memset(d, 0, sizeof(*d));
	d->until = UINT64_MAX;
}

void damage_free(struct damage *d)
{
	free(d->e);
	damage_init(d);
}

static struct damage_entry *add(struct damage *d, enum damage_kind kind,
				int cpu, uint64_t ts, uint64_t count)
{
	struct damage_entry *e;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;

		e = realloc(d->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		d->e = e;
		d->cap = cap;
	}
	e = &d->e[d->n++];
	*e = (struct damage_entry){ kind, cpu, 0, NULL, -1, ts, count, "" };
	return e;
}

bool damage_add(struct damage *d, enum damage_kind kind, int cpu,
		uint64_t ts, uint64_t count, const char *fmt, ...)
{
	struct damage_entry *e = add(d, kind, cpu, ts, count);
	va_list ap;

	if (!e)
		return false;
	va_start(ap, fmt);
	vsnprintf(e->detail, sizeof(e->detail), fmt, ap);
	va_end(ap);
	/* Records are missing from here on: later figures are short */
	if ((kind == DMG_STREAM_CUT || kind == DMG_LOST) && ts < d->until)
		d->until = ts;
	return true;
}

static bool tier_damage(struct damage *d, const struct analysis *a,
			const struct cgroup_state *cg, int s)
{
	const struct tier_state *t = &cg->tier[s];
	uint64_t cap = a->capacity[s];
	struct damage_entry *e;

	if (t->bad_records) {
		e = add(d, DMG_ACCOUNT, -1, t->first_bad_ts, t->bad_records);
		if (!e)
			return false;
		e->cg = cg;
		e->tier = s;
		snprintf(e->detail, sizeof(e->detail),
			 "charge records whose usage is not the last one's plus their pages; usage and peak of this tier are not trusted");
	}
	if (cap && t->usage_known && (t->peak > cap || t->usage > cap)) {
		e = add(d, DMG_CAPACITY, -1, 0, 1);
		if (!e)
			return false;
		e->cg = cg;
		e->tier = s;
		snprintf(e->detail, sizeof(e->detail),
			 "usage %" PRIu64 " / peak %" PRIu64
			 " pages above the tier's capacity of %" PRIu64 " pages",
			 t->usage, t->peak, cap);
	}
	return true;
}

bool damage_from_state(struct damage *d, const struct analysis *a)
{
	uint32_t i;
	int s;

	if (a->bad_nodes &&
	    !damage_add(d, DMG_NODE, -1, a->first_bad_node_ts, a->bad_nodes,
			"records place a node in another tier than earlier records did"))
		return false;
	for (i = 0; i < a->nr_cg; i++) {
		const struct cgroup_state *cg = &a->cg[i];

		for (s = 0; s < TIER_MAX_SLOTS; s++)
			if (!tier_damage(d, a, cg, s))
				return false;
		/* With a map of the cgroups, every cgroup in a record has a name */
		if (a->snapshot && cg->records && !cg->path) {
			struct damage_entry *e = add(d, DMG_PHANTOM, -1, 0, 1);

			if (!e)
				return false;
			e->cg = cg;
			snprintf(e->detail, sizeof(e->detail),
				 "records of a cgroup id that neither the cgroup map, the tier_stat snapshot nor a cgroup_mkdir record names");
		}
	}
	return true;
}

static const struct column damage_cols[] = {
	{ "kind", "damage", COL_STR, true },
	{ "cpu", "cpu", COL_INT, true },
	{ "cgroup_id", "id", COL_INT, true },
	{ "cgroup", "cgroup", COL_STR, true },
	{ "tier", "tier", COL_INT, true },
	{ "ts", "from (s)", COL_TIME, true },
	{ "count", "count", COL_INT, true },
	{ "detail", "detail", COL_STR, true },
};

bool damage_table(struct table *t, const struct damage *d)
{
	size_t i;

	table_init(t, "damage",
		   "DAMAGED CAPTURE: what the figures below cannot be trusted for",
		   damage_cols, sizeof(damage_cols) / sizeof(damage_cols[0]));
	t->all_columns = true;	/* --fields chooses figures, not warnings */
	for (i = 0; i < d->n; i++) {
		const struct damage_entry *e = &d->e[i];
		struct cell *r = table_row(t);

		if (!r || !cell_str(&r[0], kind_names[e->kind]) ||
		    !cell_str(&r[7], e->detail))
			return false;
		if (e->cpu >= 0)
			cell_int(&r[1], e->cpu);
		if (e->cg) {
			cell_int(&r[2], e->cg->id);
			if (e->cg->path && !cell_str(&r[3], e->cg->path))
				return false;
		}
		if (e->tier >= 0)
			cell_int(&r[4], e->tier);
		if (e->ts)
			cell_int(&r[5], e->ts);
		cell_int(&r[6], e->count);
	}
	return true;
}
