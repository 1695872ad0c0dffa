// SPDX-License-Identifier: GPL-2.0
/*
 * What is inherited.
 *
 * Targets: which processes a session follows, and whether their samples
 * can be named: a process that was already running (cprof record -p), the
 * children a target forks and execs (even those that live 40 ms), and none
 * of them with CAUSALPROF_F_NO_INHERIT. A user address is nameable when a
 * MMAP record of its process, received no later than the sample, covers
 * it (before the process's exec, its parent's mappings count, as a fork
 * copies them): what Documentation/recording-format.rst has readers do.
 *
 * Delays: a thread a target thread wakes takes its waker's local delay
 * (the causal engine's wake-up inheritance; see the wakeup tests below).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define FREQ		1000
#define CHILDREN	4
#define CHILD_MS	"40"	/* the child spins, then exits: about 40 ms of life */
#define MAX_TIDS	16

FIXTURE(inherit) {
	struct cp_nl nl;
	struct cp_stream stream;
	struct cp_target target;
	char spin[PATH_MAX];
	char forker[PATH_MAX];
	char brief[PATH_MAX];
};

FIXTURE_SETUP(inherit)
{
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_target_path("spin", self->spin, sizeof(self->spin)));
	ASSERT_EQ(0, cp_target_path("forker", self->forker, sizeof(self->forker)));
	ASSERT_EQ(0, cp_target_path("brief", self->brief, sizeof(self->brief)));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	self->nl.stream = &self->stream;
}

FIXTURE_TEARDOWN(inherit)
{
	cp_target_kill(&self->target);
	cp_nl_close(&self->nl);
	cp_stream_free(&self->stream);
	EXPECT_EQ(0, cp_session_reset());
}

/* When pid's exec completed (its COMM record with CAUSALPROF_COMM_F_EXEC). */
static uint64_t exec_time(const struct cp_stream *st, uint32_t pid)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_comm *c;
	size_t off;

	cp_stream_for_each(st, h, off) {
		c = cp_rec_comm(h);
		if (c && c->pid == pid && (h->flags & CAUSALPROF_COMM_F_EXEC))
			return c->time_ns;
	}
	return UINT64_MAX;
}

static bool mapped(const struct cp_stream *st, uint32_t pid, uint64_t ip, uint64_t time)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_mmap *m;
	size_t off;

	cp_stream_for_each(st, h, off) {
		m = cp_rec_mmap(h);
		if (m && m->pid == pid && m->time_ns <= time && ip >= m->start &&
		    ip - m->start < m->len)
			return true;
	}
	return false;
}

static void log_mmaps(struct __test_metadata *_metadata, const struct cp_stream *st,
		      uint32_t pid)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_mmap *m;
	size_t off;

	cp_stream_for_each(st, h, off) {
		m = cp_rec_mmap(h);
		if (m && m->pid == pid)
			TH_LOG("  mmap at %llu ns: %#llx-%#llx %s", (unsigned long long)m->time_ns,
			       (unsigned long long)m->start,
			       (unsigned long long)(m->start + m->len), m->path);
	}
}

/*
 * Samples of pid whose user IP no MMAP record names; parent is the process
 * it was forked from (0: none to inherit from).
 */
static size_t unnamed(struct __test_metadata *_metadata, const struct cp_stream *st,
		      uint32_t pid, uint32_t parent, size_t *user)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	uint64_t exec = exec_time(st, pid), ip;
	size_t off, n = 0;

	cp_stream_for_each(st, h, off) {
		s = cp_rec_sample(h);
		if (!s || s->pid != pid || !s->nr_user)
			continue;
		(*user)++;
		ip = cp_sample_user(s)[0];
		if (mapped(st, pid, ip, s->time_ns))
			continue;
		if (parent && s->time_ns < exec && mapped(st, parent, ip, s->time_ns))
			continue;
		if (!n++) {
			TH_LOG("pid %u: %s-mode sample at %llu ns (exec at %llu): no mapping for %#llx",
			       pid,
			       s->sflags & CAUSALPROF_SAMPLE_F_USER ? "user" : "kernel",
			       (unsigned long long)s->time_ns, (unsigned long long)exec,
			       (unsigned long long)ip);
			log_mmaps(_metadata, st, pid);
		}
	}
	return n;
}

static size_t count_samples(const struct cp_stream *st, uint32_t pid, uint32_t tid)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	size_t off, n = 0;

	cp_stream_for_each(st, h, off) {
		s = cp_rec_sample(h);
		if (s && s->pid == pid && (!tid || s->tid == tid))
			n++;
	}
	return n;
}

static bool has_mmap(const struct cp_stream *st, uint32_t pid, const char *path)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_mmap *m;
	size_t off;

	cp_stream_for_each(st, h, off) {
		m = cp_rec_mmap(h);
		if (m && m->pid == pid && (!path || !strcmp(m->path, path)))
			return true;
	}
	return false;
}

/* A COMM record of thread tid; with exec, one that reports its exec as comm. */
static bool has_comm(const struct cp_stream *st, uint32_t pid, uint32_t tid, bool exec,
		     const char *comm)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_comm *c;
	size_t off;

	cp_stream_for_each(st, h, off) {
		c = cp_rec_comm(h);
		if (!c || c->pid != pid || c->tid != tid)
			continue;
		if (exec && (!(h->flags & CAUSALPROF_COMM_F_EXEC) || strcmp(c->comm, comm)))
			continue;
		return true;
	}
	return false;
}

static bool has_task(const struct cp_stream *st, uint16_t type, uint32_t pid, uint32_t ppid)
{
	const struct causalprof_record_hdr *h;
	const struct causalprof_task *t;
	size_t off;

	cp_stream_for_each(st, h, off) {
		if (h->type != type)
			continue;
		t = (const struct causalprof_task *)h;
		if (t->pid == pid && t->tid == pid && (!ppid || t->ppid == ppid))
			return true;
	}
	return false;
}

/* The threads of a running process. */
static int list_tids(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (n == max) {
			n = -E2BIG;
			break;
		}
		tids[n++] = atoi(d->d_name);
	}
	closedir(dir);
	return n;
}

/* The children forker reported, "child PID STATUS" each. */
static int parse_children(char *out, pid_t *pids, int max)
{
	char *line, *save;
	int pid, status, n = 0;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "child %d %d", &pid, &status) != 2 || status)
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		pids[n++] = pid;
	}
	return n;
}

/*
 * cprof record -p: a process that runs already. The session's first records
 * describe it: its executable mappings and the names of its threads.
 */
TEST_F_TIMEOUT(inherit, attach_running, 90)
{
	char *argv[] = { self->spin, "-t", "2", "-s", "0", NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	char out[256], exe[PATH_MAX], link[64];
	size_t off, user = 0, others = 0, strangers = 0;
	pid_t tids[MAX_TIDS];
	const char *why;
	uint64_t id;
	ssize_t len;
	int n, i;

	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, false));
	ASSERT_LT(0, cp_target_read(&self->target, out, sizeof(out), "\n", CP_WAIT_MS));
	ASSERT_NE(NULL, strstr(out, "ready")) TH_LOG("target said: %s", out);
	n = list_tids(self->target.pid, tids, MAX_TIDS);
	ASSERT_EQ(3, n);
	snprintf(link, sizeof(link), "/proc/%d/exe", self->target.pid);
	len = readlink(link, exe, sizeof(exe) - 1);
	ASSERT_LT(0, len);
	exe[len] = '\0';

	ASSERT_EQ(0, cp_nl_start_events(&self->nl, self->target.pid, CP_F_STACKS, &ev, 1, &id))
		TH_LOG("extack: '%s'", self->nl.extack);
	ASSERT_EQ(0, cp_nl_pump(&self->nl, 1000));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);

	ASSERT_LT(0U, self->stream.samples);
	cp_stream_for_each(&self->stream, h, off) {
		s = cp_rec_sample(h);
		if (!s)
			continue;
		if (s->pid != (uint32_t)self->target.pid) {
			others++;
			continue;
		}
		for (i = 0; i < n; i++)
			if (s->tid == (uint32_t)tids[i])
				break;
		if (i == n)
			strangers++;
	}
	EXPECT_EQ(0U, others) TH_LOG("samples of other processes");
	EXPECT_EQ(0U, strangers) TH_LOG("samples of threads the target does not have");
	EXPECT_TRUE(has_mmap(&self->stream, self->target.pid, exe))
		TH_LOG("no MMAP record of %s", exe);
	for (i = 0; i < n; i++)
		EXPECT_TRUE(has_comm(&self->stream, self->target.pid, tids[i], false, NULL))
			TH_LOG("no COMM record of thread %d", tids[i]);
	EXPECT_EQ(0U, unnamed(_metadata, &self->stream, self->target.pid, 0, &user));
	EXPECT_LT(0U, user);
}

/*
 * A target forks and execs brief, one child at a time: each child is
 * followed from its fork, its exec and mappings are reported, it is
 * sampled in its 40 ms of life under its own pid, and its samples can be
 * named.
 */
TEST_F_TIMEOUT(inherit, fork_exec, 90)
{
	char *argv[] = { self->forker, "4", self->brief, CHILD_MS, NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	pid_t children[CHILDREN], pid;
	char out[1024], brief[PATH_MAX];
	size_t off, user = 0, others = 0;
	const char *why;
	int n, i;

	ASSERT_NE(NULL, realpath(self->brief, brief));
	ASSERT_EQ(0, cp_record(&self->nl, &self->target, argv, CP_F_STACKS, &ev, 1, 60000))
		TH_LOG("extack: '%s'", self->nl.extack);
	pid = self->target.pid;
	ASSERT_TRUE(WIFEXITED(self->target.status));
	ASSERT_EQ(0, WEXITSTATUS(self->target.status));
	ASSERT_LT(0, cp_target_read(&self->target, out, sizeof(out), NULL, CP_WAIT_MS));
	n = parse_children(out, children, CHILDREN);
	ASSERT_EQ(CHILDREN, n) TH_LOG("forker said:\n%s", out);
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);

	for (i = 0; i < n; i++) {
		TH_LOG("child %d: %zu samples", children[i],
		       count_samples(&self->stream, children[i], 0));
		EXPECT_LT(0U, count_samples(&self->stream, children[i], 0))
			TH_LOG("child %d has no samples", children[i]);
		EXPECT_TRUE(has_task(&self->stream, CAUSALPROF_REC_FORK, children[i], pid))
			TH_LOG("no FORK record of child %d from %d", children[i], pid);
		EXPECT_TRUE(has_comm(&self->stream, children[i], children[i], true, "brief"))
			TH_LOG("no exec COMM record 'brief' of child %d", children[i]);
		EXPECT_TRUE(has_mmap(&self->stream, children[i], brief))
			TH_LOG("no MMAP record of %s in child %d", brief, children[i]);
		EXPECT_TRUE(has_task(&self->stream, CAUSALPROF_REC_EXIT, children[i], 0))
			TH_LOG("no EXIT record of child %d", children[i]);
		EXPECT_EQ(0U, unnamed(_metadata, &self->stream, children[i], pid, &user));
	}
	EXPECT_LT(0U, user);
	EXPECT_EQ(0U, unnamed(_metadata, &self->stream, pid, 0, &user));

	cp_stream_for_each(&self->stream, h, off) {
		s = cp_rec_sample(h);
		if (!s || s->pid == (uint32_t)pid)
			continue;
		for (i = 0; i < n; i++)
			if (s->pid == (uint32_t)children[i])
				break;
		if (i == n && !others++)
			TH_LOG("a sample of pid %u", s->pid);
	}
	EXPECT_EQ(0U, others) TH_LOG("samples of processes neither the target nor its children");
}

/* CAUSALPROF_F_NO_INHERIT: the target is sampled, its children are not. */
TEST_F_TIMEOUT(inherit, no_inherit, 90)
{
	char *argv[] = { self->forker, "-s", "100", "3", self->brief, CHILD_MS, NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(FREQ);
	const struct causalprof_record_hdr *h;
	const struct causalprof_sample *s;
	const struct causalprof_mmap *m;
	size_t off, others = 0, mmaps = 0;
	pid_t pid;
	const char *why;

	ASSERT_EQ(0, cp_record(&self->nl, &self->target, argv,
			       CP_F_STACKS | CAUSALPROF_F_NO_INHERIT, &ev, 1, 60000))
		TH_LOG("extack: '%s'", self->nl.extack);
	pid = self->target.pid;
	ASSERT_TRUE(WIFEXITED(self->target.status));
	ASSERT_EQ(0, WEXITSTATUS(self->target.status));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);

	/* the target spun 300 ms itself */
	EXPECT_LT(0U, count_samples(&self->stream, pid, 0));
	cp_stream_for_each(&self->stream, h, off) {
		s = cp_rec_sample(h);
		m = cp_rec_mmap(h);
		if (s && s->pid != (uint32_t)pid && !others++)
			TH_LOG("a sample of pid %u", s->pid);
		if (m && m->pid != (uint32_t)pid && !mmaps++)
			TH_LOG("a MMAP record of pid %u: %s", m->pid, m->path);
	}
	EXPECT_EQ(0U, others);
	EXPECT_EQ(0U, mmaps);
}

/*
 * Wake-up inheritance, through a pipe, a futex-based mutex and a condition
 * variable, on build/tests/targets/handoff: each iteration thread A spins
 * about HIT_MS in the selected code while thread B sleeps, then wakes B (a
 * pipe write, the unlock of the mutex B blocks on, a condition variable
 * signal); B spins about B_MS outside the selected code and hands back.
 * A starts its work only once B is asleep (state S), so B never runs while
 * A hits, and every hand-off is a wake-up: B's whole debt after a wake-up
 * is what A's work added while B slept, which B's waker has accounted.
 *
 * The comparison, in one boot: experiments alternately with the
 * module parameter inherit=1 and inherit=0, ROUNDS rounds. Without
 * inheritance B owes what A inserted and pays it at its next sample in user
 * mode (its B_MS of work gets it sampled every iteration); with it B owes
 * nothing. Each phase gives B's paid / inserted; the median with
 * inheritance must be at most 5 % of the median without.
 */
#define HIT_MS		"20"
#define B_MS		"2"
#define ROUNDS		4
#define PHASE_MS	1000
#define MAX_PAUSE_US	200000

FIXTURE(wakeup) {
	struct cp_target target;
	char path[PATH_MAX];
	pid_t pid, a, b;
	unsigned long long start, end, iterations;
	uint64_t max_pause;
	char text[1 << 16];
};

/*
 * B pays all it owes at once (A's whole iteration, longer than
 * max_pause_us's default when the host slows the VM down), so that without
 * inheritance it pays what it owes even if sampled once per iteration.
 */
FIXTURE_SETUP(wakeup)
{
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_module_param_set("inherit", 1));
	ASSERT_EQ(0, cp_module_param_get("max_pause_us", &self->max_pause));
	ASSERT_EQ(0, cp_module_param_set("max_pause_us", MAX_PAUSE_US));
	ASSERT_EQ(0, cp_target_path("handoff", self->path, sizeof(self->path)));
}

FIXTURE_TEARDOWN(wakeup)
{
	cp_target_kill(&self->target);
	EXPECT_EQ(0, cp_session_reset());
	EXPECT_EQ(0, cp_module_param_set("inherit", 1));
	if (self->max_pause)
		EXPECT_EQ(0, cp_module_param_set("max_pause_us", self->max_pause));
}

struct phase {
	int64_t inserted, hits, inherited, paid;
	int payments;
	uint64_t iterations;
	double ratio;		/* B's paid / inserted */
};

/* One experiment of PHASE_MS at speedup 0.5 on A's code. */
static int run_phase(FIXTURE_DATA(wakeup) *self, bool inherit, struct phase *ph)
{
	uint64_t n0, n1;
	int64_t local;
	char cmd[128];
	int ret;

	ret = cp_module_param_set("inherit", inherit);
	if (ret)
		return ret;
	snprintf(cmd, sizeof(cmd), "experiment start speedup=500 range=%d:0x%llx-0x%llx",
		 self->pid, self->start, self->end);
	ret = cp_peek_u64(self->pid, self->iterations, &n0);
	if (!ret)
		ret = cp_control(cmd);
	if (ret)
		return ret;
	usleep(PHASE_MS * 1000);
	ret = cp_control("experiment stop");
	if (!ret)
		ret = cp_peek_u64(self->pid, self->iterations, &n1);
	if (!ret)
		ret = cp_exp_read(self->text, sizeof(self->text));
	if (ret)
		return ret;
	if (cp_exp_i64(self->text, "inserted_ns", &ph->inserted) ||
	    cp_exp_i64(self->text, "hits", &ph->hits) ||
	    cp_exp_i64(self->text, "inherited", &ph->inherited))
		return -EINVAL;
	/* No line: B was never sampled nor woken, and paid nothing. */
	ret = cp_exp_task(self->text, self->b, &local, &ph->paid, &ph->payments);
	if (ret && ret != -ENOENT)
		return ret;
	ph->iterations = n1 - n0;
	ph->ratio = (double)ph->paid / (ph->inserted ?: 1);
	return 0;
}

static void handoff(struct __test_metadata *_metadata, FIXTURE_DATA(wakeup) *self,
		    const char *mode)
{
	char *argv[] = { self->path, (char *)mode, HIT_MS, B_MS, NULL };
	double with[ROUNDS], without[ROUNDS], mw, mwo;
	struct phase ph[ROUNDS][2];
	char buf[256], cmd[64];
	int r, i;

	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, false));
	ASSERT_LT(0, cp_target_read(&self->target, buf, sizeof(buf), "\n", CP_WAIT_MS));
	ASSERT_EQ(6, sscanf(buf, "ready %d %d %d %llx %llx %llx", &self->pid, &self->a, &self->b,
			    &self->start, &self->end, &self->iterations))
		TH_LOG("target said: %s", buf);
	snprintf(cmd, sizeof(cmd), "start pid=%d", self->pid);
	ASSERT_EQ(0, cp_control(cmd));

	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < 2; i++) {
			struct phase *p = &ph[r][i];

			ASSERT_EQ(0, run_phase(self, !i, p));
			TH_LOG("%s round %d, inherit=%d: %" PRIu64 " iterations, inserted %" PRId64
			       " ns (%" PRId64 " hits), inherited %" PRId64 ", B paid %" PRId64
			       " ns in %d payments: %.2f%% of inserted", mode, r, !i,
			       p->iterations, p->inserted, p->hits, p->inherited, p->paid,
			       p->payments, 100 * p->ratio);
		}
		with[r] = ph[r][0].ratio;
		without[r] = ph[r][1].ratio;
	}
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < 2; i++) {
			/* A worked, and B was woken again and again. */
			ASSERT_LE(3U, ph[r][i].iterations);
			ASSERT_LT(0, ph[r][i].inserted);
		}
		/* By A, each time: B took A's delay at (nearly) every wake-up. */
		ASSERT_LE(ph[r][0].iterations / 2, (uint64_t)ph[r][0].inherited);
		ASSERT_EQ(0, ph[r][1].inherited);
	}
	mw = cp_median(with, ROUNDS);
	mwo = cp_median(without, ROUNDS);
	TH_LOG("%s: B paid a median %.2f%% of the delay inserted with inheritance, %.2f%%"
	       " without: %.2f%% of it", mode, 100 * mw, 100 * mwo, 100 * mw / (mwo ?: 1));
	/* Without inheritance, B pays for A's work; with it, at most 5 % of that. */
	ASSERT_LE(0.5, mwo);
	ASSERT_LE(mw, 0.05 * mwo);
}

TEST_F_TIMEOUT(wakeup, pipe, 90)
{
	handoff(_metadata, self, "pipe");
}

TEST_F_TIMEOUT(wakeup, mutex, 90)
{
	handoff(_metadata, self, "mutex");
}

TEST_F_TIMEOUT(wakeup, condvar, 90)
{
	handoff(_metadata, self, "cond");
}

TEST_HARNESS_MAIN
