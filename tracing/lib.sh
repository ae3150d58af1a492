# Shell helpers shared by the guest scenarios and shell tests (sourced).

CGROOT=/sys/fs/cgroup

# node_mem_kib NODE: MemTotal of a NUMA node, in KiB.
node_mem_kib() {
	awk '/MemTotal/ { print $4 }' "/sys/devices/system/node/node$1/meminfo"
}

# node_blocks NODE: the memory block directories of NODE, one a line.
node_blocks() {
	ls -d /sys/devices/system/node/node$1/memory[0-9]* 2>/dev/null
}

# wait_node_blocks NODE: until NODE has memory blocks and their number
# has not changed for a second (the kernel adds a DIMM's blocks one by
# one), 60 s at most; prints how many.
wait_node_blocks() {
	local i=0 n=0 last=-1
	while [ $i -lt 120 ]; do
		n=$(node_blocks "$1" | wc -l)
		[ "$n" -gt 0 ] && [ "$n" -eq "$last" ] && break
		last=$n
		usleep 500000
		i=$((i + 1))
	done
	echo "$n"
}

# cg_numa KEY CGROUP NODE: bytes of KEY (anon, file, ...) on NODE from
# CGROUP's memory.numa_stat.
cg_numa() {
	sed -n "s/^$1 .*N$3=\([0-9]*\).*/\1/p" "$CGROOT/$2/memory.numa_stat"
}

# cg_make NAME: a child of the root with the memory controller enabled.
cg_make() {
	echo +memory >"$CGROOT/cgroup.subtree_control" &&
		mkdir -p "$CGROOT/$1"
}

# cg_run NAME COMMAND...: run COMMAND inside cgroup NAME, in the foreground.
cg_run() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT/$cg" "$@"
}

# cg_wait_empty NAME: until cgroup NAME has no process (10 s at most), so
# that it can be removed.
cg_wait_empty() {
	local i=0
	while [ -n "$(cat "$CGROOT/$1/cgroup.procs")" ] && [ $i -lt 100 ]; do
		usleep 100000
		i=$((i + 1))
	done
}

# tierpush_ready CGROUP READY: "tierpush 60 100" in CGROUP, left running
# in the background once it created READY (30 s at most): in a 64M cgroup
# the fast tier fills, the rest is steered, and 100 pushes are refused.
tierpush_ready() {
	local i=0
	rm -f "$2"
	cg_run "$1" tierpush 60 100 "$2" >/dev/null &
	while [ ! -e "$2" ] && [ $i -lt 300 ]; do
		usleep 100000
		i=$((i + 1))
	done
	[ -e "$2" ]
}

# cg_wait_anon NAME MIB: until cgroup NAME has MIB of anonymous memory on
# its nodes (60 s at most), a workload's faults done.
cg_wait_anon() {
	local i=0
	while [ $(($(cg_numa anon "$1" 0) + $(cg_numa anon "$1" 1))) -lt $(($2 << 20)) ] &&
	      [ $i -lt 600 ]; do
		usleep 100000
		i=$((i + 1))
	done
}

# cg_quiet NAME: wait until cgroup NAME's memory.tier_stat stays the same
# for a second (15 s at most), so that what its tasks started and the
# reclaim a limit write started asynchronously (the high worker) have
# finished: a counter read then is what a capture that ends then saw.
# Fails if it did not settle.
cg_quiet() {
	local f=$CGROOT/$1/memory.tier_stat i=0 a b
	b=$(cat "$f")
	while [ $i -lt 15 ]; do
		sleep 1
		a=$b
		b=$(cat "$f")
		[ "$a" = "$b" ] && return 0
		i=$((i + 1))
	done
	return 1
}

# cg_settle NAME: freeze cgroup NAME's tasks, then cg_quiet NAME.
# cg_thaw NAME lets them run again.
cg_settle() {
	echo 1 >"$CGROOT/$1/cgroup.freeze" && cg_quiet "$1"
}
cg_thaw() {
	echo 0 >"$CGROOT/$1/cgroup.freeze"
}

# TAP lines; the test scenario numbers them.
tap() {
	if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

# tier_stat_field CGROUP TIER KEY: value of KEY on line "tierN" of CGROUP's
# memory.tier_stat ("max" stays "max").
tier_stat_field() {
	sed -n "s/^tier$2 .* $3=\([0-9a-z]*\).*/\1/p" "$CGROOT/$1/memory.tier_stat"
}

# tier_stat_snapshot FILE [ROOT]: memory.tier_stat of every cgroup under
# ROOT (default the cgroup2 mount), one line per cgroup and tier: "ID PATH
# tierN nodes=... usage=... ...", PATH relative to ROOT.  record.sh takes
# one at the start and at the end of a capture; memcg-tier-exporter reads
# the same form.
tier_stat_snapshot() {
	local root=${2:-$CGROOT}
	find "$root" -name memory.tier_stat | while read -r f; do
		dir=${f%/memory.tier_stat}
		path=${dir#"$root"}
		id=$(stat -c %i "$dir")
		# printf, not sed: a path may hold \ & or #
		while IFS= read -r line; do
			printf '%s %s %s\n' "$id" "${path:-/}" "$line"
		done <"$f"
	done >"$1.tmp"
	mv "$1.tmp" "$1"
}

# tier_share LIMIT_PAGES CAP_PAGES TOTAL_PAGES: a tier's share of a limit
# as the kernel computes it, floor(limit * cap / total).
tier_share() {
	awk -v l="$1" -v c="$2" -v t="$3" 'BEGIN { printf "%d\n", int(l * c / t) }'
}

# disk SERIAL: the device of the scratch disk run-qemu.sh named SERIAL
# ("swap" or "scratch").
disk() {
	local d
	for d in /sys/block/vd*; do
		[ "$(cat "$d/serial" 2>/dev/null)" = "$1" ] || continue
		echo "/dev/${d##*/}"
		return 0
	done
	echo "no virtio disk with serial '$1'" >&2
	return 1
}

# swap_on / swap_off: swap on the "swap" disk, for tests that need anon
# reclaim beyond demotion.
swap_on() {
	local d
	d=$(disk swap) && mkswap "$d" >/dev/null && swapon "$d"
}
swap_off() {
	swapoff "$(disk swap)"
}

# scratch_mount DIR: a fresh ext2 file system on the "scratch" disk.
scratch_mount() {
	local d
	d=$(disk scratch) && mke2fs -q "$d" >/dev/null && mkdir -p "$1" &&
		mount -t ext2 "$d" "$1"
}
