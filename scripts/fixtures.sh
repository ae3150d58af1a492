#!/bin/bash
# "make fixtures": boot the guest with tiered limits, run the fixtures
# scenario and copy its captures into analysis/tests/fixtures/, where the
# analyzer's host tests read them.  Run it when the trace events change.
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/fixtures
dest=analysis/tests/fixtures
./run-qemu.sh --quiet --scenario fixtures --out $out \
	--append cgroup.memory=tiered_limits
mkdir -p $dest
for f in tierpush.dat tierpush.cgroups tierpush.tier_stat.start \
	 tierpush.tier_stat.end tierpush.numa_stat tierpush.out \
	 no-memcg-tier.dat instance.dat; do
	cp $out/$f $dest/$f
done
du -ch $dest/* | tail -n 1 | sed 's/^/fixtures: /'
