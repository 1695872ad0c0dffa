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
	char spin[PATH_MAX], out[64];
	char *argv[] = { spin, "-t", "2", "-s", "0", NULL };

	self->pipe[0] = -1;
	self->pipe[1] = -1;
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_kernel_taint(&self->taint));
	ASSERT_EQ(0, cp_target_path("spin", spin, sizeof(spin)));
	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, false));
	ASSERT_LT(0, cp_target_read(&self->target, out, sizeof(out), "\n", CP_WAIT_MS));
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

/* The owner: start a session on pid, say so on fd, then receive or sit. */
static void owner_main(pid_t pid, int fd, bool reads)
{
	const struct cp_nl_event ev = CP_EV_CPU_CLOCK(FREQ);
	struct cp_stream stream = {};
	struct cp_nl nl;
	uint64_t id;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ret = cp_nl_open(&nl);
	if (!ret)
		/*
		 * The owner that stops reading still needs room for the START
		 * reply and its ACK behind the first stream records.
		 */
		ret = cp_nl_set_rcvbuf(&nl, reads ? 32 << 20 : 256 << 10);
	if (!ret)
		ret = cp_nl_start_events(&nl, pid, CP_F_STACKS, &ev, 1, &id);
	if (write(fd, &ret, sizeof(ret)) != sizeof(ret) || ret)
		_exit(1);
	nl.stream = &stream;
	for (;;) {
		if (reads)
			cp_nl_pump(&nl, 1000);
		else
			pause();
	}
}

TEST_F_TIMEOUT(owner, killed, 60)
{
	struct pollfd pfd = { .fd = self->pipe[0], .events = POLLIN };
	uint64_t before, samples, taint;
	char owner[32], cmd[64];
	struct cp_nl nl;
	int i, ret = -1;

	ASSERT_EQ(0, cp_status_u64("samples", &before));
	self->owner = fork();
	ASSERT_LE(0, self->owner);
	if (!self->owner)
		owner_main(self->target.pid, self->pipe[1], variant->reads);
	ASSERT_EQ(1, poll(&pfd, 1, CP_WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(ret), read(self->pipe[0], &ret, sizeof(ret)));
	ASSERT_EQ(0, ret) TH_LOG("the owner could not start its session");
	ASSERT_EQ(0, cp_status_get("owner", owner, sizeof(owner)));
	ASSERT_STREQ("netlink", owner);

	/* mid-session: the sampler runs (bounded wait, 100 samples) */
	for (i = 0; i < CP_WAIT_MS / 10; i++) {
		ASSERT_EQ(0, cp_status_u64("samples", &samples));
		if (samples >= before + 100)
			break;
		usleep(10000);
	}
	ASSERT_LE(before + 100, samples) TH_LOG("the session does not sample");

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
