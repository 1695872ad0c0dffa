// SPDX-License-Identifier: GPL-2.0
/*
 * What /proc/causalprof shows to whom. root runs a /proc session on
 * tests/targets/causal with an experiment selecting A's code and a
 * progress point in the program's file. A reader with CAP_PERFMON or
 * CAP_SYS_ADMIN sees the experiment's ranges, its threads and the probed
 * file and offsets; an unprivileged one (nobody) only states and counters.
 * Pids are in the reader's pid namespace: a reader in a new one, which
 * sees neither the target nor its threads, gets no pid of theirs.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <linux/capability.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define NOBODY		65534
#define CP_PROGRESS	CP_PROC_DIR "/progress"

FIXTURE(view) {
	pid_t self_pid;		/* the test process, not its children */
	struct cp_target target;
	struct cp_causal c;	/* the causal target's ready line */
	char path[PATH_MAX];
	char text[1 << 16];
};

FIXTURE_SETUP(view)
{
	char cmd[PATH_MAX + 128];
	uint64_t off;

	self->self_pid = getpid();
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_target_path("causal", self->path, sizeof(self->path)));
	ASSERT_EQ(5, cp_causal_spawn(&self->target, self->path, "spin", "0", &self->c));
	snprintf(cmd, sizeof(cmd), "start pid=%d event=cpu-clock freq=1000", self->c.pid);
	ASSERT_EQ(0, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "experiment start speedup=0 range=%d:0x%llx-0x%llx",
		 self->c.pid, self->c.start, self->c.end);
	ASSERT_EQ(0, cp_control(cmd));
	ASSERT_EQ(0, cp_file_offset(self->c.pid, self->c.start, &off));
	snprintf(cmd, sizeof(cmd), "progress add id=7 kind=throughput path=%s offset=0x%llx",
		 self->path, (unsigned long long)off);
	ASSERT_EQ(0, cp_control(cmd));
	usleep(500000);		/* A and B take their slots */
}

FIXTURE_TEARDOWN(view)
{
	/* a failed assertion in a child lands here too */
	if (getpid() != self->self_pid)
		return;
	EXPECT_EQ(0, cp_session_reset());
	cp_target_kill(&self->target);
}

/* The line "task: TID ..." of tid is there. */
static bool has_task(const char *text, pid_t tid)
{
	char pat[32];

	snprintf(pat, sizeof(pat), "\ntask: %d ", tid);
	return strstr(text, pat);
}

TEST_F(view, privileged)
{
	char range[128];

	ASSERT_EQ(0, cp_exp_read(self->text, sizeof(self->text)));
	snprintf(range, sizeof(range), "\nrange: %d:0x%llx-0x%llx\n", self->c.pid, self->c.start,
		 self->c.end);
	EXPECT_NE(NULL, strstr(self->text, range)) TH_LOG("%s", self->text);
	EXPECT_TRUE(has_task(self->text, self->c.a));
	EXPECT_TRUE(has_task(self->text, self->c.b));
	ASSERT_EQ(0, cp_read_text(CP_PROGRESS, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, " path=")) TH_LOG("%s", self->text);
	EXPECT_NE(NULL, strstr(self->text, " offset=0x"));
}

/* Run fn in a child; it passes or fails the test. */
static void in_child(struct __test_metadata *_metadata, FIXTURE_DATA(view) *self,
		     void (*fn)(struct __test_metadata *, FIXTURE_DATA(view) *))
{
	CP_IN_CHILD("the child", fn(_metadata, self));
}

static void nobody_reads(struct __test_metadata *_metadata, FIXTURE_DATA(view) *self)
{
	int64_t hits;

	ASSERT_EQ(0, cp_become(NOBODY, 0, false));
	ASSERT_EQ(0, cp_exp_read(self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "\nstate: running\n"));
	EXPECT_EQ(0, cp_exp_i64(self->text, "hits", &hits));
	EXPECT_EQ(NULL, strstr(self->text, "\nrange:")) TH_LOG("code addresses shown");
	EXPECT_EQ(NULL, strstr(self->text, "\ntask:")) TH_LOG("thread ids shown");
	ASSERT_EQ(0, cp_read_text(CP_PROGRESS, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "\nid=7 kind=throughput")) TH_LOG("%s", self->text);
	EXPECT_EQ(NULL, strstr(self->text, "path=")) TH_LOG("the probed path shown");
	EXPECT_EQ(NULL, strstr(self->text, "offset=")) TH_LOG("the probed offset shown");
	ASSERT_LT(0, cp_status_read(self->text, sizeof(self->text)));
}

TEST_F(view, unprivileged)
{
	in_child(_metadata, self, nobody_reads);
}

/* In a new pid namespace, as its init: the target and its threads are not there. */
static void other_ns_reads(struct __test_metadata *_metadata, FIXTURE_DATA(view) *self)
{
	char range[128], target[32];
	int status;
	pid_t pid;

	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid) {
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
		return;
	}
	ASSERT_EQ(1, getpid());
	ASSERT_EQ(0, cp_exp_read(self->text, sizeof(self->text)));
	snprintf(range, sizeof(range), "\nrange: %d:", self->c.pid);
	EXPECT_EQ(NULL, strstr(self->text, range)) TH_LOG("a pid of another namespace");
	EXPECT_NE(NULL, strstr(self->text, "\nrange: 0:")) TH_LOG("%s", self->text);
	EXPECT_FALSE(has_task(self->text, self->c.a));
	EXPECT_FALSE(has_task(self->text, self->c.b));
	EXPECT_EQ(NULL, strstr(self->text, "\ntask:")) TH_LOG("%s", self->text);
	ASSERT_EQ(0, cp_status_get("target_pid", target, sizeof(target)));
	EXPECT_STREQ("0", target);
	_exit(_metadata->passed ? 0 : 1);
}

TEST_F(view, other_pid_namespace)
{
	in_child(_metadata, self, other_ns_reads);
}

TEST_HARNESS_MAIN
