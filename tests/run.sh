#!/bin/bash
# "make test": the host-side tests, the analyzer's (also under ASan and
# UBSan), then the guest suite (the "test" scenario) booted once without
# and once with cgroup.memory=tiered_limits, then with the parameter on a
# debug build of the series (built meanwhile), with the stress test.
# Every check prints a TAP-style line; the last line counts them:
# "N passed, N failed".  Exits non-zero if anything failed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

pass=0
fail=0
# The failed checks and up to 5 of their diagnostic lines, repeated
# before the count: a CI log may keep only its tail.
failed=()
# count PREFIX: echo TAP lines from stdin with PREFIX, tallying them.
count() {
	local line diag=0
	while IFS= read -r line; do
		case $line in
		"ok "*) pass=$((pass + 1)); diag=0 ;;
		"not ok "*) fail=$((fail + 1)); diag=5; failed+=("$1$line") ;;
		"#"*) [ $diag -gt 0 ] && diag=$((diag - 1)) && failed+=("$1$line") ;;
		esac
		echo "$1$line"
	done
}
check() {	# check STATUS DESCRIPTION
	if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

# The debug kernel builds at the lowest CPU priority while the host tests
# and the boots of the normal kernel run: a guest keeps about one of the
# two cores busy, and nice 19 leaves it that core.
debug_log=build/debug-build.log
echo "# debug kernel: building build/bzImage-debug in the background at nice 19 (patches/debug.config; log: $debug_log)"
setsid nice -n 19 scripts/kernel.sh build-debug >$debug_log 2>&1 &
debug_build=$!	# its process group, stopped with the suite
trap 'kill -- -$debug_build 2>/dev/null' EXIT

for t in tests/host/*.sh; do
	echo "# host: $t"
	count "" < <(bash "$t" 2>&1)
done

# analyzer TARGET: make -C analysis TARGET's TAP lines without its count;
# a run that ends without one (a build that failed) fails too
analyzer() {
	local out
	out=$(make -s --no-print-directory -C analysis "$1" 2>&1)
	grep -vE '^[0-9]+ passed, [0-9]+ failed$' <<<"$out"
	grep -qE '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" ||
		echo "not ok - make -C analysis $1 ran no tests to the end"
}
echo "# analyzer: unit and command-line tests (analysis/)"
count "" < <(analyzer test)
echo "# analyzer: the same on a build under ASan and UBSan (make -C analysis test-sanitize)"
count "[sanitize] " < <(analyzer test-sanitize)

# boot MODE OUT [KERNEL-ARG]...: the test scenario in one boot; its TAP
# lines prefixed with the mode, and one line for the boot itself.  Fails
# (status 1) if the guest did not run the suite to the end.  $run_qemu
# holds extra run-qemu.sh options.
boot() {
	local mode=$1 out=$2 rc
	shift 2
	[ $mode = off ] || set -- "$@" cgroup.memory=tiered_limits
	echo "# guest, feature $mode, $out (console: $out/console.log)"
	# shellcheck disable=SC2086
	./run-qemu.sh --quiet --scenario test --out $out ${run_qemu:-} --append "$*" \
		>$out.log 2>&1
	rc=$?
	count "[$mode] " < <(grep -E '^(not )?ok ' $out/tap.txt 2>/dev/null)
	if [ $rc -le 1 ] && [ -s $out/tap.txt ]; then
		count "[$mode] " <<<"ok - guest booted, ran ${out##*/}, no kernel warning"
		return 0
	fi
	count "[$mode] " <<<"not ok - guest run ${out##*/}: $(grep 'run-qemu: FAIL' $out.log)"
	# run-qemu.sh's account (a kernel report, kmemleak's first object),
	# then the end of the console
	sed -n '/run-qemu: FAIL/,$p' $out.log | sed -n '2,70s/^/#   /p'
	tail -n 25 $out/console.log | sed 's/^/#   /'
	return 1
}

# selftests MODE OUT: each test_memcontrol result against the unpatched kernel's
. tests/selftests-compare.sh

for mode in off on; do
	out=out/test-$mode
	# cgroup v1, memory hotplug and placement need boots of their own
	# (see tracing/scenarios/test)
	boot $mode $out-v1 tiered.tests=cgroup-v1
	run_qemu="--hotplug 256M --slow-mem 0" boot $mode $out-hotplug tiered.tests=hotplug
	run_qemu="--fast-mem 1024M --slow-mem 1024M" \
		boot $mode $out-placement tiered.tests=placement
	boot $mode $out || continue
	count "[$mode] " < <(selftests $mode $out)
	# The capture made in the guest reads on the host too.
	n=$(trace-cmd report -i $out/trace-selftest.dat 2>/dev/null |
		grep -c 'cgroup_mkdir.*trace-selftest')
	count "[$mode] " < <(check $([ "$n" -eq 1 ]; echo $?) \
		"host trace-cmd report reads the guest's capture (cgroup_mkdir: $n)")
	# The analyzer on the tierpush capture, against the guest's figures
	count "[$mode] " < <(analysis/tests/e2e.sh $out $mode)
	[ $mode = on ] || continue
	# perf script and perf report on the guest's perf.data
	count "[$mode] " < <(tests/perf-report.sh $out)
	# The plugin names the cgroup the guest made while recording
	count "[$mode] " < <(analysis/tests/plugin.sh $out/trace-tier.dat)
	# The exporter's file from the guest's cgroups, served by node_exporter
	count "[$mode] " < <(analysis/tests/exporter-node.sh $out)
	# Every field by name, enums by their names, from the capture's formats
	line=$(trace-cmd report -i $out/trace-tier.dat 2>/dev/null |
		grep -m1 'memcg_tier_charge:.* cause=alloc outcome=charged')
	missing=
	for f in cgroup_id nid slot nr_pages usage high max cause outcome; do
		grep -q " $f=" <<<" ${line#*:}" || missing="$missing $f"
	done
	count "[$mode] " < <(check $([ -n "$line" ] && [ -z "$missing" ]; echo $?) \
		"host trace-cmd report decodes memcg_tier_charge by name${missing:+ (missing:$missing)}")
done

# kunit_result CONSOLE SUITE: one TAP line for KUnit suite SUITE from the
# KTAP a boot printed ("ok N SUITE" once its cases ran), with its cases'
# verdicts; the serial console ends its lines with CR LF
kunit_result() {
	local line cases
	line=$(tr -d '\r' <"$1" | grep -m1 -E "^[[:space:]]*(not )?ok [0-9]+ $2\$" |
		sed 's/^[[:space:]]*//')
	cases=$(tr -d '\r' <"$1" | sed -n "/# Subtest: $2\$/,/ok [0-9]* $2\$/p" |
		grep -cE '^[[:space:]]+ok [0-9]+ ')
	check $([ "${line%% *}" = ok ]; echo $?) \
		"KUnit suite $2 at boot: ${line:-no result} ($cases cases passed)"
}

# The same series built with lockdep, KASAN, kmemleak and the VM checks
# (patches/debug.config): the guest suite with the parameter, then the
# stress test (tests/guest/stress.sh) with node 1's memory coming and
# going.  A kernel report or a leak fails the boot and is shown.
# The tests of tools that only read what the kernel exports (exporter, perf,
# top, trace, tierpush's capture) ran with the parameter above already.
# no5lvl: with 5-level paging, 6.12's identify_cpu() clears the boot CPU's
# LA57 flag for a moment, and KASAN reports an interrupt that lands then
# as a wild access to the direct map (seen once, at boot, before any of
# the series' code ran).
echo "# debug kernel: waiting for its build (~15 min from scratch)"
tail -n +1 --pid=$debug_build -f $debug_log | sed 's/^/# /'
if wait $debug_build; then
	run_qemu="--kernel build/bzImage-debug --timeout 1500" \
		boot debug out/test-debug no5lvl tiered.skip=exporter,perf,top,trace,tierpush
	# The KUnit suite memcg_tier (core patch 11) ran at boot: its KTAP result
	count "[debug] " < <(kunit_result out/test-debug/console.log memcg_tier)
	# 120 s of the shell stress, then 300 s of tierstress, in which each
	# of its operations must run at least 100 times on the debug kernel
	run_qemu="--kernel build/bzImage-debug --hotplug 512M --slow-mem 0 --timeout 1500" \
		boot debug out/test-debug-stress no5lvl tiered.tests=stress \
		tiered.stress=120 tiered.tierstress=300 tiered.stress_min=100
else
	count "" <<<"not ok - debug kernel build (log: $debug_log)"
fi

if [ $fail -gt 0 ]; then
	echo "# failed:"
	printf '%s\n' "${failed[@]}"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
