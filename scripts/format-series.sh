#!/bin/bash
# Write the commits of build/linux since tag "base" back to patches/, as
# two series: the core (base..core, tag "core" being the last core
# commit) in patches/core/ and the extensions (core..HEAD) in
# patches/ext/.  Each gets one git format-patch file per commit, a
# "series" file in their order, and 0000-cover-letter.patch (not in
# series: it has no diff).
#
#   scripts/format-series.sh [CORE_BLURB EXT_BLURB]
#
# A cover letter's subject and text are kept from the current
# 0000-cover-letter.patch of its series, or taken from its BLURB (subject
# on its first line, a blank line, then the text); git writes the
# shortlog and diffstat.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/linux

die() { printf 'format-series: error: %s\n' "$*" >&2; exit 1; }
[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
	die "$src has uncommitted changes"
git -C "$src" rev-parse -q --verify core >/dev/null ||
	die "$src has no tag 'core' (the last commit of the core series)"
git -C "$src" merge-base --is-ancestor core HEAD ||
	die "tag 'core' is not an ancestor of HEAD"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# format_series NAME RANGE [BLURB]
format_series() {
	local name=$1 range=$2 blurb=${3:-} patches=$top/patches/$1 subject
	local cover=$top/patches/$1/0000-cover-letter.patch out=$tmp/$1

	mkdir -p "$patches" "$out"
	if [ -z "$blurb" ]; then
		[ -f "$cover" ] || die "no $cover: give the cover letter text as BLURB"
		# Subject (unfolded), then the text between the headers and the
		# shortlog ("Author (N):")
		awk '/^Subject: /{ sub(/^Subject: \[PATCH [0-9]+\/[0-9]+\] /, "");
				   s = $0; folded = 1; next }
		     folded && /^ /{ s = s $0; next }
		     folded { print s; folded = 0 }' "$cover" | head -1 >"$out.blurb"
		echo >>"$out.blurb"
		awk 'body && /^[^ ].* \([0-9]+\):$/ { exit }
		     body { print }
		     !body && /^$/ { body = 1 }' "$cover" |
			sed -e '1{/^$/d}' >>"$out.blurb"
		blurb=$out.blurb
	fi
	[ -s "$blurb" ] || die "empty cover letter text for $name"

	git -C "$src" -c user.name="Tiered Memcg Team" \
		-c user.email=tiered-memcg@example.org format-patch -q \
		--zero-commit --no-signature --cover-letter -o "$out/p" "$range"
	subject=$(head -1 "$blurb")
	# Without its trailing blank lines: git's template has one after it
	tail -n +3 "$blurb" | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}' >"$out.text"
	awk -v subject="$subject" -v text="$out.text" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ {
			while ((getline line < text) > 0) print line
			next
		}
		{ print }' "$out/p/0000-cover-letter.patch" >"$out.cover"
	# Keep the date of an unchanged cover letter
	if [ -f "$cover" ] && diff -q <(grep -v '^Date: ' "$cover") \
			<(grep -v '^Date: ' "$out.cover") >/dev/null; then
		cp "$cover" "$out.cover"
	fi
	mv "$out.cover" "$out/p/0000-cover-letter.patch"

	rm -f "$patches"/[0-9][0-9][0-9][0-9]-*.patch
	cp "$out/p"/*.patch "$patches/"
	(cd "$out/p" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') \
		>"$patches/series"
	printf 'format-series: %s patches and the cover letter in %s\n' \
		"$(wc -l <"$patches/series")" "${patches#"$top"/}/"
}

format_series core base..core "${1:-}"
format_series ext core..HEAD "${2:-}"
