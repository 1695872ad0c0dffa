/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The causal engine's per-thread table, preallocated and lock-free for
 * the overflow handler and the scheduler hooks (see tasks.c).
 */

#ifndef _CAUSALPROF_TASKS_H
#define _CAUSALPROF_TASKS_H

#include <linux/atomic.h>
#include <linux/types.h>

struct task_struct;

/* cp_task.flags */
#define CP_TASK_QUEUED	BIT(0)	/* work is on the task's task_works list */
#define CP_TASK_PAYING	BIT(1)	/* asleep in a payment */
#define CP_TASK_PAID	BIT(2)	/* paid at least once in this experiment */
#define CP_TASK_BLOCKED	BIT(3)	/* blocked at blocked_at, not woken since */
#define CP_TASK_WOKEN	BIT(4)	/* woken before it switched out */
#define CP_TASK_EXEMPT	BIT(5)	/* the experiment's starter may not delay it */
#define CP_TASK_WAKEPAY	BIT(6)	/* its queued payment is a woken thread's */

/*
 * The causal state of one thread during an experiment. A slot is claimed
 * by cmpxchg on tid, from any context, and never reused while the
 * experiment runs; work stays valid for as long as the module is loaded.
 */
struct cp_task {
	atomic_t tid;			/* 0: free; CP_TASK_DEAD: exited */
	atomic_t flags;
	atomic64_t local;		/* delay accounted for, ns */
	atomic64_t lag;			/* owed besides global - local, ns */
	atomic64_t keep;		/* of it, its waker's, not due at the wake-up */
	atomic64_t blocked_at;		/* the global delay when it last blocked */
	atomic64_t blocked_owed;	/* what it owed then, ns */
	atomic64_t blocked_ns;		/* and when (ktime_get_mono_fast_ns()) */
	atomic64_t paid_ns;		/* slept in payments */
	atomic_t payments;
	u32 exp;			/* experiment the queued work belongs to */
	struct callback_head work;
};

#define CP_TASK_DEAD	(-1)

int cp_tasks_reset(void);
void cp_tasks_free(void);
struct cp_task *cp_task_get(pid_t tid, bool insert);
void cp_task_exit(pid_t tid);
unsigned int cp_tasks_size(void);
struct cp_task *cp_task_at(unsigned int i);

#endif /* _CAUSALPROF_TASKS_H */
