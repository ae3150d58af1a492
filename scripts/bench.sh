#!/bin/bash
# "make bench": benchmarks print figures and ratios against their targets
# and never fail on a number (a run that breaks still fails).
#
#   analyzer   memcg-tier-report against "trace-cmd report" and a bare
#              libtracecmd iteration (analysis/tests/bench-iterate.c) on a
#              capture of about 2 million events and one of 4x that,
#              recorded in the guest (tracing/scenarios/bench)
#
#   scripts/bench.sh [SECTION]...     (default: every section)
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/bench
mkdir -p $out
sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(analyzer)

say() { printf 'bench: %s\n' "$*"; }

# measure CMD...: "WALL_S RSS_KIB" of the fastest of 3 runs (after one
# warm-up run), output discarded
measure() {
	local best= rss=0 i w r
	"$@" >/dev/null 2>&1
	for i in 1 2 3; do
		/usr/bin/time -f "%e %M" -o $out/time.txt "$@" >/dev/null 2>/dev/null
		read -r w r <$out/time.txt
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$w
		fi
		[ "$r" -gt "$rss" ] && rss=$r
	done
	echo "$best $rss"
}

analyzer() {
	local report=analysis/memcg-tier-report bare=analysis/build/bench-iterate
	local scale dat n tw tr bw br aw ar
	make -s --no-print-directory -C analysis memcg-tier-report bench-iterate
	say "analyzer: recording the captures in the guest (TCG; about 10 minutes)"
	./run-qemu.sh --quiet --scenario bench --out $out/capture --timeout 3000 \
		--append cgroup.memory=tiered_limits
	echo
	echo "## Analyzer speed and memory"
	echo
	echo "Each figure is the fastest of 3 runs after a warm-up; peak RSS is the"
	echo "largest.  \`memcg-tier-report all\` computes summary, timeline and churn."
	for scale in 1x 4x; do
		dat=$out/capture/bench-$scale.dat
		n=$($bare $dat | cut -d' ' -f1)
		read -r tw tr < <(measure trace-cmd report -i $dat)
		read -r bw br < <(measure $bare $dat)
		read -r aw ar < <(measure $report all $dat)
		echo
		echo "### $scale: $n records, $(du -m $dat | cut -f1) MB ($dat)"
		echo
		printf '| %-32s | %8s | %14s |\n' tool "wall (s)" "peak RSS (MiB)"
		printf '| %-32s | %8s | %14s |\n' --- ---: ---:
		printf '| %-32s | %8s | %14d |\n' "trace-cmd report > /dev/null" $tw $((tr / 1024))
		printf '| %-32s | %8s | %14d |\n' "bare libtracecmd iteration" $bw $((br / 1024))
		printf '| %-32s | %8s | %14d |\n' "memcg-tier-report all" $aw $((ar / 1024))
		echo
		awk -v a=$aw -v t=$tw -v b=$bw -v ar=$ar -v br=$br 'BEGIN {
			printf "- analyzer / trace-cmd report: %.3fx (target <= 0.2x)\n", a / t
			printf "- analyzer / bare iteration: %.2fx (target <= 2x)\n", a / b
			printf "- analyzer RSS - bare RSS: %+.1f MiB (target <= 16 MiB)\n", (ar - br) / 1024
		}'
	done
}

for s in "${sections[@]}"; do
	case $s in
	analyzer) analyzer ;;
	*) echo "bench: unknown section '$s' (analyzer)" >&2; exit 2 ;;
	esac
done
