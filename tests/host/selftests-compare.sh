#!/bin/bash
# tests/selftests-compare.sh, on made-up test_memcontrol results: a test
# that fails once and passes on the guest's second run passes, one that
# fails twice, or fails with no second run, or gives no result, fails.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
check() { if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
selftests_base=$dir/unpatched
printf '%s\n' '# NAME RESULT [why]' 'test_a pass' 'test_b pass' \
	'test_c fail it always fails' >"$selftests_base"
. tests/selftests-compare.sh

# verdicts FIRST_RUN [SECOND_RUN]: "NAME:ok|not ok" for each test of the
# base, from selftests() on those kselftest TAP lines (";" between lines)
verdicts() {
	local out=$dir/out
	rm -rf "$out" && mkdir "$out"
	tr ';' '\n' <<<"$1" >"$out/test_memcontrol.tap"
	[ $# -lt 2 ] || tr ';' '\n' <<<"$2" >"$out/test_memcontrol.rerun.tap"
	selftests on "$out" | sed -E 's/^(not ok|ok) - test_memcontrol ([a-z_]+):.*/\2:\1/' |
		tr '\n' ' '
}
all_pass='ok 1 test_a;ok 2 test_b;not ok 3 test_c'
a_fails='not ok 1 test_a;ok 2 test_b;not ok 3 test_c'

got=$(verdicts "$all_pass")
check $([ "$got" = "test_a:ok test_b:ok test_c:ok " ]; echo $?) \
	"selftests compare: results as unpatched pass, the expected failure included ($got)"
got=$(verdicts "$a_fails" "$all_pass")
check $([ "$got" = "test_a:ok test_b:ok test_c:ok " ]; echo $?) \
	"selftests compare: a failure that passes on the second run passes ($got)"
line=$(selftests on "$dir/out" | grep test_a)	# the same results again
check $(grep -q 'test_a: fail, then pass on a second run' <<<"$line"; echo $?) \
	"selftests compare: and the check names both results ($line)"
got=$(verdicts "$a_fails" "$a_fails")
check $([ "$got" = "test_a:not ok test_b:ok test_c:ok " ]; echo $?) \
	"selftests compare: a failure on both runs fails ($got)"
got=$(verdicts "$a_fails")
check $([ "$got" = "test_a:not ok test_b:ok test_c:ok " ]; echo $?) \
	"selftests compare: a failure without a second run fails ($got)"
got=$(verdicts 'ok 1 test_a;not ok 3 test_c' 'ok 1 test_a;not ok 3 test_c')
check $([ "$got" = "test_a:ok test_b:not ok test_c:ok " ]; echo $?) \
	"selftests compare: a test that gives no result fails ($got)"
