// SPDX-License-Identifier: GPL-2.0
/*
 * Experiments over netlink, their CAUSALPROF_REC_EXPERIMENT record, and
 * their lifecycle, on build/tests/targets/causal (thread A spins in the
 * selected code, thread B elsewhere), sampled by cpu-clock at 1 kHz in a
 * session owned by a netlink socket:
 *
 * - the record streamed at EXPERIMENT_STOP holds what
 *   /proc/causalprof/experiment shows, its times bracket the requests';
 * - who may control an experiment (only the session's owner, only through
 *   the surface that started the session) and what a bad request gets;
 * - an experiment cut by the session's stop, by its target's exit, by its
 *   owner's death or by rmmod: the record comes when it can, no thread is
 *   left asleep, the module unloads cleanly afterwards;
 * - progress points over netlink (on build/tests/targets/progress): what
 *   each counted during the experiment, in the record, exactly; the
 *   points of an owner that dies go with its session (the file's own byte
 *   is back where the breakpoint was); a probe of several sites
 *   (CAUSALPROF_PP_A_SITES) counts a hit at any, and a bad list of sites
 *   is refused with a message naming what is wrong.
 *
 * Every comparison is between quantities the kernel reports or clocks read
 * in the same run; none depends on how fast the machine is.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FREQ		1000
#define RCVBUF		(32 << 20)

/* What /proc/causalprof/experiment shows. */
struct exp_info {
	char text[1 << 16];
	char state[16];
	int64_t id, speedup, wall, inserted, hits, payments, paid, tasks_paid, capped,
		inherited, table_full;
};

FIXTURE(exp) {
	struct cp_target target;
	struct cp_nl nl;
	struct cp_stream stream;
	char path[PATH_MAX];
	struct cp_causal c;	/* the causal target's ready line */
	uint64_t taint;
	pid_t owner;		/* a forked session owner, or 0 */
	uint64_t max_pause_us;	/* to restore, or 0 */
	int pipe[2];
	struct exp_info info;
};

FIXTURE_SETUP(exp)
{
	self->pipe[0] = -1;
	self->pipe[1] = -1;
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_kernel_taint(&self->taint));
	ASSERT_EQ(0, cp_target_path("causal", self->path, sizeof(self->path)));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, RCVBUF));
	self->nl.stream = &self->stream;
}

FIXTURE_TEARDOWN(exp)
{
	uint64_t taint = 0;

	if (self->owner > 0) {
		kill(self->owner, SIGKILL);
		waitpid(self->owner, NULL, 0);
	}
	if (self->pipe[0] >= 0) {
		close(self->pipe[0]);
		close(self->pipe[1]);
	}
	cp_target_kill(&self->target);
	if (self->max_pause_us)
		EXPECT_EQ(0, cp_module_param_set("max_pause_us", self->max_pause_us));
	cp_nl_close(&self->nl);
	cp_stream_free(&self->stream);
	EXPECT_EQ(0, cp_module_ensure_loaded());
	EXPECT_EQ(0, cp_session_reset());
	EXPECT_EQ(0, cp_kernel_taint(&taint));
	taint &= ~self->taint;
	EXPECT_EQ(0U, taint & (CP_TAINT_WARN | CP_TAINT_DIE))
		TH_LOG("the kernel warned or oopsed: tainted %#llx", (unsigned long long)taint);
}

static int exp_read(struct exp_info *e)
{
	const struct {
		const char *key;
		int64_t *val;
	} keys[] = {
		{ "id", &e->id }, { "speedup", &e->speedup }, { "wall_ns", &e->wall },
		{ "inserted_ns", &e->inserted }, { "hits", &e->hits },
		{ "payments", &e->payments }, { "paid_ns", &e->paid },
		{ "tasks_paid", &e->tasks_paid }, { "capped", &e->capped },
		{ "inherited", &e->inherited }, { "table_full", &e->table_full },
	};
	size_t i;
	int ret;

	ret = cp_exp_read(e->text, sizeof(e->text));
	if (ret)
		return ret;
	if (sscanf(e->text, "\nstate: %15s", e->state) != 1)
		return -EINVAL;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (cp_exp_i64(e->text, keys[i].key, keys[i].val))
			return -EINVAL;
	return 0;
}

/* The causal target in MODE, running for SECONDS (0: until killed). */
static int spawn(FIXTURE_DATA(exp) *self, const char *mode, const char *seconds)
{
	int ret = cp_causal_spawn(&self->target, self->path, mode, seconds, &self->c);

	if (ret < 0)
		return ret;
	return ret == 5 ? 0 : -EINVAL;
}

static struct causalprof_exp_range hit_range(FIXTURE_DATA(exp) *self)
{
	return (struct causalprof_exp_range){ .pid = self->c.pid, .start = self->c.start,
				     .end = self->c.end };
}

/* A session on the target owned by nl, sampling cpu-clock. */
static int session_start(struct cp_nl *nl, pid_t pid)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	uint64_t id;

	return cp_nl_start_events(nl, pid, CP_F_STACKS, &ev, 1, &id);
}

static int experiment_start(FIXTURE_DATA(exp) *self, uint32_t speedup)
{
	const struct causalprof_exp_range r = hit_range(self);

	return cp_nl_experiment_start(&self->nl, speedup, &r, 1);
}

/*
 * The delay A's hits inserted after B's last sample in user mode before
 * to: B's last chance to queue a payment. From the stream's samples of A
 * (all of them hits: A only spins in the selected code).
 */
static uint64_t inserted_after_last_payer_sample(const struct cp_stream *s, pid_t a, pid_t b,
						 uint64_t from, uint64_t to, uint32_t speedup)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *smp;
	uint64_t last = from, weight = 0;
	size_t off;

	cp_stream_for_each(s, h, off) {
		smp = cp_rec_sample(h);
		if (smp && smp->tid == (uint32_t)b && (smp->sflags & CAUSALPROF_SAMPLE_F_USER) &&
		    smp->time_ns >= from && smp->time_ns <= to && smp->time_ns > last)
			last = smp->time_ns;
	}
	cp_stream_for_each(s, h, off) {
		smp = cp_rec_sample(h);
		if (smp && smp->tid == (uint32_t)a && smp->time_ns > last && smp->time_ns <= to)
			weight += smp->period;
	}
	return weight * speedup / 1000;
}

/*
 * The longest time between two samples of thread tid in [from, to]. For a
 * thread that never sleeps, how long the VM stalled it at most (a stall
 * that also makes a payment oversleep).
 */
static uint64_t longest_gap(const struct cp_stream *s, pid_t tid, uint64_t from, uint64_t to)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *smp;
	uint64_t last = from, gap = 0;
	size_t off;

	cp_stream_for_each(s, h, off) {
		smp = cp_rec_sample(h);
		if (!smp || smp->tid != (uint32_t)tid || smp->time_ns < from || smp->time_ns > to)
			continue;
		if (smp->time_ns > last && smp->time_ns - last > gap)
			gap = smp->time_ns - last;
		if (smp->time_ns > last)
			last = smp->time_ns;
	}
	return to > last && to - last > gap ? to - last : gap;
}

/* The thread sleeps in a payment now: its wchan is the module's pay(). */
static bool in_payment(pid_t pid, pid_t tid)
{
	char path[128], wchan[64];
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	len = fread(wchan, 1, sizeof(wchan) - 1, f);
	fclose(f);
	wchan[len > 0 ? len : 0] = '\0';
	return !strcmp(wchan, "pay");
}

/*
 * A thread of pid that sleeps in a payment (its wchan is the module's
 * pay()) at every one of 10 looks over a second, or 0.
 */
static pid_t asleep_in_payment(pid_t pid)
{
	int seen[64] = {}, tids[64], n = 0, i, look;
	struct dirent *d;
	char path[64];
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < 64)
		if (d->d_name[0] != '.')
			tids[n++] = atoi(d->d_name);
	closedir(dir);

	for (look = 0; look < 10; look++) {
		for (i = 0; i < n; i++)
			seen[i] += in_payment(pid, tids[i]);
		usleep(100000);
	}
	for (i = 0; i < n; i++)
		if (seen[i] == 10)
			return tids[i];
	return 0;
}

/* The one EXPERIMENT record of the stream. */
static const struct causalprof_experiment *only_experiment(const struct cp_stream *s)
{
	return s->experiments == 1 ? cp_stream_experiment(s, 0) : NULL;
}

/*
 * The record holds what /proc shows once the experiment stopped; its
 * times are inside the requests that started and stopped it.
 */
TEST_F(exp, record)
{
	const struct causalprof_experiment *e;
	const struct causalprof_exp_range *r;
	const struct causalprof_exp_acct *ac;
	uint64_t t0, t1, t2, t3, n, cap, late, slack, stall;
	struct exp_info before;

	ASSERT_EQ(0, spawn(self, "spin", "0"));
	ASSERT_EQ(0, session_start(&self->nl, self->c.pid)) TH_LOG("%s", self->nl.extack);
	t0 = cp_now_ns();
	ASSERT_EQ(0, experiment_start(self, 500)) TH_LOG("%s", self->nl.extack);
	t1 = cp_now_ns();
	ASSERT_EQ(0, cp_nl_pump(&self->nl, 2000));
	ASSERT_EQ(0, exp_read(&before));
	ASSERT_STREQ("running", before.state);
	t2 = cp_now_ns();
	ASSERT_EQ(0, cp_nl_experiment_stop(&self->nl)) TH_LOG("%s", self->nl.extack);
	t3 = cp_now_ns();
	ASSERT_EQ(0, exp_read(&self->info));
	ASSERT_STREQ("stopped", self->info.state);
	ASSERT_EQ(0, cp_nl_wait_experiments(&self->nl, 1, CP_WAIT_MS));
	e = only_experiment(&self->stream);
	ASSERT_NE(NULL, e);
	r = cp_exp_ranges(e);
	TH_LOG("experiment %u: wall %" PRIu64 " ns (requests %" PRIu64 "-%" PRIu64
	       "), inserted %" PRIu64 " ns, hits %" PRIu64 ", paid %" PRIu64 " ns (%.2f%%) in %"
	       PRIu64 " payments by %u threads; before stop: inserted %" PRId64 ", hits %" PRId64,
	       e->id, (uint64_t)e->wall_ns, t2 - t1, t3 - t0, (uint64_t)e->inserted_ns,
	       (uint64_t)e->hits, (uint64_t)e->paid_ns,
	       100.0 * e->paid_ns / (e->inserted_ns ?: 1), (uint64_t)e->payments,
	       e->tasks_paid, before.inserted, before.hits);

	/* what was asked */
	EXPECT_EQ(CAUSALPROF_EXP_F_SPANS | CAUSALPROF_EXP_F_ACCT |
		  CAUSALPROF_EXP_F_VISITS, e->hdr.flags);
	EXPECT_EQ(before.id, e->id);
	EXPECT_EQ(500U, e->speedup);
	ASSERT_EQ(1, e->nr_ranges);
	EXPECT_EQ((uint32_t)self->c.pid, r->pid);
	EXPECT_EQ(self->c.start, r->start);
	EXPECT_EQ(self->c.end, r->end);
	EXPECT_EQ(0, e->nr_points);

	/* when: inside the START and STOP requests */
	EXPECT_LE(t0, e->start_ns);
	EXPECT_GE(t1, e->start_ns);
	EXPECT_LE(t2, e->time_ns);
	EXPECT_GE(t3, e->time_ns);
	EXPECT_EQ(e->time_ns - e->start_ns, e->wall_ns);
	EXPECT_EQ(self->info.wall, (int64_t)e->wall_ns);

	/* the counters: final, as /proc shows them after the stop */
	ASSERT_GT(e->hits, 0ULL);
	ASSERT_GT(e->inserted_ns, 0ULL);
	EXPECT_GE((int64_t)e->hits, before.hits);
	EXPECT_GE((int64_t)e->inserted_ns, before.inserted);
	EXPECT_EQ(self->info.hits, (int64_t)e->hits);
	EXPECT_EQ(self->info.inserted, (int64_t)e->inserted_ns);
	EXPECT_EQ(self->info.payments, (int64_t)e->payments);
	EXPECT_EQ(self->info.paid, (int64_t)e->paid_ns);
	EXPECT_EQ(self->info.tasks_paid, (int64_t)e->tasks_paid);
	EXPECT_EQ(self->info.capped, (int64_t)e->capped);
	EXPECT_EQ(self->info.inherited, (int64_t)e->inherited);
	EXPECT_EQ(self->info.table_full, (int64_t)e->table_full);
	ASSERT_EQ(0, cp_debugfs_u64("causal/inserted_ns", &n));
	EXPECT_EQ(n, e->inserted_ns);

	/* one record, before END */
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	EXPECT_EQ(NULL, cp_stream_problem(&self->stream));
	EXPECT_EQ(1UL, self->stream.experiments);
	e = cp_stream_experiment(&self->stream, 0);	/* the stream grew */
	ASSERT_NE(NULL, e);

	/*
	 * B, which never hits, paid what A's hits inserted, within 5 %, A
	 * nothing. Except that B cannot have paid what was inserted after
	 * its last sample in user mode (its last chance to queue a payment),
	 * and the stop cut short the payment B may have been making (at most
	 * max_pause_us). B overpays only when a payment oversleeps, which
	 * takes the host stalling the VM: by at most the longest stall of A,
	 * which never sleeps, seen as the longest gap between its samples.
	 */
	ASSERT_GT(e->inserted_ns, 200000000ULL);
	EXPECT_EQ(1U, e->tasks_paid);
	ASSERT_EQ(0, cp_module_param_get("max_pause_us", &cap));
	cap *= 1000;
	late = inserted_after_last_payer_sample(&self->stream, self->c.a, self->c.b, e->start_ns,
						 e->time_ns, e->speedup);
	stall = longest_gap(&self->stream, self->c.a, e->start_ns, e->time_ns);
	slack = e->inserted_ns / 20;
	TH_LOG("B paid %.1f%% of inserted; %.1f ms inserted after its last sample; A's longest stall %.1f ms",
	       100.0 * e->paid_ns / e->inserted_ns, late / 1e6, stall / 1e6);
	EXPECT_GE(e->paid_ns + slack + late + cap, e->inserted_ns);
	EXPECT_LE(e->paid_ns, e->inserted_ns + slack + stall);

	/*
	 * The accounting: what the payments slept is what they asked, plus
	 * their overshoot, less what the stop cut short. A alone hits, never
	 * behind (it never pays): the delay inserted is the speedup times the
	 * time its hits stand for, to a nanosecond a hit (rounding), and
	 * nothing was absorbed. A runs all along: the time its hits stand
	 * for is most of the experiment's (the ticks of two vCPUs are late
	 * or missing, the run time between them is not).
	 */
	ac = cp_exp_acct(e);
	ASSERT_NE(NULL, ac);
	TH_LOG("asked %" PRIu64 " overshoot %" PRIu64 " short %" PRIu64 " selected %" PRIu64
	       " absorbed %" PRIu64 " ns, queued %" PRIu64 " at samples", (uint64_t)ac->asked_ns,
	       (uint64_t)ac->overshoot_ns, (uint64_t)ac->short_ns, (uint64_t)ac->selected_ns,
	       (uint64_t)ac->absorbed_ns, (uint64_t)ac->sample_queued);
	EXPECT_EQ(e->paid_ns, ac->asked_ns + ac->overshoot_ns - ac->short_ns);
	EXPECT_GE(ac->overshoot_ns, ac->max_overshoot_ns);
	EXPECT_EQ(0ULL, ac->absorbed_ns);
	EXPECT_LE(ac->selected_ns * e->speedup / 1000, e->inserted_ns + e->hits);
	EXPECT_GE(ac->selected_ns * e->speedup / 1000 + e->hits, e->inserted_ns);
	EXPECT_GT(ac->selected_ns, e->wall_ns * 8 / 10);
	EXPECT_GT(ac->sample_queued, 0ULL);
}

/* A request of the wrong caller, or through the wrong surface. */
TEST_F(exp, permissions)
{
	struct causalprof_exp_range r;
	struct cp_nl other;
	char cmd[128];

	ASSERT_EQ(0, spawn(self, "spin", "0"));
	r = hit_range(self);

	/* no session */
	EXPECT_EQ(-ENOENT, experiment_start(self, 500));
	EXPECT_NE(0, self->nl.extack[0]);
	EXPECT_EQ(-ENOENT, cp_nl_experiment_stop(&self->nl));
	EXPECT_NE(0, self->nl.extack[0]);

	/* a netlink session: only its owner's socket */
	ASSERT_EQ(0, session_start(&self->nl, self->c.pid));
	ASSERT_EQ(0, cp_nl_open(&other));
	EXPECT_EQ(-EPERM, cp_nl_experiment_start(&other, 500, &r, 1));
	EXPECT_NE(NULL, strstr(other.extack, "owner")) TH_LOG("extack: '%s'", other.extack);
	EXPECT_EQ(-EPERM, cp_nl_experiment_stop(&other));
	EXPECT_NE(NULL, strstr(other.extack, "owner")) TH_LOG("extack: '%s'", other.extack);
	snprintf(cmd, sizeof(cmd), "experiment start speedup=500 range=%d:0x%llx-0x%llx",
		 self->c.pid, self->c.start, self->c.end);
	EXPECT_EQ(-EPERM, cp_control(cmd));
	ASSERT_EQ(0, experiment_start(self, 500)) TH_LOG("%s", self->nl.extack);
	/* the running experiment cannot be stopped by others either */
	EXPECT_EQ(-EPERM, cp_nl_experiment_stop(&other));
	EXPECT_EQ(-EPERM, cp_control("experiment stop"));
	ASSERT_EQ(0, exp_read(&self->info));
	EXPECT_STREQ("running", self->info.state);
	EXPECT_EQ(-EBUSY, experiment_start(self, 500));
	EXPECT_NE(0, self->nl.extack[0]);
	EXPECT_EQ(0, cp_nl_experiment_stop(&self->nl)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(-ENOENT, cp_nl_experiment_stop(&self->nl));
	EXPECT_NE(NULL, strstr(self->nl.extack, "experiment"));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	EXPECT_EQ(1UL, self->stream.experiments);

	/* a /proc session: only through /proc */
	snprintf(cmd, sizeof(cmd), "start pid=%d", self->c.pid);
	ASSERT_EQ(0, cp_control(cmd));
	EXPECT_EQ(-EPERM, experiment_start(self, 500));
	EXPECT_NE(NULL, strstr(self->nl.extack, "/proc")) TH_LOG("extack: '%s'", self->nl.extack);
	snprintf(cmd, sizeof(cmd), "experiment start speedup=500 range=%d:0x%llx-0x%llx",
		 self->c.pid, self->c.start, self->c.end);
	ASSERT_EQ(0, cp_control(cmd));
	EXPECT_EQ(-EPERM, cp_nl_experiment_stop(&self->nl));
	EXPECT_NE(NULL, strstr(self->nl.extack, "/proc")) TH_LOG("extack: '%s'", self->nl.extack);
	EXPECT_EQ(0, cp_control("experiment stop"));
	EXPECT_EQ(0, cp_control("stop"));
	cp_nl_close(&other);
}

/* A hand-built EXPERIMENT_START: its attributes' bytes, appended in order. */
struct req {
	char buf[4096] __attribute__((aligned(4)));
	size_t len;
};

static void put_range(struct req *q, uint32_t pid, uint64_t start, uint64_t end)
{
	size_t nest;

	q->len = cp_nla_nest_start(q->buf, q->len, CAUSALPROF_EXP_A_RANGE, &nest);
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_PID, &pid, sizeof(pid));
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_START, &start, sizeof(start));
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_END, &end, sizeof(end));
	cp_nla_nest_end(q->buf, nest, q->len);
}

/*
 * Sends CAUSALPROF_A_EXPERIMENT with the speedup (unless speedup < 0),
 * nr ranges of the target, and extra bytes built by the caller's extra().
 */
static int bad_start(FIXTURE_DATA(exp) *self, int64_t speedup, int nr,
		     void (*extra)(FIXTURE_DATA(exp) *self, struct req *q))
{
	struct req q = { .len = 0 };
	uint32_t s = speedup;
	size_t nest;
	int i, ret;

	q.len = cp_nla_nest_start(q.buf, q.len, CAUSALPROF_A_EXPERIMENT, &nest);
	if (speedup >= 0)
		q.len = cp_nla_put(q.buf, q.len, CAUSALPROF_EXP_A_SPEEDUP, &s, sizeof(s));
	for (i = 0; i < nr; i++)
		put_range(&q, self->c.pid, self->c.start, self->c.end);
	if (extra)
		extra(self, &q);
	cp_nla_nest_end(q.buf, nest, q.len);
	ret = cp_nl_request(&self->nl, CAUSALPROF_CMD_EXPERIMENT_START, q.buf, q.len, NULL, 0);
	return ret < 0 ? ret : 0;
}

static void backwards_range(FIXTURE_DATA(exp) *self, struct req *q)
{
	put_range(q, self->c.pid, self->c.end, self->c.start);
}

static void empty_range(FIXTURE_DATA(exp) *self, struct req *q)
{
	put_range(q, self->c.pid, self->c.start, self->c.start);
}

static void dead_range(FIXTURE_DATA(exp) *self, struct req *q)
{
	put_range(q, cp_dead_pid(), self->c.start, self->c.end);
}

/* A process that has exited and is not reaped yet: its pid still finds it. */
static pid_t zombie;

static void zombie_range(FIXTURE_DATA(exp) *self, struct req *q)
{
	put_range(q, zombie, self->c.start, self->c.end);
}

/* A range with an attribute type the policy does not know (above the max). */
static void unknown_in_range(FIXTURE_DATA(exp) *self, struct req *q)
{
	uint32_t v = 1;
	size_t nest;

	q->len = cp_nla_nest_start(q->buf, q->len, CAUSALPROF_EXP_A_RANGE, &nest);
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_PID, &self->c.pid, sizeof(uint32_t));
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_START, &self->c.start, 8);
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_END, &self->c.end, 8);
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_MAX + 1, &v, sizeof(v));
	cp_nla_nest_end(q->buf, nest, q->len);
}

/* One the policy knows of but does not take (RANGE_A_PAD). */
static void pad_in_range(FIXTURE_DATA(exp) *self, struct req *q)
{
	uint32_t v = 0;
	size_t nest;

	q->len = cp_nla_nest_start(q->buf, q->len, CAUSALPROF_EXP_A_RANGE, &nest);
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_PAD, &v, sizeof(v));
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_PID, &self->c.pid, sizeof(uint32_t));
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_START, &self->c.start, 8);
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_END, &self->c.end, 8);
	cp_nla_nest_end(q->buf, nest, q->len);
}

static void unknown_in_experiment(FIXTURE_DATA(exp) *self, struct req *q)
{
	uint32_t v = 1;

	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_EXP_A_MAX + 1, &v, sizeof(v));
}

static void range_without_end(FIXTURE_DATA(exp) *self, struct req *q)
{
	size_t nest;

	q->len = cp_nla_nest_start(q->buf, q->len, CAUSALPROF_EXP_A_RANGE, &nest);
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_PID, &self->c.pid, sizeof(uint32_t));
	q->len = cp_nla_put(q->buf, q->len, CAUSALPROF_RANGE_A_START, &self->c.start, 8);
	cp_nla_nest_end(q->buf, nest, q->len);
}

/* The request fails with err and an extack message holding what. */
#define EXPECT_BAD(err, what, expr) do {						\
	EXPECT_EQ(err, (expr));								\
	EXPECT_NE(NULL, strstr(self->nl.extack, what))					\
		TH_LOG("%s: extack '%s' does not name %s", #expr, self->nl.extack, what);	\
} while (0)

TEST_F(exp, bad_requests)
{
	struct causalprof_exp_range many[CAUSALPROF_MAX_RANGES + 1];
	char attr[16] __attribute__((aligned(4)));
	uint32_t flags = 0;
	siginfo_t si;
	size_t i, len;

	ASSERT_EQ(0, spawn(self, "spin", "0"));
	ASSERT_EQ(0, session_start(&self->nl, self->c.pid));

	EXPECT_BAD(-EINVAL, "SPEEDUP", bad_start(self, 1001, 1, NULL));
	EXPECT_BAD(-EINVAL, "SPEEDUP", bad_start(self, -1, 1, NULL));
	EXPECT_BAD(-EINVAL, "RANGE", bad_start(self, 500, 0, NULL));
	EXPECT_BAD(-EINVAL, "RANGE_A_END", bad_start(self, 500, 1, backwards_range));
	EXPECT_BAD(-EINVAL, "RANGE_A_END", bad_start(self, 500, 1, empty_range));
	EXPECT_BAD(-EINVAL, "RANGE_A_", bad_start(self, 500, 0, range_without_end));
	EXPECT_BAD(-ESRCH, "RANGE_A_PID", bad_start(self, 500, 1, dead_range));
	/* exited: refused as gone, not as a matter of ptrace rights */
	zombie = fork();
	ASSERT_LE(0, zombie);
	if (!zombie)
		_exit(0);
	ASSERT_EQ(0, waitid(P_PID, zombie, &si, WEXITED | WNOWAIT));
	EXPECT_BAD(-ESRCH, "exited", bad_start(self, 500, 1, zombie_range));
	ASSERT_EQ(zombie, waitpid(zombie, NULL, 0));
	EXPECT_BAD(-EINVAL, "RANGE", bad_start(self, 500, CAUSALPROF_MAX_RANGES + 1, NULL));
	for (i = 0; i < CAUSALPROF_MAX_RANGES + 1; i++)
		many[i] = hit_range(self);
	EXPECT_BAD(-EINVAL, "RANGE",
		   cp_nl_experiment_start(&self->nl, 500, many, CAUSALPROF_MAX_RANGES + 1));
	/* strict policies: what they do not list is refused, with the kernel's message */
	EXPECT_BAD(-EINVAL, "attribute", bad_start(self, 500, 1, unknown_in_range));
	EXPECT_BAD(-EINVAL, "attribute", bad_start(self, 500, 1, pad_in_range));
	EXPECT_BAD(-EINVAL, "attribute", bad_start(self, 500, 1, unknown_in_experiment));
	EXPECT_BAD(-EINVAL, "CAUSALPROF_A_EXPERIMENT",
		   cp_nl_request(&self->nl, CAUSALPROF_CMD_EXPERIMENT_START, NULL, 0, NULL, 0));
	/* STOP takes no attribute */
	len = cp_nla_put(attr, 0, CAUSALPROF_A_FLAGS, &flags, sizeof(flags));
	EXPECT_BAD(-EINVAL, "attribute", cp_nl_request(&self->nl, CAUSALPROF_CMD_EXPERIMENT_STOP,
						      attr, len, NULL, 0));

	/* nothing started; the module still works */
	ASSERT_EQ(0, exp_read(&self->info));
	EXPECT_STRNE("running", self->info.state);
	EXPECT_EQ(16, CAUSALPROF_MAX_RANGES);
	for (i = 0; i < CAUSALPROF_MAX_RANGES; i++)
		many[i].start = self->c.start + i, many[i].end = self->c.start + i + 1;
	many[0] = hit_range(self);
	ASSERT_EQ(0, cp_nl_experiment_start(&self->nl, 0, many, CAUSALPROF_MAX_RANGES))
		TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_nl_pump(&self->nl, 300));
	ASSERT_EQ(0, cp_nl_experiment_stop(&self->nl));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	ASSERT_EQ(NULL, cp_stream_problem(&self->stream));
	ASSERT_EQ(1UL, self->stream.experiments);
	EXPECT_EQ(CAUSALPROF_MAX_RANGES, cp_stream_experiment(&self->stream, 0)->nr_ranges);
	EXPECT_EQ(0ULL, cp_stream_experiment(&self->stream, 0)->inserted_ns);
}

/* The session stops mid-experiment: the record, marked so, then END. */
TEST_F(exp, session_stop_mid_experiment)
{
	const struct causalprof_experiment *e;

	ASSERT_EQ(0, spawn(self, "spin", "0"));
	ASSERT_EQ(0, session_start(&self->nl, self->c.pid));
	ASSERT_EQ(0, experiment_start(self, 1000));
	ASSERT_EQ(0, cp_nl_pump(&self->nl, 500));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	ASSERT_EQ(NULL, cp_stream_problem(&self->stream));
	e = only_experiment(&self->stream);
	ASSERT_NE(NULL, e) TH_LOG("%zu EXPERIMENT records", self->stream.experiments);
	EXPECT_EQ(CAUSALPROF_EXP_F_SESSION_END | CAUSALPROF_EXP_F_SPANS | CAUSALPROF_EXP_F_ACCT |
		  CAUSALPROF_EXP_F_VISITS,
		  e->hdr.flags);
	EXPECT_GT(e->hits, 0ULL);
	EXPECT_GE(self->stream.end.time_ns, e->time_ns);
	ASSERT_EQ(0, exp_read(&self->info));
	EXPECT_STREQ("stopped", self->info.state);
	EXPECT_EQ(self->info.inserted, (int64_t)e->inserted_ns);
	EXPECT_EQ(0, asleep_in_payment(self->c.pid));
	EXPECT_TRUE(cp_thread_runs(self->c.pid, self->c.a));
	EXPECT_TRUE(cp_thread_runs(self->c.pid, self->c.b));
	EXPECT_EQ(0, cp_module_refs_settle());
}

/* The target exits mid-experiment: the experiment stops as usual. */
TEST_F(exp, target_exits_mid_experiment)
{
	const struct causalprof_experiment *e;

	ASSERT_EQ(0, spawn(self, "spin", "3"));
	ASSERT_EQ(0, session_start(&self->nl, self->c.pid));
	ASSERT_EQ(0, experiment_start(self, 500));
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 10000));
	ASSERT_EQ(0, self->target.status);
	ASSERT_EQ(0, cp_nl_experiment_stop(&self->nl)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_nl_wait_experiments(&self->nl, 1, CP_WAIT_MS));
	e = only_experiment(&self->stream);
	ASSERT_NE(NULL, e);
	TH_LOG("experiment of %" PRIu64 " ms, target gone: hits %" PRIu64 ", inserted %" PRIu64
	       " ns", (uint64_t)e->wall_ns / 1000000, (uint64_t)e->hits,
	       (uint64_t)e->inserted_ns);
	EXPECT_EQ(CAUSALPROF_EXP_F_SPANS | CAUSALPROF_EXP_F_ACCT |
		  CAUSALPROF_EXP_F_VISITS, e->hdr.flags);
	EXPECT_GT(e->hits, 0ULL);
	EXPECT_EQ((uint32_t)self->c.pid, cp_exp_ranges(e)->pid);
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	EXPECT_EQ(NULL, cp_stream_problem(&self->stream));
	EXPECT_EQ(0, cp_module_refs_settle());
}

/* A forked owner: session and experiment on pid, tells fd, then reads. */
static void owner_main(FIXTURE_DATA(exp) *self, int fd)
{
	const struct causalprof_exp_range r = hit_range(self);
	struct cp_stream stream = {};
	struct cp_nl nl;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ret = cp_nl_open(&nl);
	if (!ret)
		ret = cp_nl_set_rcvbuf(&nl, RCVBUF);
	nl.stream = &stream;
	if (!ret)
		ret = session_start(&nl, self->c.pid);
	if (!ret)
		ret = cp_nl_experiment_start(&nl, 1000, &r, 1);
	if (write(fd, &ret, sizeof(ret)) != sizeof(ret) || ret)
		_exit(1);
	for (;;)
		cp_nl_pump(&nl, 1000);
}

/*
 * The owner dies mid-experiment: the session stops, no thread is left
 * asleep in a payment, and the module takes a new session. Payments may
 * last up to a second here (the most max_pause_us allows), so that one the
 * stop failed to cut short would be seen.
 */
TEST_F_TIMEOUT(exp, owner_killed_mid_experiment, 90)
{
	struct pollfd pfd;
	struct cp_nl nl;
	pid_t stuck;
	int i, ret = -1;

	ASSERT_EQ(0, cp_module_param_get("max_pause_us", &self->max_pause_us));
	ASSERT_EQ(0, cp_module_param_set("max_pause_us", 1000000));
	ASSERT_EQ(0, spawn(self, "spin", "0"));
	ASSERT_EQ(0, pipe(self->pipe));
	pfd = (struct pollfd){ .fd = self->pipe[0], .events = POLLIN };
	self->owner = fork();
	ASSERT_LE(0, self->owner);
	if (!self->owner)
		owner_main(self, self->pipe[1]);
	ASSERT_EQ(1, poll(&pfd, 1, CP_WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(ret), read(self->pipe[0], &ret, sizeof(ret)));
	ASSERT_EQ(0, ret) TH_LOG("the owner could not start its experiment: %s", strerror(-ret));

	/* mid-experiment: B pays (bounded wait) */
	for (i = 0; i < CP_WAIT_MS / 10; i++) {
		ASSERT_EQ(0, exp_read(&self->info));
		if (self->info.payments || in_payment(self->c.pid, self->c.b))
			break;
		usleep(10000);
	}
	ASSERT_TRUE(self->info.payments || in_payment(self->c.pid, self->c.b))
		TH_LOG("no payments");
	usleep(300000);
	ASSERT_EQ(0, exp_read(&self->info));
	ASSERT_STREQ("running", self->info.state);

	ASSERT_EQ(0, kill(self->owner, SIGKILL));
	ASSERT_EQ(self->owner, waitpid(self->owner, NULL, 0));
	self->owner = 0;
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
	ASSERT_EQ(0, exp_read(&self->info));
	EXPECT_STREQ("stopped", self->info.state);
	TH_LOG("owner killed after %" PRId64 " payments, %" PRId64 " ns paid",
	       self->info.payments, self->info.paid);

	stuck = asleep_in_payment(self->c.pid);
	EXPECT_EQ(0, stuck) TH_LOG("thread %d stays asleep in a payment", stuck);
	EXPECT_TRUE(cp_thread_runs(self->c.pid, self->c.a));
	EXPECT_TRUE(cp_thread_runs(self->c.pid, self->c.b));
	EXPECT_EQ(0, cp_module_refs_settle());

	/* a new session, with an experiment */
	ASSERT_EQ(0, cp_nl_open(&nl));
	ret = session_start(&nl, self->c.pid);
	EXPECT_EQ(0, ret) TH_LOG("extack: '%s'", nl.extack);
	if (!ret) {
		const struct causalprof_exp_range r = hit_range(self);

		EXPECT_EQ(0, cp_nl_experiment_start(&nl, 500, &r, 1));
		EXPECT_EQ(0, cp_nl_stop(&nl));
	}
	cp_nl_close(&nl);
}

/*
 * rmmod mid-experiment: refused (EWOULDBLOCK) while a payment is queued or
 * being paid, which holds the module, or done, stopping everything. Either
 * way no thread is left asleep and the module unloads once the session is
 * stopped.
 */
TEST_F_TIMEOUT(exp, rmmod_mid_experiment, 90)
{
	const struct causalprof_experiment *e;
	int i, ret;

	ASSERT_EQ(0, spawn(self, "spin", "0"));
	ASSERT_EQ(0, session_start(&self->nl, self->c.pid));
	ASSERT_EQ(0, experiment_start(self, 1000));
	ASSERT_EQ(0, cp_nl_pump(&self->nl, 500));
	ret = cp_module_unload();
	TH_LOG("rmmod mid experiment: %s", ret ? strerror(-ret) : "unloaded");
	ASSERT_TRUE(!ret || ret == -EWOULDBLOCK || ret == -EBUSY);
	if (ret) {
		ASSERT_TRUE(cp_module_loaded());
		ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS)) TH_LOG("%s", self->nl.extack);
		for (i = 0; i < 100 && (ret = cp_module_unload()); i++)
			usleep(10000);
		ASSERT_EQ(0, ret) TH_LOG("no unload once the session stopped: %s",
					 strerror(-ret));
	} else {
		/* the unload stopped the session; its last records reached us */
		ASSERT_EQ(0, cp_nl_pump(&self->nl, CP_WAIT_MS));
	}
	ASSERT_FALSE(cp_module_loaded());
	EXPECT_EQ(NULL, cp_stream_problem(&self->stream));
	e = only_experiment(&self->stream);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(CAUSALPROF_EXP_F_SESSION_END | CAUSALPROF_EXP_F_SPANS | CAUSALPROF_EXP_F_ACCT |
		  CAUSALPROF_EXP_F_VISITS,
		  e->hdr.flags);
	EXPECT_GT(e->hits, 0ULL);
	EXPECT_EQ(0, asleep_in_payment(self->c.pid));
	EXPECT_TRUE(cp_thread_runs(self->c.pid, self->c.a));
	EXPECT_TRUE(cp_thread_runs(self->c.pid, self->c.b));
	ASSERT_EQ(0, cp_module_ensure_loaded());
}


/* Progress points: build/tests/targets/progress (struct cp_prog). */

#define INT3	0xcc

static const struct causalprof_exp_point *find_point(const struct causalprof_experiment *e,
						     uint32_t id)
{
	unsigned int i;

	for (i = 0; i < e->nr_points; i++)
		if (cp_exp_points(e)[i].id == id)
			return &cp_exp_points(e)[i];
	return NULL;
}

/* The "point: ID ..." line of /proc/causalprof/experiment. */
static int proc_point(const struct exp_info *info, uint32_t id, struct causalprof_exp_point *pt)
{
	unsigned long long count, ends, area, inflight;
	char pat[32], kind[16];
	const char *p;

	snprintf(pat, sizeof(pat), "\npoint: %u ", id);
	p = strstr(info->text, pat);
	if (!p)
		return -ENOENT;
	if (sscanf(p + strlen(pat), "%15s %llu %llu %llu %llu", kind, &count, &ends, &area,
		   &inflight) != 5)
		return -EINVAL;
	*pt = (struct causalprof_exp_point){
		.id = id, .kind = strcmp(kind, "latency") ? CAUSALPROF_PP_THROUGHPUT :
			CAUSALPROF_PP_LATENCY,
		.count = count, .ends = ends, .area_ns = area, .inflight = inflight,
	};
	return 0;
}

/*
 * A progress point's visits, with a cost per visit (what cprof measures a
 * trap at), count as pauses of the threads that make them: the record
 * says how many and how long, and a thread that owed nothing raised the
 * global delay by them (speedup 0: nothing else inserts any). Costs are
 * checked: at most CAUSALPROF_MAX_VISIT_NS, an end's for latency points.
 */
TEST_F_TIMEOUT(exp, progress_visit_pauses, 120)
{
	const uint32_t tp_ns = 50000, begin_ns = 20000, end_ns = 30000;
	const struct causalprof_exp_visits *vi;
	const struct causalprof_exp_acct *ac;
	const struct causalprof_experiment *e;
	struct causalprof_exp_range range;
	uint64_t want;
	struct cp_prog p;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, cp_prog_spawn(&p));
	self->target = p.t;	/* the teardown kills it */
	ASSERT_EQ(0, session_start(&self->nl, p.pid)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(-ERANGE, cp_nl_progress_add_cost(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT,
						   p.path, p.off_tp, 0,
						   CAUSALPROF_MAX_VISIT_NS + 1, 0));
	EXPECT_STRNE("", self->nl.extack);
	EXPECT_EQ(-EINVAL, cp_nl_progress_add_cost(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT,
						   p.path, p.off_tp, 0, tp_ns, end_ns));
	EXPECT_NE(NULL, strstr(self->nl.extack, "latency points only"))
		TH_LOG("extack '%s'", self->nl.extack);
	ASSERT_EQ(0, cp_nl_progress_add_cost(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path,
					     p.off_tp, 0, tp_ns, 0)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_nl_progress_add_cost(&self->nl, 2, CAUSALPROF_PP_LATENCY, p.path,
					     p.off_begin, p.off_end, begin_ns, end_ns))
		TH_LOG("%s", self->nl.extack);

	range = (struct causalprof_exp_range){ .pid = p.pid, .start = p.tp, .end = p.tp + 1 };
	ASSERT_EQ(0, cp_nl_experiment_start(&self->nl, 0, &range, 1)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_prog_call(&p, 1000, 1));
	ASSERT_EQ(0, cp_prog_cmd(&p, "lat 2 5 3", NULL, 0));
	ASSERT_EQ(0, cp_nl_experiment_stop(&self->nl)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_nl_wait_experiments(&self->nl, 1, CP_WAIT_MS));
	e = only_experiment(&self->stream);
	ASSERT_NE(NULL, e);
	vi = cp_exp_visits(e);
	ASSERT_NE(NULL, vi);
	ac = cp_exp_acct(e);
	ASSERT_NE(NULL, ac);
	want = 1000ULL * tp_ns + 10ULL * (begin_ns + end_ns);
	TH_LOG("%llu visits paused %llu ns; inserted %llu ns, payments' overshoot %llu ns",
	       (unsigned long long)vi->visits, (unsigned long long)vi->visit_ns,
	       (unsigned long long)e->inserted_ns, (unsigned long long)ac->overshoot_ns);
	EXPECT_EQ(1020ULL, vi->visits);
	EXPECT_EQ(want, vi->visit_ns);
	/*
	 * The calling thread owed nothing: each of its visits raised the
	 * global delay. The target's other threads owe what the visits raised
	 * and pay it; a payment that overslept puts its thread ahead by the
	 * excess, and that thread's own visits (the latency point's) raise the
	 * global delay past the visits' sum by as much (51205839 ns inserted
	 * for 50500000 ns of visits, once in make check).
	 */
	EXPECT_LE(1000ULL * tp_ns, e->inserted_ns);
	EXPECT_GE(want + ac->overshoot_ns, e->inserted_ns);
}

/*
 * What the record says each point counted during the experiment: exactly
 * the calls made while the experiment ran and the point existed (a point
 * removed and added again counts from then); a latency point's area lies
 * between the sums of the intervals the target measured inside and
 * around its calls, plus the part within the experiment of the interval
 * begun before it.
 */
TEST_F_TIMEOUT(exp, progress_record, 120)
{
	const struct causalprof_exp_point *pt;
	const struct causalprof_experiment *e;
	struct causalprof_exp_point proc;
	uint64_t t0, t_end0, t_end1, t3;
	struct causalprof_exp_range range;
	int64_t inner, outer;
	char reply[128];
	struct cp_prog p;
	long pairs;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, cp_prog_spawn(&p));
	self->target = p.t;	/* the teardown kills it */
	ASSERT_EQ(0, session_start(&self->nl, p.pid)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_nl_progress_add(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path,
					p.off_tp, 0)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_nl_progress_add(&self->nl, 2, CAUSALPROF_PP_LATENCY, p.path,
					p.off_begin, p.off_end)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(INT3, cp_mem_byte(p.pid, p.tp));
	EXPECT_EQ(INT3, cp_mem_byte(p.pid, p.begin));

	/* before the experiment: not in its deltas */
	ASSERT_EQ(0, cp_prog_call(&p, 1000, 1));
	ASSERT_EQ(0, cp_prog_cmd(&p, "begin", NULL, 0));

	range = (struct causalprof_exp_range){ .pid = p.pid, .start = p.tp, .end = p.tp + 1 };
	t0 = cp_now_ns();
	ASSERT_EQ(0, cp_nl_experiment_start(&self->nl, 0, &range, 1)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_prog_call(&p, 2345, 1));
	ASSERT_EQ(0, exp_read(&self->info));
	ASSERT_EQ(0, proc_point(&self->info, 1, &proc));
	EXPECT_EQ(2345ULL, proc.count);
	ASSERT_EQ(0, proc_point(&self->info, 2, &proc));
	EXPECT_EQ(1ULL, proc.inflight);

	/* points added, removed, added again meanwhile */
	ASSERT_EQ(0, cp_nl_progress_add(&self->nl, 3, CAUSALPROF_PP_THROUGHPUT, p.path,
					p.off_tp, 0));
	ASSERT_EQ(0, cp_nl_progress_add(&self->nl, 4, CAUSALPROF_PP_THROUGHPUT, p.path,
					p.off_tp, 0));
	ASSERT_EQ(0, cp_prog_call(&p, 100, 1));
	ASSERT_EQ(0, cp_nl_progress_del(&self->nl, 4));
	ASSERT_EQ(0, cp_nl_progress_del(&self->nl, 1));
	ASSERT_EQ(0, cp_nl_progress_add(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path,
					p.off_tp, 0));
	ASSERT_EQ(0, cp_prog_call(&p, 1500, 1));

	/* the interval begun before, then ten more of two threads */
	t_end0 = cp_now_ns();
	ASSERT_EQ(0, cp_prog_cmd(&p, "end", NULL, 0));
	t_end1 = cp_now_ns();
	ASSERT_EQ(0, cp_prog_cmd(&p, "lat 2 5 3", reply, sizeof(reply)));
	ASSERT_EQ(3, sscanf(reply, "lat %ld %" SCNd64 " %" SCNd64, &pairs, &inner, &outer));
	ASSERT_EQ(10, pairs);

	ASSERT_EQ(0, cp_nl_experiment_stop(&self->nl)) TH_LOG("%s", self->nl.extack);
	t3 = cp_now_ns();
	ASSERT_EQ(0, exp_read(&self->info));
	ASSERT_EQ(0, cp_nl_wait_experiments(&self->nl, 1, CP_WAIT_MS));
	e = only_experiment(&self->stream);
	ASSERT_NE(NULL, e);
	ASSERT_EQ(3, e->nr_points);

	pt = find_point(e, 1);
	ASSERT_NE(NULL, pt);
	EXPECT_EQ((uint32_t)CAUSALPROF_PP_THROUGHPUT, pt->kind);
	EXPECT_EQ(1500ULL, pt->count);
	EXPECT_EQ(0ULL, pt->ends);
	EXPECT_EQ(0ULL, pt->area_ns);
	EXPECT_EQ(0ULL, pt->inflight);
	pt = find_point(e, 3);
	ASSERT_NE(NULL, pt);
	EXPECT_EQ(1600ULL, pt->count);
	EXPECT_EQ(NULL, find_point(e, 4));

	/*
	 * Spans: the throughput points' hits timed within the experiment,
	 * point 1's since it was added again (1500), point 3's all (1600);
	 * none for the latency point.
	 */
	ASSERT_NE(NULL, cp_exp_spans(e));
	for (unsigned int i = 0; i < e->nr_points; i++) {
		const struct causalprof_exp_span *sp = &cp_exp_spans(e)[i];

		pt = &cp_exp_points(e)[i];
		TH_LOG("point %u: span of %llu hits, %llu ns, %llu ns inserted", pt->id,
		       (unsigned long long)sp->hits,
		       (unsigned long long)(sp->last_ns - sp->first_ns),
		       (unsigned long long)sp->inserted_ns);
		if (pt->kind == CAUSALPROF_PP_LATENCY) {
			EXPECT_EQ(0ULL, sp->hits);
			EXPECT_EQ(0ULL, sp->first_ns);
			continue;
		}
		EXPECT_EQ(pt->count, sp->hits);
		EXPECT_LE(e->start_ns, sp->first_ns);
		EXPECT_LT(sp->first_ns, sp->last_ns);
		EXPECT_GE(e->time_ns, sp->last_ns);
		EXPECT_EQ(0ULL, sp->inserted_ns);	/* speedup 0 */
	}

	pt = find_point(e, 2);
	ASSERT_NE(NULL, pt);
	TH_LOG("latency point: %llu begins, %llu ends, area %llu ns in [%" PRId64 ", %" PRId64
	       "], %llu in flight at the start", (unsigned long long)pt->count,
	       (unsigned long long)pt->ends, (unsigned long long)pt->area_ns,
	       inner + (int64_t)(t_end0 - e->start_ns), outer + (int64_t)(t_end1 - t0),
	       (unsigned long long)pt->inflight);
	EXPECT_EQ((uint32_t)CAUSALPROF_PP_LATENCY, pt->kind);
	EXPECT_EQ(10ULL, pt->count);
	EXPECT_EQ(11ULL, pt->ends);
	EXPECT_EQ(1ULL, pt->inflight);
	EXPECT_LE(inner + (int64_t)(t_end0 - e->start_ns), (int64_t)pt->area_ns);
	EXPECT_GE(outer + (int64_t)(t_end1 - t0), (int64_t)pt->area_ns);
	EXPECT_GE(t3, e->time_ns);

	/* /proc shows the record's numbers once the experiment stopped */
	ASSERT_EQ(0, proc_point(&self->info, 2, &proc));
	EXPECT_EQ(pt->count, proc.count);
	EXPECT_EQ(pt->ends, proc.ends);
	EXPECT_EQ(pt->area_ns, proc.area_ns);
	EXPECT_EQ(pt->inflight, proc.inflight);

	/* a session that stops mid-experiment: its record has the points, then they go */
	ASSERT_EQ(0, cp_nl_experiment_start(&self->nl, 0, &range, 1));
	ASSERT_EQ(0, cp_prog_call(&p, 777, 1));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	EXPECT_EQ(NULL, cp_stream_problem(&self->stream));
	ASSERT_EQ(2UL, self->stream.experiments);
	e = cp_stream_experiment(&self->stream, 1);
	EXPECT_EQ(CAUSALPROF_EXP_F_SESSION_END | CAUSALPROF_EXP_F_SPANS | CAUSALPROF_EXP_F_ACCT |
		  CAUSALPROF_EXP_F_VISITS,
		  e->hdr.flags);
	ASSERT_EQ(3, e->nr_points);
	pt = find_point(e, 1);
	ASSERT_NE(NULL, pt);
	EXPECT_EQ(777ULL, pt->count);
	EXPECT_EQ(cp_byte_at(p.path, p.off_tp), cp_mem_byte(p.pid, p.tp));
	EXPECT_EQ(cp_byte_at(p.path, p.off_begin), cp_mem_byte(p.pid, p.begin));
	EXPECT_NE(INT3, cp_mem_byte(p.pid, p.tp));
	cp_prog_kill(&p);
	self->target = p.t;
}

/* A forked owner: a session on the progress target, two points, an experiment. */
static void progress_owner_main(const struct cp_prog *p, int fd)
{
	const struct causalprof_exp_range r = { .pid = p->pid, .start = p->tp, .end = p->tp + 1 };
	struct cp_stream stream = {};
	struct cp_nl nl;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ret = cp_nl_open(&nl);
	if (!ret)
		ret = cp_nl_set_rcvbuf(&nl, RCVBUF);
	nl.stream = &stream;
	if (!ret)
		ret = session_start(&nl, p->pid);
	if (!ret)
		ret = cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT, p->path, p->off_tp, 0);
	if (!ret)
		ret = cp_nl_progress_add(&nl, 2, CAUSALPROF_PP_LATENCY, p->path, p->off_begin,
					 p->off_end);
	if (!ret)
		ret = cp_nl_experiment_start(&nl, 500, &r, 1);
	if (write(fd, &ret, sizeof(ret)) != sizeof(ret) || ret)
		_exit(1);
	for (;;)
		cp_nl_pump(&nl, 1000);
}

/* The points of an owner that dies go with its session. */
TEST_F_TIMEOUT(exp, progress_owner_killed, 90)
{
	struct pollfd pfd;
	struct cp_nl nl;
	struct cp_prog p;
	int ret = -1;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, cp_prog_spawn(&p));
	self->target = p.t;
	ASSERT_EQ(0, pipe(self->pipe));
	pfd = (struct pollfd){ .fd = self->pipe[0], .events = POLLIN };
	self->owner = fork();
	ASSERT_LE(0, self->owner);
	if (!self->owner)
		progress_owner_main(&p, self->pipe[1]);
	ASSERT_EQ(1, poll(&pfd, 1, CP_WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(ret), read(self->pipe[0], &ret, sizeof(ret)));
	ASSERT_EQ(0, ret) TH_LOG("the owner could not set up: %s", strerror(-ret));
	ASSERT_EQ(INT3, cp_mem_byte(p.pid, p.tp));
	ASSERT_EQ(INT3, cp_mem_byte(p.pid, p.begin));
	ASSERT_EQ(INT3, cp_mem_byte(p.pid, p.end));
	ASSERT_EQ(0, cp_prog_call(&p, 100, 1));

	ASSERT_EQ(0, kill(self->owner, SIGKILL));
	ASSERT_EQ(self->owner, waitpid(self->owner, NULL, 0));
	self->owner = 0;
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
	EXPECT_EQ(cp_byte_at(p.path, p.off_tp), cp_mem_byte(p.pid, p.tp));
	EXPECT_EQ(cp_byte_at(p.path, p.off_begin), cp_mem_byte(p.pid, p.begin));
	EXPECT_EQ(cp_byte_at(p.path, p.off_end), cp_mem_byte(p.pid, p.end));
	EXPECT_NE(INT3, cp_mem_byte(p.pid, p.tp));
	/* the target runs on, unprobed */
	EXPECT_EQ(0, cp_prog_call(&p, 100, 1));
	EXPECT_EQ(0, cp_prog_cmd(&p, "lat 1 1 1", NULL, 0));

	/* a new owner may use the same ids */
	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, session_start(&nl, p.pid)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path, p.off_tp, 0))
		TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_stop(&nl));
	cp_nl_close(&nl);
	cp_prog_kill(&p);
	self->target = p.t;
}

/* PROGRESS_ADD/DEL: who may, and what a bad request gets. */
TEST_F(exp, progress_requests)
{
	char attrs[256] __attribute__((aligned(4)));
	struct cp_nl other;
	size_t len, nest;
	uint32_t id = 1;
	char cmd[PATH_MAX + 128];
	struct cp_prog p;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, cp_prog_spawn(&p));
	self->target = p.t;

	/* no session */
	EXPECT_BAD(-ENOENT, "session",
		   cp_nl_progress_add(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path, p.off_tp, 0));
	EXPECT_BAD(-ENOENT, "session", cp_nl_progress_del(&self->nl, 1));

	/* a netlink session: only its owner */
	ASSERT_EQ(0, session_start(&self->nl, p.pid));
	ASSERT_EQ(0, cp_nl_open(&other));
	EXPECT_EQ(-EPERM, cp_nl_progress_add(&other, 1, CAUSALPROF_PP_THROUGHPUT, p.path,
					     p.off_tp, 0));
	EXPECT_NE(NULL, strstr(other.extack, "owner")) TH_LOG("extack: '%s'", other.extack);
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s offset=0x%llx",
		 p.path, (unsigned long long)p.off_tp);
	EXPECT_EQ(-EPERM, cp_control(cmd));
	EXPECT_NE(INT3, cp_mem_byte(p.pid, p.tp));
	ASSERT_EQ(0, cp_nl_progress_add(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path,
					p.off_tp, 0)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(-EPERM, cp_nl_progress_del(&other, 1));
	EXPECT_NE(NULL, strstr(other.extack, "owner")) TH_LOG("extack: '%s'", other.extack);
	EXPECT_EQ(-EPERM, cp_control("progress del id=1"));
	EXPECT_EQ(INT3, cp_mem_byte(p.pid, p.tp));
	cp_nl_close(&other);

	/* bad requests */
	EXPECT_BAD(-EINVAL, "KIND", cp_nl_progress_add(&self->nl, 2, 2, p.path, p.off_tp, 0));
	EXPECT_BAD(-EINVAL, "END_OFFSET", cp_nl_progress_add(&self->nl, 2, CAUSALPROF_PP_LATENCY,
							    p.path, p.off_begin, 0));
	EXPECT_BAD(-EINVAL, "END_OFFSET", cp_nl_progress_add(&self->nl, 2,
							    CAUSALPROF_PP_THROUGHPUT, p.path,
							    p.off_tp, p.off_end));
	EXPECT_BAD(-EEXIST, "id", cp_nl_progress_add(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT,
						     p.path, p.off_tp, 0));
	EXPECT_BAD(-EINVAL, "absolute", cp_nl_progress_add(&self->nl, 2, CAUSALPROF_PP_THROUGHPUT,
							  "progress", p.off_tp, 0));
	EXPECT_BAD(-EINVAL, "CAUSALPROF_A_PROGRESS",
		   cp_nl_request(&self->nl, CAUSALPROF_CMD_PROGRESS_ADD, NULL, 0, NULL, 0));
	/* an ADD without PATH */
	len = cp_nla_nest_start(attrs, 0, CAUSALPROF_A_PROGRESS, &nest);
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_ID, &id, sizeof(id));
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_KIND, &(uint32_t){ 0 }, sizeof(uint32_t));
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_OFFSET, &p.off_tp, sizeof(p.off_tp));
	cp_nla_nest_end(attrs, nest, len);
	EXPECT_BAD(-EINVAL, "_PATH", cp_nl_request(&self->nl, CAUSALPROF_CMD_PROGRESS_ADD, attrs,
						   len, NULL, 0));
	/* a DEL with more than the id, and one without */
	len = cp_nla_nest_start(attrs, 0, CAUSALPROF_A_PROGRESS, &nest);
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_ID, &id, sizeof(id));
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_OFFSET, &p.off_tp, sizeof(p.off_tp));
	cp_nla_nest_end(attrs, nest, len);
	EXPECT_BAD(-EINVAL, "attribute", cp_nl_request(&self->nl, CAUSALPROF_CMD_PROGRESS_DEL,
						       attrs, len, NULL, 0));
	len = cp_nla_nest_start(attrs, 0, CAUSALPROF_A_PROGRESS, &nest);
	cp_nla_nest_end(attrs, nest, len);
	EXPECT_BAD(-EINVAL, "PP_A_ID", cp_nl_request(&self->nl, CAUSALPROF_CMD_PROGRESS_DEL,
						     attrs, len, NULL, 0));
	EXPECT_BAD(-ENOENT, "progress point", cp_nl_progress_del(&self->nl, 9));
	EXPECT_EQ(INT3, cp_mem_byte(p.pid, p.tp));

	/* the owner's del works */
	EXPECT_EQ(0, cp_nl_progress_del(&self->nl, 1)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(cp_byte_at(p.path, p.off_tp), cp_mem_byte(p.pid, p.tp));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));

	/* a /proc session: only through /proc */
	snprintf(cmd, sizeof(cmd), "start pid=%d", p.pid);
	ASSERT_EQ(0, cp_control(cmd));
	EXPECT_BAD(-EPERM, "/proc", cp_nl_progress_add(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT,
						      p.path, p.off_tp, 0));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s offset=0x%llx",
		 p.path, (unsigned long long)p.off_tp);
	ASSERT_EQ(0, cp_control(cmd));
	EXPECT_BAD(-EPERM, "/proc", cp_nl_progress_del(&self->nl, 1));
	EXPECT_EQ(0, cp_control("progress del id=1"));
	EXPECT_EQ(0, cp_control("stop"));
	cp_prog_kill(&p);
	self->target = p.t;
}

/* KEY=VALUE of point id's line of /proc/causalprof/progress. */
static int progress_u64(uint32_t id, const char *key, uint64_t *val)
{
	char text[4096], pat[64], *line, *eol, *p;
	int ret;

	ret = cp_read_str(CP_PROC_DIR "/progress", text, sizeof(text));
	if (ret < 0)
		return ret;
	snprintf(pat, sizeof(pat), "id=%u ", id);
	for (line = text; strncmp(line, pat, strlen(pat)); line++) {
		line = strchr(line, '\n');
		if (!line)
			return -ENOENT;
	}
	eol = strchrnul(line, '\n');
	*eol = '\0';
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p)
		return -ENOENT;
	*val = strtoull(p + strlen(pat), NULL, 10);
	return 0;
}

/*
 * A probe of several sites (CAUSALPROF_PP_A_SITES: how cprof counts a
 * function's returns): a hit at any site is a hit of the point, every site
 * has its breakpoint until the point goes; what a bad list of sites gets.
 */
/*
 * CAUSALPROF_CMD_GO_HOOKS's checks, on the progress program's code (the
 * module does not tell a Go program: cprof does): only the owner; every
 * kind, known, at distinct offsets in the file's code; the nest required.
 */
TEST_F(exp, go_hook_requests)
{
	uint32_t kinds[] = { CAUSALPROF_GO_READY, CAUSALPROF_GO_EXECUTE, CAUSALPROF_GO_PARK,
			     CAUSALPROF_GO_YIELD, CAUSALPROF_GO_SPAWN };
	uint64_t offs[5];
	struct cp_nl other;
	struct cp_prog p;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, cp_prog_spawn(&p));
	self->target = p.t;
	offs[0] = p.off_tp;
	offs[1] = p.off_begin;
	offs[2] = p.off_end;
	offs[3] = p.off_tp;
	offs[4] = p.off_begin;

	EXPECT_BAD(-ENOENT, "session", cp_nl_go_hooks(&self->nl, p.path, kinds, offs, NULL, NULL, 3));
	ASSERT_EQ(0, session_start(&self->nl, p.pid));
	ASSERT_EQ(0, cp_nl_open(&other));
	EXPECT_EQ(-EPERM, cp_nl_go_hooks(&other, p.path, kinds, offs, NULL, NULL, 3));
	EXPECT_NE(NULL, strstr(other.extack, "owner")) TH_LOG("extack: '%s'", other.extack);
	cp_nl_close(&other);
	EXPECT_BAD(-EINVAL, "CAUSALPROF_GO_YIELD", cp_nl_go_hooks(&self->nl, p.path, kinds, offs, NULL, NULL, 3));
	EXPECT_BAD(-EINVAL, "same offset", cp_nl_go_hooks(&self->nl, p.path, kinds, offs, NULL, NULL, 5));
	/* the path is checked before the offsets */
	EXPECT_BAD(-EINVAL, "absolute", cp_nl_go_hooks(&self->nl, "progress", kinds,
							(uint64_t[]){ 1, 2, 3, 4, 5 }, NULL, NULL, 5));
	/* a trap said to cost more than CAUSALPROF_MAX_VISIT_NS */
	EXPECT_BAD(-ERANGE, "range", cp_nl_go_hooks(&self->nl, p.path, kinds,
						    (uint64_t[]){ 1, 2, 3, 4, 5 },
						    (uint32_t[]){ 0, 0, CAUSALPROF_MAX_VISIT_NS + 1, 0, 0 },
						    NULL, 5));
	/* a flag the module does not know */
	EXPECT_BAD(-EINVAL, "reserved", cp_nl_go_hooks(&self->nl, p.path, kinds,
						       (uint64_t[]){ 1, 2, 3, 4, 5 }, NULL,
						       (uint32_t[]){ 0, __CAUSALPROF_GOHOOK_F_ALL + 1,
								     0, 0, 0 }, 5));
	kinds[4] = __CAUSALPROF_GO_HOOK_MAX;
	EXPECT_BAD(-ERANGE, "range", cp_nl_go_hooks(&self->nl, p.path, kinds, offs, NULL, NULL, 5));
	EXPECT_BAD(-EINVAL, "CAUSALPROF_A_GO_HOOKS",
		   cp_nl_request(&self->nl, CAUSALPROF_CMD_GO_HOOKS, NULL, 0, NULL, 0));
	EXPECT_BAD(-EINVAL, "CAUSALPROF_GOHOOKS_A_HOOK", cp_nl_go_hooks(&self->nl, p.path, kinds, offs, NULL, NULL, 0));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
}

/* The progress program, the fixture's target: false (skipped) without gocheck(). */
static bool gocheck_spawn(struct __test_metadata *_metadata, FIXTURE_DATA(exp) *self,
			  struct cp_prog *p)
{
	memset(p, 0, sizeof(*p));
	ASSERT_EQ(0, cp_prog_spawn(p));
	self->target = p->t;
	if (!p->check)
		SKIP(return false, "gocheck() is x86-64 only");
	return true;
}

/*
 * gocheck() called 300 times passing its stack check and 200 times
 * failing it, in @p: debugfs counter @events grows by 300, @restarts by 200.
 */
static void gocheck_counts(struct __test_metadata *_metadata, struct cp_prog *p,
			   const char *events, const char *restarts)
{
	uint64_t ev[2], re[2];
	char reply[64];

	ASSERT_EQ(0, cp_debugfs_u64(events, &ev[0]));
	ASSERT_EQ(0, cp_debugfs_u64(restarts, &re[0]));
	ASSERT_EQ(0, cp_prog_cmd(p, "gocheck 300 200", reply, sizeof(reply)));
	EXPECT_NE(NULL, strstr(reply, "gochecked 300 200")) TH_LOG("reply: %s", reply);
	ASSERT_EQ(0, cp_debugfs_u64(events, &ev[1]));
	ASSERT_EQ(0, cp_debugfs_u64(restarts, &re[1]));
	EXPECT_EQ(300ULL, ev[1] - ev[0]) TH_LOG("%s", events);
	EXPECT_EQ(200ULL, re[1] - re[0]) TH_LOG("%s", restarts);
}

/*
 * A hook with CAUSALPROF_GOHOOK_F_STACK_CHECK, at the jbe of a Go-like
 * stack check (the progress program's gocheck()): the calls that pass the
 * check are its events, those that take the branch (the stack would grow
 * and the function start again) are counted as restarts, not events. A
 * plain hook after the jbe sees them all.
 */
TEST_F(exp, go_hook_stack_check)
{
	uint32_t kinds[] = { CAUSALPROF_GO_READY, CAUSALPROF_GO_EXECUTE, CAUSALPROF_GO_PARK,
			     CAUSALPROF_GO_YIELD, CAUSALPROF_GO_SPAWN };
	uint32_t flags[] = { CAUSALPROF_GOHOOK_F_STACK_CHECK, 0, 0, 0, 0 };
	uint64_t offs[5], spawn[2];
	struct cp_prog p;

	if (!gocheck_spawn(_metadata, self, &p))
		return;
	offs[0] = p.off_check;
	offs[1] = p.off_tp;
	offs[2] = p.off_begin;
	offs[3] = p.off_end;
	offs[4] = p.off_check + 2;	/* after the jbe (76 00) */
	ASSERT_EQ(0, session_start(&self->nl, p.pid));
	ASSERT_EQ(0, cp_nl_go_hooks(&self->nl, p.path, kinds, offs, NULL, flags, 5))
		TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_debugfs_u64("go/spawn", &spawn[0]));
	gocheck_counts(_metadata, &p, "go/ready", "go/restarts");
	ASSERT_EQ(0, cp_debugfs_u64("go/spawn", &spawn[1]));
	EXPECT_EQ(500ULL, spawn[1] - spawn[0]);
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
}

/*
 * A progress point's site at a Go stack check's jbe (CAUSALPROF_PP_A_STACK_CHECKS):
 * the calls that pass the check are visits, those that take the branch
 * are counted as restarts; a check bit beyond the probe's sites, or for an
 * end that has none, is refused.
 */
TEST_F(exp, progress_stack_check)
{
	uint64_t sites[2];
	struct cp_prog p;

	if (!gocheck_spawn(_metadata, self, &p))
		return;
	ASSERT_EQ(0, session_start(&self->nl, p.pid));
	sites[0] = p.off_tp;
	sites[1] = p.off_check;
	EXPECT_BAD(-EINVAL, "beyond the probe's sites",
		   cp_nl_progress_add_checks(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path,
					     sites, 2, 4, NULL, 0, 0));
	EXPECT_BAD(-EINVAL, "no sites",
		   cp_nl_progress_add_checks(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path,
					     sites, 2, 2, NULL, 0, 1));
	ASSERT_EQ(0, cp_nl_progress_add_checks(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path,
					       sites, 2, 2, NULL, 0, 0))
		TH_LOG("%s", self->nl.extack);
	gocheck_counts(_metadata, &p, "progress/hits", "progress/restarts");
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
}

TEST_F(exp, progress_sites)
{
	char attrs[512] __attribute__((aligned(4)));
	uint64_t many[CAUSALPROF_MAX_SITES + 1], sites[3], ends[2], val;
	uint32_t id = 2, kind = CAUSALPROF_PP_THROUGHPUT;
	size_t len, nest, inner;
	struct cp_prog p;
	unsigned int i;

	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, cp_prog_spawn(&p));
	self->target = p.t;
	ASSERT_EQ(0, session_start(&self->nl, p.pid));

	sites[0] = p.off_tp;
	sites[1] = p.off_begin;
	sites[2] = p.off_end;
	ASSERT_EQ(0, cp_nl_progress_add_sites(&self->nl, 1, CAUSALPROF_PP_THROUGHPUT, p.path,
					      sites, 3, NULL, 0)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(INT3, cp_mem_byte(p.pid, p.tp));
	EXPECT_EQ(INT3, cp_mem_byte(p.pid, p.begin));
	EXPECT_EQ(INT3, cp_mem_byte(p.pid, p.end));
	ASSERT_EQ(0, cp_prog_call(&p, 100, 1));
	ASSERT_EQ(0, cp_prog_cmd(&p, "lat 1 3 1", NULL, 0));
	ASSERT_EQ(0, progress_u64(1, "count", &val));
	EXPECT_EQ(106ULL, val);
	ASSERT_EQ(0, progress_u64(1, "sites", &val));
	EXPECT_EQ(3ULL, val);

	/* a latency point, its end at two sites */
	ends[0] = p.off_end;
	ends[1] = p.off_tp;
	ASSERT_EQ(0, cp_nl_progress_add_sites(&self->nl, 3, CAUSALPROF_PP_LATENCY, p.path,
					      &p.off_begin, 1, ends, 2))
		TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_prog_cmd(&p, "lat 1 4 1", NULL, 0));
	ASSERT_EQ(0, cp_prog_call(&p, 10, 1));
	ASSERT_EQ(0, progress_u64(3, "ends", &val));
	EXPECT_EQ(4ULL, val);
	ASSERT_EQ(0, progress_u64(3, "stray_ends", &val));
	EXPECT_EQ(10ULL, val);
	ASSERT_EQ(0, progress_u64(3, "end_sites", &val));
	EXPECT_EQ(2ULL, val);
	EXPECT_EQ(0, cp_nl_progress_del(&self->nl, 3)) TH_LOG("%s", self->nl.extack);

	/* bad lists */
	sites[1] = p.off_tp;
	EXPECT_BAD(-EINVAL, "same offset", cp_nl_progress_add_sites(&self->nl, 2,
			CAUSALPROF_PP_THROUGHPUT, p.path, sites, 2, NULL, 0));
	for (i = 0; i < CAUSALPROF_MAX_SITES + 1; i++)
		many[i] = p.off_tp + i;
	EXPECT_BAD(-EINVAL, "more than 64", cp_nl_progress_add_sites(&self->nl, 2,
			CAUSALPROF_PP_THROUGHPUT, p.path, many, CAUSALPROF_MAX_SITES + 1, NULL, 0));
	ends[0] = p.off_end;
	ends[1] = p.off_begin;
	EXPECT_BAD(-EINVAL, "must differ", cp_nl_progress_add_sites(&self->nl, 2,
			CAUSALPROF_PP_LATENCY, p.path, &p.off_begin, 1, ends, 2));
	sites[1] = 1ULL << 40;
	EXPECT_BAD(-EINVAL, "beyond the end", cp_nl_progress_add_sites(&self->nl, 2,
			CAUSALPROF_PP_THROUGHPUT, p.path, sites, 2, NULL, 0));
	/* an empty nest; one with another attribute; END_SITES without an end */
	for (i = 0; i < 3; i++) {
		static const char *const what[] = { "empty", "ttribute", "END_SITES" };

		len = cp_nla_nest_start(attrs, 0, CAUSALPROF_A_PROGRESS, &nest);
		len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_ID, &id, sizeof(id));
		len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_KIND, &kind, sizeof(kind));
		len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_PATH, p.path, strlen(p.path) + 1);
		len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_OFFSET, &p.off_tp, sizeof(p.off_tp));
		len = cp_nla_nest_start(attrs, len, i == 2 ? CAUSALPROF_PP_A_END_SITES :
					CAUSALPROF_PP_A_SITES, &inner);
		if (i == 1)
			len = cp_nla_put(attrs, len, CAUSALPROF_SITES_A_OFFSET + 1, &p.off_begin,
					 sizeof(p.off_begin));
		if (i == 2)
			len = cp_nla_put(attrs, len, CAUSALPROF_SITES_A_OFFSET, &p.off_begin,
					 sizeof(p.off_begin));
		cp_nla_nest_end(attrs, inner, len);
		cp_nla_nest_end(attrs, nest, len);
		EXPECT_BAD(-EINVAL, what[i], cp_nl_request(&self->nl, CAUSALPROF_CMD_PROGRESS_ADD,
							   attrs, len, NULL, 0));
	}
	EXPECT_EQ(INT3, cp_mem_byte(p.pid, p.begin));

	/* del: every site's own byte back */
	EXPECT_EQ(0, cp_nl_progress_del(&self->nl, 1)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(cp_byte_at(p.path, p.off_tp), cp_mem_byte(p.pid, p.tp));
	EXPECT_EQ(cp_byte_at(p.path, p.off_begin), cp_mem_byte(p.pid, p.begin));
	EXPECT_EQ(cp_byte_at(p.path, p.off_end), cp_mem_byte(p.pid, p.end));
	ASSERT_EQ(0, cp_nl_stop(&self->nl));
}

TEST_HARNESS_MAIN
