#!/bin/bash
# "make check": scripts/checkpatch.pl --strict on every patch of both
# series, core and extensions (errors fail; warnings are printed and must be justified in
# patches/README.md), scripts/kernel-doc -Wall on every file the series
# touches (a warning the pristine file does not have fails), then build
# every prefix of the two series, and both with CONFIG_NUMA=n,
# CONFIG_MEMCG=n and CONFIG_MEMCG_V1=n.
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
done < <(scripts/kernel.sh list)
[ "$errors" -eq 0 ] || { echo "checkpatch: $errors errors" >&2; exit 1; }

# kernel-doc: warnings are compared by text without line numbers, so a
# warning the series moves is not new, one it adds is.
src=$top/build/linux
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=$(git -C "$src" diff --name-only base..HEAD -- '*.c' '*.h')
kdoc() {	# FILE-IN-TREE PATH-TO-READ
	"$src/scripts/kernel-doc" -Wall -none "$2" 2>&1 |
		sed -E "s|^[^:]*:[0-9]+: |$1: |"
}
while read -r f; do
	kdoc "$f" "$src/$f"
	if git -C "$src" cat-file -e "base:$f" 2>/dev/null; then
		mkdir -p "$tmp/base/$(dirname "$f")"
		git -C "$src" show "base:$f" >"$tmp/base/$f"
		kdoc "$f" "$tmp/base/$f" >>"$tmp/base.txt"
	fi
done <<<"$files" | sort >"$tmp/head.txt"
sort -o "$tmp/base.txt" "$tmp/base.txt" 2>/dev/null || : >"$tmp/base.txt"
new=$(comm -23 "$tmp/head.txt" "$tmp/base.txt")
echo "kernel-doc -Wall: $(wc -l <<<"$files") files the series touches," \
	"$(grep -c . <<<"$new" || true) new warnings"
[ -z "$new" ] || { sed 's/^/  /' <<<"$new"; exit 1; }

# A tree and objects of its own, so that the kernel "make test" boots is
# left alone.
KERNEL_BUILD_DIR=$top/build/check scripts/kernel.sh check-prefixes
KERNEL_BUILD_DIR=$top/build/check scripts/kernel.sh check-configs
