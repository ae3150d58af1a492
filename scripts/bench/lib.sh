#!/bin/bash
# Shared by every "make bench" section (scripts/bench/*.sh): progress,
# statistics and the kernels the sections boot.  Sourced by scripts/bench.sh.

# Progress goes to standard error, figures to standard output
say() { printf 'bench: %s\n' "$*" >&2; }

# scenario_line DIR NAME: what the boot in DIR printed first after
# "NAME: ", or nothing if it printed none (a boot that never ran)
scenario_line() {
	sed -n "s/^$2: //p" "$1/console.log" 2>/dev/null | head -n 1 || true
}

# median: of the numbers on standard input, one a line
median() {
	sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# range [FORMAT]: "MIN-MAX" of the numbers on standard input, one a line,
# each printed with the printf FORMAT (default %s)
range() {
	sort -n | awk -v f="${1:-%s}" 'NR == 1 { lo = $1 } { hi = $1 }
		END { if (NR) printf f "-" f "\n", lo, hi }'
}

# The kernels the cost and hotplug sections boot, by configuration:
# unpatched, or patched without the parameter (off), with it (on), with
# it and the events (events); -deep, -3tier and -full are layouts of
# cost's
cost_kernel() { if [ "${1%%-*}" = unpatched ]; then echo build/unpatched/bzImage; else echo build/bzImage; fi; }
cost_args() {
	local args
	case ${1%%-*} in
	unpatched|off) args="" ;;
	on) args="cgroup.memory=tiered_limits" ;;
	events) args="cgroup.memory=tiered_limits cost.events=1" ;;
	esac
	case $1 in
	*-deep) args="$args cost.depth=4" ;;
	*-full) args="$args cost.full=1" ;;
	esac
	echo "$args"
}
