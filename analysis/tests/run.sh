#!/bin/bash
# "make test" in analysis/: the unit tests, then the command-line tests on
# the committed captures and the byte flips in them, the exporter, top's
# replay, the plugin, the build and the installed tree.  The last line is
# "N passed, N failed".
#
#   tests/run.sh [--sanitize]   (make test-sanitize: the analyzer's own
#                                tests on $MEMCG_TIER_REPORT and
#                                $MEMCG_TIER_UNIT, a sanitizer build; the
#                                exporter is sh, the plugin runs inside
#                                trace-cmd, the build tests build: those
#                                left out; 40 byte flips per capture
#                                instead of 200, for time)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
unit=${MEMCG_TIER_UNIT:-$here/../build/unit}
scripts=(cli.sh figures.sh flips.sh operator.sh exporter.sh top.sh plugin.sh install.sh)
flips=200
if [ "${1:-}" = --sanitize ]; then
	scripts=(cli.sh figures.sh flips.sh operator.sh top.sh)
	flips=40
fi
pass=0
fail=0
while IFS= read -r line; do
	case $line in
	"ok "*) pass=$((pass + 1)) ;;
	"not ok "*) fail=$((fail + 1)) ;;
	esac
	echo "$line"
done < <("$unit" "$here/formats" 2>&1 || echo "not ok - unit tests exited with status $?";
	 for s in "${scripts[@]}"; do
		if [ $s = flips.sh ]; then "$here/$s" $flips; else "$here/$s"; fi 2>&1
	 done)
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
