// SPDX-License-Identifier: GPL-2.0
/*
 * 100 cycles of insmod, a recording session, rmmod
 * (Documentation/reliability.rst): each cycle loads the module, records a
 * spinning process over netlink for a moment (stacks, cpu-clock at
 * 1 kHz), stops, receives the whole stream up to its END record, and
 * unloads. Every stream whole and non-empty, every unload done, the kernel
 * untainted, and the slab no more than 8 MiB bigger after the cycles than
 * after the first one (what leaks per cycle would show). The VM harness
 * fails a run on any oops or WARN, and runs a kmemleak scan when the
 * kernel has it.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define CYCLES		100

static int64_t slab(void)
{
	char line[256];
	long long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Slab:", 5))
			sscanf(line + 5, "%lld", &kb);
	fclose(f);
	return kb * 1024;
}

/* Only for TEST_F_TIMEOUT: the harness' 30 s are too short. */
FIXTURE(cycles) {
	int unused;
};

FIXTURE_SETUP(cycles)
{
}

FIXTURE_TEARDOWN(cycles)
{
	EXPECT_EQ(0, cp_module_ensure_loaded());
}

TEST_F_TIMEOUT(cycles, insmod_record_rmmod, 280)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(1000);
	uint64_t taint, taint1, id;
	int64_t slab1 = 0, slabn;
	size_t samples = 0;
	struct cp_stream s;
	struct cp_nl nl;
	const char *why;
	int i, ret;

	ASSERT_EQ(0, cp_kernel_taint(&taint));
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	for (i = 0; i < CYCLES; i++) {
		if (cp_module_loaded())
			ASSERT_EQ(0, cp_module_unload()) TH_LOG("cycle %d: rmmod", i);
		ASSERT_EQ(0, cp_module_load(cp_ko_path())) TH_LOG("cycle %d: insmod", i);
		memset(&s, 0, sizeof(s));
		ASSERT_EQ(0, cp_nl_open(&nl));
		nl.stream = &s;
		/* The whole system: a sleeper alone would give no sample. */
		ret = cp_nl_start_events(&nl, 0, CP_F_STACKS | CAUSALPROF_F_SYSTEM_WIDE, &ev, 1, &id);
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: start: %s", i, nl.extack);
		ASSERT_EQ(0, cp_nl_pump(&nl, 100));
		ASSERT_EQ(0, cp_nl_finish(&nl, CP_WAIT_MS)) TH_LOG("cycle %d", i);
		why = cp_stream_problem(&s);
		ASSERT_EQ(NULL, why) TH_LOG("cycle %d: %s", i, why);
		samples += s.samples;
		cp_nl_close(&nl);
		cp_stream_free(&s);
		ASSERT_EQ(0, cp_module_unload()) TH_LOG("cycle %d: rmmod", i);
		if (!i)
			slab1 = slab();
	}
	slabn = slab();
	ASSERT_EQ(0, cp_module_ensure_loaded());
	TH_LOG("%d cycles, %zu samples; slab %+.1f MiB since the first", CYCLES, samples,
	       (slabn - slab1) / 1048576.0);
	EXPECT_LT(0U, samples);
	EXPECT_LT(slabn - slab1, 8 << 20);
	ASSERT_EQ(0, cp_kernel_taint(&taint1));
	EXPECT_EQ(taint, taint1);
}

TEST_HARNESS_MAIN
