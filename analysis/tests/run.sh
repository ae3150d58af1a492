#!/bin/bash
# "make test" in analysis/: the unit tests, then the command-line tests on
# the committed captures and the byte flips in them.  The last line is
# "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pass=0
fail=0
while IFS= read -r line; do
	case $line in
	"ok "*) pass=$((pass + 1)) ;;
	"not ok "*) fail=$((fail + 1)) ;;
	esac
	echo "$line"
done < <("$here/../build/unit" "$here/formats" 2>&1 || echo "not ok - unit tests exited with status $?";
	 "$here/cli.sh" 2>&1; "$here/flips.sh" 2>&1; "$here/operator.sh" 2>&1; "$here/exporter.sh" 2>&1; "$here/top.sh" 2>&1; "$here/plugin.sh" 2>&1)
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
