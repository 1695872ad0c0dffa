// SPDX-License-Identifier: GPL-2.0
/*
 * The family's commands over the raw client: status, sessions with
 * events, experiments and progress points, and recording a target. The
 * requests' attributes are cprof's own (user/request.c), sent raw.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/msg.h>

#include "helpers.h"
#include "internal.h"

static int parse_stats(const struct nlattr *nest, struct cp_nl_status *st)
{
	const struct nlattr *tb[CAUSALPROF_STAT_MAX + 1];
	int i, ret;

	ret = cp_nla_parse(tb, CAUSALPROF_STAT_MAX, cp_nla_data(nest), cp_nla_len(nest));
	if (ret)
		return ret;
	for (i = CAUSALPROF_STAT_PAD + 1; i <= CAUSALPROF_STAT_MAX; i++) {
		if (!tb[i])
			continue;
		ret = cp_nla_get(tb[i], &st->stats[i], sizeof(st->stats[i]));
		if (ret)
			return ret;
		st->stat_attrs |= 1U << i;
	}
	return 0;
}

int cp_nl_get_status(struct cp_nl *nl, struct cp_nl_status *st)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(NLA_ALIGNTO)));
	const struct nlattr *tb[CAUSALPROF_A_MAX + 1];
	const struct {
		int type;
		void *val;
		size_t size;
	} fixed[] = {
		{ CAUSALPROF_A_STATE, &st->state, sizeof(st->state) },
		{ CAUSALPROF_A_SESSION_ID, &st->session_id, sizeof(st->session_id) },
		{ CAUSALPROF_A_OWNER_PORTID, &st->owner_portid, sizeof(st->owner_portid) },
		{ CAUSALPROF_A_OWNER, &st->owner, sizeof(st->owner) },
		{ CAUSALPROF_A_TARGET_PID, &st->target_pid, sizeof(st->target_pid) },
		{ CAUSALPROF_A_FLAGS, &st->flags, sizeof(st->flags) },
	};
	const struct nlattr *ver;
	size_t i;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = cp_nl_request(nl, CAUSALPROF_CMD_GET_STATUS, NULL, 0, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	ret = cp_nla_parse(tb, CAUSALPROF_A_MAX, buf, ret);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!tb[fixed[i].type])
			continue;
		ret = cp_nla_get(tb[fixed[i].type], fixed[i].val, fixed[i].size);
		if (ret)
			return ret;
		st->attrs |= 1U << fixed[i].type;
	}
	ver = tb[CAUSALPROF_A_VERSION];
	if (ver) {
		/* NLA_NUL_STRING: the terminating NUL is part of the attribute */
		if (!cp_nla_len(ver) || cp_nla_len(ver) > sizeof(st->version) ||
		    ((const char *)cp_nla_data(ver))[cp_nla_len(ver) - 1])
			return -EPROTO;
		memcpy(st->version, cp_nla_data(ver), cp_nla_len(ver));
		st->attrs |= 1U << CAUSALPROF_A_VERSION;
	}
	if (tb[CAUSALPROF_A_STATS]) {
		ret = parse_stats(tb[CAUSALPROF_A_STATS], st);
		if (ret)
			return ret;
		st->attrs |= 1U << CAUSALPROF_A_STATS;
	}
	return 0;
}

/* Room for any request the tests make: a path of PATH_MAX included. */
static struct nl_msg *new_msg(void)
{
	return nlmsg_alloc_size(NL_BUF_SIZE / 2);
}

/*
 * A request whose attributes @err-or-0 cprof's builder put into @msg (a bare
 * nl_msg: its payload is the attributes): sent over the raw client, which
 * copies the reply's attributes to @reply. nl_msg is freed.
 */
static int send_built(struct cp_nl *nl, uint8_t cmd, struct nl_msg *msg, int err, void *reply,
		      size_t size)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);

	if (!err)
		err = cp_nl_request(nl, cmd, nlmsg_data(h), nlmsg_datalen(h), reply, size);
	nlmsg_free(msg);
	return err;
}

/*
 * pid 0: no CAUSALPROF_A_TARGET_PID; flags 0: no CAUSALPROF_A_FLAGS; nr 0: no
 * CAUSALPROF_A_EVENTS; entries 0: no CAUSALPROF_A_AGG_ENTRIES. With a
 * stream attached, the stream learns the id.
 */
int cp_nl_start_events(struct cp_nl *nl, uint32_t pid, uint32_t flags,
		       const struct cp_req_event *evs, unsigned int nr, uint64_t *id)
{
	return cp_nl_start_agg(nl, pid, flags, evs, nr, 0, id);
}

int cp_nl_start_agg(struct cp_nl *nl, uint32_t pid, uint32_t flags,
		    const struct cp_req_event *evs, unsigned int nr, uint32_t entries,
		    uint64_t *id)
{
	return cp_nl_start_drain(nl, pid, flags, evs, nr, entries, 0, id);
}

int cp_nl_start_drain(struct cp_nl *nl, uint32_t pid, uint32_t flags,
		      const struct cp_req_event *evs, unsigned int nr, uint32_t entries,
		      uint32_t drain_ms, uint64_t *id)
{
	char reply[256] __attribute__((aligned(NLA_ALIGNTO)));
	const struct nlattr *tb[CAUSALPROF_A_MAX + 1];
	struct nl_msg *msg = new_msg();
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = cp_req_session_start(msg, flags, pid, entries, evs, nr);
	if (!ret)
		ret = cp_req_drain_ms(msg, drain_ms);
	ret = send_built(nl, CAUSALPROF_CMD_SESSION_START, msg, ret, reply, sizeof(reply));
	if (ret < 0)
		return ret;
	ret = cp_nla_parse(tb, CAUSALPROF_A_MAX, reply, ret);
	if (ret)
		return ret;
	if (!tb[CAUSALPROF_A_SESSION_ID])
		return -EPROTO;
	ret = cp_nla_get(tb[CAUSALPROF_A_SESSION_ID], id, sizeof(*id));
	if (ret || !nl->stream)
		return ret;
	/* Batches that came before the reply are checked against the id now. */
	nl->stream->session_id = *id;
	if (nl->stream->first_id && nl->stream->first_id != *id)
		nl->stream->foreign++;
	return 0;
}

int cp_nl_start(struct cp_nl *nl, uint32_t pid, uint32_t flags, uint64_t *id)
{
	return cp_nl_start_events(nl, pid, flags, NULL, 0, id);
}

int cp_nl_stop(struct cp_nl *nl)
{
	int ret = cp_nl_request(nl, CAUSALPROF_CMD_SESSION_STOP, NULL, 0, NULL, 0);

	return ret < 0 ? ret : 0;
}

int cp_nl_wait_state(struct cp_nl *nl, uint32_t state, int timeout_ms)
{
	int64_t deadline = cp_now_ms() + timeout_ms;
	struct cp_nl_status st;
	int ret;

	for (;;) {
		ret = cp_nl_get_status(nl, &st);
		if (ret)
			return ret;
		if (st.state == state)
			return 0;
		if (cp_now_ms() > deadline)
			return -ETIMEDOUT;
		cp_sleep_ms(10);
	}
}

/* Receive records until the target exits (and reap it), bounded. */
int cp_nl_pump_until_exit(struct cp_nl *nl, struct cp_target *t, int timeout_ms)
{
	int64_t deadline = cp_now_ms() + timeout_ms;
	int ret;

	for (;;) {
		ret = cp_target_wait(t, 0);
		if (ret != -ETIMEDOUT)
			return ret;
		if (cp_now_ms() > deadline)
			return -ETIMEDOUT;
		ret = cp_nl_pump(nl, 20);
		if (ret)
			return ret;
	}
}

/* Stop the session and receive the rest of its records, up to its END. */
int cp_nl_finish(struct cp_nl *nl, int timeout_ms)
{
	int ret;

	ret = cp_nl_stop(nl);
	if (ret)
		return ret;
	ret = cp_nl_pump(nl, timeout_ms);
	if (ret)
		return ret;
	return nl->stream && !nl->stream->ended ? -ETIMEDOUT : 0;
}

/*
 * What cprof record does, for a test: spawn argv held, start a session on
 * it, release it, receive records until it exits (and reap it), then stop
 * the session and receive the rest, up to its END record.
 */
int cp_record(struct cp_nl *nl, struct cp_target *t, char *const argv[], uint32_t flags,
	      const struct cp_req_event *evs, unsigned int nr, int timeout_ms)
{
	uint64_t id;
	int ret;

	ret = cp_target_spawn(t, argv, true);
	if (ret)
		return ret;
	ret = cp_nl_start_events(nl, t->pid, flags, evs, nr, &id);
	if (ret)
		return ret;
	ret = cp_target_release(t);
	if (ret)
		return ret;
	ret = cp_nl_pump_until_exit(nl, t, timeout_ms);
	if (ret)
		return ret;
	return cp_nl_finish(nl, CP_WAIT_MS);
}

int cp_nl_experiment_start(struct cp_nl *nl, uint32_t speedup,
			   const struct causalprof_exp_range *r, unsigned int nr)
{
	struct nl_msg *msg = new_msg();
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = send_built(nl, CAUSALPROF_CMD_EXPERIMENT_START, msg,
			 cp_req_experiment_start(msg, speedup, r, nr), NULL, 0);
	return ret < 0 ? ret : 0;
}

int cp_nl_experiment_stop(struct cp_nl *nl)
{
	int ret = cp_nl_request(nl, CAUSALPROF_CMD_EXPERIMENT_STOP, NULL, 0, NULL, 0);

	return ret < 0 ? ret : 0;
}

int cp_nl_progress_add_cost(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			    uint64_t offset, uint64_t end_offset, uint32_t visit_ns,
			    uint32_t end_visit_ns)
{
	struct nl_msg *msg = new_msg();
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = send_built(nl, CAUSALPROF_CMD_PROGRESS_ADD, msg,
			 cp_req_progress_add(msg, id, kind, path, offset, end_offset, visit_ns,
					     end_visit_ns), NULL, 0);
	return ret < 0 ? ret : 0;
}

int cp_nl_progress_add_sites(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			     const uint64_t *offsets, unsigned int nr,
			     const uint64_t *end_offsets, unsigned int nr_end)
{
	return cp_nl_progress_add_checks(nl, id, kind, path, offsets, nr, 0, end_offsets,
					 nr_end, 0);
}

int cp_nl_progress_add_checks(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			      const uint64_t *offsets, unsigned int nr, uint64_t checks,
			      const uint64_t *end_offsets, unsigned int nr_end, uint64_t end_checks)
{
	const struct cp_req_sites begin = { offsets, nr, checks };
	const struct cp_req_sites end = { end_offsets, nr_end, end_checks };
	struct nl_msg *msg = new_msg();
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = send_built(nl, CAUSALPROF_CMD_PROGRESS_ADD, msg,
			 cp_req_progress_add_sites(msg, id, kind, path, &begin, &end, 0, 0),
			 NULL, 0);
	return ret < 0 ? ret : 0;
}

int cp_nl_progress_add(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
		       uint64_t offset, uint64_t end_offset)
{
	return cp_nl_progress_add_cost(nl, id, kind, path, offset, end_offset, 0, 0);
}

int cp_nl_go_hooks(struct cp_nl *nl, const char *path, const uint32_t *kinds,
		   const uint64_t *offsets, const uint32_t *visit_ns, const uint32_t *flags,
		   unsigned int nr)
{
	struct nl_msg *msg = new_msg();
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = send_built(nl, CAUSALPROF_CMD_GO_HOOKS, msg,
			 cp_req_go_hooks(msg, path, kinds, offsets, visit_ns, flags, nr),
			 NULL, 0);
	return ret < 0 ? ret : 0;
}

int cp_nl_progress_del(struct cp_nl *nl, uint32_t id)
{
	struct nl_msg *msg = new_msg();
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = send_built(nl, CAUSALPROF_CMD_PROGRESS_DEL, msg, cp_req_progress_del(msg, id),
			 NULL, 0);
	return ret < 0 ? ret : 0;
}

int cp_nl_wait_experiments(struct cp_nl *nl, size_t n, int timeout_ms)
{
	int64_t deadline = cp_now_ms() + timeout_ms;
	int ret;

	if (!nl->stream)
		return -EINVAL;
	while (nl->stream->experiments < n) {
		if (nl->stream->ended || cp_now_ms() > deadline)
			return -ETIMEDOUT;
		ret = cp_nl_pump(nl, 20);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The owner's child: a session with stacks on pid, its result and port id
 * to fd; then it receives its records, or lets them pile up, until killed.
 */
static void __attribute__((noreturn)) owner_main(pid_t pid, unsigned int freq, bool reads,
						 int fd)
{
	const struct cp_req_event ev = CP_EV_CPU_CLOCK(freq);
	struct cp_stream stream = {};
	struct cp_nl nl;
	uint64_t id;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ret = cp_nl_open(&nl);
	if (!ret)
		/*
		 * The owner that stops reading still needs room for the START
		 * reply and its ACK behind the first stream records.
		 */
		ret = cp_nl_set_rcvbuf(&nl, reads ? 32 << 20 : 256 << 10);
	if (!ret)
		ret = cp_nl_start_events(&nl, pid, CP_F_STACKS, &ev, 1, &id);
	if (write(fd, &ret, sizeof(ret)) != sizeof(ret) || ret ||
	    write(fd, &nl.portid, sizeof(nl.portid)) != sizeof(nl.portid))
		_exit(1);
	nl.stream = &stream;
	for (;;) {
		if (reads)
			cp_nl_pump(&nl, 1000);
		else
			pause();
	}
}

pid_t cp_owner_spawn(pid_t pid, unsigned int freq, bool reads, int fd)
{
	pid_t owner = fork();

	if (owner < 0)
		return -errno;
	if (!owner)
		owner_main(pid, freq, reads, fd);
	return owner;
}
