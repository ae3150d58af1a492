#!/bin/sh
# Steering for tasks that arrive at a full tier (ext patch 5).  A task looks
# at its memcg's tiers before allocating only while its flag
# memcg_tier_tight is set: by its own charges near a tier's limit, at
# fork, and when it moves to another cgroup.  A task that arrives while
# the tier is full must steer from its first allocations, not place them
# on the full tier and reclaim it.
#
#   /sys/fs/cgroup/newtask   memory.max 200M (tier 0's share 150M)
#     holder:  memtouch 160M, held: tier 0 full, the rest on node 1
#     started: cg_run memtouch 16M (its shell moves itself in, then execs)
#     moved:   a task started in the root cgroup, where it allocates,
#              moved in by another, then touches 16M
#
# NUMA balancing off, demotion on: a tier reclaim would demote.  THP off,
# so that the holder fills tier 0 to the page: a huge page that does not
# fit leaves up to 2M of room, which a task fills with 4K pages without a
# reclaim, whether it checks first or not.
# Expected:
#   on:  no tier reclaim for either task; each one's allocations counted
#        as steered; tier 0 stays within its max
#   off: the tasks complete (no memory.tier_stat)
. /tracing/bin/lib.sh

balancing=$(cat /proc/sys/kernel/numa_balancing)
demotion=$(cat /sys/kernel/mm/numa/demotion_enabled)
echo 0 >/proc/sys/kernel/numa_balancing
echo 1 >/sys/kernel/mm/numa/demotion_enabled
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
echo never >/sys/kernel/mm/transparent_hugepage/enabled
cg_make newtask || exit 1
echo 200M >"$CGROOT/newtask/memory.max"

cg_run newtask memtouch 160 600 >/dev/null 2>&1 &
holder=$!
cg_wait_anon newtask 159
# The holder's last faults (steered too) must not count as an arrival's
cg_quiet newtask

# arrive WHAT COMMAND...: run COMMAND, then the TAP line for WHAT
arrive() {
	local what=$1 r0 s0 r1 s1 u m status
	shift
	if [ "$TIERED_MODE" != on ]; then
		"$@"
		tap $? "$what: completes"
		return
	fi
	r0=$(tier_stat_field newtask 0 reclaims)
	s0=$(tier_stat_field newtask 0 steered)
	"$@"
	status=$?
	r1=$(tier_stat_field newtask 0 reclaims)
	s1=$(tier_stat_field newtask 0 steered)
	u=$(tier_stat_field newtask 0 usage)
	m=$(tier_stat_field newtask 0 max)
	tap $([ $status = 0 ] && [ "$r1" = "$r0" ] && [ "$s1" -gt "$s0" ] &&
	      [ "$u" -le "$m" ]; echo $?) \
		"$what: steered from its first allocations at a full tier 0: $((s1 - s0)) steered, $((r1 - r0)) tier reclaims (status $status, tier 0 usage $u of $m)"
}

# moved_in: start a task in the root cgroup, move it in, let it allocate
moved_in() {
	local pid
	sh -c 'sleep 2; exec memtouch 16' &
	pid=$!
	echo $pid >"$CGROOT/newtask/cgroup.procs"
	wait $pid
}

arrive "a task started in it" cg_run newtask memtouch 16
arrive "a task moved in" moved_in

echo 1 >"$CGROOT/newtask/cgroup.kill"
wait $holder 2>/dev/null
cg_wait_empty newtask
rmdir "$CGROOT/newtask"
echo "$balancing" >/proc/sys/kernel/numa_balancing
echo "$demotion" >/sys/kernel/mm/numa/demotion_enabled
echo "$thp" >/sys/kernel/mm/transparent_hugepage/enabled
