/* SPDX-License-Identifier: GPL-2.0 */
/* memcg-tier-report top: the memcg_tier events live, as a refreshing table */
#ifndef TOP_H
#define TOP_H

/* argv[0] is "top"; returns the exit status */
int top_main(int argc, char **argv);

#endif
