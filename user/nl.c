// SPDX-License-Identifier: GPL-2.0
/*
 * All of cprof's generic netlink traffic with the causalprof module.
 *
 * A request is sent with NLM_F_ACK and answered by at most one reply of the
 * same command, then by an acknowledgement: an NLMSG_ERROR whose error is 0,
 * or the request's -errno with the kernel's extended ack (NETLINK_EXT_ACK).
 *
 * CAUSALPROF_CMD_RECORDS batches come unasked, with sequence number 0, to the
 * session's owner, and can arrive in the middle of any request (before the
 * reply to SESSION_START, during SESSION_STOP). A stream socket therefore has
 * the sequence check off, and every receive path, a request's included,
 * hands RECORDS messages to the records handler. A stream socket reads each
 * message once into a buffer of STREAM_MSG_BUF: the module's messages are at
 * most 32 KiB (the uapi header's promise), and libnl's default, peeking at
 * every message for its size, copies each one two or three times.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "nl.h"
#include "request.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* A stream socket's receive buffer: RECORDS messages are at most 32 KiB. */
#define STREAM_MSG_BUF		(64 << 10)

/* How long a request on a stream socket may wait for the next message. */
#define REPLY_TIMEOUT_MS	30000
/* Messages cp_nl_receive() handles before it lets its caller look around. */
#define RECEIVE_BATCH		64

/* libnl's NLA_STRING is the kernel's NLA_NUL_STRING: it checks the NUL. */
static const struct nla_policy status_policy[CAUSALPROF_A_MAX + 1] = {
	[CAUSALPROF_A_VERSION]		= { .type = NLA_STRING },
	[CAUSALPROF_A_STATE]		= { .type = NLA_U32 },
	[CAUSALPROF_A_SESSION_ID]	= { .type = NLA_U64 },
	[CAUSALPROF_A_OWNER]		= { .type = NLA_U32 },
	[CAUSALPROF_A_TARGET_PID]	= { .type = NLA_U32 },
	[CAUSALPROF_A_FLAGS]		= { .type = NLA_U32 },
	[CAUSALPROF_A_STATS]		= { .type = NLA_NESTED },
};

static const struct nla_policy stat_policy[CAUSALPROF_STAT_MAX + 1] = {
	[CAUSALPROF_STAT_SESSIONS ... CAUSALPROF_STAT_MAX] = { .type = NLA_U64 },
};

static const struct nla_policy start_policy[CAUSALPROF_A_MAX + 1] = {
	[CAUSALPROF_A_SESSION_ID]	= { .type = NLA_U64 },
};

/* CAUSALPROF_A_RECORDS is binary: no policy type checks a length range. */
static const struct nla_policy records_policy[CAUSALPROF_A_MAX + 1] = {
	[CAUSALPROF_A_SESSION_ID]	= { .type = NLA_U64 },
};

struct request {
	struct cp_nl *nl;
	uint8_t cmd;
	int (*parse)(struct cp_nl *nl, struct nlattr **tb, void *arg);
	void *arg;
	const struct nla_policy *policy;	/* of CAUSALPROF_A_*, for the reply */
	int replies;
	int err;		/* first failure: the kernel's or parse()'s */
	bool done;		/* acknowledged or refused */
};

/* libnl errors, for the failures that happen before the kernel answers. */
static int nlerr_to_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_INTR:		return -EINTR;
	case NLE_BAD_SOCK:	return -EBADF;
	case NLE_AGAIN:		return -EAGAIN;
	case NLE_NOMEM:		return -ENOMEM;
	case NLE_EXIST:		return -EEXIST;
	case NLE_INVAL:		return -EINVAL;
	case NLE_RANGE:		return -ERANGE;
	case NLE_MSGSIZE:	return -EMSGSIZE;
	case NLE_OPNOTSUPP:	return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:	return -EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:	return -ENOENT;
	case NLE_BUSY:		return -EBUSY;
	case NLE_PROTO_MISMATCH: return -EPROTONOSUPPORT;
	case NLE_NOACCESS:	return -EACCES;
	case NLE_PERM:		return -EPERM;
	case NLE_NODEV:		return -ENODEV;
	case NLE_SEQ_MISMATCH:
	case NLE_MSG_OVERFLOW:
	case NLE_MSG_TRUNC:
	case NLE_MSG_TOOSHORT:
	case NLE_MSGTYPE_NOSUPPORT:
	case NLE_PARSE_ERR:
	case NLE_ATTRSIZE:	return -EPROTO;
	default:		return -EIO;
	}
}

static int bad_reply(struct cp_nl *nl, const char *why)
{
	snprintf(nl->err_msg, sizeof(nl->err_msg), "malformed reply: %s", why);
	return -EBADMSG;
}

/*
 * The extended ack follows the echoed request (absent if NLM_F_CAPPED),
 * aligned: the kernel reserves NLMSG_ALIGN(payload) in netlink_ack().
 */
static void save_extack(struct cp_nl *nl, struct nlmsghdr *nlh, struct nlmsgerr *e)
{
	static const struct nla_policy policy[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t len = nlmsg_datalen(nlh);
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return;
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	off = NLMSG_ALIGN(off);
	if (off >= len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      len - off, policy) < 0 || !tb[NLMSGERR_ATTR_MSG])
		return;
	nla_strlcpy(nl->err_msg, tb[NLMSGERR_ATTR_MSG], sizeof(nl->err_msg));
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct request *req = arg;

	(void)who;
	if (!req->err) {
		req->err = e->error < 0 ? e->error : -EPROTO;
		save_extack(req->nl, nlh, e);
	}
	req->done = true;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct request *req = arg;

	(void)msg;
	req->done = true;
	return NL_STOP;
}

/* True if @nlh was a CAUSALPROF_CMD_RECORDS message for the records handler. */
static bool take_records(struct cp_nl *nl, struct nlmsghdr *nlh)
{
	struct nlattr *tb[CAUSALPROF_A_MAX + 1];

	if (!nl->on_records || !genlmsg_valid_hdr(nlh, 0) ||
	    genlmsg_hdr(nlh)->cmd != CAUSALPROF_CMD_RECORDS)
		return false;
	if (genlmsg_parse(nlh, 0, tb, CAUSALPROF_A_MAX, records_policy) < 0 ||
	    !tb[CAUSALPROF_A_SESSION_ID] || !tb[CAUSALPROF_A_RECORDS]) {
		nl->bad_msgs++;
		return true;
	}
	nl->on_records(nl, nla_get_u64(tb[CAUSALPROF_A_SESSION_ID]),
		       nla_data(tb[CAUSALPROF_A_RECORDS]), nla_len(tb[CAUSALPROF_A_RECORDS]),
		       nl->records_arg);
	return true;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct request *req = arg;
	struct nlattr *tb[CAUSALPROF_A_MAX + 1];
	struct genlmsghdr *gnlh;
	int err;

	if (take_records(req->nl, nlh))
		return NL_OK;
	if (req->err)
		return NL_SKIP;
	if (!genlmsg_valid_hdr(nlh, 0)) {
		req->err = bad_reply(req->nl, "short generic netlink header");
		return NL_SKIP;
	}
	gnlh = genlmsg_hdr(nlh);
	if (gnlh->cmd != req->cmd || !req->parse || req->replies++) {
		req->err = bad_reply(req->nl, "unexpected message");
		return NL_SKIP;
	}
	err = genlmsg_parse(nlh, 0, tb, CAUSALPROF_A_MAX, req->policy);
	if (err < 0) {
		req->err = bad_reply(req->nl, nl_geterror(err));
		return NL_SKIP;
	}
	req->err = req->parse(req->nl, tb, req->arg);
	return NL_OK;
}

/* A copy of @nl's socket callbacks with @valid, @ack and @err called on @arg. */
static struct nl_cb *socket_cb(struct cp_nl *nl, nl_recvmsg_msg_cb_t valid,
			       nl_recvmsg_msg_cb_t ack, nl_recvmsg_err_cb_t err, void *arg)
{
	struct nl_cb *sock_cb = nl_socket_get_cb(nl->sock), *cb;

	cb = nl_cb_clone(sock_cb);
	nl_cb_put(sock_cb);
	if (!cb)
		return NULL;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid, arg);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack, arg);
	nl_cb_err(cb, NL_CB_CUSTOM, err, arg);
	return cb;
}

/*
 * Sends @msg and waits for its acknowledgement. A reply, if @req expects one,
 * is checked against @req->policy and handed to @req->parse.
 */
static int transact(struct cp_nl *nl, struct nl_msg *msg, struct request *req)
{
	struct nl_cb *cb;
	int ret;

	nl->err_msg[0] = '\0';
	req->nl = nl;
	cb = socket_cb(nl, on_valid, on_ack, on_error, req);
	if (!cb)
		return -ENOMEM;

	ret = nl_send_auto(nl->sock, msg);
	if (ret < 0) {
		ret = nlerr_to_errno(ret);
		goto out_put_cb;
	}
	while (!req->done) {
		/* A stream socket is non-blocking: wait, but not forever. */
		if (nl->on_records) {
			struct pollfd pfd = { .fd = cp_nl_fd(nl), .events = POLLIN };

			ret = poll(&pfd, 1, REPLY_TIMEOUT_MS);
			if (ret < 0) {
				ret = -errno;
				goto out_put_cb;
			}
			if (!ret) {
				snprintf(nl->err_msg, sizeof(nl->err_msg),
					 "no answer from the module in %d s",
					 REPLY_TIMEOUT_MS / 1000);
				ret = -ETIMEDOUT;
				goto out_put_cb;
			}
		}
		ret = nl_recvmsgs(nl->sock, cb);
		if (ret < 0 && !req->done) {
			ret = nlerr_to_errno(ret);
			goto out_put_cb;
		}
	}
	ret = req->err;
	if (!ret && req->parse && !req->replies)
		ret = bad_reply(nl, "no reply");
out_put_cb:
	nl_cb_put(cb);
	return ret;
}

static struct nl_msg *new_request(struct cp_nl *nl, uint8_t cmd)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc();
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, 0, cmd,
			 CAUSALPROF_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int parse_status(struct cp_nl *nl, struct nlattr **tb, void *arg)
{
	struct nlattr *stats[CAUSALPROF_STAT_MAX + 1];
	struct cp_status *st = arg;
	int i;

	if (!tb[CAUSALPROF_A_VERSION] || !tb[CAUSALPROF_A_STATE] ||
	    !tb[CAUSALPROF_A_SESSION_ID] || !tb[CAUSALPROF_A_STATS])
		return bad_reply(nl, "version, state, session id or stats missing");
	if (nla_parse_nested(stats, CAUSALPROF_STAT_MAX, tb[CAUSALPROF_A_STATS],
			     stat_policy) < 0)
		return bad_reply(nl, "invalid stats");

	nla_strlcpy(st->version, tb[CAUSALPROF_A_VERSION], sizeof(st->version));
	st->state = nla_get_u32(tb[CAUSALPROF_A_STATE]);
	st->session_id = nla_get_u64(tb[CAUSALPROF_A_SESSION_ID]);
	if (tb[CAUSALPROF_A_OWNER])
		st->owner = nla_get_u32(tb[CAUSALPROF_A_OWNER]);
	if (tb[CAUSALPROF_A_TARGET_PID]) {
		st->has_target = true;
		st->target_pid = nla_get_u32(tb[CAUSALPROF_A_TARGET_PID]);
	}
	if (tb[CAUSALPROF_A_FLAGS])
		st->flags = nla_get_u32(tb[CAUSALPROF_A_FLAGS]);
	for (i = CAUSALPROF_STAT_SESSIONS; i <= CAUSALPROF_STAT_MAX; i++) {
		if (!stats[i])
			return bad_reply(nl, "a counter is missing from stats");
		st->stats[i] = nla_get_u64(stats[i]);
	}
	return 0;
}

/* Sends @req, with the attributes @put adds to its message if any. */
static int request(struct cp_nl *nl, struct request *req,
		   int (*put)(struct nl_msg *msg, const void *arg), const void *arg)
{
	struct nl_msg *msg;
	int ret;

	msg = new_request(nl, req->cmd);
	if (!msg)
		return -ENOMEM;
	ret = put && put(msg, arg) ? -EMSGSIZE : transact(nl, msg, req);
	nlmsg_free(msg);
	return ret;
}

int cp_nl_get_status(struct cp_nl *nl, struct cp_status *st)
{
	struct request req = {
		.cmd = CAUSALPROF_CMD_GET_STATUS,
		.parse = parse_status,
		.arg = st,
		.policy = status_policy,
	};

	memset(st, 0, sizeof(*st));
	return request(nl, &req, NULL, NULL);
}

static int parse_start(struct cp_nl *nl, struct nlattr **tb, void *arg)
{
	if (!tb[CAUSALPROF_A_SESSION_ID])
		return bad_reply(nl, "no session id");
	*(uint64_t *)arg = nla_get_u64(tb[CAUSALPROF_A_SESSION_ID]);
	return 0;
}

static int put_start(struct nl_msg *msg, const void *arg)
{
	const struct cp_nl_start *start = arg;
	const struct cp_go_layout *go = start->go;
	struct cp_req_event evs[CAUSALPROF_MAX_EVENTS];
	unsigned int i, nr = start->events ? start->events->nr : 0;
	int ret;

	for (i = 0; i < nr; i++) {
		const struct cp_event *ev = &start->events->ev[i];

		evs[i] = (struct cp_req_event){
			.type = ev->type, .config = ev->config, .period = ev->period,
			.freq = ev->freq, .name = ev->name,
		};
	}
	ret = cp_req_session_start(msg, start->flags,
				   start->flags & CAUSALPROF_F_SYSTEM_WIDE ? 0 : start->target_pid,
				   start->agg_entries, evs, nr);
	if (!ret)
		ret = cp_req_drain_ms(msg, start->drain_ms);
	if (ret || !go)
		return ret;
	return cp_req_go_labels(msg, go->format, go->tls_g, go->g_m, go->m_curg, go->g_labels);
}

int cp_nl_session_start(struct cp_nl *nl, const struct cp_nl_start *start, uint64_t *id)
{
	struct request req = {
		.cmd = CAUSALPROF_CMD_SESSION_START,
		.parse = parse_start,
		.arg = id,
		.policy = start_policy,
	};

	return request(nl, &req, put_start, start);
}

int cp_nl_session_stop(struct cp_nl *nl)
{
	struct request req = { .cmd = CAUSALPROF_CMD_SESSION_STOP };

	return request(nl, &req, NULL, NULL);
}

int cp_nl_flush(struct cp_nl *nl)
{
	struct request req = { .cmd = CAUSALPROF_CMD_FLUSH };

	return request(nl, &req, NULL, NULL);
}

struct experiment {
	uint32_t speedup;
	const struct causalprof_exp_range *ranges;
	unsigned int nr;
};

static int put_experiment(struct nl_msg *msg, const void *arg)
{
	const struct experiment *x = arg;

	return cp_req_experiment_start(msg, x->speedup, x->ranges, x->nr);
}

int cp_nl_experiment_start(struct cp_nl *nl, uint32_t speedup,
			   const struct causalprof_exp_range *ranges, unsigned int nr)
{
	struct request req = { .cmd = CAUSALPROF_CMD_EXPERIMENT_START };
	struct experiment x = { .speedup = speedup, .ranges = ranges, .nr = nr };

	return request(nl, &req, put_experiment, &x);
}

int cp_nl_experiment_stop(struct cp_nl *nl)
{
	struct request req = { .cmd = CAUSALPROF_CMD_EXPERIMENT_STOP };

	return request(nl, &req, NULL, NULL);
}

struct point {
	uint32_t id, kind;
	const char *path;
	struct cp_req_sites begin, end;
	uint32_t visit_ns, end_visit_ns;
};

/* Only a latency point has an end. */
static int put_point(struct nl_msg *msg, const void *arg)
{
	static const struct cp_req_sites none;
	const struct point *p = arg;
	bool latency = p->kind == CAUSALPROF_PP_LATENCY;

	return cp_req_progress_add_sites(msg, p->id, p->kind, p->path, &p->begin,
					 latency ? &p->end : &none, p->visit_ns,
					 latency ? p->end_visit_ns : 0);
}

int cp_nl_progress_add_sites(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			     const uint64_t *offsets, unsigned int nr, uint64_t checks,
			     const uint64_t *end_offsets, unsigned int nr_end, uint64_t end_checks,
			     uint32_t visit_ns, uint32_t end_visit_ns)
{
	struct request req = { .cmd = CAUSALPROF_CMD_PROGRESS_ADD };
	struct point p = {
		.id = id, .kind = kind, .path = path,
		.begin = { offsets, nr, checks }, .end = { end_offsets, nr_end, end_checks },
		.visit_ns = visit_ns, .end_visit_ns = end_visit_ns,
	};

	return request(nl, &req, put_point, &p);
}

int cp_nl_progress_add_cost(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
			    uint64_t offset, uint64_t end_offset, uint32_t visit_ns,
			    uint32_t end_visit_ns)
{
	return cp_nl_progress_add_sites(nl, id, kind, path, &offset, 1, 0, &end_offset,
					end_offset != 0, 0, visit_ns, end_visit_ns);
}

int cp_nl_progress_add(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
		       uint64_t offset, uint64_t end_offset)
{
	return cp_nl_progress_add_cost(nl, id, kind, path, offset, end_offset, 0, 0);
}

struct go_hooks {
	const char *path;
	const uint32_t *kinds;
	const uint64_t *offsets;
	const uint32_t *visit_ns;
	const uint32_t *flags;
	unsigned int nr;
};

static int put_go_hooks(struct nl_msg *msg, const void *arg)
{
	const struct go_hooks *g = arg;

	return cp_req_go_hooks(msg, g->path, g->kinds, g->offsets, g->visit_ns, g->flags, g->nr);
}

int cp_nl_go_hooks(struct cp_nl *nl, const char *path, const uint32_t *kinds,
		   const uint64_t *offsets, const uint32_t *visit_ns, const uint32_t *flags,
		   unsigned int nr)
{
	struct request req = { .cmd = CAUSALPROF_CMD_GO_HOOKS };
	const struct go_hooks g = { path, kinds, offsets, visit_ns, flags, nr };

	return request(nl, &req, put_go_hooks, &g);
}

int cp_nl_fd(const struct cp_nl *nl)
{
	return nl_socket_get_fd(nl->sock);
}

static int stream_valid(struct nl_msg *msg, void *arg)
{
	take_records(arg, nlmsg_hdr(msg));
	return NL_OK;
}

/* No request is waiting: an error or ack here answers nothing. */
static int stream_ack(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

static int stream_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	(void)who;
	(void)e;
	(void)arg;
	return NL_SKIP;
}

/*
 * The stream's recv for libnl: one recvmsg() into a malloc()ed buffer that
 * libnl frees. libnl's own zeroes a fresh buffer for every message.
 * Returns the message's length, 0 when there is none (EAGAIN), or a
 * negative libnl error.
 */
static int stream_recv(struct nl_sock *sk, struct sockaddr_nl *from, unsigned char **buf,
		       struct ucred **creds)
{
	struct iovec iov = { .iov_len = STREAM_MSG_BUF };
	struct msghdr msg = {
		.msg_name = from,
		.msg_namelen = sizeof(*from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t n;

	if (creds)
		*creds = NULL;
	iov.iov_base = malloc(STREAM_MSG_BUF);
	if (!iov.iov_base)
		return -NLE_NOMEM;
	do
		n = recvmsg(nl_socket_get_fd(sk), &msg, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0 || (msg.msg_flags & MSG_TRUNC) || msg.msg_namelen != sizeof(*from)) {
		free(iov.iov_base);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -nl_syserr2nlerr(errno);
		return n ? (msg.msg_flags & MSG_TRUNC ? -NLE_MSG_TRUNC : -NLE_NOADDR) : 0;
	}
	*buf = iov.iov_base;
	return n;
}

int cp_nl_receive(struct cp_nl *nl)
{
	struct nl_cb *cb;
	int ret = 0, n, i;

	cb = socket_cb(nl, stream_valid, stream_ack, stream_error, nl);
	if (!cb)
		return -ENOMEM;
	nl_cb_overwrite_recv(cb, stream_recv);
	for (i = 0; i < RECEIVE_BATCH; i++) {
		n = nl_recvmsgs_report(nl->sock, cb);
		if (n < 0) {
			ret = nlerr_to_errno(n);
			break;
		}
		if (!n)		/* nothing left: EAGAIN */
			break;
		ret += n;
	}
	nl_cb_put(cb);
	return ret;
}

int cp_nl_stream_init(struct cp_nl *nl, cp_nl_records_fn *fn, void *arg, int rcvbuf,
		      int *got)
{
	int fd = cp_nl_fd(nl), one = 1, ret;
	socklen_t len = sizeof(*got);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, got, &len))
		return -errno;
	/*
	 * When our queue is full the module keeps the records and retries, and
	 * counts what it must drop: an ENOBUFS from recvmsg() would tell
	 * nothing more, and would fail a request that is waiting.
	 */
	setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof(one));
	ret = nl_socket_set_nonblocking(nl->sock);
	if (ret < 0)
		return nlerr_to_errno(ret);
	nl_socket_disable_seq_check(nl->sock);
	ret = nl_socket_set_msg_buf_size(nl->sock, STREAM_MSG_BUF);
	if (ret < 0)
		return nlerr_to_errno(ret);
	nl_socket_disable_msg_peek(nl->sock);
	nl->on_records = fn;
	nl->records_arg = arg;
	return 0;
}

int cp_nl_open(struct cp_nl *nl)
{
	int one = 1;
	int ret;

	memset(nl, 0, sizeof(*nl));
	nl->sock = nl_socket_alloc();
	if (!nl->sock)
		return -ENOMEM;
	ret = genl_connect(nl->sock);
	if (ret < 0) {
		ret = nlerr_to_errno(ret);
		goto err_free_sock;
	}
	/* A target cprof starts must not keep the session's owner socket open. */
	fcntl(nl_socket_get_fd(nl->sock), F_SETFD, FD_CLOEXEC);
	/* Both are best effort: without them errors are only less explained. */
	setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	ret = genl_ctrl_resolve(nl->sock, CAUSALPROF_GENL_NAME);
	if (ret < 0) {
		ret = nlerr_to_errno(ret);	/* -ENOENT: no such family */
		goto err_free_sock;
	}
	nl->family = ret;
	return 0;

err_free_sock:
	nl_socket_free(nl->sock);
	nl->sock = NULL;
	return ret;
}

void cp_nl_close(struct cp_nl *nl)
{
	nl_socket_free(nl->sock);
	nl->sock = NULL;
}

void cp_nl_open_perror(int err)
{
	if (err == -ENOENT)
		fprintf(stderr, "cprof: causalprof module not loaded (no generic netlink family \"%s\"); install it (make install: it then loads itself) or load it with: insmod kmod/causalprof.ko\n",
			CAUSALPROF_GENL_NAME);
	else
		fprintf(stderr, "cprof: cannot reach the causalprof module over generic netlink: %s\n",
			strerror(-err));
}

void cp_nl_perror(const struct cp_nl *nl, const char *what, int err)
{
	if (nl->err_msg[0])
		fprintf(stderr, "cprof: %s: %s (%s)\n", what, strerror(-err), nl->err_msg);
	else
		fprintf(stderr, "cprof: %s: %s\n", what, strerror(-err));
}
