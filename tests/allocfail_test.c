// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures during SESSION_START (Documentation/reliability.rst):
 * on a kernel with fault injection (the debug kernel of make check-debug;
 * skipped elsewhere), the N-th slab or page allocation of the starting
 * task fails (/proc/thread-self/fail-nth, failslab and fail_page_alloc
 * counting GFP_KERNEL allocations of any order), for N = 1, 2, ... up to the
 * number of allocations a start makes (every k-th N when that is over
 * MAX_STARTS, to bound the time). Each start either fails with
 * -ENOMEM or -ENOBUFS (the socket's own allocations; how many -ENOMEM
 * came without an extack message is logged), or succeeds (the failed
 * allocation was one the kernel works around); either way the module is
 * idle again once the socket is closed, and the next start, without a
 * failure, works. The VM harness then fails the run on any warning or
 * leak (kmemleak).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define DEBUGFS		"/sys/kernel/debug"
#define FAR		1000000	/* more allocations than any start makes */
#define MAX_STARTS	400	/* starts with a failure, at most, per variant */
#define IDLE_MS		30000

/* The knobs set for the test and put back after it. */
static const char *const knobs[] = {
	DEBUGFS "/failslab/ignore-gfp-wait",
	DEBUGFS "/failslab/verbose",
	DEBUGFS "/fail_page_alloc/ignore-gfp-wait",
	DEBUGFS "/fail_page_alloc/min-order",
	DEBUGFS "/fail_page_alloc/verbose",
};

#define NKNOBS	(sizeof(knobs) / sizeof(knobs[0]))

FIXTURE(allocfail) {
	char saved[NKNOBS][32];
	bool set;
	pid_t target;
	int nth;	/* /proc/thread-self/fail-nth, opened once */
	uint64_t taint;
};

FIXTURE_VARIANT(allocfail) {
	bool system_wide;
};

FIXTURE_VARIANT_ADD(allocfail, target) { .system_wide = false };
FIXTURE_VARIANT_ADD(allocfail, system_wide) { .system_wide = true };

FIXTURE_SETUP(allocfail)
{
	size_t i;

	self->nth = -1;
	self->target = -1;
	if (access(FAIL_NTH, W_OK) || access(DEBUGFS "/failslab", F_OK) ||
	    access(DEBUGFS "/fail_page_alloc", F_OK))
		SKIP(return, "no allocation failure injection in this kernel "
		     "(CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC: make check-debug)");
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_kernel_taint(&self->taint));
	for (i = 0; i < NKNOBS; i++)
		ASSERT_EQ(0, cp_read_str(knobs[i], self->saved[i], sizeof(self->saved[i])));
	self->set = true;
	/* GFP_KERNEL allocations of any order count; no stack dumps. */
	ASSERT_EQ(0, cp_write_str(knobs[0], "N"));
	ASSERT_EQ(0, cp_write_str(knobs[1], "0"));
	ASSERT_EQ(0, cp_write_str(knobs[2], "N"));
	ASSERT_EQ(0, cp_write_str(knobs[3], "0"));
	ASSERT_EQ(0, cp_write_str(knobs[4], "0"));
	self->target = cp_spawn_sleeper();
	ASSERT_LT(0, self->target);
	self->nth = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth);
}

FIXTURE_TEARDOWN(allocfail)
{
	size_t i;

	if (self->nth >= 0) {
		EXPECT_EQ(1, pwrite(self->nth, "0", 1, 0));
		close(self->nth);
	}
	if (self->target > 0)
		cp_kill(self->target);
	for (i = 0; self->set && i < NKNOBS; i++)
		EXPECT_EQ(0, cp_write_str(knobs[i], self->saved[i]));
	if (self->set)
		EXPECT_EQ(0, cp_session_reset());
}

/* Arms fail-nth: the n-th allocation from now on fails (0 disarms). */
static int arm(int fd, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -errno;
}

/* What is left of the count: 0 once the failure was injected. */
static int left(int fd)
{
	char buf[16];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

/* One start on a fresh socket, then the socket closed: 0 or -errno. */
static int start_once(FIXTURE_DATA(allocfail) *self, const FIXTURE_VARIANT(allocfail) *variant,
		      int n, int *rest, char *extack, size_t size)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(1000);
	uint32_t flags = CP_F_STACKS;
	uint32_t pid = self->target;
	struct cp_nl nl;
	uint64_t id;
	int ret;

	if (variant->system_wide) {
		flags |= CAUSALPROF_F_SYSTEM_WIDE;
		pid = 0;
	}
	ret = cp_nl_open(&nl);
	if (ret)
		return ret;
	if (n)
		ret = arm(self->nth, n);
	if (!ret)
		ret = cp_nl_start_events(&nl, pid, flags, &ev, 1, &id);
	if (n) {
		*rest = left(self->nth);
		arm(self->nth, 0);
	}
	snprintf(extack, size, "%s", nl.extack);
	/* Closing the owner's socket stops a session that did start. */
	cp_nl_close(&nl);
	return ret;
}

TEST_F_TIMEOUT(allocfail, session_start, 3000)
{
	int n, ret, rest = -1, total, stride, tried = 0, failed = 0, started = 0, bare = 0;
	char extack[256];
	uint64_t taint;

	/* The 6.1 harness runs the body after a SKIP in the setup. */
	if (!self->set)
		SKIP(return, "no allocation failure injection in this kernel");
	/* How many allocations a start makes: a failure armed out of reach. */
	ASSERT_EQ(0, start_once(self, variant, FAR, &rest, extack, sizeof(extack)))
		TH_LOG("%s", extack);
	ASSERT_LT(0, rest);
	total = FAR - rest;
	ASSERT_LT(0, total);
	ASSERT_EQ(0, cp_wait_state("idle", IDLE_MS));
	stride = (total + MAX_STARTS - 1) / MAX_STARTS;

	for (n = 1; n <= total + 1; n += stride) {
		ret = start_once(self, variant, n, &rest, extack, sizeof(extack));
		ASSERT_LE(0, rest);
		tried++;
		if (ret) {
			ASSERT_EQ(0, rest) TH_LOG("start %d failed (%d: %s) with no failure injected",
						  n, ret, extack);
			ASSERT_TRUE(ret == -ENOMEM || ret == -ENOBUFS)
				TH_LOG("allocation %d failed: start returned %d (%s)",
				       n, ret, extack);
			failed++;
			if (ret == -ENOMEM && !extack[0])
				bare++;
		} else {
			started++;
		}
		ASSERT_EQ(0, cp_wait_state("idle", IDLE_MS))
			TH_LOG("allocation %d failed: the module is not idle again", n);
		/* The next start, with no failure, works. */
		ASSERT_EQ(0, start_once(self, variant, 0, &rest, extack, sizeof(extack)))
			TH_LOG("after allocation %d failed: %s", n, extack);
		ASSERT_EQ(0, cp_wait_state("idle", IDLE_MS));
	}
	ASSERT_LT(0, failed) TH_LOG("no start failed: the injection did not reach it");
	TH_LOG("a start makes %d allocations; failed one of them in %d starts (every %d-th): "
	       "%d starts failed (%d with -ENOMEM and no message), %d started",
	       total, tried, stride, failed, bare, started);
	ASSERT_EQ(0, cp_kernel_taint(&taint));
	ASSERT_EQ(self->taint, taint);
}

TEST_HARNESS_MAIN
