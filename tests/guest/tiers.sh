#!/bin/sh
# The boot parameter, memory.tier_stat and the proportional split of the
# four limits, on the guest's own node sizes; and that a cgroup's tier
# charges all come back when its workload exits.
#
#   /sys/fs/cgroup/tiers          limits written one after the other
#   /sys/fs/cgroup/leak           parent, no limits
#   /sys/fs/cgroup/leak/work      memtouch 64M, then removed
#
# Expected, per tier N over nodes with MemTotal cap_N (pages):
#   capacity_N = cap_N * 4096
#   limit_N = floor(limit_pages * cap_N / (cap_0 + cap_1)) * 4096, exactly
#   leak: every tier's usage 0 once work exits and is removed
. /tracing/bin/lib.sh

enabled=$(dmesg | grep -c 'memcg: tiered memory limits enabled')
cg_make tiers || exit 1
if [ "$TIERED_MODE" = off ]; then
	tap $([ "$enabled" -eq 0 ]; echo $?) "no 'tiered limits enabled' in the kernel log"
	tap $([ ! -e "$CGROOT/tiers/memory.tier_stat" ]; echo $?) "no memory.tier_stat without the parameter"
	rmdir "$CGROOT/tiers"
	exit 0
fi
tap $([ "$enabled" -eq 1 ]; echo $?) "the kernel log says tiered limits are enabled"
tap $([ -r "$CGROOT/tiers/memory.tier_stat" ]; echo $?) "memory.tier_stat exists"
sed 's/^/  /' "$CGROOT/tiers/memory.tier_stat"

cap0=$(($(node_mem_kib 0) / 4))
cap1=$(($(node_mem_kib 1) / 4))
total=$((cap0 + cap1))
tap $([ "$(tier_stat_field tiers 0 capacity)" = $((cap0 * 4096)) ] &&
      [ "$(tier_stat_field tiers 1 capacity)" = $((cap1 * 4096)) ]; echo $?) \
	"tier capacities are the nodes' MemTotal ($cap0 + $cap1 pages)"

# check_split FILE BYTES: write BYTES to memory.FILE, compare each tier
check_split() {
	local file=$1 bytes=$2 pages=$(($2 / 4096)) ok=0 t want got
	echo "$bytes" >"$CGROOT/tiers/memory.$file" || ok=1
	for t in 0 1; do
		eval "cap=\$cap$t"
		want=$(($(tier_share "$pages" "$cap" "$total") * 4096))
		got=$(tier_stat_field tiers $t "$file")
		[ "$got" = "$want" ] || { ok=1; echo "  tier$t $file: want $want, got $got"; }
	done
	tap $ok "memory.$file=$bytes splits $cap0:$cap1 exactly"
}
check_split max $((300 << 20))
check_split high $((200 << 20))
check_split low $((100 << 20))
check_split min $((50 << 20))
check_split max $((123 << 20))
echo max >"$CGROOT/tiers/memory.max"
tap $([ "$(tier_stat_field tiers 0 max)" = max ] &&
      [ "$(tier_stat_field tiers 1 max)" = max ]; echo $?) \
	"memory.max=max leaves every tier unlimited"
rmdir "$CGROOT/tiers"

mkdir -p "$CGROOT/leak" && echo +memory >"$CGROOT/leak/cgroup.subtree_control" &&
	mkdir -p "$CGROOT/leak/work" || { tap 1 "create leak/work"; exit 1; }
cg_run leak/work memtouch 64 4 &
sleep 3
t0=$(tier_stat_field leak/work 0 usage)
t1=$(tier_stat_field leak/work 1 usage)
current=$(cat "$CGROOT/leak/work/memory.current")
# memory.current also holds kernel memory (page tables), a few hundred KiB
tap $([ $((t0 + t1)) -ge $((60 << 20)) ] &&
      [ $((t0 + t1)) -le "$current" ] &&
      [ $((current - t0 - t1)) -le $((current / 50)) ]; echo $?) \
	"while it runs, the tiers hold its memory: $t0 + $t1 of memory.current $current (within 2%)"
wait $!
tap $? "the 64M workload in leak/work completes"
rmdir "$CGROOT/leak/work"
u0=$(tier_stat_field leak 0 usage)
u1=$(tier_stat_field leak 1 usage)
tap $([ "$u0" = 0 ] && [ "$u1" = 0 ]; echo $?) \
	"every tier of the parent is back to 0 after the child is removed ($u0, $u1)"
rmdir "$CGROOT/leak"
