#!/bin/sh
# trace-cmd records in the guest and its capture lands on the host share;
# the host then checks that its own trace-cmd reads it (tests/run.sh).
. /tracing/bin/lib.sh

out=$TIERED_OUT/trace-selftest.dat
rm -f "$out"
trace-cmd record -q -o "$out" -e cgroup:cgroup_mkdir -e cgroup:cgroup_rmdir \
	sh -c "mkdir $CGROOT/trace-selftest && rmdir $CGROOT/trace-selftest && sleep 1" \
	>/tmp/record.log 2>&1
status=$?
tap $status "trace-cmd record exits 0"
[ "$status" -eq 0 ] || sed 's/^/  /' /tmp/record.log

tap $([ -s "$out" ]; echo $?) "the capture is on the host share"

n=$(trace-cmd report -i "$out" 2>/dev/null | grep -c 'cgroup_mkdir.*trace-selftest')
tap $([ "$n" -eq 1 ]; echo $?) "the capture holds the cgroup_mkdir event (found $n)"

# With the feature: a capture of the memcg_tier events for the host to
# decode (tests/run.sh checks the field and enum names).
if [ "$TIERED_MODE" = on ]; then
	# The cgroup is made while recording: its cgroup_mkdir names it
	trace-cmd record -q -o "$TIERED_OUT/trace-tier.dat" -e memcg_tier \
		-e cgroup:cgroup_mkdir sh -c ". /tracing/bin/lib.sh; cg_make trace-tier &&
			echo 64M >$CGROOT/trace-tier/memory.max && cg_run trace-tier memtouch 16" \
		>/tmp/record.log 2>&1
	tap $? "trace-cmd record -e memcg_tier exits 0"
	line=$(trace-cmd report -i "$TIERED_OUT/trace-tier.dat" 2>/dev/null |
		grep -m1 'memcg_tier_charge:')
	echo "  $line"
	case $line in
	*"memcg_tier_charge: "*" /trace-tier: cgroup_id="*) tap 0 "the guest's trace-cmd names the cgroup through plugin_memcg_tier" ;;
	*) tap 1 "the guest's trace-cmd names the cgroup through plugin_memcg_tier" ;;
	esac
	rmdir "$CGROOT/trace-tier"
fi
