#!/bin/bash
# "make bench", protection: a latency-sensitive cgroup's fast pages kept
# while two neighbours push, with a fast-tier low set in
# memory.tier_limits and with the proportional split of memory.low alone
# (tracing/scenarios/protection, both modes in each boot);
# BENCH_PROTECTION_ROUNDS boots (default 3; BENCH_REUSE=1 reads the last
# run's instead)
#
# Sourced by scripts/bench.sh, which has read scripts/bench/lib.sh.

# protection_minutes: add this section's rough duration to $minutes
protection_minutes() {
	minutes=$((minutes + ${BENCH_PROTECTION_ROUNDS:-3}))
}

# protection_figure MODE AWK: AWK run on each boot's MODE line, with b0 b1
# (lat's anonymous bytes on node 0 and 1 before the push), a0 a1 (after)
# and r (the modeled ratio)
protection_figure() {
	cat $out/protection-*/protection.txt 2>/dev/null |
		awk -v m="$1" -v r="${BENCH_RATIO:-2}" '$2 == m {
			for (i = 3; i < NF; i++) {
				if ($i == "before") { b0 = $(i + 1); b1 = $(i + 2) }
				if ($i == "after") { a0 = $(i + 1); a1 = $(i + 2) }
			}
			if (b0 > 0) { '"$2"' } }'
}

protection() {
	local rounds=${BENCH_PROTECTION_ROUNDS:-3} ratio=${BENCH_RATIO:-2} r dir
	for r in $(seq 1 "$rounds"); do
		dir=$out/protection-$r
		if [ "${BENCH_REUSE:-0}" = 1 ] && [ -s $dir/protection.txt ]; then
			say "protection: reusing boot $r ($dir)"
			continue
		fi
		say "protection: boot $r of $rounds"
		rm -f $dir/protection.txt
		./run-qemu.sh --quiet --scenario protection --out $dir --timeout 900 \
			--append cgroup.memory=tiered_limits >&2 ||
			say "protection: boot $r failed ($dir/console.log)"
	done
	echo
	echo "## Protection: a fast-tier low set by hand"
	echo
	scenario_line $out/protection-1 protection
	echo
	echo "lat's memory.low covers its fast pages, but the split puts only the fast"
	echo "tier's share of memory.low there, less than those pages: they are protected"
	echo "only as part of lat's memory, half of which memory.low covers, and the"
	echo "neighbours' charges demote some.  With \`tier0 low=max\` in lat's"
	echo "memory.tier_limits, all of memory.low is in the fast tier, and reclaim takes"
	echo "the neighbours' idle cushions instead.  Kept: lat's anonymous memory on"
	echo "node 0 after the push over before (memory.numa_stat), median and range of"
	echo "$rounds boots; target at least 95% with the setting.  Modeled pass time: a"
	echo "pass over lat's memory after the push over before, with the slow tier"
	echo "modeled at ratio $ratio (an access there costs $ratio times one on the fast"
	echo "tier)."
	echo
	printf '| %-34s | %5s | %19s | %20s |\n' "lat's protection" boots "fast kept, %" "modeled pass time"
	printf '| %-34s | %5s | %19s | %20s |\n' --- ---: ---: ---:
	local mode name kept cost
	for mode in share tier_limits; do
		case $mode in
		share) name="memory.low split by capacity" ;;
		tier_limits) name="memory.low, tier0 low=max" ;;
		esac
		# "protection: MODE before N0 N1 after N0 N1": kept %, pass time
		kept=$(protection_figure $mode 'print 100 * a0 / b0')
		cost=$(protection_figure $mode 'print (a0 + r * a1) / (b0 + r * b1)')
		if [ -z "$kept" ]; then
			printf '| %-34s | %5d | %19s | %20s |\n' "$name" 0 - -
			continue
		fi
		printf '| %-34s | %5d | %19s | %20s |\n' "$name" "$(wc -l <<<"$kept")" \
			"$(printf '%.1f (%s)' "$(median <<<"$kept")" "$(range %.1f <<<"$kept")")" \
			"$(printf '%.3fx (%s)' "$(median <<<"$cost")" "$(range %.3f <<<"$cost")")"
	done
}
