#!/bin/bash
# "make soak [SECONDS=N] [SEED=N]": the stress boot of "make test"
# (tests/guest/stress.sh) on the debug kernel for longer: the shell
# stress and its exact accounting checks for half of N seconds (default
# 1800), then the seeded tierstress for the other half; SEED replays a
# tierstress seed.  Prints the seed, every operation's count and the
# checks; the last line is "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
secs=${1:-1800}
seed=${2:-}
out=out/soak
case $secs in ''|*[!0-9]*) echo "soak: SECONDS must be a number of seconds" >&2; exit 2 ;; esac
case $seed in *[!0-9]*) echo "soak: SEED must be a number" >&2; exit 2 ;; esac
[ -f build/bzImage-debug ] || { echo "soak: no build/bzImage-debug (make kernel-debug)" >&2; exit 2; }
echo "# soak: the stress boot on build/bzImage-debug for $secs s${seed:+, seed $seed} (console: $out/console.log)"
./run-qemu.sh --quiet --scenario test --out $out --kernel build/bzImage-debug \
	--hotplug 512M --slow-mem 0 --timeout $((secs + 1500)) \
	--append "no5lvl cgroup.memory=tiered_limits tiered.tests=stress tiered.stress=$((secs / 2)) tiered.tierstress=$((secs - secs / 2))${seed:+ tiered.seed=$seed}" \
	>$out.log 2>&1
rc=$?
# The seed, each operation's count and the checks tierstress made
grep -E '^# (seed [0-9]+|  (op|check|skipped) )' $out/console.log
pass=$(grep -c '^ok ' $out/tap.txt 2>/dev/null)
fail=$(grep -c '^not ok ' $out/tap.txt 2>/dev/null)
grep -E '^(not )?ok ' $out/tap.txt 2>/dev/null
if [ $rc -gt 1 ] || [ ! -s $out/tap.txt ]; then
	echo "not ok - the soak boot: $(grep 'run-qemu: FAIL' $out.log)"
	tail -n 25 $out/console.log | sed 's/^/#   /'
	fail=$((fail + 1))
fi
echo "${pass:-0} passed, ${fail:-0} failed"
[ "${fail:-0}" -eq 0 ]
