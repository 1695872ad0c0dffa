// SPDX-License-Identifier: GPL-2.0
/*
 * The tests' generic netlink client, on raw sockets: attributes, the
 * family lookup, one acked request, and receiving RECORDS batches.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "helpers.h"
#include "internal.h"

size_t cp_nla_put(void *buf, size_t off, uint16_t type, const void *data, size_t len)
{
	struct nlattr *nla = (struct nlattr *)((char *)buf + off);

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy((char *)nla + NLA_HDRLEN, data, len);
	memset((char *)nla + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	return off + NLA_ALIGN(nla->nla_len);
}

/* Index the well-formed attributes of [data, data + len) by type. */
int cp_nla_parse(const struct nlattr **tb, int max, const void *data, size_t len)
{
	const char *pos = data, *end = pos + len;
	const struct nlattr *nla;
	int type;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	while (pos + NLA_HDRLEN <= end) {
		nla = (const struct nlattr *)pos;
		if (nla->nla_len < NLA_HDRLEN || pos + nla->nla_len > end)
			return -EPROTO;
		type = nla->nla_type & NLA_TYPE_MASK;
		if (type <= max)
			tb[type] = nla;
		pos += NLA_ALIGN(nla->nla_len);
	}
	return 0;
}

const void *cp_nla_data(const struct nlattr *nla)
{
	return (const char *)nla + NLA_HDRLEN;
}

size_t cp_nla_len(const struct nlattr *nla)
{
	return nla->nla_len - NLA_HDRLEN;
}

/* Copy a fixed-size attribute; the wrong size is a protocol error. */
int cp_nla_get(const struct nlattr *nla, void *val, size_t size)
{
	if (cp_nla_len(nla) != size) {
		fprintf(stderr, "# attribute %u: %zu bytes, expected %zu\n",
			nla->nla_type & NLA_TYPE_MASK, cp_nla_len(nla), size);
		return -EPROTO;
	}
	memcpy(val, cp_nla_data(nla), size);
	return 0;
}

static int nl_socket(uint32_t *portid)
{
	struct timeval tv = { .tv_sec = 5 };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t salen = sizeof(sa);
	int fd, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &salen))
		goto err_close;
	*portid = sa.nl_pid;
	return fd;

err_close:
	one = -errno;
	close(fd);
	return one;
}

static int nl_send(int fd, uint16_t type, uint16_t flags, uint32_t seq, uint8_t cmd,
		   uint8_t version, const void *attrs, size_t len)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *genl = NLMSG_DATA(nlh);
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	size_t hdrlen = NLMSG_HDRLEN + GENL_HDRLEN;

	if (hdrlen + len > sizeof(buf))
		return -EMSGSIZE;
	memset(buf, 0, hdrlen);
	nlh->nlmsg_len = hdrlen + len;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	genl->cmd = cmd;
	genl->version = version;
	memcpy(buf + hdrlen, attrs, len);
	if (sendto(fd, buf, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

static ssize_t nl_recv(int fd, void *buf, size_t size)
{
	ssize_t n = recv(fd, buf, size, MSG_TRUNC);

	if (n < 0)
		return -errno;
	if ((size_t)n > size)
		return -EMSGSIZE;
	return n;
}

/* The error code of an NLMSG_ERROR, with its extack message copied out. */
static int nl_error(const struct nlmsghdr *nlh, char *extack, size_t size)
{
	const struct nlmsgerr *err = NLMSG_DATA(nlh);
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*err));

	if (extack)
		extack[0] = '\0';
	if (nlh->nlmsg_len < off)
		return -EPROTO;
	if (!extack || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return err->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(err->msg.nlmsg_len - NLMSG_HDRLEN);
	if (off > nlh->nlmsg_len ||
	    cp_nla_parse(tb, NLMSGERR_ATTR_MAX, (const char *)nlh + off, nlh->nlmsg_len - off))
		return -EPROTO;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(extack, size, "%.*s", (int)cp_nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (const char *)cp_nla_data(tb[NLMSGERR_ATTR_MSG]));
	return err->error;
}

/* Find a generic netlink family by dumping them all: no module autoloading. */
int cp_genl_lookup(const char *name, uint16_t *id, uint32_t *version)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct nlmsghdr *nlh;
	uint32_t portid;
	int fd, ret = -ENOENT;
	bool done = false;
	ssize_t n;

	fd = nl_socket(&portid);
	if (fd < 0)
		return fd;
	ret = nl_send(fd, GENL_ID_CTRL, NLM_F_DUMP, 1, CTRL_CMD_GETFAMILY, 1, NULL, 0);
	if (ret)
		goto out;
	ret = -ENOENT;
	while (!done) {
		n = nl_recv(fd, buf, sizeof(buf));
		if (n < 0) {
			ret = n;
			goto out;
		}
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				ret = nl_error(nlh, NULL, 0) ?: -EPROTO;
				goto out;
			}
			if (cp_nla_parse(tb, CTRL_ATTR_MAX,
				      (const char *)NLMSG_DATA(nlh) + GENL_HDRLEN,
				      NLMSG_PAYLOAD(nlh, GENL_HDRLEN)))
				continue;
			if (!tb[CTRL_ATTR_FAMILY_NAME] || !tb[CTRL_ATTR_FAMILY_ID] ||
			    cp_nla_len(tb[CTRL_ATTR_FAMILY_NAME]) != strlen(name) + 1 ||
			    memcmp(cp_nla_data(tb[CTRL_ATTR_FAMILY_NAME]), name, strlen(name) + 1))
				continue;
			if (cp_nla_get(tb[CTRL_ATTR_FAMILY_ID], id, sizeof(*id)))
				continue;
			*version = 0;
			if (tb[CTRL_ATTR_VERSION])
				cp_nla_get(tb[CTRL_ATTR_VERSION], version, sizeof(*version));
			ret = 0;	/* keep reading to drain the dump */
		}
	}
out:
	close(fd);
	return ret;
}

int cp_nl_open(struct cp_nl *nl)
{
	int ret;

	memset(nl, 0, sizeof(*nl));
	nl->fd = -1;
	ret = cp_genl_lookup(CAUSALPROF_GENL_NAME, &nl->family, &nl->family_version);
	if (ret)
		return ret;
	nl->rbuf = malloc(CP_NL_RECV_SIZE);
	if (!nl->rbuf)
		return -ENOMEM;
	ret = nl_socket(&nl->portid);
	if (ret < 0) {
		free(nl->rbuf);
		nl->rbuf = NULL;
		return ret;
	}
	nl->fd = ret;
	return 0;
}

void cp_nl_close(struct cp_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
	free(nl->rbuf);
	nl->rbuf = NULL;
}

/*
 * A message the kernel sent on its own: a batch of records for the stream.
 * Returns true if it was one.
 */
bool cp_nl_records(struct cp_nl *nl, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *genl = NLMSG_DATA(nlh);
	const struct nlattr *tb[CAUSALPROF_A_MAX + 1];
	uint64_t id;

	if (nlh->nlmsg_type != nl->family || nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    genl->cmd != CAUSALPROF_CMD_RECORDS)
		return false;
	if (!nl->stream)
		return true;
	if (cp_nla_parse(tb, CAUSALPROF_A_MAX, (const char *)genl + GENL_HDRLEN,
		      NLMSG_PAYLOAD(nlh, GENL_HDRLEN)) ||
	    !tb[CAUSALPROF_A_SESSION_ID] || !tb[CAUSALPROF_A_RECORDS] ||
	    cp_nla_get(tb[CAUSALPROF_A_SESSION_ID], &id, sizeof(id))) {
		cp_stream_complain(nl->stream, "RECORDS message without SESSION_ID or RECORDS");
		return true;
	}
	if (cp_stream_feed(nl->stream, id, cp_nla_data(tb[CAUSALPROF_A_RECORDS]),
			   cp_nla_len(tb[CAUSALPROF_A_RECORDS])))
		cp_stream_complain(nl->stream, "out of memory for the records");
	return true;
}

/* ENOBUFS: the kernel dropped a message for this socket. Streams go on. */
bool cp_nl_overrun(struct cp_nl *nl, int err)
{
	if (err != -ENOBUFS || !nl->stream)
		return false;
	nl->stream->overruns++;
	return true;
}

/*
 * One request, acked: returns the length of the reply's attributes copied to
 * reply (0 when there was no reply), or the kernel's -errno with its extack
 * message in nl->extack.
 */
int cp_nl_request(struct cp_nl *nl, uint8_t cmd, const void *attrs, size_t len,
		  void *reply, size_t size)
{
	const struct nlmsghdr *nlh;
	uint32_t seq = ++nl->seq;
	int ret, copied = 0;
	size_t plen;
	ssize_t n;

	nl->extack[0] = '\0';
	ret = nl_send(nl->fd, nl->family, NLM_F_ACK, seq, cmd, CAUSALPROF_GENL_VERSION,
		      attrs, len);
	if (ret)
		return ret;
	for (;;) {
		n = nl_recv(nl->fd, nl->rbuf, CP_NL_RECV_SIZE);
		if (n < 0 && cp_nl_overrun(nl, n))
			continue;
		if (n < 0)
			return n;
		for (nlh = nl->rbuf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (cp_nl_records(nl, nlh) || nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				ret = nl_error(nlh, nl->extack, sizeof(nl->extack));
				return ret ?: copied;
			}
			if (nlh->nlmsg_type != nl->family || !reply)
				continue;
			plen = NLMSG_PAYLOAD(nlh, GENL_HDRLEN);
			if (plen > size)
				return -EMSGSIZE;
			memcpy(reply, (const char *)NLMSG_DATA(nlh) + GENL_HDRLEN, plen);
			copied = plen;
		}
	}
}

/* A nest: reserve its header now, set its length with cp_nla_nest_end(). */
size_t cp_nla_nest_start(void *buf, size_t off, uint16_t type, size_t *start)
{
	*start = off;
	return cp_nla_put(buf, off, type | NLA_F_NESTED, NULL, 0);
}

void cp_nla_nest_end(void *buf, size_t start, size_t off)
{
	((struct nlattr *)((char *)buf + start))->nla_len = off - start;
}

/* SO_RCVBUFFORCE: root may go past net.core.rmem_max, both ways. */
int cp_nl_set_rcvbuf(struct cp_nl *nl, int bytes)
{
	if (setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)))
		return -errno;
	return 0;
}

/* Receive records for timeout_ms, or until the END record. */
int cp_nl_pump(struct cp_nl *nl, int timeout_ms)
{
	int64_t deadline = cp_now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
	const struct nlmsghdr *nlh;
	ssize_t n;
	int left;

	for (;;) {
		if (nl->stream && nl->stream->ended)
			return 0;
		left = deadline - cp_now_ms();
		if (left < 0)
			return 0;
		n = poll(&pfd, 1, left);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		n = recv(nl->fd, nl->rbuf, CP_NL_RECV_SIZE, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			n = -errno;
			if (n == -EAGAIN || n == -EINTR || cp_nl_overrun(nl, n))
				continue;
			return n;
		}
		if (n > CP_NL_RECV_SIZE)
			return -EMSGSIZE;
		for (nlh = nl->rbuf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n))
			cp_nl_records(nl, nlh);
	}
}
