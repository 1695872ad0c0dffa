// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU waits (CAUSALPROF_F_OFF_CPU): each time a target thread leaves
 * its CPU of its own accord, where it was and how long it stayed off,
 * split into the wait itself and the run queue's delay after its wake-up.
 *
 * Three scheduler hooks (hooks.c) drive a wait, each in its own context:
 *
 *	sched_switch, prev	the thread leaves (current, on its CPU, the run
 *				queue locked, interrupts off): its stacks and
 *				reason into its slot, then the slot's key
 *				becomes OUT (release)
 *	sched_waking		a waker, on any CPU, under the thread's
 *				pi_lock: OUT becomes WOKEN (cmpxchg), with
 *				the time
 *	sched_switch, next	the thread runs again, on the CPU that picked
 *				it (the run queue locked, interrupts off):
 *				the wait is recorded into that CPU's ring or
 *				count table, as a sample would be, and the
 *				key goes back to IDLE
 *
 * A thread's switches are serialized by the scheduler (it cannot run again
 * before its switch-out is done), so only the waking races with them, and
 * it only ever moves OUT to WOKEN. A waking that comes before the switch
 * has made the key OUT (the thread set its state, a waker saw it, the
 * switch was still under way) finds it IDLE and is not seen: that wait is
 * recorded as waiting all along, with CAUSALPROF_OFF_CPU_F_NO_WAKE.
 *
 * The stacks are taken when the thread leaves, as Coz's blocked samples
 * and BCOZ need them (where the program waits), and kept in the thread's
 * slot until it runs again: the ring and the count table it is recorded in
 * are those of the CPU that runs it then, whose producer it is for that
 * moment (cp_stream_cpu_get()), so a STACK always goes into the same ring
 * before the counts that name it, as for samples (agg.c).
 *
 * The slots are a table preallocated when the session starts
 * (off_cpu_threads of them, each with room for a full stack, 2 KiB),
 * keyed by thread id with bounded open addressing, lock-free: a key is the
 * tid and a state in one 64-bit word, claimed with cmpxchg by the thread's
 * own first switch-out and given up (a tombstone, which a later claim
 * reuses) when it exits. A thread that finds no slot is not recorded,
 * counted in off_cpu_untracked. A CPU records at most max_off_cpu_rate
 * waits a second (by windows of 10 ms): the others cost a clock read and
 * are counted in off_cpu_capped, so a program that switches a million
 * times a second is not slowed down by its profile. Every wait not
 * recorded is counted in off_cpu_lost, by CPU, and told in LOST records.
 */

#include "agg.h"
#include "compat.h"
#include "offcpu.h"
#include "ring.h"
#include "shared.h"
#include "stack.h"
#include "stats.h"
#include "stream.h"
#include "targets.h"

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/netlink.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

static unsigned int off_cpu_threads = 1024;
module_param(off_cpu_threads, uint, 0644);
MODULE_PARM_DESC(off_cpu_threads, "Threads an off-CPU session follows at once, 64 to 65536, 2 KiB each (default 1024, read when a session starts)");

static unsigned int max_off_cpu_rate = 10000;
module_param(max_off_cpu_rate, uint, 0644);
MODULE_PARM_DESC(max_off_cpu_rate, "Off-CPU waits recorded per second per CPU, the others counted (default 10000, 0: all; read when a session starts)");

#define THREADS_MIN	64
#define THREADS_MAX	65536
/* How far a thread's slot may lie from its hash: the hooks' bound. */
#define PROBE_MAX	32
#define WINDOW_NS	(10 * NSEC_PER_MSEC)
#define WINDOWS_PER_S	(NSEC_PER_SEC / WINDOW_NS)

/* A key: the tid above, the state below; never-used and tombstone have tid 0. */
#define KEY_FREE	0ULL		/* never used: ends a probe */
#define KEY_TOMB	1ULL		/* its thread exited: free, but probes go on */
enum { IDLE = 2, OUT, WOKEN };
#define KEY(tid, state)	((u64)(u32)(tid) << 32 | (state))
#define KEY_TID(key)	((u32)((key) >> 32))

/* A thread's slot: written by its own switches, and wake_ns by its waker. */
struct wait {
	u64 out_ns;		/* when it left (ktime_get_mono_fast_ns()) */
	u64 wake_ns;		/* when it was woken (WOKEN only) */
	u32 pid;
	u16 nk, nu;
	u8 reason;
	u8 sflags;
	u64 ips[2 * CAUSALPROF_MAX_STACK];
};

struct cpu_state {
	unsigned long kstack[CP_KSTACK_SCRATCH];
	u64 words[CP_STACK_WINDOW];	/* of the user stack */
	u64 since;		/* when the current 10 ms began */
	u32 used;		/* waits taken in it */
};

/* Set up before the hooks are and left alone until they are gone. */
static struct {
	atomic64_t *keys;
	struct wait *waits;
	unsigned int bits;
	struct cpu_state __percpu *cpus;
	u32 per_window;		/* waits a CPU takes in 10 ms; 0: no cap */
	unsigned int kmax, umax;
	bool agg;
} tbl;

/* The slot of tid, or -1. From any context. */
static long find(u32 tid)
{
	u32 mask = (1U << tbl.bits) - 1, i = hash_32(tid, tbl.bits), n;
	u64 key;

	for (n = 0; n < PROBE_MAX && n <= mask; n++, i = (i + 1) & mask) {
		key = atomic64_read(&tbl.keys[i]);
		if (key == KEY_FREE)
			return -1;
		if (KEY_TID(key) == tid)
			return i;
	}
	return -1;
}

/*
 * The slot of tid, claimed (IDLE) if it had none, or -1. Only tid's own
 * switch-out claims it, so tid is not claimed twice; another thread may
 * take the free slot first: then look again.
 */
static long claim(u32 tid)
{
	u32 mask = (1U << tbl.bits) - 1, i, n, tries;
	long free;
	u64 key, old = 0;

	for (tries = 0; tries < 2; tries++) {
		free = -1;
		i = hash_32(tid, tbl.bits);
		for (n = 0; n < PROBE_MAX && n <= mask; n++, i = (i + 1) & mask) {
			key = atomic64_read(&tbl.keys[i]);
			if (KEY_TID(key) == tid)
				return i;
			if ((key == KEY_FREE || key == KEY_TOMB) && free < 0) {
				free = i;
				old = key;
			}
			if (key == KEY_FREE)
				break;
		}
		if (free < 0)
			return -1;
		if (atomic64_cmpxchg(&tbl.keys[free], old, KEY(tid, IDLE)) == old)
			return free;
	}
	return -1;
}

/* What the kernel knows of the wait t, current, goes into. */
static u8 reason(struct task_struct *t)
{
	struct pt_regs *regs;

	if (t->in_iowait)
		return CAUSALPROF_OFF_CPU_IO;
	if (!t->mm || (t->flags & CP_PF_NO_USER))
		return CAUSALPROF_OFF_CPU_OTHER;
	regs = task_pt_regs(t);
	if (!user_64bit_mode(regs))
		return CAUSALPROF_OFF_CPU_OTHER;
	/* x32's numbers of these are x86-64's, with __X32_SYSCALL_BIT. */
	switch (syscall_get_nr(t, regs) & ~__X32_SYSCALL_BIT) {
	case __NR_futex:
	case __NR_futex_waitv:
#ifdef __NR_futex_wait
	case __NR_futex_wait:
#endif
		return CAUSALPROF_OFF_CPU_FUTEX;
	case __NR_nanosleep:
	case __NR_clock_nanosleep:
		return CAUSALPROF_OFF_CPU_SLEEP;
	}
	return CAUSALPROF_OFF_CPU_OTHER;
}

/* Whether this CPU has taken its max_off_cpu_rate share of waits already. */
static bool capped(struct cpu_state *cs, u64 now)
{
	if (!tbl.per_window)
		return false;
	if (now - cs->since >= WINDOW_NS) {
		cs->since = now;
		cs->used = 0;
	}
	return cs->used++ >= tbl.per_window;
}

/* t, current, leaves its CPU to wait: its stacks into its slot. */
static void leave(struct task_struct *t, unsigned long from, unsigned int skip, u64 now)
{
	struct cp_cpu_stats *st = this_cpu_ptr(&cp_cpu_stats);
	struct cpu_state *cs = this_cpu_ptr(tbl.cpus);
	bool truncated = false;
	struct wait *w;
	long i;

	if (capped(cs, now)) {
		local64_inc(&st->off_cpu_capped);
		local64_inc(&st->off_cpu_lost);
		return;
	}
	i = claim(t->pid);
	if (i < 0) {
		local64_inc(&st->off_cpu_untracked);
		local64_inc(&st->off_cpu_lost);
		return;
	}
	w = &tbl.waits[i];
	w->out_ns = now;
	w->pid = t->tgid;
	w->reason = reason(t);
	w->nk = 0;
	if (tbl.kmax)
		w->nk = cp_stack_kernel_from(from, skip, cs->kstack, w->ips, tbl.kmax, &truncated);
	w->nu = cp_stack_user_blocked(w->ips + w->nk, tbl.umax, cs->words, &truncated);
	w->sflags = truncated ? CAUSALPROF_SAMPLE_F_TRUNCATED : 0;
	/* Pairs with the acquire of the switch-in: the slot is written. */
	atomic64_set_release(&tbl.keys[i], KEY(t->pid, OUT));
}

/* An OFF_CPU record of the wait into ring. */
static bool put_wait(struct cp_ring *ring, const struct cp_agg_sample *a,
		     const struct cp_agg_wait *aw, u16 flags, unsigned long *start,
		     unsigned long *next)
{
	struct causalprof_off_cpu *rec;
	u32 size = struct_size(rec, ips, a->nk + a->nu);

	*start = ring->head;
	rec = cp_ring_reserve(ring, size, next);
	if (!rec)
		return false;
	rec->hdr.type = CAUSALPROF_REC_OFF_CPU;
	rec->hdr.flags = flags;
	rec->hdr.size = size;
	rec->time_ns = a->time_ns;
	rec->wait_ns = aw->wait_ns;
	rec->delay_ns = aw->delay_ns;
	rec->pid = a->pid;
	rec->tid = a->tid;
	rec->cpu = a->cpu;
	rec->reason = aw->reason;
	rec->sflags = a->sflags;
	rec->nr_kernel = a->nk;
	rec->nr_user = a->nu;
	memcpy(rec->ips, a->ips, (a->nk + a->nu) * sizeof(u64));
	cp_ring_commit(ring, *next);
	return true;
}

/*
 * Counts the wait (aggregated sessions: flags are not kept) or writes its
 * OFF_CPU record, in this CPU's ring and table, which the caller holds. A
 * wait the table has no room for goes out as an OFF_CPU record; a ring
 * without room loses it.
 */
static bool record(const struct wait *w, u32 tid, const struct cp_agg_wait *aw, u16 flags)
{
	int cpu = smp_processor_id();
	struct cp_ring *ring = cp_stream_cpu_ring(cpu);
	unsigned long start = 0, next = 0;
	struct cp_agg_sample a = {
		.ips = w->ips,
		.nk = w->nk,
		.nu = w->nu,
		.time_ns = w->out_ns,
		.pid = w->pid,
		.tid = tid,
		.cpu = cpu,
		.sflags = w->sflags,
	};

	if (tbl.agg) {
		switch (cp_agg_wait(ring, &a, aw, &start, &next)) {
		case CP_AGG_COUNTED:
			if (next)
				break;
			return true;
		case CP_AGG_LOST:
			return false;
		case CP_AGG_FULL:
			if (!put_wait(ring, &a, aw, flags, &start, &next))
				return false;
			break;
		}
	} else if (!put_wait(ring, &a, aw, flags, &start, &next)) {
		return false;
	}
	cp_stream_cpu_wrote(ring, start, next);
	return true;
}

/* t runs again on this CPU: its wait, if it had one, is recorded. */
static void enter(struct task_struct *t, u64 now)
{
	struct cp_cpu_stats *st = this_cpu_ptr(&cp_cpu_stats);
	u32 tid = t->pid;
	struct cp_agg_wait aw;
	const struct wait *w;
	u64 key, wake;
	u16 flags = 0;
	long i;
	bool ok;

	i = find(tid);
	if (i < 0)
		return;
	/* Pairs with the release of the switch-out and the waking's cmpxchg. */
	key = atomic64_read_acquire(&tbl.keys[i]);
	if (key != KEY(tid, OUT) && key != KEY(tid, WOKEN))
		return;
	w = &tbl.waits[i];
	now = max(now, w->out_ns);
	wake = now;
	if (key == KEY(tid, WOKEN))
		wake = clamp(READ_ONCE(w->wake_ns), w->out_ns, now);
	else
		flags = CAUSALPROF_OFF_CPU_F_NO_WAKE;
	aw = (struct cp_agg_wait){
		.wait_ns = wake - w->out_ns,
		.delay_ns = now - wake,
		.reason = w->reason,
	};
	ok = cp_stream_cpu_get() && record(w, tid, &aw, flags);
	cp_stream_cpu_put();
	local64_inc(ok ? &st->off_cpu : &st->off_cpu_lost);
	atomic64_set_release(&tbl.keys[i], KEY(tid, IDLE));
}

/*
 * sched_switch: prev leaves its CPU and next gets it; prev_state is prev's
 * if it leaves of its own accord (not preempted), else 0. from is the
 * hook's return address and skip the frames after it that are still the
 * tracepoint's (see cp_stack_kernel_from()). Targets only.
 */
void cp_offcpu_switch(struct task_struct *prev, unsigned int prev_state,
		      struct task_struct *next, unsigned long from, unsigned int skip)
{
	bool out, in;
	u64 t0;

	/*
	 * A thread that exits switches out for good (TASK_DEAD); one that
	 * had a signal waiting stays runnable (__schedule() made it
	 * TASK_RUNNING again): neither waits.
	 */
	out = prev_state && !(prev_state & TASK_DEAD) &&
	      READ_ONCE(prev->__state) != TASK_RUNNING && cp_target_match(prev);
	in = cp_target_match(next);
	if (!out && !in)
		return;
	t0 = ktime_get_mono_fast_ns();
	if (out)
		leave(prev, from, skip, t0);
	if (in)
		enter(next, t0);
	local64_add(ktime_get_mono_fast_ns() - t0, &this_cpu_ptr(&cp_cpu_stats)->off_cpu_ns);
}

/* sched_waking, in the waker's context, under p->pi_lock. Targets only. */
void cp_offcpu_wake(struct task_struct *p)
{
	long i = find(p->pid);

	if (i < 0)
		return;
	/*
	 * Written before the key says so (the cmpxchg is a full barrier);
	 * a waking that finds no OUT leaves a time nobody reads.
	 */
	WRITE_ONCE(tbl.waits[i].wake_ns, ktime_get_mono_fast_ns());
	atomic64_cmpxchg(&tbl.keys[i], KEY(p->pid, OUT), KEY(p->pid, WOKEN));
}

/* sched_process_exit, in t's context: its slot is free again. Targets only. */
void cp_offcpu_exit(struct task_struct *t)
{
	long i = find(t->pid);

	if (i >= 0)
		atomic64_set(&tbl.keys[i], KEY_TOMB);
}

/* Process context, before the hooks are registered. */
int cp_offcpu_start(const struct cp_config *cfg, struct netlink_ext_ack *extack)
{
	unsigned int n = clamp(READ_ONCE(off_cpu_threads), THREADS_MIN, THREADS_MAX);
	u32 rate = READ_ONCE(max_off_cpu_rate);

	if (!(cfg->flags & CAUSALPROF_F_OFF_CPU))
		return 0;
	tbl.bits = order_base_2(n);
	/*
	 * Charged to the caller's memory cgroup, failing there without its
	 * OOM killer or a warning: the start fails, saying so.
	 */
	tbl.keys = kvcalloc(1U << tbl.bits, sizeof(*tbl.keys),
			    GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	tbl.waits = __vmalloc(array_size(1U << tbl.bits, sizeof(*tbl.waits)),
			      GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN);
	tbl.cpus = alloc_percpu_gfp(struct cpu_state, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!tbl.keys || !tbl.waits || !tbl.cpus) {
		cp_offcpu_stop();
		NL_SET_ERR_MSG(extack,
			       "out of memory for the off-CPU threads (see off_cpu_threads)");
		return -ENOMEM;
	}
	tbl.per_window = rate ? max_t(u32, DIV_ROUND_UP(rate, WINDOWS_PER_S), 1) : 0;
	tbl.kmax = cfg->flags & CAUSALPROF_F_KERNEL_STACK ? CAUSALPROF_MAX_STACK : 0;
	tbl.umax = cfg->flags & CAUSALPROF_F_USER_STACK ? CAUSALPROF_MAX_STACK : 1;
	tbl.agg = cfg->flags & CAUSALPROF_F_AGGREGATE;
	return 0;
}

/* Once the hooks are gone (tracepoint_synchronize_unregister()). */
void cp_offcpu_stop(void)
{
	free_percpu(tbl.cpus);
	vfree(tbl.waits);
	kvfree(tbl.keys);
	tbl.cpus = NULL;
	tbl.waits = NULL;
	tbl.keys = NULL;
}
