#!/bin/sh
# memcg-tier-exporter against live cgroups.
#
#   /sys/fs/cgroup/exporter          the exporter's --cgroup-root
#     a        memory.max 48M, memory.high 40M
#       inner  16M of tmpfs
#     b        memory.low 8M, memory.min 4M; 8M of tmpfs
#   Every sample of the file equals memory.tier_stat, a "max" limit is
#   +Inf, each tier's nodes are on memcg_tier_info alone, each metric has
#   its HELP and TYPE; --interval picks up a new
#   memory.max and SIGTERM leaves no temporary file.  The snapshot and
#   the file go to the host, whose test (analysis/tests/exporter-node.sh)
#   serves them through node_exporter.
#   Without the parameter: exit 1, nothing written.
. /tracing/bin/lib.sh

dir=/tmp/textfile
prom=$dir/memcg_tier.prom
mkdir -p $dir

if [ "$TIERED_MODE" = off ]; then
	memcg-tier-exporter -o $prom 2>/tmp/exporter.err
	rc=$?
	sed 's/^/  /' /tmp/exporter.err
	tap $([ $rc -eq 1 ] && [ ! -e $prom ] &&
		grep -q 'cgroup.memory=tiered_limits' /tmp/exporter.err; echo $?) \
		"without the parameter the exporter exits 1, writes nothing and says how to boot the feature (exit $rc)"
	exit 0
fi

root=$CGROOT/exporter
cg_make exporter &&
	echo +memory >"$root/cgroup.subtree_control" &&
	mkdir "$root/a" "$root/b" &&
	echo +memory >"$root/a/cgroup.subtree_control" &&
	mkdir "$root/a/inner" &&
	echo 48M >"$root/a/memory.max" && echo 40M >"$root/a/memory.high" &&
	echo 8M >"$root/b/memory.low" && echo 4M >"$root/b/memory.min"
tap $? "cgroups for the exporter made"
mkdir -p /tmp/exporter-shm && mount -t tmpfs tmpfs /tmp/exporter-shm
cg_run exporter/a/inner dd if=/dev/zero of=/tmp/exporter-shm/a bs=1M count=16 2>/dev/null
cg_run exporter/b dd if=/dev/zero of=/tmp/exporter-shm/b bs=1M count=8 2>/dev/null

memcg-tier-exporter --cgroup-root "$root" -o $prom
tap $? "memcg-tier-exporter writes $prom"
tier_stat_snapshot /tmp/exporter.tier_stat "$root"

# The samples tier_stat says there must be, by an awk of this test's own
want() {
	awk '{
		path = $2; tier = substr($3, 5)
		for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		l = "{cgroup=\"" path "\",tier=\"" tier "\"} "
		n = split("usage:usage_bytes min:min_bytes low:low_bytes high:high_bytes max:max_bytes reclaims:reclaims_total reclaimed:reclaimed_bytes_total refused:refused_folios_total steered:steered_away_total promoted:promoted_bytes_total demoted:demoted_bytes_total", m, " ")
		for (i = 1; i <= n; i++) {
			split(m[i], km, ":")
			print "memcg_tier_" km[2] l (v[km[1]] == "max" ? "+Inf" : v[km[1]])
		}
		one["memcg_tier_capacity_bytes{tier=\"" tier "\"} " v["capacity"]] = 1
		one["memcg_tier_info{tier=\"" tier "\",nodes=\"" v["nodes"] "\"} 1"] = 1
	} END { for (c in one) print c }' /tmp/exporter.tier_stat | sort
}
want >/tmp/exporter.want
grep -v '^#' $prom | sort >/tmp/exporter.got
cmp -s /tmp/exporter.want /tmp/exporter.got
tap $? "every sample equals memory.tier_stat ($(wc -l </tmp/exporter.want) samples)"
diff /tmp/exporter.want /tmp/exporter.got | head -n 20 | sed 's/^/  /'

n=$(grep -c 'max_bytes{cgroup="/b",tier="[0-9]*"} +Inf$' $prom)
m=$(grep -c 'max_bytes{cgroup="/a",tier="[0-9]*"} [0-9]*$' $prom)
tap $([ "$n" -ge 2 ] && [ "$m" -ge 2 ]; echo $?) \
	"an unlimited cgroup's max is +Inf (/b: $n), a limited one's a size per tier (/a: $m)"
labelled=$(grep -v '^memcg_tier_info{' $prom | grep -c 'nodes=')
tap $([ "$labelled" -eq 0 ]; echo $?) "only memcg_tier_info has a nodes label ($labelled others do)"
families=$(grep -c '^# TYPE memcg_tier_' $prom)
helps=$(grep -c '^# HELP memcg_tier_' $prom)
tap $([ "$families" -eq 13 ] && [ "$helps" -eq 13 ]; echo $?) \
	"each of the 13 metrics has HELP and TYPE ($helps, $families)"
grep -q 'memcg_tier_high_bytes{cgroup="/a",tier="0"' $prom
tap $? "the tier share of memory.high is exported"

# For the host: the snapshot and what the exporter made of the cgroups
cp /tmp/exporter.tier_stat "$TIERED_OUT/exporter.tier_stat"
cp $prom "$TIERED_OUT/exporter.prom"

# --interval rewrites it; SIGTERM ends it cleanly
memcg-tier-exporter --cgroup-root "$root" -o $prom --interval 1 &
pid=$!
echo 40M >"$root/a/memory.max"
new=$(tier_stat_field exporter/a 0 max)
i=0
while ! grep -q "memcg_tier_max_bytes{cgroup=\"/a\",tier=\"0\"} $new\$" $prom &&
	[ $i -lt 50 ]; do
	usleep 100000
	i=$((i + 1))
done
grep -q "memcg_tier_max_bytes{cgroup=\"/a\",tier=\"0\"} $new\$" $prom
tap $? "--interval picks up a new memory.max (tier 0 max $new)"
kill -TERM $pid
wait $pid
rc=$?
left=$(ls -A $dir | grep -v '^memcg_tier.prom$')
tap $([ $rc -eq 0 ] && [ -z "$left" ]; echo $?) \
	"SIGTERM ends --interval with exit 0 and no temporary file (exit $rc${left:+, left: $left})"

rm -f /tmp/exporter-shm/a /tmp/exporter-shm/b
umount /tmp/exporter-shm
rmdir "$root/a/inner" "$root/a" "$root/b" "$root"
