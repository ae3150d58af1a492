#!/bin/bash
# memcg-tier-report top without a live kernel: --help, the replay of the
# committed capture (top -i) against summary's figures for it, and the
# width of its screen.  The live screen runs in the guest
# (tests/guest/top.sh).
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
report=${MEMCG_TIER_REPORT:-$here/../memcg-tier-report}
fix=$here/fixtures
dat=$fix/tierpush.dat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$here/lib.sh"

# 13. Every subcommand in --help, each on a line of its own
help=$("$report" --help)
missing=
for cmd in summary timeline churn all top; do
	grep -qE "^  $cmd +[a-z]" <<<"$help" || missing="$missing $cmd"
done
check $([ -z "$missing" ]; echo $?) "--help lists every subcommand${missing:+ (not:$missing)}"

# 14. Replay: the capture through top's screen, then its totals
"$report" top -i "$dat" --speed 1000 -f csv >"$tmp/replay.csv" 2>"$tmp/replay.err"
rc=$?
check $rc "top -i replays the capture (exit $rc: $(head -c 200 "$tmp/replay.err"))"
"$report" summary -f csv "$dat" >"$tmp/summary.csv"
# Each table starts with its header line; the totals are the last
tables=$(grep -c '^tier,' "$tmp/replay.csv")
check $([ "$tables" -ge 3 ]; echo $?) \
	"the replay shows a table per second of the 2 s capture, then the totals ($tables tables)"
# The totals against summary's columns, cgroup by cgroup and tier by tier:
# top's name, summary's name
pairs="charged:charged_pages uncharged:uncharged_pages reclaims:reclaims reclaimed:reclaimed_pages refused_folios:refused_folios steered_away:steered_away"
diffs=$(awk -F, -v pairs="$pairs" '
	FNR == 1 { f++ }
	/^tier,|^cgroup_id,/ { delete c; for (i = 1; i <= NF; i++) c[$i] = i; n++; last[f] = n; next }
	f == 1 { row[n, $c["cgroup"] "|" $c["tier"]] = $0; keys[n] = keys[n] " " $c["cgroup"] "|" $c["tier"]; for (k in c) col[n, k] = c[k]; next }
	{ sum[$c["cgroup"] "|" $c["tier"]] = $0; for (k in c) scol[k] = c[k] }
	END {
		t = last[1]
		np = split(pairs, p, " ")
		nk = split(keys[t], key, " ")
		if (!nk)
			print "no totals"
		for (j = 1; j <= nk; j++) {
			if (!(key[j] in sum)) { print key[j] " not in summary"; continue }
			split(row[t, key[j]], a, ",")
			split(sum[key[j]], b, ",")
			for (i = 1; i <= np; i++) {
				split(p[i], m, ":")
				if (!((t, m[1]) in col) || !(m[2] in scol))
					print "no column " m[1] " or " m[2]
				else if (a[col[t, m[1]]] != b[scol[m[2]]])
					print key[j] " " m[1] " " a[col[t, m[1]]] " != " m[2] " " b[scol[m[2]]]
			}
		}
	}' "$tmp/replay.csv" "$tmp/summary.csv")
check $([ -z "$diffs" ]; echo $?) "the replay's totals equal summary's for the capture${diffs:+: $(head -n 3 <<<"$diffs" | tr '\n' ';')}"

# At the capture's own pace it takes about the capture's 2 s
start=$(date +%s%N)
"$report" top -i "$dat" -f csv >/dev/null 2>&1
took=$((($(date +%s%N) - start) / 1000000))
check $([ "$took" -ge 1500 ]; echo $?) "without --speed the replay takes the capture's time (${took} ms for 1.99 s)"

bad() {	# bad PATTERN DESCRIPTION ARGS...
	local pattern=$1 what=$2 err rc
	shift 2
	err=$("$report" top "$@" 2>&1 >/dev/null)
	rc=$?
	check $([ $rc -eq 2 ] && grep -qE -- "$pattern" <<<"$err"; echo $?) "top: $what (exit $rc: $err)"
}
bad "--speed '0'" "--speed 0 is refused" -i "$dat" --speed 0
bad "--speed 'fast'" "--speed fast is refused" -i "$dat" --speed fast
bad "--speed .*replay" "--speed without -i is refused" --speed 2
err=$("$report" top -i "$fix/no-memcg-tier.dat" 2>&1 >/dev/null)
rc=$?
check $([ $rc -eq 1 ] && grep -q "no memcg_tier events" <<<"$err"; echo $?) \
	"top -i on a capture without memcg_tier events exits 1 saying so (exit $rc)"

# 15. Pressure is read live only: unknown in a replay
psi=$(awk -F, '/^tier,/ { s = f = 0; for (i = 1; i <= NF; i++) { if ($i == "psi_some_avg10") s = i; if ($i == "psi_full_avg10") f = i }; hdr++; next }
	hdr == 1 && (!s || !f || $s != "" || $f != "") { bad++ }
	END { print hdr ? bad + 0 : "none" }' "$tmp/replay.csv")
check $([ "$psi" = 0 ]; echo $?) "the replay has psi_some_avg10 and psi_full_avg10, unknown ($psi rows otherwise)"

# 16. A docker-style path: every line fits 100 columns, the path last
mkdir "$tmp/docker"
cp "$dat" "$tmp/docker/t.dat"
long=/system.slice/docker-4f9a0c2e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f.scope
echo "17 $long" >"$tmp/docker/t.cgroups"
"$report" top -i "$tmp/docker/t.dat" --speed 1000 -b >"$tmp/replay.txt" 2>&1
wide=$(awk 'length($0) > 100' "$tmp/replay.txt" | wc -l)
check $([ "$wide" -eq 0 ] && grep -q "^TIER " "$tmp/replay.txt"; echo $?) \
	"top: every line of the text fits 100 columns ($wide do not)"
lastcol=$(awk '$1 == "TIER" { print $NF }' "$tmp/replay.txt" | sort -u | tr '\n' ' ')
# Each row's last field: the path, or its start and its end around "..."
cut=$(awk -v p="$long" '$1 ~ /^[0-9]+$/ {
		for (i = 2; i + 3 <= length($NF); i++) {
			head = substr($NF, 1, i - 1)
			tail = substr($NF, i + 3)
			if (substr($NF, i, 3) == "..." && index(p, head) == 1 &&
			    substr(p, length(p) - length(tail) + 1) == tail && tail ~ /\.scope$/)
				break
		}
		if (i + 3 <= length($NF))
			ok++
		else
			bad++
	} END { print ok + 0, bad + 0 }' "$tmp/replay.txt")
check $([ "$lastcol" = "CGROUP " ] && [ "${cut% *}" -ge 3 ] && [ "${cut#* }" = 0 ] &&
	grep -q '^(paths shortened' "$tmp/replay.txt"; echo $?) \
	"top: the path is the last column, shortened to its start and end (headers end in: $lastcol; rows shortened, otherwise: $cut)"

# The replay's side files are checked as summary checks them (issue 35, 6-8)
side=$tmp/side
mkdir "$side"
cp "$dat" "$side/t.dat"
side_fails() {	# side_fails PATTERN DESCRIPTION [before]: "before" the replay shows nothing
	local err rc shown
	err=$(timeout 20 "$report" top -i "$side/t.dat" --speed 1000 -b 2>&1 >"$tmp/side.out")
	rc=$?
	shown=$(grep -c '^TIER ' "$tmp/side.out")
	check $([ $rc -eq 1 ] && grep -qE -- "$1" <<<"$err" &&
		{ [ "${3:-}" != before ] || [ "$shown" = 0 ]; }; echo $?) \
		"top -i: $2 (exit $rc, $shown tables: ${err%%$'\n'*})"
}
mkdir "$side/t.cgroups"
side_fails "$side/t.cgroups: is a directory, not a cgroup map" "a directory TRACE.cgroups is said, before the replay" before
rmdir "$side/t.cgroups"
mkfifo "$side/t.cgroups"
side_fails "$side/t.cgroups: not a regular file" "a FIFO as TRACE.cgroups is refused, not waited on" before
rm "$side/t.cgroups"
mkdir "$side/t.tier_stat.end"
side_fails "$side/t.tier_stat.end: is a directory, not a tier_stat snapshot" \
	"a directory TRACE.tier_stat.end is said, before the replay" before
rmdir "$side/t.tier_stat.end"
printf 'tier0 usage=1\n' >"$side/t.tier_stat.start"
side_fails "$side/t.tier_stat.start:1: expected 'ID /PATH tierN" "a malformed TRACE.tier_stat.start is said, naming its line"
rm "$side/t.tier_stat.start"
printf '99 /other\n' >"$side/t.cgroups"
side_fails "$side/t.cgroups: names none of the cgroups the capture has records of.*another capture" \
	"another capture's TRACE.cgroups is said, not taken for damage"
