// SPDX-License-Identifier: GPL-2.0
/*
 * A progress point added on a file whose reads never come back (a FUSE
 * file system that takes every read and answers none,
 * tests/tools/fusestall) keeps its adder waiting in the kernel for as long
 * as the file system likes. Nobody else may wait with it: the session's
 * stop, an experiment's timeout and rmmod (which refuses while an add is
 * under way, or unloads) finish within a few seconds meanwhile. Once the
 * file system dies, the adder's write fails and the module unloads. And a
 * session's start on a process whose mmap_lock stays taken returns too.
 *
 * Every step that could wait on the module runs in a child given a few
 * seconds; on a module that parks its lock they run over, the test fails,
 * and the teardown kills the file system, which lets everything go.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "helpers.h"
#include "helpers/path.h"

#define MNT		"/tmp/cp-stall"
#define FILE_ON_MNT	MNT "/prog"
#define QUICK_MS	3000

FIXTURE(stall) {
	pid_t fuse;		/* the file system */
	pid_t sleeper;		/* the session's target */
	pid_t adder;		/* writes "progress add", then waits */
	pid_t left;		/* a test's child that ran over */
	bool stalled;		/* the add waits in the file system */
};

/* Starts fusestall on MNT and waits for its "ready". */
static pid_t fuse_start(void)
{
	char tool[PATH_MAX], line[16] = "";
	struct pollfd pfd;
	int out[2];
	pid_t pid;

	if (cp_build_path("tools/fusestall", tool, sizeof(tool)) || pipe(out))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(out[1], STDOUT_FILENO);
		execl(tool, tool, MNT, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	pfd = (struct pollfd){ .fd = out[0], .events = POLLIN };
	if (poll(&pfd, 1, 10000) != 1 || read(out[0], line, sizeof(line) - 1) <= 0 ||
	    strncmp(line, "ready", 5)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(out[0]);
	return pid;
}

/*
 * The module idle and fusestall mounted on MNT: its pid, 0 without
 * /dev/fuse, or -1.
 */
static pid_t fuse_setup(void)
{
	if (cp_module_ensure_loaded() || cp_session_reset())
		return -1;
	if (access("/dev/fuse", F_OK) && system("modprobe fuse"))
		return 0;
	if (mkdir(MNT, 0755) && errno != EEXIST)
		return -1;
	/* A test that failed before left the mount of a file system now dead. */
	umount2(MNT, MNT_DETACH);
	return fuse_start();
}

/* Waits up to ms for child; its exit status, or -1 if it still runs. */
static int child_wait(pid_t child, int ms, int64_t *took)
{
	int64_t start = cp_now_ms();
	int status;

	for (;;) {
		if (waitpid(child, &status, WNOHANG) == child) {
			*took = cp_now_ms() - start;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		}
		if (cp_now_ms() - start > ms) {
			*took = cp_now_ms() - start;
			return -1;
		}
		cp_sleep_ms(10);
	}
}

/* Whether pid sleeps waiting for a FUSE request's answer. */
static bool in_fuse(pid_t pid)
{
	char path[64], wchan[64] = "";

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	return !cp_read_str(path, wchan, sizeof(wchan)) &&
	       (strstr(wchan, "request_wait_answer") || strstr(wchan, "fuse"));
}

FIXTURE_SETUP(stall)
{
	char cmd[256];
	int i;

	self->sleeper = self->adder = self->left = -1;
	self->fuse = fuse_setup();
	if (!self->fuse)
		SKIP(return, "no /dev/fuse");
	ASSERT_LT(0, self->fuse) TH_LOG("cannot mount fusestall on " MNT);
	self->sleeper = cp_spawn_sleeper();
	ASSERT_LT(0, self->sleeper);

	snprintf(cmd, sizeof(cmd), "start pid=%d", self->sleeper);
	ASSERT_EQ(0, cp_control(cmd));
	/* An experiment that stops by itself after a second. */
	ASSERT_EQ(0, cp_module_param_set("max_experiment_s", 1));
	snprintf(cmd, sizeof(cmd), "experiment start speedup=500 range=%d:0x1000-0x2000",
		 self->sleeper);
	ASSERT_EQ(0, cp_control(cmd));

	/* The add reads the file's ELF header: that read never returns. */
	self->adder = fork();
	ASSERT_LE(0, self->adder);
	if (!self->adder) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(-cp_control("progress add id=1 kind=throughput path=" FILE_ON_MNT
				  " offset=0x1000") & 0xff);
	}
	/* Not asserted: the teardown, which lets everything go, runs only after the body. */
	for (i = 0; i < 500 && !self->stalled; i++) {
		cp_sleep_ms(10);
		self->stalled = in_fuse(self->adder);
	}
}

FIXTURE_TEARDOWN(stall)
{
	int64_t took;
	int status;

	/* The file system's death ends the read: the add fails. */
	if (self->fuse > 0) {
		kill(self->fuse, SIGKILL);
		waitpid(self->fuse, NULL, 0);
	}
	if (self->adder > 0) {
		status = child_wait(self->adder, 10000, &took);
		EXPECT_NE(0, status) TH_LOG("the add succeeded, or still waits: %d", status);
	}
	if (self->left > 0)
		child_wait(self->left, 10000, &took);
	umount2(MNT, MNT_DETACH);
	cp_kill(self->sleeper);
	/* Once the add is over, the module unloads (and comes back, defaults on). */
	EXPECT_EQ(0, cp_module_reload(""));
}

/*
 * Runs fn(arg) in a child for at most ms: its exit status, or -1 when it
 * still runs (then *left is the child, for the teardown to reap once the
 * file system is gone).
 */
static int bounded(int (*fn)(const void *), const void *arg, int ms, pid_t *left)
{
	int64_t took;
	pid_t child;
	int ret;

	child = fork();
	if (child < 0)
		return -2;
	if (!child)
		_exit(fn(arg));
	ret = child_wait(child, ms, &took);
	if (ret < 0)
		*left = child;
	printf("# %s after %lld ms\n", ret < 0 ? "still waiting" : "done",
	       (long long)took);
	return ret;
}

static int control(const void *cmd)
{
	return -cp_control(cmd) & 0xff;
}

static int wait_idle(const void *arg)
{
	return -cp_wait_state("idle", QUICK_MS) & 0xff;
}

/* 0 when the experiment is stopped, 2 when it runs. */
static int exp_stopped(const void *arg)
{
	char text[4096];

	if (cp_exp_read(text, sizeof(text)))
		return 1;
	return strstr(text, "\nstate: stopped\n") ? 0 : 2;
}

static int unload(const void *arg)
{
	return -cp_module_unload() & 0xff;
}

/* The starter's stop, while the add waits. */
TEST_F(stall, stop)
{
	/* The 6.1 harness runs the body after a SKIP in the setup. */
	if (!self->fuse)
		SKIP(return, "no /dev/fuse");
	ASSERT_TRUE(self->stalled) TH_LOG("the add does not wait on the file");
	ASSERT_EQ(0, bounded(control, "stop", QUICK_MS, &self->left))
		TH_LOG("the stop waited for the add");
	EXPECT_EQ(0, bounded(wait_idle, NULL, QUICK_MS + 1000, &self->left));
}

/* The experiment's timeout, and a reader of its state, while the add waits. */
TEST_F(stall, experiment_timeout)
{
	/* The 6.1 harness runs the body after a SKIP in the setup. */
	if (!self->fuse)
		SKIP(return, "no /dev/fuse");
	ASSERT_TRUE(self->stalled) TH_LOG("the add does not wait on the file");
	cp_sleep_ms(2000);
	EXPECT_EQ(0, bounded(exp_stopped, NULL, QUICK_MS, &self->left))
		TH_LOG("-1: the read waited; 2: the experiment still runs after 2 s");
}

/* rmmod refuses (the module is busy with the add) or unloads, at once. */
TEST_F(stall, rmmod)
{
	int ret;

	/* The 6.1 harness runs the body after a SKIP in the setup. */
	if (!self->fuse)
		SKIP(return, "no /dev/fuse");
	ASSERT_TRUE(self->stalled) TH_LOG("the add does not wait on the file");
	ret = bounded(unload, NULL, QUICK_MS, &self->left);
	TH_LOG("rmmod: %d (%s)", ret, ret > 0 ? strerror(ret) : "-");
	EXPECT_TRUE(ret == 0 || ret == EWOULDBLOCK) TH_LOG("rmmod waited for the add");
}

/*
 * The initial dump of a session's target takes its mmap_lock, which a
 * process may keep taken for as long as a file system likes
 * (tests/targets/mmaplock): the start leaves that process's mappings out
 * (counted as sideband records lost) and returns within a few seconds.
 */
FIXTURE(dump) {
	pid_t fuse;
	struct cp_target locked;
	pid_t left;		/* the start, if it ran over */
};

FIXTURE_SETUP(dump)
{
	self->left = -1;
	memset(&self->locked, 0, sizeof(self->locked));
	self->fuse = fuse_setup();
	if (!self->fuse)
		SKIP(return, "no /dev/fuse");
	ASSERT_LT(0, self->fuse) TH_LOG("cannot mount fusestall on " MNT);
}

FIXTURE_TEARDOWN(dump)
{
	int64_t took;

	if (self->fuse > 0) {
		kill(self->fuse, SIGKILL);
		waitpid(self->fuse, NULL, 0);
	}
	if (self->left > 0)
		child_wait(self->left, 10000, &took);
	cp_target_kill(&self->locked);
	umount2(MNT, MNT_DETACH);
	EXPECT_EQ(0, cp_session_reset());
}

TEST_F(dump, locked_target)
{
	char path[PATH_MAX], *argv[] = { path, FILE_ON_MNT, NULL }, line[64], cmd[64];
	uint64_t lost;

	/* The 6.1 harness runs the body after a SKIP in the setup. */
	if (!self->fuse)
		SKIP(return, "no /dev/fuse");

	ASSERT_EQ(0, cp_target_path("mmaplock", path, sizeof(path)));
	ASSERT_EQ(0, cp_target_spawn(&self->locked, argv, false));
	ASSERT_LT(0, cp_target_read(&self->locked, line, sizeof(line), "ready", 5000));
	cp_sleep_ms(300);

	snprintf(cmd, sizeof(cmd), "start pid=%d", self->locked.pid);
	ASSERT_EQ(0, bounded(control, cmd, QUICK_MS, &self->left))
		TH_LOG("the start waited for the target's mmap_lock");
	ASSERT_EQ(0, cp_status_u64("sideband_lost", &lost));
	EXPECT_LT(0ULL, lost) TH_LOG("the mappings left out are not counted");
}

TEST_HARNESS_MAIN
