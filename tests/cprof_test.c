// SPDX-License-Identifier: GPL-2.0
/*
 * cprof against the module: `cprof status` reports what /proc reports, says
 * so clearly when the module is not loaded, and usage errors (a bare cprof
 * among them) exit 2.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "helpers.h"

struct run {
	int status;
	char out[16384];
	char err[16384];
};

/* Drain a pipe into buf, keeping it NUL-terminated; false at EOF. */
static bool drain(int fd, char *buf, size_t size, size_t *len)
{
	char sink[4096];
	ssize_t n;

	if (*len < size - 1)
		n = read(fd, buf + *len, size - 1 - *len);
	else
		n = read(fd, sink, sizeof(sink));	/* keep the child unblocked */
	if (n <= 0)
		return false;
	if (*len < size - 1) {
		*len += n;
		buf[*len] = '\0';
	}
	return true;
}

/* Run argv with stdout and stderr captured; -errno if it could not run. */
static int run(char *const argv[], struct run *r)
{
	struct pollfd pfd[2];
	size_t olen = 0, elen = 0;
	int out[2], err[2], open_fds = 2;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(out, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		close(out[0]);
		close(out[1]);
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pid = -errno;
		close(out[0]);
		close(out[1]);
		close(err[0]);
		close(err[1]);
		return pid;
	}
	if (!pid) {
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		execv(argv[0], argv);
		dprintf(STDERR_FILENO, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	pfd[0] = (struct pollfd){ .fd = out[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = err[0], .events = POLLIN };
	while (open_fds) {
		if (poll(pfd, 2, 20000) <= 0) {
			kill(pid, SIGKILL);
			break;
		}
		if (pfd[0].revents && !drain(out[0], r->out, sizeof(r->out), &olen)) {
			pfd[0].fd = -1;
			open_fds--;
		}
		if (pfd[1].revents && !drain(err[0], r->err, sizeof(r->err), &elen)) {
			pfd[1].fd = -1;
			open_fds--;
		}
	}
	close(out[0]);
	close(err[0]);
	if (waitpid(pid, &r->status, 0) != pid)
		return -errno;
	return 0;
}

/* The value after "key" on a line of text, with the spacing trimmed. */
static bool line_value(const char *text, const char *key, char *val, size_t size)
{
	const char *line, *end;
	size_t klen = strlen(key), n;

	for (line = text; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		line += strspn(line, " \t");
		if (strncmp(line, key, klen))
			continue;
		line += klen;
		line += strspn(line, " \t");
		n = end - line;
		if (n >= size)
			return false;
		memcpy(val, line, n);
		val[n] = '\0';
		return true;
	}
	return false;
}

FIXTURE(cprof) {
	char *cprof;
	pid_t child;
};

FIXTURE_VARIANT(cprof) {
	bool running;
};

FIXTURE_VARIANT_ADD(cprof, idle) { .running = false };
FIXTURE_VARIANT_ADD(cprof, recording) { .running = true };

FIXTURE_SETUP(cprof)
{
	char cmd[64];

	self->cprof = getenv("CPROF");
	ASSERT_NE(NULL, self->cprof) TH_LOG("CPROF is not set: run under tests/vm/run");
	ASSERT_NE(NULL, cp_ko_path()) TH_LOG("CAUSALPROF_KO is not set: run under tests/vm/run");
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	self->child = cp_spawn_sleeper();
	ASSERT_GT(self->child, 0);
	if (variant->running) {
		snprintf(cmd, sizeof(cmd), "start pid=%d", self->child);
		ASSERT_EQ(0, cp_control(cmd));
	}
}

FIXTURE_TEARDOWN(cprof)
{
	EXPECT_EQ(0, cp_module_ensure_loaded());
	EXPECT_EQ(0, cp_session_reset());
	cp_kill(self->child);
}

TEST_F(cprof, status)
{
	char *argv[] = { self->cprof, "status", NULL };
	char state[32], printed[64];
	struct run r;

	ASSERT_EQ(0, run(argv, &r));
	ASSERT_TRUE(WIFEXITED(r.status)) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ(0, WEXITSTATUS(r.status)) TH_LOG("stderr: %s", r.err);
	ASSERT_TRUE(line_value(r.out, "causalprof", printed, sizeof(printed)))
		TH_LOG("no 'causalprof' line in:\n%s", r.out);
	EXPECT_STREQ(CP_VERSION, printed);
	ASSERT_TRUE(line_value(r.out, "state:", printed, sizeof(printed)))
		TH_LOG("no 'state:' line in:\n%s", r.out);
	ASSERT_EQ(0, cp_status_get("state", state, sizeof(state)));
	EXPECT_STREQ(variant->running ? "recording" : "idle", state);
	EXPECT_STREQ(state, printed);
	/* every counter line carries a label, and they agree with /proc */
	EXPECT_EQ(NULL, strstr(r.out, "(null)")) TH_LOG("stdout:\n%s", r.out);
	/* a counter the tool has no name for prints as "stat N" */
	EXPECT_EQ(NULL, strstr(r.out, "\nstat ")) TH_LOG("stdout:\n%s", r.out);
	ASSERT_TRUE(line_value(r.out, "records dropped:", printed, sizeof(printed)))
		TH_LOG("no 'records dropped:' line in:\n%s", r.out);
	/* (a running /proc session drops its records all the time) */
	ASSERT_EQ(0, cp_status_get("records_dropped", state, sizeof(state)));
	if (!variant->running)
		EXPECT_STREQ(state, printed);
	ASSERT_TRUE(line_value(r.out, "sessions:", printed, sizeof(printed)))
		TH_LOG("no 'sessions:' line in:\n%s", r.out);
	ASSERT_EQ(0, cp_status_get("sessions", state, sizeof(state)));
	EXPECT_STREQ(state, printed);
}

TEST_F(cprof, status_not_loaded)
{
	char *argv[] = { self->cprof, "status", NULL };
	struct run r;

	ASSERT_EQ(0, cp_module_unload());
	ASSERT_EQ(0, run(argv, &r));
	ASSERT_EQ(0, cp_module_load(cp_ko_path()));
	ASSERT_TRUE(WIFEXITED(r.status));
	EXPECT_EQ(1, WEXITSTATUS(r.status));
	EXPECT_NE(NULL, strstr(r.err, "not loaded")) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, CP_MODULE)) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
}

TEST_F(cprof, bogus_command)
{
	char *argv[] = { self->cprof, "bogus", NULL };
	struct run r;

	ASSERT_EQ(0, run(argv, &r));
	ASSERT_TRUE(WIFEXITED(r.status));
	EXPECT_EQ(2, WEXITSTATUS(r.status));
	EXPECT_NE(NULL, strstr(r.err, "usage")) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
}

/* As git and perf: a bare "cprof" is a usage error, its usage on stderr. */
TEST_F(cprof, no_arguments)
{
	char *argv[] = { self->cprof, NULL };
	struct run r;

	ASSERT_EQ(0, run(argv, &r));
	ASSERT_TRUE(WIFEXITED(r.status));
	EXPECT_EQ(2, WEXITSTATUS(r.status));
	EXPECT_NE(NULL, strstr(r.err, "usage: cprof <command>")) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
}

TEST_HARNESS_MAIN
