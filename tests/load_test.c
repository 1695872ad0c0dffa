// SPDX-License-Identifier: GPL-2.0
/*
 * Load: every CPU sampled at LOAD_HZ, with both stacks, for 60 s, on a
 * target of 64 spinning threads, under an experiment that selects the
 * target's code all along (every sample a hit, every thread paying), the
 * reader 5 s behind in the middle (losses to count). It
 * passes if the kernel stays quiet (the test VM's kernel panics on a
 * warning, a soft or hard lockup or a hung task), the experiment's record
 * arrives whole, and the losses are exact: per CPU, samples + lost ==
 * overflows, and what the reader got plus what the LOST records report is
 * what was sampled.
 *
 * The rate is the highest the module and perf allow, CAUSALPROF_MAX_FREQ
 * (100 kHz; perf_event_max_sample_rate is 100 000 too). Under TCG a
 * sample with stacks costs about 11 us of guest time (bench/RESULTS.md),
 * more than its 10 us period: the hrtimers fire as fast as the VM can take
 * them (5 000 to 6 500 a second per CPU here) and the rest of the guest
 * runs in what is left. CP_LOAD_HZ in the environment sets another rate.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <causalprof/tables.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define LOAD_S		60
#define THREADS		"64"
#define LOAD_HZ		CAUSALPROF_MAX_FREQ
#define STALL_S		5

static uint64_t max_sample_rate(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

FIXTURE(load) {
	uint64_t taint, max_exp;
	struct cp_nl nl;
	struct cp_stream stream;
	struct cp_target target;
};

FIXTURE_SETUP(load)
{
	const struct timeval patience = { .tv_sec = 2 * LOAD_S };

	memset(&self->target, 0, sizeof(self->target));
	self->target.go = self->target.out = -1;
	self->nl.fd = -1;
	ASSERT_EQ(0, cp_kernel_taint(&self->taint));
	/* A fresh module: its per-CPU counters are this session's. */
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_module_reload(""));
	ASSERT_EQ(0, cp_module_param_get("max_experiment_s", &self->max_exp));
	ASSERT_EQ(0, cp_module_param_set("max_experiment_s", 10 * LOAD_S));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	/* Requests wait behind the flood: longer than the usual 5 s. */
	ASSERT_EQ(0, setsockopt(self->nl.fd, SOL_SOCKET, SO_RCVTIMEO, &patience,
				sizeof(patience)));
	self->stream.count_samples_only = true;
	self->nl.stream = &self->stream;
}

FIXTURE_TEARDOWN(load)
{
	uint64_t taint = 0;

	if (self->nl.fd >= 0)
		cp_nl_close(&self->nl);
	cp_target_kill(&self->target);
	cp_stream_free(&self->stream);
	EXPECT_EQ(0, cp_session_reset());
	EXPECT_EQ(0, cp_module_param_set("max_experiment_s", self->max_exp));
	EXPECT_EQ(0, cp_kernel_taint(&taint));
	EXPECT_EQ(self->taint, taint) TH_LOG("the kernel was tainted: 0x%" PRIx64, taint);
}

TEST_F_TIMEOUT(load, highest_rate, 6 * LOAD_S)
{
	const char *hz = getenv("CP_LOAD_HZ");
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(hz ? (uint32_t)atoi(hz) : LOAD_HZ);
	uint64_t samples, lost, overflows, sum_samples = 0, sum_lost = 0, sum_over = 0;
	long cpu, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	char spin[PATH_MAX], secs[16], out[256];
	char *argv[] = { spin, "-t", THREADS, "-s", secs, NULL };
	struct causalprof_exp_range range;
	uint64_t id, rate;
	const char *why;

	int64_t t0 = cp_now_ms();

	ASSERT_EQ(0, cp_target_path("spin", spin, sizeof(spin)));
	snprintf(secs, sizeof(secs), "%d", LOAD_S);
	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, cp_nl_start_events(&self->nl, self->target.pid, CP_F_STACKS, &ev, 1, &id))
		TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&self->target));
	/* "ready PID": spin runs, its threads exist. */
	ASSERT_LT(0, cp_target_read(&self->target, out, sizeof(out), "\n", 30000));
	ASSERT_EQ(0, cp_code_range(self->target.pid, "/spin", &range));
	ASSERT_EQ(0, cp_nl_experiment_start(&self->nl, 500, &range, 1))
		TH_LOG("%s", self->nl.extack);
	/*
	 * The main thread, asleep, owes what the hits insert, faster than
	 * it can pay: it ends its sleep only once the experiment is over.
	 */
	TH_LOG("experiment started on 0x%" PRIx64 "-0x%" PRIx64 " after %.1f s",
	       (uint64_t)range.start, (uint64_t)range.end, (cp_now_ms() - t0) / 1000.0);
	/*
	 * The reader falls behind for STALL_S in the middle: the socket's
	 * queue and then the rings fill, so there are losses to count.
	 */
	ASSERT_EQ(0, cp_nl_pump(&self->nl, (LOAD_S - STALL_S) * 1000 / 2));
	sleep(STALL_S);
	ASSERT_EQ(0, cp_nl_pump(&self->nl, (LOAD_S - STALL_S) * 1000 / 2));
	ASSERT_EQ(0, cp_nl_experiment_stop(&self->nl)) TH_LOG("%s", self->nl.extack);
	TH_LOG("experiment stopped after %.1f s", (cp_now_ms() - t0) / 1000.0);
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 3 * LOAD_S * 1000));
	TH_LOG("target exited after %.1f s", (cp_now_ms() - t0) / 1000.0);
	EXPECT_EQ(0, self->target.status);
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	EXPECT_EQ(1U, self->stream.experiments);

	for (cpu = 0; cpu < ncpus; cpu++) {
		ASSERT_EQ(0, cp_cpu_counts(cpu, &samples, &lost, &overflows)) TH_LOG("cpu%ld", cpu);
		EXPECT_EQ(overflows, samples + lost) TH_LOG("cpu%ld", cpu);
		/* Every CPU under load: at least 1 kHz of it. */
		EXPECT_LT(1000U * LOAD_S, overflows) TH_LOG("cpu%ld", cpu);
		TH_LOG("cpu%ld: %" PRIu64 " overflows (%.0f a second), %" PRIu64 " lost", cpu,
		       overflows, (double)overflows / LOAD_S, lost);
		sum_samples += samples;
		sum_lost += lost;
		sum_over += overflows;
	}
	rate = max_sample_rate();
	TH_LOG("%zu samples received, %" PRIu64 " lost; perf_event_max_sample_rate now %" PRIu64,
	       self->stream.samples, self->stream.lost, rate);
	EXPECT_LT(0U, self->stream.samples);
	EXPECT_LT(0U, sum_lost) TH_LOG("the reader's stall lost nothing");
	EXPECT_EQ(sum_lost, self->stream.lost);
	EXPECT_EQ(sum_lost, self->stream.end.lost);
	EXPECT_EQ(sum_samples, self->stream.samples);
	EXPECT_EQ(sum_over, self->stream.samples + self->stream.lost);
	cp_nl_close(&self->nl);
	self->nl.fd = -1;
	EXPECT_EQ(0, cp_module_refs_settle());
}

TEST_HARNESS_MAIN
