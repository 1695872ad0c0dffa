// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel tells a session while it runs: tracepoints for fork, exit
 * and rename (exec renames too), wake-ups and blocking (the causal engine's
 * inheritance, and off-CPU waits: offcpu.c), and a kprobe on
 * perf_event_mmap(), which every new executable mapping goes through
 * (mmap, mprotect, exec, the vdso). They keep the target set up to date
 * and write the sideband.
 *
 * exec is reported from task_rename, not sched_process_exec: exec renames
 * the task after dropping the old mappings and before mapping the new
 * image, while sched_process_exec fires once the image is mapped. So the
 * COMM record with CAUSALPROF_COMM_F_EXEC comes after the last record of
 * the old image and before the first MMAP of the new one.
 */

#include "causal.h"
#include "hooks.h"
#include "offcpu.h"
#include "shared.h"
#include "sideband.h"
#include "targets.h"

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>

static bool no_inherit;
static bool off_cpu;

/*
 * Where probe_switch() returns to: __schedule(), when it is sched_switch's
 * only probe (the tracepoint's static call calls it straight), or the
 * tracepoint's iterator, __traceiter_sched_switch(), when perf, ftrace or
 * BPF probe it too. An off-CPU stack starts in __schedule() either way:
 * the iterator's frame is left out (its extent from kallsyms).
 */
static unsigned long iter_start, iter_size;

/* Before the child first runs. */
static void probe_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	if (!cp_targets_has(parent->tgid))
		return;
	if (child->tgid != parent->tgid && (no_inherit || !cp_targets_add(child->tgid)))
		return;
	cp_sideband_task(CAUSALPROF_REC_FORK, child, parent);
	cp_causal_fork(parent, child);
}

static void probe_exit(void *data, struct task_struct *t)
{
	if (!cp_targets_has(t->tgid))
		return;
	cp_sideband_task(CAUSALPROF_REC_EXIT, t, NULL);
	cp_causal_exit(t);
	if (off_cpu)
		cp_offcpu_exit(t);
	/* Its last thread: the process is gone, and its tgid free for reuse. */
	if (!atomic_read(&t->signal->live))
		cp_targets_del(t->tgid);
}

/* With task_lock(t) held; comm is the new name. */
static void probe_rename(void *data, struct task_struct *t, const char *comm)
{
	u16 flags = 0;

	if (!cp_targets_has(t->tgid))
		return;
	if (t == current && current->in_execve)
		flags = CAUSALPROF_COMM_F_EXEC;
	cp_sideband_comm(t, comm, flags);
}

/* try_to_wake_up(), by current, under p->pi_lock. */
static void probe_waking(void *data, struct task_struct *p)
{
	if (!cp_target_match(p))
		return;
	if (cp_causal_running())
		cp_causal_wake(p, cp_target_match(current));
	if (off_cpu)
		cp_offcpu_wake(p);
}

/* __schedule(), runqueue locked: prev_state set means prev blocks. */
static void probe_switch(void *data, bool preempt, struct task_struct *prev,
			 struct task_struct *next, unsigned int prev_state)
{
	unsigned long from = _RET_IP_;

	if (!preempt && prev_state && cp_causal_running() && cp_target_match(prev))
		cp_causal_block(prev);
	if (off_cpu)
		cp_offcpu_switch(prev, preempt ? 0 : prev_state, next, from,
				 from - iter_start < iter_size);
}

static int mmap_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);

	if ((vma->vm_flags & VM_EXEC) && cp_targets_has(current->tgid))
		cp_sideband_mmap(vma);
	return 0;
}

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} tps[] = {
	{ "sched_process_fork",	probe_fork },
	{ "sched_process_exit",	probe_exit },
	{ "task_rename",	probe_rename },
	{ "sched_waking",	probe_waking },
	{ "sched_switch",	probe_switch },
};

/*
 * The probes against the prototypes of the kernel built for: sched_switch
 * gained prev_state in 5.18 and before it took a probe without, which
 * tracepoint_probe_register() would accept and the kernel call with the
 * wrong arguments. The headers' register_trace_NAME() take only a probe of
 * the right type (-Werror=incompatible-pointer-types in the kernel's
 * flags); under sizeof they are not called, nor is the tracepoint they
 * name, which is not exported, referenced.
 */
static void __maybe_unused check_probe_types(void)
{
	BUILD_BUG_ON(!sizeof(register_trace_sched_process_fork(probe_fork, NULL)));
	BUILD_BUG_ON(!sizeof(register_trace_sched_process_exit(probe_exit, NULL)));
	BUILD_BUG_ON(!sizeof(register_trace_task_rename(probe_rename, NULL)));
	BUILD_BUG_ON(!sizeof(register_trace_sched_waking(probe_waking, NULL)));
	BUILD_BUG_ON(!sizeof(register_trace_sched_switch(probe_switch, NULL)));
}

static struct kprobe mmap_kp;

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tps); i++)
		if (!strcmp(tp->name, tps[i].name))
			tps[i].tp = tp;
}

/* The extent of sched_switch's iterator, from "NAME+0x0/0xSIZE"; 0 if unknown. */
static void find_iterator(const struct tracepoint *tp)
{
	char buf[KSYM_SYMBOL_LEN], *size;

	iter_start = (unsigned long)tp->iterator;
	iter_size = 0;
	if (!iter_start)
		return;
	sprint_symbol(buf, iter_start);
	size = strrchr(buf, '/');
	if (!size || kstrtoul(size + 1, 0, &iter_size))
		iter_size = 0;
}

int cp_hooks_start(const struct cp_config *cfg, struct netlink_ext_ack *extack)
{
	unsigned int i;
	int ret;

	no_inherit = cfg->flags & CAUSALPROF_F_NO_INHERIT;
	off_cpu = cfg->flags & CAUSALPROF_F_OFF_CPU;
	for_each_kernel_tracepoint(find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		if (!tps[i].tp) {
			NL_SET_ERR_MSG(extack, "a sched or task tracepoint is missing");
			ret = -ENOENT;
			goto err_unregister;
		}
		if (tps[i].probe == probe_switch)
			find_iterator(tps[i].tp);
		ret = tracepoint_probe_register(tps[i].tp, tps[i].probe, NULL);
		if (ret) {
			NL_SET_ERR_MSG(extack, "cannot register a tracepoint probe");
			goto err_unregister;
		}
	}

	/* A kprobe cannot be registered twice: start from a clean one. */
	mmap_kp = (struct kprobe){
		.symbol_name = "perf_event_mmap",
		.pre_handler = mmap_pre,
	};
	ret = register_kprobe(&mmap_kp);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot probe perf_event_mmap (CONFIG_KPROBES?)");
		goto err_unregister;
	}
	return 0;

err_unregister:
	while (i--)
		tracepoint_probe_unregister(tps[i].tp, tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

/* Returns once no probe runs any more. */
void cp_hooks_stop(void)
{
	unsigned int i;

	unregister_kprobe(&mmap_kp);
	for (i = ARRAY_SIZE(tps); i--; )
		tracepoint_probe_unregister(tps[i].tp, tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
}
