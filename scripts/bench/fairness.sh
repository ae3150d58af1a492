#!/bin/bash
# "make bench", fairness: the cover letter's experiment at guest scale
# (tracing/scenarios/fairness): N staggered pointer-chasing cgroups
# booted without and with tiered limits, TRIALS each (BENCH_TRIALS,
# default 3; BENCH_JOBS, default 6)
#
# Sourced by scripts/bench.sh, which has read scripts/bench/lib.sh.

# fairness_minutes: add this section's rough duration to $minutes
fairness_minutes() {
	# BENCH_REUSE=1: the samples are only re-read
	[ "${BENCH_REUSE:-0}" = 1 ] ||
		minutes=$((minutes + ${BENCH_TRIALS:-3} * 2 * 4))
}

# fairness_run DIR: "FAST_MIN FAST_MAX SLOW_MIN SLOW_MAX JCT_MIN JCT_MEAN
# JCT_MAX" (MiB, seconds) of one boot: each cgroup's mean anon memory per
# node over its own run while its working set was resident (samples
# within 90% of its peak total, so neither the fill nor the exit counts),
# and the jobs' completion times.  Not the window in which all jobs ran:
# under TCG one job's run time varies fourfold between boots, and a job
# that ends early shrinks that window to a sample or two.
fairness_run() {
	awk 'FNR == 1 { f++ }
	f == 1 { s[$1] = $2; e[$1] = $3; next }
	!($2 in s) || $1 < s[$2] || $1 > e[$2] { next }
	f == 2 { if ($3 + $4 > peak[$2]) peak[$2] = $3 + $4; next }
	$3 + $4 >= 0.9 * peak[$2] { n0[$2] += $3; n1[$2] += $4; c[$2]++ }
	END {
		fmin = smin = jmin = 1e30; fmax = smax = jmax = 0
		for (cg in s) {
			if (!c[cg]) { print "no samples for " cg > "/dev/stderr"; exit 1 }
			a = n0[cg] / c[cg] / 1048576; b = n1[cg] / c[cg] / 1048576
			d = e[cg] - s[cg]; jsum += d; n++
			if (a < fmin) fmin = a; if (a > fmax) fmax = a
			if (b < smin) smin = b; if (b > smax) smax = b
			if (d < jmin) jmin = d; if (d > jmax) jmax = d
		}
		printf "%.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", fmin, fmax, smin, smax,
			jmin, jsum / n, jmax
	}' "$1/fairness.jobs" "$1/fairness.samples" "$1/fairness.samples"
}

fairness() {
	local trials=${BENCH_TRIALS:-3} jobs=${BENCH_JOBS:-6} t mode args dir
	if [ "${BENCH_REUSE:-0}" = 1 ]; then
		say "fairness: re-reading the samples of $trials trials x 2 modes in $out"
	else
		say "fairness: $trials trials x 2 modes, $jobs jobs each (about 4 minutes a boot under TCG)"
	fi
	for t in $(seq 1 "$trials"); do
		for mode in off on; do
			args="bench.jobs=$jobs"
			[ $mode = off ] || args="$args cgroup.memory=tiered_limits"
			# The first trial of each mode is recorded for the analyzer
			[ "$t" -gt 1 ] || args="$args bench.record=1"
			dir=$out/fairness-$mode-$t
			rm -f $dir/figures
			if [ "${BENCH_REUSE:-0}" = 1 ]; then
				[ ! -s $dir/fairness.samples ] || fairness_run $dir >$dir/figures
				continue
			fi
			say "fairness: trial $t, feature $mode"
			# A trial that does not finish is reported, not fatal
			if ./run-qemu.sh --quiet --scenario fairness --out $dir \
				--timeout 900 --append "$args" >&2; then
				fairness_run $dir >$dir/figures
			else
				say "fairness: trial $t, feature $mode failed ($dir/console.log)"
			fi
		done
	done
	echo
	echo "## Fairness: the cover letter's experiment in the guest"
	echo
	sed -n 's/^fairness: //p' $out/fairness-on-1/console.log | head -n 1
	echo "Demotion on, numa_balancing=2, $trials trials per mode; usage is each"
	echo "cgroup's mean anon memory per node from memory.numa_stat (sampled once"
	echo "a second) over its own run while its working set was resident (within"
	echo "90% of its peak), then min and max over the cgroups, averaged over the"
	echo "trials.  Cover letter: 12 x 80G on 750G DRAM + 250G CXL, 8 trials, in GB."
	for mode in off on; do
		echo "Trials that finished, feature $mode:" \
			"$(cat $out/fairness-$mode-*/figures 2>/dev/null | wc -l) of $trials;" \
			"fast and slow max/min per trial:" \
			"$(cat $out/fairness-$mode-*/figures 2>/dev/null | awk '{
				printf "%s%.2fx/%.2fx", (NR > 1 ? ", " : ""), ($1 > 0 ? $2 / $1 : 0), ($3 > 0 ? $4 / $3 : 0) }')."
	done
	for mode in off on; do
		cat $out/fairness-$mode-*/figures 2>/dev/null |
			awk -v m=$mode '{ for (i = 1; i <= 7; i++) v[i] += $i; n++ }
			END { printf "%s", m; for (i = 1; i <= 7; i++) printf " %.2f", v[i] / n; print "" }'
	done | awk '
	{ for (i = 2; i <= 8; i++) v[$1, i - 1] = $i }
	function row(name, a, b, cl) { printf "| %-9s | %8s | %8s | %-22s |\n", name, a, b, cl }
	function ratio(m, lo, hi) { return v[m, lo] > 0 ? sprintf("%.2fx", v[m, hi] / v[m, lo]) : "-" }
	function pct(a, b) { return a > 0 ? sprintf("%+.1f%%", 100 * (b / a - 1)) : "-" }
	# usage(TITLE, I, CL): min (column I), max (I + 1) and max/min, with
	# the cover letter figures CL ("min|max|ratio")
	function usage(title, i, cl,  c) {
		split(cl, c, "|")
		print ""
		print title
		print ""
		row("", "Untiered", "Tiered", "cover letter (GB)")
		row("---", "---:", "---:", "---")
		row("min", v["off", i], v["on", i], c[1])
		row("max", v["off", i + 1], v["on", i + 1], c[2])
		row("max/min", ratio("off", i, i + 1), ratio("on", i, i + 1), c[3])
	}
	END {
		usage("Mean fast-tier (node 0) usage per cgroup, MiB", 1,
		      "43.09 -> 51.25|68.54 -> 53.03|1.59x -> 1.03x")
		usage("Mean slow-tier (node 1) usage per cgroup, MiB", 3,
		      "3.05 -> 13.98|21.65 -> 14.87|7.10x -> 1.06x")
		print ""
		print "Job completion time, s (emulated tiers have equal latency)"
		print ""
		printf "| %-9s | %8s | %8s | %7s | %-22s |\n", "", "Untiered", "Tiered", "Delta", "cover letter"
		printf "| %-9s | %8s | %8s | %7s | %-22s |\n", "---", "---:", "---:", "---:", "---"
		split("min mean max", name, " ")
		split("260.1 -> 276.5|274.4 -> 290.0|315.0 -> 302.6", cl, "|")
		for (i = 1; i <= 3; i++)
			printf "| %-9s | %8.1f | %8.1f | %7s | %-22s |\n", name[i],
				v["off", 4 + i], v["on", 4 + i],
				pct(v["off", 4 + i], v["on", 4 + i]), cl[i]
		a = v["off", 7] - v["off", 5]; b = v["on", 7] - v["on", 5]
		printf "| %-9s | %8.1f | %8.1f | %7s | %-22s |\n", "max - min", a, b,
			pct(a, b), "54.9 -> 26.1"
		print ""
		printf "Targets: tiered max/min <= 1.05x fast (%s), <= 1.10x slow (%s);\n",
			ratio("on", 1, 2), ratio("on", 3, 4)
		printf "untiered must show the imbalance (fast %s, slow %s).\n",
			ratio("off", 1, 2), ratio("off", 3, 4)
	}'
	for mode in off on; do
		dir=$out/fairness-$mode-1
		[ -s $dir/trace.dat ] || continue
		echo
		echo "Recorded trial, feature $mode: \`memcg-tier-report churn $dir/trace.dat\`"
		[ $mode = on ] || echo "(without the parameter the hooks' static branch is" \
			"off, so no memcg_tier event fires and the analyzer says so)"
		echo '```'
		analysis/memcg-tier-report churn --top 10 --svg $dir/timeline.svg \
			$dir/trace.dat 2>&1 || true
		echo '```'
		[ -s $dir/timeline.svg ] && echo "SVG timeline: $dir/timeline.svg"
	done
}
