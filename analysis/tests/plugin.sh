#!/bin/bash
# plugin_memcg_tier.so under Debian's trace-cmd, on the committed guest
# capture: with -O memcg_tier:map every memcg_tier line names its cgroup,
# with -O memcg_tier:tier_stat its tiers; without options, and with -N (no
# plugins), the output is what it is without the plugin.
#
#   analysis/tests/plugin.sh [CAPTURE]   (a capture whose cgroups were made
#                                         while recording: no map needed)
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugins=$here/../build/plugins
fix=$here/fixtures
dat=$fix/tierpush.dat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A plugin installed in this user's home must not stand in for ours
export HOME=$tmp
unset TRACEEVENT_PLUGIN_DIR

. "$here/lib.sh"
# report DIR ARGS...: trace-cmd report with the plugins of DIR
report() {
	local dir=$1
	shift
	TRACEEVENT_PLUGIN_DIR=$dir trace-cmd report "$@" 2>"$tmp/stderr"
}

if [ $# -eq 1 ]; then
	# A guest capture: the cgroup_mkdir events name the cgroups
	report "$plugins" "$1" >"$tmp/with"
	n=$(grep -c 'memcg_tier_[a-z_]*: ' "$tmp/with")
	named=$(grep -cE 'memcg_tier_[a-z_]*: +/[^ ]*: ' "$tmp/with")
	check $([ "$n" -gt 0 ] && [ "$named" -eq "$n" ]; echo $?) \
		"plugin: every memcg_tier event of $(basename "$1") named from its cgroup_mkdir ($named of $n)"
	exit 0
fi

[ -s "$plugins/plugin_memcg_tier.so" ] || { check 1 "plugin: $plugins/plugin_memcg_tier.so is built"; exit 0; }
report "$tmp/none" "$dat" >"$tmp/without"
report "$plugins" "$dat" >"$tmp/plain"
cmp -s "$tmp/without" "$tmp/plain"
check $? "plugin: without options the report is the same as without the plugin"

report "$plugins" -O memcg_tier:map="$fix/tierpush.cgroups" "$dat" >"$tmp/mapped"
n=$(grep -c 'memcg_tier_[a-z_]*: ' "$tmp/mapped")
named=$(grep -cE 'memcg_tier_[a-z_]*: +/tierpush: cgroup_id=17 ' "$tmp/mapped")
check $([ "$n" -gt 1000 ] && [ "$named" -eq "$n" ]; echo $?) \
	"plugin: with -O memcg_tier:map every memcg_tier line names /tierpush ($named of $n)"
# The event's own text follows, unchanged
diff <(sed -E 's#(memcg_tier_[a-z_]*: +)/tierpush: #\1#' "$tmp/mapped") "$tmp/without" >/dev/null
check $? "plugin: after the name each line is the event's text as before"

report "$plugins" -O memcg_tier:map="$fix/tierpush.cgroups" \
	-O memcg_tier:tier_stat="$fix/tierpush.tier_stat.start" "$dat" >"$tmp/tiers"
charge=$(grep -cE 'memcg_tier_charge: +/tierpush tier[01]\[[01]\]: .* slot=[01] ' "$tmp/tiers")
refuse=$(grep -cE 'memcg_tier_migrate_refuse: +/tierpush tier1\[1\]->tier0\[0\]: .*src_slot=1 dst_slot=0 ' "$tmp/tiers")
steer=$(grep -cE 'memcg_tier_steer: +/tierpush tier0\[0\]->tier1\[1\]: .*nid=0 target_nid=1 ' "$tmp/tiers")
check $([ "$charge" -gt 0 ] &&
	[ "$charge" -eq "$(grep -c memcg_tier_charge: "$tmp/tiers")" ] &&
	[ "$refuse" -eq "$(grep -c memcg_tier_migrate_refuse: "$tmp/tiers")" ] &&
	[ "$steer" -eq "$(grep -c memcg_tier_steer: "$tmp/tiers")" ]; echo $?) \
	"plugin: with -O memcg_tier:tier_stat each tier is labelled with its nodes (charges $charge, refusals $refuse, steers $steer)"

# A move whose tiers are not both labelled gets no tier label at all
grep ' tier0 ' "$fix/tierpush.tier_stat.start" >"$tmp/tier0-only"
report "$plugins" -O memcg_tier:map="$fix/tierpush.cgroups" \
	-O memcg_tier:tier_stat="$tmp/tier0-only" "$dat" >"$tmp/half"
refuse=$(grep -cE 'memcg_tier_migrate_refuse: +/tierpush: cgroup_id=' "$tmp/half")
check $([ "$refuse" -gt 0 ] && [ "$refuse" -eq "$(grep -c memcg_tier_migrate_refuse: "$tmp/half")" ] &&
	grep -qE 'memcg_tier_charge: +/tierpush tier0\[0\]: .* slot=0 ' "$tmp/half"; echo $?) \
	"plugin: a move with one tier unlabelled gets the path alone ($refuse refusals)"

report "$tmp/none" -N "$dat" >"$tmp/raw-without"
report "$plugins" -N -O memcg_tier:map="$fix/tierpush.cgroups" "$dat" >"$tmp/raw-with"
cmp -s "$tmp/raw-without" "$tmp/raw-with"
check $? "plugin: trace-cmd report -N (no plugins) is unchanged"

report "$plugins" -O memcg_tier:map="$tmp/missing" "$dat" >"$tmp/missing-map"
rc=$?
check $([ $rc -eq 0 ] && grep -q "map=$tmp/missing: cannot open" "$tmp/stderr" &&
	cmp -s "$tmp/missing-map" "$tmp/without"; echo $?) \
	"plugin: a map it cannot open is said on stderr, the report is printed as without it"

# What is not a regular file is refused, not read forever or waited on
mkfifo "$tmp/fifo"
for map in /dev/zero "$tmp/fifo"; do
	TRACEEVENT_PLUGIN_DIR=$plugins timeout 20 trace-cmd report -O memcg_tier:map="$map" "$dat" \
		>"$tmp/odd-map" 2>"$tmp/stderr"
	rc=$?
	check $([ $rc -eq 0 ] && grep -q "map=$map: not a regular file" "$tmp/stderr" &&
		cmp -s "$tmp/odd-map" "$tmp/without"; echo $?) \
		"8: plugin: map=$map is refused on stderr, the report printed as without it (exit $rc)"
done
