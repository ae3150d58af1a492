#!/bin/sh
# Stress: everything that charges, moves or re-splits tier memory at once,
# for 180 s (tiered.stress=SECONDS on the kernel command line changes it),
# then exact accounting checks; then the seeded randomized stress,
# tierstress, alone for 180 s (tiered.tierstress=SECONDS).  Runs only in a
# boot of its own, started with run-qemu.sh --hotplug SIZE --slow-mem 0
# (tiered.tests=stress): node 1's only memory is a DIMM that comes and
# goes.  make test runs it on the debug kernel with the parameter, make
# soak for longer.
#
# Concurrently, under /sys/fs/cgroup/stress:
#   churn     4 loops, each keeping 4 cgroups alive: remove the oldest
#             (cgroup.kill, rmdir), create one with random memory.{min,
#             low,high,max}, start in it an anonymous, shmem or page-cache
#             workload (THP always, for tmpfs too; swap on)
#   limits    random limit writes to random live churn cgroups
#   pingpong  move_pages(2) and mbind(2) of 16M between node 0 and 1
#   hotlast   numa_balancing=2: its hot pages on node 1 get promoted
#   hotplug   the DIMM added (node 1 gains its first memory: tier 1
#             comes back), onlined, used for 20 s, offlined under load
#             and ejected through ACPI (node 1 memoryless again), in a
#             loop that ends with the DIMM online
# Demotion comes from the cgroups' pressure (demotion_enabled=1).
#
# Then, with every live cgroup frozen:
#   - every tier limit = floor(limit * capacity / total capacity)
#   - after swapoff (no swap cache left) and drop_caches, per live cgroup:
#     its tiers' usage adds up to anon + file of memory.stat, and each
#     tier's usage = anon + file of memory.numa_stat on its nodes (or the
#     pages on their LRU lists: see usage_vs_stat)
#   - the stress cgroup's tier usage matches its memory.stat and numa_stat
#     as a live cgroup's does: what removed cgroups still have charged is
#     pages they still own, no tier charge without a page
#   - every kind of operation happened at least once (counts printed)
#
# Then tierstress (tracing/workloads/tierstress.c) under
# /sys/fs/cgroup/tierstress: 4 workers pick from its table of operations
# (mappings, every madvise, mlock, mremap, fork, exec, memory policies,
# move_pages, migrate_pages, nested cgroups and their limits, cpuset.mems
# and +/-cpuset, numa_balancing, demotion, swapoff, drop_caches, node 1's
# memory blocks) and check the split, empty cgroups, frozen usage and the
# kernel log as they go.  It prints its seed first and every operation's
# count last; tiered.seed=N replays a seed, and each operation must have
# run tiered.stress_min=N times (100), in at most half the run time more
# if the machine is slow (tierstress -m).
# A kernel report fails the boot (run-qemu.sh); init scans kmemleak after
# the test.
. /tracing/bin/lib.sh

SECONDS_TOTAL=$(sed -n 's/.*tiered\.stress=\([0-9]*\).*/\1/p' /proc/cmdline)
SECONDS_TOTAL=${SECONDS_TOTAL:-180}
SEED=$(sed -n 's/.*tiered\.seed=\([0-9]*\).*/\1/p' /proc/cmdline)
MIN_EACH=$(sed -n 's/.*tiered\.stress_min=\([0-9]*\).*/\1/p' /proc/cmdline)
MIN_EACH=${MIN_EACH:-100}
TIERSTRESS_SECONDS=$(sed -n 's/.*tiered\.tierstress=\([0-9]*\).*/\1/p' /proc/cmdline)
TIERSTRESS_SECONDS=${TIERSTRESS_SECONDS:-180}
top=stress
ops=/tmp/stress.ops
stop=/tmp/stress.stop
files=/tmp/stress-files
: >"$ops"
rm -f "$stop"
mkdir -p "$files"

[ "$TIERED_MODE" = on ] || { tap 1 "the stress test needs cgroup.memory=tiered_limits"; exit 1; }

op() { echo "$1" >>"$ops"; }
rnd() {	# rnd N: 0 .. N-1
	echo $((RANDOM % $1))
}
vmstat() {	# vmstat PREFIX: sum of /proc/vmstat counters starting with PREFIX
	awk -v p="$1" 'index($1, p) == 1 { s += $2 } END { print s + 0 }' /proc/vmstat
}
running() { [ ! -e "$stop" ]; }

echo always >/sys/kernel/mm/transparent_hugepage/enabled
echo always >/sys/kernel/mm/transparent_hugepage/shmem_enabled
echo 1 >/sys/kernel/mm/numa/demotion_enabled
echo 2 >/proc/sys/kernel/numa_balancing
swap_on || { tap 1 "swap on the 'swap' disk"; exit 1; }
scratch_mount /scratch || { tap 1 "ext2 on the 'scratch' disk"; exit 1; }
cg_make $top || exit 1
echo +memory >"$CGROOT/$top/cgroup.subtree_control"
demote0=$(vmstat pgdemote_)
promote0=$(vmstat pgpromote_success)

# random_limits CGROUP: one random write to each of its four limits
random_limits() {
	local d=$CGROOT/$1 k v
	for k in min low high max; do
		case $k in
		min|low) v=$(( $(rnd 24) * 1048576 )) ;;
		high) [ "$(rnd 4)" = 0 ] && v=max || v=$(( (16 + $(rnd 64)) * 1048576 )) ;;
		max) [ "$(rnd 8)" = 0 ] && v=max || v=$(( (24 + $(rnd 72)) * 1048576 )) ;;
		esac
		echo "$v" 2>/dev/null >"$d/memory.$k" && op limit_write
	done
}

# workload CGROUP KIND: a workload that runs until killed
workload() {
	local f=$files/${1##*/}
	case $2 in
	anon) cg_run "$1" memtouch $((8 + $(rnd 40))) 100000 ;;
	shmem) cg_run "$1" sh -c 'while :; do dd if=/dev/zero of="$0" bs=1M count=24 2>/dev/null; cat "$0" >/dev/null; done' "$f.shm" ;;
	cache) cg_run "$1" sh -c 'while :; do dd if=/dev/zero of="$0" bs=1M count=32 2>/dev/null; cat "$0" >/dev/null; done' "/scratch/${1##*/}" ;;
	esac >/dev/null 2>&1 &
	op "$2"
}

# remove CGROUP: kill what runs in it, remove it and its files
remove() {
	echo 1 >"$CGROOT/$1/cgroup.kill"
	cg_wait_empty "$1"
	rm -f "$files/${1##*/}.shm" "/scratch/${1##*/}"
	rmdir "$CGROOT/$1" 2>/dev/null && op cgroup_remove
}

churn() {	# churn W: loop W's four cgroups
	local w=$1 k=0 cg kinds="anon shmem cache"
	while running; do
		cg=$top/c$w-$((k % 4))
		[ -d "$CGROOT/$cg" ] && remove "$cg"
		mkdir "$CGROOT/$cg" && op cgroup_create
		random_limits "$cg"
		workload "$cg" "$(echo $kinds | cut -d' ' -f$(( (k + w) % 3 + 1 )))"
		k=$((k + 1))
		sleep 3
	done
}

limits() {
	local cg
	while running; do
		cg=$(ls -d "$CGROOT/$top"/c[0-9]* 2>/dev/null | sed -n "$(( $(rnd 16) + 1 ))p")
		[ -n "$cg" ] && random_limits "${cg#"$CGROOT"/}"
		usleep 200000
	done
}

# The DIMM: node 1 gains its memory, keeps it for a while under load,
# loses it.  Offlining can fail while pages are pinned for migration:
# retried.
acpi_dimm() {
	for d in /sys/bus/acpi/devices/PNP0C80:*; do
		[ "$(cat "$d/status" 2>/dev/null)" = 15 ] && { echo "$d"; return; }
	done
}
hotplug() {
	local b i ok
	while :; do
		echo "tiered-guest: hotplug" >/dev/console
		[ "$(wait_node_blocks 1)" -gt 0 ] || { echo "  hotplug: no blocks came"; return; }
		for b in $(node_blocks 1); do echo online_movable >"$b/state"; done
		op hot_add
		# Online for 20 s; the run ends with node 1 online, so that the
		# checks see two tiers
		i=0
		while running && [ $i -lt 20 ]; do sleep 1; i=$((i + 1)); done
		running || return 0
		ok=0
		for i in 1 2 3 4 5; do
			ok=1
			for b in $(node_blocks 1); do
				[ "$(cat "$b/state")" = offline ] || echo offline >"$b/state" 2>/dev/null || ok=0
			done
			[ $ok = 1 ] && break
			sleep 1
		done
		if [ $ok = 0 ]; then
			echo "  hotplug: node 1 stays online (offline failed 5 times)"
			op hot_remove_busy
			for b in $(node_blocks 1); do echo online_movable >"$b/state" 2>/dev/null; done
			continue
		fi
		echo 1 >"$(acpi_dimm)/eject"
		i=0
		while [ -n "$(node_blocks 1)" ] && [ $i -lt 100 ]; do usleep 200000; i=$((i + 1)); done
		[ -z "$(node_blocks 1)" ] || { echo "  hotplug: the DIMM's blocks stay after the eject"; return; }
		op hot_remove
		sleep 3
	done
}

mkdir "$CGROOT/$top/mig" "$CGROOT/$top/promo"
echo $((64 << 20)) >"$CGROOT/$top/mig/memory.max"
echo $((48 << 20)) >"$CGROOT/$top/promo/memory.max"

start=$(date +%s)
pids=
for w in 0 1 2 3; do churn $w & pids="$pids $!"; done
limits & pids="$pids $!"
hotplug & pids="$pids $!"
cg_run $top/mig pingpong 16 "$SECONDS_TOTAL" >/tmp/pingpong.out 2>&1 &
pp=$!
( while running; do cg_run $top/promo hotlast -r 1 24 24 30 >/dev/null 2>&1; op hotlast; done ) &
pids="$pids $!"
sleep "$SECONDS_TOTAL"
touch "$stop"
echo "  stopping after $(( $(date +%s) - start )) s"
wait $pp
wait $pids

# Quiesce: no faults, no migration by request; kswapd and the stats
# flusher may still move or count pages, so the checks retry
for d in "$CGROOT/$top"/*/; do echo 1 >"$d/cgroup.freeze"; done
sleep 3
live=$(ls -d "$CGROOT/$top"/*/ | sed "s|^$CGROOT/||; s|/$||")

# limits_vs_split CGROUP: "" when every tier limit is its share,
# floor(limit_pages * capacity / total capacity) pages
limits_vs_split() {
	local d=$CGROOT/$1
	{ for k in min low high max; do echo "limit $k $(cat "$d/memory.$k")"; done
	  cat "$d/memory.tier_stat"; } | awk '
	$1 == "limit" { limit[$2] = $3; next }
	{
		t = $1; tiers[t] = 1
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[t, kv[1]] = kv[2] }
		total += int(v[t, "capacity"] / 4096)
	}
	END {
		for (t in tiers) for (k in limit) {
			if (limit[k] == "max") want = "max"
			else if (total == 0) want = 0
			else want = int(int(limit[k] / 4096) * int(v[t, "capacity"] / 4096) / total) * 4096
			if (want == "max" ? v[t, k] != "max" : v[t, k] == "max" || v[t, k] + 0 != want) printf "%s %s %s != %s ", t, k, v[t, k], want
		}
	}'
}
bad=
for cg in $live; do
	d=$(limits_vs_split "$cg")
	[ -z "$d" ] || bad="$bad ${cg#$top/}: $d;"
done
tap $([ -z "$bad" ]; echo $?) \
	"every tier limit = floor(limit * capacity / total capacity)${bad:+:$bad}"

for cg in $live; do echo max >"$CGROOT/$cg/memory.high"; echo max >"$CGROOT/$cg/memory.max"; done
swapoff "$(disk swap)" && op swapoff
echo 3 >/proc/sys/vm/drop_caches
# After swapoff no folio is in the swap cache, and every charged folio of
# a frozen cgroup is mapped anon or file (page cache, shmem).
# usage_vs_stat CGROUP: "" when the sum of its tiers' usage equals anon +
# file of memory.stat and each tier's usage equals, on the tier's nodes,
# anon + file of memory.numa_stat or the pages on the LRU lists (numa_stat's
# inactive/active anon/file and unevictable); "skewed ..." when numa_stat's
# nodes do not add up to memory.stat, with the total checked only; else
# what differs.  6.12 moves a swap-cache folio's NR_FILE_PAGES between the
# memcg's nodes on migration, though it never counted it there: numa_stat's
# file then shows on one node pages that are on another (the nodes still
# add up), or clamps a node's negative count to 0 (they do not).  The LRU
# lists are moved right, but miss the folios still in a CPU's LRU batch.
usage_vs_stat() {
	awk '
	FILENAME ~ /memory.stat$/ && ($1 == "anon" || $1 == "file") { total += $2 }
	FILENAME ~ /numa_stat$/ && ($1 == "anon" || $1 == "file") {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "="); numa[substr(kv[1], 2)] += kv[2]; numa_total += kv[2]
		}
	}
	FILENAME ~ /numa_stat$/ && $1 ~ /^((in)?active_(anon|file)|unevictable)$/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); lru[substr(kv[1], 2)] += kv[2] }
	}
	FILENAME ~ /tier_stat$/ {
		t = $1; nodes[t] = ""
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "nodes") nodes[t] = kv[2]
			if (kv[1] == "usage") { usage[t] = kv[2]; usage_total += kv[2] }
		}
	}
	END {
		if (usage_total != total) {
			printf "tiers %d != memory.stat anon + file %d ", usage_total, total
			exit
		}
		if (numa_total != total) {
			printf "skewed (numa_stat %d)", numa_total
			exit
		}
		for (t in usage) {
			want = on_lru = 0
			n = split(nodes[t], list, ",")
			for (i = 1; i <= n; i++) { want += numa[list[i]]; on_lru += lru[list[i]] }
			if (want != usage[t] + 0 && on_lru != usage[t] + 0)
				printf "%s usage %d != numa_stat %d (on the LRU lists %d) ", t, usage[t], want, on_lru
		}
	}' "$CGROOT/$1/memory.stat" "$CGROOT/$1/memory.numa_stat" "$CGROOT/$1/memory.tier_stat"
}
# explain CGROUP: what its memory is, for a failure message
explain() {
	echo "  $1:"
	grep -E '^(anon|file|shmem|swapcached|file_mapped|(in)?active_(anon|file)|unevictable) ' \
		"$CGROOT/$1/memory.numa_stat" "$CGROOT/$1/memory.stat" | sed 's|^.*/||; s/^/    /'
	sed 's/^/    /' "$CGROOT/$1/memory.tier_stat"
}

bad= skewed=0
for cg in $live; do
	i=0
	while d=$(usage_vs_stat "$cg"); [ -n "$d" ] && [ "${d#skewed}" = "$d" ] && [ $i -lt 10 ]; do
		sleep 1
		i=$((i + 1))
	done
	case $d in
	"") ;;
	skewed*) skewed=$((skewed + 1)); echo "  ${cg#$top/}: $d: tier total checked only" ;;
	*) bad="$bad ${cg#$top/}: $d;"; explain "$cg" ;;
	esac
done
tap $([ -z "$bad" ]; echo $?) \
	"per live cgroup ($(echo $live | wc -w)), tier usage = anon + file of memory.numa_stat on the tier's nodes, and in all = memory.stat's ($skewed with numa_stat skewed by swap-cache migration: total only)${bad:+:$bad}"

# The parent's counters hold its children's charges, live or removed.  A
# removed cgroup keeps the charge of a page that outlives it (one the
# kernel still uses, say a block of /scratch's metadata first read from
# it) until the page is freed, and memory.stat counts such pages in the
# parent too.  So nothing is leaked when the parent's tiers match its own
# memory.stat and numa_stat exactly as a live cgroup's do; the live
# children's sum is printed next to it, and the difference is what
# removed cgroups still hold.
tier_total() {	# tier_total TIER_STAT...: "tier0=B tier1=B" summed over the files
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "usage") u[$1] += kv[2] } }
	END { for (t in u) printf "%s=%d ", t, u[t] }' "$@"
}
sync
echo 3 >/proc/sys/vm/drop_caches
i=0
while d=$(usage_vs_stat $top); [ -n "$d" ] && [ "${d#skewed}" = "$d" ] && [ $i -lt 20 ]; do
	[ $i = 5 ] && { sync; echo 3 >/proc/sys/vm/drop_caches; }
	sleep 1
	i=$((i + 1))
done
children=$(for cg in $live; do echo "$CGROOT/$cg/memory.tier_stat"; done)
echo "  stress cgroup: $(tier_total "$CGROOT/$top/memory.tier_stat"); its live children: $(tier_total $children)"
case $d in
"") ;;
skewed*) echo "  stress cgroup: $d: tier total checked only"; d= ;;
*) explain $top ;;
esac
tap $([ -z "$d" ]; echo $?) \
	"the stress cgroup's tier usage = anon + file of its memory.numa_stat on the tier's nodes, and in all = memory.stat's: removed cgroups' charges left only with their pages${d:+: $d}"

# What was done, by kind
op_count() { grep -cx "$1" "$ops"; }
pp_out=$(cat /tmp/pingpong.out)
mp=$(echo "$pp_out" | sed -n 's/.*move_pages=\([0-9]*\).*/\1/p')
mb=$(echo "$pp_out" | sed -n 's/.*mbind=\([0-9]*\).*/\1/p')
tf=$(echo "$pp_out" | sed -n 's/.*to_fast=\([0-9]*\).*/\1/p')
ts=$(echo "$pp_out" | sed -n 's/.*to_slow=\([0-9]*\).*/\1/p')
demoted=$(( $(vmstat pgdemote_) - demote0 ))
promoted=$(( $(vmstat pgpromote_success) - promote0 ))
counts="cgroup_create=$(op_count cgroup_create) cgroup_remove=$(op_count cgroup_remove)
limit_write=$(op_count limit_write) anon=$(op_count anon) shmem=$(op_count shmem)
cache=$(op_count cache) move_pages=${mp:-0} mbind=${mb:-0} pages_to_fast=${tf:-0}
pages_to_slow=${ts:-0} demoted=$demoted promoted=$promoted hot_add=$(op_count hot_add)
hot_remove=$(op_count hot_remove) swapoff=$(op_count swapoff)"
echo "  operations: $(echo $counts)"
echo "  pingpong: $pp_out; offline retries given up: $(op_count hot_remove_busy); hotlast runs: $(op_count hotlast)"
none=$(for c in $counts; do [ "${c#*=}" -gt 0 ] || echo "${c%=*}"; done)
tap $([ -z "$none" ]; echo $?) \
	"every kind of operation happened: $(echo $counts)${none:+ (none of: $(echo $none))}"

# Clean up for whatever runs next
for d in "$CGROOT/$top"/*/; do echo 1 >"$d/cgroup.kill"; echo 0 >"$d/cgroup.freeze"; done
for cg in $live; do cg_wait_empty "$cg"; rmdir "$CGROOT/$cg"; done
rm -rf "$files" /scratch/*
rmdir "$CGROOT/$top"

# --- tierstress, alone -----------------------------------------------------
# Its own phase: its swapoff charges swapped pages back to their cgroups,
# which can OOM-kill the shell stress's workloads at their limits, and
# both at once would starve each other on a small guest.
swap_on || { tap 1 "swap on the 'swap' disk again"; exit 1; }
echo 2 >/proc/sys/kernel/numa_balancing
# tierstress confines cgroups to node 1 and offlines node 1's memory: the
# OOM killer of a cpuset without memory left may pick any task, and the
# suite's own shells must not be the ones it picks
for p in $$ $PPID; do echo -1000 >/proc/$p/oom_score_adj; done
# The seed on the console before the run: a kernel crash loses the test's
# buffered output, and the seed is what replays it
SEED=${SEED:-$((RANDOM * 32768 * 32768 + RANDOM * 32768 + RANDOM))}
echo "tierstress: seed $SEED" >/dev/console
tierstress -s "$SEED" -t "$TIERSTRESS_SECONDS" -w 4 -r "$CGROOT/tierstress" \
	-f /scratch -S "$(disk swap)" -m "$MIN_EACH" \
	>/tmp/tierstress.out 2>&1
ts_status=$?
sed -n '1p' /tmp/tierstress.out
sed '1d' /tmp/tierstress.out | sed 's/^/  /'
# The overtime (ops short of MIN_EACH ran on) and, on a failure, which
# ops were short
overtime=$(sed -n 's/^overtime \([0-9]*\) s.*/ + \1 s overtime/p' /tmp/tierstress.out)
short=$(sed -n 's/^min-each: //p' /tmp/tierstress.out | tr '\n' ';' | sed 's/;$//')
tap $ts_status "tierstress (seed $(sed -n 's/^seed //p' /tmp/tierstress.out | head -1), $TIERSTRESS_SECONDS s$overtime): $(grep -c '^op ' /tmp/tierstress.out) kinds of operation, each at least $MIN_EACH times, $(sed -n 's/^violations //p' /tmp/tierstress.out) violations: $(tail -n 1 /tmp/tierstress.out)${short:+ ($short)}"
for p in $$ $PPID; do echo 0 >/proc/$p/oom_score_adj; done
swap_off
rm -rf /scratch/*
umount /scratch
echo 0 >/proc/sys/kernel/numa_balancing
