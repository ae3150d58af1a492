#!/bin/sh
# The kernel's own cgroup memory selftests, test_memcontrol built from our
# tree (tools/testing/selftests/cgroup) with its own flags (at -O2 the
# compiler drops the writes of its alloc_anon(), which frees what it
# touched, and no OOM test can pass), with loopback up and the working
# directory on ext2 (its page-cache tests need O_TMPFILE on a disk).  No
# swap: with swap on, test_memcg_reclaim and test_memcg_swap_max_peak fail
# on the unpatched kernel too, so swap_max_peak skips.
# Their kselftest TAP goes to $TIERED_OUT/test_memcontrol.tap (and, when a
# test failed, a second run's to test_memcontrol.rerun.tap); the host
# (tests/run.sh) compares each result with the unpatched kernel's,
# tests/guest/selftests/test_memcontrol.unpatched.  Here: that it ran to the end.
. /tracing/bin/lib.sh

# Its reclaim tests expect reclaimed memory to leave the cgroup, as on the
# unpatched kernel's default boot; demoted memory stays charged
demotion=$(cat /sys/kernel/mm/numa/demotion_enabled)
balancing=$(cat /proc/sys/kernel/numa_balancing)
echo 0 >/sys/kernel/mm/numa/demotion_enabled
echo 0 >/proc/sys/kernel/numa_balancing
scratch_mount /scratch || { tap 1 "ext2 on the 'scratch' disk"; exit 1; }
# test_memcg_sock talks TCP over loopback
ip link set lo up
out=$TIERED_OUT/test_memcontrol.tap
(cd /scratch && timeout 600 test_memcontrol) >"$out" 2>&1
status=$?
# It prints no plan; it exits 1 when a test failed, more when it broke
n=$(grep -cE '^(not )?ok [0-9]+ ' "$out")
tap $([ "$n" -gt 0 ] && [ $status -le 1 ]; echo $?) \
	"test_memcontrol ran to the end: $n results (status $status)"
# A second run when a test failed that passes on the unpatched kernel:
# test_memcg_min and test_memcg_sock read counters that settle
# asynchronously, and fail now and then there too.  The host reports both
# runs.
unexpected=$(sed -nE 's/^not ok [0-9]+ ([a-z_]+).*/\1/p' "$out" | while read -r t; do
	grep -q "^$t fail" /tracing/test_memcontrol.unpatched || echo "$t"
done)
if [ -n "$unexpected" ]; then
	echo "# failed:" $unexpected "(unlike the unpatched kernel); test_memcontrol again"
	(cd /scratch && timeout 600 test_memcontrol) >"${out%.tap}.rerun.tap" 2>&1
	echo "# test_memcontrol's second run: status $?"
fi
# Its OOM tests' children poll for their parent's exit once a second,
# with their working directory on /scratch
sleep 2
umount /scratch
[ "$demotion" = true ] && demotion=1
[ "$demotion" = false ] && demotion=0
echo "$demotion" >/sys/kernel/mm/numa/demotion_enabled
echo "$balancing" >/proc/sys/kernel/numa_balancing
