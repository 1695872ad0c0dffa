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
 * The module is reloaded (fresh counters) for each test.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

TEST_HARNESS_MAIN
