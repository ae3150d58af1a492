#!/bin/bash
# "make check": scripts/checkpatch.pl --strict on every patch of the
# series (errors fail; warnings are printed and must be justified in
# patches/README.md), then build every prefix of the series.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

scripts/kernel.sh tree >/dev/null	# checkpatch.pl comes with the tree
errors=0
while read -r p; do
	# From outside this repository: checkpatch.pl looks at the git tree
	# it is started in, and misreads patches that git tracks here.
	out=$(cd /tmp && "$top/build/linux/scripts/checkpatch.pl" --strict \
		--no-tree --terse --no-summary "$top/patches/$p" || true)
	nerr=$(grep -c ': ERROR:' <<<"$out" || true)
	nwarn=$(grep -cE ': (WARNING|CHECK):' <<<"$out" || true)
	echo "checkpatch: $p: $nerr errors, $nwarn warnings/checks"
	[ -z "$out" ] || sed 's/^/  /' <<<"$out"
	errors=$((errors + nerr))
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' patches/series 2>/dev/null)
[ "$errors" -eq 0 ] || { echo "checkpatch: $errors errors" >&2; exit 1; }

# A tree and objects of its own, so that the kernel "make test" boots is
# left alone.
KERNEL_BUILD_DIR=$top/build/check scripts/kernel.sh check-prefixes
