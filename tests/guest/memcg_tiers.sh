#!/bin/sh
# The kernel's selftest of tiered limits, test_memcg_tiers, built from
# tools/testing/selftests/cgroup of our tree: run with swap on and its
# working directory on ext2, so that its tests of reclaim scope (clean page
# cache on the slow tier) and of MPOL_BIND to the slow tier (swap) run too.
# Its kselftest TAP goes to $TIERED_OUT/test_memcg_tiers.tap; each result
# becomes a line here, "ok N name" -> "ok - name", "not ok N name" ->
# "not ok - name", "ok N # SKIP name: reason" -> "ok - name # SKIP reason".
#
# Expected:
#   on:  it does not skip as a whole and runs its whole plan (status 0, or
#        1 with the failed tests' lines)
#   off: it skips as a whole: status 4 (KSFT_SKIP) and "1..0 # SKIP reason"
. /tracing/bin/lib.sh

out=$TIERED_OUT/test_memcg_tiers.tap
swap=0
swap_on && swap=1 || echo "no swap: the tests that need it skip"
scratch_mount /scratch || { tap 1 "ext2 on the 'scratch' disk"; exit 1; }
start=$(cut -d. -f1 /proc/uptime)
(cd /scratch && timeout 300 test_memcg_tiers) >"$out" 2>&1
status=$?
took=$(($(cut -d. -f1 /proc/uptime) - start))
# The last test's children may still be exiting
i=0
until umount /scratch 2>/dev/null || [ $i -ge 10 ]; do
	sleep 1
	i=$((i + 1))
done
if [ $i -ge 10 ]; then
	echo "/scratch stays busy:"
	ls -l /proc/[0-9]*/cwd /proc/[0-9]*/fd 2>/dev/null | grep scratch
fi
[ $swap = 1 ] && swap_off

results=0
while IFS= read -r line; do
	case $line in
	"ok "[0-9]*" # SKIP "*)
		results=$((results + 1))
		what=${line#* # SKIP }
		name=${what%%: *}
		reason=
		[ "$name" = "$what" ] || reason=${what#*: }
		echo "ok - $name # SKIP $reason" ;;
	"ok "[0-9]*|"not ok "[0-9]*)
		results=$((results + 1))
		verdict=${line%% [0-9]*}
		rest=${line#"$verdict "}
		echo "$verdict - ${rest#* }" ;;
	*) echo "$line" ;;
	esac
done <"$out"

plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out")
echo "test_memcg_tiers: status $status after $took s"
if [ "$TIERED_MODE" = on ]; then
	tap $([ "$status" -le 1 ] && [ -n "$plan" ] && [ "$plan" -gt 0 ] &&
	      [ "$results" = "$plan" ]; echo $?) \
		"with the parameter test_memcg_tiers runs its plan: $results of ${plan:-no plan} results (status $status, $took s)"
else
	reason=$(sed -n 's/^1\.\.0 # SKIP //p' "$out")
	tap $([ "$status" = 4 ] && [ -n "$reason" ]; echo $?) \
		"without the parameter test_memcg_tiers skips as a whole (status $status): ${reason:-no reason}"
fi
