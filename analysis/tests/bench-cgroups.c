// SPDX-License-Identifier: GPL-2.0
/*
 * The state with thousands of cgroups, for "make bench": RECORDS charge
 * records spread over CGROUPS cgroups x 2 tiers, fed through the state
 * and the summary and churn reports built, as the analyzer does after
 * decoding.  Prints the wall time.
 *
 *   bench-cgroups [CGROUPS [RECORDS]]     (default 10000, 2000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "report.h"
#include "state.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long cgroups = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	unsigned long records = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000000;
	struct analysis_config cfg = { .window = 1000000000ULL };
	struct report_opts ro = { NULL, 0, 20 };
	unsigned long long *usage;
	struct table summary, churn;
	struct analysis a;
	unsigned long i;
	double t0, t1;

	usage = calloc(cgroups * 2, sizeof(*usage));
	if (!cgroups || !usage)
		return 1;
	t0 = now();
	analysis_init(&a, &cfg);
	for (i = 0; i < records; i++) {
		/* cgroup ids as the kernel hands them out: inode numbers */
		unsigned long cg = (i * 7919) % cgroups, slot = (i / cgroups) % 2;
		struct tier_record r = {
			.kind = REC_CHARGE, .ts = 1000000000ULL + i * 1000ULL,
			.cgroup_id = 1000 + cg * 3, .slot = (int)slot,
			.nid = (int)slot, .pages = 1, .high = NO_LIMIT, .max = 4096,
			.reason = CAUSE_ALLOC, .outcome = OUTCOME_CHARGED,
		};

		r.usage = ++usage[cg * 2 + slot];
		analysis_tick(&a, r.ts);
		if (analysis_feed(&a, &r) != FEED_OK)
			return 1;
	}
	analysis_finish(&a);
	if (!report_summary(&summary, &a, &ro) || !report_churn(&churn, &a, &ro))
		return 1;
	t1 = now();
	printf("%lu records over %u cgroups x 2 tiers: %.3f s (summary: %zu rows)\n",
	       records, a.nr_cg, t1 - t0, summary.nrows);
	table_free(&summary);
	table_free(&churn);
	analysis_free(&a);
	free(usage);
	return 0;
}
