#!/bin/bash
# "make bench", contention: tier page counter operations per faulted
# page, 8 guest CPUs (BENCH_CONTENTION_CPUS) faulting into one cgroup
# (tracing/scenarios/contention), on the series before the tier charge
# batching (built once in build/prestock) and on the whole series
#
# Sourced by scripts/bench.sh, which has read scripts/bench/lib.sh.

# contention_minutes: add this section's rough duration to $minutes
contention_minutes() {
	[ -s build/prestock/bzImage ] || minutes=$((minutes + 12))
	minutes=$((minutes + 6))
}

# The series up to the patch that batches tier charges, built once in
# build/prestock: the contention section's "before"
prestock_patches() {
	local n
	n=$(scripts/kernel.sh list | grep -n 'batch-tier-charges-per-CPU' | cut -d: -f1)
	[ -n "$n" ] || { echo "bench: the series has no tier charge batching patch" >&2; exit 2; }
	echo $((n - 1))
}

contention() {
	local cpus=${BENCH_CONTENTION_CPUS:-8} cfg dir
	say "contention: building the series before tier charge batching in build/prestock (once)"
	KERNEL_BUILD_DIR=$PWD/build/prestock scripts/kernel.sh build-prefix "$(prestock_patches)" >&2
	for cfg in prestock series; do
		dir=$out/contention-$cfg
		say "contention: $cfg, $cpus CPUs"
		rm -f $dir/contention.txt
		./run-qemu.sh --quiet --scenario contention --out $dir --timeout 900 \
			--boot-timeout 300 --cpus "$cpus" --append cgroup.memory=tiered_limits \
			--kernel "$([ $cfg = prestock ] && echo build/prestock/bzImage || echo build/bzImage)" >&2 ||
			say "contention: $cfg failed ($dir/console.log)"
	done
	echo
	echo "## Contention: tier counter operations per faulted page"
	echo
	echo "$cpus guest CPUs fault 16M each at once into one cgroup, twice"
	echo "(tracing/scenarios/contention, tiered_limits, THP off).  Each change of a"
	echo "tier page counter is one memcg_tier_charge event, counted in the ring"
	echo "buffer, and one atomic operation on each level of the counter's"
	echo "hierarchy (the cgroup's and the root's): the cache lines that every CPU"
	echo "charging the cgroup writes."
	echo
	printf '| %-38s | %8s | %8s | %10s | %12s |\n' kernel pages charges uncharges "atomics/page"
	printf '| %-38s | %8s | %8s | %10s | %12s |\n' --- ---: ---: ---: ---:
	for cfg in prestock series; do
		awk -v name="$([ $cfg = prestock ] && echo "before (series without the batching)" || echo "both series")" '
		{ for (i = 1; i <= NF; i++) {
			if ($i == "pages") p = $(i - 1)
			if ($i == "charges,") c = $(i - 3)
			if ($i == "uncharges,") u = $(i - 1)
			if ($i == "atomic") a = $(i - 1) } }
		END { if (p == "") printf "| %-38s | %8s | %8s | %10s | %12s |\n", name, "-", "-", "-", "-"
		      else printf "| %-38s | %8d | %8d | %10d | %12s |\n", name, p, c, u, a }' \
			$out/contention-$cfg/contention.txt 2>/dev/null
	done
}
