#!/bin/bash
# "make run": the default scenario (tracing/scenarios/default) booted
# without and then with cgroup.memory=tiered_limits; prints where each
# cgroup's memory sat and what the capture holds.
set -euo pipefail
cd "$(dirname "$0")/.."

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
done
