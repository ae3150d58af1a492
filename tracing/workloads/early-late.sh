#!/bin/sh
# Two cgroups with the same memory.max, started a few seconds apart, each
# faulting in more than its share of the fast tier and keeping it hot.
# Without tiered limits the first one takes the fast node and the second
# lands on the slow one; with them both get their share.
#
#   /sys/fs/cgroup/early  memory.max = 50% of all memory, touches 55% of
#                         node 0 (both together overcommit the fast tier)
#   /sys/fs/cgroup/late   the same, started 3 s later
#
# Prints each cgroup's anon memory per node while both run.
. /tracing/bin/lib.sh

fast_mib=$(($(node_mem_kib 0) / 1024))
max_mib=$(((fast_mib + $(node_mem_kib 1) / 1024) / 2))
touch_mib=$((fast_mib * 55 / 100))
echo "early-late: memory.max ${max_mib}M per cgroup, each touching ${touch_mib}M"

for cg in early late; do
	cg_make $cg || exit 1
	echo "${max_mib}M" >"$CGROOT/$cg/memory.max"
done
cg_run early memtouch "$touch_mib" 20 &
sleep 3
cg_run late memtouch "$touch_mib" 15 &
sleep 12
for cg in early late; do
	echo "$cg: anon on node 0 $(($(cg_numa anon $cg 0) >> 20)) MiB," \
	     "node 1 $(($(cg_numa anon $cg 1) >> 20)) MiB"
	[ -f "$CGROOT/$cg/memory.tier_stat" ] &&
		sed "s/^/$cg: /" "$CGROOT/$cg/memory.tier_stat"
done
wait
rmdir "$CGROOT/early" "$CGROOT/late"
