#!/bin/sh
# A migration changes where memory is, not how much: demotion never takes
# memory.current, or memory.peak, past memory.max.  (The cross-tier
# pre-charge used to charge the destination folio to memory as well,
# while the source kept its charge.)
#
#   /sys/fs/cgroup/demote   memory.max = 64M, swap on, demotion on
#     memtouch 96M, held 2 s: reclaim at memory.max demotes from node 0
#     and swaps from node 1
#
# Expected: pages demoted (pgdemote_direct), memory.peak <= 64M.
. /tracing/bin/lib.sh

swap_on || { tap 1 "swap on the 'swap' disk"; exit 1; }
cg_make demote || exit 1
echo 64M >"$CGROOT/demote/memory.max"
echo 1 >/sys/kernel/mm/numa/demotion_enabled
before=$(awk '/^pgdemote_direct / { print $2 }' /proc/vmstat)
cg_run demote memtouch 96 2
status=$?
demoted=$(( ($(awk '/^pgdemote_direct / { print $2 }' /proc/vmstat) - before) * 4096 ))
peak=$(cat "$CGROOT/demote/memory.peak")
tap $([ "$status" = 0 ] && [ "$demoted" -gt 0 ] &&
      [ "$peak" -le $((64 << 20)) ]; echo $?) \
	"96M through memory.max 64M with $demoted bytes demoted: memory.peak $peak <= 64M (status $status)"
rmdir "$CGROOT/demote"
swap_off
