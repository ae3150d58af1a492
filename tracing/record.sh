#!/bin/sh
# record.sh [--perf] OUTPUT.dat COMMAND [ARG]...
#
# Run COMMAND under "trace-cmd record" (with --perf: "perf record -a",
# OUTPUT a perf.data for "perf script" and "perf report") with the events
# that explain tiered memcg behaviour: the memcg_tier events (when the kernel has them), cgroup
# creation and removal, page migration and memcg reclaim.  Beside the
# capture, OUTPUT.cgroups maps the id of every cgroup that existed before
# recording started (the cgroupfs inode number) to its path, so reports can
# name cgroups that were made before the capture, and
# OUTPUT.tier_stat.start / .end hold every cgroup's memory.tier_stat from
# before and after (empty without the feature).
set -eu
. /tracing/bin/lib.sh

recorder=trace-cmd
if [ "${1-}" = --perf ]; then
	recorder=perf
	shift
fi
[ $# -ge 2 ] || { echo "usage: record.sh [--perf] OUTPUT.dat COMMAND [ARG]..." >&2; exit 2; }
output=$1
shift

events=/sys/kernel/tracing/events
args=
for e in memcg_tier cgroup:cgroup_mkdir cgroup:cgroup_rmdir \
	 migrate:mm_migrate_pages vmscan:mm_vmscan_memcg_reclaim_begin \
	 vmscan:mm_vmscan_memcg_reclaim_end; do
	if [ -d "$events/$(echo "$e" | tr : /)" ]; then
		# perf names a whole system "SYSTEM:*"
		case $recorder:$e in
		perf:*:*) args="$args -e $e" ;;
		perf:*) args="$args -e $e:*" ;;
		*) args="$args -e $e" ;;
		esac
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
if [ $recorder = perf ]; then
	# 8M a CPU: the default 512K drops events in bursts of faults
	perf record -q -a -m 8M -o "$output" $args -- "$@" || status=$?
else
	trace-cmd record -q -o "$output" $args "$@" || status=$?
fi
tier_stat_snapshot "${output%.dat}.tier_stat.end"
exit $status
