// SPDX-License-Identifier: GPL-2.0
/*
 * Bounds on what an experiment does to its targets, on
 * tests/targets/causal (A spins in the selected code, B elsewhere), through
 * /proc:
 * - a payment is one interruptible sleep (state S, never D, which the hung
 *   task detector would count) of at most a second, whatever max_pause_us
 *   says: with min_pause_us at 1.5 s and max_pause_us at 5 s, B pays in
 *   sleeps of 1 s;
 * - an experiment nobody stops stops by itself after max_experiment_s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(limits) {
	struct cp_target target;
	struct cp_causal c;	/* the causal target's ready line */
	uint64_t min_pause, max_pause, max_exp;
	char text[1 << 16];
};

FIXTURE_SETUP(limits)
{
	char path[PATH_MAX], cmd[128];

	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_module_param_get("min_pause_us", &self->min_pause));
	ASSERT_EQ(0, cp_module_param_get("max_pause_us", &self->max_pause));
	ASSERT_EQ(0, cp_target_path("causal", path, sizeof(path)));
	ASSERT_EQ(5, cp_causal_spawn(&self->target, path, "spin", "0", &self->c));
	snprintf(cmd, sizeof(cmd), "start pid=%d event=cpu-clock freq=1000", self->c.pid);
	ASSERT_EQ(0, cp_control(cmd));
}

FIXTURE_TEARDOWN(limits)
{
	EXPECT_EQ(0, cp_session_reset());
	cp_target_kill(&self->target);
	EXPECT_EQ(0, cp_module_param_set("min_pause_us", self->min_pause));
	EXPECT_EQ(0, cp_module_param_set("max_pause_us", self->max_pause));
	if (self->max_exp)
		EXPECT_EQ(0, cp_module_param_set("max_experiment_s", self->max_exp));
}

static int experiment_start(FIXTURE_DATA(limits) *self, unsigned int speedup)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "experiment start speedup=%u range=%d:0x%llx-0x%llx",
		 speedup, self->c.pid, self->c.start, self->c.end);
	return cp_control(cmd);
}

/* Thread tid's state letter (R, S, D, ...) and wchan; 0 when it cannot tell. */
static char thread_state(pid_t pid, pid_t tid, char *wchan, size_t size)
{
	char path[128], buf[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(wchan, 1, size - 1, f);
	fclose(f);
	wchan[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')) || p[1] != ' ')
		return 0;
	return p[2];
}

TEST_F_TIMEOUT(limits, payments, 60)
{
	int looks = 0, paying = 0, uninterruptible = 0, payments;
	struct timespec ts = { .tv_nsec = 10000000 };
	int64_t local, paid;
	char wchan[64], state;

	ASSERT_EQ(0, cp_module_param_set("min_pause_us", 1500000));
	ASSERT_EQ(0, cp_module_param_set("max_pause_us", 5000000));
	ASSERT_EQ(0, experiment_start(self, 1000));
	/* About 5 s: B owes 1.5 s after as much of A's time, then pays. */
	for (looks = 0; looks < 500; looks++) {
		nanosleep(&ts, NULL);
		state = thread_state(self->c.pid, self->c.b, wchan, sizeof(wchan));
		if (strcmp(wchan, "pay") && strcmp(wchan, "settle"))
			continue;
		paying++;
		uninterruptible += state == 'D';
	}
	ASSERT_EQ(0, cp_control("experiment stop"));
	ASSERT_EQ(0, cp_exp_read(self->text, sizeof(self->text)));
	ASSERT_EQ(0, cp_exp_task(self->text, self->c.b, &local, &paid, &payments))
		TH_LOG("B has no task line");
	TH_LOG("B in a payment at %d of %d looks, %d of them in D state; paid %.3f s in %d payments",
	       paying, looks, uninterruptible, paid / 1e9, payments);
	ASSERT_LT(0, payments) TH_LOG("B never paid: nothing to judge");
	EXPECT_LT(0, paying);
	EXPECT_EQ(0, uninterruptible) TH_LOG("a payment sleeps in D state");
	EXPECT_LE(paid / payments, 1050000000) TH_LOG("a payment longer than a second");
}

TEST_F_TIMEOUT(limits, experiment_timeout, 30)
{
	int64_t wall;
	int i;

	ASSERT_EQ(0, cp_module_param_get("max_experiment_s", &self->max_exp))
		TH_LOG("no max_experiment_s parameter");
	ASSERT_EQ(0, cp_module_param_set("max_experiment_s", 1));
	ASSERT_EQ(0, experiment_start(self, 0));
	for (i = 0; i < 400; i++) {
		ASSERT_EQ(0, cp_exp_read(self->text, sizeof(self->text)));
		if (strstr(self->text, "\nstate: stopped\n"))
			break;
		usleep(10000);
	}
	ASSERT_NE(NULL, strstr(self->text, "\nstate: stopped\n"))
		TH_LOG("the experiment still runs after 4 s");
	ASSERT_EQ(0, cp_exp_i64(self->text, "wall_ns", &wall));
	EXPECT_LE(1000000000, wall);
	EXPECT_EQ(-ENOENT, cp_control("experiment stop"));
	ASSERT_EQ(0, cp_wait_state("recording", 0)) TH_LOG("the session stopped too");
}

TEST_HARNESS_MAIN
