#!/bin/bash
# Boot the built kernel and initramfs in the two-tier NUMA guest, run one
# scenario, bring its results back through a 9p share and exit with the
# guest's verdict.  See --help.
set -uo pipefail

top=$(cd "$(dirname "$0")" && pwd)
kernel=$top/build/bzImage
initrd=$top/build/initramfs.cpio.gz
scenario=default
append=
out=
fast_mem=1536M
slow_mem=512M
far_mem=0
disk_size=512M
hotplug=
cpus=2
accel=tcg
timeout=900
boot_timeout=120
quiet=0

usage() {
	cat <<'USAGE'
Usage: run-qemu.sh [OPTION]... [-- KERNEL-ARG...]

Boot the guest: node 0 holds the CPUs and the fast memory tier, node 1 is
CPU-less memory that HMAT describes as slower (3x latency, under a third
of the bandwidth), so the guest kernel puts it in a lower memory tier.
The guest runs tracing/scenarios/NAME and the host directory given by
--out is mounted in the guest at /host (9p); results land there.

Options:
  --scenario NAME     scenario to run in the guest (default: default)
  --append ARGS       extra kernel command line, e.g.
                      --append cgroup.memory=tiered_limits; arguments after
                      "--" are appended the same way
  --out DIR           host directory shared with the guest, created if
                      missing and emptied of a previous verdict
                      (default: out/SCENARIO)
  --kernel FILE       kernel image (default: build/bzImage)
  --initrd FILE       initramfs (default: build/initramfs.cpio.gz)
  --fast-mem SIZE     memory of node 0, the fast tier (default: 1536M)
  --slow-mem SIZE     memory of node 1, the slow tier (default: 512M); 0
                      boots node 1 without memory, for --hotplug to give
                      it its first
  --far-mem SIZE      memory of a node 2, CPU-less and slower than node 1
                      (HMAT: 9x latency), a third tier (default: 0, no
                      node 2)
  --cpus N            CPUs, all on node 0 (default: 2)
  --disk SIZE         size of each of the two scratch virtio disks, serial
                      "swap" and "scratch", sparse files deleted after the
                      run; tests make swap and an ext2 file system on them
                      (default: 512M)
  --hotplug SIZE      leave room for a DIMM of SIZE and, when the guest's
                      console prints "tiered-guest: hotplug", add it to
                      node 1 through the QEMU monitor, again after each
                      time the guest ejected it (memory hotplug tests;
                      the monitor's replies go to DIR/monitor.log)
  --accel tcg|tcg-icount|kvm
                      tcg (default) works everywhere; tcg-icount is tcg
                      with QEMU's instruction counting (-icount shift=0,
                      sleep=off): the guest clock advances 1 ns per guest
                      instruction, so guest timings measure code path
                      length and not the host's load (benchmarks); kvm is
                      faster where the host's KVM can boot this guest
  --timeout SECS      kill the guest after SECS in all (default: 900)
  --boot-timeout SECS kill the guest if init has not started after SECS
                      (default: 120)
  --quiet             do not copy the guest console to standard output
                      (it is always saved as DIR/console.log)
  -h, --help          show this help

Exit status:
  0  the scenario exited 0          1  the scenario failed
  2  usage or setup error            3  the guest crashed or stopped
                                        without a verdict (panic, oops)
  4  init did not start in time      5  the run exceeded --timeout
USAGE
}

die() { printf 'run-qemu: %s\n' "$*" >&2; exit 2; }
need_arg() { [ $# -ge 2 ] || die "option $1 needs an argument (see --help)"; }

while [ $# -gt 0 ]; do
	case $1 in
	--scenario) need_arg "$@"; scenario=$2; shift ;;
	--append) need_arg "$@"; append="$append $2"; shift ;;
	--out) need_arg "$@"; out=$2; shift ;;
	--kernel) need_arg "$@"; kernel=$2; shift ;;
	--initrd) need_arg "$@"; initrd=$2; shift ;;
	--fast-mem) need_arg "$@"; fast_mem=$2; shift ;;
	--slow-mem) need_arg "$@"; slow_mem=$2; shift ;;
	--far-mem) need_arg "$@"; far_mem=$2; shift ;;
	--cpus) need_arg "$@"; cpus=$2; shift ;;
	--disk) need_arg "$@"; disk_size=$2; shift ;;
	--hotplug) need_arg "$@"; hotplug=$2; shift ;;
	--accel) need_arg "$@"; accel=$2; shift ;;
	--timeout) need_arg "$@"; timeout=$2; shift ;;
	--boot-timeout) need_arg "$@"; boot_timeout=$2; shift ;;
	--quiet) quiet=1 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; append="$append $*"; break ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done

case $scenario in
''|*[!A-Za-z0-9_.-]*) die "bad scenario name '$scenario'" ;;
esac
for n in "$cpus" "$timeout" "$boot_timeout"; do
	case $n in ''|*[!0-9]*) die "'$n' is not a whole number" ;; esac
done
mib() {
	case $1 in
	0) echo 0 ;;
	*[0-9]M) echo "${1%M}" ;;
	*[0-9]G) echo $(( ${1%G} * 1024 )) ;;
	*) die "memory size '$1' must be like 512M or 2G" ;;
	esac
}
fast_mib=$(mib "$fast_mem") && slow_mib=$(mib "$slow_mem") &&
	far_mib=$(mib "$far_mem") && disk_mib=$(mib "$disk_size") || exit 2
[ "$fast_mib" -gt 0 ] || die "--fast-mem cannot be 0: node 0 has the CPUs"
[ "$slow_mib" -gt 0 ] || [ -n "$hotplug" ] ||
	die "--slow-mem 0 needs --hotplug: node 1 would never have memory"
case $accel in
tcg) accel_args=(-accel tcg -cpu max) ;;
# Instruction counting needs single-threaded TCG
tcg-icount) accel_args=(-accel tcg,thread=single -cpu max -icount shift=0,sleep=off) ;;
kvm) [ -w /dev/kvm ] || die "--accel kvm: /dev/kvm is not usable"
     accel_args=(-accel kvm -cpu qemu64) ;;
*) die "--accel must be tcg, tcg-icount or kvm" ;;
esac
[ -f "$kernel" ] || die "kernel '$kernel' not found (run: make kernel)"
[ -f "$initrd" ] || die "initramfs '$initrd' not found (run: make initramfs)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (run: make deps)"

out=${out:-$top/out/$scenario}
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
rm -f "$out/verdict" "$out/console.log" "$out/monitor.log" "$out/.stall" \
	"$out/kmemleak.txt"
log=$out/console.log
: >"$log"

# Scratch disks for swap and a disk file system (page cache reclaim can
# drop); sparse, so they cost the host nothing until the guest writes.
disks=$(mktemp -d "${TMPDIR:-/tmp}/run-qemu.XXXXXX") || die "cannot create a scratch directory"
trap 'rm -rf "$disks"' EXIT
disk_args=()
for d in swap scratch; do
	truncate -s "${disk_mib}M" "$disks/$d.img" || die "cannot create $disks/$d.img"
	disk_args+=(-drive "file=$disks/$d.img,if=none,id=$d,format=raw,cache=unsafe"
		-device "virtio-blk-pci,drive=$d,serial=$d")
done

mem_args=(-m "$((fast_mib + slow_mib + far_mib))M" -monitor none)
slow_args=(-object "memory-backend-ram,id=mem1,size=${slow_mib}M"
	-numa "node,nodeid=1,memdev=mem1,initiator=0")
[ "$slow_mib" -gt 0 ] || slow_args=(-numa "node,nodeid=1,initiator=0")
far_args=()
[ "$far_mib" -eq 0 ] || far_args=(-object "memory-backend-ram,id=mem2,size=${far_mib}M"
	-numa "node,nodeid=2,memdev=mem2,initiator=0"
	-numa hmat-lb,initiator=0,target=2,hierarchy=memory,data-type=access-latency,latency=90
	-numa hmat-lb,initiator=0,target=2,hierarchy=memory,data-type=access-bandwidth,bandwidth=1G)
if [ -n "$hotplug" ]; then
	hotplug_mib=$(mib "$hotplug") || exit 2
	[ "$hotplug_mib" -gt 0 ] || die "--hotplug SIZE cannot be 0"
	command -v python3 >/dev/null || die "--hotplug needs python3 (run: make deps)"
	mem_args=(-m "$((fast_mib + slow_mib + far_mib))M,slots=1,maxmem=$((fast_mib + slow_mib + far_mib + hotplug_mib))M"
		-monitor "unix:$disks/monitor.sock,server,nowait")
fi

last_cpu=$((cpus - 1))
qemu=(qemu-system-x86_64 -nodefaults -no-user-config -no-reboot
	-display none -serial "file:$log" "${mem_args[@]}"
	"${accel_args[@]}" -machine q35,hmat=on -smp "$cpus"
	-object "memory-backend-ram,id=mem0,size=${fast_mib}M"
	-numa "node,nodeid=0,memdev=mem0,cpus=0-$last_cpu"
	"${slow_args[@]}"
	-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-latency,latency=10
	-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-bandwidth,bandwidth=10G
	-numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-latency,latency=30
	-numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-bandwidth,bandwidth=3G
	"${far_args[@]}"
	-virtfs "local,path=$out,mount_tag=host,security_model=none,id=host"
	"${disk_args[@]}"
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 oops=panic tiered.scenario=$scenario$append")

# monitor unix:PATH,server,nowait COMMAND...: send HMP commands to QEMU
monitor() {
	local sock=${1#unix:}
	shift
	python3 - "${sock%%,*}" "$@" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(2)
for cmd in sys.argv[2:]:
    s.sendall((cmd + "\n").encode())
    time.sleep(1)
try:
    print(s.recv(65536).decode(errors="replace"))
except socket.timeout:
    pass
PY
}

echo "run-qemu: scenario '$scenario', ${fast_mib}M fast + ${slow_mib}M slow${far_args:+ + ${far_mib}M far}, $accel, kernel args:${append:- (none)}"
"${qemu[@]}" 2>"$out/qemu.stderr" &
qpid=$!
tailpid=
[ "$quiet" -eq 1 ] || { tail -n +1 -f --pid="$qpid" "$log" & tailpid=$!; }

result=
started=0
plugs=0
start=$SECONDS
while kill -0 "$qpid" 2>/dev/null; do
	elapsed=$((SECONDS - start))
	if [ "$started" -eq 0 ] && grep -q 'tiered-guest: init started' "$log"; then
		started=1
	fi
	if [ "$started" -eq 0 ] && [ "$elapsed" -ge "$boot_timeout" ]; then
		result=boot-timeout; break
	fi
	if [ "$elapsed" -ge "$timeout" ]; then
		result=timeout; break
	fi
	# Each request plugs the DIMM again: a guest that ejected it (ACPI
	# hot-remove) may ask for it back.  QEMU frees the DIMM on the eject,
	# so every plug is a new device on the same memory backend.
	if [ -n "$hotplug" ] &&
	   [ "$(grep -c -E 'tiered-guest: hotplug.?$' "$log")" -gt "$plugs" ]; then
		plugs=$((plugs + 1))
		cmds=("device_add pc-dimm,id=dimm$plugs,memdev=hotplug1,node=1")
		[ "$plugs" -gt 1 ] || cmds=("object_add memory-backend-ram,id=hotplug1,size=${hotplug_mib}M"
			"${cmds[@]}")
		monitor "${mem_args[3]}" "${cmds[@]}" >>"$out/monitor.log" 2>&1
	fi
	sleep 0.5
done
# A guest still running its scenario is asked for its tasks' stacks
# (initramfs/init watches for .stall) before it is killed.  The dump can
# take tens of seconds on a loaded host: wait for the guest to say it is
# done, for at most a minute.
if [ "$result" = timeout ]; then
	touch "$out/.stall"
	for _ in $(seq 120); do
		grep -q 'tiered-guest: stall dump done' "$log" && break
		sleep 0.5
	done
	sleep 1
fi
if [ -n "$result" ]; then
	kill "$qpid" 2>/dev/null; sleep 1; kill -9 "$qpid" 2>/dev/null
fi
rm -f "$out/.stall"
wait "$qpid" 2>/dev/null
qemu_status=$?
[ -z "$tailpid" ] || wait "$tailpid" 2>/dev/null

crash=$(grep -m1 -E 'Kernel panic|BUG:|Oops|WARNING:|general protection fault' "$log")
case $result in
boot-timeout)
	echo "run-qemu: FAIL: the guest did not reach init within ${boot_timeout}s (killed; console: $log)" >&2
	exit 4 ;;
timeout)
	echo "run-qemu: FAIL: scenario '$scenario' ran longer than ${timeout}s (tasks dumped, then killed; $("$top/scripts/stall-digest.sh" "$log"); console: $log)" >&2
	exit 5 ;;
esac
if [ ! -s "$out/verdict" ]; then
	if [ "$started" -eq 0 ] && [ -s "$out/qemu.stderr" ]; then
		echo "run-qemu: FAIL: QEMU exited with status $qemu_status before the guest booted:" >&2
		sed 's/^/  /' "$out/qemu.stderr" >&2
	else
		echo "run-qemu: FAIL: the guest stopped without a verdict: ${crash:-no panic message; see $log}" >&2
	fi
	exit 3
fi
verdict=$(cat "$out/verdict")
if [ -n "$crash" ]; then
	echo "run-qemu: FAIL: the kernel reported '$crash' (console: $log); the report:" >&2
	n=$(grep -n -m1 -F "$crash" "$log" | cut -d: -f1)
	sed -n "$n,$((n + 60))p" "$log" | sed 's/^/  /' >&2
	exit 3
fi
# Written by init on a kernel with kmemleak, after the scenario
leaks=$(grep -c '^unreferenced object' "$out/kmemleak.txt" 2>/dev/null)
if [ "${leaks:-0}" -gt 0 ]; then
	echo "run-qemu: FAIL: kmemleak lists $leaks unreferenced objects ($out/kmemleak.txt); the first:" >&2
	awk 'NR > 1 && /^unreferenced object/ { exit } { print "  " $0 }' "$out/kmemleak.txt" >&2
	exit 3
fi
if [ "$verdict" != 0 ]; then
	echo "run-qemu: FAIL: scenario '$scenario' exited with status $verdict" >&2
	exit 1
fi
echo "run-qemu: scenario '$scenario' passed (results in $out)"
exit 0
