// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark knob discard_samples=1 (bench/sampling.sh's "ring only"
 * stage): samples are taken and written to the rings, and the drains skip
 * them unread. The owner gets the sideband and the END record but no
 * SAMPLE record; every sample is counted in records_dropped, and none is
 * lost although the rings are small (ring_kb=16: they are emptied). The
 * module is loaded with its default parameters again at the end.
 */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FREQ		1000

FIXTURE(discard) {
	struct cp_nl nl;
	struct cp_stream stream;
	struct cp_target target;
	char spin[PATH_MAX];
};

FIXTURE_SETUP(discard)
{
	ASSERT_EQ(0, cp_target_path("spin", self->spin, sizeof(self->spin)));
	ASSERT_EQ(0, cp_module_reload("ring_kb=16 drain_ms=10 discard_samples=1"));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	self->nl.stream = &self->stream;
}

FIXTURE_TEARDOWN(discard)
{
	cp_target_kill(&self->target);
	cp_nl_close(&self->nl);
	cp_stream_free(&self->stream);
	EXPECT_EQ(0, cp_module_reload(""));
}

TEST_F_TIMEOUT(discard, samples_skipped_unread, 90)
{
	char *argv[] = { self->spin, "-t", "2", "-s", "3", NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	const struct causalprof_record_hdr *h;
	size_t off, comms = 0, mmaps = 0;
	uint64_t id, dropped, val;

	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, cp_nl_start_events(&self->nl, self->target.pid, CP_F_STACKS, &ev, 1, &id))
		TH_LOG("extack: '%s'", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&self->target));
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 60000));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	/* cp_stream_problem() but for the samples that never came */
	ASSERT_EQ(0U, self->stream.bad);
	ASSERT_EQ(0U, self->stream.foreign);
	ASSERT_TRUE(self->stream.ended);
	ASSERT_EQ(0U, self->stream.after_end);

	cp_stream_for_each(&self->stream, h, off) {
		comms += h->type == CAUSALPROF_REC_COMM;
		mmaps += h->type == CAUSALPROF_REC_MMAP;
	}
	ASSERT_EQ(0, cp_status_u64("records_dropped", &dropped));
	TH_LOG("%zu records came (%zu SAMPLE, %zu COMM, %zu MMAP); END: %llu samples, %llu lost; records_dropped %llu",
	       self->stream.records, self->stream.samples, comms, mmaps,
	       (unsigned long long)self->stream.end.samples,
	       (unsigned long long)self->stream.end.lost, (unsigned long long)dropped);
	/* The spinners ran about 3 s of CPU time at 1 kHz. */
	ASSERT_LT(1000U, self->stream.end.samples);
	EXPECT_EQ(0U, self->stream.samples);
	EXPECT_EQ(0U, self->stream.end.lost);
	EXPECT_EQ(0U, self->stream.lost);
	EXPECT_EQ(self->stream.end.samples, dropped);
	EXPECT_LT(0U, comms);
	EXPECT_LT(0U, mmaps);
	ASSERT_EQ(0, cp_status_u64("records_sent", &val));
	EXPECT_EQ(self->stream.records, val);
}

TEST_HARNESS_MAIN
