#!/bin/bash
# memcg-tier-exporter without a guest: the series and labels
# node_exporter's conventions ask for.
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exporter=$here/../memcg-tier-exporter
snap=$here/fixtures/tierpush.tier_stat.end
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {	# check STATUS DESCRIPTION
	if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

# 11. node_exporter's conventions: the nodes of a tier in an info metric,
# not on every series; "max" as +Inf, so that usage / limit still works
out=$tmp/snap.prom
"$exporter" --snapshot "$snap" -o "$out"
check $? "exporter: the fixture's snapshot is written"
n=$(grep -v '^#' "$out" | grep -v '^memcg_tier_info{' | grep -c 'nodes=')
check $([ "$n" -eq 0 ]; echo $?) "exporter: no series but memcg_tier_info has a nodes label ($n do)"
grep -qx 'memcg_tier_info{tier="0",nodes="0"} 1' "$out" &&
	grep -qx 'memcg_tier_info{tier="1",nodes="1"} 1' "$out" &&
	grep -q '^# TYPE memcg_tier_info gauge$' "$out"
check $? "exporter: memcg_tier_info{tier,nodes} 1, one per tier"
grep -qx 'memcg_tier_high_bytes{cgroup="/tierpush",tier="0"} +Inf' "$out" &&
	grep -qx 'memcg_tier_high_bytes{cgroup="/tierpush",tier="1"} +Inf' "$out"
check $? "exporter: a limit of max is exported as +Inf"
grep -qx 'memcg_tier_capacity_bytes{tier="0"} 1570623488' "$out"
check $? "exporter: the capacity is labelled by tier alone"

# One meaning and one unit a name: tier_stat's steered counts allocations
# steered away from the tier, its refused counts folios
grep -qx 'memcg_tier_steered_away_total{cgroup="/tierpush",tier="0"} 3108' "$out" &&
	grep -qx 'memcg_tier_refused_folios_total{cgroup="/tierpush",tier="0"} 200' "$out" &&
	! grep -qE '^memcg_tier_(steered|refused)_total' "$out"
check $? "exporter: memcg_tier_steered_away_total and memcg_tier_refused_folios_total, not the ambiguous names"
if command -v promtool >/dev/null; then
	promtool check metrics <"$out" >"$tmp/promtool.log" 2>&1
	check $? "exporter: promtool check metrics passes"
	sed 's/^/#   /' "$tmp/promtool.log" | head -n 5
fi
