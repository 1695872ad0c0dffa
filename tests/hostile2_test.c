// SPDX-License-Identifier: GPL-2.0
/*
 * The second security pass (Documentation/security.rst): what a hostile
 * local user tried, each as the user it takes, on the module's checks.
 *
 * - perfmon_root_*: root holding only CAP_PERFMON may not change a root
 *   process that holds every capability (the capability part of the
 *   ptrace rule: the target's permitted set within the caller's);
 * - setuid_exec_*: a progress point a user put in its own process stops
 *   counting when the process execs a setuid-root program, and the session
 *   hears of it (a CAUSALPROF_REC_DENIED record);
 * - zombie_leader: a non-dumpable process whose leader exited is not
 *   judged by the leader, which has no memory left;
 * - unreadable_file: a point on a file the caller may not read is refused,
 *   with one error whatever the file holds;
 * - tgid_reuse: a target that exits while its session starts leaves
 *   nothing behind for the next process of its pid;
 * - event_name_latin1: event names are printable ASCII, not Latin-1;
 * - elf_headers_as_code: in a file whose first PT_LOAD is executable, the
 *   ELF and program headers are not code;
 * - wake_payment_user_worker: a target's vhost worker (6.12's
 *   PF_USER_WORKER thread, which never returns to user mode), woken by a
 *   target thread that owes delay, gets no payment that would keep the
 *   module loaded.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/vhost.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define USER		1000
#define PERFMON		(1ULL << CAP_PERFMON)
#define SCRATCH		"/tmp/cp-hostile2"
#define CALLS		100

FIXTURE(hostile2) {
	pid_t pid;		/* the test process */
	struct cp_prog prog;	/* root's, every capability */
};

FIXTURE_SETUP(hostile2)
{
	self->pid = getpid();
	cp_prog_init(&self->prog);
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_prog_spawn(&self->prog));
	ASSERT_EQ(0, mkdir(SCRATCH, 0755) && errno != EEXIST ? -errno : 0);
	ASSERT_EQ(0, chmod(SCRATCH, 0755));
}

FIXTURE_TEARDOWN(hostile2)
{
	if (getpid() != self->pid)
		return;
	cp_prog_kill(&self->prog);
	EXPECT_EQ(0, cp_session_reset());
}

/* A copy of file src at dst, owned by root, of mode mode. */
static int copy_file(const char *src, const char *dst, mode_t mode)
{
	char buf[1 << 16];
	int in, out, ret = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	unlink(dst);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		ret = -errno;
		goto out_in;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			ret = -EIO;
			break;
		}
	if (n < 0)
		ret = -errno;
	if (!ret && (fchown(out, 0, 0) || fchmod(out, mode)))
		ret = -errno;
	close(out);
out_in:
	close(in);
	return ret;
}

/* ---- the capability rule ---- */

/*
 * In a child that is root with CAP_PERFMON alone: a session on root's
 * process, which has every capability, samples it but changes it in no
 * way, over netlink or /proc.
 */
TEST_F(hostile2, perfmon_root_on_full_root)
{
	const struct causalprof_exp_range r = {
		.pid = self->prog.pid, .start = self->prog.tp, .end = self->prog.tp + 16,
	};

	CP_IN_CHILD("root with CAP_PERFMON only", {
		char cmd[PATH_MAX + 128];
		struct cp_nl nl;
		uint64_t id;

		ASSERT_EQ(0, cp_become(0, PERFMON, true));
		ASSERT_EQ(0, cp_nl_open(&nl));
		ASSERT_EQ(0, cp_nl_start(&nl, self->prog.pid, 0, &id)) TH_LOG("%s", nl.extack);
		EXPECT_EQ(-EPERM, cp_nl_experiment_start(&nl, 500, &r, 1))
			TH_LOG("delays a process with more capabilities");
		EXPECT_EQ(-EPERM, cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT,
						     self->prog.path, self->prog.off_tp, 0))
			TH_LOG("probes a process with more capabilities");
		EXPECT_EQ(0, cp_nl_stop(&nl));
		EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
		cp_nl_close(&nl);

		snprintf(cmd, sizeof(cmd), "start pid=%d", self->prog.pid);
		ASSERT_EQ(0, cp_control(cmd));
		snprintf(cmd, sizeof(cmd), "experiment start speedup=500 range=%d:0x%llx-0x%llx",
			 self->prog.pid, (unsigned long long)r.start, (unsigned long long)r.end);
		EXPECT_EQ(-EPERM, cp_control(cmd)) TH_LOG("delays it through /proc");
		snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s offset=0x%llx",
			 self->prog.path, (unsigned long long)self->prog.off_tp);
		EXPECT_EQ(-EPERM, cp_control(cmd)) TH_LOG("probes it through /proc");
		EXPECT_EQ(0, cp_control("stop"));
	});
}

/* ---- credentials that change under a point ---- */

/* The count of point id in /proc/causalprof/progress, or -errno. */
static long long point_count(unsigned int id)
{
	char text[4096], key[32], *at;
	unsigned long long n;

	if (cp_read_text(CP_PROC_DIR "/progress", text, sizeof(text)) < 0)
		return -EIO;
	snprintf(key, sizeof(key), "id=%u ", id);
	at = strstr(text, key);
	if (!at || !(at = strstr(at, "count=")) || sscanf(at, "count=%llu", &n) != 1)
		return -ENOENT;
	return n;
}

static size_t denied_records(const struct cp_stream *s, pid_t pid, unsigned int point)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_denied *d;
	size_t off, n = 0;

	cp_stream_for_each(s, h, off) {
		if (h->type != CAUSALPROF_REC_DENIED || h->size < sizeof(*d))
			continue;
		d = (const void *)h;
		if ((h->flags & CAUSALPROF_DENIED_F_POINT) && (pid_t)d->pid == pid &&
		    d->point == point)
			n++;
	}
	return n;
}

/*
 * uid 1000 with CAP_PERFMON puts a point in its own process, on a program
 * that process then execs: a setuid-root copy of the progress target. The
 * root process it becomes is not counted, and the session is told.
 */
TEST_F(hostile2, setuid_exec_point)
{
	static const char suid[] = SCRATCH "/progress-suid";

	ASSERT_EQ(0, copy_file(self->prog.path, suid, 04755));
	CP_IN_CHILD("uid 1000 with CAP_PERFMON", {
		struct cp_stream *s = calloc(1, sizeof(*s));
		struct cp_prog p;
		struct cp_nl nl;
		char line[256];
		uint64_t id;

		ASSERT_NE(NULL, s);
		ASSERT_EQ(0, cp_become(USER, PERFMON, true));
		ASSERT_EQ(0, cp_prog_spawn_held(&p, suid));
		ASSERT_EQ(0, cp_nl_open(&nl));
		nl.stream = s;
		ASSERT_EQ(0, cp_nl_start(&nl, p.pid, 0, &id)) TH_LOG("%s", nl.extack);
		ASSERT_EQ(0, cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT, suid,
						self->prog.off_tp, 0)) TH_LOG("%s", nl.extack);
		ASSERT_EQ(0, cp_target_release(&p.t));
		ASSERT_LT(0, cp_target_read(&p.t, line, sizeof(line), "\n", 10000));
		ASSERT_EQ(0, cp_prog_call(&p, CALLS, 1));
		EXPECT_EQ(0, point_count(1)) TH_LOG("the point counted a setuid-root process");
		ASSERT_EQ(0, cp_nl_finish(&nl, CP_WAIT_MS)) TH_LOG("no END");
		EXPECT_EQ(1UL, denied_records(s, p.pid, 1)) TH_LOG("the session was not told");
		cp_nl_close(&nl);
		cp_prog_kill(&p);
		cp_stream_free(s);
		free(s);
	});
	unlink(suid);
}

/*
 * The control of the test above: root's point in its own process, which
 * execs the program probed without a change of credentials, counts every
 * call.
 */
TEST_F(hostile2, setuid_exec_point_control)
{
	struct cp_prog p;
	struct cp_nl nl;
	char line[256];
	uint64_t id;

	ASSERT_EQ(0, cp_prog_spawn_held(&p, self->prog.path));
	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start(&nl, p.pid, 0, &id)) TH_LOG("%s", nl.extack);
	ASSERT_EQ(0, cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT, self->prog.path,
					self->prog.off_tp, 0)) TH_LOG("%s", nl.extack);
	ASSERT_EQ(0, cp_target_release(&p.t));
	ASSERT_LT(0, cp_target_read(&p.t, line, sizeof(line), "\n", 10000));
	ASSERT_EQ(0, cp_prog_call(&p, CALLS, 1));
	EXPECT_EQ(CALLS, point_count(1));
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
	cp_prog_kill(&p);
}

/* ---- a zombie leader ---- */

static void *pause_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/* Whether process pid's leader is a zombie (its threads run on). */
static bool leader_zombie(pid_t pid)
{
	char path[64], text[4096], *st;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (cp_read_text(path, text, sizeof(text)) < 0)
		return false;
	st = strstr(text, "State:");
	return st && st[7] == 'Z';
}

/*
 * uid 1000's process, made non-dumpable, whose leader exited while a thread
 * goes on: uid 1000 may not ptrace it, so neither delays nor points.
 */
static void zombie_leader(struct __test_metadata *_metadata, const struct cp_prog *prog)
{
	struct causalprof_exp_range r = { .start = 0x1000, .end = 0x2000 };
	struct cp_nl nl;
	pthread_t th;
	uint64_t id;
	pid_t z;
	int i;

	ASSERT_EQ(0, cp_become(USER, PERFMON, true));
	z = fork();
	ASSERT_LE(0, z);
	if (!z) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_DUMPABLE, 0);
		if (pthread_create(&th, NULL, pause_thread, NULL))
			_exit(1);
		pthread_exit(NULL);
	}
	for (i = 0; i < 100 && !leader_zombie(z); i++)
		cp_sleep_ms(20);
	ASSERT_TRUE(leader_zombie(z)) TH_LOG("the leader did not exit");
	r.pid = z;
	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start(&nl, z, 0, &id)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(-EPERM, cp_nl_experiment_start(&nl, 500, &r, 1))
		TH_LOG("judged by its zombie leader");
	EXPECT_EQ(-EPERM, cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT, prog->path,
					     prog->off_tp, 0));
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
	kill(z, SIGKILL);
	waitpid(z, NULL, 0);
}

TEST_F(hostile2, zombie_leader)
{
	CP_IN_CHILD("uid 1000 with CAP_PERFMON", zombie_leader(_metadata, &self->prog));
}

/* ---- what the caller may read ---- */

static int write_text(const char *path, const char *text, mode_t mode)
{
	int fd, ret = 0;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fchmod(fd, mode))
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * Points on files uid 1000 may not read (root's, mode 0711 and 0700), one
 * ELF and one not: the same EACCES for both, nothing told of their
 * contents.
 */
TEST_F(hostile2, unreadable_file)
{
	static const char elf[] = SCRATCH "/noread-elf", text[] = SCRATCH "/noread-text";

	ASSERT_EQ(0, copy_file(self->prog.path, elf, 0711));
	ASSERT_EQ(0, write_text(text, "#!/bin/sh\nexit 0\n", 0700));
	CP_IN_CHILD("uid 1000 with CAP_PERFMON", {
		pid_t mine;
		struct cp_nl nl;
		uint64_t id;

		ASSERT_EQ(0, cp_become(USER, PERFMON, true));
		mine = cp_spawn_sleeper();
		ASSERT_LT(0, mine);
		ASSERT_EQ(0, cp_nl_open(&nl));
		ASSERT_EQ(0, cp_nl_start(&nl, mine, 0, &id)) TH_LOG("%s", nl.extack);
		EXPECT_EQ(-EACCES, cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT, elf,
						      self->prog.off_tp, 0))
			TH_LOG("an unreadable ELF file: %s", nl.extack);
		EXPECT_EQ(-EACCES, cp_nl_progress_add(&nl, 2, CAUSALPROF_PP_THROUGHPUT, text, 4, 0))
			TH_LOG("an unreadable text file: %s", nl.extack);
		EXPECT_EQ(0, cp_nl_stop(&nl));
		EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
		cp_nl_close(&nl);
		cp_kill(mine);
	});
	unlink(elf);
	unlink(text);
}

/* ---- a target gone before the hooks ---- */

/* Makes the next process forked get pid (the pid namespace's last pid). */
static int next_pid(pid_t pid)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", pid - 1);
	return cp_write_str("/proc/sys/kernel/ns_last_pid", buf);
}

/* Samples of pid taken at since_ns (CLOCK_MONOTONIC) or later. */
static size_t samples_of(const struct cp_stream *s, pid_t pid, uint64_t since_ns)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *smp;
	size_t off, n = 0;

	cp_stream_for_each(s, h, off)
		if ((smp = cp_rec_sample(h)) && (pid_t)smp->pid == pid && smp->time_ns >= since_ns)
			n++;
	return n;
}

/*
 * A target that exits while its session starts (large rings make the start
 * take long): the next process of its pid, which no target made, is not
 * sampled. Up to 40 tries, each with the target exiting a little later.
 */
TEST_F_TIMEOUT(hostile2, tgid_reuse, 240)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(1000);
	uint64_t ring_kb = 0, id, reused_ns;
	int i, started = 0, sampled = 0;
	struct cp_stream *s;
	struct cp_nl nl;
	pid_t t, reuse;

	/* The next pid is chosen through it: CONFIG_CHECKPOINT_RESTORE. */
	if (access("/proc/sys/kernel/ns_last_pid", W_OK))
		SKIP(return, "no /proc/sys/kernel/ns_last_pid (CONFIG_CHECKPOINT_RESTORE)");
	ASSERT_EQ(0, cp_module_param_get("ring_kb", &ring_kb));
	ASSERT_EQ(0, cp_module_param_set("ring_kb", 32768));
	for (i = 0; i < 40 && !sampled; i++) {
		s = calloc(1, sizeof(*s));
		ASSERT_NE(NULL, s);
		t = fork();
		ASSERT_LE(0, t);
		if (!t) {
			usleep(i * 2500);
			_exit(0);
		}
		ASSERT_EQ(0, cp_nl_open(&nl));
		nl.stream = s;
		if (cp_nl_start_events(&nl, t, 0, &ev, 1, &id)) {
			waitpid(t, NULL, 0);
			goto next;
		}
		started++;
		ASSERT_EQ(t, waitpid(t, NULL, 0));
		ASSERT_EQ(0, next_pid(t));
		/*
		 * To the nanosecond: the target's last samples, taken as it
		 * exited, may fall in the millisecond before this one.
		 */
		reused_ns = cp_now_ns();
		reuse = fork();
		ASSERT_LE(0, reuse);
		if (!reuse) {
			int64_t end = cp_now_ms() + 300;

			while (cp_now_ms() < end)
				;
			_exit(0);
		}
		ASSERT_EQ(reuse, waitpid(reuse, NULL, 0));
		EXPECT_EQ(0, cp_nl_finish(&nl, CP_WAIT_MS));
		if (reuse == t && samples_of(s, t, reused_ns)) {
			sampled++;
			TH_LOG("try %d: pid %d reused and sampled (%zu samples)", i, t,
			       samples_of(s, t, reused_ns));
		}
next:
		cp_nl_close(&nl);
		cp_stream_free(s);
		free(s);
	}
	TH_LOG("%d tries, %d sessions started", i, started);
	EXPECT_EQ(0, cp_module_param_set("ring_kb", ring_kb));
	EXPECT_EQ(0, sampled) TH_LOG("a dead target's pid stayed a target");
}

/* ---- event names ---- */

TEST_F(hostile2, event_name_latin1)
{
	static const char *const names[] = { "cpu-clock\xa0", "cpu\xe9" "clock", "\xff" };
	struct cp_req_event ev = CP_EV_CPU_CLOCK(100);
	struct cp_nl nl;
	unsigned int i;
	uint64_t id;

	ASSERT_EQ(0, cp_nl_open(&nl));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ev.name = names[i];
		EXPECT_EQ(-EINVAL, cp_nl_start_events(&nl, self->prog.pid, 0, &ev, 1, &id))
			TH_LOG("name %u accepted", i);
		cp_nl_stop(&nl);
	}
	ev.name = "cpu-clock";
	EXPECT_EQ(0, cp_nl_start_events(&nl, self->prog.pid, 0, &ev, 1, &id)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
}

/* ---- ELF headers ---- */

/* A copy of the progress target whose first PT_LOAD is executable too. */
static int exec_headers_copy(const char *src, const char *dst, Elf64_Off *phoff)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd, i, ret;

	ret = copy_file(src, dst, 0755);
	if (ret)
		return ret;
	fd = open(dst, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = -ENOEXEC;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		off_t at = eh.e_phoff + (off_t)i * sizeof(ph);

		if (pread(fd, &ph, sizeof(ph), at) != sizeof(ph))
			goto out;
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset)
			goto out;
		ph.p_flags |= PF_X;
		if (pwrite(fd, &ph, sizeof(ph), at) != sizeof(ph))
			goto out;
		*phoff = eh.e_phoff;
		ret = 0;
		break;
	}
out:
	close(fd);
	return ret;
}

TEST_F(hostile2, elf_headers_as_code)
{
	static const char copy[] = SCRATCH "/progress-xhdr";
	Elf64_Off phoff = 0;
	struct cp_nl nl;
	uint64_t id;

	ASSERT_EQ(0, exec_headers_copy(self->prog.path, copy, &phoff));
	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start(&nl, self->prog.pid, 0, &id)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(-EINVAL, cp_nl_progress_add(&nl, 1, CAUSALPROF_PP_THROUGHPUT, copy, 0x10, 0))
		TH_LOG("the ELF header taken for code");
	EXPECT_EQ(-EINVAL, cp_nl_progress_add(&nl, 2, CAUSALPROF_PP_THROUGHPUT, copy,
					      phoff + 8, 0))
		TH_LOG("the program headers taken for code");
	/* Its code still is. */
	EXPECT_EQ(0, cp_nl_progress_add(&nl, 3, CAUSALPROF_PP_THROUGHPUT, copy,
					self->prog.off_tp, 0)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
	unlink(copy);
}

/* ---- workers that never return to user mode ---- */

static volatile unsigned long spins;

/* Thread A: the selected code, the loop in its first bytes. */
static __attribute__((noinline)) void *selected_spin(void *arg)
{
	for (;;)
		spins++;
	return arg;
}

static __attribute__((noinline)) void busy_ms(int ms)
{
	int64_t end = cp_now_ms() + ms;

	while (cp_now_ms() < end)
		;
}

/*
 * The target: a vhost-net device it owns (on 6.12 its worker is a thread
 * of this process), A in selected_spin(), and B kicking the device's
 * queue now and then from other code: each kick wakes the worker, by a
 * target thread that owes what A's hits inserted. Writes a byte to ready
 * once the device is set up, another once B is done, then sleeps with
 * the device open.
 */
static void vhost_target(int ready)
{
	struct vhost_vring_file kick = { .index = 0 };
	uint64_t one = 1;
	pthread_t a;
	int fd, i;

	fd = open("/dev/vhost-net", O_RDWR | O_CLOEXEC);
	kick.fd = eventfd(0, EFD_CLOEXEC);
	if (fd < 0 || kick.fd < 0 || ioctl(fd, VHOST_SET_OWNER, NULL) ||
	    ioctl(fd, VHOST_SET_VRING_KICK, &kick))
		_exit(1);
	if (pthread_create(&a, NULL, selected_spin, NULL) || write(ready, "r", 1) != 1)
		_exit(1);
	/* Time for the parent to start the session and the experiment. */
	cp_sleep_ms(500);
	for (i = 0; i < 100; i++) {
		busy_ms(2);
		if (write(kick.fd, &one, sizeof(one)) != sizeof(one))
			_exit(1);
	}
	if (write(ready, "d", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/*
 * A at 30 %: B pays for A's hits and still gets its kicks done. The
 * target lives on once the session is over, its worker asleep: no
 * payment may stay queued there, holding the module. (On 6.1 the worker
 * is a kernel thread, no target's.)
 */
TEST_F_TIMEOUT(hostile2, wake_payment_user_worker, 120)
{
	struct causalprof_exp_range range = {
		.start = (uintptr_t)selected_spin, .end = (uintptr_t)selected_spin + 64,
	};
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(1000);
	uint64_t min_pause = 0, id;
	struct cp_nl nl;
	int fds[2], ret;
	pid_t t;
	char c;

	if (system("modprobe vhost_net 2>/dev/null") || access("/dev/vhost-net", R_OK | W_OK))
		SKIP(return, "no /dev/vhost-net");
	ASSERT_EQ(0, cp_module_param_get("min_pause_us", &min_pause));
	ASSERT_EQ(0, cp_module_param_set("min_pause_us", 100));
	ASSERT_EQ(0, pipe2(fds, O_CLOEXEC));
	t = fork();
	ASSERT_LE(0, t);
	if (!t) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		vhost_target(fds[1]);
	}
	close(fds[1]);
	ASSERT_EQ(1, read(fds[0], &c, 1)) TH_LOG("the target could not set up vhost-net");
	range.pid = t;
	ASSERT_EQ(0, cp_nl_open(&nl));
	ASSERT_EQ(0, cp_nl_start_events(&nl, t, 0, &ev, 1, &id)) TH_LOG("%s", nl.extack);
	ASSERT_EQ(0, cp_nl_experiment_start(&nl, 300, &range, 1)) TH_LOG("%s", nl.extack);
	EXPECT_EQ(1, read(fds[0], &c, 1));
	EXPECT_EQ(0, cp_nl_experiment_stop(&nl));
	EXPECT_EQ(0, cp_nl_stop(&nl));
	EXPECT_EQ(0, cp_nl_wait_state(&nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	cp_nl_close(&nl);
	ret = cp_module_refs_settle();
	EXPECT_EQ(0, ret) TH_LOG("a payment queued on the vhost worker holds the module");
	cp_kill(t);
	close(fds[0]);
	EXPECT_EQ(0, cp_module_param_set("min_pause_us", min_pause));
	EXPECT_EQ(0, cp_module_refs_settle());
}

TEST_HARNESS_MAIN
