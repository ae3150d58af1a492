#!/bin/bash
# Damaged captures: single-byte flips in the record data of the tierpush
# fixture, as recorded (zstd) and decompressed, at offsets and values from
# a fixed seed.  A run may print figures with exit status 0 only if they
# are the undamaged capture's; otherwise it must say the capture is
# damaged (exit 3) or refuse it (exit 1).  Never a crash or a hang.
#
# trace.dat has no checksum, so a flip that turns one consistent capture
# into another is beyond any reader: a time delta moved within the span
# of its neighbours on a CPU's last page, say.  At most 1% of the flips
# may go unseen (the old reader: 17 of 200 zstd, 65 of 200 raw).
#
#   tests/flips.sh [FLIPS]      (default 200 per capture)
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
report=${MEMCG_TIER_REPORT:-$here/../memcg-tier-report}
fix=$here/fixtures
flips=${1:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The analyzer's temporary files go to $TMPDIR: a directory of this run's
# own, so that what is left there is this run's, whatever else runs.
# (libtracecmd 1.3 decompresses into /tmp/trace_cpu_data* whatever
# TMPDIR says: shared with every other process, those are not checked.)
mkdir "$tmp/tmpdir"

. "$here/lib.sh"

# ranges FILE: "OFFSET SIZE" of each CPU's data, as trace-cmd dump lists it
ranges() {
	trace-cmd dump --flyrecord "$1" 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ && NF >= 3 && $NF ~ /\]$/ && /data offset/ { print $2, $3 }'
}

# The reports read the side files beside the capture: give each copy them
for f in cgroups tier_stat.start tier_stat.end; do
	cp "$fix/tierpush.$f" "$tmp/zstd.$f"
	cp "$fix/tierpush.$f" "$tmp/raw.$f"
done
cp "$fix/tierpush.dat" "$tmp/zstd.dat"
trace-cmd convert --compression none -i "$fix/tierpush.dat" -o "$tmp/raw.dat" >/dev/null 2>&1

for kind in zstd raw; do
	dat=$tmp/$kind.dat
	TMPDIR=$tmp/tmpdir "$report" all -f json "$dat" >"$tmp/want.json" 2>/dev/null
	check $? "$kind: the undamaged capture reads with exit 0"
	ranges "$dat" >"$tmp/ranges"
	total=$(awk '{ s += $2 } END { print s + 0 }' "$tmp/ranges")
	if [ "$total" -le 0 ]; then
		check 1 "$kind: trace-cmd dump lists the capture's CPU data"
		continue
	fi
	wrong=0 damaged=0 refused=0 same=0 crashed=0 first=
	# Offsets into the CPU data and XOR values, from a fixed seed
	seed=$([ $kind = zstd ] && echo 7 || echo 11)
	awk -v n="$flips" -v total="$total" -v seed="$seed" \
		'BEGIN { srand(seed)
			 for (i = 0; i < n; i++)
				 printf "%d %d\n", int(rand() * total), 1 + int(rand() * 255) }' |
	while read -r pos xor; do
		# the file offset of data byte POS
		off=$(awk -v p="$pos" '{ if (p < $2) { print $1 + p; exit } p -= $2 }' "$tmp/ranges")
		cp "$dat" "$tmp/flip.dat"
		for f in cgroups tier_stat.start tier_stat.end; do
			cp "$tmp/$kind.$f" "$tmp/flip.$f"
		done
		byte=$(od -An -tu1 -j "$off" -N1 "$tmp/flip.dat" | tr -d ' ')
		printf "$(printf '\\%03o' $((byte ^ xor)))" |
			dd of="$tmp/flip.dat" bs=1 seek="$off" conv=notrunc status=none
		TMPDIR=$tmp/tmpdir timeout 60 "$report" all -f json "$tmp/flip.dat" >"$tmp/got.json" 2>"$tmp/err"
		rc=$?
		sed -i 's/"file":"[^"]*"//' "$tmp/got.json"
		case $rc in
		0)	if cmp -s <(sed 's/"file":"[^"]*"//' "$tmp/want.json") "$tmp/got.json"; then
				echo same
			else
				echo "wrong $off $xor"
			fi ;;
		1)	echo refused ;;
		3)	echo damaged ;;
		*)	echo "crashed $off $xor $rc" ;;
		esac
	done >"$tmp/results"
	for k in same damaged refused; do
		eval "$k=$(grep -c "^$k" "$tmp/results")"
	done
	wrong=$(grep -c '^wrong' "$tmp/results")
	crashed=$(grep -c '^crashed' "$tmp/results")
	check $([ "$wrong" -le $((flips / 100)) ]; echo $?) \
		"$kind: $flips byte flips: at most 1% wrong figures with exit 0 ($same same figures, $damaged said damaged, $refused refused, $wrong wrong$(grep -m3 '^wrong' "$tmp/results" | sed 's/wrong/; at/' | tr -d '\n'))"
	check $([ "$crashed" -eq 0 ]; echo $?) \
		"$kind: no flip crashes or hangs the analyzer ($crashed$(grep -m3 '^crashed' "$tmp/results" | sed 's/crashed/; at/' | tr -d '\n'))"
done
left=$(find "$tmp/tmpdir" -mindepth 1 -maxdepth 1 -name 'memcg-tier-report.*' | wc -l)
check $([ "$left" -eq 0 ]; echo $?) \
	"no run, damaged or not, leaves a directory of its own in \$TMPDIR ($left left)"
# A failed tracecmd_copy() unlinks its output: never a shared name
check $([ -c /dev/null ]; echo $?) "/dev/null is still a device after every damaged run"
