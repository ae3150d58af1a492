/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SVG_H
#define SVG_H

#include <stdio.h>

#include "report.h"

/* A per-cgroup timeline of tier usage against tier limits */
int svg_timeline(FILE *f, const struct analysis *a,
		 const struct report_opts *o, int page_size);

#endif
