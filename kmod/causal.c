// SPDX-License-Identifier: GPL-2.0
/*
 * Experiments: Coz's virtual speedups, in the kernel. While an experiment
 * runs, a sample of a target thread whose user IP, or one of whose user
 * return addresses - 1, lies in the selected code is a hit: the thread's
 * local delay grows by speedup * period, and the global delay becomes the
 * largest local one (threads that run the selected code at the same time
 * delay the others once, not once each). A thread that hits while it owes
 * more than two periods runs the code at another point of virtual time
 * than the threads that are even: its hits add to the global delay.
 * Every target thread owes global - local (plus a lag, below) and pays by
 * sleeping in task context: the overflow handler queues task_work that
 * runs on the thread's return to user mode, and so does the wake-up of a
 * thread that owes (queue_wake_payment()). A new thread starts owing what
 * its parent owes.
 *
 * Wake-ups (cp_causal_wake()) follow Coz's rule, with what Coz gets from
 * wrapping pthreads done at the wake-up instead: Coz makes a waker pay
 * what it owes before it wakes anyone, and credits the wakee with the
 * delay inserted while it waited. In the kernel the waker cannot sleep at
 * try_to_wake_up(), so the wake-up comes early by what the waker owes, and
 * the wakee takes that on as its lag: it owes at least as much as its
 * waker. A thread that blocked owing a debt counts the time it was blocked
 * as paid: where Coz would have paid first and blocked after, the wait
 * began that much later.
 *
 * Contexts: cp_causal_sample() runs in NMI or hard irq, the hooks under
 * the scheduler's locks; both only read exp and update the task table with
 * atomics. Start and stop run under the session lock. A stop makes every
 * later hook a no-op, waits (synchronize_rcu()) for those that saw the
 * experiment running, then wakes every payer.
 *
 * At its stop an experiment's result (struct causalprof_experiment) is
 * built here from the counters and from the progress points' snapshots at
 * start and stop, both taken under the session lock; the session streams
 * it.
 *
 * Queued work holds a module reference, taken in the handler with
 * try_module_get() (which fails once rmmod found no reference) and dropped
 * as the work's last action: the module cannot go while a task_works list
 * points at its code or its table (task_work_cancel() is not exported).
 */

#include "causal.h"
#include "compat.h"
#include "gohooks.h"
#include "progress.h"
#include "sideband.h"
#include "tasks.h"

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/stat.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

/*
 * A payment is one sleep: at most a second, whatever the parameter says,
 * so that no thread sleeps for long at once in the module's code.
 */
#define MAX_PAUSE_US_MAX	1000000U

static unsigned int max_pause_us = 10000;
module_param(max_pause_us, uint, 0644);
MODULE_PARM_DESC(max_pause_us, "Longest single payment, microseconds (default 10000, at most 1000000)");

static struct {
	u32 id;			/* current or last experiment; 0: none yet */
	u32 live;		/* id while running, else 0 */
	u32 speedup;		/* per mille */
	struct cp_starter starter;
	unsigned int nr_ranges;
	struct cp_range ranges[CP_MAX_RANGES];
	u64 start_ns, end_ns;	/* CLOCK_MONOTONIC */
	u64 max_pause_ns;
	atomic64_t global;	/* ns */
	atomic64_t hits;
	atomic64_t payments;
	atomic64_t paid_ns;
	atomic64_t tasks_paid;
	atomic64_t capped;
	atomic64_t inherited;
	atomic64_t table_full;
	atomic64_t spins, spun_ns;	/* payments paid by spinning */
	struct {			/* struct causalprof_exp_acct */
		atomic64_t asked_ns, overshoot_ns, max_overshoot_ns, short_ns;
		atomic64_t credited_ns, inherited_ns;
		atomic64_t wake_queued, sample_queued;
		atomic64_t selected_ns, absorbed_ns;
		atomic64_t visits, visit_ns;	/* struct causalprof_exp_visits */
	} acct;
	u64 owed_ns, owing;		/* at the stop, under the session lock */
	atomic_t paying;	/* tasks in settle(), paying or about to */
	u32 sealed;		/* its counters are final; under seal_lock */

	/* Progress points at the start, and now (under the session lock). */
	unsigned int nr_snap0, nr_snap;
	struct cp_progress_snap snap0[CP_MAX_PROGRESS];
	struct cp_progress_snap snap[CP_MAX_PROGRESS];
} exp;

/* The last experiment's result, built at its stop; under the session lock. */
static union {
	struct causalprof_experiment rec;
	u64 buf[DIV_ROUND_UP(CP_EXP_RECORD_MAX, 8)];
} result;

static struct causalprof_exp_point *result_points(void)
{
	struct causalprof_exp_range *rg = (void *)(&result.rec + 1);

	return (void *)(rg + result.rec.nr_ranges);
}

static DECLARE_WAIT_QUEUE_HEAD(pay_wq);
static DECLARE_WAIT_QUEUE_HEAD(done_wq);
/* Payers account under it; the stop seals the experiment under it. */
static DEFINE_SPINLOCK(seal_lock);

/* The running experiment's id, or 0. Its settings are visible once this is. */
static u32 exp_current(void)
{
	/* Pairs with the release in cp_causal_start(). */
	return smp_load_acquire(&exp.live);
}

static bool exp_live(u32 id)
{
	return exp_current() == id;
}

bool cp_causal_running(void)
{
	return READ_ONCE(exp.live);
}

u32 cp_causal_live_id(void)
{
	return READ_ONCE(exp.live);
}

/*
 * Any context: the running experiment's id (0: none) and the delay
 * inserted in it so far, for timing a progress point's hits.
 */
u32 cp_causal_clock(u64 *inserted_ns)
{
	u32 id = exp_current();

	*inserted_ns = id ? atomic64_read(&exp.global) : 0;
	return id;
}

/*
 * Under the session lock, with the session's hooks and counters running.
 * *id: the experiment's number.
 */
int cp_causal_start(u32 speedup, const struct cp_range *ranges, unsigned int nr,
		    const struct cp_starter *starter, u32 *id)
{
	int ret;

	if (exp.live)
		return -EBUSY;
	if (speedup > 1000 || !nr || nr > CP_MAX_RANGES)
		return -EINVAL;
	ret = cp_tasks_reset();
	if (ret)
		return ret;

	exp.speedup = speedup;
	exp.starter = *starter;
	exp.nr_ranges = nr;
	memcpy(exp.ranges, ranges, nr * sizeof(*ranges));
	exp.max_pause_ns = clamp(READ_ONCE(max_pause_us), 1U, MAX_PAUSE_US_MAX) * NSEC_PER_USEC;
	atomic64_set(&exp.global, 0);
	atomic64_set(&exp.hits, 0);
	atomic64_set(&exp.payments, 0);
	atomic64_set(&exp.paid_ns, 0);
	atomic64_set(&exp.tasks_paid, 0);
	atomic64_set(&exp.capped, 0);
	atomic64_set(&exp.inherited, 0);
	atomic64_set(&exp.table_full, 0);
	atomic64_set(&exp.spins, 0);
	atomic64_set(&exp.spun_ns, 0);
	atomic64_set(&exp.acct.asked_ns, 0);
	atomic64_set(&exp.acct.overshoot_ns, 0);
	atomic64_set(&exp.acct.max_overshoot_ns, 0);
	atomic64_set(&exp.acct.short_ns, 0);
	atomic64_set(&exp.acct.credited_ns, 0);
	atomic64_set(&exp.acct.inherited_ns, 0);
	atomic64_set(&exp.acct.wake_queued, 0);
	atomic64_set(&exp.acct.sample_queued, 0);
	atomic64_set(&exp.acct.selected_ns, 0);
	atomic64_set(&exp.acct.absorbed_ns, 0);
	atomic64_set(&exp.acct.visits, 0);
	atomic64_set(&exp.acct.visit_ns, 0);
	exp.nr_snap0 = cp_progress_snapshot(exp.snap0, CP_MAX_PROGRESS);
	exp.start_ns = ktime_get_ns();
	exp.end_ns = 0;
	spin_lock(&seal_lock);
	exp.id++;
	if (!exp.id)
		exp.id++;
	spin_unlock(&seal_lock);
	*id = exp.id;
	/* Settings and table first: pairs with exp_current(). */
	smp_store_release(&exp.live, exp.id);
	return 0;
}

/*
 * Under the session lock: progress point id was removed. Added again
 * during the experiment, it counts from then, like any point added since
 * the start.
 */
void cp_causal_point_gone(u32 id)
{
	unsigned int i;

	if (!exp.live)
		return;
	for (i = 0; i < exp.nr_snap0; i++)
		if (exp.snap0[i].id == id)
			exp.snap0[i] = exp.snap0[--exp.nr_snap0];
}

/*
 * What a point counted since the experiment started; a point added since
 * (see cp_causal_point_gone()) has no start snapshot and counts from 0.
 */
static void point_delta(const struct cp_progress_snap *now, struct causalprof_exp_point *pt)
{
	const struct cp_progress_snap *then = NULL;
	unsigned int i;

	for (i = 0; i < exp.nr_snap0; i++)
		if (exp.snap0[i].id == now->id)
			then = &exp.snap0[i];

	pt->id = now->id;
	pt->kind = now->kind;
	pt->count = now->count - (then ? then->count : 0);
	pt->ends = now->ends - (then ? then->ends : 0);
	pt->area_ns = now->area_ns - (then ? then->area_ns : 0);
	pt->inflight = then ? then->inflight : 0;
}

/* A throughput point's timed hits in this experiment (none: all 0). */
static void point_span(const struct cp_progress_snap *now, struct causalprof_exp_span *sp)
{
	if (now->span_xp != exp.id || !now->span_hits)
		return;
	sp->first_ns = now->span_first;
	sp->last_ns = now->span_last;
	sp->inserted_ns = now->last_inserted - now->first_inserted;
	sp->hits = now->span_hits;
}

/* The result of the experiment that just stopped, with exp.snap taken at its end. */
static void build_result(u16 flags)
{
	struct causalprof_experiment *rec = &result.rec;
	struct causalprof_exp_range *rg = (void *)(rec + 1);
	struct causalprof_exp_point *pt;
	struct causalprof_exp_span *sp;
	struct causalprof_exp_acct *ac;
	struct causalprof_exp_visits *vi;
	unsigned int i;

	memset(&result, 0, sizeof(result));
	rec->nr_ranges = exp.nr_ranges;
	rec->nr_points = exp.nr_snap;
	pt = result_points();
	sp = (void *)(pt + exp.nr_snap);
	rec->hdr.type = CAUSALPROF_REC_EXPERIMENT;
	ac = (void *)(sp + exp.nr_snap);
	vi = (void *)(ac + 1);
	rec->hdr.flags = flags | CAUSALPROF_EXP_F_SPANS | CAUSALPROF_EXP_F_ACCT |
			 CAUSALPROF_EXP_F_VISITS;
	rec->hdr.size = (void *)(vi + 1) - (void *)rec;
	rec->time_ns = exp.end_ns;
	rec->start_ns = exp.start_ns;
	rec->wall_ns = exp.end_ns - exp.start_ns;
	rec->inserted_ns = atomic64_read(&exp.global);
	rec->hits = atomic64_read(&exp.hits);
	rec->payments = atomic64_read(&exp.payments);
	rec->paid_ns = atomic64_read(&exp.paid_ns);
	rec->capped = atomic64_read(&exp.capped);
	rec->inherited = atomic64_read(&exp.inherited);
	rec->table_full = atomic64_read(&exp.table_full);
	rec->id = exp.id;
	rec->speedup = exp.speedup;
	rec->tasks_paid = atomic64_read(&exp.tasks_paid);
	for (i = 0; i < exp.nr_ranges; i++) {
		rg[i].pid = exp.ranges[i].tgid;
		rg[i].start = exp.ranges[i].start;
		rg[i].end = exp.ranges[i].end;
	}
	for (i = 0; i < exp.nr_snap; i++) {
		point_delta(&exp.snap[i], &pt[i]);
		point_span(&exp.snap[i], &sp[i]);
	}
	ac->asked_ns = atomic64_read(&exp.acct.asked_ns);
	ac->overshoot_ns = atomic64_read(&exp.acct.overshoot_ns);
	ac->max_overshoot_ns = atomic64_read(&exp.acct.max_overshoot_ns);
	ac->short_ns = atomic64_read(&exp.acct.short_ns);
	ac->credited_ns = atomic64_read(&exp.acct.credited_ns);
	ac->inherited_ns = atomic64_read(&exp.acct.inherited_ns);
	ac->owed_ns = exp.owed_ns;
	ac->owing = exp.owing;
	ac->wake_queued = atomic64_read(&exp.acct.wake_queued);
	ac->sample_queued = atomic64_read(&exp.acct.sample_queued);
	ac->selected_ns = atomic64_read(&exp.acct.selected_ns);
	ac->absorbed_ns = atomic64_read(&exp.acct.absorbed_ns);
	vi->visits = atomic64_read(&exp.acct.visits);
	vi->visit_ns = atomic64_read(&exp.acct.visit_ns);
}

static s64 owed(struct cp_task *t);

/*
 * A thread that never pays: the starter may not delay it (CP_TASK_EXEMPT),
 * or it is a Go runtime's monitor (cp_go_monitor()). Any context.
 */
static bool never_pays(struct cp_task *t)
{
	return (atomic_read(&t->flags) & CP_TASK_EXEMPT) || cp_go_monitor(atomic_read(&t->tid));
}

/*
 * Under the session lock, at the stop, the counters sealed: what the
 * threads that are not asleep still owe (delay subtracted from the
 * experiment's time that nobody paid). The table's slots are atomics; an
 * exited thread's slot is dead and owes nothing.
 */
static void sum_owed(void)
{
	unsigned int i, n = cp_tasks_size();
	struct cp_task *t;
	s64 debt;

	exp.owed_ns = 0;
	exp.owing = 0;
	for (i = 0; i < n; i++) {
		t = cp_task_at(i);
		/* Asleep (blocked, not woken): its wait pays, or its wake-up will. */
		if (atomic_read(&t->tid) <= 0 || (atomic_read(&t->flags) & CP_TASK_BLOCKED) ||
		    never_pays(t))
			continue;
		debt = owed(t);
		if (debt > 0) {
			exp.owed_ns += debt;
			exp.owing++;
		}
		if (!(i % 4096))
			cond_resched();
	}
}

/*
 * Under the session lock. Debts are cancelled: nothing is queued or paid
 * for this experiment any more, and sleeping payers wake up. Then, with the
 * counters final, *res is the experiment's record (flags in its
 * header), valid until the next start or stop.
 */
int cp_causal_stop(u16 flags, const struct causalprof_experiment **res)
{
	BUILD_BUG_ON(CP_MAX_POINTS != CP_MAX_PROGRESS);
	BUILD_BUG_ON(sizeof(struct causalprof_experiment) % 8 ||
		     sizeof(struct causalprof_exp_range) % 8 ||
		     sizeof(struct causalprof_exp_point) % 8 ||
		     sizeof(struct causalprof_exp_span) % 8);

	if (!exp.live)
		return -ENOENT;
	WRITE_ONCE(exp.live, 0);
	exp.end_ns = ktime_get_ns();
	exp.nr_snap = cp_progress_snapshot(exp.snap, CP_MAX_PROGRESS);
	/*
	 * Handlers and hooks that saw it running are done; a payer that
	 * counts itself in paying from now on sees it stopped: the grace
	 * period implies a full barrier between the store above and the
	 * read of paying below (see settle()).
	 */
	synchronize_rcu();
	wake_up_all(&pay_wq);
	/*
	 * The payers' totals are final once they are awake. One that is not
	 * scheduled within a second (a frozen task) accounts nothing once
	 * the experiment is sealed: the record's counters never move after.
	 */
	wait_event_timeout(done_wq, !atomic_read(&exp.paying), HZ);
	spin_lock(&seal_lock);
	exp.sealed = exp.id;
	spin_unlock(&seal_lock);
	sum_owed();
	build_result(flags);
	*res = &result.rec;
	return 0;
}

/* At unload: the module's references say no work is queued any more. */
/*
 * A payment queued from NMI (a hardware PMU's overflow) before 6.11, where
 * task_work_add() is not NMI-safe and the return from NMI to user mode
 * does not run task work (compat.h): the handler leaves the work in this
 * CPU's slot and raises an irq_work, as perf does for its own NMI-time
 * work. Its self-interrupt comes as soon as the NMI returns, on the same
 * task, and queues the work from hard-irq context, whose return to user
 * mode runs it. A slot still busy, or a task no longer current: nothing is
 * queued and the debt stays owed, to be paid after a later sample. The
 * module reference taken for the payment is dropped here then; the module's
 * exit waits for the irq_works (irq_work_sync) before its text goes.
 */
struct nmi_pay {
	struct irq_work iw;
	struct task_struct *task;	/* compared with current, never dereferenced */
	struct cp_task *t;
};

static DEFINE_PER_CPU(struct nmi_pay, nmi_pay);

/* A payment claimed (claim_payment()) but not queued after all. */
static void unclaim_payment(struct cp_task *t)
{
	atomic_andnot(CP_TASK_QUEUED | CP_TASK_WAKEPAY, &t->flags);
	module_put(THIS_MODULE);
}

static void nmi_pay_queue(struct irq_work *iw)
{
	struct nmi_pay *np = container_of(iw, struct nmi_pay, iw);
	struct cp_task *t = np->t;

	if (np->task == current && !task_work_add(current, &t->work, TWA_RESUME))
		return;
	unclaim_payment(t);
}

/* For testing the NMI path without a PMU: hard-irq payments take it too. */
static bool defer_payments;
module_param(defer_payments, bool, 0644);
MODULE_PARM_DESC(defer_payments, "Test: queue payments through irq_work, as from NMI (default 0)");

/* From the overflow handler: current's payment t->work; false if not queued. */
static bool queue_payment(struct cp_task *t)
{
	struct nmi_pay *np;

	if (!cp_nmi_defers_task_work() && !READ_ONCE(defer_payments))
		return !task_work_add(current, &t->work, cp_twa_current());
	np = this_cpu_ptr(&nmi_pay);
	if (irq_work_is_busy(&np->iw))
		return false;
	np->task = current;
	np->t = t;
	return irq_work_queue(&np->iw);
}

void __init cp_causal_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(per_cpu_ptr(&nmi_pay.iw, cpu), nmi_pay_queue);
}

void cp_causal_uninit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&nmi_pay.iw, cpu));
	cp_tasks_free();
}

/*
 * Debts are paid once they reach this. Every payment costs a timer and two
 * context switches (in a VM, a vCPU halted and woken up again, which slows
 * the other vCPUs down): paying, at every sample, the little the last
 * samples' hits added costs more than it delays, and slows the threads the
 * experiment must not slow. (Coz pays every ten samples.)
 */
static unsigned int min_pause_us = 2000;
module_param(min_pause_us, uint, 0644);
MODULE_PARM_DESC(min_pause_us, "Smallest debt a thread pays, microseconds (default 2000)");

/*
 * spin_pause_us (default 2000; 0 turns it off): a thread woken from a wait
 * pays from spin_min_us on, and a debt below spin_pause_us by spinning
 * where its CPU has nothing else to run (single_task_running()): no timer,
 * no wake-up latency, so the payment ends on time. Paying only debts of
 * min_pause_us, a thread woken to take the lock that a selected section's
 * thread released pays that section's delay later, often while it holds
 * the lock, and holds the next holder up: with spin_pause_us 0 the
 * two-thread futex lock on two vCPUs reads 10 points low at 60 %; with
 * 2000, 3 to 5 points at 20, 40 and 60 % (bench/RESULTS.md 2026-11-27).
 * What a woken thread took on from its waker is not due at once
 * (wake_due()): paid there, on the lock's path, it read other(), the code
 * outside the lock, at -19 % where its truth is 0. A pipe's producer, the
 * waker, owes nothing, and its consumer ran as long per experiment either
 * way. bench/causalsim.py models the rules and reproduced the futex lock's
 * numbers both ways.
 * Samples queue only debts of min_pause_us, paid asleep (spinning there
 * made the pipe's consumer 10 % slower). Where another task is runnable,
 * spinning would take its time (on one CPU the very thread the payer waits
 * for): the payer sleeps, and only debts of min_pause_us.
 * With one CPU online these rules are off, as with spin_pause_us 0: the
 * wake-up latency they avoid is time the other threads run on that CPU,
 * not time lost, and on one vCPU under -icount the pipe's produce() at
 * 60 % read 1.7 points further from its truth with them (bench/RESULTS.md
 * 2026-11-28).
 */
static unsigned int spin_pause_us = 2000;
module_param(spin_pause_us, uint, 0644);
MODULE_PARM_DESC(spin_pause_us, "A woken thread pays debts below this by spinning where nothing else is runnable, microseconds (default 2000; 0: never; never with one CPU online)");

static unsigned int spin_min_us = 100;
module_param(spin_min_us, uint, 0644);
MODULE_PARM_DESC(spin_min_us, "Smallest debt a woken thread pays, microseconds (default 100)");

/* Do the rules of spin_pause_us hold now? */
static bool spin_rules(void)
{
	return READ_ONCE(spin_pause_us) && num_online_cpus() > 1;
}

static s64 us_ns(u32 us)
{
	return max_t(s64, (s64)us * NSEC_PER_USEC, 1);
}

static s64 min_pause(void)
{
	return us_ns(READ_ONCE(min_pause_us));
}

/* The least debt a woken thread pays: where it may spin, or anyway. */
static s64 spin_least(void)
{
	if (!spin_rules())
		return min_pause();
	return us_ns(min(READ_ONCE(min_pause_us), READ_ONCE(spin_min_us)));
}

/* Task or irq context: may current pay a debt by spinning, now? */
static bool may_spin(void)
{
	return spin_rules() && single_task_running();
}

/*
 * What a woken t owes at once: with spin_pause_us, its own debt, not the
 * part it took on from its waker (keep), left to the samples: the waker
 * owes that too and pays it itself, and a wakee that paid it at once paid
 * it on the path of whatever the waker handed over (other() of the futex
 * lock, which does not matter, read -11 % in bench/causalsim.py, -4 so).
 */
static s64 wake_due(struct cp_task *t)
{
	if (!spin_rules())
		return owed(t);
	return owed(t) - atomic64_read(&t->keep);
}

/*
 * The least debt current pays next: a payment that began spinning goes on
 * down to spin_least(), asleep where the CPU became wanted (the task that
 * wants it takes the pause's time, not the payer's work); a woken thread
 * pays from spin_least() on where it may spin now; else min_pause().
 */
static s64 pay_least(bool woken, bool spinning)
{
	if (spinning || (woken && may_spin()))
		return spin_least();
	return min_pause();
}

/* What t owes now, ns (may be negative). */
static s64 owed(struct cp_task *t)
{
	return atomic64_read(&exp.global) - atomic64_read(&t->local) + atomic64_read(&t->lag);
}

static void raise_global(s64 local);

static void atomic64_max(atomic64_t *v, s64 val)
{
	s64 old = atomic64_read(v);

	while (val > old && !atomic64_try_cmpxchg(v, &old, val))
		;
}

/*
 * Overshoot: a payment that slept longer than it asked (timer slack, the
 * wake-up's latency: under TCG a halted vCPU is woken late) paid delay
 * ahead: the thread owes that much less next (its local delay is ahead).
 * Coz's add_delays() goes further: a thread ahead of the global delay
 * raises it, so that the others owe the excess too and the effective
 * time does not count it. That feeds back (the others' payments overshoot
 * in turn: with min_pause_us 300 and three threads on two vCPUs the
 * inserted delay ran away), and on one CPU it makes the thread that hits
 * pay the others' overshoot: off by default, 1 to measure with it.
 * Payments end early instead (sleep_for()).
 */
static bool overshoot_global;
module_param(overshoot_global, bool, 0644);
MODULE_PARM_DESC(overshoot_global, "A payment's overshoot raises the global delay, as in Coz (default 0)");

/*
 * Paid slept ns of asked: its lag first. Only t itself pays, so lag only
 * grows meanwhile.
 */
static void account(struct cp_task *t, u64 asked, u64 slept, bool capped)
{
	s64 lag = atomic64_read(&t->lag), off = min_t(s64, max_t(s64, lag, 0), slept);

	atomic64_sub(off, &t->lag);
	atomic64_add(slept - off, &t->local);
	if (READ_ONCE(overshoot_global))
		raise_global(atomic64_read(&t->local) - atomic64_read(&t->lag));
	atomic64_add(asked, &exp.acct.asked_ns);
	if (slept > asked) {
		atomic64_add(slept - asked, &exp.acct.overshoot_ns);
		atomic64_max(&exp.acct.max_overshoot_ns, slept - asked);
	} else {
		atomic64_add(asked - slept, &exp.acct.short_ns);
	}
	atomic64_add(slept, &t->paid_ns);
	atomic_inc(&t->payments);
	atomic64_inc(&exp.payments);
	atomic64_add(slept, &exp.paid_ns);
	if (capped)
		atomic64_inc(&exp.capped);
	if (!(atomic_fetch_or(CP_TASK_PAID, &t->flags) & CP_TASK_PAID))
		atomic64_inc(&exp.tasks_paid);
}

/*
 * The session checked, when the experiment started, that its starter may
 * ptrace-attach the target. A target may have changed since: a process
 * that execs a setuid program keeps being a target, and its children too.
 * So the payer itself, in task context, is judged again by the starter's
 * credentials, held since (ptrace_may_access() is not exported, and would
 * judge current's credentials and let current through: see access.c), and
 * not delayed when it fails; the session is told. With any (CAP_SYS_PTRACE
 * in the initial namespace, or CAP_SYS_ADMIN for a system-wide session)
 * every thread may be delayed. The session releases the credentials after
 * the stop, whose grace period waits for this read-side section.
 */
static bool may_delay_current(u32 id)
{
	bool ok;

	rcu_read_lock();
	ok = !exp_live(id) || exp.starter.any ||
	     cp_caller_may_attach(&exp.starter.caller, current);
	if (!ok)
		cp_sideband_denied(current, 0, CAUSALPROF_DENIED_F_DELAYS);
	rcu_read_unlock();
	return ok;
}

/*
 * A payment's sleep ends late: the timer's slack, the wake-up's latency
 * (under TCG a halted vCPU is woken a fifth of a millisecond late, 12-17 %
 * of what payments asked on two vCPUs). The overshoot is credited to the
 * payer, so it owes that much less later, but a payment on the critical
 * path (a thread woken to take a lock, paying first) holds everybody up by
 * it, and its credit is spent later where nobody waits: the program runs
 * slower by every overshoot, and nothing subtracts it. Raising the global
 * delay by it, as Coz does (overshoot_global), feeds back: the others owe
 * it, pay it, overshoot in turn (runaway at min_pause_us 300 with three
 * threads). Instead a payment asks the timer to end it early by how late
 * recent wake-ups came (pay_late_ns, a moving average of slept - asked,
 * at most half the payment), so that it ends on time on average; what it
 * really slept is still what is credited.
 */
static bool pay_early = true;
module_param(pay_early, bool, 0644);
MODULE_PARM_DESC(pay_early, "End payments early by the recent wake-up latency (default 1; 0 to measure without)");

static atomic64_t pay_late_ns;

/* The sleep to ask the timer for, for a payment of amount ns. */
static u64 sleep_for(u64 amount)
{
	s64 late = atomic64_read(&pay_late_ns);

	if (!READ_ONCE(pay_early) || late <= 0)
		return amount;
	return amount - min_t(u64, late, amount / 2);
}

/* A sleep asked for asked ns lasted slept: late by the difference. */
static void pay_late(u64 asked, u64 slept)
{
	s64 late = (s64)slept - (s64)asked, avg = atomic64_read(&pay_late_ns);

	/* A signal or the stop ended it early: no measure of the timer. */
	if (late < 0)
		return;
	late = min_t(s64, late, (s64)asked);
	atomic64_set(&pay_late_ns, avg + (late - avg) / 8);
}

/*
 * Spin for amount ns, or less where the CPU is wanted (another task became
 * runnable, or needs it), a signal came or the experiment stopped; returns
 * the time spun.
 */
static u64 spin_for(u64 amount, u32 id)
{
	u64 t0 = ktime_get_ns(), now = t0;

	while (now - t0 < amount && exp_live(id) && !signal_pending(current) &&
	       !need_resched() && single_task_running())
		now = ktime_get_ns();
	return now - t0;
}

/*
 * On the way back to user mode: sleep off what the thread owes,
 * max_pause_us at a time, until it owes less than min_pause_us (a woken
 * thread: spin it off, or sleep where it may not spin, down to
 * pay_least()). As in Coz, the time
 * actually slept or spun is what is credited, also when the experiment's
 * stop cut the sleep short: the stop waits for its payers before it seals
 * the totals, and no experiment starts before.
 *
 * The payer counts itself in paying before it checks that the experiment
 * runs (a full barrier between): either the stop, which clears live and
 * then waits for a grace period before it reads paying, sees it, or it
 * sees the experiment stopped. The sleep is interruptible, like Coz's
 * nanosleep(): a payment is no uninterruptible wait (no D state, nothing
 * for the hung task detector), and a signal ends it early, the time slept
 * credited.
 */
static noinline void settle(struct cp_task *t)
{
	bool woken = atomic_read(&t->flags) & CP_TASK_WAKEPAY, spun, spinning = false;
	s64 debt, least = pay_least(woken, false);
	u32 id = t->exp;
	u64 t0, slept, amount, asked;

	if (current->flags & PF_EXITING)
		return;
	atomic_inc(&exp.paying);
	/* Pairs with the grace period in cp_causal_stop(). */
	smp_mb__after_atomic();
	if (!exp_live(id))
		goto out;
	if (!may_delay_current(id)) {
		atomic_or(CP_TASK_EXEMPT, &t->flags);
		goto out;
	}
	atomic_or(CP_TASK_PAYING, &t->flags);
	/*
	 * Again while what was inserted during the sleep is due: a thread
	 * that ran between its payments would work while it owes, and with
	 * the selected code running all the time it would never catch up.
	 */
	while (exp_live(id) && !signal_pending(current) &&
	       (debt = woken ? wake_due(t) : owed(t)) >= least) {
		amount = min_t(u64, debt, exp.max_pause_ns);
		spun = woken && amount < (u64)READ_ONCE(spin_pause_us) * NSEC_PER_USEC &&
		       may_spin();
		if (spun) {
			slept = spin_for(amount, id);
			spinning = true;
		} else {
			/* After a spin, the CPU is wanted: no halt to wake from. */
			asked = spinning ? amount : sleep_for(amount);
			t0 = ktime_get_ns();
			__wait_event_hrtimeout(pay_wq, !exp_live(id), ns_to_ktime(asked),
					       TASK_INTERRUPTIBLE);
			slept = ktime_get_ns() - t0;
			if (!spinning && exp_live(id) && !signal_pending(current))
				pay_late(asked, slept);
		}
		spin_lock(&seal_lock);
		if (exp.id != id || exp.sealed == id) {
			spin_unlock(&seal_lock);
			break;
		}
		account(t, amount, slept, amount < debt);
		if (spun) {
			atomic64_inc(&exp.spins);
			atomic64_add(slept, &exp.spun_ns);
		}
		spin_unlock(&seal_lock);
		least = pay_least(woken, spinning);
	}
	atomic_andnot(CP_TASK_PAYING, &t->flags);
out:
	if (atomic_dec_and_test(&exp.paying))
		wake_up(&done_wq);
}

/*
 * The task_work. Once the module reference is gone the module may be
 * freed, so no instruction of the module may run after module_put(): pay()
 * has nothing on its stack to check or unwind, and the call is its last
 * action, compiled as a tail call (a jump: Kbuild keeps sibling calls on
 * for this file and fails the build when kmod/check-pay finds none).
 */
static void pay(struct callback_head *work)
{
	struct cp_task *t = container_of(work, struct cp_task, work);

	settle(t);
	atomic_andnot(CP_TASK_QUEUED | CP_TASK_WAKEPAY, &t->flags);
	module_put(THIS_MODULE);
}

/*
 * t's payment work, for experiment id: false if one is queued already, or
 * once rmmod has seen no module reference (nothing may be queued then).
 * The caller queues it, or gives it back with unclaim_payment().
 */
static bool claim_payment(struct cp_task *t, u32 id)
{
	if (atomic_fetch_or(CP_TASK_QUEUED, &t->flags) & CP_TASK_QUEUED)
		return false;
	if (!try_module_get(THIS_MODULE)) {
		atomic_andnot(CP_TASK_QUEUED, &t->flags);
		return false;
	}
	t->exp = id;
	init_task_work(&t->work, pay);
	return true;
}

/*
 * What a hit weighs: the time since the previous tick of its CPU's
 * cpu-clock timer, whatever that tick interrupted (cp_causal_tick(), also
 * called for ticks in the idle task or in other tasks). Each tick stands
 * for its CPU's interval, as a sample of a regular timer does; a tick that
 * comes late or not at all (a vCPU its host did not run, interrupts long
 * off: under TCG with two vCPUs a third of them were missing) makes the
 * next one's interval longer, so no time is lost. Nominal periods would
 * have the selected code read short, the delay inserted too small and
 * every prediction low on several CPUs. The thread's own run time since
 * its previous sample (the weight before 2026-11-27) reads long where a
 * thread blocks between ticks: the time it ran before it blocked went to
 * its first sample after the wake-up, which lands in the code that
 * follows the wait (a critical section after its lock: 73-78 % of a
 * thread's time where 67 % ran there, bench/RESULTS.md). A CPU's first
 * tick, and an interval past CP_MAX_LATE periods (the timer was stopped:
 * throttled, or the CPU offline), stand for the nominal period.
 */
#define CP_MAX_LATE	64	/* periods */

static DEFINE_PER_CPU(u64, tick_at);	/* local_clock() of the last tick */
static DEFINE_PER_CPU(u64, tick_len);	/* the interval it ended; 0: none */

/* Hard irq: every tick of the cpu-clock event that times the hits. */
void cp_causal_tick(void)
{
	u64 now = local_clock(), prev = __this_cpu_read(tick_at);

	__this_cpu_write(tick_at, now);
	__this_cpu_write(tick_len, prev ? now - prev : 0);
}

/* Hard irq, right after cp_causal_tick() on the same CPU. */
static u64 sample_weight(u64 period)
{
	u64 len = __this_cpu_read(tick_len);

	return len && len <= period * CP_MAX_LATE ? len : period;
}

static bool in_ranges(pid_t tgid, const u64 *uips, unsigned int nu)
{
	unsigned int i, r;
	u64 ip;

	for (i = 0; i < nu; i++) {
		ip = i ? uips[i] - 1 : uips[0];
		for (r = 0; r < exp.nr_ranges; r++)
			if (exp.ranges[r].tgid == tgid && ip >= exp.ranges[r].start &&
			    ip < exp.ranges[r].end)
				return true;
	}
	return false;
}

static void raise_global(s64 local)
{
	atomic64_max(&exp.global, local);
}

/* A hit of @delay ns by @t. */
static void hit(struct cp_task *t, s64 delay)
{
	s64 g = atomic64_read(&exp.global), behind = g - atomic64_read(&t->local);

	atomic64_inc(&exp.hits);
	if (behind > 2 * delay) {
		atomic64_add(delay, &t->local);
		atomic64_add(delay, &exp.global);
		return;
	}
	raise_global(atomic64_add_return(delay, &t->local));
	/* What did not raise it (racy against other hitters: a statistic) */
	atomic64_add(delay - clamp_t(s64, atomic64_read(&exp.global) - g, 0, delay),
		     &exp.acct.absorbed_ns);
}

/*
 * NMI or hard irq, current is a target task. Payment is queued only from a
 * sample that interrupted user mode: the work then runs on the way back
 * from this very interrupt (from an NMI before 6.11: at the next return to
 * user mode, see cp_twa_current()), so it never waits (holding a module
 * reference) behind a syscall that blocks for long; a sample in the kernel
 * still counts as a hit.
 */
void cp_causal_sample(u64 period, bool timed, bool user, const u64 *uips, unsigned int nu)
{
	u32 id = exp_current();
	struct cp_task *t;
	u64 weight;
	s64 debt;

	if (!id || (current->flags & (PF_KTHREAD | PF_EXITING)))
		return;
	t = cp_task_get(current->pid, true);
	if (!t) {
		atomic64_inc(&exp.table_full);
		return;
	}
	weight = timed ? sample_weight(period) : 0;
	if (atomic_read(&t->flags) & CP_TASK_PAYING)
		return;
	/* It runs: marks of a wait are stale. */
	if (atomic_read(&t->flags) & (CP_TASK_BLOCKED | CP_TASK_WOKEN))
		atomic_andnot(CP_TASK_BLOCKED | CP_TASK_WOKEN, &t->flags);
	if (timed && nu && in_ranges(current->tgid, uips, nu)) {
		atomic64_add(weight, &exp.acct.selected_ns);
		hit(t, weight * exp.speedup / 1000);
	}
	debt = owed(t);
	if (!user || debt <= 0 || debt < min_pause())
		return;
	if (never_pays(t))
		return;
	if (!claim_payment(t, id))
		return;
	if (queue_payment(t))
		atomic64_inc(&exp.acct.sample_queued);
	else
		unclaim_payment(t);
}

/*
 * A progress point's hit by current, a target, in task context (the
 * uprobe's trap): the trap cost it visit_ns, measured by cprof on this
 * machine (user/visitcost.c), time the thread spent in the profiler as if
 * in a payment. So it counts as one: paid off its debt, and past that
 * ahead of the global delay, which it raises (the others owe it too, and
 * the effective time does not count it), as a hit by a thread ahead does.
 * Without it the thread that makes the visits is slower by its traps,
 * which matters only where it is the bottleneck: in the sped-up program
 * more often than in the 0 % experiments (a pipe's consumer once the
 * producer is virtually faster: 2 to 4 points low at 60 % on two vCPUs,
 * bench/RESULTS.md 2026-11-27). A trap is CPU time: on one CPU nobody else
 * runs meanwhile either, so the same holds there.
 */
static bool visit_pauses = true;
module_param(visit_pauses, bool, 0644);
MODULE_PARM_DESC(visit_pauses, "Progress points' traps count as pauses of their threads (default 1; 0 to measure without)");

void cp_causal_visit(u32 visit_ns)
{
	struct cp_task *t;

	if (!visit_ns || !READ_ONCE(visit_pauses) || !exp_current() ||
	    (current->flags & (PF_KTHREAD | PF_EXITING)))
		return;
	t = cp_task_get(current->pid, true);
	if (!t) {
		atomic64_inc(&exp.table_full);
		return;
	}
	if (atomic_read(&t->flags) & CP_TASK_EXEMPT)
		return;
	raise_global(atomic64_add_return(visit_ns, &t->local) - atomic64_read(&t->lag));
	atomic64_inc(&exp.acct.visits);
	atomic64_add(visit_ns, &exp.acct.visit_ns);
}

/* Before the child first runs. */
void cp_causal_fork(struct task_struct *parent, struct task_struct *child)
{
	struct cp_task *p, *c;
	s64 local;

	if (!exp_current())
		return;
	p = cp_task_get(parent->pid, false);
	local = p ? atomic64_read(&p->local) : 0;
	c = cp_task_get(child->pid, true);
	if (!c) {
		atomic64_inc(&exp.table_full);
		return;
	}
	atomic64_set(&c->local, local);
	atomic64_set(&c->lag, p ? atomic64_read(&p->lag) : 0);
}

static bool inherit = true;
module_param(inherit, bool, 0644);
MODULE_PARM_DESC(inherit, "Wake-ups pass the waker's delay on (default 1; 0 to measure without)");

static bool wake_payments = true;
module_param(wake_payments, bool, 0644);
MODULE_PARM_DESC(wake_payments, "A woken thread pays what it owes on its way to user mode (default 1; 0 to measure without)");

/*
 * A thread that mostly waits (a timed sleep, I/O, a peer) is rarely
 * sampled in user mode, so a payment queued only from samples would
 * rarely come: it would carry what it owes from wait to wait, and the
 * threads waiting for it would never see the delay. So a woken target
 * that owes at least spin_least() also gets its payment queued, to run on
 * its way back to user mode from the wait (TWA_RESUME: a flag on a task
 * that is not running yet, or an IPI where it still is). A task that never
 * returns to user mode (CP_PF_NO_USER: a kernel thread, an io_uring or
 * vhost worker of a target) would never run it, and its module reference
 * would keep the module from unloading: none is queued there. Under
 * wakee's pi_lock, from task or interrupt context; never NMI.
 */
static void queue_wake_payment(struct task_struct *p, struct cp_task *t, u32 id)
{
	if (!READ_ONCE(wake_payments) || (p->flags & (CP_PF_NO_USER | PF_EXITING)))
		return;
	if (atomic_read(&t->flags) & CP_TASK_PAYING)
		return;
	/* Where it will run is not known yet: its settle() judges there. */
	if (wake_due(t) < spin_least() || never_pays(t))
		return;
	if (!claim_payment(t, id))
		return;
	atomic_or(CP_TASK_WAKEPAY, &t->flags);
	if (task_work_add(p, &t->work, TWA_RESUME))
		unclaim_payment(t);
	else
		atomic64_inc(&exp.acct.wake_queued);
}

/*
 * A target task blocks (schedule() with prev_state set): the global delay,
 * what it owes and the time now, so that its wake-up credits what was
 * inserted while it waited and nothing before. Under the runqueue lock,
 * interrupts off.
 */
void cp_causal_block(struct task_struct *t)
{
	struct cp_task *b;

	if (!exp_current() || !READ_ONCE(inherit))
		return;
	b = cp_task_get(t->pid, true);
	if (!b) {
		atomic64_inc(&exp.table_full);
		return;
	}
	/* A payment's sleep is no wait for another thread. */
	if (atomic_read(&b->flags) & CP_TASK_PAYING)
		return;
	/* Its wake-up came first (try_to_wake_up() fires before the switch). */
	if (atomic_fetch_andnot(CP_TASK_WOKEN, &b->flags) & CP_TASK_WOKEN)
		return;
	atomic64_set(&b->blocked_at, atomic64_read(&exp.global));
	atomic64_set(&b->blocked_owed, max_t(s64, owed(b), 0));
	atomic64_set(&b->blocked_ns, ktime_get_mono_fast_ns());
	atomic_or(CP_TASK_BLOCKED, &b->flags);
}

/*
 * What a thread that blocked owing debt ns still owes, woken after waiting
 * waited ns while inserted ns were inserted. Coz would have had it pay
 * first, and only then wait: with delay inserted at the rate r = inserted
 * / waited meanwhile, paying takes debt / (1 - r) (what is inserted while
 * it pays is owed too), forever if r >= 1. The wait stands for that
 * payment: once it is over, what the thread waited longer is credited;
 * before, it owes what it did not pay.
 */
static s64 still_owed(s64 debt, s64 inserted, s64 waited)
{
	if (debt <= 0)
		return 0;
	inserted = max_t(s64, inserted, 0);
	if (inserted < waited &&
	    waited >= mul_u64_u64_div_u64(debt, waited, waited - inserted))
		return 0;
	return max_t(s64, debt + inserted - waited, 0);
}

/*
 * try_to_wake_up() of wakee by current, under wakee's pi_lock. Only a
 * target task woken from task context by a target task inherits: a
 * wake-up from an interrupt or a softirq (timer, I/O completion) or by
 * another task leaves the wakee owing what accrued while it slept, as a
 * timed sleep must.
 *
 * Coz's rule (see the top of the file): the wakee owes what it still owed
 * of its own when the wait ended (still_owed()), or what its waker owes,
 * whichever is more; it is credited with the delay inserted while it
 * waited. Both become its lag, its local delay the global one. A wakee that
 * has no slot yet slept since before the experiment began: it owes what its
 * waker owes. One that has a slot but no mark was woken before it switched
 * out (try_to_wake_up() may fire before schedule() puts it to sleep, and
 * then the switch must not mark it: CP_TASK_WOKEN): it waited for nothing,
 * and owes what it owed, or its waker's debt if that is more.
 */
void cp_causal_wake(struct task_struct *wakee, bool by_target)
{
	u32 id = exp_current();
	struct cp_task *w, *u;
	s64 global, debt, mine, owes;

	if (!id || !READ_ONCE(inherit))
		return;
	if (!by_target || !in_task()) {
		/* Woken, but not by a target thread: no credit, and none later. */
		u = cp_task_get(wakee->pid, false);
		if (u && (atomic_read(&u->flags) & CP_TASK_BLOCKED)) {
			atomic_andnot(CP_TASK_BLOCKED, &u->flags);
			atomic64_set(&u->keep, 0);
			queue_wake_payment(wakee, u, id);
		}
		return;
	}
	w = cp_task_get(current->pid, false);
	if (!w)
		return;
	global = atomic64_read(&exp.global);
	/* A Go runtime's monitor pays nothing, so it is always even. */
	debt = cp_go_monitor(current->pid) ? 0 : max_t(s64, owed(w), 0);
	u = cp_task_get(wakee->pid, false);
	if (!u) {
		/* Not seen in this experiment: asleep since before its start. */
		u = cp_task_get(wakee->pid, true);
		if (!u) {
			atomic64_inc(&exp.table_full);
			return;
		}
		atomic64_set(&u->local, global);
		atomic64_set(&u->lag, debt);
		atomic64_set(&u->keep, debt);
		atomic64_add(debt, &exp.acct.inherited_ns);
		atomic64_inc(&exp.inherited);
		queue_wake_payment(wakee, u, id);
		return;
	}
	/* Not marked: woken before it switched out. No wait to credit. */
	if (!(atomic_fetch_andnot(CP_TASK_BLOCKED, &u->flags) & CP_TASK_BLOCKED)) {
		atomic_or(CP_TASK_WOKEN, &u->flags);
		mine = owed(u);
		if (debt > mine) {
			atomic64_add(debt - mine, &u->lag);
			atomic64_add(debt - mine, &exp.acct.inherited_ns);
		}
		return;
	}
	owes = atomic64_read(&u->blocked_owed) + global - atomic64_read(&u->blocked_at);
	mine = still_owed(atomic64_read(&u->blocked_owed),
			  global - atomic64_read(&u->blocked_at),
			  ktime_get_mono_fast_ns() - atomic64_read(&u->blocked_ns));
	atomic64_add(max_t(s64, owes - mine, 0), &exp.acct.credited_ns);
	if (debt > mine)
		atomic64_add(debt - mine, &exp.acct.inherited_ns);
	atomic64_set(&u->local, global);
	atomic64_set(&u->lag, max(mine, debt));
	atomic64_set(&u->keep, max_t(s64, debt - mine, 0));
	atomic64_inc(&exp.inherited);
	queue_wake_payment(wakee, u, id);
}

/*
 * Goroutines (gohooks.c). In a Go program the hand-offs happen inside the
 * runtime: a channel send readies the parked receiver, an unlock its
 * waiter, a thread steals another's goroutines, and the threads involved
 * rarely sleep in the kernel, so cp_causal_block() and cp_causal_wake()
 * see little of it. As in Morsing's port of causal profiling to Go, the
 * runtime's threads stay the threads that owe and pay, and the goroutine
 * carries a token from the thread that made it runnable to the one that
 * runs it next:
 *
 * - A thread that stops running a goroutine (it parks, yields, is
 *   preempted) tags it with what it owed, and leaves that debt with it:
 *   a parked goroutine's wait stands for the payment (credited when it
 *   is readied), and the thread takes on the debt of the goroutine it
 *   runs next. Morsing's dropg() pays first; here a payment there held
 *   the thread, and the P it holds, while the goroutine readied meanwhile
 *   waited for it: a channel's consumer on two CPUs (go_stop_pays).
 * - A thread that readies a parked goroutine credits its wait as
 *   cp_causal_wake() credits a thread's: the goroutine owes what it still
 *   owed when its wait ended. A new goroutine owes what its creator owes,
 *   as a forked thread does.
 * - The thread that runs it next owes what it owed itself or what the
 *   goroutine owes, grown by the delay inserted since it was tagged (a
 *   runnable goroutine is running in virtual time), whichever is less:
 *   Morsing's execute() keeps the larger of the two delay counts, and a
 *   thread idle or running the scheduler while the goroutine waited is
 *   credited with the wait. It pays what is due as a woken thread.
 *   Not its waker's debt, as a thread woken in the kernel takes on: a
 *   thread stands for a P here, which runs many goroutines in turn, and
 *   the waker's thread owes the hits of the very thread that runs the
 *   goroutine next, so it paid for its own hits and held up its P's
 *   other goroutines. With that rule the Go pool on two vCPUs had its
 *   threads pay 2.1 to 2.35 times the delay inserted, and work() at 20,
 *   40 and 60 % read 8 to 16 points low (default mode); without it 1.22
 *   to 1.28 times, and within 1.2 points (bench/RESULTS.md, 2026-11-28).
 * - The runtime's monitor thread (sysmon: cp_go_monitor()) pays nothing
 *   and passes no debt on. It runs no goroutine; it wakes from timed
 *   sleeps to preempt goroutines and poll the network, and paying for
 *   those sleeps it woke late: on one P the producer of a channel ran
 *   unpreempted, the channel filled during each experiment, and the
 *   visits came 30 % further apart than at 0 % (Documentation/go.rst).
 *
 * The runtime orders the events of one goroutine (its status changes are
 * atomic in user space, and each hook fires before the change it marks),
 * so a token is written by one thread at a time; the experiment's id,
 * written last with release, says that the rest belongs to it.
 */
static void go_tag(struct cp_gtoken *g, u32 id, u32 state, s64 owes)
{
	WRITE_ONCE(g->state, state);
	WRITE_ONCE(g->at, atomic64_read(&exp.global));
	WRITE_ONCE(g->owes, owes);
	WRITE_ONCE(g->ns, ktime_get_mono_fast_ns());
	/* The rest before the id: pairs with go_current(). */
	smp_store_release(&g->exp, id);
}

/* Whether g's token belongs to experiment id. */
static bool go_current(struct cp_gtoken *g, u32 id)
{
	/* Pairs with go_tag()'s release: the rest is the experiment's. */
	return smp_load_acquire(&g->exp) == id;
}

/* The thread current runs as in experiment id, inserted if asked; NULL if none. */
static struct cp_task *go_thread(u32 id, bool insert)
{
	struct cp_task *t;

	if (!id || !READ_ONCE(inherit) || (current->flags & (PF_KTHREAD | PF_EXITING)))
		return NULL;
	t = cp_task_get(current->pid, insert);
	if (!t && insert)
		atomic64_inc(&exp.table_full);
	return t;
}

/*
 * Whether a thread pays what is due when it stops running a goroutine, as
 * Morsing's dropg() does. Off: gt_chan on two vCPUs, --fixed-line
 * produce() at 20 / 40 / 60 %, medians of three rounds, truth 22.2 / 37.4
 * / 38.2 %: 19.5 / 29.1 / 31.8 % without, 15.3 / 22.9 / 28.0 with (two
 * rounds; bench/RESULTS.md, 2026-11-27).
 */
static bool go_stop_pays;
module_param(go_stop_pays, bool, 0644);
MODULE_PARM_DESC(go_stop_pays, "A thread pays what is due when it stops running a goroutine (default 0)");

/* Current stops running g: to wait (parked), or runnable. */
void cp_causal_go_stop(struct cp_gtoken *g, bool parked)
{
	u32 id = exp_current();
	struct cp_task *t = go_thread(id, true);

	if (!t)
		return;
	go_tag(g, id, parked ? CP_G_PARKED : CP_G_RUNNABLE, max_t(s64, owed(t), 0));
	if (READ_ONCE(go_stop_pays))
		queue_wake_payment(current, t, id);
}

/*
 * Current makes g runnable. A g with no token of this experiment was
 * parked since before its start (or by a way no hook sees): it owes what
 * current owes. One that was not parked waited for nothing: it keeps what
 * it owed.
 */
void cp_causal_go_ready(struct cp_gtoken *g)
{
	u32 id = exp_current();
	struct cp_task *w = go_thread(id, false);
	s64 global, debt, mine, owes;

	if (!id || !READ_ONCE(inherit))
		return;
	global = atomic64_read(&exp.global);
	debt = w ? max_t(s64, owed(w), 0) : 0;
	if (!go_current(g, id) || READ_ONCE(g->state) == CP_G_RUNNING) {
		go_tag(g, id, CP_G_RUNNABLE, debt);
		atomic64_inc(&exp.inherited);
		return;
	}
	owes = READ_ONCE(g->owes) + global - READ_ONCE(g->at);
	if (READ_ONCE(g->state) != CP_G_PARKED) {
		go_tag(g, id, CP_G_RUNNABLE, owes);
		return;
	}
	mine = still_owed(READ_ONCE(g->owes), global - READ_ONCE(g->at),
			  ktime_get_mono_fast_ns() - READ_ONCE(g->ns));
	atomic64_add(max_t(s64, owes - mine, 0), &exp.acct.credited_ns);
	go_tag(g, id, CP_G_RUNNABLE, mine);
	atomic64_inc(&exp.inherited);
}

/* Current created g: it owes what current owes, as a forked thread does. */
void cp_causal_go_spawn(struct cp_gtoken *g)
{
	u32 id = exp_current();
	struct cp_task *c = go_thread(id, false);
	s64 debt;

	if (!id || !READ_ONCE(inherit))
		return;
	debt = c ? max_t(s64, owed(c), 0) : 0;
	go_tag(g, id, CP_G_RUNNABLE, debt);
}

/*
 * Current starts running g. A g parked and never readied by a hook (the
 * netpoller's, the garbage collector's wake-ups) owes what accrued while
 * it waited, as a thread woken by an interrupt. Without a token of this
 * experiment current keeps its own state.
 */
void cp_causal_go_run(struct cp_gtoken *g)
{
	u32 id = exp_current();
	s64 global, cur, own;
	struct cp_task *t;

	if (!id || !READ_ONCE(inherit) || !go_current(g, id) ||
	    READ_ONCE(g->state) == CP_G_RUNNING)
		return;
	t = go_thread(id, true);
	if (!t)
		return;
	WRITE_ONCE(g->state, CP_G_RUNNING);
	global = atomic64_read(&exp.global);
	cur = owed(t);
	own = READ_ONCE(g->owes) + global - READ_ONCE(g->at);
	if (own < cur) {
		atomic64_set(&t->local, global);
		atomic64_set(&t->lag, own);
		atomic64_set(&t->keep, 0);
	}
	queue_wake_payment(current, t, id);
}

void cp_causal_exit(struct task_struct *t)
{
	cp_go_monitor_exit(t->pid);
	if (exp_current())
		cp_task_exit(t->pid);
}

static int atomic64_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(atomic64_fops, atomic64_get, NULL, "%llu\n");

/* causal/: the counters of the current or last experiment. */
void __init cp_causal_debugfs(struct dentry *parent)
{
	const struct {
		const char *name;
		atomic64_t *val;
	} files[] = {
		{ "hits",		&exp.hits },
		{ "payments",		&exp.payments },
		{ "paid_ns",		&exp.paid_ns },
		{ "tasks_paid",		&exp.tasks_paid },
		{ "capped",		&exp.capped },
		{ "inherited",		&exp.inherited },
		{ "table_full",		&exp.table_full },
		{ "inserted_ns",	&exp.global },
		{ "pay_late_ns",	&pay_late_ns },
		{ "spins",		&exp.spins },
		{ "spun_ns",		&exp.spun_ns },
	};
	struct dentry *dir = debugfs_create_dir("causal", parent);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		debugfs_create_file_unsafe(files[i].name, 0444, dir, files[i].val, &atomic64_fops);
}

static void show_point(struct seq_file *m, const struct causalprof_exp_point *pt)
{
	seq_printf(m, "point: %u %s %llu %llu %llu %llu\n", pt->id,
		   pt->kind == CAUSALPROF_PP_LATENCY ? "latency" : "throughput",
		   pt->count, pt->ends, pt->area_ns, pt->inflight);
}

/* pid (initial namespace) as ns sees it; 0 when it cannot, or it is gone. */
static pid_t pid_in(pid_t pid, struct pid_namespace *ns)
{
	pid_t nr;

	rcu_read_lock();
	nr = pid_nr_ns(find_pid_ns(pid, &init_pid_ns), ns);
	rcu_read_unlock();
	return nr;
}

/*
 * /proc/causalprof/experiment, under the session lock: a running
 * experiment's counters so far, a stopped one's result. Its ranges (their
 * processes in ns) only for a privileged reader: they tell where a
 * process's code lies. The threads' lines come from
 * cp_causal_show_task(), without the lock.
 */
void cp_causal_show(struct seq_file *m, bool privileged, struct pid_namespace *ns)
{
	struct causalprof_exp_point pt;
	u64 end = exp.live ? ktime_get_ns() : exp.end_ns;
	unsigned int i, n;

	if (!exp.id) {
		seq_puts(m, "state: none\n");
		return;
	}
	seq_printf(m, "state: %s\n", exp.live ? "running" : "stopped");
	seq_printf(m, "id: %u\n", exp.id);
	seq_printf(m, "speedup: %u\n", exp.speedup);
	for (i = 0; privileged && i < exp.nr_ranges; i++)
		seq_printf(m, "range: %d:0x%llx-0x%llx\n", pid_in(exp.ranges[i].tgid, ns),
			   exp.ranges[i].start, exp.ranges[i].end);
	seq_printf(m, "wall_ns: %llu\n", end - exp.start_ns);
	seq_printf(m, "inserted_ns: %lld\n", (s64)atomic64_read(&exp.global));
	seq_printf(m, "hits: %lld\n", (s64)atomic64_read(&exp.hits));
	seq_printf(m, "payments: %lld\n", (s64)atomic64_read(&exp.payments));
	seq_printf(m, "paid_ns: %lld\n", (s64)atomic64_read(&exp.paid_ns));
	seq_printf(m, "tasks_paid: %lld\n", (s64)atomic64_read(&exp.tasks_paid));
	seq_printf(m, "capped: %lld\n", (s64)atomic64_read(&exp.capped));
	seq_printf(m, "inherited: %lld\n", (s64)atomic64_read(&exp.inherited));
	seq_printf(m, "table_full: %lld\n", (s64)atomic64_read(&exp.table_full));
	seq_printf(m, "spins: %lld\n", (s64)atomic64_read(&exp.spins));
	seq_printf(m, "spun_ns: %lld\n", (s64)atomic64_read(&exp.spun_ns));

	if (exp.live) {
		n = cp_progress_snapshot(exp.snap, CP_MAX_PROGRESS);
		for (i = 0; i < n; i++) {
			point_delta(&exp.snap[i], &pt);
			show_point(m, &pt);
		}
	} else {
		for (i = 0; i < result.rec.nr_points; i++)
			show_point(m, &result_points()[i]);
	}
}

/*
 * The first slot at or after *i that holds a thread, *i its index; NULL
 * past the end. Without the session lock: the table stays until unload,
 * after the /proc files are gone, and its slots are atomics. A slot an
 * experiment's start clears meanwhile may show half of each.
 */
void *cp_causal_task_seek(loff_t *i)
{
	unsigned int n = cp_tasks_size();

	for (; *i < n; ++*i) {
		if (atomic_read(&cp_task_at(*i)->tid) > 0)
			return cp_task_at(*i);
		if (!(*i % 4096))
			cond_resched();
	}
	return NULL;
}

/* A thread's line, its tid in ns; none when ns does not see it. */
void cp_causal_show_task(struct seq_file *m, void *slot, struct pid_namespace *ns)
{
	struct cp_task *t = slot;
	pid_t tid = pid_in(atomic_read(&t->tid), ns);

	if (tid > 0)
		seq_printf(m, "task: %d %lld %lld %d\n", tid, (s64)atomic64_read(&t->local),
			   (s64)atomic64_read(&t->paid_ns), atomic_read(&t->payments));
}
