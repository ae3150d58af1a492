#!/bin/bash
# memcg-tier-exporter with the real consumer: the guest's memory.tier_stat
# snapshot (tests/guest/exporter.sh) made into a textfile on the host,
# served by Debian's prometheus-node-exporter on 127.0.0.1, scraped with
# curl and linted with promtool.  The server is started here and stopped
# by its PID.
#
#   analysis/tests/exporter-node.sh DIR   (DIR holds exporter.tier_stat and
#                                          exporter.prom from the guest)
#
# Prints TAP-style "ok - ..." / "not ok - ..." lines.
set -uo pipefail
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
exporter=$here/../memcg-tier-exporter
node_exporter=/usr/bin/prometheus-node-exporter

. "$here/lib.sh"

snap=$dir/exporter.tier_stat
if [ ! -s "$snap" ]; then
	check 1 "exporter: the guest left no snapshot $snap"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/exporter-node.XXXXXX")
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/textfile"
prom=$work/textfile/memcg_tier.prom

"$exporter" --snapshot "$snap" -o "$prom"
check $? "the exporter reads the guest's snapshot"
# The same lines; their order follows the walk, which differs
cmp -s <(sort "$prom") <(sort "$dir/exporter.prom")
check $? "from the snapshot it writes the lines it wrote from the guest's cgroups"

# A free port on the loopback, then the server on it
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$node_exporter" --web.listen-address="127.0.0.1:$port" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$work/textfile" >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 50); do
	curl -sf "http://127.0.0.1:$port/metrics" >"$work/metrics" && break
	sleep 0.1
done
check $([ -s "$work/metrics" ]; echo $?) "node_exporter on 127.0.0.1:$port serves /metrics"
[ -s "$work/metrics" ] || sed 's/^/#   /' "$work/server.log"

grep -q '^node_textfile_scrape_error 0$' "$work/metrics"
check $? "node_textfile_scrape_error 0"

# Every sample of the snapshot, as node_exporter prints it (labels in
# name order, values as floats, no limit as +Inf): compare by value, not
# by text
missing=$(awk '
	FNR == NR {
		tier = substr($3, 5)
		for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		n = split("usage:usage_bytes min:min_bytes low:low_bytes high:high_bytes max:max_bytes reclaims:reclaims_total reclaimed:reclaimed_bytes_total refused:refused_folios_total steered:steered_away_total promoted:promoted_bytes_total demoted:demoted_bytes_total", m, " ")
		for (i = 1; i <= n; i++) {
			split(m[i], km, ":")
			if (!(km[1] in v))
				continue
			k = "memcg_tier_" km[2] "{cgroup=\"" $2 "\",tier=\"" tier "\"}"
			want[k] = v[km[1]] == "max" ? "+Inf" : v[km[1]]
		}
		want["memcg_tier_capacity_bytes{tier=\"" tier "\"}"] = v["capacity"]
		want["memcg_tier_info{nodes=\"" v["nodes"] "\",tier=\"" tier "\"}"] = 1
		split("", v)
		next
	}
	/^memcg_tier_/ { got[$1] = $2 }
	END {
		for (k in want)
			if (!(k in got) || (want[k] == "+Inf" ? got[k] != "+Inf" : got[k] + 0 != want[k] + 0))
				print k " want " want[k] " got " (k in got ? got[k] : "none")
		for (k in got)
			if (k ~ /nodes=/ && k !~ /^memcg_tier_info\{/)
				print k " has a nodes label"
	}' "$snap" "$work/metrics")
n=$(grep -c '^memcg_tier_' "$work/metrics")
check $([ -z "$missing" ] && [ "$n" -gt 0 ]; echo $?) \
	"node_exporter serves every memcg_tier sample with the snapshot's value ($n samples)"
[ -z "$missing" ] || sed 's/^/#   /' <<<"$missing" | head -n 20

if command -v promtool >/dev/null; then
	promtool check metrics <"$prom" >"$work/promtool.log" 2>&1
	check $? "promtool check metrics passes on the file"
	sed 's/^/#   /' "$work/promtool.log"
else
	echo "# promtool is not installed: the lint is left out"
fi

kill "$server" && wait "$server" 2>/dev/null
server=
curl -sf "http://127.0.0.1:$port/metrics" >/dev/null 2>&1
check $([ $? -ne 0 ]; echo $?) "node_exporter stopped by its PID"
