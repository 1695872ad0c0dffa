// SPDX-License-Identifier: GPL-2.0
/*
 * The per-thread state of the causal engine: a preallocated open-addressing
 * table keyed by thread id (initial pid namespace). The overflow handler
 * (NMI or hard irq) and the scheduler hooks claim slots with cmpxchg and
 * never allocate. A thread that exits leaves a tombstone: with lock-free
 * readers a slot cannot be reclaimed while the experiment runs. Between
 * experiments nothing but queued payment work touches the table, and reset
 * clears it, keeping only the slots whose work is still queued (as
 * tombstones: the task_works list points into them).
 *
 * The table is allocated at the first experiment with max_tasks slots
 * (rounded up to a power of two) and freed at unload, when the module
 * reference each queued work holds guarantees that none is left.
 */

#include "tasks.h"

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/vmalloc.h>

static unsigned int max_tasks = 8192;
module_param(max_tasks, uint, 0444);
MODULE_PARM_DESC(max_tasks, "Threads one experiment tracks (default 8192, read at the first experiment)");

/*
 * The furthest a thread's slot lies from its hash: lookups run under the
 * scheduler's locks (sched_waking holds p->pi_lock) and in NMI, so they
 * probe at most this many slots, whatever max_tasks is. A thread that finds
 * no free slot that near is not delayed, like one that finds the table
 * full, and its callers count it (table_full). A lookup that stops there
 * misses nothing: no insert went further.
 */
#define PROBE_MAX	64

static struct cp_task *table;
static unsigned int bits;

/* In process context, while no experiment runs. */
int cp_tasks_reset(void)
{
	unsigned int i;

	if (!table) {
		bits = order_base_2(clamp(max_tasks, 64U, 1U << 20));
		table = vzalloc(sizeof(*table) << bits);
		if (!table)
			return -ENOMEM;
		return 0;
	}
	for (i = 0; i < (1U << bits); i++) {
		struct cp_task *t = &table[i];

		if (atomic_read(&t->flags) & CP_TASK_QUEUED) {
			atomic_set(&t->tid, CP_TASK_DEAD);
			continue;
		}
		atomic_set(&t->tid, 0);
		atomic_set(&t->flags, 0);
		atomic64_set(&t->local, 0);
		atomic64_set(&t->lag, 0);
		atomic64_set(&t->keep, 0);
		atomic64_set(&t->blocked_at, 0);
		atomic64_set(&t->blocked_owed, 0);
		atomic64_set(&t->blocked_ns, 0);
		atomic64_set(&t->paid_ns, 0);
		atomic_set(&t->payments, 0);
	}
	return 0;
}

/* At unload, when no work can be queued any more. */
void cp_tasks_free(void)
{
	vfree(table);
	table = NULL;
}

/*
 * The slot of tid, claimed when insert says so and it has none; NULL when
 * it has none or no free slot lies within PROBE_MAX of its hash. From any
 * context, NMI included. A new slot starts with local 0: the global delay
 * at the experiment's start.
 */
struct cp_task *cp_task_get(pid_t tid, bool insert)
{
	unsigned int mask = (1U << bits) - 1, i, n;
	int cur;

	if (!table || tid <= 0)
		return NULL;
	i = hash_32(tid, bits);
	for (n = 0; n <= mask && n < PROBE_MAX; n++, i = (i + 1) & mask) {
		cur = atomic_read(&table[i].tid);
		if (cur == tid)
			return &table[i];
		if (cur)
			continue;
		if (!insert)
			return NULL;
		cur = atomic_cmpxchg(&table[i].tid, 0, tid);
		if (!cur || cur == tid)
			return &table[i];
	}
	return NULL;
}

/* The thread is gone; its tid may soon name another. */
void cp_task_exit(pid_t tid)
{
	struct cp_task *t = cp_task_get(tid, false);

	if (t)
		atomic_set(&t->tid, CP_TASK_DEAD);
}

unsigned int cp_tasks_size(void)
{
	return table ? 1U << bits : 0;
}

struct cp_task *cp_task_at(unsigned int i)
{
	return &table[i];
}
