#!/bin/sh
# Real reclaim: swap on a virtio disk and page cache on an ext2 disk, with
# the tier limits holding throughout.  Demotion is off here, so anon
# reclaim swaps and the tiers are never charged past their max by force.
#
#   /sys/fs/cgroup/swapper   memory.max = S = node 0 MemTotal / 24 (64M)
#     memtouch 3/2 S, held 4 s: completes by swapping (memory.swap.current)
#   /sys/fs/cgroup/cache     memory.max = S
#     write a 2 S file on /scratch (ext2), then read it back
#
# Expected, sampled while each workload holds its memory:
#   on:  every tier's usage <= its max from memory.tier_stat, exactly;
#        node 1 is used (allocations over tier 0's share are steered)
#   off: no tier limit, nothing steered: node 1 holds under 1% of S
#   both: memory.current <= S, the workloads complete
. /tracing/bin/lib.sh

s=$(($(node_mem_kib 0) / 1024 / 24))
echo 0 >/sys/kernel/mm/numa/demotion_enabled

# tiers_within CGROUP: 0 if each tier's usage <= its max; says which not
tiers_within() {
	local t u m ok=0
	for t in 0 1; do
		u=$(tier_stat_field "$1" $t usage)
		m=$(tier_stat_field "$1" $t max)
		[ "$u" -le "$m" ] || { ok=1; echo "  tier$t usage $u > max $m"; }
	done
	return $ok
}

# placed CGROUP KEY WHAT: the TAP line for KEY's node 1 bytes in CGROUP
placed() {
	local n1
	n1=$(cg_numa "$2" "$1" 1)
	if [ "$TIERED_MODE" = on ]; then
		tap $( { tiers_within "$1" && [ "$n1" -gt 0 ]; }; echo $?) \
			"$3: each tier within its max, $n1 bytes of $2 on node 1"
	else
		tap $([ "$n1" -le $((s * 1048576 / 100)) ]; echo $?) \
			"$3: nothing steered without the parameter ($n1 bytes of $2 on node 1)"
	fi
}

swap_on || { tap 1 "swap on the 'swap' disk"; exit 1; }
cg_make swapper || exit 1
echo "${s}M" >"$CGROOT/swapper/memory.max"
cg_run swapper memtouch $((s * 3 / 2)) 4 &
pid=$!
sleep 3
placed swapper anon "swap: memtouch $((s * 3 / 2))M in ${s}M"
current=$(cat "$CGROOT/swapper/memory.current")
swapped=$(cat "$CGROOT/swapper/memory.swap.current")
wait $pid
status=$?
tap $([ "$status" = 0 ] && [ "$swapped" -gt 0 ] &&
      [ "$current" -le $((s << 20)) ]; echo $?) \
	"swap: it completes (status $status), $swapped bytes swapped, memory.current $current <= ${s}M"
rmdir "$CGROOT/swapper"
swap_off

scratch_mount /scratch || { tap 1 "ext2 on the 'scratch' disk"; exit 1; }
cg_make cache || exit 1
echo "${s}M" >"$CGROOT/cache/memory.max"
cg_run cache dd if=/dev/zero of=/scratch/file bs=1M count=$((s * 2)) 2>/dev/null
status=$?
cg_run cache cat /scratch/file >/dev/null
status=$((status + $?))
placed cache file "page cache: a $((s * 2))M file in ${s}M"
current=$(cat "$CGROOT/cache/memory.current")
tap $([ "$status" = 0 ] && [ "$current" -le $((s << 20)) ]; echo $?) \
	"page cache: written and read back (status $status), memory.current $current <= ${s}M"
rm -f /scratch/file
umount /scratch
rmdir "$CGROOT/cache"
echo 1 >/sys/kernel/mm/numa/demotion_enabled
