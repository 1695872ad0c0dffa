// SPDX-License-Identifier: GPL-2.0
/*
 * The programs of tests/targets/: spawned held or not, their stdout read
 * through a pipe, reaped bounded; the progress target driven by commands.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "helpers.h"
#include "internal.h"

/* The "thread TID CPU_NS LOOPS" lines of spin's output: returns how many. */
int cp_spin_parse(char *out, struct cp_spin_thread *th, int max)
{
	unsigned long long ns, loops;
	char *line, *save;
	int tid, n = 0;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "thread %d %llu %llu", &tid, &ns, &loops) != 3)
			continue;
		if (n == max)
			return -E2BIG;
		th[n++] = (struct cp_spin_thread){ .tid = tid, .cpu_ns = ns, .loops = loops };
	}
	return n;
}

/* build/tests/REL, next to the running test program. */
int cp_build_path(const char *rel, char *path, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	if ((size_t)snprintf(path, size, "%s/%s", dirname(exe), rel) >= size)
		return -ENAMETOOLONG;
	return access(path, X_OK) ? -errno : 0;
}

/* build/tests/targets/NAME. */
int cp_target_path(const char *name, char *path, size_t size)
{
	char rel[NAME_MAX + 16];

	if ((size_t)snprintf(rel, sizeof(rel), "targets/%s", name) >= sizeof(rel))
		return -ENAMETOOLONG;
	return cp_build_path(rel, path, size);
}

int cp_target_spawn(struct cp_target *t, char *const argv[], bool held)
{
	int go[2] = { -1, -1 }, out[2], ret;
	pid_t parent = getpid();
	char c;

	memset(t, 0, sizeof(*t));
	t->go = -1;
	t->out = -1;
	if (pipe2(out, O_CLOEXEC))
		return -errno;
	if (held && pipe2(go, O_CLOEXEC)) {
		ret = -errno;
		goto err_close_out;
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		ret = -errno;
		goto err_close_go;
	}
	if (!t->pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		if (dup2(out[1], STDOUT_FILENO) < 0)
			_exit(127);
		if (held) {
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(127);
		}
		execv(argv[0], argv);
		fprintf(stderr, "# exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	t->out = out[0];
	if (held) {
		close(go[0]);
		t->go = go[1];
	}
	return 0;

err_close_go:
	if (held) {
		close(go[0]);
		close(go[1]);
	}
err_close_out:
	close(out[0]);
	close(out[1]);
	return ret;
}

int cp_target_release(struct cp_target *t)
{
	int ret = 0;

	if (t->go < 0)
		return -EINVAL;
	if (write(t->go, "g", 1) != 1)
		ret = -errno;
	close(t->go);
	t->go = -1;
	return ret;
}

/*
 * The target's stdout until EOF, or until it holds the string until (if not
 * NULL): returns its length, NUL-terminated in buf.
 */
int cp_target_read(struct cp_target *t, char *buf, size_t size, const char *until,
		   int timeout_ms)
{
	int64_t deadline = cp_now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = t->out, .events = POLLIN };
	size_t len = 0;
	ssize_t n;
	int left;

	for (;;) {
		left = deadline - cp_now_ms();
		if (left < 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!pfd.revents)
			continue;
		if (len == size - 1)
			return -EFBIG;
		n = read(t->out, buf + len, size - 1 - len);
		if (n < 0)
			return -errno;
		if (!n)
			break;
		len += n;
		buf[len] = '\0';
		if (until && strstr(buf, until))
			break;
	}
	buf[len] = '\0';
	return len;
}

/* Reap the target, bounded: -ETIMEDOUT if it still runs. */
int cp_target_wait(struct cp_target *t, int timeout_ms)
{
	int64_t deadline = cp_now_ms() + timeout_ms;
	pid_t ret;

	while (!t->reaped) {
		ret = waitpid(t->pid, &t->status, WNOHANG);
		if (ret < 0)
			return -errno;
		if (ret == t->pid) {
			t->reaped = true;
			break;
		}
		if (cp_now_ms() > deadline)
			return -ETIMEDOUT;
		cp_sleep_ms(5);
	}
	return 0;
}

/* Kill and reap the target if need be, and close its pipes. */
void cp_target_kill(struct cp_target *t)
{
	if (t->pid > 0 && !t->reaped) {
		kill(t->pid, SIGKILL);
		if (waitpid(t->pid, &t->status, 0) == t->pid)
			t->reaped = true;
	}
	if (t->go >= 0)
		close(t->go);
	if (t->out >= 0)
		close(t->out);
	t->go = -1;
	t->out = -1;
}

void cp_prog_init(struct cp_prog *p)
{
	memset(p, 0, sizeof(*p));
	p->cmd = -1;
	p->t.go = -1;
	p->t.out = -1;
}

/*
 * The target, p->path, forked with the read end of its command pipe
 * (which it inherits), held until released when held.
 */
static int prog_fork(struct cp_prog *p, bool held)
{
	char fd[16];
	char *argv[] = { p->path, fd, NULL };
	int fds[2], ret;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	if (fcntl(fds[0], F_SETFD, 0)) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	snprintf(fd, sizeof(fd), "%d", fds[0]);
	ret = cp_target_spawn(&p->t, argv, held);
	close(fds[0]);
	if (ret) {
		close(fds[1]);
		return ret;
	}
	p->cmd = fds[1];
	p->pid = p->t.pid;
	return 0;
}

int cp_prog_spawn(struct cp_prog *p)
{
	char buf[256];
	unsigned long long tp, begin, end, check = 0;
	int ret;

	cp_prog_init(p);
	ret = cp_target_path("progress", p->path, sizeof(p->path));
	if (ret)
		return ret;
	ret = prog_fork(p, false);
	if (ret)
		return ret;
	ret = cp_target_read(&p->t, buf, sizeof(buf), "\n", 10000);
	if (ret < 0)
		return ret;
	if (sscanf(buf, "ready %d %llx %llx %llx %llx", &p->pid, &tp, &begin, &end, &check) < 4)
		return -EINVAL;
	p->tp = tp;
	p->begin = begin;
	p->end = end;
	p->check = check;
	if (cp_file_offset(p->pid, p->tp, &p->off_tp) ||
	    cp_file_offset(p->pid, p->begin, &p->off_begin) ||
	    cp_file_offset(p->pid, p->end, &p->off_end) ||
	    (p->check && cp_file_offset(p->pid, p->check, &p->off_check)))
		return -ENOENT;
	return 0;
}

int cp_prog_spawn_held(struct cp_prog *p, const char *path)
{
	cp_prog_init(p);
	if (snprintf(p->path, sizeof(p->path), "%s", path) >= (int)sizeof(p->path))
		return -ENAMETOOLONG;
	return prog_fork(p, true);
}

void cp_prog_kill(struct cp_prog *p)
{
	if (p->cmd >= 0)
		close(p->cmd);
	p->cmd = -1;
	cp_target_kill(&p->t);
}

/* Sends one command and reads the target's one-line answer. */
int cp_prog_cmd(struct cp_prog *p, const char *cmd, char *reply, size_t size)
{
	char buf[256];
	size_t len = strlen(cmd);
	int ret;

	if (write(p->cmd, cmd, len) != (ssize_t)len || write(p->cmd, "\n", 1) != 1)
		return -errno;
	ret = cp_target_read(&p->t, reply ?: buf, reply ? size : sizeof(buf), "\n", 60000);
	return ret < 0 ? ret : 0;
}

int cp_prog_call(struct cp_prog *p, long n, int threads)
{
	char cmd[64], reply[64];
	long done;
	int ret;

	snprintf(cmd, sizeof(cmd), "call %ld %d", n, threads);
	ret = cp_prog_cmd(p, cmd, reply, sizeof(reply));
	if (ret)
		return ret;
	return sscanf(reply, "called %ld", &done) == 1 && done == n ? 0 : -EPROTO;
}

/* spin -t THREADS -s 0: busy until killed, once it has said so. */
int cp_spin_spawn(struct cp_target *t, const char *threads)
{
	char path[PATH_MAX], out[64];
	char *argv[] = { path, "-t", (char *)threads, "-s", "0", NULL };
	int ret;

	ret = cp_target_path("spin", path, sizeof(path));
	if (ret)
		return ret;
	ret = cp_target_spawn(t, argv, false);
	if (ret)
		return ret;
	ret = cp_target_read(t, out, sizeof(out), "\n", CP_WAIT_MS);
	if (!ret)
		return -ENODATA;
	return ret < 0 ? ret : 0;
}

int cp_causal_spawn(struct cp_target *t, const char *path, const char *mode,
		    const char *seconds, struct cp_causal *c)
{
	char *argv[] = { (char *)path, (char *)mode, (char *)seconds, NULL };
	char buf[256];
	int ret;

	memset(c, 0, sizeof(*c));
	ret = cp_target_spawn(t, argv, false);
	if (ret)
		return ret;
	ret = cp_target_read(t, buf, sizeof(buf), "\n", 10000);
	if (ret < 0)
		return ret;
	ret = sscanf(buf, "ready %d %d %d %llx %llx %llx", &c->pid, &c->a, &c->b, &c->start,
		     &c->end, &c->ret);
	return ret < 5 ? -EINVAL : ret;
}
