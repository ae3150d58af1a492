#!/bin/bash
# End to end: the analyzer on the capture the guest test tierpush.sh made,
# checked figure by figure against what the guest saw independently:
# memory.numa_stat taken before recording stopped, memory.tier_stat
# snapshots from before and after, and the workload's own count of
# refused move_pages() calls.
#
#   analysis/tests/e2e.sh DIR MODE     (DIR holds tierpush.*; MODE on|off)
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
dir=$1
mode=$2
here=$(cd "$(dirname "$0")" && pwd)
report=$here/../memcg-tier-report
dat=$dir/tierpush.dat

. "$here/lib.sh"

if [ ! -s "$dat" ]; then
	check 1 "analyzer e2e: the guest left no capture $dat"
	exit 0
fi

if [ "$mode" = off ]; then
	err=$("$report" "$dat" 2>&1 >/dev/null)
	rc=$?
	check $([ $rc -eq 1 ] && grep -q "$dat: .*no memcg_tier record" <<<"$err"; echo $?) \
		"analyzer: a capture without memcg_tier records fails, naming the file (exit $rc)"
	exit 0
fi

csv=$("$report" summary -f csv "$dat")
check $? "analyzer reads the guest's capture"

# field TIER COLUMN: the /tierpush row of tier TIER in the summary CSV
field() {
	awk -F, -v tier="$1" -v col="$2" '
		NR == 1 { sub(/^#/, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["cgroup"] == "/tierpush" && $c["tier"] == tier { print $c[col] }' <<<"$csv"
}
# numa NODE: anon + file pages of the cgroup on NODE when recording stopped
numa() {
	awk -v n="N$1=" '$1 == "anon" || $1 == "file" {
		for (i = 2; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1)
	} END { print int(s / 4096) }' "$dir/tierpush.numa_stat"
}
# stat TIER KEY: KEY of tierTIER in the memory.tier_stat snapshot at the end
stat() {
	sed -n "s/.* \/tierpush tier$1 .* $2=\([0-9]*\).*/\1/p" "$dir/tierpush.tier_stat.end"
}
close() {	# close A B: within 2% of each other
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d;
		exit !(a > 0 && d * 100 <= 2 * (a > b ? a : b)) }'
}

for t in 0 1; do
	u=$(field $t usage_pages)
	n=$(numa $t)
	close "$u" "$n"
	check $? "tier $t: final usage $u pages is memory.numa_stat's node $t ($n pages) within 2%"
done
u=$(field 0 usage_pages)
m=$(field 0 max_pages)
check $([ -n "$u" ] && [ "$u" = "$m" ]; echo $?) \
	"tier 0 ends exactly at its max ($u of $m pages)"
m_stat=$(($(stat 0 max) / 4096))
check $([ "$m" = "$m_stat" ]; echo $?) "tier 0 max $m pages = memory.tier_stat's ($m_stat)"

read -r _ pushed _ refused _ <"$dir/tierpush.out"
r=$(field 0 refused_folios)
r_stat=$(stat 0 refused)
p=$(field 0 refused_tier_max_pages)
check $([ -n "$r" ] && [ "$r" = "$r_stat" ] && [ "$r" -ge "$refused" ] && [ "$p" -ge "$r" ] &&
	[ "$refused" -eq "$pushed" ] && [ "$pushed" -gt 0 ]; echo $?) \
	"pushed over the tier 0 max $pushed times: $r refused folios = memory.tier_stat refused $r_stat (>= $refused calls refused; $p pages)"
s=$(field 0 steered_away)
s_stat=$(stat 0 steered)
check $([ -n "$s" ] && [ "$s" = "$s_stat" ] && [ "$s" -gt 0 ]; echo $?) \
	"steered away from tier 0: $s = memory.tier_stat steered $s_stat"
nodes=$(field 0 nodes)/$(field 1 nodes)
low=$(field 0 low_pages)
check $([ "$nodes" = 0/1 ] && [ "$low" = 0 ]; echo $?) \
	"tier nodes ($nodes) and low ($low) labelled from the tier_stat snapshot"

churn=$("$report" churn --top 0 -f csv "$dat")
burst=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["kind"] == "refusal_burst" && $c["cgroup"] == "/tierpush" && $c["tier"] == 0 { e += $c["events"] }
	END { print e + 0 }' <<<"$churn")
check $([ "$burst" = "$r_stat" ]; echo $?) \
	"churn: refusal bursts on tier 0 add up to every refusal ($burst of $r_stat)"

json=$("$report" all -f json --svg "$dir/tierpush.svg" "$dat")
python3 -c 'import json, sys
d = json.loads(sys.argv[1])
assert {"capture", "summary", "timeline", "churn"} <= d.keys()
assert any(r["cgroup"] == "/tierpush" for r in d["summary"])' "$json"
check $? "JSON output parses and holds the capture, summary, timeline and churn"
check $(grep -q '/tierpush (id' "$dir/tierpush.svg" &&
	grep -q '<polyline' "$dir/tierpush.svg"; echo $?) \
	"SVG timeline written with a panel for /tierpush"
