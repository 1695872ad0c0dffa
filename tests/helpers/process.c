// SPDX-License-Identifier: GPL-2.0
/*
 * Processes the tests act on or as: credentials and capabilities, a
 * sleeping child, another process's memory, maps and CPU time.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>

#include "helpers.h"
#include "internal.h"

int cp_become(uid_t uid, uint64_t caps, bool dumpable)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct want[_LINUX_CAPABILITY_U32S_3] = {};
	struct __user_cap_data_struct got[_LINUX_CAPABILITY_U32S_3] = {};
	int i;

	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		want[i].effective = caps >> (32 * i);
		want[i].permitted = caps >> (32 * i);
	}
	if (caps && prctl(PR_SET_KEEPCAPS, 1))
		return -errno;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	if (syscall(SYS_capset, &hdr, want) || syscall(SYS_capget, &hdr, got))
		return -errno;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (got[i].effective != want[i].effective || got[i].permitted != want[i].permitted)
			return -EPERM;
	if (dumpable && prctl(PR_SET_DUMPABLE, 1))
		return -errno;
	return getuid() == uid && geteuid() == uid && getgid() == uid ? 0 : -EPERM;
}

/* A child that sleeps until killed, and dies with its parent. */
pid_t cp_spawn_sleeper(void)
{
	pid_t parent = getpid(), pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	return pid;
}

void cp_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A pid that existed a moment ago and has been reaped: nobody has it now. */
pid_t cp_dead_pid(void)
{
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(0);
	if (waitpid(pid, NULL, 0) != pid)
		return -errno;
	return pid;
}

int cp_peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, addr);
	if (n < 0)
		n = -errno;
	close(fd);
	return n == (ssize_t)len ? 0 : n < 0 ? n : -EIO;
}

int cp_peek_u64(pid_t pid, uint64_t addr, uint64_t *val)
{
	return cp_peek(pid, addr, val, sizeof(*val));
}

/* One line of /proc/PID/maps. */
struct mapping {
	unsigned long long start, end, pgoff;
	char perms[8];
	char path[PATH_MAX];
};

/* The first mapping of @pid that @pick takes: 0, or -ENOENT if it takes none. */
static int find_mapping(pid_t pid, bool (*pick)(const struct mapping *m, void *arg), void *arg)
{
	char path[64], line[PATH_MAX + 128];
	int ret = -ENOENT;
	struct mapping m;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		m.path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &m.start, &m.end, m.perms,
			   &m.pgoff, m.path) >= 4 && pick(&m, arg))
			ret = 0;
	}
	fclose(f);
	return ret;
}

struct offset_query {
	uint64_t addr, off;
};

static bool has_addr(const struct mapping *m, void *arg)
{
	struct offset_query *q = arg;

	if (q->addr < m->start || q->addr >= m->end)
		return false;
	q->off = q->addr - m->start + m->pgoff;
	return true;
}

int cp_file_offset(pid_t pid, uint64_t addr, uint64_t *off)
{
	struct offset_query q = { .addr = addr };
	int ret = find_mapping(pid, has_addr, &q);

	if (!ret)
		*off = q.off;
	return ret;
}

struct code_query {
	const char *suffix;
	struct causalprof_exp_range *r;
	pid_t pid;
};

static bool is_code_of(const struct mapping *m, void *arg)
{
	struct code_query *q = arg;
	size_t n = strlen(q->suffix), len = strlen(m->path);

	if (strcmp(m->perms, "r-xp") || len < n || strcmp(m->path + len - n, q->suffix))
		return false;
	*q->r = (struct causalprof_exp_range){ .pid = q->pid, .start = m->start, .end = m->end };
	return true;
}

int cp_code_range(pid_t pid, const char *suffix, struct causalprof_exp_range *r)
{
	struct code_query q = { .suffix = suffix, .r = r, .pid = pid };

	return find_mapping(pid, is_code_of, &q);
}

int cp_byte_at(const char *file, uint64_t off)
{
	uint8_t c;
	int fd, n;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, &c, 1, off);
	close(fd);
	return n == 1 ? c : -EIO;
}

int cp_mem_byte(pid_t pid, uint64_t addr)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	return cp_byte_at(path, addr);
}

long long cp_thread_ticks(pid_t pid, pid_t tid)
{
	unsigned long long ut, st;
	char path[64], buf[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return -1;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return ut + st;
}

bool cp_thread_runs(pid_t pid, pid_t tid)
{
	long long t0 = cp_thread_ticks(pid, tid), t1;
	int i;

	for (i = 0; i < 20; i++) {
		usleep(100000);
		t1 = cp_thread_ticks(pid, tid);
		if (t0 >= 0 && t1 > t0 + 5)
			return true;
	}
	return false;
}
