#!/bin/sh
# Placement that serves the workload, in a boot of its own with a fast and
# a slow node of equal size (tests/run.sh), so that memory.max = 100M
# gives each tier a share of about 50M.
#
#   hotlast    memory.max 100M, numa_balancing=2, demotion on: 35M cold,
#              then 35M hot (fast share about 70% of the working set).
#              The cold part fills most of the fast share; the hot part
#              must end up on the fast tier (at least 95% within 60 s)
#              while the cgroup's fast usage stays within its share + 5%,
#              and, once the share has filled, above 90% of it: the
#              exchange promotes the refused pages into the room it made
#              instead of leaving it empty until the next NUMA scan.
#   lazyfree   as hotlast, with the hot part given back by MADV_FREE
#              right after it is faulted in and then only read.
#   acct       (with the parameter) the exchange's record, allocated by
#              its first run, is charged to the cgroup's parent.
#   allhot     (with the parameter) three cgroups of 70M, all hot, each
#              scanned every 3 s: the exchange backs off instead of
#              ping-ponging.
#   modeflip   4M on the slow node, scanned under numa_balancing=2 (which
#              keeps scan times where the last CPU and PID go), moved to
#              the fast node and written under numa_balancing=1, four
#              times: no oops.
#
# hotlast runs with its slow-tier model off (-r 1): these check where the
# pages go, not what a page on the slow tier costs.
#
# The cpuset and MPOL_BIND rules of placement are tested by the kernel's
# selftest, test_memcg_tiers (tests/guest/memcg_tiers.sh).
. /tracing/bin/lib.sh

on=0
[ "$TIERED_MODE" = on ] && on=1
swap_on || { tap 1 "swap on the swap disk"; exit 1; }
echo 1 >/sys/kernel/mm/numa/demotion_enabled
echo +memory >"$CGROOT/cgroup.subtree_control"

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

# --- hot part allocated last --------------------------------------------
cg=hotlast
new_cg $cg 100M
echo 2 >/proc/sys/kernel/numa_balancing
cg_run $cg hotlast -r 1 35 35 60 >/tmp/hotlast.out &
worst=
low=
over=0
i=0
while [ $i -lt 90 ]; do
	sleep 1
	i=$((i + 1))
	if [ $on = 1 ] && [ -n "$(cat "$CGROOT/$cg/cgroup.procs")" ]; then
		u=$(tier_stat_field $cg 0 usage)
		[ -z "$worst" ] || [ "$u" -gt "$worst" ] && worst=$u
		usage_within $cg 0 5 || over=1
		m=$(tier_stat_field $cg 0 max)
		if [ -n "$low" ] || [ "$u" -ge $((m / 100 * 95)) ]; then
			[ -z "$low" ] || [ "$u" -lt "$low" ] && low=$u
		fi
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
	m=$(tier_stat_field $cg 0 max)
	tap $([ -n "$low" ] && [ "$low" -ge $((m / 100 * 90)) ]; echo $?) \
		"hot part allocated last: the fast share stays full while the hot part moves in (lowest ${low:-?} once full, at least 90% of max $m)"
fi
end_cg $cg

# --- the hot part lazily freed, and read on ------------------------------
# Allocators give memory back with MADV_FREE and may read it again before
# reclaim takes it.  Such a folio is still anonymous but no longer
# swap-backed, so it sits on the file LRU: the exchange must handle it
# (here it oopsed the kernel once), and the hot part must still reach the
# fast tier.
cg=lazyfree
new_cg $cg 100M
cg_run $cg hotlast -r 1 --lazyfree 35 35 60 95 >/tmp/lazyfree.out
cat /tmp/lazyfree.out
last=$(tail -n 1 /tmp/lazyfree.out)
t=$(echo "$last" | sed -n 's/^t=\([0-9]*\) .*/\1/p')
pct=$(echo "$last" | sed -n 's/.*hot_fast=\([0-9.]*\).*/\1/p')
tap $(awk -v p="${pct:-0}" -v t="${t:-999}" 'BEGIN { exit !(p >= 95 && t <= 60) }'; echo $?) \
	"hot part lazily freed (MADV_FREE) and read on: ${pct:-?}% of it on the fast tier after ${t:-?} s"
end_cg $cg

# --- the exchange's record is charged to the parent -----------------------
# A cgroup's exchange keeps a record of 160K once it has run.  It is the
# cgroup's own memory, charged as the cgroup itself is, to its parent: a
# delegated subtree pays for the exchanges of the cgroups it creates.
# memory.stat's kernel is hierarchical, so the parent's own is its figure
# less the child's.
if [ $on = 1 ]; then
	own_kernel() {
		echo $(( $(sed -n 's/^kernel //p' "$CGROOT/acct/memory.stat") -
			 $(sed -n 's/^kernel //p' "$CGROOT/acct/c/memory.stat") ))
	}
	mkdir "$CGROOT/acct" && echo +memory >"$CGROOT/acct/cgroup.subtree_control"
	new_cg acct/c 100M
	k0=$(own_kernel)
	cg_run acct/c hotlast -r 1 35 35 60 95 >/tmp/acct.out
	k1=$(own_kernel)
	tap $([ $((k1 - k0)) -ge $((160 << 10)) ]; echo $?) \
		"the exchange's record is charged to the parent: its own kernel memory grew by $((k1 - k0)) bytes (at least 160K), the hot part at $(tail -n 1 /tmp/acct.out | sed -n 's/.*hot_fast=\([0-9.]*\).*/\1/p')%"
	end_cg acct/c
	rmdir "$CGROOT/acct"
fi

# --- every page hot, more than the fast share, in three cgroups ----------
# NUMA balancing scans each task every 3 s here, as it comes to for tasks
# on busy CPUs: further apart than the exchange's first delays.  Whatever
# an exchange demotes is hot and is refused again at the next scan: the
# exchange must see that and back off, not swap hot pages at every scan.
# From 50 s to 75 s, no cgroup may have more than a sixteenth of its fast
# share promoted, nor its fast tier reclaimed (one exchange run each) more
# than 3 times: backed off, the exchange runs every 32 s.  One that does
# not back off ran 13 to 23 times there, though what it promoted did not
# always pass the first bound.
if [ $on = 1 ]; then
	nb=/sys/kernel/debug/sched/numa_balancing
	pmin=$(cat $nb/scan_period_min_ms)
	pmax=$(cat $nb/scan_period_max_ms)
	echo 3000 >$nb/scan_period_max_ms
	echo 3000 >$nb/scan_period_min_ms
	for c in 1 2 3; do
		new_cg allhot$c 100M
		cg_run allhot$c hotlast -r 1 0 70 80 >/tmp/allhot$c.out &
	done
	sleep 50
	for c in 1 2 3; do
		eval "p0_$c=$(tier_stat_field allhot$c 0 promoted)"
		eval "r0_$c=$(tier_stat_field allhot$c 0 reclaims)"
	done
	sleep 25
	share=$(tier_stat_field allhot1 0 max)
	worst=0
	most=0
	moved=
	runs=
	for c in 1 2 3; do
		eval "p0=\$p0_$c r0=\$r0_$c"
		p1=$(tier_stat_field allhot$c 0 promoted)
		r1=$(tier_stat_field allhot$c 0 reclaims)
		moved="$moved $((p1 - p0))"
		runs="$runs $((r1 - r0))"
		[ $((p1 - p0)) -gt $worst ] && worst=$((p1 - p0))
		[ $((r1 - r0)) -gt $most ] && most=$((r1 - r0))
	done
	tap $([ $worst -le $((share / 16)) ] && [ $most -le 3 ]; echo $?) \
		"all hot, three cgroups of 70M over fast shares of $share, scanned every 3 s: from 50 s to 75 s, promoted$moved bytes (at most a sixteenth of the share each), tier 0 reclaimed$runs times (at most 3 each: a backed-off exchange runs every 32 s)"
	for c in 1 2 3; do
		end_cg allhot$c
	done
	echo "$pmin" >$nb/scan_period_min_ms
	echo "$pmax" >$nb/scan_period_max_ms
fi

# --- tiering mode's scan times read as CPUs ------------------------------
# An administrator may switch NUMA balancing between its modes at any
# time.  Tiering mode keeps a slow page's scan time where a fast page keeps
# the CPU and PID that last touched it; a page moved up after the switch
# to normal mode must not hand that time to the hint fault as a CPU.
# One scan stamps all 4M with the same time, whose CPU bits name a CPU
# that exists for a quarter of each 4 s here (8 CPUs' worth of bits, 2
# online): four runs, 1 to 4 s apart, leave a kernel that misreads the
# time one chance in about 250 of getting through.
new_cg modeflip 100M
runs=
bad=0
for r in 1 2 3 4; do
	out=$(cg_run modeflip modeflip 4 1 0 6)
	runs="$runs; ${out:-no output}"
	[ "$(echo "$out" | sed -n 's/^slow=\([0-9]*\) fast=\([0-9]*\) .*/\1 \2/p')" = "1024 1024" ] ||
		bad=1
	sleep "$r"
done
faults=$(awk '$1 == "numa_hint_faults" { print $2 }' "$CGROOT/modeflip/memory.stat")
tap $([ $bad = 0 ] && [ "${faults:-0}" -ge 4096 ]; echo $?) \
	"4M scanned on the slow node under numa_balancing=2, moved up and written under numa_balancing=1, 4 times: ${runs#; }; $faults hint faults (all 1024 pages on each node each time, at least 4096 faults)"
end_cg modeflip
echo 0 >/proc/sys/kernel/numa_balancing

swap_off
