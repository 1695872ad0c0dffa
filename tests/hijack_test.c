// SPDX-License-Identifier: GPL-2.0
/*
 * A dead owner's port id: root owns a session over netlink on a busy
 * process, with kernel and user stacks, and is SIGKILLed. Its socket's port
 * id is free from the moment the socket closes, before the module hears of
 * it, and an unprivileged process (nobody, no capability) binds it as soon
 * as it can. It must receive nothing: not the records the session still
 * had for its owner, nor its END. The owner reads its records, or lets
 * them pile up (then the rings still hold records for it when it dies).
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <linux/netlink.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define NOBODY		65534
#define FREQ		1000
#define BIND_MS		5000	/* the intruder tries to bind this long */
#define LISTEN_MS	3000	/* then listens this long */

/* What the intruder reports. */
struct intrusion {
	int bound;		/* 0, or -errno of the last bind() */
	int messages;		/* messages it received */
	int records;		/* of them, CAUSALPROF_CMD_RECORDS */
};

FIXTURE(hijack) {
	struct cp_target target;
	pid_t owner, intruder;
	int owner_pipe[2];	/* owner -> test: start result, then its port id */
	int go_pipe[2];		/* test -> intruder: the port id to take */
	int res_pipe[2];	/* intruder -> test: struct intrusion */
};

FIXTURE_VARIANT(hijack) {
	bool reads;
};

FIXTURE_VARIANT_ADD(hijack, owner_reading) { .reads = true };
FIXTURE_VARIANT_ADD(hijack, owner_not_reading) { .reads = false };

static void close_pipe(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

FIXTURE_SETUP(hijack)
{
	self->owner_pipe[0] = self->owner_pipe[1] = -1;
	self->go_pipe[0] = self->go_pipe[1] = -1;
	self->res_pipe[0] = self->res_pipe[1] = -1;
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_spin_spawn(&self->target, "1"));
	ASSERT_EQ(0, pipe(self->owner_pipe));
	ASSERT_EQ(0, pipe(self->go_pipe));
	ASSERT_EQ(0, pipe(self->res_pipe));
}

FIXTURE_TEARDOWN(hijack)
{
	if (self->owner > 0) {
		kill(self->owner, SIGKILL);
		waitpid(self->owner, NULL, 0);
	}
	if (self->intruder > 0) {
		kill(self->intruder, SIGKILL);
		waitpid(self->intruder, NULL, 0);
	}
	cp_target_kill(&self->target);
	close_pipe(self->owner_pipe);
	close_pipe(self->go_pipe);
	close_pipe(self->res_pipe);
	EXPECT_EQ(0, cp_session_reset());
}

/*
 * Nobody, without a capability: once told the port id, bind a generic
 * netlink socket to it as soon as it is free, then count what arrives.
 */
static void intruder_main(int go, int res, uint16_t family)
{
	char buf[CP_NL_RECV_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct intrusion in = { .bound = -EADDRINUSE };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct pollfd pfd = { .events = POLLIN };
	const struct nlmsghdr *nlh;
	int64_t deadline;
	uint32_t portid;
	ssize_t n;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (cp_become(NOBODY, 0, false))
		_exit(2);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || read(go, &portid, sizeof(portid)) != sizeof(portid))
		_exit(3);
	sa.nl_pid = portid;
	deadline = cp_now_ms() + BIND_MS;
	while (in.bound && cp_now_ms() < deadline)
		in.bound = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	if (!in.bound) {
		pfd.fd = fd;
		deadline = cp_now_ms() + LISTEN_MS;
		while (cp_now_ms() < deadline) {
			if (poll(&pfd, 1, 100) <= 0)
				continue;
			n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (n < 0)
				continue;
			for (nlh = (void *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
				in.messages++;
				if (nlh->nlmsg_type == family)
					in.records++;
			}
		}
	}
	if (write(res, &in, sizeof(in)) != sizeof(in))
		_exit(4);
	_exit(0);
}

TEST_F_TIMEOUT(hijack, dead_owner_port_id, 60)
{
	struct pollfd pfd = { .fd = self->owner_pipe[0], .events = POLLIN };
	uint64_t before, sent;
	struct intrusion in;
	uint32_t portid, version;
	uint16_t family;
	char owner[32];
	int ret = -1;

	ASSERT_EQ(0, cp_genl_lookup(CAUSALPROF_GENL_NAME, &family, &version));
	ASSERT_EQ(0, cp_status_u64("samples", &before));
	self->owner = cp_owner_spawn(self->target.pid, FREQ, variant->reads, self->owner_pipe[1]);
	ASSERT_LT(0, self->owner);
	ASSERT_EQ(1, poll(&pfd, 1, CP_WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(ret), read(self->owner_pipe[0], &ret, sizeof(ret)));
	ASSERT_EQ(0, ret) TH_LOG("the owner could not start its session: %s", strerror(-ret));
	ASSERT_EQ((ssize_t)sizeof(portid), read(self->owner_pipe[0], &portid, sizeof(portid)));

	/* The port id is nobody's business. */
	EXPECT_EQ(-ENOENT, cp_status_get("owner_portid", owner, sizeof(owner)))
		TH_LOG("/proc/causalprof/status shows the owner's port id");

	/* Mid-session, with records on their way (bounded wait, 100 samples). */
	ASSERT_EQ(0, cp_status_wait_u64("samples", before + 100, CP_WAIT_MS))
		TH_LOG("the session does not sample");

	self->intruder = fork();
	ASSERT_LE(0, self->intruder);
	if (!self->intruder)
		intruder_main(self->go_pipe[0], self->res_pipe[1], family);
	ASSERT_EQ((ssize_t)sizeof(portid), write(self->go_pipe[1], &portid, sizeof(portid)));
	usleep(100000);		/* it tries to bind, in vain while the owner lives */

	ASSERT_EQ(0, kill(self->owner, SIGKILL));
	ASSERT_EQ(self->owner, waitpid(self->owner, NULL, 0));
	self->owner = 0;

	pfd.fd = self->res_pipe[0];
	ASSERT_EQ(1, poll(&pfd, 1, BIND_MS + LISTEN_MS + CP_WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(in), read(self->res_pipe[0], &in, sizeof(in)));
	ASSERT_EQ(self->intruder, waitpid(self->intruder, NULL, 0));
	self->intruder = 0;
	ASSERT_EQ(0, in.bound) TH_LOG("the intruder never bound port id %u: %s", portid,
				      strerror(-in.bound));
	EXPECT_EQ(0, in.messages) TH_LOG("port id %u's new holder got %d messages, %d of records",
					 portid, in.messages, in.records);

	ASSERT_EQ(0, cp_wait_state("idle", CP_WAIT_MS));
	ASSERT_EQ(0, cp_status_u64("records_sent", &sent));
	TH_LOG("records sent since load: %llu", (unsigned long long)sent);
}

TEST_HARNESS_MAIN
