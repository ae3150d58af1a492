#!/bin/sh
# record.sh OUTPUT.dat COMMAND [ARG]...
#
# Run COMMAND under "trace-cmd record" with the events that explain tiered
# memcg behaviour: the memcg_tier events (when the kernel has them), cgroup
# creation and removal, page migration and memcg reclaim.  Beside the
# capture, OUTPUT.cgroups maps the id of every cgroup that existed before
# recording started (the cgroupfs inode number) to its path, so reports can
# name cgroups that were made before the capture, and
# OUTPUT.tier_stat.start / .end hold every cgroup's memory.tier_stat from
# before and after (empty without the feature).
set -eu
. /tracing/bin/lib.sh

[ $# -ge 2 ] || { echo "usage: record.sh OUTPUT.dat COMMAND [ARG]..." >&2; exit 2; }
output=$1
shift

events=/sys/kernel/tracing/events
args=
for e in memcg_tier cgroup:cgroup_mkdir cgroup:cgroup_rmdir \
	 migrate:mm_migrate_pages vmscan:mm_vmscan_memcg_reclaim_begin \
	 vmscan:mm_vmscan_memcg_reclaim_end; do
	if [ -d "$events/$(echo "$e" | tr : /)" ]; then
		args="$args -e $e"
	else
		echo "record.sh: kernel has no event $e; not recorded" >&2
	fi
done

cgmap=${output%.dat}.cgroups
find /sys/fs/cgroup -type d | while read -r dir; do
	echo "$(stat -c %i "$dir") ${dir#/sys/fs/cgroup}"
done | sed 's# $# /#' >"$cgmap.tmp"
mv "$cgmap.tmp" "$cgmap"

tier_stat_snapshot "${output%.dat}.tier_stat.start"
# shellcheck disable=SC2086 # $args is a list of options
status=0
trace-cmd record -q -o "$output" $args "$@" || status=$?
tier_stat_snapshot "${output%.dat}.tier_stat.end"
exit $status
