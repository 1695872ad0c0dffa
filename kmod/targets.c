// SPDX-License-Identifier: GPL-2.0
/*
 * The processes a session samples, by thread group id in the initial pid
 * namespace: a bitmap over every possible pid, so that the overflow
 * handler, which runs in NMI, tests one bit and takes no lock. The bitmap
 * (512 KiB with 64-bit pids) exists only while a session runs; its pointer
 * is set before any reader can run and cleared after the last has stopped.
 */

#include "stats.h"
#include "targets.h"

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/moduleparam.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/threads.h>
#include <linux/vmalloc.h>

static unsigned int max_targets = 4096;
module_param(max_targets, uint, 0644);
MODULE_PARM_DESC(max_targets, "Most processes one session follows (default 4096)");

static struct {
	bool all;		/* system-wide: every task but the idle tasks */
	unsigned long *map;	/* PID_MAX_LIMIT bits */
	atomic_t count;		/* bits set */
	unsigned int max;	/* max_targets when the session started */
	bool warned;
} set;

int cp_targets_start(bool system_wide, pid_t tgid, struct netlink_ext_ack *extack)
{
	set.all = system_wide;
	set.warned = false;
	atomic_set(&set.count, 0);
	set.max = max(READ_ONCE(max_targets), 1U);
	if (system_wide)
		return 0;

	/*
	 * No allocation failure warning: the start fails with -ENOMEM and
	 * this message to its caller.
	 */
	set.map = __vmalloc(BITS_TO_LONGS(PID_MAX_LIMIT) * sizeof(long),
			    GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (!set.map) {
		NL_SET_ERR_MSG(extack, "out of memory for the target set");
		return -ENOMEM;
	}
	cp_targets_add(tgid);
	return 0;
}

/* Once nothing can call the functions below any more. */
void cp_targets_stop(void)
{
	vfree(set.map);
	set.map = NULL;
}

/* From any context, NMI included. */
bool cp_target_match(const struct task_struct *t)
{
	if (unlikely(is_idle_task(t)))
		return false;
	return set.all || test_bit(t->tgid, set.map);
}

bool cp_targets_has(pid_t tgid)
{
	return set.all || test_bit(tgid, set.map);
}

/* A new process to follow; false when there are too many already. */
bool cp_targets_add(pid_t tgid)
{
	if (set.all || test_bit(tgid, set.map))
		return true;
	if (!atomic_add_unless(&set.count, 1, set.max)) {
		cp_stat_add(CAUSALPROF_STAT_TARGET_OVERFLOW, 1);
		if (!xchg(&set.warned, true))
			pr_info_ratelimited("following %u processes already (max_targets): new ones are not sampled\n",
					    set.max);
		return false;
	}
	if (test_and_set_bit(tgid, set.map))
		atomic_dec(&set.count);
	return true;
}

/*
 * Once the exit hook runs: the process tgid, found before it did, may have
 * exited in between, unseen, and a later process given its tgid would be
 * followed. Its last thread makes signal->live 0 before the exit hook
 * fires: seen 0 here, the bit goes now; seen above 0, the hook clears it.
 */
void cp_targets_recheck(pid_t tgid)
{
	struct task_struct *p;
	bool live;

	rcu_read_lock();
	p = pid_task(find_pid_ns(tgid, &init_pid_ns), PIDTYPE_TGID);
	live = p && atomic_read(&p->signal->live);
	rcu_read_unlock();
	if (!live)
		cp_targets_del(tgid);
}

/* A followed process is gone: its tgid may soon name another one. */
void cp_targets_del(pid_t tgid)
{
	if (!set.all && test_and_clear_bit(tgid, set.map))
		atomic_dec(&set.count);
}
