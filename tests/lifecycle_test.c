// SPDX-License-Identifier: GPL-2.0
/*
 * Faults and lifecycle (Documentation/reliability.rst), each ending in a
 * whole stream (or an idle module) and an untainted kernel; the VM harness
 * fails a run on any oops or WARN:
 *
 * - exec: a target execs during a session and an experiment (sh, then
 *   spin): the exec is recorded (a COMM record with CAUSALPROF_COMM_F_EXEC),
 *   the new program sampled, the EXPERIMENT record arrives;
 * - threads: 10 000 short-lived threads (tests/targets/churn, at most 8
 *   alive at once) created during an experiment: all run, the experiment
 *   stops, no payment stays queued (the module's reference count drops to
 *   0), the experiment file accounts for the threads;
 * - stall: the owner stops reading for 5 s: samples are lost and counted
 *   (per CPU, samples + lost == overflows), the kernel's slab grows by
 *   less than 16 MiB meanwhile, and samples come again after;
 * - hotplug: CPU 1 goes offline and online during an experiment and again
 *   during the session (skipped with one CPU);
 * - cprof killed: cprof record, and cprof record --causal mid-experiment,
 *   SIGKILLed: the module is idle within 5 s, no payment stays queued.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define THREADS		10000
#define STALL_S		5
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

/* A line "KEY: N kB" of /proc/meminfo, in bytes; -1 without it. */
static int64_t meminfo(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			sscanf(line + len + 1, "%lld", &kb);
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

FIXTURE(life) {
	uint64_t taint;
	struct cp_nl nl;
	struct cp_stream stream;
	struct cp_target target;
	pid_t cprof;
	uint64_t max_exp;
	char spin[PATH_MAX];
};

FIXTURE_SETUP(life)
{
	memset(&self->target, 0, sizeof(self->target));
	self->target.go = self->target.out = -1;
	self->nl.fd = -1;
	self->cprof = 0;
	self->max_exp = 0;
	ASSERT_EQ(0, cp_kernel_taint(&self->taint));
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_target_path("spin", self->spin, sizeof(self->spin)));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	self->nl.stream = &self->stream;
}

FIXTURE_TEARDOWN(life)
{
	uint64_t taint = 0;

	if (self->cprof > 0) {
		kill(self->cprof, SIGKILL);
		waitpid(self->cprof, NULL, 0);
	}
	if (self->nl.fd >= 0)
		cp_nl_close(&self->nl);
	cp_target_kill(&self->target);
	cp_stream_free(&self->stream);
	if (access(CPU1_ONLINE, F_OK) == 0)
		cp_write_str(CPU1_ONLINE, "1");
	EXPECT_EQ(0, cp_session_reset());
	if (self->max_exp)
		EXPECT_EQ(0, cp_module_param_set("max_experiment_s", self->max_exp));
	EXPECT_EQ(0, cp_kernel_taint(&taint));
	EXPECT_EQ(self->taint, taint) TH_LOG("the kernel was tainted: 0x%" PRIx64, taint);
}

static int start(FIXTURE_DATA(life) *self, pid_t pid, uint32_t hz)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(hz);
	uint64_t id;

	return cp_nl_start_events(&self->nl, pid, CP_F_STACKS, &ev, 1, &id);
}

TEST_F_TIMEOUT(life, exec_mid_experiment, 120)
{
	char cmd[PATH_MAX + 64];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	const struct causalprof_exp_range r = { .start = 0x1000, .end = 0x2000 };
	struct causalprof_exp_range range = r;
	const struct causalprof_record_hdr *h;
	const struct causalprof_comm *c;
	const struct causalprof_sample *s;
	uint64_t exec_ns = 0;
	size_t off, after = 0;
	const char *why;

	snprintf(cmd, sizeof(cmd), "sleep 1; exec %s -t 2 -s 2", self->spin);
	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, start(self, self->target.pid, 1000)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&self->target));
	range.pid = self->target.pid;
	ASSERT_EQ(0, cp_nl_experiment_start(&self->nl, 500, &range, 1)) TH_LOG("%s",
									       self->nl.extack);
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 60000));
	ASSERT_EQ(0, self->target.status);
	EXPECT_EQ(0, cp_nl_experiment_stop(&self->nl)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	EXPECT_EQ(1U, self->stream.experiments);

	cp_stream_for_each(&self->stream, h, off) {
		c = cp_rec_comm(h);
		if (c && c->pid == (uint32_t)self->target.pid &&
		    (h->flags & CAUSALPROF_COMM_F_EXEC) && !strcmp(c->comm, "spin"))
			exec_ns = c->time_ns;
	}
	ASSERT_NE(0U, exec_ns) TH_LOG("no exec COMM record of spin");
	cp_stream_for_each(&self->stream, h, off) {
		s = cp_rec_sample(h);
		if (s && s->pid == (uint32_t)self->target.pid && s->time_ns > exec_ns)
			after++;
	}
	TH_LOG("%zu samples, %zu of them after the exec", self->stream.samples, after);
	EXPECT_LT(0U, after);
}

TEST_F_TIMEOUT(life, threads_mid_experiment, 280)
{
	char path[PATH_MAX], out[256], cmd[128], text[1 << 16];
	char *argv[] = { path, "10000", NULL };
	unsigned long long hs, he;
	int64_t t0, hits, paid, full;
	long done = 0;
	pid_t pid;
	int ret;

	/* The churn takes 25 to 70 s in TCG: longer than max_experiment_s. */
	ASSERT_EQ(0, cp_module_param_get("max_experiment_s", &self->max_exp));
	ASSERT_EQ(0, cp_module_param_set("max_experiment_s", 600));
	ASSERT_EQ(0, cp_target_path("churn", path, sizeof(path)));
	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, false));
	ASSERT_LT(0, cp_target_read(&self->target, out, sizeof(out), "\n", 10000));
	ASSERT_EQ(3, sscanf(out, "ready %d %llx %llx", &pid, &hs, &he));
	/* Through /proc: the netlink socket of the fixture stays unused. */
	snprintf(cmd, sizeof(cmd), "start pid=%d event=cpu-clock freq=1000", pid);
	ASSERT_EQ(0, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "experiment start speedup=500 range=%d:0x%llx-0x%llx", pid,
		 hs, he);
	ASSERT_EQ(0, cp_control(cmd));
	t0 = cp_now_ms();
	ASSERT_EQ(0, kill(pid, SIGUSR1));
	ret = cp_target_read(&self->target, out, sizeof(out), "\n", 240000);
	ASSERT_LT(0, ret) TH_LOG("churn did not finish: %s", strerror(-ret));
	ASSERT_EQ(1, sscanf(out, "done %ld", &done));
	EXPECT_EQ(THREADS, done);
	TH_LOG("%ld threads in %.1f s", done, (cp_now_ms() - t0) / 1000.0);
	ASSERT_EQ(0, cp_target_wait(&self->target, 10000));
	EXPECT_EQ(0, self->target.status);

	ASSERT_EQ(0, cp_exp_read(text, sizeof(text)));
	ASSERT_EQ(0, cp_exp_i64(text, "hits", &hits)) TH_LOG("%s", text);
	ASSERT_EQ(0, cp_exp_i64(text, "tasks_paid", &paid)) TH_LOG("%s", text);
	ASSERT_EQ(0, cp_exp_i64(text, "table_full", &full)) TH_LOG("%s", text);
	TH_LOG("experiment: %" PRId64 " hits, %" PRId64 " threads paid, table full %" PRId64
	       " times", hits, paid, full);
	EXPECT_LT(0, hits);
	/*
	 * Threads born during the experiment paid for A's hits too, until
	 * the table (max_tasks slots, 8192) is full of the dead ones'
	 * tombstones: the rest are counted in table_full.
	 */
	EXPECT_LT(1, paid);
	ASSERT_EQ(0, cp_control("experiment stop"));
	ASSERT_EQ(0, cp_control("stop"));
	EXPECT_EQ(0, cp_module_refs_settle());
}

TEST_F_TIMEOUT(life, reader_stalls, 120)
{
	char *argv[] = { self->spin, "-t", "2", "-s", "9", NULL };
	uint64_t samples, lost, overflows, sum_lost = 0;
	int64_t slab0, slab1;
	size_t before;
	long cpu, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	const char *why;

	/*
	 * A fresh module, its per-CPU counters this session's, with rings of
	 * 16 KiB (the default 512 KiB hold 5 s of this rate).
	 */
	cp_nl_close(&self->nl);
	self->nl.fd = -1;
	ASSERT_EQ(0, cp_module_reload("ring_kb=16"));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	self->nl.stream = &self->stream;

	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, start(self, self->target.pid, 1000)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&self->target));
	ASSERT_EQ(0, cp_nl_pump(&self->nl, 1000));
	slab0 = meminfo("Slab");
	sleep(STALL_S);
	slab1 = meminfo("Slab");
	before = self->stream.samples;
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 60000));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	TH_LOG("slab %+.1f MiB over the stall; %zu samples before it ended, %zu in all, "
	       "%llu lost", (slab1 - slab0) / 1048576.0, before, self->stream.samples,
	       (unsigned long long)self->stream.end.lost);
	EXPECT_LT(slab1 - slab0, 16 << 20);
	/* Recording resumed: samples of the seconds after the stall came. */
	EXPECT_LT(before + 500, self->stream.samples);
	EXPECT_LT(0U, self->stream.end.lost);
	for (cpu = 0; cpu < ncpus; cpu++) {
		ASSERT_EQ(0, cp_cpu_counts(cpu, &samples, &lost, &overflows)) TH_LOG("cpu%ld", cpu);
		EXPECT_EQ(overflows, samples + lost) TH_LOG("cpu%ld", cpu);
		sum_lost += lost;
	}
	EXPECT_EQ(self->stream.end.lost, sum_lost);
	cp_nl_close(&self->nl);
	self->nl.fd = -1;
	EXPECT_EQ(0, cp_module_reload(""));
}

TEST_F_TIMEOUT(life, cpu_hotplug, 120)
{
	char *argv[] = { self->spin, "-t", "2", "-s", "8", NULL };
	const struct causalprof_exp_range r0 = { .start = 0x1000, .end = 0x2000 };
	struct causalprof_exp_range r = r0;
	const char *why;
	int round;

	if (access(CPU1_ONLINE, W_OK) || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "CPU 1 cannot go offline here (one CPU: VM_SMP=1?)");
	ASSERT_EQ(0, cp_target_spawn(&self->target, argv, true));
	ASSERT_EQ(0, start(self, self->target.pid, 1000)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&self->target));
	r.pid = self->target.pid;
	for (round = 0; round < 2; round++) {
		/* The first time during an experiment, the second without. */
		if (!round)
			ASSERT_EQ(0, cp_nl_experiment_start(&self->nl, 300, &r, 1))
				TH_LOG("%s", self->nl.extack);
		ASSERT_EQ(0, cp_nl_pump(&self->nl, 500));
		ASSERT_EQ(0, cp_write_str(CPU1_ONLINE, "0"));
		ASSERT_EQ(0, cp_nl_pump(&self->nl, 1000));
		ASSERT_EQ(0, cp_write_str(CPU1_ONLINE, "1"));
		ASSERT_EQ(0, cp_nl_pump(&self->nl, 500));
		if (!round)
			ASSERT_EQ(0, cp_nl_experiment_stop(&self->nl)) TH_LOG("%s",
									      self->nl.extack);
	}
	ASSERT_EQ(0, cp_nl_pump_until_exit(&self->nl, &self->target, 60000));
	ASSERT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
	why = cp_stream_problem(&self->stream);
	ASSERT_EQ(NULL, why) TH_LOG("%s", why);
	EXPECT_EQ(1U, self->stream.experiments);
	TH_LOG("%zu samples, %llu lost", self->stream.samples,
	       (unsigned long long)self->stream.end.lost);
	EXPECT_LT(0U, self->stream.samples);
	EXPECT_EQ(0, cp_module_refs_settle());
}

/* cprof with args, its output in /tmp; its pid. */
static pid_t cprof(char *const args[])
{
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	fd = open("/tmp/lifecycle-cprof.out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	execv(getenv("CPROF"), args);
	_exit(127);
}

/* Until pred() holds, up to ms; whether it did. */
static bool wait_for(bool (*pred)(void), int ms)
{
	int64_t deadline = cp_now_ms() + ms;

	while (!pred()) {
		if (cp_now_ms() > deadline)
			return false;
		cp_sleep_ms(50);
	}
	return true;
}

static bool recording(void)
{
	char state[32];

	return !cp_status_get("state", state, sizeof(state)) && !strcmp(state, "recording");
}

static bool idle(void)
{
	char state[32];

	return !cp_status_get("state", state, sizeof(state)) && !strcmp(state, "idle");
}

static bool experimenting(void)
{
	char text[1 << 14];

	return !cp_exp_read(text, sizeof(text)) && strstr(text, "\nstate: running");
}

TEST_F_TIMEOUT(life, cprof_killed, 120)
{
	char gt[PATH_MAX];
	char *rec[] = { "cprof", "record", "-o", "/tmp/lifecycle.data", self->spin, "-t", "1",
			"-s", "30", NULL };
	char *causal[] = { "cprof", "record", "--causal", "-o", "/tmp/lifecycle-causal.data",
			   gt, NULL };
	uint64_t target;

	ASSERT_NE(NULL, getenv("CPROF"));
	ASSERT_EQ(0, cp_target_path("gt_barrier_sdt", gt, sizeof(gt)));

	/* Mid-record. */
	self->cprof = cprof(rec);
	ASSERT_LT(0, self->cprof);
	ASSERT_TRUE(wait_for(recording, 10000));
	ASSERT_EQ(0, cp_status_u64("target_pid", &target));
	cp_sleep_ms(500);
	ASSERT_EQ(0, kill(self->cprof, SIGKILL));
	ASSERT_EQ(self->cprof, waitpid(self->cprof, NULL, 0));
	self->cprof = 0;
	EXPECT_TRUE(wait_for(idle, 5000));
	kill((pid_t)target, SIGKILL);

	/* Mid-experiment. */
	self->cprof = cprof(causal);
	ASSERT_LT(0, self->cprof);
	ASSERT_TRUE(wait_for(experimenting, 30000)) TH_LOG("no experiment started");
	ASSERT_EQ(0, cp_status_u64("target_pid", &target));
	cp_sleep_ms(300);
	ASSERT_EQ(0, kill(self->cprof, SIGKILL));
	ASSERT_EQ(self->cprof, waitpid(self->cprof, NULL, 0));
	self->cprof = 0;
	EXPECT_TRUE(wait_for(idle, 5000));
	EXPECT_FALSE(experimenting());
	kill((pid_t)target, SIGKILL);
	EXPECT_EQ(0, cp_module_refs_settle());
}

TEST_HARNESS_MAIN
