// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU waits in the stream (CAUSALPROF_F_OFF_CPU), as the protocol
 * has them, on build/tests/targets/offcpu (its main thread sleeps 20 times
 * 10 ms in clock_nanosleep(), a thread reads a pipe that a child process
 * feeds): counted in the kernel, each OFF_CPU_COUNT's stack came before it
 * from its CPU, the stacks kernel then user addresses; the main thread's
 * sleeps are SLEEP waits of at least their time, with user frames; without
 * CAUSALPROF_F_AGGREGATE one OFF_CPU record per wait; without events no
 * sample at all; END's off_cpu is what came. With more threads asleep at
 * once than the module's off_cpu_threads, the waits of those it has no
 * room for are counted (off_cpu_untracked), in LOST records and in END.
 * Each thread of build/tests/targets/offcpu_why waits one way, and its
 * waits carry that reason: clock_nanosleep() SLEEP, FUTEX_WAIT FUTEX,
 * O_DIRECT reads of a null_blk device that completes them 2 ms later IO.
 * Unloading the module while a target's threads are in the middle of
 * waits leaves them waiting and waking as before, and the module loaded
 * again records waits afresh. The module is reloaded (fresh counters) for
 * each test.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define SLEEP_MS	10
#define SLEEPS		20
#define MAX_STACKS	4096

FIXTURE(offcpu) {
	struct cp_nl nl;
	struct cp_stream stream;
	struct cp_target target;
	char prog[PATH_MAX];
};

FIXTURE_SETUP(offcpu)
{
	ASSERT_EQ(0, cp_target_path("offcpu", self->prog, sizeof(self->prog)));
	ASSERT_EQ(0, cp_module_reload(""));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	self->nl.stream = &self->stream;
}

FIXTURE_TEARDOWN(offcpu)
{
	cp_target_kill(&self->target);
	cp_nl_close(&self->nl);
	cp_stream_free(&self->stream);
	cp_module_reload("");
}

/* offcpu with the test's sleeps, and THREADS more sleepers ("0": none). */
static int run(struct __test_metadata *_metadata, FIXTURE_DATA(offcpu) *self, uint32_t flags,
	       const char *threads)
{
	char ms[16], n[16];
	char *argv[] = { self->prog, ms, n, "5", "10", (char *)threads, NULL };

	snprintf(ms, sizeof(ms), "%d", SLEEP_MS);
	snprintf(n, sizeof(n), "%d", SLEEPS);
	return cp_record(&self->nl, &self->target, argv, flags, NULL, 0, 60000);
}

/*
 * A stack's frames: kernel addresses, then user ones; no user frame for a
 * thread without them (in execve(), or exiting past its memory).
 */
static bool frames_ok(const __u64 *ips, unsigned int nk, unsigned int nu)
{
	unsigned int i;

	if (!nk)
		return false;
	for (i = 0; i < nk + nu; i++)
		if (CP_KERNEL_ADDR(ips[i]) != (i < nk))
			return false;
	return true;
}

struct seen {
	uint16_t cpu;
	uint64_t id;
	const struct causalprof_stack *st;
};

TEST_F(offcpu, counted)
{
	const struct causalprof_off_cpu_count *c;
	const struct causalprof_record_hdr *h;
	const struct causalprof_stack *st = NULL;
	struct seen *v = calloc(MAX_STACKS, sizeof(*v));
	uint64_t sleeps = 0, slept = 0, waits = 0;
	size_t off, n = 0, i, orphans = 0, bad_frames = 0, others = 0;

	ASSERT_NE(NULL, v);
	ASSERT_EQ(0, run(_metadata, self, CP_F_STACKS | CAUSALPROF_F_AGGREGATE |
				       CAUSALPROF_F_OFF_CPU, "0"));
	ASSERT_EQ(NULL, cp_stream_problem(&self->stream));
	cp_stream_for_each(&self->stream, h, off) {
		if ((st = cp_rec_stack(h))) {
			ASSERT_GT((size_t)MAX_STACKS, n);
			v[n++] = (struct seen){ .cpu = st->cpu, .id = st->id, .st = st };
			continue;
		}
		c = cp_rec_off_cpu_count(h);
		if (!c) {
			others += h->type == CAUSALPROF_REC_SAMPLE || h->type == CAUSALPROF_REC_COUNT ||
				  h->type == CAUSALPROF_REC_OFF_CPU;
			continue;
		}
		waits += c->count;
		for (i = 0, st = NULL; i < n && !st; i++)
			if (v[i].id == c->stack && v[i].cpu == c->cpu)
				st = v[i].st;
		if (!st) {
			orphans++;
			continue;
		}
		if (!frames_ok(st->ips, st->nr_kernel, st->nr_user) ||
		    (st->sflags & CAUSALPROF_SAMPLE_F_USER))
			bad_frames++;
		if (c->tid == (uint32_t)self->target.pid && c->reason == CAUSALPROF_OFF_CPU_SLEEP) {
			bad_frames += !st->nr_user;
			sleeps += c->count;
			slept += c->wait_ns + c->delay_ns;
		}
	}
	free(v);
	TH_LOG("%zu STACK, %llu waits; the main thread's sleeps: %llu, %llu ms; END: %llu waits, %llu lost",
	       n, (unsigned long long)waits, (unsigned long long)sleeps,
	       (unsigned long long)slept / 1000000, (unsigned long long)self->stream.end.off_cpu,
	       (unsigned long long)self->stream.end.off_cpu_lost);
	EXPECT_EQ(0U, orphans);
	EXPECT_EQ(0U, bad_frames);
	/* No event: no sample, and the waits aggregated, none raw. */
	EXPECT_EQ(0U, others);
	EXPECT_EQ(0U, self->stream.samples);
	EXPECT_EQ(0ULL, self->stream.end.off_cpu_lost);
	EXPECT_LE((uint64_t)SLEEPS, sleeps);
	EXPECT_LE((uint64_t)SLEEPS * SLEEP_MS * 1000000, slept);
}

TEST_F(offcpu, raw)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_off_cpu *w;
	size_t off, waits = 0, sleeps = 0, no_wake = 0, short_sleeps = 0, bad_frames = 0;
	size_t counts = 0;

	ASSERT_EQ(0, run(_metadata, self, CP_F_STACKS | CAUSALPROF_F_OFF_CPU, "0"));
	ASSERT_EQ(NULL, cp_stream_problem(&self->stream));
	cp_stream_for_each(&self->stream, h, off) {
		counts += h->type == CAUSALPROF_REC_OFF_CPU_COUNT || h->type == CAUSALPROF_REC_STACK;
		w = cp_rec_off_cpu(h);
		if (!w)
			continue;
		waits++;
		no_wake += !!(h->flags & CAUSALPROF_OFF_CPU_F_NO_WAKE);
		if (!frames_ok(w->ips, w->nr_kernel, w->nr_user))
			bad_frames++;
		if (w->tid != (uint32_t)self->target.pid || w->reason != CAUSALPROF_OFF_CPU_SLEEP)
			continue;
		bad_frames += !w->nr_user;
		sleeps++;
		if (w->wait_ns + w->delay_ns < (SLEEP_MS - 1) * 1000000ULL)
			short_sleeps++;
	}
	TH_LOG("%zu OFF_CPU records, %zu without a wake-up; %zu of the main thread's sleeps, %zu short",
	       waits, no_wake, sleeps, short_sleeps);
	EXPECT_EQ(0U, counts);
	EXPECT_EQ(0U, bad_frames);
	EXPECT_EQ(self->stream.end.off_cpu, waits);
	EXPECT_EQ((size_t)SLEEPS, sleeps);
	EXPECT_EQ(0U, short_sleeps);
	/* A waker that races the switch-out is rare. */
	EXPECT_GE(waits / 4, no_wake);
}

/*
 * 100 more threads asleep at once, 64 slots (off_cpu_threads' least): the
 * waits of the threads without one are counted, never recorded wrong.
 */
TEST_F(offcpu, untracked)
{
	uint64_t untracked, lost, capped;

	/* Read when the session starts; the teardown's reload restores it. */
	ASSERT_EQ(0, cp_module_param_set("off_cpu_threads", 64));
	ASSERT_EQ(0, run(_metadata, self, CP_F_STACKS | CAUSALPROF_F_AGGREGATE |
				       CAUSALPROF_F_OFF_CPU, "100"));
	ASSERT_EQ(NULL, cp_stream_problem(&self->stream));
	ASSERT_EQ(0, cp_status_u64("off_cpu_untracked", &untracked));
	ASSERT_EQ(0, cp_status_u64("off_cpu_lost", &lost));
	ASSERT_EQ(0, cp_status_u64("off_cpu_capped", &capped));
	TH_LOG("END: %llu waits, %llu lost; off_cpu_untracked %llu, off_cpu_capped %llu",
	       (unsigned long long)self->stream.end.off_cpu,
	       (unsigned long long)self->stream.end.off_cpu_lost, (unsigned long long)untracked,
	       (unsigned long long)capped);
	EXPECT_LT(0U, untracked);
	EXPECT_EQ(lost, untracked + capped);
	EXPECT_EQ(lost, self->stream.end.off_cpu_lost);
	EXPECT_LT(0ULL, self->stream.end.off_cpu);
}

/* Waits by reason, of one thread */
struct why {
	pid_t tid;
	size_t n[__CAUSALPROF_OFF_CPU_REASONS];
	size_t all;
	uint64_t ns;		/* waiting, of those of the reason expected */
};

static void why_count(struct why *w, const struct causalprof_off_cpu *rec, unsigned int reason)
{
	if (rec->tid != (uint32_t)w->tid || rec->reason >= __CAUSALPROF_OFF_CPU_REASONS)
		return;
	w->all++;
	w->n[rec->reason]++;
	if (rec->reason == reason)
		w->ns += rec->wait_ns;
}

#define NULLB		"/dev/nullb0"
#define NULLB_NS	2000000
#define WHY_ROUNDS	20
#define WHY_MS		5

TEST_F(offcpu, reasons)
{
	char prog[PATH_MAX], rounds[16], ms[16], out[256];
	char *argv[] = { prog, NULLB, rounds, ms, NULL };
	const struct causalprof_record_hdr *h;
	const struct causalprof_off_cpu *rec;
	struct why sleep = { 0 }, futex = { 0 }, io = { 0 };
	long sleeps, futexes, reads;
	struct stat sb;
	size_t off;

	ASSERT_EQ(0, cp_target_path("offcpu_why", prog, sizeof(prog)));
	/* A block device whose every request takes NULLB_NS, on a timer. */
	if (system("modprobe null_blk nr_devices=1 irqmode=2 completion_nsec=2000000"
		   " > /dev/null 2>&1") || stat(NULLB, &sb) || !S_ISBLK(sb.st_mode))
		SKIP(return, "no null_blk (modprobe null_blk)");
	snprintf(rounds, sizeof(rounds), "%d", WHY_ROUNDS);
	snprintf(ms, sizeof(ms), "%d", WHY_MS);
	ASSERT_EQ(0, cp_record(&self->nl, &self->target, argv, CP_F_STACKS | CAUSALPROF_F_OFF_CPU,
			       NULL, 0, 60000));
	EXPECT_EQ(0, system("rmmod null_blk"));
	ASSERT_EQ(NULL, cp_stream_problem(&self->stream));
	ASSERT_TRUE(WIFEXITED(self->target.status) && !WEXITSTATUS(self->target.status));
	ASSERT_LT(0, cp_target_read(&self->target, out, sizeof(out), "\n", 5000));
	ASSERT_EQ(6, sscanf(out, "sleep %d %ld futex %d %ld io %d %ld", &sleep.tid, &sleeps,
			    &futex.tid, &futexes, &io.tid, &reads)) TH_LOG("offcpu_why: %s", out);
	cp_stream_for_each(&self->stream, h, off) {
		rec = cp_rec_off_cpu(h);
		if (!rec)
			continue;
		why_count(&sleep, rec, CAUSALPROF_OFF_CPU_SLEEP);
		why_count(&futex, rec, CAUSALPROF_OFF_CPU_FUTEX);
		why_count(&io, rec, CAUSALPROF_OFF_CPU_IO);
	}
	TH_LOG("%s", out);
	TH_LOG("waits (other io futex sleep): sleeper %zu %zu %zu %zu, futex waiter %zu %zu %zu %zu, reader %zu %zu %zu %zu; reads %llu ms",
	       sleep.n[0], sleep.n[1], sleep.n[2], sleep.n[3], futex.n[0], futex.n[1], futex.n[2],
	       futex.n[3], io.n[0], io.n[1], io.n[2], io.n[3], (unsigned long long)io.ns / 1000000);
	/* Each sleep and each read waits once at least, in its own way only. */
	EXPECT_LE((size_t)sleeps, sleep.n[CAUSALPROF_OFF_CPU_SLEEP]);
	EXPECT_EQ(0U, sleep.n[CAUSALPROF_OFF_CPU_IO]);
	EXPECT_LE((size_t)reads, io.n[CAUSALPROF_OFF_CPU_IO]);
	EXPECT_EQ(0U, io.n[CAUSALPROF_OFF_CPU_SLEEP] + io.n[CAUSALPROF_OFF_CPU_FUTEX]);
	EXPECT_LE((uint64_t)reads * NULLB_NS / 2, io.ns);
	/*
	 * A FUTEX_WAIT woken between its queueing and its schedule() returns
	 * 0 without a wait: the waiter's waits are futex ones, most of them.
	 */
	EXPECT_LE((size_t)futexes / 2, futex.n[CAUSALPROF_OFF_CPU_FUTEX]);
	EXPECT_LE(futex.all * 9, futex.n[CAUSALPROF_OFF_CPU_FUTEX] * 10);
	EXPECT_EQ(0U, futex.n[CAUSALPROF_OFF_CPU_IO] + futex.n[CAUSALPROF_OFF_CPU_SLEEP]);
}

/*
 * rmmod in the middle of waits: 20 threads and the main one sleeping 1 ms
 * at a time, some of them switched out with their slots OUT or WOKEN when
 * the hooks go. They go on waiting and waking, and exit normally; the
 * module, loaded again, records an off-CPU session as before.
 */
TEST_F_TIMEOUT(offcpu, unload_mid_wait, 300)
{
	char *argv[] = { self->prog, "1", "3000", "5", "10", "20", NULL };
	const char *ko = cp_ko_path();
	uint64_t id, waits = 0;
	int64_t deadline;

	ASSERT_NE(NULL, ko);
	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, cp_nl_start_events(&self->nl, self->target.pid,
					CP_F_STACKS | CAUSALPROF_F_OFF_CPU, NULL, 0, &id))
		TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&self->target));
	deadline = cp_now_ms() + 20000;
	while (waits < 200 && cp_now_ms() < deadline) {
		ASSERT_EQ(0, cp_nl_pump(&self->nl, 50));
		ASSERT_EQ(0, cp_status_u64("off_cpu", &waits));
	}
	ASSERT_LE(200ULL, waits);
	ASSERT_EQ(-ETIMEDOUT, cp_target_wait(&self->target, 0))
		TH_LOG("offcpu exited before the unload");

	ASSERT_EQ(0, cp_module_unload());
	ASSERT_FALSE(cp_module_loaded());
	ASSERT_EQ(0, cp_target_wait(&self->target, 120000));
	EXPECT_TRUE(WIFEXITED(self->target.status) && !WEXITSTATUS(self->target.status))
		TH_LOG("offcpu's status %#x", self->target.status);
	cp_target_kill(&self->target);
	cp_nl_close(&self->nl);
	cp_stream_free(&self->stream);

	ASSERT_EQ(0, cp_module_load(ko));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	self->nl.stream = &self->stream;
	ASSERT_EQ(0, run(_metadata, self, CP_F_STACKS | CAUSALPROF_F_OFF_CPU, "0"));
	ASSERT_EQ(NULL, cp_stream_problem(&self->stream));
	TH_LOG("%llu waits before the unload; after, a session's END: %llu waits, %llu lost",
	       (unsigned long long)waits, (unsigned long long)self->stream.end.off_cpu,
	       (unsigned long long)self->stream.end.off_cpu_lost);
	EXPECT_LE((uint64_t)SLEEPS, self->stream.end.off_cpu);
}

TEST_HARNESS_MAIN
