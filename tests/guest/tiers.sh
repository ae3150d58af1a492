#!/bin/sh
# The boot parameter and memory.tier_stat: the kernel says the feature is
# on, the file exists only with the parameter, and its capacities are the
# nodes' MemTotal.  The split of the limits, its rewrites and the return
# of every tier charge are tested by the kernel's selftest,
# test_memcg_tiers (tests/guest/memcg_tiers.sh).
#
#   /sys/fs/cgroup/tiers    no limits
#
# Expected, per tier N over nodes with MemTotal cap_N (pages):
#   capacity_N = cap_N * 4096
. /tracing/bin/lib.sh

enabled=$(dmesg | grep -c 'memcg: tiered memory limits enabled')
cg_make tiers || exit 1
if [ "$TIERED_MODE" = off ]; then
	tap $([ "$enabled" -eq 0 ]; echo $?) "no 'tiered limits enabled' in the kernel log"
	tap $([ ! -e "$CGROOT/tiers/memory.tier_stat" ]; echo $?) "no memory.tier_stat without the parameter"
	rmdir "$CGROOT/tiers"
	exit 0
fi
tap $([ "$enabled" -eq 1 ]; echo $?) "the kernel log says tiered limits are enabled"
tap $([ -r "$CGROOT/tiers/memory.tier_stat" ]; echo $?) "memory.tier_stat exists"
sed 's/^/  /' "$CGROOT/tiers/memory.tier_stat"

cap0=$(($(node_mem_kib 0) / 4))
cap1=$(($(node_mem_kib 1) / 4))
tap $([ "$(tier_stat_field tiers 0 capacity)" = $((cap0 * 4096)) ] &&
      [ "$(tier_stat_field tiers 1 capacity)" = $((cap1 * 4096)) ]; echo $?) \
	"tier capacities are the nodes' MemTotal ($cap0 + $cap1 pages)"
rmdir "$CGROOT/tiers"
