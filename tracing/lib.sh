# Shell helpers shared by the guest scenarios and shell tests (sourced).

CGROOT=/sys/fs/cgroup

# node_mem_kib NODE: MemTotal of a NUMA node, in KiB.
node_mem_kib() {
	awk '/MemTotal/ { print $4 }' "/sys/devices/system/node/node$1/meminfo"
}

# cg_numa KEY CGROUP NODE: bytes of KEY (anon, file, ...) on NODE from
# CGROUP's memory.numa_stat.
cg_numa() {
	sed -n "s/^$1 .*N$3=\([0-9]*\).*/\1/p" "$CGROOT/$2/memory.numa_stat"
}

# cg_make NAME: a child of the root with the memory controller enabled.
cg_make() {
	echo +memory >"$CGROOT/cgroup.subtree_control" &&
		mkdir -p "$CGROOT/$1"
}

# cg_run NAME COMMAND...: run COMMAND inside cgroup NAME, in the foreground.
cg_run() {
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CGROOT/$cg" "$@"
}

# TAP lines; the test scenario numbers them.
tap() {
	if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}
