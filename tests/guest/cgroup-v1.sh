#!/bin/sh
# cgroup v1: tiered limits are cgroup v2 only.  Binding the memory
# controller to a v1 hierarchy with the feature on must log the warning
# once (not once per mount), turn the feature off rather than let the
# tier counters drift, and leave a working v1 memcg.  It needs a boot of
# its own (tests/run.sh boots it with tiered.tests=cgroup-v1): the v1
# mount fails once any v2 cgroup had the memory controller.
#
#   /tmp/v1 (cgroup v1, memory)/v1-smoke memory.limit_in_bytes = 64M,
#                                         memtouch 32 completes
. /tracing/bin/lib.sh

msg="tiered memory limits are cgroup v2 only"
v1=/tmp/v1
mkdir -p $v1
mount -t cgroup -o memory memory $v1
tap $? "the memory controller mounts on a v1 hierarchy"
umount $v1 && mount -t cgroup -o memory memory $v1
tap $? "and mounts again"
n=$(dmesg | grep -c "$msg")
if [ "$TIERED_MODE" = on ]; then
	tap $([ "$n" -eq 1 ]; echo $?) "the v2-only warning is logged once over two mounts ($n)"
else
	tap $([ "$n" -eq 0 ]; echo $?) "no v2-only warning without the parameter ($n)"
fi
mkdir $v1/v1-smoke &&
	echo $((64 << 20)) >$v1/v1-smoke/memory.limit_in_bytes &&
	sh -c 'echo $$ >"$0/tasks" && exec memtouch 32' $v1/v1-smoke
tap $? "a 32M workload under a 64M v1 limit completes"
rmdir $v1/v1-smoke
umount $v1
tap $? "the v1 hierarchy is removed"
