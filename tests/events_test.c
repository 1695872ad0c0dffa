// SPDX-License-Identifier: GPL-2.0
/*
 * cprof's -e parser (user/events.c), on its own: no module needed, so it
 * runs on the build host as well as in the VM.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "events.h"

struct valid_case {
	const char *list;
	unsigned int nr;
	struct { const char *name; uint32_t type; uint64_t config; } ev[3];
};

static const struct valid_case valid[] = {
	{ "cycles", 1, { { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES } } },
	{ "instructions", 1,
	  { { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS } } },
	{ "cache-references", 1,
	  { { "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES } } },
	{ "cache-misses", 1,
	  { { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES } } },
	{ "branches", 1,
	  { { "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS } } },
	{ "branch-instructions", 1,
	  { { "branch-instructions", PERF_TYPE_HARDWARE,
	      PERF_COUNT_HW_BRANCH_INSTRUCTIONS } } },
	{ "branch-misses", 1,
	  { { "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES } } },
	{ "cpu-clock", 1, { { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK } } },
	{ "cacheMisses", 1,
	  { { "cacheMisses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES } } },
	{ "cacheReferences", 1,
	  { { "cacheReferences", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES } } },
	{ "branchMisses", 1,
	  { { "branchMisses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES } } },
	{ "r01c2", 1, { { "r01c2", PERF_TYPE_RAW, 0x01c2 } } },
	{ "r0", 1, { { "r0", PERF_TYPE_RAW, 0 } } },
	{ "rABcd", 1, { { "rABcd", PERF_TYPE_RAW, 0xabcd } } },
	{ "rffffffffffffffff", 1, { { "rffffffffffffffff", PERF_TYPE_RAW, ~0ULL } } },
	{ "r0123456789abcdef", 1,
	  { { "r0123456789abcdef", PERF_TYPE_RAW, 0x0123456789abcdefULL } } },
	{ "cycles,instructions,r01c2", 3,
	  { { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	    { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	    { "r01c2", PERF_TYPE_RAW, 0x01c2 } } },
	/* A raw code equal to a generic event's config is another event. */
	{ "cycles,r0", 2,
	  { { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	    { "r0", PERF_TYPE_RAW, 0 } } },
};

struct invalid_case {
	const char *list;
	const char *msg;	/* a part of the message */
};

static const struct invalid_case invalid[] = {
	{ "", "empty event name" },
	{ ",", "empty event name" },
	{ "cycles,", "empty event name" },
	{ ",cycles", "empty event name" },
	{ "cycles,,instructions", "empty event name" },
	{ "bogus", "unknown event 'bogus'" },
	{ "Cycles", "unknown event 'Cycles'" },
	{ "cycles ", "unknown event 'cycles '" },
	{ "cache_misses", "unknown event 'cache_misses'" },
	{ "cpu-clock,bogus", "unknown event 'bogus'" },
	{ "r", "no hex digits" },
	{ "r0x1c2", "'x' is not a hex digit" },
	{ "r01g2", "'g' is not a hex digit" },
	{ "r-1", "'-' is not a hex digit" },
	{ "r01c2 ", "' ' is not a hex digit" },
	{ "r10000000000000000", "more than 16 hex digits" },
	{ "cycles,cycles", "event 'cycles' is given twice" },
	{ "branches,branch-instructions",
	  "event 'branch-instructions' is the same as 'branches'" },
	{ "cache-misses,cacheMisses", "event 'cacheMisses' is the same as 'cache-misses'" },
	{ "r01c2,r1c2", "event 'r1c2' is the same as 'r01c2'" },
	{ "r1,r2,r3,r4,r5,r6,r7,r8,r9", "too many events: at most 8 (at 'r9')" },
};

TEST(valid_lists)
{
	char err[512];
	size_t i;
	unsigned int j;

	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		const struct valid_case *c = &valid[i];
		struct cp_events evs = { 0 };

		err[0] = '\0';
		ASSERT_EQ(0, cp_events_parse(&evs, c->list, err, sizeof(err)))
			TH_LOG("'%s': %s", c->list, err);
		ASSERT_EQ(c->nr, evs.nr) TH_LOG("'%s'", c->list);
		for (j = 0; j < c->nr; j++) {
			EXPECT_STREQ(c->ev[j].name, evs.ev[j].name);
			EXPECT_EQ(c->ev[j].type, evs.ev[j].type) TH_LOG("'%s' #%u", c->list, j);
			EXPECT_EQ(c->ev[j].config, evs.ev[j].config)
				TH_LOG("'%s' #%u", c->list, j);
			EXPECT_EQ(0ULL, evs.ev[j].period);
			EXPECT_EQ(0U, evs.ev[j].freq);
		}
	}
}

TEST(invalid_lists)
{
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		const struct invalid_case *c = &invalid[i];
		struct cp_events evs = { 0 };

		err[0] = '\0';
		EXPECT_EQ(-EINVAL, cp_events_parse(&evs, c->list, err, sizeof(err)))
			TH_LOG("'%s' accepted", c->list);
		EXPECT_NE(NULL, strstr(err, c->msg))
			TH_LOG("'%s': message '%s' lacks '%s'", c->list, err, c->msg);
		EXPECT_EQ(0U, evs.nr) TH_LOG("'%s' left events behind", c->list);
	}
}

/* Several -e options add up; the limit and duplicates count across them. */
TEST(lists_accumulate)
{
	struct cp_events evs = { 0 };
	char err[512];

	ASSERT_EQ(0, cp_events_parse(&evs, "cycles,instructions", err, sizeof(err)));
	ASSERT_EQ(0, cp_events_parse(&evs, "r01c2", err, sizeof(err)));
	ASSERT_EQ(3U, evs.nr);
	EXPECT_STREQ("r01c2", evs.ev[2].name);

	/* A failing list changes nothing, even if its first events were fine. */
	EXPECT_EQ(-EINVAL, cp_events_parse(&evs, "branches,cycles", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "'cycles' is given twice")) TH_LOG("%s", err);
	EXPECT_EQ(3U, evs.nr);

	ASSERT_EQ(0, cp_events_parse(&evs, "branches,branch-misses,cache-misses,cpu-clock",
				     err, sizeof(err)));
	ASSERT_EQ(7U, evs.nr);
	ASSERT_EQ(0, cp_events_parse(&evs, "cache-references", err, sizeof(err)));
	ASSERT_EQ((unsigned int)CAUSALPROF_MAX_EVENTS, evs.nr);
	EXPECT_EQ(-EINVAL, cp_events_parse(&evs, "r1", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "too many events")) TH_LOG("%s", err);
	EXPECT_EQ((unsigned int)CAUSALPROF_MAX_EVENTS, evs.nr);
}

/* Messages are cut to the caller's buffer, never overflow it. */
TEST(small_error_buffer)
{
	struct cp_events evs = { 0 };
	char err[16];

	memset(err, 'x', sizeof(err));
	EXPECT_EQ(-EINVAL, cp_events_parse(&evs, "bogus", err, sizeof(err)));
	EXPECT_EQ(sizeof(err) - 1, strlen(err));
}

TEST(long_unknown_name)
{
	struct cp_events evs = { 0 };
	char name[4096], err[256];

	memset(name, 'z', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_EQ(-EINVAL, cp_events_parse(&evs, name, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "unknown event 'zzz")) TH_LOG("%s", err);
	name[0] = 'r';
	EXPECT_EQ(-EINVAL, cp_events_parse(&evs, name, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "more than 16 hex digits")) TH_LOG("%s", err);
}

TEST(type_names)
{
	char buf[32];

	EXPECT_STREQ("hardware", cp_event_type_name(PERF_TYPE_HARDWARE, buf, sizeof(buf)));
	EXPECT_STREQ("software", cp_event_type_name(PERF_TYPE_SOFTWARE, buf, sizeof(buf)));
	EXPECT_STREQ("raw", cp_event_type_name(PERF_TYPE_RAW, buf, sizeof(buf)));
	EXPECT_STREQ("type 42", cp_event_type_name(42, buf, sizeof(buf)));
}

TEST_HARNESS_MAIN
