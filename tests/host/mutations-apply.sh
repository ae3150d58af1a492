#!/bin/bash
# "make mutations" applies each tests/mutations/*.diff to the series in
# build/linux: a change to the series that moves the code a diff breaks
# must move the diff too, or the mutation silently tests nothing.  Checked
# with git apply --check, which leaves the tree as it is.
top=$(cd "$(dirname "$0")/../.." && pwd)
check() { if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }

for diff in "$top"/tests/mutations/*.diff; do
	name=$(basename "$diff" .diff)
	err=$(git -C "$top/build/linux" apply --check "$diff" 2>&1)
	check $? "mutation $name applies to the series${err:+ (${err%%$'\n'*})}"
done
