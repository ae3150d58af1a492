#!/bin/bash
# "make bench", analyzer: memcg-tier-report against "trace-cmd report"
# on captures of about 4, 8 and 16 million events recorded in the guest
# (tracing/scenarios/bench), its anonymous memory, and the state fed 2
# million records of 10,000 cgroups
#
# Sourced by scripts/bench.sh, which has read scripts/bench/lib.sh.

# analyzer_minutes: add this section's rough duration to $minutes
analyzer_minutes() {
	# BENCH_REUSE=1: the captures are only timed
	if [ "${BENCH_REUSE:-0}" = 1 ]; then minutes=$((minutes + 6))
	else minutes=$((minutes + 21)); fi
}

# measure CMD...: "WALL_S RSS_KIB" of the fastest of 3 runs (after one
# warm-up run), output and exit status discarded (a capture with lost
# records makes the analyzer exit 3)
measure() {
	local best= rss=0 i w r
	"$@" >/dev/null 2>&1 || true
	for i in 1 2 3; do
		/usr/bin/time -f "%e %M" -o $out/time.txt "$@" >/dev/null 2>/dev/null || true
		# the last line: time(1) says first if the status was not 0
		read -r w r < <(tail -n 1 $out/time.txt)
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$w
		fi
		[ "$r" -gt "$rss" ] && rss=$r
	done
	echo "$best $rss"
}

# anon_peak CMD...: the largest anonymous memory (RssAnon, KiB) CMD held,
# sampled every 10 ms; mapped capture pages do not count
anon_peak() {
	local pid peak=0 kib
	"$@" >/dev/null 2>&1 &
	pid=$!
	while kib=$(awk '/^RssAnon:/ { print $2 }' /proc/$pid/status 2>/dev/null) &&
	      [ -n "$kib" ]; do
		[ "$kib" -gt "$peak" ] && peak=$kib
		sleep 0.01
	done
	wait $pid || true
	echo $peak
}

analyzer() {
	local report=analysis/memcg-tier-report scale dat n tw aw peak
	local -A recs wall
	make -s --no-print-directory -C analysis memcg-tier-report bench-cgroups >&2
	if [ "${BENCH_REUSE:-0}" = 1 ] && [ -s $out/capture/bench-4x.dat ]; then
		say "analyzer: reusing the captures in $out/capture"
	else
		say "analyzer: recording the captures in the guest (TCG; about 15 minutes)"
		./run-qemu.sh --quiet --scenario bench --out $out/capture \
			--timeout 3000 --append cgroup.memory=tiered_limits >&2
	fi
	echo
	echo "## Analyzer speed and memory"
	echo
	echo "Captures as \`tracing/record.sh\` writes them (zstd), of 1x, 2x and 4x"
	echo "the rounds of one workload.  \`memcg-tier-report all\`: the fastest of"
	echo "3 runs after a warm-up; \`trace-cmd report\`: one run (it is the slow"
	echo "one).  Peak anonymous memory: RssAnon sampled every 10 ms, so the"
	echo "capture's pages that libtracecmd maps are not counted."
	echo
	printf '| %-5s | %10s | %8s | %20s | %16s | %8s | %14s |\n' capture records MB \
		"trace-cmd report (s)" "analyzer all (s)" ratio "anon peak MiB"
	printf '| %-5s | %10s | %8s | %20s | %16s | %8s | %14s |\n' --- ---: ---: ---: ---: ---: ---:
	for scale in 1x 2x 4x; do
		dat=$out/capture/bench-$scale.dat
		n=$($report all -f json $dat 2>/dev/null |
			sed -n 's/.*"records":\([0-9]*\).*/\1/p' || true)
		tw=$(/usr/bin/time -f %e trace-cmd report -i $dat 2>&1 >/dev/null | tail -n 1)
		read -r aw _ < <(measure $report all $dat)
		peak=$(anon_peak $report all $dat)
		recs[$scale]=$n
		wall[$scale]=$aw
		printf '| %-5s | %10d | %8d | %20s | %16s | %8s | %14.1f |\n' $scale $n \
			$(du -m $dat | cut -f1) $tw $aw \
			$(awk -v a=$aw -v t=$tw 'BEGIN { printf "%.3fx", a / t }') \
			$(awk -v k=$peak 'BEGIN { print k / 1024 }')
	done
	echo
	awk -v n1=${recs[1x]} -v n2=${recs[2x]} -v n4=${recs[4x]} \
	    -v t1=${wall[1x]} -v t2=${wall[2x]} -v t4=${wall[4x]} 'BEGIN {
		printf "- time per doubling of records, over linear: 1x->2x %.2fx, 2x->4x %.2fx (target <= 1.15x)\n",
			(t2 / t1) / (n2 / n1), (t4 / t2) / (n4 / n2)
	}'
	echo "- full report against \`trace-cmd report\` on the same file: target <= 0.1x"
	echo "- anonymous memory at 4x: target under 64 MiB"
	echo
	echo "Thousands of cgroups (\`analysis/build/bench-cgroups\`, the state and"
	echo "the summary and churn reports fed records without a capture; the"
	echo "fastest of 3 runs; target under 2 s):"
	echo
	for scale in 1 2 3; do
		analysis/build/bench-cgroups 10000 2000000
	done | sort -t: -k2 -n | head -n 1 | sed 's/^/- /'
}
