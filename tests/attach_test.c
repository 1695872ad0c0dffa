// SPDX-License-Identifier: GPL-2.0
/*
 * Who may change a process: CAP_PERFMON samples anyone, as perf's does,
 * but experiments (which delay a session's targets) and progress points
 * (breakpoints in their memory) need the right to ptrace-attach the
 * target: the same uid and a dumpable process, or CAP_SYS_PTRACE. A
 * system-wide session's targets are every task: its experiments need
 * CAP_SYS_ADMIN or CAP_SYS_PTRACE. A session started through /proc belongs
 * to the user who started it. Each check runs in a child that became uid
 * 1000 with CAP_PERFMON (and more where said).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <linux/capability.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define USER		1000
#define PERFMON		(1ULL << CAP_PERFMON)
#define SYS_PTRACE	(1ULL << CAP_SYS_PTRACE)

/* Some code of the process, as far as the range checks go. */
#define RANGE(p)	((struct causalprof_exp_range){ .pid = (p), .start = 0x1000, .end = 0x2000 })

FIXTURE(attach) {
	pid_t pid;		/* the test process */
	pid_t root_child;	/* a root process */
	char true_path[64];	/* a file to probe */
};

FIXTURE_SETUP(attach)
{
	self->pid = getpid();
	ASSERT_EQ(0, cp_session_reset());
	self->root_child = cp_spawn_sleeper();
	ASSERT_LT(0, self->root_child);
	snprintf(self->true_path, sizeof(self->true_path), "%s",
		 access("/usr/bin/true", R_OK) ? "/bin/true" : "/usr/bin/true");
}

FIXTURE_TEARDOWN(attach)
{
	if (getpid() != self->pid)
		return;
	cp_kill(self->root_child);
	EXPECT_EQ(0, cp_session_reset());
}

typedef void (*as_user_fn)(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self);

/* Run fn in a child that became USER with caps; it passes or fails the test. */
static void as_user(struct __test_metadata *_metadata, uint64_t caps, as_user_fn fn,
		    FIXTURE_DATA(attach) *self)
{
	CP_IN_CHILD("the child", {
		ASSERT_EQ(0, cp_become(USER, caps, true));
		fn(_metadata, self);
	});
}

/* root's process: sampled, never changed. */
static void root_target(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self)
{
	const struct causalprof_exp_range r = RANGE(self->root_child);
	pid_t mine = cp_spawn_sleeper();
	const struct causalprof_exp_range own = RANGE(mine);
	struct cp_nl nl;
	uint64_t id;

	ASSERT_LT(0, mine);
	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start(&nl, self->root_child, 0, &id)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(-EPERM, cp_nl_experiment_start(&nl, 0, &r, 1)) TH_LOG("delays root's process");
	EXPECT_STRNE("", nl.extack);
	/* Selecting its own code does not make root's process its own. */
	EXPECT_EQ(-EPERM, cp_nl_experiment_start(&nl, 0, &own, 1));
	EXPECT_EQ(-EPERM, cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT, self->true_path,
					     0, 0)) TH_LOG("probes root's process");
	EXPECT_STRNE("", nl.extack);
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
	cp_kill(mine);
}

TEST_F(attach, perfmon_on_root_process)
{
	as_user(_metadata, PERFMON, root_target, self);
}

/* Its own process: experiments go; root's code is not for it to select. */
static void own_target(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self)
{
	pid_t mine = cp_spawn_sleeper();
	const struct causalprof_exp_range own = RANGE(mine), root = RANGE(self->root_child);
	struct cp_nl nl;
	uint64_t id;

	ASSERT_LT(0, mine);
	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start(&nl, mine, 0, &id)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(-EPERM, cp_nl_experiment_start(&nl, 0, &root, 1)) TH_LOG("selects root's code");
	EXPECT_EQ(0, cp_nl_experiment_start(&nl, 0, &own, 1)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_experiment_stop(&nl)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
	cp_kill(mine);
}

TEST_F(attach, perfmon_on_own_process)
{
	as_user(_metadata, PERFMON, own_target, self);
}

/* Its own uid, but not dumpable: as ptrace, no. */
static void nondumpable_target(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self)
{
	const struct causalprof_exp_range r = RANGE(0);
	struct causalprof_exp_range own;
	struct cp_nl nl;
	uint64_t id;
	pid_t mine;

	ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 0));
	mine = cp_spawn_sleeper();	/* inherits it */
	ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 1));
	ASSERT_LT(0, mine);
	own = r;
	own.pid = mine;
	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start(&nl, mine, 0, &id)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(-EPERM, cp_nl_experiment_start(&nl, 0, &own, 1));
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
	cp_kill(mine);
}

TEST_F(attach, perfmon_on_nondumpable_process)
{
	as_user(_metadata, PERFMON, nondumpable_target, self);
}

/* System-wide: every task is a target. */
static void system_wide(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self,
			bool allowed)
{
	pid_t mine = cp_spawn_sleeper();
	const struct causalprof_exp_range own = RANGE(mine);
	struct cp_nl nl;
	uint64_t id;

	ASSERT_LT(0, mine);
	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start(&nl, 0, CAUSALPROF_F_SYSTEM_WIDE, &id)) TH_LOG("%s", nl.extack);
	if (allowed) {
		EXPECT_EQ(0, cp_nl_experiment_start(&nl, 0, &own, 1)) TH_LOG("%s", nl.extack);
		EXPECT_EQ(0, cp_nl_experiment_stop(&nl)) TH_LOG("%s", nl.extack);
	} else {
		EXPECT_EQ(-EPERM, cp_nl_experiment_start(&nl, 0, &own, 1))
			TH_LOG("a system-wide experiment with CAP_PERFMON alone");
		EXPECT_STRNE("", nl.extack);
		EXPECT_EQ(-EPERM, cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT,
						     self->true_path, 0, 0));
	}
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
	cp_kill(mine);
}

static void system_wide_perfmon(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self)
{
	system_wide(_metadata, self, false);
}

static void system_wide_ptrace(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self)
{
	system_wide(_metadata, self, true);
}

TEST_F(attach, system_wide_perfmon_only)
{
	as_user(_metadata, PERFMON, system_wide_perfmon, self);
}

TEST_F(attach, system_wide_sys_ptrace)
{
	as_user(_metadata, PERFMON | SYS_PTRACE, system_wide_ptrace, self);
}

/* One command to the control file, opened by this process: 0 or -errno. */
static int control_fd(int fd, const char *cmd)
{
	return write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) ? 0 : -errno;
}

/* root's /proc session: another user with CAP_PERFMON may not use it. */
static void proc_foreign(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self)
{
	char cmd[128];
	int fd;

	fd = open(CP_CONTROL, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	snprintf(cmd, sizeof(cmd), "experiment start speedup=0 range=%d:0x1000-0x2000",
		 self->root_child);
	EXPECT_EQ(-EPERM, control_fd(fd, cmd)) TH_LOG("used root's /proc session");
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s offset=0",
		 self->true_path);
	EXPECT_EQ(-EPERM, control_fd(fd, cmd)) TH_LOG("probed through root's /proc session");
	EXPECT_EQ(-EPERM, control_fd(fd, "experiment stop"));
	EXPECT_EQ(-EPERM, control_fd(fd, "stop")) TH_LOG("stopped root's /proc session");
	close(fd);
}

TEST_F(attach, proc_session_of_another_user)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "start pid=%d", self->root_child);
	ASSERT_EQ(0, cp_control(cmd));
	as_user(_metadata, PERFMON, proc_foreign, self);
	ASSERT_EQ(0, cp_wait_state("recording", 0)) TH_LOG("root's session was stopped");
	ASSERT_EQ(0, cp_control("stop"));
}

/* Its own /proc session on its own process: everything goes. */
static void proc_own(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self)
{
	pid_t mine = cp_spawn_sleeper();
	char cmd[128];
	int fd;

	ASSERT_LT(0, mine);
	fd = open(CP_CONTROL, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	snprintf(cmd, sizeof(cmd), "start pid=%d", mine);
	ASSERT_EQ(0, control_fd(fd, cmd));
	snprintf(cmd, sizeof(cmd), "experiment start speedup=0 range=%d:0x1000-0x2000",
		 self->root_child);
	EXPECT_EQ(-EPERM, control_fd(fd, cmd)) TH_LOG("selected root's code");
	snprintf(cmd, sizeof(cmd), "experiment start speedup=0 range=%d:0x1000-0x2000", mine);
	EXPECT_EQ(0, control_fd(fd, cmd));
	EXPECT_EQ(0, control_fd(fd, "experiment stop"));
	EXPECT_EQ(0, control_fd(fd, "stop"));
	close(fd);
	cp_kill(mine);
}

TEST_F(attach, proc_session_of_own)
{
	as_user(_metadata, PERFMON, proc_own, self);
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
}

/*
 * Its own program, exec'd (dumpable again): B, which runs outside the
 * selected code, pays for A's hits; payers are judged again when they pay.
 */
static void own_payments(struct __test_metadata *_metadata, FIXTURE_DATA(attach) *self)
{
	char path[PATH_MAX], cmd[128], text[1 << 14];
	struct cp_target t;
	struct cp_causal c;
	int64_t local, paid;
	int payments;

	ASSERT_EQ(0, cp_target_path("causal", path, sizeof(path)));
	ASSERT_EQ(5, cp_causal_spawn(&t, path, "spin", "0", &c));
	snprintf(cmd, sizeof(cmd), "start pid=%d", c.pid);
	ASSERT_EQ(0, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "experiment start speedup=1000 range=%d:0x%llx-0x%llx", c.pid,
		 c.start, c.end);
	EXPECT_EQ(0, cp_control(cmd));
	usleep(1000000);
	EXPECT_EQ(0, cp_control("experiment stop"));
	EXPECT_EQ(0, cp_exp_read(text, sizeof(text)));
	EXPECT_EQ(0, cp_exp_task(text, c.b, &local, &paid, &payments));
	EXPECT_LT(0, payments) TH_LOG("B never paid");
	EXPECT_EQ(0, cp_control("stop"));
	cp_target_kill(&t);
}

TEST_F(attach, perfmon_payments_on_own_program)
{
	as_user(_metadata, PERFMON, own_payments, self);
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
}

/* root may do everything, also system-wide. */
TEST_F(attach, root)
{
	const struct causalprof_exp_range r = RANGE(self->root_child);
	struct cp_nl nl;
	uint64_t id;

	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start(&nl, 0, CAUSALPROF_F_SYSTEM_WIDE, &id)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_experiment_start(&nl, 0, &r, 1)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_experiment_stop(&nl)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
}

TEST_HARNESS_MAIN
