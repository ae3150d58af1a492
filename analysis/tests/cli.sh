#!/bin/bash
# The command line on the committed guest captures (tests/fixtures/, made
# by "make fixtures"): usage errors, bad input of every kind, filters,
# output files, and the figures checked against trace-cmd's own decoding.
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
# tier0 COLUMN: COLUMN of /tierpush's tier 0 rows of a report's csv on
# stdin, found by name (the path is the last column)
tier0() {
	awk -F, -v col="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["cgroup"] == "/tierpush" && $c["tier"] == 0 { print $c[col] }'
}
# fails WANT_STATUS PATTERN DESCRIPTION -- ARGS...: exit status and stderr
fails() {
	local want=$1 pattern=$2 what=$3 err rc
	shift 4
	err=$(timeout 20 "$report" "$@" 2>&1 >"$tmp/stdout")
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
fails 2 "--bucket: 'soon'" "a bad --bucket is named" -- -b soon "$dat"
fails 2 "too many arguments" "two captures are a usage error" -- -i "$dat" "$dat"
fails 2 "until must come after" "--until before --since is refused" -- --since 5 --until 2 "$dat"

# Option limits: every size an option creates is bounded, and said so
fails 2 "--since: 'nan' is not a time" "nan is not a time" -- --since nan "$dat"
fails 2 "--window: 'inf' is not a time" "inf is not a time" -- -w inf "$dat"
fails 2 "--until: '1e300' is not a time" "a time past 64-bit nanoseconds is refused" -- --until 1e300 "$dat"
fails 2 "--top: '4294967297' is not a count from 0 to 1000000" "--top 2^32+1 is refused, not taken as 1" -- --top 4294967297 "$dat"
fails 2 "--top: '-1' is not a count" "a negative --top is refused" -- --top -1 "$dat"
err=$(timeout 20 "$report" timeline -b 1us "$dat" 2>&1 >/dev/null)
rc=$?
check $([ $rc -eq 1 ] && grep -q "more than 100000 buckets per tier" <<<"$err"; echo $?) \
	"--bucket 1us over a 2 s capture ends at once with a clear error (exit $rc: ${err:0:90})"
fails 2 "--fields: no column 'bogus'" "an unknown --fields column is named" -- -F usage_pages,bogus "$dat"
fails 2 "csv holds one table" "csv with several reports is refused" -- all -f csv "$dat"

# A window outside the capture is said, not printed as zeros
fails 1 "--since 3 s is after the capture's last record" "--since past the end of the capture is refused" \
	-- --since 3 --until 4 "$dat"
peaks=$("$report" summary -f csv --since 1.5 "$dat" |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		 $c["peak_pages"] < $c["usage_pages"] { bad++ } END { print bad + 0 }')
check $([ "$peaks" = 0 ]; echo $?) "--since 1.5: no tier's peak below its usage ($peaks)"

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
check $(cmp -s <("$report" all -f json --cgroup-map "$fix/tierpush.cgroups" \
	--tier-stat "$fix/tierpush.tier_stat.start" "$tmp/cut.dat" | sed 's/"file":"[^"]*"//') \
	<("$report" all -f json "$dat" | sed 's/"file":"[^"]*"//'); echo $?) \
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
"$report" all -f json "$dat" >"$tmp/stdout.json" && "$report" all -f json -o "$tmp/r.json" "$dat"
check $(cmp -s "$tmp/stdout.json" "$tmp/r.json"; echo $?) "-o writes what standard output gets"

# Outputs never destroy an input, and go where their path points
cap=$tmp/cap
mkdir "$cap"
for f in dat cgroups tier_stat.start tier_stat.end; do cp "$fix/tierpush.$f" "$cap/t.$f"; done
sums() { sha256sum "$cap"/t.* | sha256sum; }
was=$(sums)
fails 2 "refusing to write $cap/t.dat: it is the capture" "-o onto the capture is refused" -- -o "$cap/t.dat" "$cap/t.dat"
fails 2 "refusing to write $cap/t.cgroups: it is the capture's side file cgroups" \
	"--svg onto a side file is refused" -- --svg "$cap/t.cgroups" "$cap/t.dat"
fails 2 "refusing to write $cap/t.tier_stat.end" "-o onto a side file not read is refused too" \
	-- -o "$cap/t.tier_stat.end" "$cap/t.dat"
ln -s t.dat "$cap/link.dat"
fails 2 "refusing to write $cap/link.dat: it is the capture" "-o onto a link to the capture is refused" \
	-- -o "$cap/link.dat" "$cap/t.dat"
fails 2 "-o and --svg both name $tmp/both" "-o and --svg naming one file are refused" \
	-- -o "$tmp/both" --svg "$tmp/both" "$cap/t.dat"
err=$("$report" -i "$cap/t.dat" 2>&1 >>"$cap/t.dat")
check $([ $? -eq 2 ] && grep -q "standard output is" <<<"$err"; echo $?) \
	"standard output appended to the capture is refused (${err:0:80})"
check $([ "$(sums)" = "$was" ] && [ ! -e "$tmp/both" ]; echo $?) "none of those touched an input"
ln -s /dev/null "$tmp/null"
"$report" -o "$tmp/null" "$cap/t.dat"
check $([ -L "$tmp/null" ] && [ "$(readlink "$tmp/null")" = /dev/null ] && [ -c /dev/null ] &&
	[ -z "$(ls "$tmp" | grep 'null.tmp')" ]; echo $?) \
	"-o onto a link to a device writes through it: the link and the device stay"
echo old >"$tmp/target.txt"
ln -s target.txt "$tmp/report-link"
"$report" -o "$tmp/report-link" "$cap/t.dat"
check $([ -L "$tmp/report-link" ] && grep -q '^summary' "$tmp/target.txt"; echo $?) \
	"-o onto a link to a file replaces the file and keeps the link"
ln -s dangling-target.txt "$tmp/dangling"
"$report" -o "$tmp/dangling" "$cap/t.dat"
check $([ -L "$tmp/dangling" ] && grep -q '^summary' "$tmp/dangling-target.txt"; echo $?) \
	"9: -o onto a dangling link creates the file it points to and keeps the link"
mkfifo "$tmp/fifo"
timeout 20 cat "$tmp/fifo" >"$tmp/from-fifo" &
reader=$!
"$report" -o "$tmp/fifo" "$cap/t.dat"
wait $reader
check $([ -p "$tmp/fifo" ] && grep -q '^summary' "$tmp/from-fifo"; echo $?) \
	"-o onto a FIFO writes into it and leaves it a FIFO"
(umask 027 && "$report" -o "$tmp/new.txt" "$cap/t.dat")
echo x >"$tmp/kept.txt" && chmod 604 "$tmp/kept.txt"
"$report" -o "$tmp/kept.txt" "$cap/t.dat"
check $([ "$(stat -c %a "$tmp/new.txt")" = 640 ] && [ "$(stat -c %a "$tmp/kept.txt")" = 604 ]; echo $?) \
	"a new output gets the umask's mode (640 under 027), a replaced one keeps its own ($(stat -c %a "$tmp/new.txt"), $(stat -c %a "$tmp/kept.txt"))"

cp "$fix/tierpush.numa_stat" "$tmp/log.txt"
"$report" -o /dev/stdout "$cap/t.dat" >>"$tmp/log.txt"
check $([ "$(head -n 3 "$tmp/log.txt")" = "$(head -n 3 "$fix/tierpush.numa_stat")" ] &&
	grep -q '^summary' "$tmp/log.txt"; echo $?) \
	"-o /dev/stdout appended to a log writes through it, the log's lines kept"

# Side files fail as themselves: a problem of the cgroup map or of a
# tier_stat snapshot is said naming that file, exit 1, never taken for a
# damaged capture (exit 3); what is not a regular file is refused at once
side=$tmp/side
mkdir "$side"
cp "$dat" "$side/t.dat"
: >"$side/t.cgroups"
fails 1 "$side/t.cgroups: empty file, not a cgroup map" "6: an empty TRACE.cgroups is said, not a damaged capture" \
	-- "$side/t.dat"
rm "$side/t.cgroups" && mkdir "$side/t.cgroups"
fails 1 "$side/t.cgroups: is a directory, not a cgroup map" "6: a directory TRACE.cgroups is said, not a damaged capture" \
	-- "$side/t.dat"
rmdir "$side/t.cgroups"
fails 1 "$side: is a directory, not a tier_stat snapshot" "6: a directory --tier-stat is said" \
	-- --tier-stat "$side" "$side/t.dat"
printf '99 /other tier0 nodes=0 usage=0\n' >"$tmp/other.tier_stat"
fails 1 "$tmp/other.tier_stat: names none of the cgroups the capture has records of" \
	"6: a --tier-stat of another capture is said, not a damaged capture" -- --tier-stat "$tmp/other.tier_stat" "$side/t.dat"
cp "$fix/tierpush.cgroups" "$side/t.cgroups"
chmod 000 "$side/t.cgroups"
chmod 755 "$tmp" "$side"
as_other=()	# root reads any file: the test runs as nobody then
[ "$(id -u)" -eq 0 ] && as_other=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
err=$("${as_other[@]}" timeout 20 "$report" "$side/t.dat" 2>&1 >/dev/null)
rc=$?
check $([ $rc -eq 1 ] && grep -q "$side/t.cgroups: cannot open the cgroup map: Permission denied" <<<"$err"; echo $?) \
	"7: an unreadable TRACE.cgroups is said, not skipped (exit $rc: ${err%%$'\n'*})"
rm -f "$side/t.cgroups"
mkfifo "$side/t.cgroups"
fails 1 "$side/t.cgroups: not a regular file" "8: a FIFO as TRACE.cgroups is refused, not waited on" -- "$side/t.dat"
rm "$side/t.cgroups"
fails 1 "/dev/zero: not a regular file" "8: --cgroup-map /dev/zero is refused, not read forever" \
	-- --cgroup-map /dev/zero "$dat"
fails 1 "/dev/zero: not a regular file" "8: --tier-stat-end /dev/zero is refused, not read forever" \
	-- --tier-stat-end /dev/zero "$dat"
# On a kernel without the feature record.sh writes empty snapshots (no
# cgroup has memory.tier_stat): no problem of theirs, the capture's own is
# said, as e2e.sh expects of the guest's capture without the parameter
mkdir "$tmp/off"
cp "$fix/no-memcg-tier.dat" "$tmp/off/t.dat"
printf '1 /\n' >"$tmp/off/t.cgroups"
: >"$tmp/off/t.tier_stat.start"
: >"$tmp/off/t.tier_stat.end"
fails 1 "$tmp/off/t.dat: .*no memcg_tier" \
	"6: the empty snapshots record.sh writes without the feature are read, the capture's own problem said" \
	-- "$tmp/off/t.dat"

# Damage the reports cannot hide: --fields keeps the damage table whole,
# --until does not stop before a page whose timestamp jumped ahead
trace-cmd convert --compression none -i "$dat" -o "$tmp/raw.dat" >/dev/null 2>&1
python3 - "$tmp/raw.dat" "$tmp/jump.dat" <<'PY'
import re, struct, subprocess, sys
src, dst = sys.argv[1:]
dump = subprocess.run(["trace-cmd", "dump", "--flyrecord", src],
		      capture_output=True, text=True).stdout
off, size = map(int, re.search(r"^\s*0 (\d+)\s+(\d+)", dump, re.M).groups())
data = bytearray(open(src, "rb").read())
page = off + (size // 4096 // 2) * 4096	# a page of CPU 0 halfway through
ts, = struct.unpack_from("<Q", data, page)
struct.pack_into("<Q", data, page, ts + 100 * 10**9)
open(dst, "wb").write(data)
PY
for f in cgroups tier_stat.start; do cp "$fix/tierpush.$f" "$tmp/jump.$f"; done
err=$("$report" --until 1.9 "$tmp/jump.dat" 2>&1 >/dev/null)
rc=$?
check $([ $rc -eq 3 ] && grep -q 'timestamp is before the previous one' <<<"$err"; echo $?) \
	"--until before a page whose time jumped 100 s ahead still reads past it and says so (exit $rc)"
out=$("$report" -F usage_pages --no-header "$tmp/jump.dat" 2>/dev/null)
rc=$?
check $([ $rc -eq 3 ] && grep -q '^damage .* detail$' <<<"$out" &&
	grep -q '^time_backwards .* records whose timestamp' <<<"$out"; echo $?) \
	"the damage is shown whole under --fields (exit $rc)"

# Conventions: -i, a default input, csv and json for their readers
(cd "$cap" && cp t.dat trace.dat && "$report" >"$tmp/default.txt" 2>&1)
check $(grep -q '^capture: trace.dat' "$tmp/default.txt"; echo $?) "without a capture argument it reads trace.dat"
check $(cmp -s <("$report" summary -f csv -i "$dat") <("$report" summary -f csv "$dat"); echo $?) \
	"-i FILE names the input"
"$report" summary -f csv -o "$tmp/r.csv" "$dat"
python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["page_size"] == "4096" for r in rows), rows[:1]
assert not any(k.startswith("#") for k in rows[0]), rows[0].keys()
assert any(r["cgroup"] == "/tierpush" and int(r["usage_pages"]) > 0 for r in rows)' "$tmp/r.csv"
check $? "csv reads with a standard reader: named columns, page_size, no '#'"
"$report" all -f json --top 1 "$dat" >"$tmp/r.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["format_version"] == 3
s = [r for r in d["summary"] if r["cgroup"] == "/tierpush"]
assert all(isinstance(r["usage_pages"], int) and r["high_pages"] == "max" for r in s), s
assert len(d["churn"]) == 1 and d["churn_left_out"] >= 1, d.get("churn_left_out")' "$tmp/r.json"
check $? "json: a format version, numbers as numbers, \"max\" for no limit, what --top left out"
out=$("$report" churn --top 1 --no-header "$dat")
check $(grep -qE '^\([0-9]+ more left out by --top; --top 0 shows all\)$' <<<"$out"; echo $?) \
	"--top says how many findings it left out"
wide=$("$report" summary "$dat" | awk 'length > 100' | wc -l)
check $([ "$wide" = 0 ]; echo $?) "the text summary fits 100 columns ($wide wider lines)"
hdr=$("$report" summary --no-header -F cgroup,tier,usage_pages,refused_tier_max_pages "$dat" | sed -n 2p)
check $([ "$(echo $hdr)" = "tier usage refused at max cgroup" ]; echo $?) \
	"--fields picks the columns, in the table's order ($hdr)"
first=$(trace-cmd report -i "$dat" 2>/dev/null | grep -m1 -oE '[0-9]+\.[0-9]{6}:' | tr -d :)
abs=$("$report" -t "$dat" | sed -n 's/^start (s): //p')
check $([ -n "$first" ] && [ "$abs" = "$first" ]; echo $?) \
	"--absolute-time prints timestamps as trace-cmd report does ($abs, $first)"

check $(cmp -s <(sha256sum "$fix"/* | sha256sum) <(echo "$before"); echo $?) \
	"no input file was modified"

# A capture recorded into a buffer instance (trace-cmd record -B tier)
inst=$fix/instance.dat
fails 1 "top buffer and the buffer instance 'tier' .*--buffer NAME" \
	"a capture with a buffer instance is refused, naming it" -- "$inst"
fails 1 "--buffer nope: no such buffer.* 'tier'" "an unknown --buffer is refused, naming the buffers" \
	-- --buffer nope "$inst"
n=$("$report" summary -f csv --buffer tier "$inst" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["charged_pages"] > 0' | wc -l)
m=$(trace-cmd report -i "$inst" 2>/dev/null | grep -c 'memcg_tier_charge:')
check $([ "$n" -ge 1 ] && [ "$m" -gt 0 ]; echo $?) \
	"--buffer tier reads the instance's memcg_tier records ($n tiers charged; trace-cmd report: $m charges)"

# The figures against an independent decoder: trace-cmd report's text
summary=$("$report" summary -f csv "$dat")
col() {	# col TIER COLUMN
	awk -F, -v t="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["cgroup"] == "/tierpush" && $h["tier"] == t { print $h[c] }' <<<"$summary"
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

only=$("$report" summary -f csv -F cgroup -c "$id" "$dat" | tail -n +2 | cut -d, -f1 | sort -u)
check $([ "$only" = /tierpush ]; echo $?) "--cgroup ID keeps only that cgroup"

# --until T and --since T split the capture's charges exactly
total=$(col 0 charged_pages)
a=$("$report" summary -f csv --until 300ms "$dat" | tier0 charged_pages)
b=$("$report" summary -f csv --since 300ms "$dat" | tier0 charged_pages)
check $([ -n "$a" ] && [ -n "$b" ] && [ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ $((a + b)) = "$total" ]; echo $?) \
	"--until 300ms and --since 300ms split tier 0's charges ($a + $b = $total)"

tl=$("$report" timeline -f csv -b 100ms "$dat")
rows=$(tier0 charged_pages <<<"$tl" | wc -l)
sum=$(tier0 charged_pages <<<"$tl" | awk '{ s += $1 } END { print s + 0 }')
check $([ "$rows" -gt 5 ] && [ "$sum" = "$total" ]; echo $?) \
	"timeline at 100ms: $rows buckets whose charges add up to the summary's ($sum)"

# promoted and demoted: the end snapshot's counters less the start's
sed 's/$/ promoted=8192 demoted=0/' "$fix/tierpush.tier_stat.start" >"$tmp/moves.start"
sed -e 's/^\(.* tier0 .*\)$/\1 promoted=73728 demoted=4096/' \
	-e 's/^\(.* tier1 .*\)$/\1 promoted=8192 demoted=40960/' \
	"$fix/tierpush.tier_stat.end" >"$tmp/moves.end"
csv=$("$report" summary -f csv -F tier,promoted_pages,demoted_pages \
	--tier-stat "$tmp/moves.start" --tier-stat-end "$tmp/moves.end" "$dat")
check $([ "$(sed -n 2,3p <<<"$csv" | cut -d, -f1-3 | tr '\n' ' ')" = "0,16,1 1,0,10 " ]; echo $?) \
	"summary: promoted and demoted pages per tier from the two snapshots ($(sed -n 2,3p <<<"$csv" | cut -d, -f1-3 | tr '\n' ' '))"
csv=$("$report" summary -f csv -F promoted_pages --tier-stat-end "$tmp/moves.end" "$dat")
check $([ "$(sed -n 2p <<<"$csv" | cut -d, -f1)" = "" ]; echo $?) \
	"summary: without counters in the start snapshot promoted is unknown, not 0"

# The man page documents exactly the options the two --help texts list
opts_help=$({ "$report" --help; "$report" top --help; } |
	grep -oE -- '--[a-z][a-z-]+' | sort -u)
opts_man=$(sed 's/\\-/-/g' "$here/../memcg-tier-report.1" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
check $([ "$opts_help" = "$opts_man" ]; echo $?) \
	"the man page and --help name the same options ($(comm -3 <(echo "$opts_help") <(echo "$opts_man") | tr -d '\t' | tr '\n' ' '))"
