#!/bin/bash
# "make bench", exporter: the CPU time of one memcg-tier-exporter pass
# over a fake cgroup tree of 2000 cgroups (analysis/tests/bench-
# exporter.sh; no guest), with the host's awk and with busybox's, as the
# guest runs it
#
# Sourced by scripts/bench.sh, which has read scripts/bench/lib.sh.

# exporter_minutes: add this section's rough duration to $minutes
exporter_minutes() {
	:	# no guest, seconds
}

exporter() {
	local bb=$out/busybox applet
	echo
	echo "## Exporter: one pass over 2000 cgroups"
	echo
	echo "\`analysis/tests/bench-exporter.sh\`: \`memcg-tier-exporter\` once over a"
	echo "fake cgroup tree (\`--cgroup-root\`) of 20 parents and 1980 children, 2"
	echo "tiers each; CPU time of the exporter and every process it starts, the"
	echo "fastest of 3 passes after a warm-up; target under 1 s of CPU."
	echo
	echo "- $(basename "$(readlink -f /bin/sh)") and $(basename "$(readlink -f "$(command -v awk)")"): $(analysis/tests/bench-exporter.sh 2000)"
	if [ -x /bin/busybox ]; then
		mkdir -p $bb
		for applet in awk sed find ls mv rm dirname basename grep; do
			ln -sf /bin/busybox $bb/$applet
		done
		printf '#!/bin/sh\nPATH=%s:$PATH exec /bin/busybox sh %s "$@"\n' \
			"$PWD/$bb" "$PWD/analysis/memcg-tier-exporter" >$bb/exporter
		chmod +x $bb/exporter
		echo "- busybox sh and awk (the guest's): $(analysis/tests/bench-exporter.sh 2000 $bb/exporter)"
	fi
}
