// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/causalprof: the status file's format, and the text control file's
 * commands (with the sampler's keys) and error codes; it cannot seek.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

static const char *const status_keys[] = {
	"version", "state", "session_id", "target_pid", "owner",
	"sessions", "samples", "lost", "overflows", "records_sent",
};

/* The counters and ids: decimal u64, nothing else. */
static bool is_u64_key(const char *key)
{
	return strcmp(key, "version") && strcmp(key, "state") &&
	       strcmp(key, "target_pid") && strcmp(key, "owner");
}

/*
 * The documented keys come first, exactly and in order. Later phases may
 * append keys: counters, lowercase names, each once.
 */
TEST(status_format)
{
	char buf[4096], *line, *sep, *save, *seen[64];
	size_t n = 0, i;
	uint64_t val;

	ASSERT_LT(0, cp_status_read(buf, sizeof(buf)));
	ASSERT_EQ('\n', buf[strlen(buf) - 1]) TH_LOG("last line not terminated");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ASSERT_LT(n, ARRAY_SIZE(seen)) TH_LOG("too many lines");
		sep = strstr(line, ": ");
		ASSERT_NE(NULL, sep) TH_LOG("line '%s' is not 'key: value'", line);
		*sep = '\0';
		if (n < ARRAY_SIZE(status_keys)) {
			ASSERT_STREQ(status_keys[n], line);
		} else {
			ASSERT_EQ(strlen(line), strspn(line, "abcdefghijklmnopqrstuvwxyz_"))
				TH_LOG("appended key '%s'", line);
			for (i = 0; i < n; i++)
				ASSERT_STRNE(seen[i], line) TH_LOG("key '%s' repeated", line);
		}
		if (n >= ARRAY_SIZE(status_keys) || is_u64_key(line)) {
			ASSERT_EQ(0, cp_parse_u64(sep + 2, &val))
				TH_LOG("%s: '%s' is not a u64", line, sep + 2);
		}
		seen[n++] = line;
	}
	ASSERT_LE(ARRAY_SIZE(status_keys), n);
}

/* control takes a stream of commands: it cannot seek (ESPIPE). */
TEST(control_not_seekable)
{
	int fd = open(CP_CONTROL, O_WRONLY | O_CLOEXEC);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);
}

FIXTURE(control) {
	pid_t child;
	char start[64];
	uint64_t sessions;
	uint64_t session_id;
};

FIXTURE_SETUP(control)
{
	ASSERT_EQ(0, cp_session_reset());
	self->child = cp_spawn_sleeper();
	ASSERT_GT(self->child, 0);
	snprintf(self->start, sizeof(self->start), "start pid=%d", self->child);
	ASSERT_EQ(0, cp_status_u64("sessions", &self->sessions));
	ASSERT_EQ(0, cp_status_u64("session_id", &self->session_id));
}

FIXTURE_TEARDOWN(control)
{
	EXPECT_EQ(0, cp_session_reset());
	cp_kill(self->child);
}

static void expect_status(struct __test_metadata *_metadata, const char *key,
			  const char *expected)
{
	char val[64];

	ASSERT_EQ(0, cp_status_get(key, val, sizeof(val))) TH_LOG("key %s", key);
	EXPECT_STREQ(expected, val) TH_LOG("key %s", key);
}

TEST_F(control, idle_values)
{
	expect_status(_metadata, "version", CP_VERSION);
	expect_status(_metadata, "state", "idle");
	expect_status(_metadata, "target_pid", "-");
	expect_status(_metadata, "owner", "-");
}

TEST_F(control, start_stop)
{
	uint64_t sessions, id, id2;
	char pid[16];

	ASSERT_EQ(0, cp_control(self->start));
	snprintf(pid, sizeof(pid), "%d", self->child);
	expect_status(_metadata, "state", "recording");
	expect_status(_metadata, "target_pid", pid);
	expect_status(_metadata, "owner", "proc");	/* no netlink owner */
	ASSERT_EQ(0, cp_status_u64("sessions", &sessions));
	EXPECT_EQ(self->sessions + 1, sessions);
	ASSERT_EQ(0, cp_status_u64("session_id", &id));
	EXPECT_GT(id, self->session_id);

	ASSERT_EQ(0, cp_control("stop"));
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
	expect_status(_metadata, "target_pid", "-");
	ASSERT_EQ(0, cp_status_u64("session_id", &id2));
	EXPECT_EQ(id, id2) TH_LOG("session_id is the last session's after stop");
	ASSERT_EQ(0, cp_status_u64("sessions", &sessions));
	EXPECT_EQ(self->sessions + 1, sessions);
}

/* What `echo start pid=N > control` writes: the newline is not an error. */
TEST_F(control, newline_terminated)
{
	char cmd[80];

	snprintf(cmd, sizeof(cmd), "%s\n", self->start);
	ASSERT_EQ(0, cp_control(cmd));
	expect_status(_metadata, "state", "recording");
	ASSERT_EQ(0, cp_control("stop\n"));
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
}

TEST_F(control, second_start_busy)
{
	char other[64], pid[16];
	pid_t child2;

	ASSERT_EQ(0, cp_control(self->start));
	ASSERT_EQ(-EBUSY, cp_control(self->start));
	child2 = cp_spawn_sleeper();
	ASSERT_GT(child2, 0);
	snprintf(other, sizeof(other), "start pid=%d", child2);
	EXPECT_EQ(-EBUSY, cp_control(other));
	cp_kill(child2);
	/* the running session is untouched */
	snprintf(pid, sizeof(pid), "%d", self->child);
	expect_status(_metadata, "state", "recording");
	expect_status(_metadata, "target_pid", pid);
}

TEST_F(control, stop_idle)
{
	ASSERT_EQ(-ENOENT, cp_control("stop"));
	expect_status(_metadata, "state", "idle");
}

TEST_F(control, start_dead_pid)
{
	char cmd[64];
	pid_t dead;
	uint64_t sessions;

	dead = cp_dead_pid();
	ASSERT_GT(dead, 0);
	snprintf(cmd, sizeof(cmd), "start pid=%d", dead);
	ASSERT_EQ(-ESRCH, cp_control(cmd));
	expect_status(_metadata, "state", "idle");
	ASSERT_EQ(0, cp_status_u64("sessions", &sessions));
	EXPECT_EQ(self->sessions, sessions);
}

/*
 * A 1 MiB write that starts like a valid command: the module must reject it
 * whole, not parse a prefix, and stay healthy.
 */
TEST_F(control, huge_write)
{
	size_t len = 1 << 20, n;
	char *buf;

	buf = malloc(len);
	ASSERT_NE(NULL, buf);
	n = strlen(self->start);
	memcpy(buf, self->start, n);
	memset(buf + n, ' ', len - n);
	EXPECT_EQ(-EINVAL, cp_control_write(buf, len));
	free(buf);
	expect_status(_metadata, "version", CP_VERSION);
	expect_status(_metadata, "state", "idle");
}

/* The sampler's keys, all of them valid: a session starts. */
TEST_F(control, sampler_keys)
{
	static const char *const opts[] = {
		"event=cpu-clock",
		"event=cpu-clock freq=1000 callchain=1 inherit=1",
		"event=cpu-clock period=2000000 callchain=0 inherit=0",
		/* above the module's max_freq (100000): accepted, and lowered */
		"event=cpu-clock freq=1000000",
	};
	char cmd[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		snprintf(cmd, sizeof(cmd), "%s %s", self->start, opts[i]);
		EXPECT_EQ(0, cp_control(cmd)) TH_LOG("'%s'", cmd);
		expect_status(_metadata, "state", "recording");
		EXPECT_EQ(0, cp_session_reset());
	}
}

/* A 1 MiB line of events: rejected whole, and the module stays healthy. */
TEST_F(control, huge_event_write)
{
	size_t len = 1 << 20, n;
	char *buf;

	buf = malloc(len);
	ASSERT_NE(NULL, buf);
	n = snprintf(buf, len, "%s event=", self->start);
	for (; n + 10 < len; n += 10)
		memcpy(buf + n, "cpu-clock,", 10);
	memcpy(buf + n, "cpu-clock", len - n);
	EXPECT_EQ(-EINVAL, cp_control_write(buf, len));
	free(buf);
	expect_status(_metadata, "state", "idle");
	ASSERT_EQ(0, cp_control(self->start));
	ASSERT_EQ(0, cp_control("stop"));
}

FIXTURE(bad_command) {
	pid_t child;
};

FIXTURE_VARIANT(bad_command) {
	const char *cmd;	/* a %d, if any, is the target's pid */
};

FIXTURE_VARIANT_ADD(bad_command, garbage) { .cmd = "garbage" };
FIXTURE_VARIANT_ADD(bad_command, binary) { .cmd = "\x01\xff\x7f" };
FIXTURE_VARIANT_ADD(bad_command, unknown_key) { .cmd = "start foo=%d" };
FIXTURE_VARIANT_ADD(bad_command, pid_negative) { .cmd = "start pid=-1" };
FIXTURE_VARIANT_ADD(bad_command, pid_overflow) { .cmd = "start pid=99999999999" };
FIXTURE_VARIANT_ADD(bad_command, pid_empty) { .cmd = "start pid=" };
FIXTURE_VARIANT_ADD(bad_command, pid_trailing) { .cmd = "start pid=%dx" };
FIXTURE_VARIANT_ADD(bad_command, unknown_option) { .cmd = "start pid=%d bogus" };
/* the sampler's keys */
FIXTURE_VARIANT_ADD(bad_command, event_unknown) { .cmd = "start pid=%d event=nosuch" };
FIXTURE_VARIANT_ADD(bad_command, event_empty) { .cmd = "start pid=%d event=" };
FIXTURE_VARIANT_ADD(bad_command, event_empty_name) { .cmd = "start pid=%d event=cpu-clock," };
FIXTURE_VARIANT_ADD(bad_command, event_raw_not_hex) { .cmd = "start pid=%d event=rxyz" };
FIXTURE_VARIANT_ADD(bad_command, events_too_many) {
	/* nine different events, one more than CAUSALPROF_MAX_EVENTS */
	.cmd = "start pid=%d event=cycles,instructions,cache-references,cache-misses,"
	       "branches,branch-misses,cpu-clock,r00c0,r01c2",
};
FIXTURE_VARIANT_ADD(bad_command, freq_zero) { .cmd = "start pid=%d event=cpu-clock freq=0" };
FIXTURE_VARIANT_ADD(bad_command, freq_negative) { .cmd = "start pid=%d event=cpu-clock freq=-5" };
FIXTURE_VARIANT_ADD(bad_command, freq_overflow) {
	.cmd = "start pid=%d event=cpu-clock freq=99999999999999999999",
};
FIXTURE_VARIANT_ADD(bad_command, period_zero) { .cmd = "start pid=%d event=cpu-clock period=0" };
FIXTURE_VARIANT_ADD(bad_command, freq_and_period) {
	.cmd = "start pid=%d event=cpu-clock freq=100 period=100",
};
FIXTURE_VARIANT_ADD(bad_command, callchain_2) { .cmd = "start pid=%d callchain=2" };
FIXTURE_VARIANT_ADD(bad_command, inherit_2) { .cmd = "start pid=%d inherit=2" };

FIXTURE_SETUP(bad_command)
{
	ASSERT_EQ(0, cp_session_reset());
	self->child = cp_spawn_sleeper();
	ASSERT_GT(self->child, 0);
}

FIXTURE_TEARDOWN(bad_command)
{
	EXPECT_EQ(0, cp_session_reset());
	cp_kill(self->child);
}

TEST_F(bad_command, einval)
{
	char cmd[128], state[32];

	snprintf(cmd, sizeof(cmd), variant->cmd, self->child);
	EXPECT_EQ(-EINVAL, cp_control(cmd)) TH_LOG("command '%s'", cmd);
	ASSERT_EQ(0, cp_status_get("state", state, sizeof(state)));
	EXPECT_STREQ("idle", state);

	/* still healthy: a plain session starts and stops */
	snprintf(cmd, sizeof(cmd), "start pid=%d", self->child);
	ASSERT_EQ(0, cp_control(cmd));
	ASSERT_EQ(0, cp_control("stop"));
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
}

TEST_HARNESS_MAIN
