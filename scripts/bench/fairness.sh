#!/bin/bash
# "make bench", fairness: the cover letter's experiment at guest scale
# (tracing/scenarios/fairness): N staggered pointer-chasing cgroups
# booted without and with tiered limits, TRIALS each (BENCH_TRIALS,
# default 3; BENCH_JOBS, default 6), in two shapes (BENCH_FAIRNESS_HOT,
# default "50 100": the cover letter's 50% hot, the headline, and all
# hot), the jobs paying for the slow tier by ptrchase's model
# (BENCH_RATIO, default ptrchase's 2; 1 turns it off).  Prints per shape
# the usage per tier, the completion times, the throughputs and where
# the jobs' CPU time went; the analyzer's churn report of its first trial
# (recorded) and a perf profile of its second.
#
# Sourced by scripts/bench.sh, which has read scripts/bench/lib.sh.

# fairness_minutes: add this section's rough duration to $minutes
fairness_minutes() {
	# BENCH_REUSE=1: the samples are only re-read
	[ "${BENCH_REUSE:-0}" = 1 ] ||
		minutes=$((minutes + ${BENCH_TRIALS:-3} * 2 * 4 *
			$(wc -w <<<"${BENCH_FAIRNESS_HOT:-50 100}")))
}

# fairness_run DIR: "FAST_MIN FAST_MAX SLOW_MIN SLOW_MAX JCT_MIN JCT_MEAN
# JCT_MAX TP_MIN TP_MAX TP_LATE TP_TOTAL" (MiB, seconds, million steps a
# second) of one boot: each cgroup's mean anon memory per node over its
# own run while its working set was resident (samples within 90% of its
# peak total, so neither the fill nor the exit counts), the jobs'
# completion times, and their throughputs (steps a CPU second, from
# ptrchase's CPU time per step: the jobs outnumber the guest's CPUs, so
# steps a wall-clock second would measure the scheduler): the slowest,
# the fastest, the last job started's and the sum.  Not the window in
# which all jobs ran: under TCG one job's run time varies fourfold
# between boots, and a job that ends early shrinks that window to a
# sample or two.
fairness_run() {
	awk 'FNR == 1 { f++ }
	f == 1 { s[$1] = $2; e[$1] = $3; tp[$1] = $6 > 0 ? 1e3 / $6 : 0
		 if (late == "" || $2 > s[late]) late = $1; next }
	!($2 in s) || $1 < s[$2] || $1 > e[$2] { next }
	f == 2 { if ($3 + $4 > peak[$2]) peak[$2] = $3 + $4; next }
	$3 + $4 >= 0.9 * peak[$2] { n0[$2] += $3; n1[$2] += $4; c[$2]++ }
	END {
		fmin = smin = jmin = tmin = 1e30; fmax = smax = jmax = tmax = 0
		for (cg in s) {
			if (!c[cg]) { print "no samples for " cg > "/dev/stderr"; exit 1 }
			if (!tp[cg]) { print "no cpu ns/step for " cg > "/dev/stderr"; exit 1 }
			a = n0[cg] / c[cg] / 1048576; b = n1[cg] / c[cg] / 1048576
			d = e[cg] - s[cg]; jsum += d; n++; tsum += tp[cg]
			if (a < fmin) fmin = a; if (a > fmax) fmax = a
			if (b < smin) smin = b; if (b > smax) smax = b
			if (d < jmin) jmin = d; if (d > jmax) jmax = d
			if (tp[cg] < tmin) tmin = tp[cg]; if (tp[cg] > tmax) tmax = tp[cg]
		}
		printf "%.1f %.1f %.1f %.1f %.1f %.1f %.1f %.3f %.3f %.3f %.3f\n",
			fmin, fmax, smin, smax, jmin, jsum / n, jmax,
			tmin, tmax, tp[late], tsum
	}' "$1/fairness.jobs" "$1/fairness.samples" "$1/fairness.samples"
}

# fairness_cpu DIR: "USER_MIN USER_MAX SYS_MIN SYS_MAX SLOW_MIN SLOW_MAX
# PLACED PLACED_MEAN" of one boot: over its jobs, the CPU time per step in
# the job (ns) and in the kernel on its behalf (ns), the share of steps on
# a slow page (%), and the throughput that placement alone explains: a
# job whose steps are a share f slow costs 1 + (ratio - 1) f, so the
# slowest over the fastest, and the jobs' mean against all on the top tier
fairness_cpu() {
	awk '{ $10 = 1 + ($5 - 1) * $9 / 100	# the cost of a step
	       mean += 1 / $10
	       for (i = 7; i <= 10; i++) {
		       if (NR == 1 || $i < lo[i]) lo[i] = $i
		       if (NR == 1 || $i > hi[i]) hi[i] = $i
	       } }
	END { if (NR) printf "%.1f %.1f %.1f %.1f %.1f %.1f %.3f %.4f\n",
		lo[7], hi[7], lo[8], hi[8], lo[9], hi[9], lo[10] / hi[10], mean / NR }' "$1/fairness.jobs"
}

# fairness_figures DIR: DIR/figures from fairness_run and DIR/cpu from
# fairness_cpu, or neither, said, if its samples are unusable (a job
# that died prints no ns per step)
fairness_figures() {
	if fairness_run "$1" >"$1/figures"; then
		# Older boots' jobs lines end at the CPU time per step
		awk 'NF < 9 { exit 1 }' "$1/fairness.jobs" && fairness_cpu "$1" >"$1/cpu" || rm -f "$1/cpu"
		return 0
	fi
	rm -f "$1/figures" "$1/cpu"
	say "fairness: $1: unusable samples, left out (its console.log and job*.out say why)"
}

# fairness_tables HOT TRIALS: the tables of one shape, from the trials'
# figures (fairness_run) in $out/fairness-hHOT-MODE-T
fairness_tables() {
	local hot=$1 trials=$2 mode
	echo
	echo "### ${hot}% hot"
	echo
	scenario_line $out/fairness-h$hot-on-1 fairness
	for mode in off on; do
		echo "Trials that finished, feature $mode:" \
			"$(cat $out/fairness-h$hot-$mode-*/figures 2>/dev/null | wc -l) of $trials;" \
			"fast and slow max/min per trial:" \
			"$(cat $out/fairness-h$hot-$mode-*/figures 2>/dev/null | awk '{
				# "-": a tier one cgroup did not use at all
				printf "%s%s/%s", (NR > 1 ? ", " : ""), ($1 > 0 ? sprintf("%.2fx", $2 / $1) : "-"),
					($3 > 0 ? sprintf("%.2fx", $4 / $3) : "-") }')."
	done
	# Per mode, the mean over the trials of each figure, and of each
	# trial's slowest/fastest throughput (column 12)
	for mode in off on; do
		cat $out/fairness-h$hot-$mode-*/figures 2>/dev/null |
			awk -v m=$mode '{ $12 = $9 > 0 ? $8 / $9 : 0
				for (i = 1; i <= 12; i++) v[i] += $i; n++ }
			END { printf "%s", m
				for (i = 1; i <= 12; i++) printf (i < 8 ? " %.2f" : " %.4f"), n ? v[i] / n : 0
				print "" }'
	done | awk '
	{ for (i = 2; i <= 13; i++) v[$1, i - 1] = $i }
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
		print "Job completion time, s (the slow tier modeled in the jobs)"
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
		print "Throughput, million steps per CPU second per job (from each job'"'"'s CPU time per step)"
		print ""
		printf "| %-16s | %8s | %8s | %7s | %-22s |\n", "", "Untiered", "Tiered", "Delta", "2026 RFC"
		printf "| %-16s | %8s | %8s | %7s | %-22s |\n", "---", "---:", "---:", "---:", "---"
		printf "| %-16s | %8.3f | %8.3f | %7s | %-22s |\n", "slowest", v["off", 8], v["on", 8], pct(v["off", 8], v["on", 8]), ""
		printf "| %-16s | %8.3f | %8.3f | %7s | %-22s |\n", "fastest", v["off", 9], v["on", 9], pct(v["off", 9], v["on", 9]), ""
		printf "| %-16s | %8.2f | %8.2f | %7s | %-22s |\n", "slowest/fastest", v["off", 12], v["on", 12], "", "0.54 -> 0.92"
		printf "| %-16s | %8.3f | %8.3f | %7s | %-22s |\n", "last job started", v["off", 10], v["on", 10], pct(v["off", 10], v["on", 10]), "12.3 -> 17.0 Mops/s"
		printf "| %-16s | %8.3f | %8.3f | %7s | %-22s |\n", "total", v["off", 11], v["on", 11],
			(v["off", 11] > 0 ? sprintf("%.2fx", v["on", 11] / v["off", 11]) : "-"), "0.77-0.85x"
		print ""
		printf "Targets, tiered against untiered: completion max - min <= -60%% (%s), mean <= +3%% (%s);\n",
			pct(a, b), pct(v["off", 6], v["on", 6])
		printf "slowest/fastest >= 0.95 (%.2f); total throughput >= 0.97x (%s).\n", v["on", 12],
			(v["off", 11] > 0 ? sprintf("%.2fx", v["on", 11] / v["off", 11]) : "-")
		print ""
		printf "Targets: tiered max/min <= 1.05x fast (%s), <= 1.10x slow (%s);\n",
			ratio("on", 1, 2), ratio("on", 3, 4)
		printf "untiered must show the imbalance (fast %s, slow %s).\n",
			ratio("off", 1, 2), ratio("off", 3, 4)
	}'
	fairness_cpu_table "$hot"
}

# fairness_cpu_table HOT: where the jobs' CPU time per step went, per
# mode, the mean over the trials of fairness_cpu's figures: what sets
# the throughput spread, the placement or the rest
fairness_cpu_table() {
	local hot=$1 mode
	ls $out/fairness-h$hot-*-*/cpu >/dev/null 2>&1 || return 0
	echo
	echo "Where the CPU time per step went (ptrchase's getrusage split; min - max over"
	echo "the jobs, mean over the trials), and the throughput that placement alone"
	echo "explains (a job with a share f of its steps slow costs 1 + (ratio - 1) f):"
	echo "the slowest over the fastest job, and the jobs' mean against every step"
	echo "on the top tier: what a host with a fixed cost per step would see (under"
	echo "TCG a step's own cost varies more than placement moves it):"
	echo
	printf '| %-8s | %16s | %16s | %16s | %9s | %9s |\n' "" "user ns/step" "sys ns/step" "steps slow, %" "placement" "mean"
	printf '| %-8s | %16s | %16s | %16s | %9s | %9s |\n' --- ---: ---: ---: ---: ---:
	for mode in off on; do
		# The mean column only over boots whose cpu has it (older: 7)
		cat $out/fairness-h$hot-$mode-*/cpu 2>/dev/null | awk -v m=$mode '
		{ for (i = 1; i <= 7; i++) v[i] += $i; n++ }
		NF >= 8 { v[8] += $8; n8++ }
		END { if (!n) exit
			printf "| %-8s | %16s | %16s | %16s | %9.2f | %9s |\n", m == "on" ? "Tiered" : "Untiered",
				sprintf("%.1f - %.1f", v[1] / n, v[2] / n), sprintf("%.1f - %.1f", v[3] / n, v[4] / n),
				sprintf("%.1f - %.1f", v[5] / n, v[6] / n), v[7] / n,
				n8 ? sprintf("%.3f", v[8] / n8) : "-" }'
	done
	for mode in off on; do
		cat $out/fairness-h$hot-$mode-*/cpu 2>/dev/null | awk -v m=$mode 'NF >= 8 { p += $7; s += $8; n++ }
			END { if (n) print m, p / n, s / n }'
	done | awk '{ p[$1] = $2; t[$1] = $3 }
		END { if (t["off"] && t["on"])
			printf "\nPlacement alone, tiered against untiered: slowest/fastest %.2f -> %.2f, total %.2fx.\n",
				p["off"], p["on"], t["on"] / t["off"] }'
}

fairness() {
	local trials=${BENCH_TRIALS:-3} jobs=${BENCH_JOBS:-6} shapes=${BENCH_FAIRNESS_HOT:-50 100}
	local hot t mode args dir
	if [ "${BENCH_REUSE:-0}" = 1 ]; then
		say "fairness: re-reading the samples of $trials trials x 2 modes x shapes $shapes in $out"
	else
		say "fairness: $trials trials x 2 modes x shapes $shapes, $jobs jobs each (about 4 minutes a boot under TCG)"
	fi
	for hot in $shapes; do
		for t in $(seq 1 "$trials"); do
			for mode in off on; do
				args="bench.jobs=$jobs bench.hot=$hot${BENCH_RATIO:+ bench.ratio=$BENCH_RATIO}"
				[ $mode = off ] || args="$args cgroup.memory=tiered_limits"
				# Each shape's first trial of each mode is recorded
				# for the analyzer, its second profiled with perf
				[ "$t" != 1 ] || args="$args bench.record=1"
				[ "$t" != 2 ] || args="$args bench.profile=1"
				dir=$out/fairness-h$hot-$mode-$t
				rm -f $dir/figures $dir/cpu
				if [ "${BENCH_REUSE:-0}" = 1 ]; then
					[ ! -s $dir/fairness.samples ] || fairness_figures $dir
					continue
				fi
				say "fairness: ${hot}% hot, trial $t, feature $mode"
				# A trial that does not finish is reported, not fatal
				if ./run-qemu.sh --quiet --scenario fairness --out $dir \
					--timeout 900 --append "$args" >&2; then
					fairness_figures $dir
				else
					say "fairness: ${hot}% hot, trial $t, feature $mode failed ($dir/console.log)"
				fi
			done
		done
	done
	echo
	echo "## Fairness: the cover letter's experiment in the guest"
	echo
	echo "Demotion on, numa_balancing=2, $trials trials per mode; usage is each"
	echo "cgroup's mean anon memory per node from memory.numa_stat (sampled once"
	echo "a second) over its own run while its working set was resident (within"
	echo "90% of its peak), then min and max over the cgroups, averaged over the"
	echo "trials.  Cover letter: 12 x 80G on 750G DRAM + 250G CXL, 8 trials, in GB."
	echo "The guest's tiers have the same latency; the jobs pay for the slow tier"
	echo "by ptrchase's model (tracing/workloads/slowtier.h): a step on a page"
	echo "below the top tier costs the ratio the header names times one above, in"
	echo "CPU time the job spins for after each batch of 65536 steps."
	echo "2026 RFC: \"mm/memcontrol: Make memcg limits tier-aware\", v2; its three"
	echo "early hogs' victim, and its table's slowest over fastest job."
	for hot in $shapes; do
		fairness_tables "$hot" "$trials"
		fairness_inside "$hot"
	done
}

# fairness_inside HOT: the analyzer's churn report of the shape's recorded
# trials and the profiles of its profiled ones
fairness_inside() {
	local hot=$1 mode dir
	for mode in off on; do
		dir=$out/fairness-h$hot-$mode-1
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
	for mode in off on; do
		dir=$out/fairness-h$hot-$mode-2
		[ -s $dir/profile.txt ] || continue
		echo
		echo "Profiled trial, feature $mode: \`perf report --sort comm,sym\` of" \
			"\`perf record -a -F 250 -e cpu-clock\` in the guest, the first 15 rows"
		echo '```'
		grep -v '^#' $dir/profile.txt | grep . | head -n 15
		echo '```'
	done
}
