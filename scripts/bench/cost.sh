#!/bin/bash
# "make bench", cost: fault-in throughput (tracing/scenarios/cost) on
# the unpatched 6.12 kernel (built once in build/unpatched) and the
# patched one booted without the parameter, with it, and with it and the
# memcg_tier events on; the same 4 levels deep and on a three-tier
# guest; boots interleaved, BENCH_COST_ROUNDS rounds (default 3; and
# BENCH_COST_CONFIGS boots only the configurations it names), timed
# on the guest clock under instruction counting; for the share-full
# layout, a profile of each kernel that says where the instructions go;
# "size vmlinux" of both
#
# Sourced by scripts/bench.sh, which has read scripts/bench/lib.sh.

# cost_minutes: add this section's rough duration to $minutes
cost_minutes() {
	local n
	n=$(wc -w <<<"${BENCH_COST_CONFIGS:-${cost_configs[*]}}")
	[ -s build/unpatched/bzImage ] || minutes=$((minutes + 20))
	# and a profiled boot of each share-full kernel
	minutes=$((minutes + ${BENCH_COST_ROUNDS:-3} * n + 2))
}

# The ways of running the cost scenario, CONFIG[-LAYOUT]: the kernel
# (unpatched, or patched without the parameter, with it, with it and the
# events) and the layout (the cgroup one level deep on two tiers; "deep":
# 4 levels; "3tier": a third, farther node; "full": the fast share held
# full, so that every fault is steered)
cost_configs=(unpatched off on events unpatched-deep on-deep unpatched-3tier on-3tier
	unpatched-full on-full)
cost_qemu() { case $1 in *-3tier) echo "--far-mem 512M" ;; esac; }

cost() {
	# BENCH_COST_CONFIGS: some of cost_configs, a configuration and the
	# unpatched one of its layout (say "unpatched-full on-full")
	local rounds=${BENCH_COST_ROUNDS:-3} configs
	read -ra configs <<<"${BENCH_COST_CONFIGS:-${cost_configs[*]}}"
	local n=${#configs[@]} r i k cfg dir reps
	[ "${BENCH_REUSE:-0}" = 1 ] || {
		say "cost: building the unpatched 6.12 kernel in build/unpatched" \
			"(once; from scratch about as long as the patched build)"
		KERNEL_BUILD_DIR=$PWD/build/unpatched scripts/kernel.sh build-prefix 0 >&2
		say "cost: $rounds rounds x $n boots (about 1 minute a boot under TCG)"
		for r in $(seq 1 "$rounds"); do
			# Rotate the order each round so that no configuration always
			# runs first or last (host caches, thermal, neighbours).
			for i in $(seq 0 $((n - 1))); do
				k=$(((i + r - 1) % n))
				cfg=${configs[$k]}
				dir=$out/cost-$cfg-$r
				say "cost: round $r of $rounds, $cfg"
				rm -f $dir/cost.txt
				# Under plain TCG one kernel's boots differ by a quarter
				# in wall-clock throughput, which drowns a 1% target;
				# counting instructions measures the fault path instead.
				# shellcheck disable=SC2046
				./run-qemu.sh --quiet --scenario cost --out $dir --timeout 600 \
					--accel tcg-icount $(cost_qemu "$cfg") \
					--kernel "$(cost_kernel $cfg)" --append "$(cost_args $cfg)" >&2 ||
					say "cost: round $r, $cfg failed ($dir/console.log)"
			done
		done
		# The share-full layout's cost, explained: one profiled boot of
		# each kernel (perf's samples lengthen the path, so these
		# boots give no MiB/s)
		for cfg in unpatched-full on-full; do
			case " ${configs[*]} " in *" $cfg "*) ;; *) continue ;; esac
			say "cost: $cfg under perf record"
			./run-qemu.sh --quiet --scenario cost --out $out/cost-$cfg-profile --timeout 600 \
				--accel tcg-icount --kernel "$(cost_kernel $cfg)" \
				--append "$(cost_args $cfg) cost.profile=1" >&2 ||
				say "cost: $cfg under perf record failed ($out/cost-$cfg-profile/console.log)"
		done
	}
	echo
	echo "## Cost: fault-in throughput and kernel size"
	echo
	scenario_line $out/cost-on-1 cost | sed -n 's/\(faultin.*\), depth.*/\1/p'
	echo "(tracing/scenarios/cost), THP off, $rounds boots per configuration,"
	echo "interleaved, under QEMU instruction counting (\`run-qemu.sh --accel"
	echo "tcg-icount\`: the guest clock advances 1 ns per guest instruction, so"
	echo "MiB/s is MiB per 10^9 instructions, a measure of the fault path's length"
	echo "that the host's load does not move).  Figure: median over every"
	echo "repetition of every boot; the range is that of the per-boot medians."
	echo "Each ratio is against the unpatched kernel in the same layout: the"
	echo "cgroup one level deep on two tiers; 4 levels deep (cost.depth=4); or"
	echo "on three tiers (\`run-qemu.sh --far-mem 512M\`: a CPU-less node 2"
	echo "with 9x node 0's latency); or with the fast share full (cost.full=1:"
	echo "$(sed -n 's/^cost: \(faultin.*\), depth.*holding \(.*\)/\1, holding \2/p' \
		$out/cost-on-full-1/console.log 2>/dev/null | head -n 1 | grep . || echo "see tracing/scenarios/cost")),"
	echo "where every fault with tiered limits is steered to the slow tier."
	echo
	printf '| %-34s | %5s | %9s | %17s | %8s | %-11s |\n' configuration boots "MiB/s" "per-boot range" "ratio" target
	printf '| %-34s | %5s | %9s | %17s | %8s | %-11s |\n' --- ---: ---: ---: ---: ---
	for cfg in "${configs[@]}"; do
		for r in $(seq 1 "$rounds"); do
			[ -s $out/cost-$cfg-$r/cost.txt ] || continue
			echo "$cfg boot $(median <$out/cost-$cfg-$r/cost.txt)"
		done
		# cost-on-[0-9]*, not cost-on-*: that would take in on-deep
		reps=$(cat $out/cost-$cfg-[0-9]*/cost.txt 2>/dev/null || true)
		[ -z "$reps" ] || echo "$cfg all $(median <<<"$reps")"
	done | awk -v configs="${configs[*]}" '
	$2 == "boot" { n[$1]++; if (!($1 in lo) || $3 < lo[$1]) lo[$1] = $3; if ($3 > hi[$1]) hi[$1] = $3 }
	$2 == "all" { med[$1] = $3 }
	END {
		nc = split(configs, c, " ")
		name["unpatched"] = "unpatched 6.12"
		name["off"] = "patched, no parameter"
		name["on"] = "patched, tiered_limits"
		name["events"] = "patched, tiered_limits + events"
		tgt["unpatched"] = "-"; tgt["off"] = "0.995x"; tgt["on"] = "0.99x"; tgt["events"] = "reported"
		where["deep"] = ", 4 deep"; where["3tier"] = ", 3 tiers"; where["full"] = ", share full"
		for (i = 1; i <= nc; i++) {
			k = c[i]
			split(k, part, "-")
			base = "unpatched" (part[2] != "" ? "-" part[2] : "")
			label = name[part[1]] where[part[2]]
			t = part[1] == "unpatched" ? "-" : (part[2] == "" ? tgt[part[1]] : (part[2] == "full" ? "0.98x" : "reported"))
			if (!(k in med)) { printf "| %-34s | %5d | %9s | %17s | %8s | %-11s |\n", label, 0, "-", "-", "-", t; continue }
			r = med[base] > 0 ? sprintf("%.3fx", med[k] / med[base]) : "-"
			printf "| %-34s | %5d | %9.1f | %17s | %8s | %-11s |\n", label, n[k], med[k],
				sprintf("%.1f - %.1f", lo[k], hi[k]), r, t
		}
	}'
	cost_profile "${configs[@]}"
	echo
	echo "Kernel text size (\`size vmlinux\`, bytes):"
	echo
	printf '| %-16s | %10s | %10s | %10s |\n' image text data bss
	printf '| %-16s | %10s | %10s | %10s |\n' --- ---: ---: ---:
	size build/unpatched/obj/vmlinux build/obj/vmlinux | awk '
	NR == 2 { t = $1; d = $2; b = $3; printf "| %-16s | %10d | %10d | %10d |\n", "unpatched", $1, $2, $3 }
	NR == 3 { printf "| %-16s | %10d | %10d | %10d |\n", "patched", $1, $2, $3
		  printf "| %-16s | %+10d | %+10d | %+10d |\n", "difference", $1 - t, $2 - d, $3 - b }'
	# The linker pads .text to a 2 MiB boundary, so size's text column
	# hides small changes: the functions' own sizes do not.
	echo
	for f in build/unpatched/obj/vmlinux build/obj/vmlinux; do
		nm -S -t d $f | awk '$3 ~ /^[tT]$/ { n += $2 } END { printf "%d\n", n }'
	done | awk 'NR == 1 { u = $1 } NR == 2 {
		printf "`size` counts .text padded to a 2 MiB boundary; the functions themselves\n"
		printf "(`nm -S`, t/T symbols) take %d bytes unpatched, %d patched: %+d bytes,\n", u, $1, $1 - u
		printf "%+.2f%% (config: tinyconfig + patches/tiered.config).\n", 100 * ($1 - u) / u }'
}

# cost_profile CONFIG...: if both share-full configurations ran under
# perf, where the patched kernel's extra instructions per faulted page go,
# by symbol: under instruction counting each cpu-clock sample at 1000 Hz
# stands for 10^6 guest instructions
cost_profile() {
	local u=$out/cost-unpatched-full-profile p=$out/cost-on-full-profile mib
	[ -s $u/profile.txt ] && [ -s $p/profile.txt ] || return 0
	# every page faultin touched: the held share, then SIZE x REPS
	mib=$(sed -n 's/^cost: faultin \([0-9]*\)M x \([0-9]*\) .*holding \([0-9]*\)M.*/\1 \2 \3/p' \
		$p/console.log | head -n 1 | awk '{ print $1 * $2 + $3 }')
	[ -n "$mib" ] || return 0
	echo
	echo "Where the share-full layout's extra instructions go: faultin under"
	echo "\`perf record -a -F 1000 -e cpu-clock\` (\`cost.profile=1\`, one boot per kernel,"
	echo "the held share included), guest instructions per faulted page by symbol"
	echo "(a sample is 10^6 of them), the 12 largest differences:"
	echo
	awk -v pages=$((mib * 256)) '
	FNR == 1 { f++ }
	# "OVERHEAD SAMPLES COMMAND [k] SYMBOL": faultin'"'"'s rows
	/^#/ || NF < 5 || $1 !~ /%$/ || $3 != "faultin" { next }
	{ sym = $NF; n[f, sym] += $2; tot[f] += $2; seen[sym] = 1 }
	END {
		for (sym in seen) {
			d = (n[2, sym] - n[1, sym]) * 1e6 / pages
			print (d < 0 ? -d : d), sym, n[1, sym] * 1e6 / pages, n[2, sym] * 1e6 / pages, d
		}
		print "total", "all", tot[1] * 1e6 / pages, tot[2] * 1e6 / pages, (tot[2] - tot[1]) * 1e6 / pages
	}' $u/profile.txt $p/profile.txt | sort -k1,1gr | awk '
	BEGIN { printf "| %-32s | %9s | %9s | %9s |\n", "symbol", "unpatched", "patched", "difference"
		printf "| %-32s | %9s | %9s | %9s |\n", "---", "---:", "---:", "---:" }
	$1 == "total" { t = $0; next }
	n < 12 { printf "| %-32s | %9.0f | %9.0f | %+9.0f |\n", $2, $3, $4, $5; n++ }
	END { split(t, a, " "); printf "| %-32s | %9.0f | %9.0f | %+9.0f |\n", "all of faultin'"'"'s samples", a[3], a[4], a[5] }'
}
