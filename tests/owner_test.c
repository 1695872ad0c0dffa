// SPDX-License-Identifier: GPL-2.0
/*
 * An owner that dies mid-session: a process owns a sampling session over
 * netlink, with records streaming to it (or piling up, when it does not
 * read), and is killed with SIGKILL. The module stops the session on its
 * own, soon, without a warning, and a new session can start.
 */
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FREQ		1000

FIXTURE(owner) {
	struct cp_target target;
	pid_t owner;
	int pipe[2];
	uint64_t taint;
};

FIXTURE_VARIANT(owner) {
	bool reads;	/* the owner receives its records, or lets them pile up */
};

FIXTURE_VARIANT_ADD(owner, reading) { .reads = true };
FIXTURE_VARIANT_ADD(owner, not_reading) { .reads = false };

FIXTURE_SETUP(owner)
{
	self->pipe[0] = -1;
	self->pipe[1] = -1;
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_kernel_taint(&self->taint));
	ASSERT_EQ(0, cp_spin_spawn(&self->target, "2"));
	ASSERT_EQ(0, pipe(self->pipe));
}

FIXTURE_TEARDOWN(owner)
{
	if (self->owner > 0) {
		kill(self->owner, SIGKILL);
		waitpid(self->owner, NULL, 0);
	}
	cp_target_kill(&self->target);
	if (self->pipe[0] >= 0) {
		close(self->pipe[0]);
		close(self->pipe[1]);
	}
	EXPECT_EQ(0, cp_session_reset());
}

TEST_F_TIMEOUT(owner, killed, 60)
{
	struct pollfd pfd = { .fd = self->pipe[0], .events = POLLIN };
	uint64_t before, taint;
	char owner[32], cmd[64];
	struct cp_nl nl;
	int ret = -1;

	ASSERT_EQ(0, cp_status_u64("samples", &before));
	self->owner = cp_owner_spawn(self->target.pid, FREQ, variant->reads, self->pipe[1]);
	ASSERT_LT(0, self->owner);
	ASSERT_EQ(1, poll(&pfd, 1, CP_WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(ret), read(self->pipe[0], &ret, sizeof(ret)));
	ASSERT_EQ(0, ret) TH_LOG("the owner could not start its session");
	ASSERT_EQ(0, cp_status_get("owner", owner, sizeof(owner)));
	ASSERT_STREQ("netlink", owner);

	/* mid-session: the sampler runs (bounded wait, 100 samples) */
	ASSERT_EQ(0, cp_status_wait_u64("samples", before + 100, CP_WAIT_MS))
		TH_LOG("the session does not sample");

	ASSERT_EQ(0, kill(self->owner, SIGKILL));
	ASSERT_EQ(self->owner, waitpid(self->owner, NULL, 0));
	self->owner = 0;
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
	ASSERT_EQ(0, cp_status_get("owner", owner, sizeof(owner)));
	EXPECT_STREQ("-", owner);

	/* a new session, either way */
	snprintf(cmd, sizeof(cmd), "start pid=%d event=cpu-clock", self->target.pid);
	ASSERT_EQ(0, cp_control(cmd));
	ASSERT_EQ(0, cp_control("stop"));
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
	ASSERT_EQ(0, cp_nl_open(&nl));
	ret = cp_nl_start(&nl, self->target.pid, 0, &before);
	EXPECT_EQ(0, ret) TH_LOG("extack: '%s'", nl.extack);
	if (!ret) {
		EXPECT_EQ(0, cp_nl_stop(&nl));
	}
	cp_nl_close(&nl);

	ASSERT_EQ(0, cp_kernel_taint(&taint));
	taint &= ~self->taint;
	EXPECT_EQ(0U, taint & (CP_TAINT_WARN | CP_TAINT_DIE))
		TH_LOG("the kernel warned or oopsed: tainted %#llx", (unsigned long long)taint);
}

TEST_HARNESS_MAIN
