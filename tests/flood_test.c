// SPDX-License-Identifier: GPL-2.0
/*
 * What the unprivileged can do to a system-wide session's stream and to
 * the kernel log:
 * - an unprivileged process (nobody) floods the sideband with MMAP records
 *   of a long path (mprotect(PROT_EXEC) in a loop) while root, the
 *   owner, runs experiments, with a 16 KiB sideband ring: MMAP records are
 *   lost, but every experiment's EXPERIMENT record arrives;
 * - an event name that is not printable ASCII (it would go to the kernel
 *   log and to messages) is refused with EINVAL and an extack message.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define NOBODY		65534
#define EXPERIMENTS	5
#define SIDEBAND_KB	16

FIXTURE(flood) {
	pid_t flooder;
	uint64_t sideband_kb;
	struct cp_stream stream;
	struct cp_nl nl;
};

FIXTURE_SETUP(flood)
{
	self->nl.fd = -1;
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_module_param_get("sideband_kb", &self->sideband_kb));
}

FIXTURE_TEARDOWN(flood)
{
	if (self->flooder > 0) {
		kill(self->flooder, SIGKILL);
		waitpid(self->flooder, NULL, 0);
	}
	cp_nl_close(&self->nl);
	EXPECT_EQ(0, cp_session_reset());
	EXPECT_EQ(0, cp_module_param_set("sideband_kb", self->sideband_kb));
	cp_stream_free(&self->stream);
}

/* Nobody: a page of a file deep down long directory names, made executable again and again. */
static void flooder_main(void)
{
	char dir[256], name[64];
	void *p;
	int i, fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cp_become(NOBODY, 0, false))
		_exit(2);
	snprintf(name, sizeof(name), "/tmp/flood-%d", getpid());
	if (mkdir(name, 0700) || chdir(name))
		_exit(3);
	memset(dir, 'd', 200);
	dir[200] = '\0';
	for (i = 0; i < 14; i++)
		if (mkdir(dir, 0700) || chdir(dir))
			_exit(4);
	fd = open("f", O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, 4096))
		_exit(5);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		_exit(6);
	for (;;) {
		mprotect(p, 4096, PROT_READ | PROT_EXEC);
		mprotect(p, 4096, PROT_READ);
	}
}

TEST_F_TIMEOUT(flood, experiment_records_survive, 90)
{
	const struct causalprof_exp_range r = { .pid = getpid(), .start = 0x1000, .end = 0x2000 };
	uint64_t id, lost0, lost;
	int i, tries, ret, busy = 0;

	ASSERT_EQ(0, cp_module_param_set("sideband_kb", SIDEBAND_KB));
	ASSERT_EQ(0, cp_status_u64("sideband_lost", &lost0));
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	self->nl.stream = &self->stream;
	ASSERT_EQ(0, cp_nl_start(&self->nl, 0, CAUSALPROF_F_SYSTEM_WIDE, &id))
		TH_LOG("%s", self->nl.extack);

	self->flooder = fork();
	ASSERT_LE(0, self->flooder);
	if (!self->flooder)
		flooder_main();
	ASSERT_EQ(0, cp_nl_pump(&self->nl, 500));

	for (i = 0; i < EXPERIMENTS; i++) {
		/* EBUSY while the last result waits for room in the stream */
		for (tries = 0; tries < 100; tries++) {
			ret = cp_nl_experiment_start(&self->nl, 0, &r, 1);
			if (ret != -EBUSY)
				break;
			busy++;
			ASSERT_EQ(0, cp_nl_pump(&self->nl, 20));
		}
		ASSERT_EQ(0, ret) TH_LOG("experiment %d: %s", i, self->nl.extack);
		ASSERT_EQ(0, cp_nl_pump(&self->nl, 100));
		ASSERT_EQ(0, cp_nl_experiment_stop(&self->nl)) TH_LOG("%s", self->nl.extack);
	}
	ret = cp_nl_wait_experiments(&self->nl, EXPERIMENTS, CP_WAIT_MS);
	ASSERT_EQ(0, cp_status_u64("sideband_lost", &lost));
	TH_LOG("%zu of %d EXPERIMENT records came; %llu sideband records lost, %zu MMAP bytes; start busy %d times",
	       self->stream.experiments, EXPERIMENTS, (unsigned long long)(lost - lost0),
	       self->stream.len, busy);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(EXPERIMENTS, (int)self->stream.experiments);
	EXPECT_LT(lost0, lost) TH_LOG("the flood lost no record: it tested nothing");

	kill(self->flooder, SIGKILL);
	waitpid(self->flooder, NULL, 0);
	self->flooder = 0;
	EXPECT_EQ(0, cp_nl_finish(&self->nl, CP_WAIT_MS));
}

TEST_F(flood, unprintable_event_name)
{
	struct cp_req_event ev = CP_EV_CPU_CLOCK(1000);
	uint64_t id;
	int ret;

	ev.name = "cpu-clock\nfake: log line";
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	ret = cp_nl_start_events(&self->nl, getpid(), 0, &ev, 1, &id);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_NE(NULL, strstr(self->nl.extack, "printable")) TH_LOG("extack: '%s'", self->nl.extack);
	if (!ret)
		EXPECT_EQ(0, cp_nl_stop(&self->nl));
}

TEST_HARNESS_MAIN
