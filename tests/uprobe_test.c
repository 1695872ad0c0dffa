// SPDX-License-Identifier: GPL-2.0
/*
 * What a progress point may probe (Documentation/security.rst, hole 3),
 * over netlink, each refusal EINVAL with an extack message that says why:
 * a path through a symbolic link (the last component or a directory), a
 * FIFO, a device, a file that is not ELF, an offset outside the file's
 * executable segments (its ELF header), and an offset inside an
 * instruction where uprobes decodes none it can step (the immediate of a
 * mov in this test's own text, a 0x06 byte: invalid in 64-bit mode). And
 * where the breakpoint goes: into the targets only. A process that is not
 * a target, running the same binary since before the point was placed,
 * never has it (its /proc/PID/mem byte stays the file's) and never traps
 * (progress/ignored unchanged, its calls not counted); nor does one
 * running a file no target maps.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define INT3	0xcc

/* movl $0x06060606, %eax; ret: the immediate starts one byte in. */
__asm__(".pushsection .text\n"
	".globl uprobe_test_imm\n"
	".type uprobe_test_imm, @function\n"
	"uprobe_test_imm:\n"
	"\tmovl $0x06060606, %eax\n"
	"\tret\n"
	".size uprobe_test_imm, .-uprobe_test_imm\n"
	".popsection\n");
extern char uprobe_test_imm[];

FIXTURE(uprobe) {
	struct cp_nl nl;
	struct cp_prog a, b;
	char path[PATH_MAX];
	char dir[PATH_MAX];
	pid_t child;
};

FIXTURE_SETUP(uprobe)
{
	cp_prog_init(&self->a);
	cp_prog_init(&self->b);
	self->child = 0;
	self->nl.fd = -1;
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	snprintf(self->dir, sizeof(self->dir), "/tmp/uprobe_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(uprobe)
{
	char cmd[PATH_MAX + 16];

	if (self->nl.fd >= 0)
		cp_nl_close(&self->nl);
	EXPECT_EQ(0, cp_session_reset());
	cp_prog_kill(&self->a);
	cp_prog_kill(&self->b);
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
}

static int session_start(struct cp_nl *nl, pid_t pid)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(100);
	uint64_t id;

	return cp_nl_start_events(nl, pid, 0, &ev, 1, &id);
}

static int add_tp(struct cp_nl *nl, uint32_t id, const char *path, uint64_t off)
{
	return cp_nl_progress_add(nl, id, CAUSALPROF_PP_THROUGHPUT, path, off, 0);
}

/* count=N of point id in /proc/causalprof/progress; -1 without one. */
static int64_t point_count(int id)
{
	char buf[4096], pat[32], *p;
	ssize_t n;
	int fd;

	fd = open(CP_PROC_DIR "/progress", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	snprintf(pat, sizeof(pat), "id=%d ", id);
	p = strstr(buf, pat);
	if (!p || !(p = strstr(p, " count=")))
		return -1;
	return strtoll(p + 7, NULL, 10);
}

static int64_t ignored(struct __test_metadata *_metadata)
{
	uint64_t val = 0;

	EXPECT_EQ(0, cp_debugfs_u64("progress/ignored", &val));
	return val;
}

/* The request fails with err and an extack message holding what. */
#define EXPECT_BAD(err, what, expr) do {						\
	EXPECT_EQ(err, (expr));								\
	EXPECT_NE(NULL, strstr(self->nl.extack, what))					\
		TH_LOG("%s: extack '%s' does not name %s", #expr, self->nl.extack, what);	\
} while (0)

TEST_F(uprobe, refused_files)
{
	char link[PATH_MAX + 32], dlink[PATH_MAX + 32], via[2 * PATH_MAX], fifo[PATH_MAX + 32];
	static const char script[] = "#!/bin/sh\n# a script, some 64 bytes long ...........\n";
	char text[PATH_MAX + 32];
	const char *base;
	int fd;

	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	ASSERT_EQ(0, session_start(&self->nl, self->a.pid)) TH_LOG("%s", self->nl.extack);

	/* The real path works: the checks below refuse what they name only. */
	ASSERT_EQ(0, add_tp(&self->nl, 1, self->a.path, self->a.off_tp)) TH_LOG("%s",
										 self->nl.extack);
	ASSERT_EQ(INT3, cp_mem_byte(self->a.pid, self->a.tp));
	ASSERT_EQ(0, cp_nl_progress_del(&self->nl, 1));

	snprintf(link, sizeof(link), "%s/link", self->dir);
	ASSERT_EQ(0, symlink(self->a.path, link));
	EXPECT_BAD(-EINVAL, "symbolic link", add_tp(&self->nl, 2, link, self->a.off_tp));

	/* A link among the directories. */
	snprintf(dlink, sizeof(dlink), "%s/dir", self->dir);
	strcpy(via, self->a.path);
	*strrchr(via, '/') = '\0';
	ASSERT_EQ(0, symlink(via, dlink));
	base = strrchr(self->a.path, '/');
	snprintf(via, sizeof(via), "%s%s", dlink, base);
	ASSERT_EQ(0, access(via, R_OK));
	EXPECT_BAD(-EINVAL, "symbolic link", add_tp(&self->nl, 3, via, self->a.off_tp));

	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	EXPECT_BAD(-EINVAL, "regular file", add_tp(&self->nl, 4, fifo, 0));
	EXPECT_BAD(-EINVAL, "regular file", add_tp(&self->nl, 5, "/dev/null", 0));
	EXPECT_BAD(-EINVAL, "regular file", add_tp(&self->nl, 6, "/dev/zero", 0));

	/* A regular file, not ELF: a script is no place for a breakpoint. */
	snprintf(text, sizeof(text), "%s/script", self->dir);
	fd = open(text, O_WRONLY | O_CREAT | O_EXCL, 0755);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)sizeof(script) - 1, write(fd, script, sizeof(script) - 1));
	close(fd);
	EXPECT_BAD(-EINVAL, "ELF", add_tp(&self->nl, 7, text, 16));

	/* The ELF header and the data: no executable segment there. */
	EXPECT_BAD(-EINVAL, "executable segment", add_tp(&self->nl, 8, self->a.path, 0));
	EXPECT_BAD(-EINVAL, "executable segment", add_tp(&self->nl, 9, self->a.path, 0x40));

	/* Nothing was placed: the target runs its own code, uncounted. */
	ASSERT_EQ(-1, point_count(2));
	ASSERT_EQ(cp_byte_at(self->a.path, self->a.off_tp), cp_mem_byte(self->a.pid, self->a.tp));
	ASSERT_EQ(0, cp_prog_call(&self->a, 10, 1));
}

/* An offset inside an instruction whose bytes there decode as none. */
TEST_F(uprobe, mid_instruction)
{
	char exe[PATH_MAX];
	uint64_t off;
	ssize_t n;
	int go[2];
	char c;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = '\0';
	ASSERT_EQ(0, pipe(go));
	/* A copy of this process, mapping this file: the session's target. */
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (!self->child) {
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	ASSERT_EQ(0, cp_file_offset(self->child, (uintptr_t)uprobe_test_imm, &off));
	ASSERT_EQ(0xb8, cp_byte_at(exe, off));
	ASSERT_EQ(0x06, cp_byte_at(exe, off + 1));
	ASSERT_EQ(0, session_start(&self->nl, self->child)) TH_LOG("%s", self->nl.extack);

	EXPECT_BAD(-EINVAL, "instruction", add_tp(&self->nl, 1, exe, off + 1));
	EXPECT_EQ(0x06, cp_mem_byte(self->child, (uintptr_t)uprobe_test_imm + 1));
	/* The instruction's start is fine. */
	EXPECT_EQ(0, add_tp(&self->nl, 2, exe, off)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(INT3, cp_mem_byte(self->child, (uintptr_t)uprobe_test_imm));
	close(go[1]);
}

/*
 * A process that is not a target, running the same binary since before
 * the point: no breakpoint, no trap, not counted.
 */
TEST_F(uprobe, non_target_never_traps)
{
	int64_t before;
	int orig;

	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	ASSERT_EQ(0, cp_prog_spawn(&self->b));
	ASSERT_EQ(self->a.off_tp, self->b.off_tp);
	orig = cp_byte_at(self->a.path, self->a.off_tp);
	ASSERT_NE(INT3, orig);
	ASSERT_EQ(0, session_start(&self->nl, self->a.pid)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, add_tp(&self->nl, 1, self->a.path, self->a.off_tp)) TH_LOG("%s",
										 self->nl.extack);
	ASSERT_EQ(INT3, cp_mem_byte(self->a.pid, self->a.tp));
	EXPECT_EQ(orig, cp_mem_byte(self->b.pid, self->b.tp));

	before = ignored(_metadata);
	ASSERT_EQ(0, cp_prog_call(&self->b, 1000, 1));
	EXPECT_EQ(0, point_count(1));
	EXPECT_EQ(before, ignored(_metadata));
	EXPECT_EQ(orig, cp_mem_byte(self->b.pid, self->b.tp));

	ASSERT_EQ(0, cp_prog_call(&self->a, 100, 1));
	EXPECT_EQ(100, point_count(1));
	EXPECT_EQ(before, ignored(_metadata));
}

/* A point on a file that only a process that is not a target runs. */
TEST_F(uprobe, file_no_target_maps)
{
	char copy[PATH_MAX + 32], cmd[3 * PATH_MAX];
	int64_t before;
	int orig;

	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	snprintf(copy, sizeof(copy), "%s/progress", self->dir);
	snprintf(cmd, sizeof(cmd), "cp %s %s", self->a.path, copy);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, session_start(&self->nl, self->a.pid)) TH_LOG("%s", self->nl.extack);
	/* b runs the copy, started after the session: not a target. */
	{
		char fd[16], buf[256];
		char *argv[] = { copy, fd, NULL };
		unsigned long long tp, begin, end;
		int fds[2];

		ASSERT_EQ(0, pipe2(fds, O_CLOEXEC));
		ASSERT_EQ(0, fcntl(fds[0], F_SETFD, 0));
		snprintf(fd, sizeof(fd), "%d", fds[0]);
		ASSERT_EQ(0, cp_target_spawn(&self->b.t, argv, false));
		close(fds[0]);
		self->b.cmd = fds[1];
		ASSERT_LT(0, cp_target_read(&self->b.t, buf, sizeof(buf), "\n", 10000));
		ASSERT_EQ(4, sscanf(buf, "ready %d %llx %llx %llx", &self->b.pid, &tp, &begin,
				    &end));
		self->b.tp = tp;
		ASSERT_EQ(0, cp_file_offset(self->b.pid, self->b.tp, &self->b.off_tp));
	}
	orig = cp_byte_at(copy, self->b.off_tp);
	ASSERT_EQ(0, add_tp(&self->nl, 1, copy, self->b.off_tp)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(orig, cp_mem_byte(self->b.pid, self->b.tp));
	before = ignored(_metadata);
	ASSERT_EQ(0, cp_prog_call(&self->b, 1000, 1));
	EXPECT_EQ(0, point_count(1));
	EXPECT_EQ(before, ignored(_metadata));
}

TEST_HARNESS_MAIN
