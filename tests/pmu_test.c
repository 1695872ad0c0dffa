// SPDX-License-Identifier: GPL-2.0
/*
 * The events a session samples: a hardware event (cycles) where there is a
 * PMU, and a clear refusal naming the event where there is none (TCG: the
 * tests that need one then skip, after checking the refusal); several
 * events, each sample tagged with its event's index (two cpu-clocks where
 * there is no PMU); a sampling period; and a frequency above the module's
 * max_freq, lowered to it.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FREQ		1000
#define MAX_FREQ	500U	/* max_freq for the clamping test */

FIXTURE(pmu) {
	struct cp_nl nl;
	struct cp_stream stream;
	struct cp_target target;
	char spin[PATH_MAX];
	uint64_t max_freq;	/* to restore; 0: untouched */
};

FIXTURE_SETUP(pmu)
{
	char *argv[] = { self->spin, "-t", "1", "-s", "1", NULL };

	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_target_path("spin", self->spin, sizeof(self->spin)));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	self->nl.stream = &self->stream;
	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
}

FIXTURE_TEARDOWN(pmu)
{
	cp_target_kill(&self->target);
	cp_nl_close(&self->nl);
	cp_stream_free(&self->stream);
	EXPECT_EQ(0, cp_session_reset());
	if (self->max_freq) {
		EXPECT_EQ(0, cp_module_param_set("max_freq", self->max_freq));
	}
}

/* How a kernel without the PMU (or this event) refuses a hardware event. */
static bool no_pmu(int ret)
{
	return ret == -ENOENT || ret == -EOPNOTSUPP;
}

/* The refusal names the event and why: "cycles: no hardware PMU (ENOENT); ..." */
static bool names_reason(const char *msg, const char *event)
{
	return strstr(msg, event) &&
	       (strstr(msg, "PMU") || strstr(msg, "ENOENT") || strstr(msg, "EOPNOTSUPP"));
}

/*
 * Release the target and receive its session until END; the stream is
 * whole. Returns the CPU time the target used.
 */
static uint64_t run(struct __test_metadata *_metadata, FIXTURE_DATA(pmu) *self)
{
	struct cp_spin_thread th[2];
	uint64_t cpu = 0;
	char out[256];
	const char *why;
	int n, i;

	ASSERT_EQ(0, cp_target_release(&self->target));
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 30000));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	ASSERT_LT(0U, self->stream.samples);
	ASSERT_LT(0, cp_target_read(&self->target, out, sizeof(out), NULL, CP_WAIT_MS));
	n = cp_spin_parse(out, th, 2);
	ASSERT_EQ(2, n) TH_LOG("target said:\n%s", out);
	for (i = 0; i < n; i++)
		cpu += th[i].cpu_ns;
	return cpu;
}

/*
 * Samples and weight per event index (the last slot counts indices the
 * session lacks), and how many have a period other than their event's
 * expected one (0: any).
 */
struct per_event {
	size_t samples[CAUSALPROF_MAX_EVENTS + 1];
	uint64_t weight[CAUSALPROF_MAX_EVENTS + 1];
	size_t bad_period;
};

static void count_events(const struct cp_stream *st, const uint64_t *periods, unsigned int nr,
			 struct per_event *pe)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	unsigned int i;
	size_t off;

	memset(pe, 0, sizeof(*pe));
	cp_stream_for_each(st, h, off) {
		s = cp_rec_sample(h);
		if (!s)
			continue;
		i = s->event < nr ? s->event : CAUSALPROF_MAX_EVENTS;
		pe->samples[i]++;
		pe->weight[i] += s->period;
		if (i < nr && periods[i] && s->period != periods[i])
			pe->bad_period++;
	}
}

TEST_F_TIMEOUT(pmu, cycles_netlink, 60)
{
	const struct cp_req_event ev = CP_EV_CYCLES(FREQ);
	const uint64_t any = 0;
	struct per_event pe;
	uint64_t id;
	int ret;

	ret = cp_nl_start_events(&self->nl, self->target.pid, CP_F_STACKS, &ev, 1, &id);
	if (ret) {
		ASSERT_TRUE(no_pmu(ret)) TH_LOG("cycles: %s; extack '%s'", strerror(-ret),
						self->nl.extack);
		ASSERT_TRUE(names_reason(self->nl.extack, "cycles"))
			TH_LOG("extack '%s'", self->nl.extack);
		ASSERT_EQ(0, cp_wait_state("idle", 0));
		ASSERT_EQ(0U, self->stream.messages) TH_LOG("records of a session that failed");
		SKIP(return, "no hardware PMU: %s", self->nl.extack);
	}
	run(_metadata, self);
	count_events(&self->stream, &any, 1, &pe);
	EXPECT_LT(0U, pe.samples[0]);
	EXPECT_EQ(0U, pe.samples[CAUSALPROF_MAX_EVENTS])
		TH_LOG("samples of an event index the session lacks");
}

TEST_F(pmu, cycles_proc)
{
	char cmd[64];
	int ret;

	snprintf(cmd, sizeof(cmd), "start pid=%d event=cycles freq=%d", self->target.pid, FREQ);
	ret = cp_control(cmd);
	if (ret) {
		ASSERT_TRUE(no_pmu(ret)) TH_LOG("'%s': %s", cmd, strerror(-ret));
		ASSERT_EQ(0, cp_wait_state("idle", 0));
		SKIP(return, "no hardware PMU: '%s' fails with %s", cmd, strerror(-ret));
	}
	ASSERT_EQ(0, cp_control("stop"));
}

/*
 * Two events: samples of each carry its index. With a PMU, cpu-clock and
 * cycles; without one there is no second kind of event to sample (cpu-clock
 * is the only software one), and the start fails naming the second event.
 */
TEST_F_TIMEOUT(pmu, two_events, 60)
{
	const struct cp_req_event evs[] = { CP_EV_CPU_CLOCK(FREQ), CP_EV_CYCLES(FREQ) };
	const uint64_t periods[] = { 1000000000ULL / FREQ, 0 };
	struct per_event pe;
	uint64_t id;
	int ret;

	ret = cp_nl_start_events(&self->nl, self->target.pid, CP_F_STACKS, evs, 2, &id);
	if (ret) {
		ASSERT_TRUE(no_pmu(ret)) TH_LOG("%s; extack '%s'", strerror(-ret),
						self->nl.extack);
		ASSERT_TRUE(names_reason(self->nl.extack, "cycles"))
			TH_LOG("extack '%s'", self->nl.extack);
		ASSERT_EQ(0, cp_wait_state("idle", 0));
		SKIP(return, "no hardware PMU: %s", self->nl.extack);
	}
	run(_metadata, self);
	count_events(&self->stream, periods, 2, &pe);
	EXPECT_LT(0U, pe.samples[0]);
	EXPECT_LT(0U, pe.samples[1]);
	EXPECT_EQ(0U, pe.samples[CAUSALPROF_MAX_EVENTS])
		TH_LOG("samples of an event index the session lacks");
	EXPECT_EQ(0U, pe.bad_period) TH_LOG("cpu-clock samples with another period");
}

/*
 * The kernel's rule lets an event be given twice: two cpu-clock events at
 * different rates are two events without a PMU. Each sample carries its
 * event's index and period, and each event's samples weigh, in all, no more
 * than the target's CPU time.
 */
TEST_F_TIMEOUT(pmu, two_cpu_clocks, 60)
{
	struct cp_req_event evs[] = { CP_EV_CPU_CLOCK(FREQ), CP_EV_CPU_CLOCK(0) };
	const uint64_t periods[] = { 1000000000ULL / FREQ, 2000000 };
	struct per_event pe;
	uint64_t id, cpu;

	evs[1].period = periods[1];
	ASSERT_EQ(0, cp_nl_start_events(&self->nl, self->target.pid, CP_F_STACKS, evs, 2, &id))
		TH_LOG("extack '%s'", self->nl.extack);
	cpu = run(_metadata, self);
	count_events(&self->stream, periods, 2, &pe);
	TH_LOG("event 0: %zu samples, %.3f s; event 1: %zu samples, %.3f s; CPU time %.3f s",
	       pe.samples[0], pe.weight[0] / 1e9, pe.samples[1], pe.weight[1] / 1e9, cpu / 1e9);
	EXPECT_LT(0U, pe.samples[0]);
	EXPECT_LT(0U, pe.samples[1]);
	EXPECT_EQ(0U, pe.samples[CAUSALPROF_MAX_EVENTS])
		TH_LOG("samples of an event index the session lacks");
	EXPECT_EQ(0U, pe.bad_period) TH_LOG("samples with another period than their event's");
	/* each event's samples stand for the target's CPU time, not more */
	EXPECT_LE(pe.weight[0], cpu * 12 / 10);
	EXPECT_LE(pe.weight[1], cpu * 12 / 10);
}

/* A period instead of a frequency: cpu-clock counts nanoseconds. */
TEST_F_TIMEOUT(pmu, period, 60)
{
	struct cp_req_event ev = CP_EV_CPU_CLOCK(0);
	struct per_event pe;
	uint64_t id;

	ev.period = 2000000;
	ASSERT_EQ(0, cp_nl_start_events(&self->nl, self->target.pid, 0, &ev, 1, &id))
		TH_LOG("extack '%s'", self->nl.extack);
	run(_metadata, self);
	count_events(&self->stream, &ev.period, 1, &pe);
	EXPECT_LT(0U, pe.samples[0]);
	EXPECT_EQ(0U, pe.bad_period) TH_LOG("samples whose period is not %llu",
					    (unsigned long long)ev.period);
}

/*
 * A frequency above max_freq is accepted and lowered to it: at MAX_FREQ Hz
 * a cpu-clock sample stands for 1 s / MAX_FREQ.
 */
TEST_F_TIMEOUT(pmu, freq_clamped, 60)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	const uint64_t period = 1000000000ULL / MAX_FREQ;
	struct per_event pe;
	uint64_t id;

	ASSERT_EQ(0, cp_module_param_get("max_freq", &self->max_freq));
	ASSERT_LT(MAX_FREQ, self->max_freq);
	ASSERT_EQ(0, cp_module_param_set("max_freq", MAX_FREQ));
	ASSERT_EQ(0, cp_nl_start_events(&self->nl, self->target.pid, 0, &ev, 1, &id))
		TH_LOG("extack '%s'", self->nl.extack);
	run(_metadata, self);
	count_events(&self->stream, &period, 1, &pe);
	EXPECT_LT(0U, pe.samples[0]);
	EXPECT_EQ(0U, pe.bad_period) TH_LOG("samples not at %u Hz", MAX_FREQ);
}

TEST_HARNESS_MAIN
