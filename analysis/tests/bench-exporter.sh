#!/bin/bash
# "make bench" (scripts/bench.sh exporter): the CPU time of one
# memcg-tier-exporter pass over a fake cgroup tree (--cgroup-root) of
# CGROUPS cgroups, 2 tiers each, as 20 parents and their children:
# user + system time of the exporter and every process it starts, the
# fastest of 3 passes after a warm-up.  Prints one line; a pass that fails
# fails this script.  Nothing is timed in the pass/fail tests.
#
#   analysis/tests/bench-exporter.sh [CGROUPS [EXPORTER]]
#                       (default 2000, and the exporter of this tree)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:-2000}
exporter=${2:-$here/../memcg-tier-exporter}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

stat=$(sed 's/^[0-9]* [^ ]* //' "$here/fixtures/tierpush.tier_stat.end")
for p in $(seq 20); do
	for c in $(seq $(((n - 20) / 20))); do
		d=$tmp/cg/parent$p/child$c
		mkdir -p "$d"
		printf '%s\n' "$stat" >"$d/memory.tier_stat"
		echo 4096 >"$d/memory.current"
	done
	printf '%s\n' "$stat" >"$tmp/cg/parent$p/memory.tier_stat"
	echo 4096 >"$tmp/cg/parent$p/memory.current"
done
mkdir "$tmp/out"
best=
for i in 0 1 2 3; do
	/usr/bin/time -f '%U %S %e' -o "$tmp/time" \
		"$exporter" --cgroup-root "$tmp/cg" -o "$tmp/out/m.prom"
	read -r user sys wall <"$tmp/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	[ $i -eq 0 ] && continue
	if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then
		best=$cpu bu=$user bs=$sys bw=$wall
	fi
done
series=$(grep -vc '^#' "$tmp/out/m.prom")
echo "one pass over $(((n - 20) / 20 * 20 + 20)) cgroups x 2 tiers ($series samples): $best s of CPU (user $bu, system $bs), $bw s wall (target under 1 s of CPU)"
