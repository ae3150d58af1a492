# Sourced by tests/run.sh (and tests/host/selftests-compare.sh, which
# feeds it made-up results): the guest's test_memcontrol results against
# the unpatched kernel's.  Needs check STATUS DESCRIPTION.

# selftest_results TAP: "NAME pass|fail|skip" for each test_memcontrol result
selftest_results() {
	sed -nE -e 's/^ok [0-9]+ # SKIP ([a-z_]+).*/\1 skip/p' \
		-e '/# SKIP/!s/^ok [0-9]+ ([a-z_]+).*/\1 pass/p' \
		-e 's/^not ok [0-9]+ ([a-z_]+).*/\1 fail/p' "$1"
}

# selftests MODE OUT: each test_memcontrol result of the boot against the
# unpatched kernel's ($selftests_base, by default
# tests/guest/selftests/test_memcontrol.unpatched, with the reason of every
# result that is not a pass).  A result that differs is
# taken from the guest's second run (selftests.sh), if it made one, and the
# check names both results.
selftests() {
	local base=${selftests_base:-tests/guest/selftests/test_memcontrol.unpatched}
	local name res res2 want why
	[ -s $2/test_memcontrol.tap ] || return 0	# selftests.sh said why
	selftest_results $2/test_memcontrol.tap >$2/selftests.txt
	: >$2/selftests.rerun.txt
	[ -s $2/test_memcontrol.rerun.tap ] &&
		selftest_results $2/test_memcontrol.rerun.tap >$2/selftests.rerun.txt
	while read -r name want why; do
		res=$(awk -v n="$name" '$1 == n { print $2 }' $2/selftests.txt)
		res2=$(awk -v n="$name" '$1 == n { print $2 }' $2/selftests.rerun.txt)
		if [ "$res" = "$want" ] || [ -z "$res2" ]; then
			check $([ "$res" = "$want" ]; echo $?) \
				"test_memcontrol $name: ${res:-no result}, unpatched 6.12: $want${why:+ ($why)}"
		else
			check $([ "$res2" = "$want" ]; echo $?) \
				"test_memcontrol $name: ${res:-no result}, then $res2 on a second run, unpatched 6.12: $want${why:+ ($why)}"
		fi
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' $base |
		awk '{ n = $1; r = $2; $1 = $2 = ""; sub(/^ +/, ""); print n, r, $0 }')
}
