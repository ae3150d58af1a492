#!/bin/bash
# "make bench", hotplug: onlining 1 GiB in memory blocks into a
# memoryless node 1 (tracing/scenarios/hotplug-cost) with no cgroup and
# with 1000 cgroups, on the unpatched kernel and the patched one without
# and with the parameter; BENCH_HOTPLUG_ROUNDS boots each (default 3),
# timed on the guest clock under instruction counting
#
# Sourced by scripts/bench.sh, which has read scripts/bench/lib.sh.

# hotplug_minutes: add this section's rough duration to $minutes
hotplug_minutes() {
	# The unpatched kernel is built once, for cost or here
	[ -s build/unpatched/bzImage ] || [[ " ${sections[*]} " == *" cost "* ]] ||
		minutes=$((minutes + 20))
	minutes=$((minutes + ${BENCH_HOTPLUG_ROUNDS:-3} * 3))
}

# hotplug_pass DIR CGROUPS: "NANOSECONDS BLOCKS" of a boot's pass with
# CGROUPS cgroups
hotplug_pass() {
	awk -v n="$2" '$1 == n && $2 == "total" { print $3, $4 }' "$1/hotplug-cost.txt"
}

hotplug() {
	local rounds=${BENCH_HOTPLUG_ROUNDS:-3} configs=(unpatched off on)
	local r i cfg dir
	say "hotplug: building the unpatched 6.12 kernel in build/unpatched (once)"
	KERNEL_BUILD_DIR=$PWD/build/unpatched scripts/kernel.sh build-prefix 0 >&2
	for r in $(seq 1 "$rounds"); do
		for i in 0 1 2; do
			cfg=${configs[$(((i + r - 1) % 3))]}
			dir=$out/hotplug-$cfg-$r
			say "hotplug: round $r of $rounds, $cfg"
			rm -f $dir/hotplug-cost.txt
			./run-qemu.sh --quiet --scenario hotplug-cost --out $dir \
				--timeout 900 --accel tcg-icount --hotplug 1G --slow-mem 0 \
				--kernel "$(cost_kernel $cfg)" --append "$(cost_args $cfg)" >&2 ||
				say "hotplug: round $r, $cfg failed ($dir/console.log)"
		done
	done
	echo
	echo "## Hotplug: onlining memory with many cgroups"
	echo
	echo "1 GiB hot-added to node 1, which has no memory before, and onlined"
	echo "block by block (tracing/scenarios/hotplug-cost, \`memonline\`): first with"
	echo "no cgroup but the root, then, after offlining it, with 1000 cgroups"
	echo "that each set memory.{min,low,high,max}.  Every block online makes the"
	echo "patched kernel recompute every memcg's tier limits with the parameter."
	echo "Figures per 128M block onlined, on the guest clock under instruction"
	echo "counting (1 ms = 10^6 instructions), median of $rounds boots per"
	echo "configuration; the last column is the difference divided by 1000."
	echo
	printf '| %-24s | %5s | %13s | %17s | %22s |\n' configuration boots \
		"no cgroup, ms" "1000 cgroups, ms" "added per cgroup, us"
	printf '| %-24s | %5s | %13s | %17s | %22s |\n' --- ---: ---: ---: ---:
	for cfg in "${configs[@]}"; do
		local zero=() many=() z m name
		for r in $(seq 1 "$rounds"); do
			dir=$out/hotplug-$cfg-$r
			[ -s $dir/hotplug-cost.txt ] || continue
			zero+=("$(hotplug_pass $dir 0)")
			many+=("$(hotplug_pass $dir 1000)")
		done
		case $cfg in
		unpatched) name="unpatched 6.12" ;;
		off) name="patched, no parameter" ;;
		on) name="patched, tiered_limits" ;;
		esac
		# Per block, from each pass's own block count, so that a
		# pass that onlined fewer blocks does not skew the difference
		z=$(printf '%s\n' "${zero[@]}" | awk '$2 > 0 { print $1 / $2 }' | median)
		m=$(printf '%s\n' "${many[@]}" | awk '$2 > 0 { print $1 / $2 }' | median)
		if [ ${#zero[@]} -eq 0 ]; then
			printf '| %-24s | %5d | %13s | %17s | %22s |\n' "$name" 0 - - -
			continue
		fi
		awk -v name="$name" -v n=${#zero[@]} -v z="$z" -v m="$m" 'BEGIN {
			printf "| %-24s | %5d | %13.2f | %17.2f | %22.2f |\n", name, n,
				z / 1e6, m / 1e6, (m - z) / 1000 / 1000 }'
	done
}
