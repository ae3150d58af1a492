#!/bin/bash
# The build and the installed tree: objects follow CFLAGS, the libtracecmd
# workaround is built only for a library that needs it, and "make install"
# with DESTDIR and PREFIX puts the analyzer, its man page, the exporter,
# the plugin and the systemd unit where they work.
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$here/..
fix=$here/fixtures
dat=$fix/tierpush.dat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Nothing of ours in this user's home, whatever an install gets wrong
export HOME=$tmp

. "$here/lib.sh"
# Not the flags of a make this runs under ("make -s test" would silence
# the command lines checked below)
m() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$top" "$@" 2>&1; }

# 18: a change of CFLAGS rebuilds the objects, the same CFLAGS do not
m -s OBJ="$tmp/obj" "$tmp/obj/args.o" >/dev/null
out=$(m OBJ="$tmp/obj" CFLAGS="-O0 -g" "$tmp/obj/args.o")
again=$(m OBJ="$tmp/obj" CFLAGS="-O0 -g" "$tmp/obj/args.o")
check $(grep -q -- '-O0 -g .*-o .*args.o' <<<"$out" && ! grep -q -- '-o .*args.o' <<<"$again"; echo $?) \
	"18: make rebuilds an object when CFLAGS change, and not when they do not"

# 17: the workaround for libtracecmd before 1.5.1 only where it is needed
version=$(pkg-config --modversion libtracecmd)
old=$([ "$(printf '%s\n' "$version" 1.5.1 | sort -V | head -n 1)" != 1.5.1 ] && echo yes)
uses=$(nm -u "$top/memcg-tier-report" | grep -c ' tracecmd_copy$')
check $([ "$uses" = "$([ "$old" = yes ] && echo 1 || echo 0)" ]; echo $?) \
	"17: libtracecmd $version is older than 1.5.1: ${old:-no}; the analyzer calls the workaround's tracecmd_copy: $uses"
out=$(m -s OBJ="$tmp/plain" REPORT="$tmp/plain/memcg-tier-report" LIBTRACECMD_VERSION=1.5.1 \
	CFLAGS="-O0 -g" "$tmp/plain/memcg-tier-report")
check $([ -x "$tmp/plain/memcg-tier-report" ] && ! grep -q workaround <<<"$out" &&
	[ "$(nm -u "$tmp/plain/memcg-tier-report" | grep -cE ' tracecmd_(copy|get_file_compress_proto)$')" = 0 ]; echo $?) \
	"17: built for libtracecmd 1.5.1 it reads captures the plain library way: no tracecmd_copy, no workaround built"
cmp -s <("$tmp/plain/memcg-tier-report" all -f json "$dat" 2>&1) <("$top/memcg-tier-report" all -f json "$dat" 2>&1)
check $? "17: the plain way reads the compressed capture to the same reports"

# 18, 19: make install into a DESTDIR
root=$tmp/root
m -s DESTDIR="$root" PREFIX=/usr/local install >"$tmp/install.log"
check $? "18: make install DESTDIR=... PREFIX=/usr/local ($(head -c 100 "$tmp/install.log"))"
bin=$root/usr/local/bin
"$bin/memcg-tier-report" summary "$dat" >"$tmp/summary" 2>&1
check $([ $? -eq 0 ] && grep -q '^summary' "$tmp/summary" &&
	"$bin/memcg-tier-report" --version | grep -q '^memcg-tier-report '; echo $?) \
	"19: the installed analyzer runs"
"$bin/memcg-tier-exporter" --snapshot "$fix/tierpush.tier_stat.end" -o "$tmp/t.prom" 2>"$tmp/exporter.err"
check $([ $? -eq 0 ] && grep -q '^memcg_tier_usage_bytes{' "$tmp/t.prom"; echo $?) \
	"19: the installed exporter writes metrics ($(head -c 80 "$tmp/exporter.err"))"
page=$(MANPATH=$root/usr/local/share/man man -w memcg-tier-report 2>&1)
check $([ "$page" = "$root/usr/local/share/man/man1/memcg-tier-report.1" ] &&
	cmp -s "$page" "$top/memcg-tier-report.1"; echo $?) \
	"19: man memcg-tier-report finds the installed man page (${page#$tmp/})"
plugins=$root/usr/local/lib/traceevent/plugins
named=$(TRACEEVENT_PLUGIN_DIR=$plugins HOME=$tmp trace-cmd report -O memcg_tier:map="$fix/tierpush.cgroups" "$dat" 2>/dev/null |
	grep -cE 'memcg_tier_charge: +/tierpush: ')
check $([ "$named" -gt 0 ]; echo $?) \
	"19: trace-cmd finds the installed plugin with TRACEEVENT_PLUGIN_DIR=\$PREFIX/lib/traceevent/plugins ($named charges named)"
unit=$root/usr/local/lib/systemd/system/memcg-tier-exporter.service
check $(grep -qx 'ExecStart=/usr/local/bin/memcg-tier-exporter --interval 15 -o /var/lib/prometheus/node-exporter/memcg_tier.prom' "$unit"; echo $?) \
	"19: the unit runs the installed exporter every 15 s into node_exporter's textfile directory"
if command -v systemd-analyze >/dev/null; then
	# verify checks that ExecStart and the man page exist: point both
	# into the DESTDIR, nothing else changed
	mkdir "$tmp/verify"
	sed "s|=/usr/local/bin/|=$bin/|" "$unit" >"$tmp/verify/memcg-tier-exporter.service"
	err=$(MANPATH=$root/usr/local/share/man systemd-analyze verify \
		"$tmp/verify/memcg-tier-exporter.service" 2>&1)
	check $([ $? -eq 0 ] && [ -z "$err" ]; echo $?) \
		"19: systemd-analyze verify passes the unit, without a warning (${err:0:120})"
else
	echo "ok - 19: systemd-analyze verify of the unit # SKIP no systemd-analyze on this host"
fi
usr=$tmp/usr
m -s DESTDIR="$usr" PREFIX=/usr install >/dev/null
te=$(pkg-config --variable=libdir libtraceevent)/traceevent/plugins
check $([ -f "$usr$te/plugin_memcg_tier.so" ] && [ -x "$usr/usr/bin/memcg-tier-report" ] &&
	[ -f "$usr/usr/share/man/man1/memcg-tier-report.1" ]; echo $?) \
	"18: PREFIX=/usr puts the plugin in libtraceevent's own directory ($te), where trace-cmd looks"
