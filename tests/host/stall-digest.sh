#!/bin/bash
# scripts/stall-digest.sh on a made-up stall dump: blocked tasks count
# under the function they wait in, most first; an idle CPU and the one
# that ran the dump are left out, frames marked "?" count; tasks lockdep lists without their locks ran while holding
# them; a console without a dump says so.
top=$(cd "$(dirname "$0")/../.." && pwd)
check() { if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# task NAME PID FRAME...: one sysrq-w entry
task() {
	printf 'task:%-15s state:D stack:0     pid:%s  tgid:%s  ppid:1     flags:0x00004002\r\n' "$1" "$2" "$2"
	printf 'Call Trace:\r\n <TASK>\r\n'
	shift 2
	printf ' %s+0x10/0x20\r\n' "$@"
	printf ' </TASK>\r\n'
}
{
	echo "tiered-guest: stall reported by the host: tasks and memory follow"
	echo "sysrq: Show Blocked State"
	for pid in 1913 1914 1915; do
		task tierstress $pid __schedule schedule schedule_preempt_disabled \
			__mutex_lock cgroup_kn_lock_live cgroup_procs_write
	done
	task tierstress 2306 __schedule schedule rwsem_down_write_slowpath \
		down_write mpol_rebind_mm cpuset_attach
	printf 'task:sleepy          state:S stack:0     pid:9  tgid:9  ppid:1     flags:0x0\n'
	printf 'Call Trace:\n <TASK>\n __schedule+0x1/0x2\n do_nanosleep+0x1/0x2\n </TASK>\n'
	echo "sysrq: Show backtrace of all active CPUs"
	echo "NMI backtrace for cpu 0"
	echo "CPU: 0 UID: 0 PID: 54 Comm: init Not tainted 6.12.0 #1"
	printf 'Call Trace:\n <TASK>\n ? dump_stack_lvl+0x1/0x2\n ? nmi_cpu_backtrace+0x1/0x2\n'
	printf ' ? __handle_sysrq+0x1/0x2\n ? write_sysrq_trigger+0x1/0x2\n ? vfs_write+0x1/0x2\n </TASK>\n'
	echo "NMI backtrace for cpu 1"
	echo "CPU: 1 UID: 0 PID: 30 Comm: kworker/u8:1 Not tainted 6.12.0 #1"
	echo "RIP: 0010:shrink_folio_list+0x1/0x2"
	printf 'Call Trace:\n <NMI>\n nmi_handle+0x1/0x2\n </NMI>\n <TASK>\n'
	printf ' ? shrink_folio_list+0x1/0x2\n evict_folios+0x1/0x2\n'
	printf ' try_to_shrink_lruvec+0x1/0x2\n shrink_one+0x1/0x2\n </TASK>\n'
	echo "NMI backtrace for cpu 2"
	echo "CPU: 2 UID: 0 PID: 0 Comm: swapper/2 Not tainted 6.12.0 #1"
	printf 'Call Trace:\n <TASK>\n ? default_idle+0x9/0xc\n ? do_idle+0x9b/0x137\n </TASK>\n'
	echo "sysrq: Show Locks Held"
	echo ""
	echo "Showing all locks held in the system:"
	echo "3 locks held by tierstress/1913:"
	echo " #0: ffff888009caa3f0 (sb_writers#8){.+.+}-{0:0}, at: vfs_write+0x112/0x33f"
	echo " #1: ffff88800c3fe888 (&of->mutex){+.+.}-{3:3}, at: kernfs_fop_write_iter+0x1c6/0x353"
	echo " #2: ffffffff827926e8 (cgroup_mutex){+.+.}-{3:3}, at: cgroup_kn_lock_live+0xe4/0x129"
	echo "3 locks held by tierstress/2306:"
	echo "2 locks held by tierstress/2353:"
	echo "1 lock held by khungtaskd/30:"
	echo " #0: ffffffff82a3b7a0 (rcu_read_lock){....}-{1:2}, at: debug_show_all_locks+0x2e/0x1e0"
	echo ""
	echo "============================================="
	echo "sysrq: Show Memory"
	echo "Mem-Info:"
} >"$dir/console.log"

got=$("$top/scripts/stall-digest.sh" "$dir/console.log")
want='blocked: 3 in cgroup_kn_lock_live (__mutex_lock), 1 in mpol_rebind_mm (down_write); on CPU: kworker/u8:1 at shrink_folio_list < evict_folios < try_to_shrink_lruvec; running with locks held: tierstress/2306 (3), tierstress/2353 (2)'
check $([ "$got" = "$want" ]; echo $?) "stall digest names where blocked tasks wait and what CPUs run ($got)"

echo "no dump here" >"$dir/quiet.log"
got=$("$top/scripts/stall-digest.sh" "$dir/quiet.log")
check $([ "$got" = "blocked: none; on CPU: none" ]; echo $?) \
	"stall digest of a console without a dump says none ($got)"

"$top/scripts/stall-digest.sh" "$dir/missing.log" 2>/dev/null
check $([ $? -eq 2 ]; echo $?) "stall digest of a missing console exits 2"
