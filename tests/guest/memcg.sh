#!/bin/sh
# A cgroup v2 workload under memory.max: one that fits runs to completion,
# one that does not fit (the guest has no swap) is OOM-killed.
#
#   /sys/fs/cgroup/memcg-smoke   memory.max = 64M
#     memtouch 48  -> exits 0, memory.peak <= 64M
#     memtouch 128 -> killed, memory.events oom_kill >= 1
. /tracing/bin/lib.sh

cg=memcg-smoke
cg_make $cg || { tap 1 "create cgroup $cg"; exit 1; }
echo 64M >"$CGROOT/$cg/memory.max"

cg_run $cg memtouch 48
tap $? "a 48M workload under memory.max=64M completes"

peak=$(cat "$CGROOT/$cg/memory.peak")
tap $([ "$peak" -le $((64 << 20)) ]; echo $?) "memory.peak $peak <= 64M"

cg_run $cg memtouch 128 2>/dev/null
status=$?
kills=$(awk '/^oom_kill / { print $2 }' "$CGROOT/$cg/memory.events")
tap $([ "$status" -ne 0 ] && [ "$kills" -ge 1 ]; echo $?) \
	"a 128M workload is OOM-killed (status $status, oom_kill $kills)"

rmdir "$CGROOT/$cg"
tap $? "cgroup $cg removed after its workloads exit"
