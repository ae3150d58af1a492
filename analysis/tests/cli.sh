#!/bin/bash
# The command line on the committed guest captures (tests/fixtures/, made
# by "make fixtures"): usage errors, bad input of every kind, filters,
# output files, and the figures checked against trace-cmd's own decoding.
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
report=$here/../memcg-tier-report
fix=$here/fixtures
dat=$fix/tierpush.dat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {	# check STATUS DESCRIPTION
	if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}
# fails WANT_STATUS PATTERN DESCRIPTION -- ARGS...: exit status and stderr
fails() {
	local want=$1 pattern=$2 what=$3 err rc
	shift 4
	err=$("$report" "$@" 2>&1 >"$tmp/stdout")
	rc=$?
	check $([ $rc -eq "$want" ] && grep -qE -- "$pattern" <<<"$err" &&
		[ "$(wc -l <<<"$err")" -le 2 ]; echo $?) \
		"$what (exit $rc: ${err%%$'\n'*})"
}

before=$(sha256sum "$fix"/* | sha256sum)

out=$("$report" --help)
check $([ $? -eq 0 ] && grep -q summary <<<"$out" && grep -q timeline <<<"$out" &&
	grep -q churn <<<"$out" && grep -q -- --svg <<<"$out"; echo $?) \
	"--help exits 0 and names every report and --svg"
fails 2 "unrecognized option" "an unknown option is a usage error" -- --frobnicate "$dat"
fails 2 "unknown format 'xml'" "an unknown format is named" -- -f xml "$dat"
fails 2 "unknown report 'sumary'" "an unknown report is named" -- sumary "$dat"
fails 2 "--interval: 'soon'" "a bad --interval is named" -- -i soon "$dat"
fails 2 "no capture file" "no capture file is a usage error" --
fails 2 "until must come after" "--until before --since is refused" -- --since 5 --until 2 "$dat"

: >"$tmp/empty.dat"
fails 1 "$tmp/empty.dat: empty file" "an empty file" -- "$tmp/empty.dat"
echo "hello" >"$tmp/text.dat"
fails 1 "$tmp/text.dat: not a trace-cmd capture" "a file that is not a capture" -- "$tmp/text.dat"
fails 1 "$tmp/missing.dat: cannot open: No such file" "a missing file" -- "$tmp/missing.dat"
fails 1 "$tmp: is a directory" "a directory" -- "$tmp"
size=$(stat -c %s "$dat")
for cut in 100 4096 $((size / 2)) $((size - 1000)) $((size - 500)); do
	head -c $cut "$dat" >"$tmp/cut.dat"
	fails 1 "$tmp/cut.dat: truncated or corrupt" "a capture cut at $cut of $size bytes" -- "$tmp/cut.dat"
done
# The file ends with an options section that holds no record: losing only
# its tail loses nothing, and the figures must say so.
head -c $((size - 10)) "$dat" >"$tmp/cut.dat"
check $(cmp -s <("$report" all -f csv --cgroup-map "$fix/tierpush.cgroups" \
	--tier-stat "$fix/tierpush.tier_stat.start" "$tmp/cut.dat") \
	<("$report" all -f csv "$dat"); echo $?) \
	"a capture missing only the tail of its trailing options reads in full"
fails 1 "no-memcg-tier.dat: no memcg_tier events in the capture; record .*tracing/record.sh" \
	"a capture without memcg_tier events says how to record one" -- "$fix/no-memcg-tier.dat"
fails 1 "no cgroup '/nope' in the capture" "an unknown --cgroup is named" -- -c /nope "$dat"
printf '17 /tierpush tier0 nodes=0 usage=lots\n' >"$tmp/bad.tier_stat"
fails 1 "$tmp/bad.tier_stat:1: usage=lots is not a size" "a malformed tier_stat snapshot names file and line" \
	-- --tier-stat "$tmp/bad.tier_stat" "$dat"
fails 1 "cannot write $tmp/no/such/dir/r.txt" "an unwritable output path, before reading anything" \
	-- -o "$tmp/no/such/dir/r.txt" "$dat"

echo keep >"$tmp/r.txt"
"$report" -o "$tmp/r.txt" "$tmp/text.dat" 2>/dev/null
check $([ "$(cat "$tmp/r.txt")" = keep ] && [ "$(ls "$tmp" | grep -c tmp)" = 0 ]; echo $?) \
	"a failed run leaves an existing output file as it was, and no temporary"
"$report" all -f csv "$dat" >"$tmp/stdout.csv" && "$report" all -f csv -o "$tmp/r.csv" "$dat"
check $(cmp -s "$tmp/stdout.csv" "$tmp/r.csv"; echo $?) "-o writes what standard output gets"
check $(head -n 1 "$tmp/r.csv" | grep -q '^#cgroup_id,cgroup,tier,nodes,usage_pages'; echo $?) \
	"CSV starts with a '#' header line"

check $(cmp -s <(sha256sum "$fix"/* | sha256sum) <(echo "$before"); echo $?) \
	"no input file was modified"

# The figures against an independent decoder: trace-cmd report's text
summary=$("$report" summary -f csv "$dat")
col() {	# col TIER COLUMN
	awk -F, -v t="$1" -v c="$2" 'NR == 1 { sub(/^#/, ""); for (i = 1; i <= NF; i++) h[$i] = i; next }
		$2 == "/tierpush" && $3 == t { print $h[c] }' <<<"$summary"
}
id=$(awk '$2 == "/tierpush" { print $1 }' "$fix/tierpush.cgroups")
trace-cmd report -i "$dat" 2>/dev/null | grep "memcg_tier_charge:.*cgroup_id=$id " >"$tmp/charges.txt"
for t in 0 1; do
	sum=$(sed -n "s/.* slot=$t nr_pages=\(-*[0-9]*\) .*/\1/p" "$tmp/charges.txt" |
		awk '{ s += $1 } END { print s + 0 }')
	last=$(sed -n "s/.* slot=$t nr_pages=.* usage=\([0-9]*\) .*/\1/p" "$tmp/charges.txt" | tail -n 1)
	check $([ "$(col $t usage_pages)" = "$sum" ] && [ "$sum" = "$last" ] &&
		[ "$(( $(col $t charged_pages) - $(col $t uncharged_pages) ))" = "$sum" ]; echo $?) \
		"tier $t usage $(col $t usage_pages) = trace-cmd report's nr_pages sum $sum and last usage $last"
done
n_refuse=$(trace-cmd report -i "$dat" 2>/dev/null | grep -c "memcg_tier_migrate_refuse:.*refuse=tier_max")
n_steer=$(trace-cmd report -i "$dat" 2>/dev/null | grep -c "memcg_tier_steer:")
check $([ "$(col 0 refused_tier_max_pages)" = "$n_refuse" ] && [ "$(col 0 steered_away)" = "$n_steer" ]; echo $?) \
	"refusals ($n_refuse) and steers ($n_steer) match trace-cmd report"

only=$("$report" summary -f csv -c "$id" "$dat" | tail -n +2 | cut -d, -f2 | sort -u)
check $([ "$only" = /tierpush ]; echo $?) "--cgroup ID keeps only that cgroup"

# --until T and --since T split the capture's charges exactly
total=$(col 0 charged_pages)
a=$("$report" summary -f csv --until 300ms "$dat" | awk -F, '$2 == "/tierpush" && $3 == 0 { print $11 }')
b=$("$report" summary -f csv --since 300ms "$dat" | awk -F, '$2 == "/tierpush" && $3 == 0 { print $11 }')
check $([ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ $((a + b)) = "$total" ]; echo $?) \
	"--until 300ms and --since 300ms split tier 0's charges ($a + $b = $total)"

tl=$("$report" timeline -f csv -i 100ms "$dat")
rows=$(awk -F, '$3 == "/tierpush" && $4 == 0' <<<"$tl" | wc -l)
sum=$(awk -F, '$3 == "/tierpush" && $4 == 0 { s += $9 } END { print s + 0 }' <<<"$tl")
check $([ "$rows" -gt 5 ] && [ "$sum" = "$total" ]; echo $?) \
	"timeline at 100ms: $rows buckets whose charges add up to the summary's ($sum)"

# The man page documents exactly the options --help lists
opts_help=$("$report" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
opts_man=$(sed 's/\\-/-/g' "$here/../memcg-tier-report.1" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
check $([ "$opts_help" = "$opts_man" ]; echo $?) \
	"the man page and --help name the same options ($(comm -3 <(echo "$opts_help") <(echo "$opts_man") | tr -d '\t' | tr '\n' ' '))"
