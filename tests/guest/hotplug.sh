#!/bin/sh
# Memory hotplug: a DIMM added to node 1 (the slow tier) while a cgroup
# has limits re-splits them on the new capacities; then node 1's memory
# goes offline and online again, under load.  Runs only in a boot of its
# own started with run-qemu.sh --hotplug SIZE --slow-mem 0
# (tiered.tests=hotplug): node 1 has no memory until the DIMM comes.  The
# console line below asks the host to add the DIMM through the QEMU
# monitor; the guest onlines the new memory blocks.
#
#   /sys/fs/cgroup/hotplug   memory.max = 300M, memory.low = 100M
#
# Expected, with cap_N node N's MemTotal in pages after onlining:
#   node 1's MemTotal grows from 0 to about SIZE (the host's DIMM); its
#   first block makes node 1 a tier, the next ones only add capacity
#   on:  tier 1's capacity = cap_1 * 4096, and each tier's max and low =
#        floor(limit_pages * cap_N / (cap_0 + cap_1)) * 4096, exactly
#   off: no memory.tier_stat
# Then, with 240M faulted in the cgroup and 40M more faulted, held for a
# second and freed in a loop (more than tier 0's share, so allocations go to node 1), node
# 1's blocks go offline and online ROUNDS times: node 1 loses its last
# memory and gains its first again each time.
#   on:  the cgroup has memory on node 1 before each offline; tier 1
#        lists node 1 while online and no node while offline; the loop's
#        allocations were steered to node 1; once the load exits,
#        both tiers' usage is back to 0 (no charge kept or lost by a
#        tier slot going and coming back); no page_counter underflow
#        (the boot fails on any kernel warning); a tier1 low set in
#        memory.tier_limits before the rounds is dropped, with a kernel
#        message, when node 1's memory goes offline, and stays dropped
#        when it comes back (tier 1 may return as another kind of memory)
. /tracing/bin/lib.sh

ROUNDS=3
node1_kib() {
	if [ -e /sys/devices/system/node/node1/meminfo ]; then node_mem_kib 1; else echo 0; fi
}
tier1_nodes() {
	sed -n 's/^tier1 nodes=\([^ ]*\) .*/\1/p' "$CGROOT/hotplug/memory.tier_stat" 2>/dev/null
}
# set_node1 ACTION STATE: every memory block of node 1 to STATE
set_node1() {
	for b in $(node_blocks 1); do
		[ "$(cat "$b/state")" = "$2" ] || echo "$1" >"$b/state" ||
			echo "  $b: $1 failed"
	done
}

cg_make hotplug || exit 1
echo 300M >"$CGROOT/hotplug/memory.max"
echo 100M >"$CGROOT/hotplug/memory.low"
before=$(node1_kib)

echo "tiered-guest: hotplug" >/dev/console
# ACPI reports the DIMM, the kernel adds its blocks offline: online them
blocks=$(wait_node_blocks 1)
set_node1 online_movable online
after=$(node1_kib)
tap $([ "$before" -eq 0 ] && [ "$after" -gt 65536 ]; echo $?) \
	"node 1 grew from $before to $after KiB ($blocks memory blocks added)"

if [ "$TIERED_MODE" = on ]; then
	cap0=$(($(node_mem_kib 0) / 4))
	cap1=$((after / 4))
	total=$((cap0 + cap1))
	tap $([ "$(tier_stat_field hotplug 1 capacity)" = $((cap1 * 4096)) ]; echo $?) \
		"tier 1's capacity follows node 1: $(tier_stat_field hotplug 1 capacity) = $cap1 pages"
	for key in max low; do
		case $key in max) pages=$((300 * 256)) ;; low) pages=$((100 * 256)) ;; esac
		ok=0
		for t in 0 1; do
			eval "cap=\$cap$t"
			want=$(($(tier_share "$pages" "$cap" "$total") * 4096))
			got=$(tier_stat_field hotplug $t $key)
			[ "$got" = "$want" ] || { ok=1; echo "  tier$t $key: want $want, got $got"; }
		done
		tap $ok "memory.$key re-split on the new capacities $cap0:$cap1"
	done
else
	tap $([ ! -e "$CGROOT/hotplug/memory.tier_stat" ]; echo $?) \
		"no memory.tier_stat without the parameter"
fi

cg_run hotplug memtouch 240 600 >/dev/null 2>&1 &
cg_run hotplug sh -c 'while :; do memtouch 40 1; done' >/dev/null 2>&1 &
sleep 5
ok=0 rounds=0 moved=
steered0=$(tier_stat_field hotplug 0 steered 2>/dev/null)
limits=$CGROOT/hotplug/memory.tier_limits
tier1_set() { grep -c '^tier1 .*\[' "$limits"; }
if [ "$TIERED_MODE" = on ]; then
	echo "tier1 low=10M" >"$limits"
	set_before=$(tier1_set)
fi
for r in $(seq $ROUNDS); do
	# The loop's memory comes and goes: wait for some on node 1 (only
	# steering puts it there)
	i=0
	while [ "$TIERED_MODE" = on ] && [ $i -lt 50 ]; do
		anon1=$(cg_numa anon hotplug 1)
		[ "${anon1:-0}" -gt 0 ] && break
		usleep 100000
		i=$((i + 1))
	done
	moved="$moved ${anon1:-0}"
	set_node1 offline offline
	off_kib=$(node1_kib)
	off_nodes=$(tier1_nodes)
	[ "$r" = 1 ] && [ "$TIERED_MODE" = on ] && set_off=$(tier1_set)
	sleep 1
	set_node1 online_movable online
	on_kib=$(node1_kib)
	on_nodes=$(tier1_nodes)
	[ "$r" = 1 ] && [ "$TIERED_MODE" = on ] && set_on=$(tier1_set)
	echo "  round $r: cgroup anon on node 1 ${anon1:-0} bytes; node 1 offline $off_kib KiB (tier 1 nodes '$off_nodes'), online $on_kib KiB (tier 1 nodes '$on_nodes')"
	[ "$off_kib" -eq 0 ] && [ "$on_kib" -eq "$after" ] || ok=1
	if [ "$TIERED_MODE" = on ]; then
		[ "${anon1:-0}" -gt 0 ] && [ -z "$off_nodes" ] && [ "$on_nodes" = 1 ] || ok=1
	fi
	rounds=$((rounds + 1))
	sleep 2
done
if [ "$TIERED_MODE" = on ]; then
	tap $ok "node 1 offline and online again, $rounds times, each with the cgroup's memory on it (bytes:$moved): tier 1 lost its node and got it back each time"
	dropped=$(dmesg | grep -c 'tier1 has no memory left: memory.tier_limits of /hotplug ')
	tap $([ "$set_before" = 1 ] && [ "$set_off" = 0 ] && [ "$set_on" = 0 ] &&
	      [ "$dropped" -ge 1 ]; echo $?) \
		"tier1 low=10M set by hand: dropped when node 1 went offline, not back when it came back ($set_before, $set_off, $set_on lines set; $dropped kernel messages)"
	steered=$(($(tier_stat_field hotplug 0 steered) - steered0))
	tap $([ "$steered" -gt 0 ]; echo $?) \
		"allocations steered from tier 0 to node 1 during the rounds: $steered"
else
	tap $ok "node 1 offline and online again under load, $rounds times"
fi
echo 1 >"$CGROOT/hotplug/cgroup.kill"
cg_wait_empty hotplug
wait
if [ "$TIERED_MODE" = on ]; then
	# Pages in other CPUs' LRU batches stay charged until those drain
	i=0
	while [ $i -lt 50 ]; do
		u0=$(tier_stat_field hotplug 0 usage)
		u1=$(tier_stat_field hotplug 1 usage)
		[ "$u0" = 0 ] && [ "$u1" = 0 ] && break
		usleep 200000
		i=$((i + 1))
	done
	tap $([ "$u0" = 0 ] && [ "$u1" = 0 ]; echo $?) \
		"with the load gone, no tier usage is left: tier 0 $u0, tier 1 $u1 bytes"
fi
rmdir "$CGROOT/hotplug"
