#!/bin/sh
# The boot parameter, memory.tier_stat and memory.tier_limits: the kernel
# says the feature is on, the files exist only with the parameter, and the
# capacities are the nodes' MemTotal.  A session of memory.tier_limits
# reads and writes, bad ones included, goes to the log; the selftest
# checks its values.  The split of the limits, its rewrites and the return
# of every tier charge are tested by the kernel's selftest,
# test_memcg_tiers (tests/guest/memcg_tiers.sh).
#
#   /sys/fs/cgroup/tiers    no limits
#
# Expected, per tier N over nodes with MemTotal cap_N (pages):
#   capacity_N = cap_N * 4096
. /tracing/bin/lib.sh

enabled=$(dmesg | grep -c 'memcg: tiered memory limits enabled')
cg_make tiers || exit 1
if [ "$TIERED_MODE" = off ]; then
	tap $([ "$enabled" -eq 0 ]; echo $?) "no 'tiered limits enabled' in the kernel log"
	tap $([ ! -e "$CGROOT/tiers/memory.tier_stat" ]; echo $?) "no memory.tier_stat without the parameter"
	tap $([ ! -e "$CGROOT/tiers/memory.tier_limits" ]; echo $?) "no memory.tier_limits without the parameter"
	rmdir "$CGROOT/tiers"
	exit 0
fi
tap $([ "$enabled" -eq 1 ]; echo $?) "the kernel log says tiered limits are enabled"
tap $([ -r "$CGROOT/tiers/memory.tier_stat" ]; echo $?) "memory.tier_stat exists"
sed 's/^/  /' "$CGROOT/tiers/memory.tier_stat"

cap0=$(($(node_mem_kib 0) / 4))
cap1=$(($(node_mem_kib 1) / 4))
tap $([ "$(tier_stat_field tiers 0 capacity)" = $((cap0 * 4096)) ] &&
      [ "$(tier_stat_field tiers 1 capacity)" = $((cap1 * 4096)) ]; echo $?) \
	"tier capacities are the nodes' MemTotal ($cap0 + $cap1 pages)"

# A session, as an administrator would type it
limits=$CGROOT/tiers/memory.tier_limits
session() {
	echo "  # $1"
	sh -c "$1" 2>&1 | sed 's/^/  /'
}
bad=0
for cmd in "echo 100M > memory.max" "echo 40M > memory.low" "cat memory.tier_limits" \
	"echo 'tier0 max=20M low=max' > memory.tier_limits" "cat memory.tier_limits" \
	"echo 'tier0 max=25%' > memory.tier_limits" "echo 200M > memory.max" \
	"cat memory.tier_limits" "echo 'tier0 max=default low=default' > memory.tier_limits" \
	"cat memory.tier_limits"; do
	(cd "$CGROOT/tiers" && session "$cmd")
done
for line in "tier7 max=1M" "tier0 maxx=1M" "tier0 max=1Q" "tier0 max=101%" \
	"tier0" "tier0 min=20M max=10M"; do
	err=$(cd "$CGROOT/tiers" && session "echo '$line' > memory.tier_limits")
	echo "$err"
	case $err in *"Invalid argument"*) ;; *) bad=$((bad + 1)) ;; esac
done
tap $([ $bad = 0 ] && ! grep -q '\[' "$limits"; echo $?) \
	"memory.tier_limits: each bad line fails with EINVAL, 'default' clears"
rmdir "$CGROOT/tiers"
