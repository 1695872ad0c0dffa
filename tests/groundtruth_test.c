// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth in miniature: does a virtual speedup predict what a real
 * one would do? build/tests/targets/groundtruth has two threads meet at a
 * pthread barrier each iteration, thread 1 after a() (A_MS of its CPU
 * time), thread 2 after b() (half as long). a() is the critical path:
 * making it 25 % faster would shorten the iteration by 25 % (b() still
 * fits in what is left); making b() faster would change nothing.
 *
 * The mechanics the engine has to get right:
 * - a() at 25 %: thread 1's hits add a quarter of a() to the global delay
 *   each iteration; thread 2 pays it at its samples in b() (it has half an
 *   a() of slack), arrives first at the barrier and sleeps, and when
 *   thread 1 arrives and wakes it (a futex wake) it inherits thread 1's
 *   delay and owes nothing: the iteration takes as long as before, a
 *   quarter of a() of it inserted delay.
 * - b() at 25 %: thread 2's hits add a quarter of b(); thread 1, the
 *   critical path, pays it (and what it oversleeps) during a(), and passes
 *   its delay on to thread 2 when it wakes it at the barrier, so thread 2's
 *   next hits raise the global delay past all thread 1 slept: the wall
 *   time grows by what is inserted.
 *
 * So the delay-adjusted iteration period, (wall - inserted) / iterations
 * over an experiment, must be 20-30 % shorter with a() at 25 % than in a
 * baseline phase (an experiment at speedup 0 on a()), and within 5 % of it
 * with b() at 25 % (the bounds). Iterations are counted with the
 * target's own counter, read through /proc/PID/mem at the phase boundaries
 * with the time the last one ended (so that a phase's wall time per
 * iteration has no error of counting whole iterations). TCG is noisy, so
 * the phases are interleaved (baseline, a, baseline, b) for ROUNDS rounds
 * and the medians compared.
 *
 * a() and b() spin for their thread's CPU time, which a vCPU the host does
 * not run still accrues: the baseline period is A_MS plus what the barrier
 * costs, whatever the host's load. The bounds hold when that cost is small
 * next to a() (at 10 % of it, a() at 25 % shortens the period by 22.7 %).
 * Under TCG, waking the sleeping thread's vCPU is what takes time, and on
 * a host busy with other VMs it can take 10 ms. So the comparison is
 * skipped, with a diagnostic, when the VM was demonstrably starved: a phase
 * with fewer than 10 iterations, baseline phases more than 10 % apart, or
 * a barrier costing more than 10 % of a().
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define A_MS		80
#define B_MS		40
#define SPEEDUP		250	/* per mille */
#define ROUNDS		4
#define PHASE_MS	2000
#define FREQ		1000

enum kind { BASE, FAST_A, FAST_B };

static const char *const kind_name[] = { "baseline", "a@25%", "b@25%" };

struct phase {
	enum kind kind;
	uint64_t iterations;
	int64_t wall, inserted, hits;
	uint64_t cpu1;		/* thread 1's CPU time, ns */
	double period;		/* (wall - inserted) / iterations, ms */
};

FIXTURE(groundtruth) {
	struct cp_target target;
	char path[PATH_MAX];
	pid_t pid, t1, t2;
	unsigned long long a_start, a_end, b_start, b_end, progress;
	char text[1 << 16];
};

FIXTURE_SETUP(groundtruth)
{
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_target_path("groundtruth", self->path, sizeof(self->path)));
}

FIXTURE_TEARDOWN(groundtruth)
{
	cp_target_kill(&self->target);
	EXPECT_EQ(0, cp_session_reset());
}

/* A thread's CPU time so far (the first field of its schedstat), ns. */
static int thread_cpu(pid_t pid, pid_t tid, uint64_t *ns)
{
	unsigned long long v;
	char path[64];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "%llu", &v);
	fclose(f);
	if (n != 1)
		return -EINVAL;
	*ns = v;
	return 0;
}

/*
 * The target's progress: iterations, and when the last one ended, read
 * consistently (its sequence count even and unchanged).
 */
static int read_progress(FIXTURE_DATA(groundtruth) *self, uint64_t *n, uint64_t *t)
{
	uint64_t v[3], seq;
	int i, ret;

	for (i = 0; i < 1000; i++) {
		ret = cp_peek(self->pid, self->progress, v, sizeof(v));
		if (!ret)
			ret = cp_peek_u64(self->pid, self->progress, &seq);
		if (ret)
			return ret;
		if (!(seq & 1) && seq == v[0]) {
			*n = v[1];
			*t = v[2];
			return 0;
		}
	}
	return -EAGAIN;
}

static int run_phase(FIXTURE_DATA(groundtruth) *self, struct phase *ph)
{
	bool b = ph->kind == FAST_B;
	uint64_t n0, n1, t0, t1, c0, c1;
	char cmd[128];
	int ret;

	snprintf(cmd, sizeof(cmd), "experiment start speedup=%d range=%d:0x%llx-0x%llx",
		 ph->kind == BASE ? 0 : SPEEDUP, self->pid, b ? self->b_start : self->a_start,
		 b ? self->b_end : self->a_end);
	ret = thread_cpu(self->pid, self->t1, &c0);
	if (!ret)
		ret = read_progress(self, &n0, &t0);
	if (!ret)
		ret = cp_control(cmd);
	if (ret)
		return ret;
	usleep(PHASE_MS * 1000);
	ret = cp_control("experiment stop");
	if (!ret)
		ret = read_progress(self, &n1, &t1);
	if (!ret)
		ret = thread_cpu(self->pid, self->t1, &c1);
	if (!ret)
		ret = cp_exp_read(self->text, sizeof(self->text));
	if (ret)
		return ret;
	if (cp_exp_i64(self->text, "wall_ns", &ph->wall) ||
	    cp_exp_i64(self->text, "inserted_ns", &ph->inserted) ||
	    cp_exp_i64(self->text, "hits", &ph->hits))
		return -EINVAL;
	ph->iterations = n1 - n0;
	ph->cpu1 = c1 - c0;
	/*
	 * (wall - inserted) / iterations, without the error of counting whole
	 * iterations: the time from the end of the iteration before the
	 * phase to the end of its last one, per iteration, less the share of
	 * inserted delay the experiment had.
	 */
	ph->period = 0;
	if (ph->iterations && ph->wall > 0)
		ph->period = (t1 - t0) / 1e6 / ph->iterations *
			     (1 - (double)ph->inserted / ph->wall);
	return 0;
}

TEST_F_TIMEOUT(groundtruth, barrier, 180)
{
	static const enum kind order[] = { BASE, FAST_A, BASE, FAST_B };
	double base[2 * ROUNDS], fa[ROUNDS], fb[ROUNDS], share[ROUNDS];
	double mbase, ma, mb, spread, barrier, mshare, da, db;
	int r, i, nb = 0, na = 0, nfb = 0;
	uint64_t fewest = UINT64_MAX, n = 0, t;
	char a_ms[16], b_ms[16], buf[256], cmd[64];
	char *argv[] = { self->path, a_ms, b_ms, NULL };
	struct phase p;

	snprintf(a_ms, sizeof(a_ms), "%d", A_MS);
	snprintf(b_ms, sizeof(b_ms), "%d", B_MS);
	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, false));
	ASSERT_LT(0, cp_target_read(&self->target, buf, sizeof(buf), "\n", CP_WAIT_MS));
	ASSERT_EQ(8, sscanf(buf, "ready %d %d %d %llx %llx %llx %llx %llx", &self->pid,
			    &self->t1, &self->t2, &self->a_start, &self->a_end, &self->b_start,
			    &self->b_end, &self->progress))
		TH_LOG("target said: %s", buf);
	snprintf(cmd, sizeof(cmd), "start pid=%d freq=%d", self->pid, FREQ);
	ASSERT_EQ(0, cp_control(cmd));
	/* A phase starts at the end of an iteration: let two go by. */
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, read_progress(self, &n, &t));
		if (n >= 2)
			break;
		usleep(10000);
	}
	ASSERT_LE(2U, n);

	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < 4; i++) {
			p.kind = order[i];
			ASSERT_EQ(0, run_phase(self, &p));
			TH_LOG("round %d %-8s: %3" PRIu64 " iterations in %6.1f ms, inserted"
			       " %5.1f ms (%4" PRId64 " hits), thread 1 ran %6.1f ms:"
			       " adjusted period %.2f ms", r, kind_name[p.kind], p.iterations,
			       p.wall / 1e6, p.inserted / 1e6, p.hits, p.cpu1 / 1e6, p.period);
			if (p.iterations < fewest)
				fewest = p.iterations;
			if (!p.iterations)
				continue;
			if (p.kind == BASE) {
				ASSERT_EQ(0, p.inserted);
				base[nb++] = p.period;
			} else if (p.kind == FAST_A) {
				ASSERT_LT(0, p.inserted);
				fa[na] = p.period;
				/* What the hits weighed: a()'s share of thread 1's time. */
				share[na++] = p.inserted * 1000.0 / SPEEDUP / (p.cpu1 ?: 1);
			} else {
				ASSERT_LT(0, p.inserted);
				fb[nfb++] = p.period;
			}
		}
	}

	if (fewest < 10 || !nb || !na || !nfb)
		SKIP(return, "the VM was starved: as few as %" PRIu64 " iterations in a phase",
		     fewest);
	mshare = cp_median(share, na);
	mbase = cp_median(base, nb);
	spread = (base[nb - 1] - base[0]) / mbase;	/* sorted by cp_median() */
	barrier = mbase - A_MS;
	ma = cp_median(fa, na);
	mb = cp_median(fb, nfb);
	da = 1 - ma / mbase;
	db = mb / mbase - 1;
	TH_LOG("median adjusted periods: baseline %.2f ms (spread %.1f%%; a barrier costs"
	       " %.2f ms), a@25%% %.2f ms (%.1f%% shorter), b@25%% %.2f ms (%+.1f%%);"
	       " hits on a() weighed %.1f%% of thread 1's time", mbase, 100 * spread,
	       barrier, ma, 100 * da, mb, 100 * db, 100 * mshare);
	if (spread > 0.10)
		SKIP(return, "the VM was starved: baseline periods %.1f%% apart", 100 * spread);
	if (barrier > A_MS / 10.0)
		SKIP(return, "the VM was starved: a barrier costs %.1f ms (waking a vCPU)",
		     barrier);
	/* The critical path sped up by 25 %: the iteration by 20-30 %. */
	EXPECT_LE(0.20, da);
	EXPECT_GE(0.30, da);
	/* Off the critical path: no change beyond 5 %. */
	EXPECT_GT(0.05, db);
	EXPECT_LT(-0.05, db);
}

TEST_HARNESS_MAIN
