#!/bin/sh
# memcg-tier-report top, live in the guest.
#
#   top --batch --duration 8 -f csv over the tierpush workload in a 64M
#   cgroup (steered allocations, 100 refused pushes): the totals it prints
#   at the end equal the deltas of the cgroup's memory.tier_stat counters,
#   tier by tier; one table per interval; tracefs as it was before.
#   top without --duration, ended by SIGINT: exit 0, totals printed, no
#   instance left and no event enabled.
#   Without the parameter: exit 1, saying how to boot the feature.
. /tracing/bin/lib.sh

tracefs=/sys/kernel/tracing

if [ "$TIERED_MODE" = off ]; then
	memcg-tier-report top --batch --duration 1 >/tmp/top.out 2>/tmp/top.err
	rc=$?
	sed 's/^/  /' /tmp/top.err
	tap $([ $rc -eq 1 ] && grep -q 'cgroup.memory=tiered_limits' /tmp/top.err; echo $?) \
		"without the parameter top exits 1 and says how to boot the feature (exit $rc)"
	exit 0
fi

# What the top may not leave changed
fingerprint() {
	(cd $tracefs && cat set_event tracing_on current_tracer buffer_size_kb \
		events/memcg_tier/enable events/cgroup/enable && ls instances)
}

# wait_ready ERRFILE: until top says it traces (10 s at most).  The caller
# removes ERRFILE before it starts top: a line left from the last run would
# let a signal reach top before its handlers are set, while a background
# job still ignores SIGINT.
wait_ready() {
	i=0
	while ! grep -q 'tracing in instance' "$1" && [ $i -lt 100 ]; do
		usleep 100000
		i=$((i + 1))
	done
	grep -q 'tracing in instance' "$1"
}

# totals CGROUP TIER COLUMN: from the last table of the csv (the totals)
totals() {
	awk -F, -v cg="$1" -v tier="$2" -v col="$3" '
		$1 == "tier" { split("", c); for (i = 1; i <= NF; i++) c[$i] = i; totals = ("charged" in c); next }
		totals && $c["cgroup"] == cg && $c["tier"] == tier { print $c[col] }' /tmp/top.csv
}

fingerprint >/tmp/tracefs.before
cg=top-work
cg_make $cg && echo 64M >"$CGROOT/$cg/memory.max"

rm -f /tmp/top.err
memcg-tier-report top --batch --duration 8 -f csv >/tmp/top.csv 2>/tmp/top.err &
top=$!
wait_ready /tmp/top.err
tap $? "top starts tracing"
cp "$CGROOT/$cg/memory.tier_stat" /tmp/tier_stat.before
tierpush_ready $cg /tmp/top.ready
# Read inside top's window, once the cgroup's reclaim has settled: a
# reclaim the high worker runs after the read would count in top only
cg_settle $cg
cp "$CGROOT/$cg/memory.tier_stat" /tmp/tier_stat.after
kill -0 $top 2>/dev/null
tap $? "the workload was done and settled while top still ran (else raise --duration)"
wait $top
rc=$?
cg_thaw $cg
sed 's/^/  /' /tmp/top.err
tap $rc "top --duration 8 exits 0"
# shellcheck disable=SC2046 # one pid per line
kill $(cat "$CGROOT/$cg/cgroup.procs") 2>/dev/null

n=$(grep -c '^tier,usage,' /tmp/top.csv)
tap $([ "$n" -ge 4 ]; echo $?) "one table per interval over 8 s ($n)"

# Every tier's counters: the events top read against memory.tier_stat
for tier in 0 1; do
	for key in reclaims reclaimed refused steered; do
		b=$(sed -n "s/^tier$tier .* $key=\([0-9]*\).*/\1/p" /tmp/tier_stat.before)
		a=$(sed -n "s/^tier$tier .* $key=\([0-9]*\).*/\1/p" /tmp/tier_stat.after)
		want=$((a - b))
		# memory.tier_stat's refused counts folios, its steered steers away
		case $key in
		refused) col=refused_folios ;;
		steered) col=steered_away ;;
		*) col=$key ;;
		esac
		got=$(totals /$cg $tier $col)
		[ "$key" = reclaimed ] && got=$((${got:-0} * $(totals /$cg $tier page_size)))
		tap $([ "${got:-x}" = "$want" ]; echo $?) \
			"top's total $key of tier $tier equals the tier_stat delta ($got, $want)"
	done
done
charged=$(totals /$cg 0 charged)
tap $([ "${charged:-0}" -gt 0 ]; echo $?) "top saw tier 0 charges (${charged:-none} pages)"

fingerprint >/tmp/tracefs.after
cmp -s /tmp/tracefs.before /tmp/tracefs.after
tap $? "tracefs is as before top ran"
diff /tmp/tracefs.before /tmp/tracefs.after | sed 's/^/  /'

# Interrupted: the instance goes, no event stays enabled
rm -f /tmp/top.err
memcg-tier-report top --batch -f csv >/tmp/top.csv 2>/tmp/top.err &
top=$!
wait_ready /tmp/top.err
tap $? "top started again, to be interrupted"
cg_run $cg memtouch 8 >/dev/null
kill -INT $top
# A top that outlives SIGINT by 30 s fails here instead of hanging the boot
i=0
while kill -0 $top 2>/dev/null && [ $i -lt 300 ]; do
	usleep 100000
	i=$((i + 1))
done
kill -KILL $top 2>/dev/null && echo "  top still ran 30 s after SIGINT: killed"
wait $top
tap $? "top ended by SIGINT exits 0"
tap $(grep -q '^tier,nodes,charged,' /tmp/top.csv; echo $?) \
	"top ended by SIGINT prints its totals"
left=$(ls -d $tracefs/instances/memcg_tier_top_* 2>/dev/null)
on=$(grep -l 1 $tracefs/events/*/enable $tracefs/instances/*/events/*/enable 2>/dev/null)
tap $([ -z "$left$on" ]; echo $?) "after SIGINT no instance is left and no event enabled${left:+ ($left)}${on:+ ($on)}"
fingerprint >/tmp/tracefs.after
cmp -s /tmp/tracefs.before /tmp/tracefs.after
tap $? "tracefs is as before the interrupted top"

cg_wait_empty $cg
rmdir "$CGROOT/$cg"
