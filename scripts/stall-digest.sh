#!/bin/bash
# stall-digest.sh CONSOLE: one line saying where a hung guest's tasks were,
# from the dump initramfs/init makes when run-qemu.sh reports a stall:
# sysrq-w (tasks in D state), sysrq-l (what each CPU ran) and, on a
# lockdep kernel, sysrq-d (the locks each task holds).  Each blocked task
# counts under the innermost function of its stack that is not a
# scheduler, lock or wait primitive, with the primitive it waits in:
#   blocked: 14 in cgroup_kn_lock_live (__mutex_lock), 1 in mpol_rebind_mm
#   (down_write); on CPU: kworker/u4:2 at shrink_folio_list < shrink_lruvec;
#   running with locks held: tierstress/2306 (3)
# so that a hang's cause fits in the line that reports it.  Only the last
# dump of each kind counts: tierstress dumps blocked tasks on its own.
set -uo pipefail
if [ $# -ne 1 ] || [ ! -r "$1" ]; then
	echo "usage: stall-digest.sh CONSOLE (a readable console log)" >&2
	exit 2
fi

tr -d '\r' <"$1" | sed -E 's/^\[[ 0-9.]+\] //' | awk '
# the function of a stack frame; "? " (a frame the unwinder is unsure of) is
# kept, as kernels without ORC or frame pointers mark every frame so
function fn(line) {
	sub(/^[ \t]+/, "", line)
	sub(/^\? /, "", line)
	if (line !~ /^[A-Za-z_.][A-Za-z0-9_.]*\+0x/)
		return ""
	sub(/\+0x.*/, "", line)
	return line
}
function primitive(f) {
	return f ~ /^(__schedule|schedule|schedule_.*|__mutex_lock.*|mutex_lock.*|rwsem_down_.*|down_read.*|down_write.*|__down.*|io_schedule.*|bit_wait.*|__wait_on_bit.*|out_of_line_wait_on_bit.*|wait_for_completion.*|__wait_for_common|wait_for_common.*|__flush_work|flush_work|__flush_workqueue|percpu_down_write|percpu_rwsem_wait|__percpu_down_read|percpu_down_read.*|folio_wait_bit.*|__folio_lock.*|folio_lock.*|synchronize_rcu.*|__synchronize_srcu|wait_rcu_gp|__wait_rcu_gp|rcu_sync_enter|do_nanosleep|hrtimer_nanosleep|msleep|schedule_timeout.*|__cond_resched|preempt_schedule.*|__wait_var_event|ww_mutex_lock.*|__ww_mutex_lock.*)$/
}
# a D-state task from sysrq-w: its stack starts at "Call Trace:"
/^sysrq: Show Blocked State/ {
	for (i = 1; i <= keys; i++)
		delete n[order[i]]
	keys = 0
	mode = "w"
	next
}
/^sysrq: Show Locks Held/ { mode = "d"; held = ""; pending = ""; next }
/^sysrq: Show backtrace of all active CPUs/ { mode = "l"; oncpu = ""; next }
/^sysrq: / { mode = ""; next }
mode == "w" && /^task:.* state:D / { intask = 1; where = ""; prim = ""; next }
mode == "w" && intask && /<\/TASK>/ {
	key = (where == "" ? "?" : where) (prim == "" ? "" : " (" prim ")")
	if (!(key in n))
		order[++keys] = key
	n[key]++
	intask = 0
	next
}
mode == "w" && intask && where == "" {
	f = fn($0)
	if (f == "")
		next
	if (primitive(f))
		prim = f
	else
		where = f
	next
}
# lockdep lists the locks of a task only when it sleeps: a task named
# without them was running, and holds what others may wait for
mode == "d" && / locks? held by [^ ]+:$/ {
	if (pending != "")
		held = held (held == "" ? "" : ", ") pending
	pending = $0; sub(/:$/, "", pending); sub(/.* held by /, "", pending)
	pending = pending " (" $1 ")"
	next
}
mode == "d" && /^ *#0: / { pending = ""; next }
mode == "d" && pending != "" && !/^ *#[0-9]+: / {
	held = held (held == "" ? "" : ", ") pending
	pending = ""
}
# a CPU from sysrq-l: its task, then its stack; an idle CPU and the one
# that ran the dump (writing sysrq-trigger) are left out
mode == "l" && /^CPU: [0-9]+ / {
	comm = $0; sub(/.* Comm: /, "", comm); sub(/ .*/, "", comm)
	cpu_frames = 0; trace = ""; incpu = 1; self = 0
	next
}
mode == "l" && incpu && /<TASK>/ { intrace = 1; next }
mode == "l" && incpu && intrace && /<\/TASK>/ {
	if (!self && comm !~ /^swapper\// && trace != "")
		oncpu = oncpu (oncpu == "" ? "" : ", ") comm " at " trace
	incpu = intrace = 0
	next
}
mode == "l" && incpu && intrace {
	f = fn($0)
	if (f ~ /sysrq/)
		self = 1
	if (f == "" || cpu_frames == 3 ||
	    f ~ /^(asm_|sysvec_|irqentry_|__sysvec_|dump_stack|nmi_|lapic_)/)
		next
	trace = trace (trace == "" ? "" : " < ") f
	cpu_frames++
}
END {
	# most blocked first
	for (i = 2; i <= keys; i++)
		for (j = i; j > 1 && n[order[j]] > n[order[j - 1]]; j--) {
			k = order[j]; order[j] = order[j - 1]; order[j - 1] = k
		}
	line = ""
	for (i = 1; i <= keys; i++)
		line = line (i > 1 ? ", " : "") n[order[i]] " in " order[i]
	if (pending != "")
		held = held (held == "" ? "" : ", ") pending
	printf "blocked: %s; on CPU: %s%s\n", (line == "" ? "none" : line),
		(oncpu == "" ? "none" : oncpu),
		(held == "" ? "" : "; running with locks held: " held)
}'
