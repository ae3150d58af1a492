#!/bin/bash
# The operator's tools on the host, without a guest: memcg-tier-exporter
# on the committed snapshot and on bad input, and the command line of
# memcg-tier-report top (which must refuse before it touches tracefs).
# The live paths run in the guest (tests/guest/top.sh, exporter.sh).
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
report=${MEMCG_TIER_REPORT:-$here/../memcg-tier-report}
exporter=$here/../memcg-tier-exporter
snap=$here/fixtures/tierpush.tier_stat.end
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$here/lib.sh"

prom=$tmp/memcg_tier.prom
"$exporter" --snapshot "$snap" -o "$prom"
check $? "exporter: the fixture's snapshot is written"
n=$(grep -vc '^#' "$prom")
# 2 tiers x (usage min low high max reclaims reclaimed refused steered)
# + 2 capacities + 2 info; high is "max" on both tiers: +Inf
check $([ "$n" -eq 22 ] && [ "$(grep -c '^memcg_tier_high_bytes{.*} +Inf$' "$prom")" -eq 2 ]; echo $?) \
	"exporter: 22 samples, the unlimited high as +Inf ($n)"
grep -qx 'memcg_tier_usage_bytes{cgroup="/tierpush",tier="0"} 50241536' "$prom" &&
	grep -qx 'memcg_tier_steered_away_total{cgroup="/tierpush",tier="0"} 3108' "$prom"
check $? "exporter: usage and counters as the snapshot has them"
awk '/^# TYPE/ { t[$3] = $4 } !/^#/ { sub(/\{.*/, ""); if (!($0 in t)) bad = 1 }
	END { exit bad }' "$prom"
check $? "exporter: every sample follows its metric's TYPE line"
ls -A "$tmp" | grep -vqx 'memcg_tier.prom'
check $([ $? -ne 0 ]; echo $?) "exporter: no temporary file left"

# A cgroup name with a quote, a backslash and " tierN " in it
printf '%s\n' '7 /we"ird\ tier3 x tier0 nodes=0-1 capacity=100 usage=8192 min=0 low=0 high=max max=max reclaims=0 reclaimed=0 refused=0 steered=0' \
	>"$tmp/weird"
"$exporter" --snapshot "$tmp/weird" -o "$tmp/weird.prom" &&
	grep -qF 'memcg_tier_usage_bytes{cgroup="/we\"ird\\ tier3 x",tier="0"} 8192' "$tmp/weird.prom" &&
	grep -qxF 'memcg_tier_info{tier="0",nodes="0-1"} 1' "$tmp/weird.prom"
check $? "exporter: label values escaped, the path split at its last ' tierN '"

cp "$prom" "$tmp/before"
echo 'not a snapshot line' >"$tmp/bad"
err=$("$exporter" --snapshot "$tmp/bad" -o "$prom" 2>&1)
rc=$?
check $([ $rc -eq 1 ] && grep -q "bad:1:" <<<"$err" && cmp -s "$prom" "$tmp/before"; echo $?) \
	"exporter: a bad line exits 1 naming it, the old file kept (exit $rc: $err)"
sed 's/usage=50241536/usage=lots/' "$snap" >"$tmp/bad"
"$exporter" --snapshot "$tmp/bad" -o "$prom" 2>/dev/null
check $([ $? -eq 1 ] && cmp -s "$prom" "$tmp/before"; echo $?) \
	"exporter: a value that is not a number exits 1, the old file kept"
"$exporter" --snapshot "$snap" -o "$tmp/metrics.txt" 2>/dev/null
check $([ $? -eq 2 ] && [ ! -e "$tmp/metrics.txt" ]; echo $?) \
	"exporter: an output node_exporter would not read (not .prom) exits 2"
"$exporter" --snapshot "$snap" -o "$tmp/no/such/dir/m.prom" 2>/dev/null
check $([ $? -eq 1 ]; echo $?) "exporter: a missing directory exits 1"
"$exporter" --snapshot "$snap" -o "$prom" --interval 0 2>/dev/null
check $([ $? -eq 2 ]; echo $?) "exporter: --interval 0 exits 2"
mkdir -p "$tmp/cg/child" && : >"$tmp/cg/child/memory.current"
err=$("$exporter" --cgroup-root "$tmp/cg" -o "$tmp/off.prom" 2>&1)
rc=$?
check $([ $rc -eq 1 ] && [ ! -e "$tmp/off.prom" ] &&
	grep -q 'cgroup.memory=tiered_limits' <<<"$err"; echo $?) \
	"exporter: a memcg without tier_stat (feature off) exits 1, writes nothing (exit $rc)"
# Live cgroups named with \ & and #, the root given with a trailing slash
odd='we&ird#x\y'
mkdir -p "$tmp/live/$odd"
grep ' tier0 ' "$snap" | sed 's/^[0-9]* [^ ]* //' >"$tmp/live/$odd/memory.tier_stat"
"$exporter" --cgroup-root "$tmp/live/" -o "$tmp/live.prom" &&
	grep -qF 'memcg_tier_usage_bytes{cgroup="/we&ird#x\\y",tier="0"} 50241536' "$tmp/live.prom"
check $? "exporter: live cgroup paths with \\ & # kept whole, a trailing slash on the root ignored"

if [ -x /bin/busybox ]; then
	mkdir -p "$tmp/bb"
	for a in awk sed find ls mv rm dirname basename grep; do
		ln -s /bin/busybox "$tmp/bb/$a"
	done
	PATH=$tmp/bb:$PATH /bin/busybox sh "$exporter" --snapshot "$snap" \
		-o "$tmp/bb.prom" && cmp -s "$tmp/bb.prom" "$prom" &&
	PATH=$tmp/bb:$PATH /bin/busybox sh "$exporter" --cgroup-root "$tmp/live" \
		-o "$tmp/bb-live.prom" && cmp -s "$tmp/bb-live.prom" "$tmp/live.prom"
	check $? "exporter: busybox sh, find, ls and awk (as in the guest) write the same files"
fi

# top: every refusal comes before tracefs is touched
top() {	# top WANT PATTERN DESCRIPTION ARGS...
	local want=$1 pattern=$2 what=$3 err rc
	shift 3
	err=$("$report" top "$@" 2>&1 >/dev/null)
	rc=$?
	check $([ $rc -eq "$want" ] && grep -qE -- "$pattern" <<<"$err"; echo $?) \
		"top: $what (exit $rc)"
}
top 2 "at least 100ms" "--interval below 100ms is refused" --interval 10ms
top 2 "a time above 0" "--duration 0 is refused" --duration 0
top 2 "no column 'nope'" "--sort names an unknown column" --sort nope
top 2 "unknown format 'json'" "json is refused (text, csv)" -f json
top 2 "unexpected argument" "a stray argument is refused" extra
top 1 "cgroup.memory=tiered_limits" "with tiered limits off it says how to boot them" \
	--cgroup-root "$tmp/cg"
help=$("$report" top --help)
missing=
for opt in $(grep -oE -- '--[a-z-]+' <<<"$help" | sort -u); do
	grep -q -- "\"${opt#--}\"" "$here/../src/top.c" || missing="$missing $opt"
done
check $([ -z "$missing" ]; echo $?) "top: --help names only real options${missing:+ (unknown:$missing)}"
