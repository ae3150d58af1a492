/* SPDX-License-Identifier: GPL-2.0 */
/* The summary, timeline and churn reports, as tables */
#ifndef REPORT_H
#define REPORT_H

#include "state.h"
#include "table.h"

enum report_kind { REPORT_SUMMARY, REPORT_TIMELINE, REPORT_CHURN, NR_REPORTS };

struct report_opts {
	const char *const *cgroups;	/* --cgroup PATH|ID, may be empty */
	int nr_cgroups;
	int top;			/* churn findings shown, 0: all */
};

/* --top at most: a report is for reading */
#define TOP_MAX 1000000

bool cgroup_selected(const struct cgroup_state *cg,
		     const struct report_opts *o);
/* The first --cgroup that names no cgroup of the capture, or NULL */
const char *unknown_cgroup(const struct analysis *a,
			   const struct report_opts *o);

/* A limit of PAGE_COUNTER_MAX pages or more: none */
bool no_limit(const struct analysis *a, uint64_t pages);

/* Each returns false when out of memory */
bool report_meta(struct table *t, const struct analysis *a,
		 const char *file, int page_size);
bool report_summary(struct table *t, const struct analysis *a,
		    const struct report_opts *o);
bool report_timeline(struct table *t, const struct analysis *a,
		     const struct report_opts *o);
bool report_churn(struct table *t, const struct analysis *a,
		  const struct report_opts *o);

/*
 * A tier's usage and limits at the end of each bucket, carried forward
 * over buckets without a record: what a timeline row or the SVG shows.
 * Start with carry_init(), then carry_bucket() for k = 0, 1, ...
 */
struct carry {
	uint64_t usage, high, max;
	bool known;		/* false before the tier's usage was seen */
};

void carry_init(struct carry *c, const struct tier_state *t);
void carry_bucket(struct carry *c, const struct tier_state *t, uint32_t k);

#endif
