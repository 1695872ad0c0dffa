// SPDX-License-Identifier: GPL-2.0
/*
 * The causal engine, through /proc/causalprof/control and
 * /proc/causalprof/experiment, on build/tests/targets/causal (thread A in
 * the selected code, thread B elsewhere), sampled by cpu-clock at 1 kHz:
 *
 * - delay precision: what B paid equals the delay inserted (the global
 *   delay A's hits made) within 5 %, and A, which hit, paid nothing;
 * - a timer sleep: B, woken by a timer, pays after waking;
 * - time in a callee counts for its caller: with A always in a function
 *   outside the selected code called from inside it, a range of the one
 *   byte before the call's return address is hit (a return address minus
 *   one lies in it), the byte at the return address is not;
 * - a full task table: with max_tasks=64 and a hundred threads, the
 *   threads that found no slot are counted, the others are delayed as
 *   usual;
 * - lifecycle: the session stopped, and the module unloaded, in the middle
 *   of an experiment leave no thread asleep and no payment queued (the
 *   module's reference count drops to 0); a target that exits mid
 *   experiment is harmless.
 *
 * Wake-up inheritance is tested in inherit_test, the virtual speedup's
 * prediction in groundtruth_test.
 *
 * The comparisons are between quantities the kernel reports; none depends
 * on how fast the machine is.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define REFCNT		"/sys/module/causalprof/refcnt"

struct exp_task {
	int64_t local, paid;
	int payments;
};

struct exp_info {
	char text[1 << 16];
	int64_t inserted, hits, paid, inherited, table_full, tasks_paid;
	char state[16];
};

FIXTURE(causal) {
	struct cp_target target;
	char path[PATH_MAX];
	struct cp_causal c;	/* the causal target's ready line */
	struct exp_info info;
};

FIXTURE_SETUP(causal)
{
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_target_path("causal", self->path, sizeof(self->path)));
}

FIXTURE_TEARDOWN(causal)
{
	cp_target_kill(&self->target);
	cp_module_ensure_loaded();
	EXPECT_EQ(0, cp_session_reset());
}

static int exp_read(struct exp_info *e)
{
	int ret;

	ret = cp_exp_read(e->text, sizeof(e->text));
	if (ret)
		return ret;
	if (sscanf(e->text, "\nstate: %15s", e->state) != 1)
		return -EINVAL;
	if (cp_exp_i64(e->text, "inserted_ns", &e->inserted) ||
	    cp_exp_i64(e->text, "hits", &e->hits) || cp_exp_i64(e->text, "paid_ns", &e->paid) ||
	    cp_exp_i64(e->text, "inherited", &e->inherited) ||
	    cp_exp_i64(e->text, "table_full", &e->table_full) ||
	    cp_exp_i64(e->text, "tasks_paid", &e->tasks_paid))
		return -EINVAL;
	return 0;
}

/* The line "task: TID LOCAL PAID PAYMENTS" of tid. */
static int exp_task(const struct exp_info *e, pid_t tid, struct exp_task *t)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "\ntask: %d ", tid);
	p = strstr(e->text, pat);
	if (!p) {
		*t = (struct exp_task){};
		return -ENOENT;
	}
	return sscanf(p + strlen(pat), "%" SCNd64 " %" SCNd64 " %d", &t->local, &t->paid,
		      &t->payments) == 3 ? 0 : -EINVAL;
}

static int spawn(struct __test_metadata *_metadata, FIXTURE_DATA(causal) *self,
		 const char *mode, const char *seconds)
{
	int ret = cp_causal_spawn(&self->target, self->path, mode, seconds, &self->c);

	return ret < 0 ? ret : 0;
}

static int session_start(FIXTURE_DATA(causal) *self)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "start pid=%d", self->c.pid);
	return cp_control(cmd);
}

/* Starts an experiment on the one range [start, end) of the target. */
static int experiment_start_on(FIXTURE_DATA(causal) *self, unsigned long long start,
			       unsigned long long end, int speedup)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "experiment start speedup=%d range=%d:0x%llx-0x%llx",
		 speedup, self->c.pid, start, end);
	return cp_control(cmd);
}

/* ... on the target's selected code. */
static int experiment_start(FIXTURE_DATA(causal) *self, int speedup)
{
	return experiment_start_on(self, self->c.start, self->c.end, speedup);
}

/* Runs an experiment of ms milliseconds on [start, end) and reads its outcome. */
static int experiment_on(FIXTURE_DATA(causal) *self, unsigned long long start,
			 unsigned long long end, int speedup, int ms)
{
	int ret = experiment_start_on(self, start, end, speedup);

	if (ret)
		return ret;
	usleep(ms * 1000);
	ret = cp_control("experiment stop");
	if (ret)
		return ret;
	return exp_read(&self->info);
}

/* ... on the target's selected code. */
static int experiment(FIXTURE_DATA(causal) *self, int speedup, int ms)
{
	return experiment_on(self, self->c.start, self->c.end, speedup, ms);
}

TEST_F(causal, delay_precision)
{
	struct exp_task a, b;
	uint64_t n;

	ASSERT_EQ(0, spawn(_metadata, self, "spin", "0"));
	ASSERT_EQ(0, session_start(self));
	ASSERT_EQ(0, experiment(self, 500, 2000));
	ASSERT_STREQ("stopped", self->info.state);
	ASSERT_EQ(0, exp_task(&self->info, self->c.a, &a));
	ASSERT_EQ(0, exp_task(&self->info, self->c.b, &b));
	TH_LOG("inserted %" PRId64 " ns, hits %" PRId64 ", B paid %" PRId64 " ns in %d payments"
	       " (%.2f%%), A paid %" PRId64 " ns, A local %" PRId64,
	       self->info.inserted, self->info.hits, b.paid, b.payments,
	       100.0 * b.paid / (self->info.inserted ?: 1), a.paid, a.local);
	/* About a second of A's 2 s of spinning, at half speed. */
	ASSERT_GT(self->info.inserted, 200000000);
	ASSERT_EQ(self->info.inserted, a.local);
	ASSERT_EQ(0, a.paid);
	ASSERT_LE(llabs(b.paid - self->info.inserted), self->info.inserted / 20);
	ASSERT_EQ(1, self->info.tasks_paid);
	ASSERT_EQ(0, self->info.table_full);
	/* debugfs shows the same counters. */
	ASSERT_EQ(0, cp_debugfs_u64("causal/hits", &n));
	ASSERT_EQ((uint64_t)self->info.hits, n);
	ASSERT_EQ(0, cp_debugfs_u64("causal/inserted_ns", &n));
	ASSERT_EQ((uint64_t)self->info.inserted, n);
	ASSERT_EQ(0, cp_debugfs_u64("causal/paid_ns", &n));
	ASSERT_EQ((uint64_t)self->info.paid, n);
}

/*
 * Payments queued from NMI go through an irq_work before 6.11 (no PMU here
 * to raise an NMI: defer_payments sends the hrtimer's payments the same
 * way). They must all be paid, as without it.
 */
TEST_F(causal, deferred_payments)
{
	struct exp_task b;
	int ret;

	ASSERT_EQ(0, spawn(_metadata, self, "spin", "0"));
	ASSERT_EQ(0, session_start(self));
	ASSERT_EQ(0, cp_module_param_set("defer_payments", 1));
	ret = experiment(self, 500, 2000);
	ASSERT_EQ(0, cp_module_param_set("defer_payments", 0));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, exp_task(&self->info, self->c.b, &b));
	TH_LOG("through irq_work: inserted %" PRId64 " ns, B paid %" PRId64 " ns in %d payments (%.2f%%)",
	       self->info.inserted, b.paid, b.payments, 100.0 * b.paid / (self->info.inserted ?: 1));
	ASSERT_GT(self->info.inserted, 200000000);
	ASSERT_LE(llabs(b.paid - self->info.inserted), self->info.inserted / 20);
}

TEST_F(causal, timer_sleep)
{
	struct exp_task b;
	uint64_t cap;
	int ret;

	/* B pays all it owes at once: what it pays is what accrued. */
	ASSERT_EQ(0, cp_module_param_get("max_pause_us", &cap));
	ASSERT_EQ(0, cp_module_param_set("max_pause_us", 1000000));
	ASSERT_EQ(0, spawn(_metadata, self, "sleep", "0"));
	ASSERT_EQ(0, session_start(self));
	ret = experiment(self, 500, 2000);
	ASSERT_EQ(0, cp_module_param_set("max_pause_us", cap));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, exp_task(&self->info, self->c.b, &b));
	TH_LOG("inserted %" PRId64 " ns, B paid %" PRId64 " ns (%.2f%%) in %d payments",
	       self->info.inserted, b.paid, 100.0 * b.paid / (self->info.inserted ?: 1),
	       b.payments);
	ASSERT_GT(self->info.inserted, 200000000);
	/* Woken by a timer, B inherits nothing: it pays what accrued. */
	ASSERT_EQ(b.local, b.paid);
	ASSERT_GE(b.paid, self->info.inserted * 9 / 10);
}

/*
 * With spin_pause_us (2000 by default), a thread woken by a timer owing
 * less than min_pause_us (B: 5 ms asleep and 2 ms of work while A runs the
 * selected code at 10 %, so about half a millisecond a wake-up) pays it on
 * its way back to user mode, by spinning where its CPU has nothing else to
 * run; with spin_pause_us 0 it pays only debts of min_pause_us, asleep.
 */
TEST_F(causal, spin_payments)
{
	uint64_t spin_pause, min_pause;
	int64_t spins[2] = { 0 }, spun[2] = { 0 }, inserted[2] = { 0 };
	struct exp_task b[2] = { 0 };
	int i, ret = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: B's CPU always has A to run");
	ASSERT_EQ(0, cp_module_param_get("spin_pause_us", &spin_pause));
	ASSERT_EQ(0, cp_module_param_get("min_pause_us", &min_pause));
	ASSERT_EQ(0, spawn(_metadata, self, "sleep", "0"));
	ASSERT_EQ(0, session_start(self));
	for (i = 0; i < 2 && !ret; i++) {
		ret = cp_module_param_set("spin_pause_us", i ? 0 : 2000);
		if (!ret)
			ret = experiment(self, 100, 2000);
		if (!ret)
			ret = exp_task(&self->info, self->c.b, &b[i]);
		if (!ret && (cp_exp_i64(self->info.text, "spins", &spins[i]) ||
			     cp_exp_i64(self->info.text, "spun_ns", &spun[i])))
			ret = -EINVAL;
		inserted[i] = self->info.inserted;
		TH_LOG("spin_pause_us %d: inserted %" PRId64 " ns, B paid %" PRId64
		       " ns in %d payments, %" PRId64 " spun (%" PRId64 " ns)",
		       i ? 0 : 2000, inserted[i], b[i].paid, b[i].payments,
		       spins[i], spun[i]);
	}
	EXPECT_EQ(0, cp_module_param_set("spin_pause_us", spin_pause));
	ASSERT_EQ(0, ret);
	ASSERT_LT(20, b[0].payments);
	/* Paid at the wake-ups, a debt well below min_pause_us each... */
	ASSERT_LT(b[0].paid / b[0].payments, (int64_t)min_pause * 1000 / 2);
	/* ... spinning: B's CPU had nothing else to run. */
	ASSERT_LE(b[0].payments / 2, spins[0]);
	ASSERT_LE(b[0].paid / 2, spun[0]);
	ASSERT_GE(b[0].paid, inserted[0] / 2);
	/* Without: asleep, and only debts of min_pause_us. */
	ASSERT_EQ(0, spins[1]);
	ASSERT_LT(0, b[1].payments);
	ASSERT_GE(b[1].paid / (b[1].payments ?: 1), (int64_t)min_pause * 1000 * 9 / 10);
}

/*
 * With one CPU online the rules of spin_pause_us are off: the wake-up
 * latency they avoid is time the other threads run on that CPU. In nap
 * mode A runs the selected code 2 ms in 5, so B (5 ms asleep, 2 ms of
 * work) often wakes with its CPU free owing a few hundred microseconds,
 * which those rules would have it pay at once, spinning. Off, it pays
 * only debts of min_pause_us, asleep. tests/causal1cpu_test.sh runs this
 * program on one vCPU.
 */
TEST_F(causal, spin_payments_one_cpu)
{
	uint64_t spin_pause, min_pause;
	int64_t spins = -1;
	struct exp_task b = { 0 };
	int ret;

	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		SKIP(return, "more than one CPU online");
	ASSERT_EQ(0, cp_module_param_get("spin_pause_us", &spin_pause));
	ASSERT_EQ(0, cp_module_param_get("min_pause_us", &min_pause));
	ASSERT_EQ(0, spawn(_metadata, self, "nap", "0"));
	ASSERT_EQ(0, session_start(self));
	ret = cp_module_param_set("spin_pause_us", 2000);
	if (!ret)
		ret = experiment(self, 50, 3000);
	EXPECT_EQ(0, cp_module_param_set("spin_pause_us", spin_pause));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, exp_task(&self->info, self->c.b, &b));
	ASSERT_EQ(0, cp_exp_i64(self->info.text, "spins", &spins));
	TH_LOG("inserted %" PRId64 " ns, B paid %" PRId64 " ns in %d payments, %" PRId64
	       " spun", self->info.inserted, b.paid, b.payments, spins);
	ASSERT_LT(0, b.payments);
	ASSERT_EQ(0, spins);
	ASSERT_GE(b.paid / b.payments, (int64_t)min_pause * 1000 * 9 / 10);
}

TEST_F(causal, callee_hits)
{
	int64_t before, after;
	struct exp_task a;

	ASSERT_EQ(0, spawn(_metadata, self, "callee", "0"));
	/* The call's return address follows the call, inside hit_caller(). */
	ASSERT_LT(self->c.start, self->c.ret);
	ASSERT_GE(self->c.end, self->c.ret);
	ASSERT_EQ(0, session_start(self));
	ASSERT_EQ(0, experiment_on(self, self->c.ret - 1, self->c.ret, 500, 1000));
	before = self->info.hits;
	ASSERT_EQ(0, exp_task(&self->info, self->c.a, &a));
	ASSERT_EQ(self->info.inserted, a.local);
	ASSERT_EQ(0, experiment_on(self, self->c.ret, self->c.ret + 1, 500, 1000));
	after = self->info.hits;
	TH_LOG("hits on the call's last byte: %" PRId64 ", on the return address: %" PRId64,
	       before, after);
	/* About one a millisecond: A runs in the callee nearly all the time. */
	ASSERT_LT(50, before);
	/* Only samples that interrupt the jump back after the call. */
	ASSERT_LT(after * 10, before);
}

static int count_tasks(const struct exp_info *e)
{
	const char *p;
	int n = 0;

	for (p = e->text; (p = strstr(p, "\ntask: ")); p++)
		n++;
	return n;
}

/*
 * max_tasks=64 (the smallest table) and a target of 99 threads: A and B
 * take their slots while they run alone, then the crowd of 96 threads
 * starts. Those that find no slot are counted in table_full and not
 * delayed; B, which has one, pays as usual. With inherit=0, only the
 * overflow handler claims slots (the crowd's wake-ups would too).
 */
TEST_F(causal, table_full)
{
	struct exp_task a, b;
	uint64_t n;
	int tasks, i;

	ASSERT_EQ(0, cp_module_reload("max_tasks=64 inherit=0"));
	ASSERT_EQ(0, spawn(_metadata, self, "crowd", "0"));
	ASSERT_EQ(0, session_start(self));
	ASSERT_EQ(0, experiment_start(self, 500));
	usleep(300000);
	ASSERT_EQ(0, kill(self->c.pid, SIGUSR1));
	/*
	 * 1.5 s is plenty on two vCPUs; a vCPU that the host starves (another
	 * program on its core) started and sampled the crowd slowly: 60 tasks
	 * and no table_full after 1.5 s once. So up to 15 s, until the first.
	 */
	usleep(1500000);
	for (i = 0; i < 135 && !cp_debugfs_u64("causal/table_full", &n) && !n; i++)
		usleep(100000);
	ASSERT_EQ(0, cp_control("experiment stop"));
	ASSERT_EQ(0, exp_read(&self->info));
	tasks = count_tasks(&self->info);
	ASSERT_EQ(0, cp_debugfs_u64("causal/table_full", &n));
	/*
	 * The table of the next tests has the default size again. The crowd
	 * goes first: 98 busy threads on 2 TCG vCPUs starve the reload past
	 * the harness' 30 s, and their queued payments hold the module.
	 */
	cp_target_kill(&self->target);
	ASSERT_EQ(0, cp_module_reload(""));
	TH_LOG("%d tasks in the table, table_full %" PRId64 " (debugfs %" PRIu64 "), hits %"
	       PRId64 ", inserted %" PRId64 " ns", tasks, self->info.table_full, n,
	       self->info.hits, self->info.inserted);
	ASSERT_LT(0, self->info.table_full);
	ASSERT_EQ((uint64_t)self->info.table_full, n);
	ASSERT_LE(tasks, 64);
	ASSERT_LE(60, tasks);
	ASSERT_EQ(0, exp_task(&self->info, self->c.a, &a));
	ASSERT_EQ(0, exp_task(&self->info, self->c.b, &b));
	ASSERT_LT(0, self->info.hits);
	ASSERT_EQ(self->info.inserted, a.local);
	ASSERT_LT(0, b.paid);
}

TEST_F(causal, session_stop_mid_experiment)
{
	ASSERT_EQ(0, spawn(_metadata, self, "spin", "0"));
	ASSERT_EQ(0, session_start(self));
	ASSERT_EQ(0, experiment_start(self, 1000));
	usleep(500000);
	ASSERT_EQ(0, cp_control("stop"));
	ASSERT_EQ(0, exp_read(&self->info));
	ASSERT_STREQ("stopped", self->info.state);
	ASSERT_GT(self->info.hits, 0);
	ASSERT_EQ(-ENOENT, cp_control("experiment stop"));
	ASSERT_TRUE(cp_thread_runs(self->c.pid, self->c.b));
	ASSERT_EQ(0, cp_module_refs_settle());
}

TEST_F(causal, rmmod_mid_experiment)
{
	int i, ret;

	ASSERT_EQ(0, spawn(_metadata, self, "spin", "0"));
	ASSERT_EQ(0, session_start(self));
	ASSERT_EQ(0, experiment_start(self, 1000));
	usleep(500000);
	/* Refused while a payment is queued, or done, stopping everything. */
	ret = cp_module_unload();
	TH_LOG("rmmod mid experiment: %s", ret ? strerror(-ret) : "unloaded");
	ASSERT_TRUE(!ret || ret == -EWOULDBLOCK || ret == -EBUSY);
	if (ret) {
		ASSERT_EQ(0, cp_control("stop"));
		for (i = 0; i < 100 && (ret = cp_module_unload()); i++)
			usleep(10000);
		ASSERT_EQ(0, ret);
	}
	ASSERT_FALSE(cp_module_loaded());
	ASSERT_TRUE(cp_thread_runs(self->c.pid, self->c.b));
	ASSERT_EQ(0, cp_module_ensure_loaded());
}

TEST_F(causal, target_exits_mid_experiment)
{
	/* Long enough to be sampled in its selected code by a starved VM too. */
	ASSERT_EQ(0, spawn(_metadata, self, "spin", "3"));
	ASSERT_EQ(0, session_start(self));
	ASSERT_EQ(0, experiment_start(self, 500));
	ASSERT_EQ(0, cp_target_wait(&self->target, 10000));
	ASSERT_EQ(0, self->target.status);
	ASSERT_EQ(0, cp_control("experiment stop"));
	ASSERT_EQ(0, exp_read(&self->info));
	ASSERT_GT(self->info.hits, 0);
	ASSERT_EQ(0, cp_module_refs_settle());
}

TEST_F(causal, control_errors)
{
	char cmd[128];

	ASSERT_EQ(0, spawn(_metadata, self, "spin", "0"));
	ASSERT_EQ(-ENOENT, experiment_start(self, 500));
	ASSERT_EQ(0, session_start(self));
	ASSERT_EQ(-EINVAL, experiment_start(self, 1001));
	ASSERT_EQ(-EINVAL, cp_control("experiment start speedup=500"));
	ASSERT_EQ(-EINVAL, cp_control("experiment start range=1:0x10-0x20"));
	snprintf(cmd, sizeof(cmd), "experiment start speedup=5 range=%d:0x20-0x10", self->c.pid);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "experiment start speedup=5 range=%d:0x10-0x20",
		 cp_dead_pid());
	ASSERT_EQ(-ESRCH, cp_control(cmd));
	ASSERT_EQ(-ENOENT, cp_control("experiment stop"));
	ASSERT_EQ(0, experiment_start(self, 500));
	ASSERT_EQ(-EBUSY, experiment_start(self, 500));
	ASSERT_EQ(0, cp_control("experiment stop"));
}

TEST_HARNESS_MAIN
