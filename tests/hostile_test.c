// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input (Documentation/reliability.rst): the module's two control
 * surfaces fed what no client sends, as fast as the VM goes.
 *
 * - control_writes: 100 000 writes to /proc/causalprof/control, a third
 *   random bytes (NULs, newlines, empty, up to 4097 bytes), the rest built
 *   from the grammar with one thing wrong or nothing (every verb and key,
 *   values huge, negative, empty, repeated, a real target's pid or code),
 *   one in 20 of them a valid start, experiment or progress command;
 * - netlink_malformed: 10 000 generic netlink requests to every command
 *   (nine in ten) and to unknown ones, with attributes of unknown types, wrong lengths,
 *   missing, duplicated, oversized (up to 60 KiB), nested garbage and
 *   valid requests with one field broken;
 * - sequences: 300 random sequences of the real commands (session
 *   start/stop, experiment start/stop, progress add/del, status, over
 *   three root sockets that also close and reopen, /proc, and children
 *   that became uid 1000 with CAP_PERFMON).
 *
 * Every request must be answered (a write returns, a netlink request gets
 * its ack within 5 s), the kernel stays untainted (the VM harness fails a
 * run on any oops or WARN), and a normal session records after each test.
 * The counts of what was tried and of each answer are printed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define WRITES		100000
#define MESSAGES	10000
#define SEQUENCES	300
#define ANSWER_MS	5000
#define MAX_ERRNO	160

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64*: reproducible from the seed printed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 2685821657736338717ULL) >> 32;
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static void seed(struct __test_metadata *_metadata)
{
	const char *env = getenv("CP_HOSTILE_SEED");

	rng_state = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 2654435761ULL + getpid();
	if (!rng_state)
		rng_state = 1;
	TH_LOG("seed 0x%" PRIx64 " (CP_HOSTILE_SEED to replay)", rng_state);
}

/* Answers by errno (0: success); the last slot counts the rest. */
struct tally {
	uint64_t by[MAX_ERRNO + 1];
	uint64_t tried, unanswered;
};

static void count(struct tally *t, int ret)
{
	int e = ret < 0 ? -ret : 0;

	t->by[e < MAX_ERRNO ? e : MAX_ERRNO]++;
}

static void tally_log(struct __test_metadata *_metadata, const char *what, struct tally *t)
{
	char line[1024];
	size_t len;
	int e;

	len = snprintf(line, sizeof(line), "%s: %" PRIu64 " tried, %" PRIu64 " unanswered;",
		       what, t->tried, t->unanswered);
	for (e = 0; e <= MAX_ERRNO && len < sizeof(line) - 32; e++)
		if (t->by[e])
			len += snprintf(line + len, sizeof(line) - len, " %s %" PRIu64,
					e ? (e < MAX_ERRNO ? strerrorname_np(e) : "other") : "ok",
					t->by[e]);
	TH_LOG("%s", line);
}

/* A session on spin records, its stream whole: the module still works. */
static void normal_session(struct __test_metadata *_metadata)
{
	char path[PATH_MAX];
	char *argv[] = { path, "-t", "1", "-s", "1", NULL };
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(1000);
	struct cp_target t = { .pid = 0 };
	struct cp_stream *s = calloc(1, sizeof(*s));
	struct cp_nl nl;
	const char *why;
	int ret;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_target_path("spin", path, sizeof(path)));
	ASSERT_EQ(0, cp_nl_open(&nl));
	nl.stream = s;
	ret = cp_record(&nl, &t, argv, CP_F_STACKS, &ev, 1, 30000);
	EXPECT_EQ(0, ret) TH_LOG("record: %s (%s)", strerror(-ret), nl.extack);
	why = cp_stream_problem(s);
	EXPECT_EQ(NULL, why) TH_LOG("stream: %s", why);
	EXPECT_LT(0UL, s->samples);
	cp_nl_close(&nl);
	cp_stream_free(s);
	free(s);
}

FIXTURE(hostile) {
	uint64_t taint;
	struct cp_prog prog;		/* a real target: pid, code, progress offsets */
};

FIXTURE_SETUP(hostile)
{
	cp_prog_init(&self->prog);
	ASSERT_EQ(0, cp_kernel_taint(&self->taint));
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_prog_spawn(&self->prog));
	seed(_metadata);
}

FIXTURE_TEARDOWN(hostile)
{
	uint64_t taint = 0;

	EXPECT_EQ(0, cp_session_reset());
	cp_prog_kill(&self->prog);
	EXPECT_EQ(0, cp_kernel_taint(&taint));
	EXPECT_EQ(self->taint, taint) TH_LOG("the kernel was tainted: 0x%" PRIx64, taint);
}

/* ---- /proc/causalprof/control ---- */

/* A value for a key: mostly plausible, sometimes hostile. */
static int value(char *buf, size_t size, const struct cp_prog *p)
{
	static const char *const odd[] = {
		"", "-1", "0", "0x", "18446744073709551616", "99999999999999999999999",
		"4294967295", "2147483648", "1e3", "+5", " ", "=", "==", "\t", "x",
		"cpu-clock", "cycles", "fp", "none", "throughput", "latency", "1:2-3",
		"0:0x0-0x1", "/", "/dev/null", "/proc/self/exe", "../../etc/passwd",
	};

	switch (below(8)) {
	case 0:
		return snprintf(buf, size, "%s", odd[below(sizeof(odd) / sizeof(odd[0]))]);
	case 1:
		return snprintf(buf, size, "%d", p->pid);
	case 2:
		return snprintf(buf, size, "0x%" PRIx64, (uint64_t)rnd() << below(40));
	case 3:
		return snprintf(buf, size, "%d:0x%" PRIx64 "-0x%" PRIx64, below(3) ? p->pid : (int)rnd(),
				p->tp, p->tp + below(64));
	case 4:
		return snprintf(buf, size, "%s", p->path);
	case 5:
		return snprintf(buf, size, "0x%" PRIx64, p->off_tp + below(3));
	case 6:
		return snprintf(buf, size, "%u", below(2000));
	default:
		return snprintf(buf, size, "%d", (int)rnd());
	}
}

static const char *const verbs[] = {
	"start", "stop", "experiment start", "experiment stop", "experiment",
	"progress add", "progress del", "progress", "status", "",
};
static const char *const keys[] = {
	"pid", "system-wide", "event", "freq", "period", "callchain", "inherit",
	"speedup", "range", "id", "kind", "path", "offset", "end", "bogus", "",
};

/* One command from the grammar, with whatever came out of the dice. */
static size_t command(char *buf, size_t size, const struct cp_prog *p)
{
	size_t len;
	int n = below(7), i;

	/* Now and then a valid command, so that the next ones meet state. */
	switch (below(20)) {
	case 0:
		return snprintf(buf, size, "start pid=%d event=cpu-clock freq=%u", p->pid,
				1 + below(2000));
	case 1:
		return snprintf(buf, size, "experiment start speedup=%u range=%d:0x%" PRIx64
				"-0x%" PRIx64, below(1001), p->pid, p->tp, p->tp + 1 + below(64));
	case 2:
		return snprintf(buf, size, "progress add id=%u kind=throughput path=%s offset=0x%"
				PRIx64, below(4), p->path, p->off_tp);
	default:
		break;
	}
	len = snprintf(buf, size, "%s", verbs[below(sizeof(verbs) / sizeof(verbs[0]))]);

	for (i = 0; i < n && len < size - 256; i++) {
		len += snprintf(buf + len, size - len, "%s%s", below(10) ? " " : "  ",
				keys[below(sizeof(keys) / sizeof(keys[0]))]);
		if (below(10))
			buf[len++] = '=';
		len += value(buf + len, size - len, p);
	}
	if (!below(10))
		buf[len++] = '\n';
	if (!below(50))
		while (len < size - 1 && len < 4097)
			buf[len++] = 'a' + below(26);
	buf[len] = '\0';
	return len;
}

static size_t garbage(char *buf, size_t size)
{
	size_t len = below(4) ? below(64) : below(4098), i;

	if (len > size)
		len = size;
	for (i = 0; i < len; i++)
		buf[i] = below(4) ? ' ' + below(95) : rnd();
	return len;
}

TEST_F_TIMEOUT(hostile, control_writes, 280)
{
	static char buf[8192];
	struct tally t = {};
	size_t len;
	int fd, i;
	ssize_t n;

	fd = open(CP_CONTROL, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 0; i < WRITES; i++) {
		len = below(3) ? command(buf, sizeof(buf), &self->prog) : garbage(buf, sizeof(buf));
		n = write(fd, buf, len);
		t.tried++;
		count(&t, n < 0 ? -errno : 0);
		/* A session started by chance: gone now and then, so starts keep failing less. */
		if (!below(200))
			cp_control("stop");
	}
	close(fd);
	tally_log(_metadata, "control writes", &t);
	EXPECT_EQ((uint64_t)WRITES, t.tried);
	/* The dice reached past the parser: some commands did something. */
	EXPECT_LT(0UL, t.by[0]);
	EXPECT_LT(0UL, t.by[EINVAL]);
	normal_session(_metadata);
}

/* ---- generic netlink ---- */

struct msg {
	char buf[64 << 10] __attribute__((aligned(4)));
	size_t len;
};

static void put_attr(struct msg *m, uint16_t type, const void *data, size_t len)
{
	if (m->len + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(m->buf) - 64)
		return;
	m->len = cp_nla_put(m->buf, m->len, type, data, len);
}

/* Random attributes, nested ones among them, depth at most depth. */
static void random_attrs(struct msg *m, int n, int depth, int maxtype)
{
	static const size_t lens[] = { 0, 1, 2, 3, 4, 7, 8, 9, 16, 64, 255, 4096, 20000 };
	unsigned char data[20000];
	size_t len, i, start;
	uint16_t type;

	while (n-- > 0) {
		type = below(maxtype + 3);
		if (depth && !below(3)) {
			m->len = cp_nla_nest_start(m->buf, m->len, type, &start);
			random_attrs(m, below(5), depth - 1, maxtype);
			cp_nla_nest_end(m->buf, start, m->len);
			continue;
		}
		len = below(4) ? lens[below(7)] : lens[below(sizeof(lens) / sizeof(lens[0]))];
		for (i = 0; i < len; i++)
			data[i] = below(2) ? 0 : rnd();
		if (!below(8))
			type |= NLA_F_NESTED;
		put_attr(m, type, data, len);
	}
}

/* A valid request of cmd, then one thing broken (or none). */
static void valid_attrs(struct msg *m, uint8_t cmd, const struct cp_prog *p)
{
	uint32_t u32 = p->pid, kind = below(3);
	uint64_t u64;
	size_t outer, inner;
	int broken = below(6);

	switch (cmd) {
	case CAUSALPROF_CMD_SESSION_START:
		if (broken != 1)
			put_attr(m, CAUSALPROF_A_TARGET_PID, &u32, broken == 2 ? 2 : 4);
		m->len = cp_nla_nest_start(m->buf, m->len, CAUSALPROF_A_EVENTS, &outer);
		m->len = cp_nla_nest_start(m->buf, m->len, CAUSALPROF_EVENTS_A_EVENT, &inner);
		u32 = broken == 3 ? rnd() : PERF_TYPE_SOFTWARE;
		put_attr(m, CAUSALPROF_EV_A_TYPE, &u32, 4);
		u64 = PERF_COUNT_SW_CPU_CLOCK;
		put_attr(m, CAUSALPROF_EV_A_CONFIG, &u64, broken == 4 ? 4 : 8);
		u32 = broken == 5 ? rnd() : 100;
		put_attr(m, CAUSALPROF_EV_A_FREQ, &u32, 4);
		put_attr(m, CAUSALPROF_EV_A_NAME, "cpu-clock", broken == 5 ? 9 : 10);
		cp_nla_nest_end(m->buf, inner, m->len);
		cp_nla_nest_end(m->buf, outer, m->len);
		break;
	case CAUSALPROF_CMD_EXPERIMENT_START:
		m->len = cp_nla_nest_start(m->buf, m->len, CAUSALPROF_A_EXPERIMENT, &outer);
		u32 = broken == 1 ? 5000 : 100;
		put_attr(m, CAUSALPROF_EXP_A_SPEEDUP, &u32, 4);
		m->len = cp_nla_nest_start(m->buf, m->len, CAUSALPROF_EXP_A_RANGE, &inner);
		u32 = broken == 2 ? 0 : p->pid;
		put_attr(m, CAUSALPROF_RANGE_A_PID, &u32, 4);
		u64 = p->tp;
		put_attr(m, CAUSALPROF_RANGE_A_START, &u64, 8);
		u64 = broken == 3 ? p->tp : p->tp + 16;
		put_attr(m, CAUSALPROF_RANGE_A_END, &u64, broken == 4 ? 7 : 8);
		cp_nla_nest_end(m->buf, inner, m->len);
		cp_nla_nest_end(m->buf, outer, m->len);
		break;
	case CAUSALPROF_CMD_PROGRESS_ADD:
	case CAUSALPROF_CMD_PROGRESS_DEL:
		m->len = cp_nla_nest_start(m->buf, m->len, CAUSALPROF_A_PROGRESS, &outer);
		u32 = below(20);
		put_attr(m, CAUSALPROF_PP_A_ID, &u32, 4);
		if (cmd == CAUSALPROF_CMD_PROGRESS_ADD) {
			put_attr(m, CAUSALPROF_PP_A_KIND, &kind, 4);
			put_attr(m, CAUSALPROF_PP_A_PATH, p->path,
				 broken == 1 ? strlen(p->path) : strlen(p->path) + 1);
			u64 = broken == 2 ? rnd() : p->off_tp;
			put_attr(m, CAUSALPROF_PP_A_OFFSET, &u64, 8);
			u64 = p->off_end;
			if (kind || broken == 3)
				put_attr(m, CAUSALPROF_PP_A_END_OFFSET, &u64, 8);
		}
		if (broken == 4)
			put_attr(m, CAUSALPROF_PP_A_ID, &u32, 4);
		cp_nla_nest_end(m->buf, outer, m->len);
		break;
	default:
		break;
	}
	if (broken == 0 && below(2))
		random_attrs(m, 1, 1, CAUSALPROF_A_MAX);
}

/*
 * Sends one request, NLM_F_ACK; waits ANSWER_MS for its ack. Returns the
 * ack's -errno or 0, or 1 when no answer came.
 */
static int request(struct cp_nl *nl, uint8_t cmd, uint8_t version, const struct msg *m)
{
	static char out[sizeof(((struct msg *)0)->buf) + 64] __attribute__((aligned(4)));
	struct nlmsghdr *nlh = (void *)out;
	struct genlmsghdr *genl = NLMSG_DATA(nlh);
	struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
	uint32_t seq = ++nl->seq;
	const struct nlmsghdr *r;
	ssize_t n;

	memset(out, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + m->len);
	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	genl->cmd = cmd;
	genl->version = version;
	memcpy((char *)genl + GENL_HDRLEN, m->buf, m->len);
	if (send(nl->fd, out, nlh->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		if (poll(&pfd, 1, ANSWER_MS) <= 0)
			return 1;
		n = recv(nl->fd, nl->rbuf, CP_NL_RECV_SIZE, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == ENOBUFS || errno == EINTR))
			continue;
		if (n < 0)
			return -errno;
		for (r = nl->rbuf; NLMSG_OK(r, n); r = NLMSG_NEXT(r, n))
			if (r->nlmsg_seq == seq && r->nlmsg_type == NLMSG_ERROR)
				return ((const struct nlmsgerr *)NLMSG_DATA(r))->error;
	}
}

TEST_F_TIMEOUT(hostile, netlink_malformed, 280)
{
	static struct msg m;
	struct tally t = {}, percmd[CAUSALPROF_CMD_MAX + 4] = {};
	struct cp_nl nl;
	uint8_t cmd;
	int i, ret;

	ASSERT_EQ(0, cp_nl_open(&nl));
	for (i = 0; i < MESSAGES; i++) {
		cmd = below(10) ? (uint32_t)i % (CAUSALPROF_CMD_MAX + 3) : below(256);
		m.len = 0;
		switch (below(3)) {
		case 0:
			random_attrs(&m, below(8), 3, CAUSALPROF_A_MAX);
			break;
		case 1:
			valid_attrs(&m, cmd, &self->prog);
			break;
		default:
			/* The same attribute again and again, or one huge. */
			if (below(2)) {
				random_attrs(&m, 1, 0, CAUSALPROF_A_MAX);
				while (m.len && m.len * 2 < sizeof(m.buf) - 64 && below(4)) {
					memcpy(m.buf + m.len, m.buf, m.len);
					m.len *= 2;
				}
			} else {
				memset(m.buf, below(2) ? 0xff : 'a', 60000);
				m.len = cp_nla_put(m.buf, 0, below(CAUSALPROF_A_MAX + 2),
						   m.buf + 4, below(60000));
			}
			break;
		}
		if (!below(20)) {	/* a length that lies */
			m.len += 1 + below(3);
			m.buf[m.len - 1] = rnd();
		}
		ret = request(&nl, cmd, below(10) ? CAUSALPROF_GENL_VERSION : rnd(), &m);
		t.tried++;
		if (ret == 1)
			t.unanswered++;
		else
			count(&t, ret);
		percmd[cmd < CAUSALPROF_CMD_MAX + 3 ? cmd : CAUSALPROF_CMD_MAX + 3].tried++;
		if (!below(100))
			cp_nl_stop(&nl);
	}
	tally_log(_metadata, "netlink messages", &t);
	for (cmd = 0; cmd < CAUSALPROF_CMD_MAX + 3; cmd++)
		TH_LOG("command %u: %" PRIu64 " messages", cmd, percmd[cmd].tried);
	TH_LOG("commands 11-255: %" PRIu64 " messages", percmd[cmd].tried);
	EXPECT_EQ(0UL, t.unanswered);
	EXPECT_LT(0UL, t.by[EINVAL]);
	cp_nl_close(&nl);
	normal_session(_metadata);
}

/* ---- sequences of real commands ---- */

enum op {
	OP_START, OP_START_SYSTEM, OP_STOP, OP_EXP_START, OP_EXP_STOP, OP_PP_ADD,
	OP_PP_DEL, OP_STATUS, OP_REOPEN, OP_PROC_START, OP_PROC_STOP, OP_PROC_EXP,
	OP_PROC_PP, OP_AS_USER, OP_MAX
};

static int do_op(struct cp_nl *nl, enum op op, const struct cp_prog *p)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(100 + below(900));
	struct causalprof_exp_range r = { .pid = p->pid, .start = p->tp, .end = p->tp + 1 + below(64) };
	struct cp_nl_status st;
	char cmd[PATH_MAX + 128];
	uint64_t id;

	switch (op) {
	case OP_START:
		return cp_nl_start_events(nl, p->pid, below(2) ? CP_F_STACKS : 0, &ev, 1, &id);
	case OP_START_SYSTEM:
		return cp_nl_start_events(nl, 0, CAUSALPROF_F_SYSTEM_WIDE, &ev, 1, &id);
	case OP_STOP:
		return cp_nl_stop(nl);
	case OP_EXP_START:
		return cp_nl_experiment_start(nl, below(1001), &r, 1);
	case OP_EXP_STOP:
		return cp_nl_experiment_stop(nl);
	case OP_PP_ADD:
		return below(2) ? cp_nl_progress_add(nl, below(4), CAUSALPROF_PP_THROUGHPUT,
						     p->path, p->off_tp, 0) :
				  cp_nl_progress_add(nl, below(4), CAUSALPROF_PP_LATENCY,
						     p->path, p->off_begin, p->off_end);
	case OP_PP_DEL:
		return cp_nl_progress_del(nl, below(4));
	case OP_STATUS:
		return cp_nl_get_status(nl, &st);
	case OP_PROC_START:
		snprintf(cmd, sizeof(cmd), "start pid=%d event=cpu-clock freq=%u", p->pid,
			 100 + below(900));
		return cp_control(cmd);
	case OP_PROC_STOP:
		return cp_control(below(2) ? "stop" : "experiment stop");
	case OP_PROC_EXP:
		snprintf(cmd, sizeof(cmd), "experiment start speedup=%u range=%d:0x%" PRIx64
			 "-0x%" PRIx64, below(1001), p->pid, (uint64_t)r.start,
			 (uint64_t)r.end);
		return cp_control(cmd);
	case OP_PROC_PP:
		if (below(2))
			snprintf(cmd, sizeof(cmd), "progress del id=%u", below(4));
		else
			snprintf(cmd, sizeof(cmd), "progress add id=%u kind=throughput path=%s "
				 "offset=0x%" PRIx64, below(4), p->path, p->off_tp);
		return cp_control(cmd);
	default:
		return -EINVAL;
	}
}

/*
 * A child that became uid 1000 with CAP_PERFMON runs ops on its own socket
 * and dies, closing it: 0 if every op was answered.
 */
static int as_user(const struct cp_prog *p, uint32_t seed, int ops)
{
	struct cp_nl nl;
	int status, i;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		rng_state = seed | 1;
		if (cp_become(1000, 1ULL << CAP_PERFMON, true) || cp_nl_open(&nl))
			_exit(2);
		for (i = 0; i < ops; i++)
			do_op(&nl, below(OP_REOPEN), p);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECHILD;
}

TEST_F_TIMEOUT(hostile, sequences, 280)
{
	struct tally t = {}, ops[OP_MAX] = {};
	struct cp_nl nl[3];
	int s, i, n, k, ret;
	enum op op;

	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, cp_nl_open(&nl[k]));
	for (s = 0; s < SEQUENCES; s++) {
		n = 4 + below(12);
		for (i = 0; i < n; i++) {
			op = below(OP_MAX);
			k = below(3);
			if (op == OP_REOPEN) {
				cp_nl_close(&nl[k]);
				ASSERT_EQ(0, cp_nl_open(&nl[k]));
				ret = 0;
			} else if (op == OP_AS_USER) {
				ret = as_user(&self->prog, rnd(), 1 + below(4));
				EXPECT_EQ(0, ret) TH_LOG("a child as uid 1000 failed");
			} else {
				ret = do_op(&nl[k], op, &self->prog);
			}
			t.tried++;
			ops[op].tried++;
			count(&t, ret);
		}
		/* Between sequences: nothing left over, sometimes. */
		if (!below(4))
			cp_session_reset();
	}
	tally_log(_metadata, "sequence ops", &t);
	TH_LOG("%d sequences", SEQUENCES);
	for (k = 0; k < 3; k++)
		cp_nl_close(&nl[k]);
	EXPECT_LT(0UL, t.by[0]);
	normal_session(_metadata);
}

TEST_HARNESS_MAIN
