#!/bin/sh
# A capture with a known answer, for the analyzer's end-to-end test on the
# host (analysis/tests/e2e.sh reads /host/tierpush.*).
#
#   /sys/fs/cgroup/tierpush   memory.max = 64M
#     tierpush 60 100: 60M of 4K pages; with tiered limits the fast tier
#     fills to its max (about 48M) and the rest is steered to node 1; then
#     100 move_pages() calls each push one node-1 page at the full fast
#     tier and each is refused.  Without the feature everything fits on
#     node 0 and nothing is pushed.
#
# Recorded with record.sh; memory.numa_stat is saved while the workload
# still holds its memory, just before recording stops.
. /tracing/bin/lib.sh

cg=tierpush
times=100
out=$TIERED_OUT

if [ "${1-}" = --inner ]; then
	# Under trace-cmd record: start the workload, wait until it is done
	# pushing, save where its memory is and leave it running.
	rm -f /tmp/tierpush.ready
	cg_run $cg tierpush 60 $times /tmp/tierpush.ready >/tmp/tierpush.out &
	i=0
	while [ ! -e /tmp/tierpush.ready ] && [ $i -lt 600 ]; do
		usleep 100000
		i=$((i + 1))
	done
	cat "$CGROOT/$cg/memory.numa_stat" >"$out/tierpush.numa_stat"
	exit 0
fi

cg_make $cg || { tap 1 "create cgroup $cg"; exit 1; }
echo 64M >"$CGROOT/$cg/memory.max"
record.sh "$out/tierpush.dat" "$0" --inner
tap $? "record.sh captured the tierpush workload"
# shellcheck disable=SC2046 # one pid per line
kill $(cat "$CGROOT/$cg/cgroup.procs")
cp /tmp/tierpush.out "$out/tierpush.out"
read -r _ pushed _ refused _ moved </tmp/tierpush.out
echo "tierpush: pushed $pushed refused $refused moved $moved"
if [ "$TIERED_MODE" = on ]; then
	tap $([ "$pushed" = $times ] && [ "$refused" = $times ]; echo $?) \
		"all $times pushes into the full fast tier refused ($refused)"
else
	tap $([ "$pushed" = 0 ]; echo $?) \
		"without tiered limits all 60M fit on node 0 (pushed $pushed)"
fi
cg_wait_empty $cg
rmdir "$CGROOT/$cg"
tap $? "cgroup $cg removed"
