/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line values shared by the reports and the live top */
#ifndef ARGS_H
#define ARGS_H

#include <stdbool.h>
#include <stdint.h>

/* Far beyond any capture (about 31 years): keeps every sum in 64 bits */
#define TIME_MAX_NS 1000000000000000000ULL

/* "250ms", "2s", "1.5" (seconds) -> ns; false if not a duration */
bool parse_time(const char *s, uint64_t *ns);

/* "PROG: <fmt with arg>" and a pointer to --help; returns 2 (usage) */
int usage_error(const char *prog, const char *fmt, const char *arg);

#endif
