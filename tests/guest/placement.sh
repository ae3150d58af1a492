#!/bin/sh
# Placement that serves the workload, in a boot of its own with a fast and
# a slow node of equal size (tests/run.sh), so that memory.max = 100M
# gives each tier a share of about 50M.
#
#   hotlast    memory.max 100M, numa_balancing=2, demotion on: 35M cold,
#              then 35M hot (fast share about 70% of the working set).
#              The cold part fills most of the fast share; the hot part
#              must end up on the fast tier (at least 95% within 60 s)
#              while the cgroup's fast usage stays within its share + 5%.
#   allhot     (with the parameter) 70M all hot in the same cgroup: the
#              exchange backs off instead of ping-ponging.
#   pinned     cpuset.mems=1, memory.max 100M, swap on, 90M touched:
#              nothing swapped, no tier reclaim.
#   moved      cpuset.mems 0 -> 1 under 60M held: every page follows to
#              node 1, none refused.
#   bound      no cpuset, a task MPOL_BIND to node 1 touching 80M: its
#              pages stay on node 1 (under 1M on node 0: what exec placed
#              before the policy) and it is held to the cgroup's share
#              of node 1's tier (the rest swapped); limits belong to the
#              cgroup, not to a task's policy.
. /tracing/bin/lib.sh

on=0
[ "$TIERED_MODE" = on ] && on=1
swap_on || { tap 1 "swap on the swap disk"; exit 1; }
echo 1 >/sys/kernel/mm/numa/demotion_enabled
echo +memory >"$CGROOT/cgroup.subtree_control"
echo +cpuset >"$CGROOT/cgroup.subtree_control"

# new_cg NAME MAX: a fresh cgroup with memory.max MAX
new_cg() {
	mkdir "$CGROOT/$1" && echo "$2" >"$CGROOT/$1/memory.max"
}

# end_cg NAME: kill what runs in NAME and remove it
end_cg() {
	# shellcheck disable=SC2046 # one pid per line
	kill $(cat "$CGROOT/$1/cgroup.procs") 2>/dev/null
	cg_wait_empty "$1"
	rmdir "$CGROOT/$1"
}

# usage_within NAME TIER PCT: tier usage of NAME at most PCT% over its max
usage_within() {
	awk -v u="$(tier_stat_field "$1" "$2" usage)" \
	    -v m="$(tier_stat_field "$1" "$2" max)" -v p="$3" \
	    'BEGIN { exit !(u <= m * (100 + p) / 100) }'
}

reclaims() {
	sed -n 's/.* reclaims=\([0-9]*\).*/\1/p' "$CGROOT/$1/memory.tier_stat" |
		awk '{ n += $1 } END { print n + 0 }'
}

# --- hot part allocated last --------------------------------------------
cg=hotlast
new_cg $cg 100M
echo 2 >/proc/sys/kernel/numa_balancing
cg_run $cg hotlast 35 35 60 >/tmp/hotlast.out &
worst=
over=0
i=0
while [ $i -lt 90 ]; do
	sleep 1
	i=$((i + 1))
	if [ $on = 1 ] && [ -n "$(cat "$CGROOT/$cg/cgroup.procs")" ]; then
		u=$(tier_stat_field $cg 0 usage)
		[ -z "$worst" ] || [ "$u" -gt "$worst" ] && worst=$u
		usage_within $cg 0 5 || over=1
	fi
	last=$(tail -n 1 /tmp/hotlast.out)
	case $last in *hot_fast=9[5-9]*|*hot_fast=100*) break ;; esac
	[ -z "$(cat "$CGROOT/$cg/cgroup.procs")" ] && break
done
cat /tmp/hotlast.out
t=$(echo "$last" | sed -n 's/^t=\([0-9]*\) .*/\1/p')
pct=$(echo "$last" | sed -n 's/.*hot_fast=\([0-9.]*\).*/\1/p')
tap $(awk -v p="${pct:-0}" -v t="${t:-999}" 'BEGIN { exit !(p >= 95 && t <= 60) }'; echo $?) \
	"hot part allocated last: ${pct:-?}% of it on the fast tier after ${t:-?} s"
if [ $on = 1 ]; then
	tap $over "hot part allocated last: fast usage within its share + 5% (peak $worst, max $(tier_stat_field $cg 0 max))"
fi
end_cg $cg

# --- every page hot, more than the fast share -----------------------------
# The exchange must not ping-pong: after the first minute, promotions into
# the fast tier slow to at most an eighth of its share per run, one run
# every 32 s at most.
if [ $on = 1 ]; then
	cg=allhot
	new_cg $cg 100M
	cg_run $cg hotlast 0 70 80 >/tmp/allhot.out &
	sleep 50
	p0=$(tier_stat_field $cg 0 promoted)
	sleep 25
	p1=$(tier_stat_field $cg 0 promoted)
	share=$(tier_stat_field $cg 0 max)
	tap $([ $((p1 - p0)) -le $((share / 4)) ]; echo $?) \
		"all hot, 70M over a fast share of $share: $((p1 - p0)) bytes promoted from 50 s to 75 s (at most a quarter of the share), $p1 in all"
	end_cg $cg
fi
echo 0 >/proc/sys/kernel/numa_balancing

# --- confined to the slow node by cpuset ---------------------------------
cg=pinned
new_cg $cg 100M
echo 1 >"$CGROOT/$cg/cpuset.mems"
cg_run $cg memtouch 90 2
swapped=$(cat "$CGROOT/$cg/memory.swap.peak")
peak=$(cat "$CGROOT/$cg/memory.peak")
if [ $on = 1 ]; then
	r=$(reclaims $cg)
	max1=$(tier_stat_field $cg 1 max)
	tap $([ "$max1" -ge $((100 << 20)) ]; echo $?) \
		"cpuset.mems=1: tier 1 max is all of memory.max ($max1)"
else
	r=0
fi
tap $([ "$swapped" = 0 ] && [ "$r" = 0 ] && [ "$peak" -ge $((90 << 20)) ]; echo $?) \
	"cpuset.mems=1, 90M touched: swapped $swapped, tier reclaims $r, peak $peak"
end_cg $cg

# --- cpuset.mems moved from node 0 to node 1 ------------------------------
cg=moved
new_cg $cg 100M
echo 0 >"$CGROOT/$cg/cpuset.mems"
cg_run $cg hotlast 60 0 120 &
i=0
while [ "$(cg_numa anon $cg 0)" -lt $((60 << 20)) ] && [ $i -lt 300 ]; do
	usleep 100000
	i=$((i + 1))
done
before=$(cg_numa anon $cg 0)
echo 1 >"$CGROOT/$cg/cpuset.mems"
n0=$(cg_numa anon $cg 0)
n1=$(cg_numa anon $cg 1)
refused=0
[ $on = 1 ] && refused=$(tier_stat_field $cg 1 refused)
tap $([ "$before" -ge $((60 << 20)) ] && [ "$n0" = 0 ] && [ "$n1" -ge $((60 << 20)) ] &&
	[ "$refused" = 0 ]; echo $?) \
	"cpuset.mems 0 -> 1: anon on node 0 $before -> $n0, on node 1 $n1, refused $refused"
end_cg $cg

# --- a task's own MPOL_BIND to the slow node -----------------------------
cg=bound
new_cg $cg 100M
cg_run $cg hotlast --bind 1 80 0 120 &
i=0
while [ $(($(cat "$CGROOT/$cg/memory.current") + $(cat "$CGROOT/$cg/memory.swap.current"))) \
	-lt $((79 << 20)) ] && [ $i -lt 300 ]; do
	usleep 100000
	i=$((i + 1))
done
sleep 2
n0=$(cg_numa anon $cg 0)
swapped=$(cat "$CGROOT/$cg/memory.swap.current")
if [ $on = 1 ]; then
	within=1
	usage_within $cg 1 5 && within=0
	tap $([ "$n0" -lt $((1 << 20)) ] && [ $within = 0 ] && [ "$swapped" -gt 0 ]; echo $?) \
		"MPOL_BIND to node 1: on node 0 $n0, tier 1 usage $(tier_stat_field $cg 1 usage) within its share $(tier_stat_field $cg 1 max), swapped $swapped"
else
	tap $([ "$n0" -lt $((1 << 20)) ] && [ "$swapped" = 0 ]; echo $?) \
		"MPOL_BIND to node 1: on node 0 $n0, swapped $swapped"
fi
end_cg $cg
swap_off
