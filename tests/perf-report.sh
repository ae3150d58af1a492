#!/bin/bash
# The guest's "record.sh --perf" capture (tests/guest/perf.sh), read on the
# host by the perf built from our tree: perf script prints the memcg_tier
# events with their enum names, and perf report's histograms on trace
# fields add up to the events' counts and to the cgroup's memory.tier_stat.
#
#   tests/perf-report.sh DIR   (DIR holds perf.data and its side files)
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
dir=$1
top=$(cd "$(dirname "$0")/.." && pwd)
perf=$top/build/perf/perf
data=$dir/perf.data

check() {	# check STATUS DESCRIPTION
	if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

if [ ! -s "$data" ]; then
	check 1 "perf: the guest left no $data"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

id=$(awk '$2 == "/perf-d" { print $1 }' "$data.cgroups")
lost=$("$perf" report -i "$data" --stdio 2>/dev/null |
	sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p' | head -n 1)
check $([ "${lost:-x}" = 0 ]; echo $?) "perf record lost no sample (${lost:-no count})"

"$perf" script -i "$data" >"$tmp/script" 2>"$tmp/err"
check $? "perf script reads the guest's perf.data"
# events EVENT: how many perf script printed
events() { grep -c " memcg_tier:$1: " "$tmp/script"; }
charge=$(events memcg_tier_charge)
steer=$(events memcg_tier_steer)
refuse=$(events memcg_tier_migrate_refuse)
grep -q " memcg_tier:memcg_tier_charge: cgroup_id=$id .* cause=alloc outcome=charged$" "$tmp/script" &&
	grep -q " memcg_tier:memcg_tier_migrate_refuse: cgroup_id=$id .* migrate_reason=syscall_or_cpuset refuse=tier_max$" "$tmp/script"
check $? "perf script prints the events with their enum names (charges $charge, steers $steer, refusals $refuse)"

# histogram EVENT FIELD...: "samples key..." rows of perf report sorted
# on the event's trace fields
histogram() {
	local ev=memcg_tier:$1 keys= f
	shift
	for f in "$@"; do keys=$keys${keys:+,}$ev.$f; done
	"$perf" report -i "$data" --stdio -n -s "$keys" 2>/dev/null |
		awk -v ev="'$ev'" '/^# Samples: / { on = ($NF == ev); next }
			on && !/^#/ && NF > 2 { $1 = ""; print substr($0, 2) }'
}
# sum_stat KEY TIER: the cgroup's tier_stat KEY delta over the capture
sum_stat() {
	local s e
	s=$(sed -n "s/^$id .* tier$2 .* $1=\([0-9]*\).*/\1/p" "$data.tier_stat.start")
	e=$(sed -n "s/^$id .* tier$2 .* $1=\([0-9]*\).*/\1/p" "$data.tier_stat.end")
	echo $((e - s))
}

histogram memcg_tier_charge cgroup_id slot cause >"$tmp/charge"
sed 's/^/#   /' "$tmp/charge"
total=$(awk '{ s += $1 } END { print s + 0 }' "$tmp/charge")
check $([ "$total" -gt 0 ] && [ "$total" -eq "$charge" ]; echo $?) \
	"perf report -s cgroup_id,slot,cause on memcg_tier_charge: the histogram totals $total = the events $charge"

histogram memcg_tier_steer cgroup_id >"$tmp/steer"
got=$(awk -v id="$id" '$2 == id { s += $1 } END { print s + 0 }' "$tmp/steer")
want=$(($(sum_stat steered 0) + $(sum_stat steered 1)))
check $([ "$got" -gt 0 ] && [ "$got" -eq "$want" ] && [ "$got" -eq "$steer" ]; echo $?) \
	"perf report -s cgroup_id on memcg_tier_steer: $got for /perf-d = its tier_stat steered $want = the events $steer"

histogram memcg_tier_migrate_refuse cgroup_id dst_slot refuse >"$tmp/refuse"
got=$(awk -v id="$id" '$2 == id && $3 == 0 && $4 == "tier_max" { s += $1 } END { print s + 0 }' "$tmp/refuse")
want=$(sum_stat refused 0)
check $([ "$got" -gt 0 ] && [ "$got" -eq "$want" ] && [ "$got" -eq "$refuse" ]; echo $?) \
	"perf report -s cgroup_id,dst_slot,refuse: $got tier_max refusals into tier 0 = tier_stat refused $want = the events $refuse"
