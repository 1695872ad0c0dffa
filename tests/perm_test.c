// SPDX-License-Identifier: GPL-2.0
/*
 * Who may control sessions: CAP_PERFMON or CAP_SYS_ADMIN to start and stop
 * them (over netlink, or by opening /proc/causalprof/control for writing);
 * anyone may read the status. Sessions start from the initial pid
 * namespace only. Each check runs in a child that dropped to
 * uid/gid 65534, once with the module idle and once with a session running.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <linux/capability.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define NOBODY	65534

FIXTURE(perm) {
	pid_t pid;		/* the test process, not its unprivileged child */
	pid_t child;		/* a root-owned target */
	struct cp_nl owner;	/* root's netlink socket, owner in "recording" */
	int fd;			/* control file opened by root */
	uint64_t session_id;
	uint64_t sessions;
};

FIXTURE_VARIANT(perm) {
	bool running;
};

FIXTURE_VARIANT_ADD(perm, idle) { .running = false };
FIXTURE_VARIANT_ADD(perm, recording) { .running = true };

FIXTURE_SETUP(perm)
{
	uint64_t id;

	self->pid = getpid();
	self->owner.fd = -1;
	self->fd = -1;
	ASSERT_EQ(0, cp_session_reset());
	self->child = cp_spawn_sleeper();
	ASSERT_GT(self->child, 0);
	if (variant->running) {
		ASSERT_EQ(0, cp_nl_open(&self->owner));
		ASSERT_EQ(0, cp_nl_start(&self->owner, self->child, 0, &id))
			TH_LOG("%s", self->owner.extack);
	}
	ASSERT_EQ(0, cp_status_u64("session_id", &self->session_id));
	ASSERT_EQ(0, cp_status_u64("sessions", &self->sessions));
}

FIXTURE_TEARDOWN(perm)
{
	/* a failed assertion in the unprivileged child lands here too */
	if (getpid() != self->pid)
		return;
	if (self->fd >= 0)
		close(self->fd);
	cp_nl_close(&self->owner);
	EXPECT_EQ(0, cp_session_reset());
	cp_kill(self->child);
}

/*
 * Run fn in a child that became nobody: setuid() away from root clears every
 * capability, unless keep_perfmon asks to keep CAP_PERFMON (and only it).
 * It passes or fails the test.
 */
static void as_nobody(struct __test_metadata *_metadata, bool keep_perfmon,
		      void (*fn)(struct __test_metadata *, FIXTURE_DATA(perm) *,
				 const FIXTURE_VARIANT(perm) *),
		      FIXTURE_DATA(perm) *self, const FIXTURE_VARIANT(perm) *variant)
{
	CP_IN_CHILD("unprivileged child", {
		ASSERT_EQ(0, cp_become(NOBODY, keep_perfmon ? 1ULL << CAP_PERFMON : 0, false));
		fn(_metadata, self, variant);
	});
}

/* The fixture's session, if any, still runs; no other was started. */
static void check_unchanged(struct __test_metadata *_metadata, FIXTURE_DATA(perm) *self,
			    const FIXTURE_VARIANT(perm) *variant)
{
	uint64_t val;

	ASSERT_EQ(0, cp_wait_state(variant->running ? "recording" : "idle", 0));
	ASSERT_EQ(0, cp_status_u64("session_id", &val));
	EXPECT_EQ(self->session_id, val);
	ASSERT_EQ(0, cp_status_u64("sessions", &val));
	EXPECT_EQ(self->sessions, val);
}

static void nobody_checks(struct __test_metadata *_metadata, FIXTURE_DATA(perm) *self,
			  const FIXTURE_VARIANT(perm) *variant)
{
	const char *state = variant->running ? "recording" : "idle";
	struct cp_nl_status st;
	struct cp_nl nl;
	char val[32];
	uint64_t id;

	ASSERT_ERRNO(EPERM, open(CP_CONTROL, O_WRONLY));
	ASSERT_ERRNO(EPERM, open(CP_CONTROL, O_RDWR));

	ASSERT_EQ(0, cp_nl_open(&nl));
	EXPECT_EQ(-EPERM, cp_nl_start(&nl, self->child, 0, &id));
	EXPECT_STRNE("", nl.extack) TH_LOG("no extack message");
	EXPECT_EQ(-EPERM, cp_nl_stop(&nl));
	EXPECT_STRNE("", nl.extack) TH_LOG("no extack message");

	/* reading is for everyone */
	ASSERT_EQ(0, cp_nl_get_status(&nl, &st));
	EXPECT_EQ(variant->running ? CAUSALPROF_STATE_RECORDING : CAUSALPROF_STATE_IDLE,
		  (int)st.state);
	EXPECT_EQ(self->session_id, st.session_id);
	ASSERT_EQ(0, cp_status_get("state", val, sizeof(val)));
	EXPECT_STREQ(state, val);
	cp_nl_close(&nl);
}

TEST_F(perm, nobody)
{
	as_nobody(_metadata, false, nobody_checks, self, variant);
	check_unchanged(_metadata, self, variant);
}

/*
 * CAP_PERFMON alone is enough to run a session, but not to stop somebody
 * else's: that takes being its owner or CAP_SYS_ADMIN.
 */
static void perfmon_checks(struct __test_metadata *_metadata, FIXTURE_DATA(perm) *self,
			   const FIXTURE_VARIANT(perm) *variant)
{
	struct cp_nl nl, other;
	uint64_t id;
	pid_t target;
	int fd;

	fd = open(CP_CONTROL, O_WRONLY);
	ASSERT_LE(0, fd) TH_LOG("open(%s, O_WRONLY): %s", CP_CONTROL, strerror(errno));
	close(fd);

	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_open(&other));
	if (variant->running) {
		EXPECT_EQ(-EBUSY, cp_nl_start(&nl, self->child, 0, &id));
		EXPECT_EQ(-EPERM, cp_nl_stop(&nl)) TH_LOG("stopped root's session");
		EXPECT_STRNE("", nl.extack) TH_LOG("no extack message");
		goto out;
	}
	target = cp_spawn_sleeper();
	ASSERT_LT(0, target);
	EXPECT_EQ(0, cp_nl_start(&nl, target, 0, &id)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(-EPERM, cp_nl_stop(&other)) TH_LOG("a stranger stopped the session");
	EXPECT_EQ(0, cp_nl_stop(&nl)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_kill(target);
out:
	cp_nl_close(&other);
	cp_nl_close(&nl);
}

TEST_F(perm, perfmon_only)
{
	uint64_t val;

	as_nobody(_metadata, true, perfmon_checks, self, variant);
	ASSERT_EQ(0, cp_wait_state(variant->running ? "recording" : "idle", 0));
	ASSERT_EQ(0, cp_status_u64("sessions", &val));
	EXPECT_EQ(self->sessions + !variant->running, val);
}

/*
 * The capability is checked when the control file is opened, not at each
 * write (a privileged opener may hand the descriptor on), like any file.
 */
static void inherited_fd_checks(struct __test_metadata *_metadata, FIXTURE_DATA(perm) *self,
				const FIXTURE_VARIANT(perm) *variant)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "start pid=%d", self->child);
	if (variant->running) {
		ASSERT_ERRNO(EBUSY, write(self->fd, cmd, strlen(cmd)));
		return;
	}
	ASSERT_EQ((ssize_t)strlen(cmd), write(self->fd, cmd, strlen(cmd)))
		TH_LOG("write: %s", strerror(errno));
	ASSERT_EQ(0, cp_wait_state("recording", 0));
	ASSERT_EQ(4, write(self->fd, "stop", 4)) TH_LOG("write: %s", strerror(errno));
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
}

TEST_F(perm, inherited_fd)
{
	uint64_t val;

	self->fd = open(CP_CONTROL, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	as_nobody(_metadata, false, inherited_fd_checks, self, variant);
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, cp_wait_state(variant->running ? "recording" : "idle", 0));
	ASSERT_EQ(0, cp_status_u64("sessions", &val));
	EXPECT_EQ(self->sessions + !variant->running, val);
}

/* In a child pid namespace, as its pid 1: both ways to start are refused. */
static int in_child_ns(void)
{
	struct cp_nl nl;
	int status, ret;
	uint64_t id;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 8;
	if (pid) {
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return 8;
		return WEXITSTATUS(status);
	}
	if (cp_nl_open(&nl))
		_exit(10);
	ret = cp_nl_start(&nl, getpid(), 0, &id);
	if (ret != -EPERM || !strstr(nl.extack, "pid namespace")) {
		fprintf(stderr, "# netlink start: %d '%s'\n", ret, nl.extack);
		_exit(11);
	}
	ret = cp_control("start pid=1");
	if (ret != -EPERM) {
		fprintf(stderr, "# /proc start: %d\n", ret);
		_exit(12);
	}
	_exit(0);
}

/*
 * Records carry pids of the initial pid namespace, which a profiler in a
 * child one must not learn: a session started from a child pid namespace
 * is refused, EPERM with a message, over netlink and through /proc, and
 * cprof says why (unshare -p -f).
 */
TEST(child_pid_namespace)
{
	char cmd[PATH_MAX + 128], out[1024] = "";
	const char *cprof = getenv("CPROF");
	int status, code;
	size_t n;
	pid_t pid;
	FILE *f;

	ASSERT_EQ(0, cp_session_reset());
	/* A child unshares: after its pid 1 exits, its namespace takes no more. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (unshare(CLONE_NEWPID))
			_exit(9);
		_exit(in_child_ns());
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("11: netlink, 12: /proc, not refused; 8-10: broken");
	ASSERT_EQ(0, cp_session_reset());

	ASSERT_NE(NULL, cprof);
	snprintf(cmd, sizeof(cmd), "unshare -p -f %s record -o /tmp/pidns.data -- true 2>&1",
		 cprof);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	code = pclose(f);
	TH_LOG("cprof: %s", out);
	EXPECT_NE(0, code);
	EXPECT_NE(NULL, strstr(out, "pid namespace"));
	ASSERT_EQ(0, cp_session_reset());
}

TEST_HARNESS_MAIN
