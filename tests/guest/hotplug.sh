#!/bin/sh
# Memory hotplug: a DIMM added to node 1 (the slow tier) while a cgroup
# has limits re-splits them on the new capacities.  Runs only in a boot of
# its own started with run-qemu.sh --hotplug SIZE (tiered.tests=hotplug):
# the console line below asks the host to add the DIMM through the QEMU
# monitor; the guest onlines the new memory blocks.
#
#   /sys/fs/cgroup/hotplug   memory.max = 300M, memory.low = 100M
#
# Expected, with cap_N node N's MemTotal in pages after onlining:
#   node 1's MemTotal grows by about SIZE (the host's DIMM)
#   on:  tier 1's capacity = cap_1 * 4096, and each tier's max and low =
#        floor(limit_pages * cap_N / (cap_0 + cap_1)) * 4096, exactly
#   off: no memory.tier_stat
. /tracing/bin/lib.sh

cg_make hotplug || exit 1
echo 300M >"$CGROOT/hotplug/memory.max"
echo 100M >"$CGROOT/hotplug/memory.low"
before=$(node_mem_kib 1)
blocks=$(ls -d /sys/devices/system/node/node1/memory* 2>/dev/null | wc -l)

echo "tiered-guest: hotplug" >/dev/console
# ACPI reports the DIMM, the kernel adds its blocks offline: online them
i=0
while [ $i -lt 60 ]; do
	now=$(ls -d /sys/devices/system/node/node1/memory* 2>/dev/null | wc -l)
	[ "$now" -gt "$blocks" ] && break
	sleep 1
	i=$((i + 1))
done
for b in /sys/devices/system/node/node1/memory*; do
	[ "$(cat "$b/state")" = offline ] && echo online_movable >"$b/state"
done
after=$(node_mem_kib 1)
tap $([ "$after" -gt $((before + 65536)) ]; echo $?) \
	"node 1 grew from $before to $after KiB ($((now - blocks)) memory blocks added)"

if [ "$TIERED_MODE" = off ]; then
	tap $([ ! -e "$CGROOT/hotplug/memory.tier_stat" ]; echo $?) \
		"no memory.tier_stat without the parameter"
	rmdir "$CGROOT/hotplug"
	exit 0
fi
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
rmdir "$CGROOT/hotplug"
