#!/bin/bash
# Build the guest's initramfs: busybox-static, trace-cmd and our analyzer
# (for its live top) with the shared libraries ldd names, perf built
# static from our tree, our trace-cmd plugin, the exporter, our init, the scenarios and scripts from tracing/,
# and the guest programs compiled into GUEST_DIR/bin (workloads, put in
# /tracing/bin) and GUEST_DIR/tests (tests, put in /tests).
#
#   initramfs/build.sh GUEST_DIR OUTPUT.cpio.gz
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
bindir=${1:?usage: build.sh GUEST_DIR OUTPUT}
output=${2:?usage: build.sh GUEST_DIR OUTPUT}
root=$(mktemp -d "${TMPDIR:-/tmp}/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

die() { printf 'initramfs: error: %s\n' "$*" >&2; exit 1; }

busybox=/bin/busybox
[ -x "$busybox" ] || die "$busybox missing (run: make deps)"
ldd "$busybox" >/dev/null 2>&1 && die "$busybox is dynamic; need busybox-static"
tracecmd=$(command -v trace-cmd) || die "trace-cmd missing (run: make deps)"
analyzer=$top/analysis/memcg-tier-report
[ -x "$analyzer" ] || die "$analyzer missing (run: make analyzer)"
perf=$top/build/perf/perf
[ -x "$perf" ] || die "$perf missing (run: make perf)"
ldd "$perf" >/dev/null 2>&1 && die "$perf is dynamic; build it with scripts/kernel.sh perf"

mkdir -p "$root"/{bin,sbin,usr/bin,lib64,proc,sys,dev,tmp,host,etc,tracing/bin}
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done

# trace-cmd, the analyzer and every shared object they load, at the same
# paths.
copy_with_libs() {
	local f=$1 lib
	install -D -m 755 "$f" "$root/usr/bin/$(basename "$f")"
	for lib in $(ldd "$f" | grep -o '/[^ ]*'); do
		install -D -m 755 "$(readlink -f "$lib")" "$root$lib"
	done
}
copy_with_libs "$tracecmd"
copy_with_libs "$analyzer"
install -m 755 "$top/analysis/memcg-tier-exporter" "$root/usr/bin/"
install -s -m 755 "$perf" "$root/usr/bin/perf"
# The plugin, where the guest's libtraceevent looks (its built-in path)
plugins=/usr/lib/$(gcc -print-multiarch)/traceevent/plugins
install -D -m 644 "$top/analysis/build/plugins/plugin_memcg_tier.so" \
	"$root$plugins/plugin_memcg_tier.so"

install -m 755 "$top/initramfs/init" "$root/init"
cp -r "$top/tracing/scenarios" "$root/tracing/scenarios"
find "$top/tracing" "$top/tracing/workloads" -maxdepth 1 -name '*.sh' \
	-exec install -m 755 {} "$root/tracing/bin/" \;
mkdir -p "$root/tests"
# What test_memcontrol gives on the unpatched kernel, for selftests.sh
install -m 644 "$top/tests/guest/selftests/test_memcontrol.unpatched" "$root/tracing/"
find "$top/tests/guest" -maxdepth 1 -name '*.sh' -exec install -m 755 {} "$root/tests/" \;
for d in bin:tracing/bin tests:tests; do
	[ -d "$bindir/${d%%:*}" ] && find "$bindir/${d%%:*}" -maxdepth 1 -type f \
		-exec install -m 755 {} "$root/${d#*:}/" \;
done

echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
# test_memcontrol's socket test resolves "localhost"
echo "127.0.0.1 localhost" >"$root/etc/hosts"
echo "root:x:0:" >"$root/etc/group"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$output.tmp"
mv "$output.tmp" "$output"
echo "initramfs: $(basename "$output") $(du -h "$output" | cut -f1)"
