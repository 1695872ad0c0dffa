// SPDX-License-Identifier: GPL-2.0
/*
 * Nothing is lost silently: with the smallest sample rings (ring_kb=4) and
 * an owner that stops reading for a while, samples are dropped, and every
 * one of them is counted: in LOST records, in the END record, and per CPU
 * in debugfs, where samples + lost == overflows. The module is loaded with
 * its default parameters again at the end.
 */
#include <limits.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FREQ		1000
#define STALL_MS	1500	/* the owner does not read for this long */

FIXTURE(lost) {
	struct cp_nl nl;
	struct cp_stream stream;
	struct cp_target target;
	char spin[PATH_MAX];
};

FIXTURE_SETUP(lost)
{
	ASSERT_EQ(0, cp_target_path("spin", self->spin, sizeof(self->spin)));
	ASSERT_EQ(0, cp_module_reload("ring_kb=4"));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	self->nl.stream = &self->stream;
}

FIXTURE_TEARDOWN(lost)
{
	cp_target_kill(&self->target);
	cp_nl_close(&self->nl);
	cp_stream_free(&self->stream);
	EXPECT_EQ(0, cp_module_reload(""));
}

TEST_F_TIMEOUT(lost, counted, 90)
{
	char *argv[] = { self->spin, "-t", "2", "-s", "3", NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	const struct causalprof_record_hdr *h;
	const struct causalprof_lost *l;
	uint64_t id, samples, lost, overflows, sum_samples = 0, sum_lost = 0, val;
	struct timespec stall = { STALL_MS / 1000, (STALL_MS % 1000) * 1000000L };
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	size_t off, lost_records = 0, bad_records = 0;
	const char *why;
	long cpu;

	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, cp_nl_start_events(&self->nl, self->target.pid, CP_F_STACKS, &ev, 1, &id))
		TH_LOG("extack: '%s'", self->nl.extack);
	/*
	 * The smallest receive buffer: the first batch fills it, the next ones
	 * fail with EAGAIN, the rings fill up and the handler drops samples.
	 */
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 0));
	ASSERT_EQ(0, cp_target_release(&self->target));
	nanosleep(&stall, NULL);
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 60000));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);

	cp_stream_for_each(&self->stream, h, off) {
		l = cp_rec_lost(h);
		if (!l || (h->flags & CAUSALPROF_LOST_F_SIDEBAND))
			continue;
		lost_records++;
		if (!l->lost || l->cpu >= ncpus)
			bad_records++;
	}
	TH_LOG("%zu samples came, %llu lost in %zu LOST records, END: %llu samples, %llu lost",
	       self->stream.samples, (unsigned long long)self->stream.lost, lost_records,
	       (unsigned long long)self->stream.end.samples,
	       (unsigned long long)self->stream.end.lost);
	ASSERT_LT(0U, lost_records);
	EXPECT_EQ(0U, bad_records) TH_LOG("LOST records of nothing, or of no CPU");
	ASSERT_LT(0U, self->stream.end.lost);
	ASSERT_LT(0U, self->stream.end.samples);

	/* A fresh module ran one session: its per-CPU counters are that session's. */
	for (cpu = 0; cpu < ncpus; cpu++) {
		ASSERT_EQ(0, cp_cpu_counts(cpu, &samples, &lost, &overflows)) TH_LOG("cpu%ld", cpu);
		TH_LOG("cpu%ld: samples %llu, lost %llu, overflows %llu", cpu,
		       (unsigned long long)samples, (unsigned long long)lost,
		       (unsigned long long)overflows);
		EXPECT_EQ(overflows, samples + lost) TH_LOG("cpu%ld", cpu);
		sum_samples += samples;
		sum_lost += lost;
	}
	EXPECT_EQ(self->stream.end.samples, sum_samples);
	EXPECT_EQ(self->stream.end.lost, sum_lost);
	ASSERT_EQ(0, cp_status_u64("lost", &val));
	EXPECT_EQ(self->stream.end.lost, val);
	ASSERT_EQ(0, cp_status_u64("samples", &val));
	EXPECT_EQ(self->stream.end.samples, val);
}

TEST_HARNESS_MAIN
