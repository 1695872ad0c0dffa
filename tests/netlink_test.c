// SPDX-License-Identifier: GPL-2.0
/*
 * The "causalprof" generic netlink family: GET_STATUS, the session lifecycle,
 * ownership by a socket, FLUSH, and policy errors reported with extack.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <linux/perf_event.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "kselftest_harness.h"
#include "helpers.h"

FIXTURE(nl) {
	struct cp_nl nl;
	pid_t child;
};

FIXTURE_SETUP(nl)
{
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_nl_open(&self->nl));
	self->child = cp_spawn_sleeper();
	ASSERT_GT(self->child, 0);
}

FIXTURE_TEARDOWN(nl)
{
	cp_nl_close(&self->nl);
	EXPECT_EQ(0, cp_session_reset());
	cp_kill(self->child);
}

/* The family cprof resolves through libnl is the one the kernel lists. */
TEST_F(nl, resolve)
{
	struct nl_sock *sk;
	int id;

	EXPECT_EQ(CAUSALPROF_GENL_VERSION, (int)self->nl.family_version);
	sk = nl_socket_alloc();
	ASSERT_NE(NULL, sk);
	ASSERT_EQ(0, genl_connect(sk));
	id = genl_ctrl_resolve(sk, CAUSALPROF_GENL_NAME);
	nl_socket_free(sk);
	ASSERT_LT(0, id);
	ASSERT_EQ(self->nl.family, id);
}

TEST_F(nl, get_status_idle)
{
	struct cp_nl_status st;
	uint64_t val;
	int i;

	ASSERT_EQ(0, cp_nl_get_status(&self->nl, &st));
	ASSERT_TRUE(CP_HAS(&st, CAUSALPROF_A_VERSION));
	EXPECT_STREQ(CP_VERSION, st.version);
	ASSERT_TRUE(CP_HAS(&st, CAUSALPROF_A_STATE));
	EXPECT_EQ(CAUSALPROF_STATE_IDLE, (int)st.state);
	EXPECT_TRUE(CP_HAS(&st, CAUSALPROF_A_SESSION_ID));
	/* only while a session runs; the owner's port id never */
	EXPECT_FALSE(CP_HAS(&st, CAUSALPROF_A_OWNER));
	EXPECT_FALSE(CP_HAS(&st, CAUSALPROF_A_OWNER_PORTID));
	EXPECT_FALSE(CP_HAS(&st, CAUSALPROF_A_TARGET_PID));
	ASSERT_TRUE(CP_HAS(&st, CAUSALPROF_A_STATS));
	for (i = CAUSALPROF_STAT_PAD + 1; i <= CAUSALPROF_STAT_MAX; i++)
		EXPECT_TRUE(CP_HAS_STAT(&st, i)) TH_LOG("no CAUSALPROF_STAT %d", i);

	/* the same numbers as /proc */
	ASSERT_EQ(0, cp_status_u64("session_id", &val));
	EXPECT_EQ(val, st.session_id);
	ASSERT_EQ(0, cp_status_u64("sessions", &val));
	EXPECT_EQ(val, st.stats[CAUSALPROF_STAT_SESSIONS]);
}

TEST_F(nl, session_lifecycle)
{
	struct cp_nl_status before, st;
	struct cp_nl other;
	uint64_t id, id2;
	char val[32];

	ASSERT_EQ(0, cp_nl_get_status(&self->nl, &before));
	ASSERT_EQ(0, cp_nl_start(&self->nl, self->child, 0, &id)) TH_LOG("%s", self->nl.extack);
	EXPECT_GT(id, before.session_id);

	ASSERT_EQ(0, cp_nl_get_status(&self->nl, &st));
	EXPECT_EQ(CAUSALPROF_STATE_RECORDING, (int)st.state);
	EXPECT_EQ(id, st.session_id);
	ASSERT_TRUE(CP_HAS(&st, CAUSALPROF_A_OWNER));
	EXPECT_EQ(CAUSALPROF_OWNER_NETLINK, (int)st.owner);
	EXPECT_FALSE(CP_HAS(&st, CAUSALPROF_A_OWNER_PORTID));
	ASSERT_TRUE(CP_HAS(&st, CAUSALPROF_A_TARGET_PID));
	EXPECT_EQ(self->child, (pid_t)st.target_pid);
	EXPECT_EQ(before.stats[CAUSALPROF_STAT_SESSIONS] + 1, st.stats[CAUSALPROF_STAT_SESSIONS]);

	/* /proc tells the same story */
	ASSERT_EQ(0, cp_status_get("owner", val, sizeof(val)));
	EXPECT_STREQ("netlink", val);

	/* one session at a time, whoever asks */
	EXPECT_EQ(-EBUSY, cp_nl_start(&self->nl, self->child, 0, &id2));
	ASSERT_EQ(0, cp_nl_open(&other));
	EXPECT_EQ(-EBUSY, cp_nl_start(&other, self->child, 0, &id2));
	cp_nl_close(&other);

	ASSERT_EQ(0, cp_nl_stop(&self->nl)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_nl_wait_state(&self->nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS));
	ASSERT_EQ(0, cp_nl_get_status(&self->nl, &st));
	EXPECT_EQ(id, st.session_id);
	EXPECT_FALSE(CP_HAS(&st, CAUSALPROF_A_OWNER));
	EXPECT_FALSE(CP_HAS(&st, CAUSALPROF_A_TARGET_PID));
}

TEST_F(nl, stop_idle)
{
	ASSERT_EQ(-ENOENT, cp_nl_stop(&self->nl));
}

TEST_F(nl, start_dead_pid)
{
	uint64_t id;
	pid_t dead;

	dead = cp_dead_pid();
	ASSERT_GT(dead, 0);
	ASSERT_EQ(-ESRCH, cp_nl_start(&self->nl, dead, 0, &id));
	ASSERT_EQ(0, cp_wait_state("idle", 0));
}

TEST_F(nl, unknown_flags)
{
	uint64_t id;

	ASSERT_EQ(-EINVAL, cp_nl_start(&self->nl, self->child, 1U << 31, &id));
	EXPECT_STRNE("", self->nl.extack) TH_LOG("no extack message");
	ASSERT_EQ(-EINVAL, cp_nl_start(&self->nl, self->child, __CAUSALPROF_F_ALL + 1, &id));
	EXPECT_STRNE("", self->nl.extack) TH_LOG("no extack message");
	ASSERT_EQ(0, cp_wait_state("idle", 0));
}

/* Neither a target nor CAUSALPROF_F_SYSTEM_WIDE: nothing to profile. */
TEST_F(nl, no_target)
{
	uint64_t id;

	ASSERT_EQ(-EINVAL, cp_nl_start(&self->nl, 0, 0, &id));
	EXPECT_STRNE("", self->nl.extack) TH_LOG("no extack message");
	ASSERT_EQ(0, cp_wait_state("idle", 0));
}

/* The policy checks sizes: a u16 where a u32 belongs is rejected. */
TEST_F(nl, bad_attr_size)
{
	char attrs[16] __attribute__((aligned(4)));
	uint16_t pid = self->child;
	size_t len;

	ASSERT_GT(1 << 16, self->child);
	len = cp_nla_put(attrs, 0, CAUSALPROF_A_TARGET_PID, &pid, sizeof(pid));
	ASSERT_EQ(-EINVAL, cp_nl_request(&self->nl, CAUSALPROF_CMD_SESSION_START, attrs, len,
					 NULL, 0));
	EXPECT_STRNE("", self->nl.extack) TH_LOG("no extack message");
	ASSERT_EQ(0, cp_wait_state("idle", 0));
}

/*
 * A SESSION_START with CAUSALPROF_A_GO_LABELS: @fields of them (FORMAT,
 * TLS_G, G_M, M_CURG, G_LABELS, in that order; fewer leaves the last ones
 * out) with the values @v, the G_LABELS one @shorty bytes long when not 0;
 * @pid 0: none. A session it starts is stopped at once.
 */
static int start_go(struct cp_nl *nl, pid_t pid, uint32_t flags, const uint32_t *v,
		    int fields, size_t shorty)
{
	static const uint16_t types[] = {
		CAUSALPROF_GO_A_FORMAT, CAUSALPROF_GO_A_TLS_G, CAUSALPROF_GO_A_G_M,
		CAUSALPROF_GO_A_M_CURG, CAUSALPROF_GO_A_G_LABELS,
	};
	char attrs[128] __attribute__((aligned(4)));
	size_t len, nest;
	int i, ret;

	len = pid ? cp_nla_put(attrs, 0, CAUSALPROF_A_TARGET_PID, &pid, sizeof(pid)) : 0;
	len = cp_nla_put(attrs, len, CAUSALPROF_A_FLAGS, &flags, sizeof(flags));
	len = cp_nla_nest_start(attrs, len, CAUSALPROF_A_GO_LABELS, &nest);
	for (i = 0; i < fields; i++)
		len = cp_nla_put(attrs, len, types[i], &v[i],
				 i == 4 && shorty ? shorty : sizeof(v[i]));
	cp_nla_nest_end(attrs, nest, len);
	ret = cp_nl_request(nl, CAUSALPROF_CMD_SESSION_START, attrs, len, NULL, 0);
	if (!ret)
		ret = cp_nl_finish(nl, CP_WAIT_MS);
	return ret;
}

/*
 * CAUSALPROF_A_GO_LABELS: each field checked, its extack message naming
 * it; a well-formed one starts a session (of a program that is not Go: it
 * only reads nothing).
 */
TEST_F(nl, go_labels)
{
	const uint32_t good[] = { CAUSALPROF_GO_FORMAT_MAP, (uint32_t)-8, 48, 192, 352 };
	static const struct {
		int field;		/* of good[], changed */
		uint32_t value;
		const char *msg;
	} bad[] = {
		{ 0, 0, "CAUSALPROF_GO_A_FORMAT is not a known format" },
		{ 0, 2, "CAUSALPROF_GO_A_FORMAT is not a known format" },
		{ 1, 0, "CAUSALPROF_GO_A_TLS_G is not within -4096 to -8" },
		{ 1, (uint32_t)-12, "CAUSALPROF_GO_A_TLS_G is not within -4096 to -8" },
		{ 1, (uint32_t)-4104, "CAUSALPROF_GO_A_TLS_G is not within -4096 to -8" },
		{ 2, 4096, "CAUSALPROF_GO_A_G_M is not below 4096" },
		{ 3, 193, "CAUSALPROF_GO_A_M_CURG is not below 4096 and a multiple of 8" },
		{ 4, 1U << 31, "CAUSALPROF_GO_A_G_LABELS is not below 4096" },
	};
	uint32_t v[5];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(v, good, sizeof(v));
		v[bad[i].field] = bad[i].value;
		EXPECT_EQ(-EINVAL, start_go(&self->nl, self->child, 0, v, 5, 0));
		EXPECT_NE(NULL, strstr(self->nl.extack, bad[i].msg))
			TH_LOG("field %d: '%s', not '%s'", bad[i].field, self->nl.extack,
			       bad[i].msg);
	}
	/* A field missing, named. */
	EXPECT_EQ(-EINVAL, start_go(&self->nl, self->child, 0, good, 4, 0));
	EXPECT_NE(NULL, strstr(self->nl.extack, "without CAUSALPROF_GO_A_G_LABELS"))
		TH_LOG("'%s'", self->nl.extack);
	/* The policy: a u16 where a u32 goes. */
	EXPECT_EQ(-EINVAL, start_go(&self->nl, self->child, 0, good, 5, 2));
	EXPECT_STRNE("", self->nl.extack);
	/* System-wide sessions have no target to read. */
	EXPECT_EQ(-EINVAL, start_go(&self->nl, 0, CAUSALPROF_F_SYSTEM_WIDE, good, 5, 0));
	EXPECT_NE(NULL, strstr(self->nl.extack, "needs a target")) TH_LOG("'%s'",
									 self->nl.extack);
	ASSERT_EQ(0, cp_wait_state("idle", 0));
	ASSERT_EQ(0, start_go(&self->nl, self->child, 0, good, 5, 0)) TH_LOG("'%s'",
									     self->nl.extack);
}

/*
 * Commands that take no attribute refuse one, with the kernel's message, and
 * do nothing: the session a refused SESSION_STOP names goes on.
 */
TEST_F(nl, no_attr_commands)
{
	char attrs[16] __attribute__((aligned(4)));
	uint32_t flags = 0;
	uint64_t id;
	size_t len;

	len = cp_nla_put(attrs, 0, CAUSALPROF_A_FLAGS, &flags, sizeof(flags));
	ASSERT_EQ(-EINVAL, cp_nl_request(&self->nl, CAUSALPROF_CMD_GET_STATUS, attrs, len,
					 NULL, 0));
	EXPECT_NE(NULL, strstr(self->nl.extack, "attribute")) TH_LOG("extack '%s'", self->nl.extack);

	ASSERT_EQ(0, cp_nl_start(&self->nl, self->child, 0, &id));
	ASSERT_EQ(-EINVAL, cp_nl_request(&self->nl, CAUSALPROF_CMD_SESSION_STOP, attrs, len,
					 NULL, 0));
	EXPECT_NE(NULL, strstr(self->nl.extack, "attribute")) TH_LOG("extack '%s'", self->nl.extack);
	EXPECT_EQ(0, cp_wait_state("recording", 0));
	ASSERT_EQ(0, cp_nl_stop(&self->nl));
	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
}

/*
 * A request is answered while the owner's socket is full of records: the
 * stream leaves room for the acknowledgement, which netlink would drop
 * (the socket then reports ENOBUFS, or the request waits forever).
 */
TEST_F_TIMEOUT(nl, ack_when_flooded, 90)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(10000);
	struct cp_target target = { .go = -1, .out = -1 };
	struct cp_stream stream = {};
	char spin[PATH_MAX], buf[4096];
	char *argv[] = { spin, "-t", "2", "-s", "30", NULL };
	uint64_t id;
	int i, ret;

	ASSERT_EQ(0, cp_target_path("spin", spin, sizeof(spin)));
	ASSERT_EQ(0, cp_target_spawn(&target, argv, true));
	ASSERT_EQ(0, cp_nl_start_events(&self->nl, target.pid, CP_F_STACKS, &ev, 1, &id))
		TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&target));
	for (i = 0; i < 5; i++) {
		/* Not reading: the records fill the socket's receive queue. */
		sleep(2);
		ret = cp_nl_request(&self->nl, CAUSALPROF_CMD_GET_STATUS, NULL, 0, buf,
				    sizeof(buf));
		EXPECT_LT(0, ret) TH_LOG("round %d: %s (%s)", i, strerror(-ret),
					  self->nl.extack);
	}
	/* Acked too, and the rest of the stream up to its END comes. */
	self->nl.stream = &stream;
	EXPECT_EQ(0, cp_nl_finish(&self->nl, 30000)) TH_LOG("%s", self->nl.extack);
	EXPECT_TRUE(stream.ended);
	self->nl.stream = NULL;
	cp_stream_free(&stream);
	cp_target_kill(&target);
}

/*
 * A session that drains seldom (CAUSALPROF_A_DRAIN_MS) sends nothing
 * between its drains; a FLUSH of its owner has every sample taken before
 * it (the module's count of them, read before the request) handed over
 * before its ack. Only the owner may flush; without a session, -ENOENT.
 * The period is 1 to 60000 ms, else -EINVAL with a message.
 */
TEST_F_TIMEOUT(nl, flush_before_ack, 90)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(1000);
	struct cp_target target = { .go = -1, .out = -1 };
	char spin[PATH_MAX];
	char *argv[] = { spin, "-t", "1", "-s", "30", NULL };
	struct cp_stream stream = {};
	uint64_t id, s0, s1;
	char attrs[32] __attribute__((aligned(4)));
	struct cp_nl other;
	uint32_t zero = 0;
	size_t got = 0, len;
	int i;

	ASSERT_EQ(0, cp_target_path("spin", spin, sizeof(spin)));
	EXPECT_EQ(-EINVAL, cp_nl_start_drain(&self->nl, self->child, CP_F_STACKS, &ev, 1, 0,
					     60001, &id));
	EXPECT_NE(NULL, strstr(self->nl.extack, "CAUSALPROF_A_DRAIN_MS is not within 1 to 60000"))
		TH_LOG("extack '%s'", self->nl.extack);
	/* 0, which the helper leaves out */
	len = cp_nla_put(attrs, 0, CAUSALPROF_A_TARGET_PID, &self->child, sizeof(self->child));
	len = cp_nla_put(attrs, len, CAUSALPROF_A_DRAIN_MS, &zero, sizeof(zero));
	EXPECT_EQ(-EINVAL, cp_nl_request(&self->nl, CAUSALPROF_CMD_SESSION_START, attrs, len,
					 NULL, 0));
	EXPECT_NE(NULL, strstr(self->nl.extack, "CAUSALPROF_A_DRAIN_MS is not within 1 to 60000"))
		TH_LOG("extack '%s'", self->nl.extack);
	EXPECT_EQ(-ENOENT, cp_nl_request(&self->nl, CAUSALPROF_CMD_FLUSH, NULL, 0, NULL, 0));

	ASSERT_EQ(0, cp_target_spawn(&target, argv, true));
	ASSERT_EQ(0, cp_nl_set_rcvbuf(&self->nl, 32 << 20));
	self->nl.stream = &stream;
	ASSERT_EQ(0, cp_status_u64("samples", &s0));
	ASSERT_EQ(0, cp_nl_start_drain(&self->nl, target.pid, CP_F_STACKS, &ev, 1, 0, 60000, &id))
		TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_target_release(&target));
	for (i = 0; i < 3; i++) {
		/* About 300 samples each time: far from half a ring. */
		ASSERT_EQ(0, cp_nl_pump(&self->nl, 300));
		EXPECT_EQ(got, stream.samples) TH_LOG("round %d: records came between flushes", i);
		ASSERT_EQ(0, cp_status_u64("samples", &s1));
		ASSERT_EQ(0, cp_nl_request(&self->nl, CAUSALPROF_CMD_FLUSH, NULL, 0, NULL, 0))
			TH_LOG("round %d: %s", i, self->nl.extack);
		EXPECT_LT(got, stream.samples) TH_LOG("round %d: nothing flushed", i);
		EXPECT_LE(s1 - s0, stream.samples)
			TH_LOG("round %d: %zu samples before the ack, %llu taken before the flush",
			       i, stream.samples, (unsigned long long)(s1 - s0));
		got = stream.samples;
	}

	ASSERT_EQ(0, cp_nl_open(&other));
	EXPECT_EQ(-EPERM, cp_nl_request(&other, CAUSALPROF_CMD_FLUSH, NULL, 0, NULL, 0));
	EXPECT_NE(NULL, strstr(other.extack, "only the session's owner")) TH_LOG("'%s'",
										   other.extack);
	cp_nl_close(&other);
	EXPECT_EQ(0, cp_nl_finish(&self->nl, 30000)) TH_LOG("%s", self->nl.extack);
	EXPECT_EQ(NULL, cp_stream_problem(&stream));
	self->nl.stream = NULL;
	cp_stream_free(&stream);
	cp_target_kill(&target);
}

/*
 * Closing a flooded owner's socket (records it never read fill its receive
 * queue) ends the session as soon as an idle owner's close does: the
 * records left are dropped, not waited on.
 */
TEST_F_TIMEOUT(nl, flooded_owner_close, 90)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(10000);
	struct cp_target target = { .go = -1, .out = -1 };
	char spin[PATH_MAX];
	char *argv[] = { spin, "-t", "2", "-s", "30", NULL };
	struct cp_nl owner;
	int64_t t0;
	uint64_t id;

	ASSERT_EQ(0, cp_target_path("spin", spin, sizeof(spin)));
	ASSERT_EQ(0, cp_target_spawn(&target, argv, true));
	ASSERT_EQ(0, cp_nl_open(&owner));
	ASSERT_EQ(0, cp_nl_start_events(&owner, target.pid, CP_F_STACKS, &ev, 1, &id))
		TH_LOG("%s", owner.extack);
	ASSERT_EQ(0, cp_target_release(&target));
	/* Not reading: the records fill the socket's receive queue. */
	sleep(4);
	t0 = cp_now_ms();
	cp_nl_close(&owner);
	EXPECT_EQ(0, cp_nl_wait_state(&self->nl, CAUSALPROF_STATE_IDLE, 30000));
	TH_LOG("idle %.2f s after the close", (cp_now_ms() - t0) / 1000.0);
	EXPECT_GT(CP_WAIT_MS, cp_now_ms() - t0);
	cp_target_kill(&target);
}

/* Closing the owner's socket ends its session. */
TEST_F(nl, owner_close)
{
	struct cp_nl owner;
	uint64_t id;

	ASSERT_EQ(0, cp_nl_open(&owner));
	ASSERT_EQ(0, cp_nl_start(&owner, self->child, 0, &id)) TH_LOG("%s", owner.extack);
	ASSERT_EQ(0, cp_wait_state("recording", 0));
	cp_nl_close(&owner);
	ASSERT_EQ(0, cp_nl_wait_state(&self->nl, CAUSALPROF_STATE_IDLE, CP_WAIT_MS))
		TH_LOG("session survived its owner's socket");
}

/* A socket that is not the owner closing changes nothing. */
TEST_F(nl, other_close)
{
	struct cp_nl other;
	uint64_t id;

	ASSERT_EQ(0, cp_nl_start(&self->nl, self->child, 0, &id)) TH_LOG("%s", self->nl.extack);
	ASSERT_EQ(0, cp_nl_open(&other));
	cp_nl_close(&other);
	ASSERT_EQ(0, cp_wait_state("recording", 0));
	ASSERT_EQ(0, cp_nl_stop(&self->nl));
}

/*
 * A refused start's extack message is its own request's, however many
 * other starts are refused meanwhile: 24 processes, each refused 200
 * times for a raw event named after itself (no PMU in the VM, or a raw
 * event it does not know), each message must name that process's event.
 * The module once formatted these messages into 16 shared slots, which
 * later failures overwrote before the ack had copied them.
 */
#define RACERS		24
#define RACES		200

static int race(int n, pid_t target)
{
	struct cp_req_event ev = { .type = PERF_TYPE_RAW, .config = 0x1ff, .freq = 100 };
	char name[32];
	struct cp_nl nl;
	int i, wrong = 0;
	uint64_t id;

	snprintf(name, sizeof(name), "racer-%02d", n);
	ev.name = name;
	if (cp_nl_open(&nl))
		return 255;
	for (i = 0; i < RACES; i++) {
		if (!cp_nl_start_events(&nl, target, 0, &ev, 1, &id)) {
			cp_nl_stop(&nl);
			continue;
		}
		if (strncmp(nl.extack, name, strlen(name)) || nl.extack[strlen(name)] != ':')
			wrong++;
	}
	cp_nl_close(&nl);
	return wrong > 254 ? 254 : wrong;
}

TEST_F_TIMEOUT(nl, extack_messages_are_their_own, 240)
{
	pid_t racers[RACERS];
	int i, status, wrong = 0;

	for (i = 0; i < RACERS; i++) {
		racers[i] = fork();
		ASSERT_LE(0, racers[i]);
		if (!racers[i])
			_exit(race(i, self->child));
	}
	for (i = 0; i < RACERS; i++) {
		ASSERT_EQ(racers[i], waitpid(racers[i], &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_NE(255, WEXITSTATUS(status));
		wrong += WEXITSTATUS(status);
	}
	EXPECT_EQ(0, wrong) TH_LOG("%d of %d messages named another request's event", wrong,
				   RACERS * RACES);
}

TEST_HARNESS_MAIN
