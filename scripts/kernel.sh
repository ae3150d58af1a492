#!/bin/bash
# Build the guest kernel: Debian's linux-source-6.12 with the core series
# (patches/core/series) and the extension series on top of it
# (patches/ext/series) applied, configured as tinyconfig +
# patches/tiered.config.
#
#   scripts/kernel.sh build          apply the whole series, build bzImage
#   scripts/kernel.sh build-debug    the same series with patches/debug.config
#                                    on top (lockdep, KASAN, kmemleak, ...),
#                                    in build/obj-debug: build/bzImage-debug
#   scripts/kernel.sh build-prefix N apply the first N patches, build
#   scripts/kernel.sh check-prefixes build every prefix of the series
#   scripts/kernel.sh check-configs  build the series with CONFIG_NUMA=n,
#                                    CONFIG_MEMCG=n and CONFIG_MEMCG_V1=n
#   scripts/kernel.sh tree           extract and apply the series only
#   scripts/kernel.sh perf           build perf from the tree's tools/perf
#   scripts/kernel.sh list           the patches in order, core/ then ext/
#
# "The series" is both series in order; a prefix of N patches counts the
# core's first.  The tree's tag "core" marks the last core patch, where
# scripts/format-series.sh splits the two again.
#
# The source tree is a git repository whose first commit is the pristine
# extract (tag "base"); the series is applied with "git am" on top.  A
# changed series is re-applied with "git reset --hard base" first, which
# rewrites only the files that differ, so kbuild (objects kept out of tree
# in build/obj) recompiles only what the patches touch.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# KERNEL_BUILD_DIR lets "make check" build prefixes in a tree of its own.
build=${KERNEL_BUILD_DIR:-$top/build}
src=$build/linux
obj=$build/obj
patches=$top/patches
fragment=$patches/tiered.config
debug_fragment=$patches/debug.config
jobs=${JOBS:-$(nproc)}

say() { printf 'kernel: %s\n' "$*"; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

series_patches() {
	local s
	for s in core ext; do
		[ -f "$patches/$s/series" ] || continue
		sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e "s|^|$s/|" \
			"$patches/$s/series"
	done
}

extract() {
	[ -d "$src/.git" ] && git -C "$src" rev-parse -q --verify base >/dev/null &&
		return 0
	[ -f "$tarball" ] || die "$tarball not found (run: make deps)"
	say "extracting $(basename "$tarball") into ${build#"$top"/}/ (once)"
	rm -rf "$src" "$build/linux-source-6.12"
	mkdir -p "$build"
	tar -C "$build" -xf "$tarball"
	mv "$build/linux-source-6.12" "$src"
	say "recording the pristine tree as git tag 'base' (once, ~1 min)"
	# Debian's top-level .gitignore ignores everything: force-add.
	git -C "$src" init -q
	# No background "git gc" competing with the compiler for the 2 cores.
	git -C "$src" config gc.auto 0
	git -C "$src" add -f -A .
	git -C "$src" -c user.name=build -c user.email=build@localhost \
		commit -q -m "linux-source-6.12 (pristine)"
	git -C "$src" tag base
}

# apply_series N: make the tree hold exactly the first N patches.
apply_series() {
	local want=$1 i=0 p list=() stamp
	while read -r p; do
		list+=("$p")
	done < <(series_patches)
	[ "$want" = all ] && want=${#list[@]}
	[ "$want" -le "${#list[@]}" ] ||
		die "series has ${#list[@]} patches, asked for $want"

	stamp=$({ echo "$want"; for p in "${list[@]:0:$want}"; do
		echo "$p"; cat "$patches/$p" || die "a series file names missing $p"
	done; } | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$build/applied" 2>/dev/null)" = "$stamp" ] &&
	   [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
		say "series already applied ($want patches)"
		return 0
	fi
	rm -f "$build/applied"
	git -C "$src" am --abort >/dev/null 2>&1 || true
	git -C "$src" reset -q --hard base
	git -C "$src" tag -d core >/dev/null 2>&1 || true
	for p in "${list[@]:0:$want}"; do
		i=$((i + 1))
		say "applying [$i/$want] $p"
		if ! git -C "$src" -c user.name=build -c user.email=build@localhost \
			am -q --keep-cr "$patches/$p" >"$build/am.log" 2>&1; then
			cat "$build/am.log" >&2
			git -C "$src" am --abort >/dev/null 2>&1 || true
			die "patch $p does not apply (patch $i of the series)"
		fi
		# The last core patch: where the extension series starts
		if [ "${p%%/*}" = core ] && [ "${list[$i]:-}" = "${list[$i]#core/}" ]; then
			git -C "$src" tag core
		fi
	done
	echo "$stamp" >"$build/applied"
}

# configure [FRAGMENT...]: tinyconfig + tiered.config + FRAGMENTs in $obj,
# redone only when a fragment changed.
configure() {
	local stamp missing fragments=("$fragment" "$@")
	stamp=$(cat "${fragments[@]}" | sha256sum | cut -d' ' -f1)
	if [ -f "$obj/.config" ] && [ "$(cat "$obj/.fragment" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	say "configuring ${obj#"$top"/}: tinyconfig + ${fragments[*]#"$top"/}"
	mkdir -p "$obj"
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"${fragments[@]}" >"$build/merge_config.log"
	make -s -C "$src" O="$obj" olddefconfig >/dev/null
	# merge_config only warns when a symbol's dependencies drop it.
	missing=$(cat "${fragments[@]}" | grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set)' |
		while read -r line; do
			grep -qxF "$line" "$obj/.config" || echo "  $line"
		done)
	[ -z "$missing" ] || die "config fragment options not honoured:
$missing"
	echo "$stamp" >"$obj/.fragment"
}

progress() {
	local line n=0
	while IFS= read -r line; do
		case $line in
		"  CC"*|"  AS"*|"  AR"*|"  LD"*)
			n=$((n + 1))
			[ $((n % 200)) -ne 0 ] ||
				say "  $n objects, $((SECONDS - start))s" ;;
		esac
	done
}

# compile [IMAGE]: bzImage in $obj, copied to IMAGE (default build/bzImage)
compile() {
	local start=$SECONDS log=$obj/kernel-build.log image=${1:-$build/bzImage}
	say "building bzImage with $jobs jobs (log: $log)"
	# Print a line every 200 objects instead of every file or nothing.
	if ! make -C "$src" O="$obj" -j"$jobs" LOCALVERSION= bzImage 2>&1 |
		tee "$log" | progress
	then
		grep -E 'error|Error' "$log" | head -40 >&2
		die "build failed (full log: $log)"
	fi
	cp "$obj/arch/x86/boot/bzImage" "$image"
	say "built ${image#"$top"/} in $((SECONDS - start))s"
}

# perf from this tree, static (the guest has no libraries beside
# trace-cmd's), with the optional libraries off: it reads tracepoints
# through libtraceevent, which is all our events need.  Debian 12's perf
# is 6.1 and cannot read what a 6.12 perf writes; this one serves the
# host too.
build_perf() {
	local start=$SECONDS log=$build/perf-build.log out=$build/perf
	say "building perf with $jobs jobs (log: $log)"
	mkdir -p "$out"
	if ! make -C "$src/tools/perf" O="$out" -j"$jobs" LDFLAGS=-static \
		NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBBPF=1 NO_BPF_SKEL=1 NO_SLANG=1 \
		NO_GTK2=1 NO_LIBUNWIND=1 NO_DWARF=1 NO_LIBDW=1 NO_LIBNUMA=1 \
		NO_LIBCRYPTO=1 NO_LIBCAP=1 NO_LIBBABELTRACE=1 NO_LIBZSTD=1 \
		NO_LIBLZMA=1 NO_JVMTI=1 NO_LIBPFM4=1 NO_SDT=1 NO_CAPSTONE=1 \
		NO_LIBLLVM=1 NO_DEMANGLE=1 perf 2>&1 | tee "$log" | progress
	then
		grep -E 'error|Error' "$log" | head -40 >&2
		die "perf build failed (full log: $log)"
	fi
	say "built ${out#"$top"/}/perf in $((SECONDS - start))s"
}

case ${1:-build} in
tree)
	extract; apply_series all ;;
list)
	series_patches ;;
build)
	extract; apply_series all; configure; compile ;;
build-debug)
	obj=$build/obj-debug
	extract; apply_series all; configure "$debug_fragment"
	compile "$build/bzImage-debug" ;;
build-prefix)
	[ $# -eq 2 ] || die "usage: $0 build-prefix N"
	extract; apply_series "$2"; configure; compile ;;
perf)
	extract; apply_series all; build_perf ;;
check-prefixes)
	# Patch by patch on top of the previous prefix, so that each build
	# recompiles only what the next patch touches.
	extract; configure
	n=$(series_patches | wc -l)
	apply_series 0
	for k in $(seq 1 "$n"); do
		p=$(series_patches | sed -n "${k}p")
		say "bisectability: building prefix $k of $n ($p)"
		git -C "$src" -c user.name=build -c user.email=build@localhost \
			am -q --keep-cr "$patches/$p" >"$build/am.log" 2>&1 ||
			{ cat "$build/am.log" >&2; git -C "$src" am --abort; \
			  die "patch $p does not apply (patch $k of the series)"; }
		rm -f "$build/applied"	# the tree no longer matches a stamp
		compile
	done ;;
check-configs)
	# The stubs and #ifdefs of the series, compiled and linked: the guest
	# config with one option off, in an object directory per option so
	# that a later run recompiles only what changed.
	extract; apply_series all; configure
	for option in NUMA MEMCG MEMCG_V1; do
		vobj=$build/obj-no-$option
		mkdir -p "$vobj"
		cp "$obj/.config" "$vobj/.config"
		"$src/scripts/config" --file "$vobj/.config" --disable "$option"
		make -s -C "$src" O="$vobj" olddefconfig >/dev/null
		grep -qx "# CONFIG_$option is not set" "$vobj/.config" ||
			die "CONFIG_$option=n did not stick"
		say "config variant: building vmlinux with CONFIG_$option=n"
		start=$SECONDS
		if ! make -C "$src" O="$vobj" -j"$jobs" LOCALVERSION= vmlinux \
			2>&1 | tee "$vobj/build.log" | progress
		then
			grep -E 'error|Error' "$vobj/build.log" | head -40 >&2
			die "build with CONFIG_$option=n failed (log: $vobj/build.log)"
		fi
		# Warnings in the files the series touches fail it
		! grep -E ': warning: ' "$vobj/build.log" |
			grep -F -f <(git -C "$src" diff --name-only base..HEAD) >&2 ||
			die "warnings with CONFIG_$option=n (log: $vobj/build.log)"
		say "CONFIG_$option=n: vmlinux built in $((SECONDS - start))s," \
			"no warning from the series"
	done ;;
*)
	die "unknown command '$1' (build, build-debug, build-prefix N, check-prefixes, check-configs, tree, perf)" ;;
esac
