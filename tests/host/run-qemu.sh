#!/bin/bash
# run-qemu.sh itself: its help is complete, bad options are refused, and
# every way a guest can go wrong ends in its own exit status.
top=$(cd "$(dirname "$0")/../.." && pwd)
rq=$top/run-qemu.sh
out=$top/out/host-selftest
check() { if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }

help=$("$rq" --help); rc=$?
check $rc "run-qemu.sh --help exits 0"
missing=
for opt in $(grep -oE '^\s+--[a-z-]+\)' "$rq" | tr -d ' \t)'); do
	grep -q -- "$opt" <<<"$help" || missing="$missing $opt"
done
check $([ -z "$missing" ]; echo $?) "--help documents every option${missing:+ (missing:$missing)}"

"$rq" --no-such-option >/dev/null 2>&1
check $([ $? -eq 2 ]; echo $?) "an unknown option exits 2"
"$rq" --fast-mem 12Q >/dev/null 2>&1
check $([ $? -eq 2 ]; echo $?) "a bad memory size exits 2"
"$rq" --accel hvf >/dev/null 2>&1
check $([ $? -eq 2 ]; echo $?) "an unknown --accel exits 2"
"$rq" --slow-mem 0 >/dev/null 2>&1
check $([ $? -eq 2 ]; echo $?) "--slow-mem 0 without --hotplug exits 2"

# expect STATUS SCENARIO DESCRIPTION [OPTION]...
expect() {
	local want=$1 scenario=$2 what=$3 rc
	shift 3
	"$rq" --quiet --scenario "$scenario" --out "$out" "$@" >"$out.log" 2>&1
	rc=$?
	check $([ $rc -eq "$want" ]; echo $?) "$what exits $want (got $rc: $(grep "run-qemu: " "$out.log" | tail -n 1 | cut -c1-100))"
}
mkdir -p "$out"
expect 1 selftest-fail "a failing scenario"
expect 3 selftest-panic "a kernel panic"
# 60 s: the guest must have booted and started the scenario, whose
# stall watcher does the dump, before the timeout; "make test" builds the
# debug kernel (niced) beside these boots, and 30 s was once too short.
expect 5 selftest-hang "a scenario past --timeout" --timeout 60
grep -q 'tiered-guest: stall reported' "$out/console.log" &&
	grep -q 'sysrq: Show Blocked State' "$out/console.log" &&
	grep -q 'sysrq: Show backtrace of all active CPUs' "$out/console.log" &&
	grep -q 'Mem-Info' "$out/console.log" &&
	grep -q 'task:selftest-hang' "$out/console.log" &&
	grep -q 'tiered-guest: stall dump done' "$out/console.log"
check $? "a run past --timeout dumps the guest's tasks and memory before the kill"
grep -q "ran longer than 60s (tasks dumped, then killed; blocked: .*; on CPU: .*; console:" "$out.log"
check $? "a run past --timeout sums up the blocked tasks and CPUs in its report"
expect 1 selftest-fail "a failing scenario under --accel tcg-icount" --accel tcg-icount
expect 4 selftest-hang "a boot past --boot-timeout" --boot-timeout 1
expect 2 no-such-scenario/x "a bad scenario name"
expect 1 no-such-scenario "a scenario the guest lacks"
