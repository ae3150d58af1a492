#!/bin/sh
# The guest is what every other test assumes: two NUMA nodes, node 1
# CPU-less, and two memory tiers with node 1 in the lower (slower) one.
. /tracing/bin/lib.sh

nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
tap $([ "$nodes" -eq 2 ]; echo $?) "two NUMA nodes (found $nodes)"

cpus1=$(cat /sys/devices/system/node/node1/cpulist 2>/dev/null)
tap $([ -e /sys/devices/system/node/node1 ] && [ -z "$cpus1" ]; echo $?) \
	"node 1 has no CPUs (cpulist '$cpus1')"

echo "node 0: $(node_mem_kib 0) KiB, node 1: $(node_mem_kib 1) KiB"

tiers=/sys/devices/virtual/memory_tiering
ntiers=$(ls -d $tiers/memory_tier* 2>/dev/null | wc -l)
tap $([ "$ntiers" -eq 2 ]; echo $?) "two memory tiers (found $ntiers)"

# A tier's number is its abstract distance chunk: larger is slower.
tier_of() {
	for t in $tiers/memory_tier*; do
		[ "$(cat "$t/nodelist")" = "$1" ] && { echo "${t##*memory_tier}"; return; }
	done
	echo none
}
t0=$(tier_of 0)
t1=$(tier_of 1)
echo "node 0 in memory_tier$t0, node 1 in memory_tier$t1"
tap $([ "$t0" != none ] && [ "$t1" != none ] && [ "$t1" -gt "$t0" ]; echo $?) \
	"node 1 is in a lower tier than node 0"
