#!/bin/bash
# "make run": the default scenario (tracing/scenarios/default) booted
# without and then with cgroup.memory=tiered_limits; prints where each
# cgroup's memory sat, what the capture holds and, with the feature on,
# the analyzer's summary and churn reports (the full report, JSON and SVG
# timeline are left beside the capture).
set -euo pipefail
cd "$(dirname "$0")/.."

# report ARG...: the analyzer; a damaged capture (exit 3) is reported in
# its output and on stderr, and the run goes on
report() {
	analysis/memcg-tier-report "$@" || [ $? -eq 3 ]
}

for mode in off on; do
	args=
	[ $mode = off ] || args=cgroup.memory=tiered_limits
	out=out/run-$mode
	./run-qemu.sh --quiet --scenario default --out $out --append "$args"
	echo "== feature $mode: per-node anon usage while both cgroups ran"
	grep -E '^(early|late):' $out/console.log | sed 's/^/  /'
	echo "== feature $mode: events in $out/trace.dat"
	trace-cmd report -i $out/trace.dat 2>/dev/null |
		sed -n 's/^.*\] *[0-9.]*: *\([a-z_0-9]*\):.*/\1/p' |
		sort | uniq -c | awk '{ printf "  %-40s %8d\n", $2, $1 }'
	[ $mode = on ] || continue
	report all -o $out/report.txt --svg $out/trace.svg $out/trace.dat
	report all -f json -o $out/report.json $out/trace.dat
	echo "== feature on: analysis/memcg-tier-report summary + churn (all of it:" \
		"$out/report.txt, $out/report.json, $out/trace.svg)"
	report summary $out/trace.dat | sed 's/^/  /'
	report churn --top 10 --no-header $out/trace.dat | sed 's/^/  /'
done
