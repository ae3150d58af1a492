#!/bin/bash
# "make bench": benchmarks print figures and ratios against their targets
# and never fail on a number (a run that breaks still fails).
#
# Each section is scripts/bench/SECTION.sh: what it boots and what it
# prints; scripts/bench/lib.sh has what they share.
#
#   scripts/bench.sh [SECTION]...     (default: every section)
#
# BENCH_REUSE=1 reuses an earlier run's captures (analyzer), samples
# (fairness), figures (cost) and protection runs from out/bench instead
# of booting again.
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/bench
mkdir -p $out
sections=("$@")
all=(cost contention analyzer fairness placement protection hotplug exporter)
[ ${#sections[@]} -gt 0 ] || sections=("${all[@]}")

# shellcheck source=bench/lib.sh
. scripts/bench/lib.sh
for s in "${sections[@]}"; do
	case " ${all[*]} " in
	*" $s "*) ;;
	*) echo "bench: unknown section '$s' (${all[*]})" >&2; exit 2 ;;
	esac
	# shellcheck source=/dev/null
	. "scripts/bench/$s.sh"
done
# A rough total, so that whoever starts an hour of benchmarks knows it
minutes=0
for s in "${sections[@]}"; do
	"${s}_minutes"
done
say "sections: ${sections[*]}; about $minutes minutes on 2 cores under TCG"

# The figures go to standard output and to out/bench/results.md, which
# docs/results.md is a copy of.
{
	echo "# make bench results"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`scripts/bench.sh ${sections[*]}\`" \
		"(\`make bench\` runs every section) on $(nproc) host cores."
	echo "Guest: QEMU $(qemu-system-x86_64 --version | sed -n 's/.*version \([0-9.]*\).*/\1/p') TCG, 2 vCPUs," \
		"node 0 1536M (CPUs, fast tier), node 1 512M CPU-less (HMAT: 3x latency," \
		"slow tier), kernel $(make -s -C build/linux kernelversion 2>/dev/null)" \
		"with both series (patches/core, patches/ext)."
	for s in "${sections[@]}"; do
		$s
	done
} | tee $out/results.md
