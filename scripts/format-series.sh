#!/bin/bash
# Write the commits of build/linux since tag "base" back to patches/: one
# git format-patch file per commit, patches/series in their order, and
# patches/0000-cover-letter.patch (not in series: it has no diff).
#
#   scripts/format-series.sh [BLURB]
#
# The cover letter's subject and text are kept from the current
# 0000-cover-letter.patch, or taken from BLURB (subject on its first line,
# a blank line, then the text); git writes the shortlog and diffstat.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/linux
patches=$top/patches
cover=$patches/0000-cover-letter.patch
blurb=${1:-}

die() { printf 'format-series: error: %s\n' "$*" >&2; exit 1; }
[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
	die "$src has uncommitted changes"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$blurb" ]; then
	[ -f "$cover" ] || die "no $cover: give the cover letter text as BLURB"
	# Subject (unfolded), then the text between the headers and the
	# shortlog ("Author (N):")
	awk '/^Subject: /{ sub(/^Subject: \[PATCH [0-9]+\/[0-9]+\] /, "");
			   s = $0; folded = 1; next }
	     folded && /^ /{ s = s $0; next }
	     folded { print s; folded = 0 }' "$cover" | head -1 >"$tmp/blurb"
	echo >>"$tmp/blurb"
	awk 'body && /^[^ ].* \([0-9]+\):$/ { exit }
	     body { print }
	     !body && /^$/ { body = 1 }' "$cover" |
		sed -e '1{/^$/d}' >>"$tmp/blurb"
	blurb=$tmp/blurb
fi
[ -s "$blurb" ] || die "empty cover letter text"

git -C "$src" -c user.name="Tiered Memcg Team" \
	-c user.email=tiered-memcg@example.org format-patch -q --zero-commit --no-signature --cover-letter \
	-o "$tmp/out" base..HEAD
subject=$(head -1 "$blurb")
# Without its trailing blank lines: git's template has one after it
tail -n +3 "$blurb" | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/text"
awk -v subject="$subject" -v text="$tmp/text" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
	/^\*\*\* BLURB HERE \*\*\*$/ {
		while ((getline line < text) > 0) print line
		next
	}
	{ print }' "$tmp/out/0000-cover-letter.patch" >"$tmp/cover"
# Keep the date of an unchanged cover letter
if [ -f "$cover" ] && diff -q <(grep -v '^Date: ' "$cover") \
		<(grep -v '^Date: ' "$tmp/cover") >/dev/null; then
	cp "$cover" "$tmp/cover"
fi
mv "$tmp/cover" "$tmp/out/0000-cover-letter.patch"

rm -f "$patches"/[0-9][0-9][0-9][0-9]-*.patch
cp "$tmp/out"/*.patch "$patches/"
(cd "$tmp/out" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') \
	>"$patches/series"
printf 'format-series: %s patches and the cover letter in %s\n' \
	"$(wc -l <"$patches/series")" "${patches#"$top"/}/"
