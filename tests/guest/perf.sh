#!/bin/sh
# perf, built from our tree, on the memcg_tier events.
#
#   perf stat -a over tierpush in a 64M cgroup (steered allocations, 100
#   refused pushes) and a memory.max lowered under its usage (tier reclaim,
#   swap on): each event's count equals the cgroup's memory.tier_stat
#   counter delta (steered, refused, reclaims), read inside perf's window
#   once the cgroup is frozen and its reclaim (the high worker's too) has
#   settled: read after perf ends, it could count a reclaim perf missed.
#   perf stat --filter 'cgroup_id == N', two cgroups at once: each count
#   is that cgroup's own.
#   record.sh --perf (perf record -a -e 'memcg_tier:*' ...) into
#   /host/perf.data, with the cgroup map and tier_stat snapshots beside
#   it, for the host's perf script and perf report (tests/perf-report.sh).
#   Without the parameter: perf stat counts no memcg_tier event.
. /tracing/bin/lib.sh

events="-e memcg_tier:memcg_tier_steer -e memcg_tier:memcg_tier_migrate_refuse -e memcg_tier:memcg_tier_reclaim -e memcg_tier:memcg_tier_charge"

# count FILE EVENT [NTH]: the NTH (default first) count of EVENT in perf
# stat -x, output
count() {
	awk -F, -v e="memcg_tier:$2" -v nth="${3:-1}" \
		'$3 == e && ++n == nth { print $1 }' "$1"
}

# sum_stat FILE KEY: KEY summed over the tiers of a tier_stat copy
sum_stat() {
	sed -n "s/.* $2=\([0-9]*\).*/\1/p" "$1" | awk '{ s += $1 } END { print s + 0 }'
}

# stop CGROUP...: kill their tasks, remove them
stop() {
	for cg in "$@"; do
		# shellcheck disable=SC2046 # one pid per line
		kill $(cat "$CGROOT/$cg/cgroup.procs") 2>/dev/null
		cg_wait_empty "$cg"
		rmdir "$CGROOT/$cg"
	done
}

if [ "$TIERED_MODE" = off ]; then
	cg_make perf-a && echo 64M >"$CGROOT/perf-a/memory.max"
	# shellcheck disable=SC2086 # $events is a list of options
	perf stat -a -x, -o /tmp/perf.csv $events -- \
		sh -c ". /tracing/bin/lib.sh; cg_run perf-a memtouch 32" >/dev/null 2>&1
	tap $? "perf stat -a -e memcg_tier:* exits 0"
	n=$(awk -F, '$3 ~ /^memcg_tier:/ { s += $1 } END { print s + 0 }' /tmp/perf.csv)
	tap $([ "$n" -eq 0 ]; echo $?) "without the parameter no memcg_tier event fires ($n)"
	stop perf-a
	exit 0
fi

# Every count against the tier_stat deltas
swap_on
cg_make perf-a && echo 64M >"$CGROOT/perf-a/memory.max"
cp "$CGROOT/perf-a/memory.tier_stat" /tmp/perf.before
# shellcheck disable=SC2086 # $events is a list of options
perf stat -a -x, -o /tmp/perf.csv $events -- sh -c "
	. /tracing/bin/lib.sh
	tierpush_ready perf-a /tmp/perf-a.ready
	echo 56M >$CGROOT/perf-a/memory.max
	cg_settle perf-a && cp $CGROOT/perf-a/memory.tier_stat /tmp/perf.after" \
	>/tmp/perf.out 2>&1
tap $? "perf stat -a over the workload exits 0, its reclaim settled inside the window"
cg_thaw perf-a
sed 's/^/  /' /tmp/perf.csv | grep memcg_tier
for pair in steer:steered migrate_refuse:refused reclaim:reclaims; do
	ev=memcg_tier_${pair%%:*}
	key=${pair#*:}
	got=$(count /tmp/perf.csv $ev)
	want=$(($(sum_stat /tmp/perf.after "$key") - $(sum_stat /tmp/perf.before "$key")))
	tap $([ -n "$got" ] && [ "$got" -eq "$want" ]; echo $?) \
		"perf stat counts $ev as memory.tier_stat's $key delta ($got, $want)"
done
got=$(count /tmp/perf.csv memcg_tier_steer)
tap $([ "${got:-0}" -gt 0 ] && [ "$(count /tmp/perf.csv memcg_tier_reclaim)" -gt 0 ]; echo $?) \
	"the workload steered and reclaimed (steers ${got:-0}, reclaims $(count /tmp/perf.csv memcg_tier_reclaim))"
stop perf-a
swap_off

# --filter: two cgroups at once, each counted alone
cg_make perf-b && echo 64M >"$CGROOT/perf-b/memory.max"
cg_make perf-c && echo 80M >"$CGROOT/perf-c/memory.max"
idb=$(stat -c %i "$CGROOT/perf-b")
idc=$(stat -c %i "$CGROOT/perf-c")
perf stat -a -x, -o /tmp/perf.csv \
	-e memcg_tier:memcg_tier_steer --filter "cgroup_id == $idb" \
	-e memcg_tier:memcg_tier_steer --filter "cgroup_id == $idc" \
	-e memcg_tier:memcg_tier_steer -- sh -c "
	. /tracing/bin/lib.sh
	tierpush_ready perf-b /tmp/perf-b.ready & tierpush_ready perf-c /tmp/perf-c.ready &
	wait" >/dev/null 2>&1
tap $? "perf stat --filter 'cgroup_id == N' exits 0"
b=$(count /tmp/perf.csv memcg_tier_steer 1)
c=$(count /tmp/perf.csv memcg_tier_steer 2)
all=$(count /tmp/perf.csv memcg_tier_steer 3)
sb=$(sum_stat "$CGROOT/perf-b/memory.tier_stat" steered)
sc=$(sum_stat "$CGROOT/perf-c/memory.tier_stat" steered)
tap $([ -n "$b" ] && [ "$b" -eq "$sb" ] && [ -n "$c" ] && [ "$c" -eq "$sc" ] &&
	[ "$sb" -gt 0 ] && [ "$sc" -gt 0 ] && [ "$all" -eq $((b + c)) ]; echo $?) \
	"--filter counts each cgroup's own steers (perf-b $b = $sb, perf-c $c = $sc, all $all)"
stop perf-b perf-c

# For the host's perf script and perf report (tests/perf-report.sh):
# record.sh --perf leaves the cgroup map and tier_stat beside perf.data
cg_make perf-d && echo 64M >"$CGROOT/perf-d/memory.max"
rm -f "$TIERED_OUT/perf.data"
record.sh --perf "$TIERED_OUT/perf.data" sh -c \
	". /tracing/bin/lib.sh; tierpush_ready perf-d /tmp/perf-d.ready" >/tmp/perf.out 2>&1
tap $? "record.sh --perf (perf record -a -e 'memcg_tier:*' ...) exits 0"
sed 's/^/  /' /tmp/perf.out
stop perf-d
