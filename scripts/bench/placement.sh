#!/bin/bash
# "make bench", placement: 4 staggered cgroups whose hot sets fit their
# fast shares but are allocated last (tracing/scenarios/placement), on
# equal fast and slow nodes, booted without and with tiered limits: each
# cgroup's hot set on the fast tier over time (move_pages(2)), fast-tier
# usage max/min across cgroups, promotions and demotions per 10 s and
# the migrations of the last 30 s from the capture, the analyzer's churn
# report
#
# Sourced by scripts/bench.sh, which has read scripts/bench/lib.sh.

# placement_minutes: add this section's rough duration to $minutes
placement_minutes() {
	[ "${BENCH_REUSE:-0}" = 1 ] || minutes=$((minutes + ${BENCH_PLACEMENT_TRIALS:-3} * 6))
}

# placement_figures DIR: from one placement boot, in order: per job the
# seconds from its start until 95% of its hot set was on the fast tier
# ("-" if never), its last hot_fast, and the seconds until its speed
# under the slow-tier model (hotlast's speed=) reached 95% of its speed
# with every touched page on the fast tier; the worst and the median fast-tier
# max/min across jobs over the samples in which every job had its working
# set resident; the pages migrated across tiers (from the capture) in the
# last 30 s before the first job ended, as a share of all working sets
placement_figures() {
	local dir=$1 job end first_end ws_pages
	echo "### hot set on the fast tier, per job (seconds from its start)"
	placement_times $dir | while read -r job t95 last n s95; do
		echo "$job: 95% after $t95 s, last $last% of $n pages; 95% of its unmodeled speed after $s95 s"
	done
	# every 10 s of each job's own time
	echo "t(s) $(cut -d' ' -f1 $dir/placement.jobs | tr '\n' ' ')"
	for t in 0 10 20 30 40 50 60 70 80 90 100 110; do
		printf '%s' "$t"
		for job in $(cut -d' ' -f1 $dir/placement.jobs); do
			awk -v t=$t '{ sub("t=", "", $1); sub("hot_fast=", "", $2) }
				$1 + 0 <= t { v = $2 } END { printf " %s", v == "" ? "-" : v }' \
				$dir/placement-$job.out
		done
		echo
	done
	awk 'FNR == 1 { f++ }
	f == 1 { n++; next }
	{ tot = $3 + $4; if (tot > peak[$2]) peak[$2] = tot; at[$1] = at[$1] " " $2 "=" $3 "/" tot }
	END {
		for (t in at) {
			k = split(at[t], kv, " "); if (k < n) continue
			lo = 1e30; hi = 0; ok = 1
			for (i = 1; i <= k; i++) {
				split(kv[i], p, "="); split(p[2], q, "/")
				if (q[2] < 0.95 * peak[p[1]]) ok = 0
				if (q[1] < lo) lo = q[1]; if (q[1] > hi) hi = q[1]
			}
			if (ok && lo > 0) print hi / lo
		}
	}' $dir/placement.jobs $dir/placement.samples | sort -n |
	awk '{ r[NR] = $1 }
	END {
		if (!NR) { print "fast-tier max/min across jobs: no sample with every working set resident"; exit }
		printf "fast-tier max/min across jobs, %d samples with every working set resident: worst %.2fx, median %.2fx\n", NR, r[NR], r[int((NR + 1) / 2)]
	}'
	# job starts are guest uptime, which is also the capture's clock
	first_end=$(awk -v s=$placement_seconds 'NR == 1 { print $2 + s }' $dir/placement.jobs)
	ws_pages=$(for job in $(cut -d' ' -f1 $dir/placement.jobs); do
		tail -n 1 $dir/placement-$job.out
	done | awk '{ sub("hot=", "", $4); n += $4 } END { print n * 2 }')
	# mm_migrate_pages: every migration, with or without the parameter
	trace-cmd report -i $dir/trace.dat 2>/dev/null |
	awk -v end=$first_end -v ws=$ws_pages '
		/ mm_migrate_pages:/ && / reason=(numa_misplaced|demotion)/ {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^[0-9]+\.[0-9]+:$/) ts = substr($i, 1, length($i) - 1) + 0
				if ($i ~ /^nr_succeeded=/) { split($i, a, "="); n = a[2] + 0 }
			}
			if (n <= 0) next
			bucket = int(ts / 10) * 10
			if (/reason=numa_misplaced/) up[bucket] += n; else down[bucket] += n
			if (ts > end - 30 && ts <= end) last += n
			if (first == "" || bucket < first) first = bucket
			if (bucket > lastb) lastb = bucket
		}
		END {
			printf "promoted/demoted pages per 10 s (capture, mm_migrate_pages, from %d s uptime):", first
			for (t = first; first != "" && t <= lastb; t += 10) printf " %d/%d", up[t], down[t]
			print ""
			printf "migrated in the last 30 s before the first job ended: %d pages, %.2f%% of the working sets (%d pages)\n",
				last, ws ? 100 * last / ws : 0, ws
		}'
	# An exchange moves pages both ways by design, so the analyzer reports
	# each one that converges as a ping_pong run; after convergence there
	# must be none.
	# (without the parameter it has no memcg_tier event and says so)
	{ analysis/memcg-tier-report churn -f csv --top 0 -i $dir/trace.dat 2>/dev/null || true; } |
	awk -F, -v end=$first_end '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["kind"] == "ping_pong" { n++; if ($c["end_ts"] / 1e9 > end - 30) late++ }
		END { printf "analyzer churn report, ping_pong findings: %d, %d of them in the last 30 s\n", n, late }'
}

# placement_times DIR: per job of one placement boot, "JOB T95 LAST
# PAGES S95": the seconds from its start until 95% of its hot set was on
# the fast tier, its last hot_fast (%) of its hot set's PAGES, and the
# seconds until its speed under the slow-tier model (hotlast's speed=)
# reached 95% of its speed with every touched page on the fast tier
# ("-": never)
placement_times() {
	local job
	for job in $(cut -d' ' -f1 $1/placement.jobs); do
		awk -v j=$job '{ sub("t=", "", $1); sub("hot_fast=", "", $2); sub("hot=", "", $4)
				 sub("speed=", "", $6) }
			$2 + 0 >= 95 && t95 == "" { t95 = $1 }
			$1 > 0 && $6 + 0 >= 95 && s95 == "" { s95 = $1 }
			{ last = $2; n = $4 }
			END { print j, t95 == "" ? "-" : t95, last, n, s95 == "" ? "-" : s95 }' \
			$1/placement-$job.out
	done
}

# placement_speed_table TRIALS: per job and mode, the seconds until it
# reached 95% of its unmodeled speed in each trial, and their median
# ("-": never, counted as longer than any)
placement_speed_table() {
	local trials=$1 job mode t times med row
	echo
	echo "Seconds from each job's start until it ran at 95% of its unmodeled speed"
	echo "(\"-\": not within the run), per trial, and the median:"
	echo
	printf '| %-5s | %-20s | %6s | %-20s | %6s |\n' job "untiered, trials" median "tiered, trials" median
	printf '| %-5s | %-20s | %6s | %-20s | %6s |\n' --- --- ---: --- ---:
	[ -s $out/placement-on-1/placement.jobs ] || return 0
	for job in $(cut -d' ' -f1 $out/placement-on-1/placement.jobs); do
		row=$job
		for mode in off on; do
			times=$(for t in $(seq 1 "$trials"); do
				[ -s $out/placement-$mode-$t/placement.jobs ] || continue
				placement_times $out/placement-$mode-$t | awk -v j=$job '$1 == j { print $5 }'
			done)
			med=$(sed 's/^-$/999999999/' <<<"$times" | median |
				awk '{ print ($1 >= 999999999 ? "-" : $1) }')
			row="$row|$(echo $times | sed 's/ /, /g')|$med"
		done
		awk -F'|' '{ printf "| %-5s | %-20s | %6s | %-20s | %6s |\n", $1, $2, $3, $4, $5 }' <<<"$row"
	done
}

placement() {
	local mode args dir t trials=${BENCH_PLACEMENT_TRIALS:-3}
	placement_seconds=120
	for t in $(seq 1 "$trials"); do
		for mode in off on; do
			dir=$out/placement-$mode-$t
			[ "${BENCH_REUSE:-0}" = 1 ] && [ -s $dir/placement.samples ] && continue
			args="bench.seconds=$placement_seconds"
			[ $mode = off ] || args="$args cgroup.memory=tiered_limits"
			say "placement: trial $t of $trials, feature $mode (about 3 minutes under TCG)"
			./run-qemu.sh --quiet --scenario placement --out $dir --timeout 900 \
				--fast-mem 1024M --slow-mem 1024M --append "$args" >&2 ||
				say "placement: trial $t, feature $mode failed ($dir/console.log)"
		done
	done
	echo
	echo "## Placement: hot sets allocated last"
	echo
	scenario_line $out/placement-on-1 placement
	echo "Node 0 1024M (fast), node 1 1024M (slow); demotion on,"
	echo "numa_balancing=2.  Targets with the parameter: every job 95% hot-on-fast"
	echo "within 60 s of its start; fast-tier max/min across jobs at most 1.05x;"
	echo "migrations in the last 30 s under 1% of the working sets; no ping-pong."
	echo "The jobs pay for the slow tier by hotlast's model (slowtier.h, the ratio"
	echo "in the line above): a job's speed is the CPU time of its touches against"
	echo "that and the time the model added for the slow ones, the share of its"
	echo "touches it would make with every touched page on the fast tier."
	placement_speed_table "$trials"
	for mode in off on; do
		echo
		echo "Feature $mode, trial 1:"
		echo '```'
		[ -s $out/placement-$mode-1/placement.jobs ] && placement_figures $out/placement-$mode-1
		echo '```'
	done
}
