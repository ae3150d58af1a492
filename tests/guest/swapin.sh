#!/bin/sh
# Swap-in steered for the memcg it is charged to, not the reader's (patch
# 22).  A folio read in from swap is charged to the cgroup that owned the
# swap entry; here another cgroup reads it in.
#
#   /sys/fs/cgroup/owner    memory.max 200M (tier 0's share 150M): writes
#                           a 24M tmpfs file, which memory.reclaim then
#                           swaps out (demotion off); then 160M of
#                           anonymous memory fills its tier 0 share
#   /sys/fs/cgroup/reader   no limit: reads the file back in
#
# Expected:
#   on:  the 24M come back charged to owner, steered away from its full
#        tier 0: owner's shmem on node 1 is at least 90% of the file, and
#        owner's tier 0 counts as many steered allocations
#   off: no memory.tier_stat; the file comes back, charged to owner
#
# Then the same from zram, whose swap-ins bypass the swap cache
# (SWP_SYNCHRONOUS_IO: do_swap_page() allocates the folio itself):
#
#   /sys/fs/cgroup/zowner   memory.max 200M: a task faults in 24M, is
#                           stopped and moved out, and memory.reclaim
#                           swaps its 24M to zram; then 160M fill tier 0
#   /sys/fs/cgroup/zmover   no limit: the moved task, continued, touches
#                           its 24M again, still charged to zowner
#
# Expected: at least 3/4 of the task's pages on node 1 and as many
# allocations steered as half the 24M (on); the 24M come back charged to
# zowner (off).
. /tracing/bin/lib.sh

demotion=$(cat /sys/kernel/mm/numa/demotion_enabled)
echo 0 >/sys/kernel/mm/numa/demotion_enabled
swap_on || { tap 1 "swap on the 'swap' disk"; exit 1; }
cg_make owner && cg_make reader || exit 1
echo 200M >"$CGROOT/owner/memory.max"
file=/tmp/swapin.file

cg_run owner dd if=/dev/zero of=$file bs=1M count=24 2>/dev/null
echo 64M >"$CGROOT/owner/memory.reclaim" 2>/dev/null
out=$(($(cg_numa shmem owner 0) + $(cg_numa shmem owner 1)))
swapped=$(cat "$CGROOT/owner/memory.swap.current")
tap $([ "$swapped" -ge $((20 << 20)) ]; echo $?) \
	"the owner's 24M file swapped out: $swapped bytes of swap, $out bytes of shmem left"

cg_run owner memtouch 160 600 >/dev/null 2>&1 &
# Filled (and steered) before the count starts: its own steering must not
# count as the swap-in's
cg_wait_anon owner 159
[ "$TIERED_MODE" = on ] && cg_quiet owner
[ "$TIERED_MODE" = on ] && steered0=$(tier_stat_field owner 0 steered)
cg_run reader cat $file >/dev/null
n0=$(cg_numa shmem owner 0)
n1=$(cg_numa shmem owner 1)
if [ "$TIERED_MODE" = on ]; then
	steered=$(($(tier_stat_field owner 0 steered) - steered0))
	tap $([ "$n1" -ge $(( (24 << 20) * 9 / 10 )) ] && [ "$steered" -gt 0 ]; echo $?) \
		"read in by another cgroup, the owner's file is placed for the owner's full tier 0: shmem $n1 bytes on node 1, $n0 on node 0; $steered allocations steered"
else
	tap $([ $((n0 + n1)) -ge $(( (24 << 20) * 9 / 10 )) ]; echo $?) \
		"read in by another cgroup, the file is charged to its owner again: shmem $n0 bytes on node 0, $n1 on node 1"
fi

echo 1 >"$CGROOT/owner/cgroup.kill"
cg_wait_empty owner
rm -f $file
rmdir "$CGROOT/owner" "$CGROOT/reader"
swap_off

# --- the same from zram ---------------------------------------------------
echo 128M >/sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null &&
	swapon /dev/zram0 || { tap 1 "swap on zram0"; exit 1; }
cg_make zowner && cg_make zmover || exit 1
echo 200M >"$CGROOT/zowner/memory.max"
cg_run zowner memtouch 24 600 >/dev/null 2>&1 &
cg_wait_anon zowner 23
mover=$(cat "$CGROOT/zowner/cgroup.procs")	# memtouch, not the shell above
kill -STOP $mover
echo $mover >"$CGROOT/zmover/cgroup.procs"
# The first pass finds the pages referenced and only ages them
i=0
while [ "$(cat "$CGROOT/zowner/memory.swap.current")" -lt $((20 << 20)) ] &&
      [ $i -lt 5 ]; do
	echo 64M >"$CGROOT/zowner/memory.reclaim" 2>/dev/null
	i=$((i + 1))
done
swapped=$(cat "$CGROOT/zowner/memory.swap.current")
tap $([ "$swapped" -ge $((20 << 20)) ]; echo $?) \
	"the moved task's 24M, still zowner's, swapped out to zram: $swapped bytes of swap"
cg_run zowner memtouch 160 600 >/dev/null 2>&1 &
cg_wait_anon zowner 159
[ "$TIERED_MODE" = on ] && cg_quiet zowner
[ "$TIERED_MODE" = on ] && steered0=$(tier_stat_field zowner 0 steered)
a0=$(cg_numa anon zowner 0)
a1=$(cg_numa anon zowner 1)
kill -CONT $mover
# Until the 24M are back: seconds here, a minute on the debug kernel
i=0
while [ "$(cat "$CGROOT/zowner/memory.swap.current")" -gt $((1 << 20)) ] &&
      [ $i -lt 1800 ]; do
	usleep 100000
	i=$((i + 1))
done
left=$(cat "$CGROOT/zowner/memory.swap.current")
d0=$(($(cg_numa anon zowner 0) - a0))
d1=$(($(cg_numa anon zowner 1) - a1))
# Where the moved task's own pages are: zowner's other memory may be
# reclaimed meanwhile (a debug kernel charges it more kernel memory)
set -- $(awk '/anon=/ { for (i = 1; i <= NF; i++) {
		if ($i ~ /^N0=/) n0 += substr($i, 4)
		if ($i ~ /^N1=/) n1 += substr($i, 4) } }
	END { print n0 + 0, n1 + 0 }' "/proc/$mover/numa_maps")
if [ "$TIERED_MODE" = on ]; then
	steered=$(($(tier_stat_field zowner 0 steered) - steered0))
	# Pages may land on node 0 where reclaim of zowner made room there
	tap $([ "$2" -ge $(( ($1 + $2) * 3 / 4 )) ] &&
	      [ "$steered" -ge $(( (24 << 20) / 4096 / 2 )) ]; echo $?) \
		"read back from zram by a task that left, its 24M are placed for zowner's full tier 0: the task's pages $2 on node 1, $1 on node 0 (at least 3/4 on node 1); $steered allocations steered (at least half the 24M); zowner's anon on node 1 +$d1 bytes, on node 0 +$d0, $left bytes still in swap"
else
	tap $([ $((d0 + d1)) -ge $(( (24 << 20) * 9 / 10 )) ]; echo $?) \
		"read back from zram by a task that left, the 24M are charged to zowner again: anon on node 0 +$d0 bytes, on node 1 +$d1, $left bytes still in swap"
fi
kill $mover
echo 1 >"$CGROOT/zowner/cgroup.kill"
cg_wait_empty zowner
cg_wait_empty zmover
rmdir "$CGROOT/zowner" "$CGROOT/zmover"
swapoff /dev/zram0
echo "$demotion" >/sys/kernel/mm/numa/demotion_enabled
