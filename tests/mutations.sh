#!/bin/bash
# "make mutations": break one enforcement point of the series at a time and
# show which guest tests catch it.  A suite that passes on a kernel whose
# steering, reclaim, refusal, gate or protection does nothing proves
# nothing about them.
#
#   tests/mutations.sh [NAME]...   (default: every tests/mutations/*.diff)
#
# Each tests/mutations/NAME.diff applies on top of the whole series in
# build/linux.  The mutated kernel is built in build/obj (only what the
# diff touches recompiles), copied to build/mutations/NAME.bzImage, and
# the diff is reverted at once.  The test scenario then boots it with
# cgroup.memory=tiered_limits (hotplug-* diffs: the hotplug boot,
# placement-* diffs: the placement boot of tests/run.sh).  A
# mutation is caught when at least one TAP line fails or the guest breaks.
# The last line counts them: "N caught, N missed"; exits 1 if any missed.
# build/obj holds the last mutation's objects until the next "make kernel"
# ("make mutations" runs it).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
src=build/linux
obj=build/obj
out=out/mutations
mkdir -p build/mutations $out

say() { printf 'mutations: %s\n' "$*" >&2; }
[ -d $src/.git ] && [ -f build/bzImage ] || { say "run 'make kernel' first"; exit 2; }
[ -z "$(git -C $src status --porcelain --untracked-files=no)" ] ||
	{ say "$src has local changes; run 'make kernel' to restore it"; exit 2; }

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for d in tests/mutations/*.diff; do
		names+=("$(basename "$d" .diff)")
	done
fi
caught=0
missed=0
for name in "${names[@]}"; do
	diff=tests/mutations/$name.diff
	[ -f "$diff" ] || { say "no mutation '$name' ($diff)"; exit 2; }
	say "$name: building ($(grep -c '^[-+][^-+]' "$diff") changed lines)"
	git -C $src apply "$top/$diff" || { say "$diff does not apply"; exit 1; }
	make -s -C $src O="$top/$obj" -j"$(nproc)" LOCALVERSION= bzImage \
		>$out/$name.build.log 2>&1
	rc=$?
	git -C $src apply -R "$top/$diff"
	[ $rc -eq 0 ] || { say "$name: build failed ($out/$name.build.log)"; exit 1; }
	cp $obj/arch/x86/boot/bzImage build/mutations/$name.bzImage
	opts=()
	tests=
	case $name in
	hotplug-*) opts=(--hotplug 256M --slow-mem 0); tests=tiered.tests=hotplug ;;
	placement-*) opts=(--fast-mem 1024M --slow-mem 1024M)
		tests=tiered.tests=placement ;;
	esac
	say "$name: booting the test scenario"
	./run-qemu.sh --quiet --scenario test --out $out/$name \
		--kernel build/mutations/$name.bzImage "${opts[@]}" \
		--append "cgroup.memory=tiered_limits $tests" >$out/$name.log 2>&1
	rc=$?
	failed=$(grep '^not ok ' $out/$name/tap.txt 2>/dev/null | sed 's/^not ok [0-9]* - //')
	if [ -n "$failed" ] || [ $rc -gt 1 ]; then
		caught=$((caught + 1))
		echo "ok - mutation $name is caught by $(grep -c . <<<"$failed") test(s)${failed:+:}"
		[ -z "$failed" ] || sed 's/^/#   /' <<<"$failed"
		[ $rc -le 1 ] || echo "#   the guest broke: $(grep 'run-qemu: FAIL' $out/$name.log)"
	else
		missed=$((missed + 1))
		echo "not ok - mutation $name: every test passed"
	fi
done
echo "$caught caught, $missed missed"
[ $missed -eq 0 ]
