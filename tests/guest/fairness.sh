#!/bin/sh
# Fast-tier fairness: two cgroups with the same memory.max, the first
# started alone, the second 3 s later, each touching more than its share
# of the fast tier (tracing/workloads/early-late.sh).
#
#   /sys/fs/cgroup/early, /sys/fs/cgroup/late
#     memory.max = half of all memory, each touches 55% of node 0
#   fast share = floor(max_pages * cap0 / (cap0 + cap1)) pages
#
# Feature on: each cgroup's anon on node 0 <= its fast share + 5%.
# Feature off: the first cgroup holds more than its fast share.
. /tracing/bin/lib.sh

early-late.sh >/tmp/early-late.out 2>&1
status=$?
sed 's/^/  /' /tmp/early-late.out
tap $status "the early-late workload completes"

cap0=$(($(node_mem_kib 0) / 4))
cap1=$(($(node_mem_kib 1) / 4))
max_mib=$(sed -n 's/.*memory.max \([0-9]*\)M per cgroup.*/\1/p' /tmp/early-late.out)
share_mib=$(($(tier_share $((max_mib * 256)) $cap0 $((cap0 + cap1))) / 256))
for cg in early late; do
	eval "fast_$cg=$(sed -n "s/^$cg: anon on node 0 \([0-9]*\) MiB.*/\1/p" /tmp/early-late.out)"
done
echo "fast share ${share_mib}M; early ${fast_early}M, late ${fast_late}M on node 0"

if [ "$TIERED_MODE" = on ]; then
	for cg in early late; do
		eval "fast=\$fast_$cg"
		tap $([ -n "$fast" ] && [ "$fast" -le $((share_mib * 105 / 100)) ]; echo $?) \
			"$cg holds at most its fast-tier share + 5% (${fast}M <= ${share_mib}M)"
	done
else
	tap $([ -n "$fast_early" ] && [ "$fast_early" -gt "$share_mib" ]; echo $?) \
		"without the feature, early holds more than its fast-tier share (${fast_early}M > ${share_mib}M)"
fi
