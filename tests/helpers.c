// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers of the causalprof selftests. See helpers.h.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "helpers.h"

#define NL_BUF_SIZE	32768

const char *cp_ko_path(void)
{
	const char *ko = getenv("CAUSALPROF_KO");

	return ko && *ko ? ko : NULL;
}

int cp_module_load(const char *ko)
{
	int fd, ret = 0;

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		ret = -errno;
	close(fd);
	return ret;
}

int cp_module_unload(void)
{
	if (syscall(SYS_delete_module, CP_MODULE, O_NONBLOCK))
		return -errno;
	return 0;
}

bool cp_module_loaded(void)
{
	return access(CP_SYSFS, F_OK) == 0;
}

int cp_module_ensure_loaded(void)
{
	const char *ko = cp_ko_path();

	if (cp_module_loaded())
		return 0;
	if (!ko)
		return -ENOENT;
	return cp_module_load(ko);
}

/*
 * The contract says every test program leaves the module loaded. Teardowns
 * reload it after a failed assertion; this covers a test killed by its
 * timeout or a signal, in the harness' main process only.
 */
static pid_t main_pid;

static void __attribute__((constructor)) remember_main(void)
{
	main_pid = getpid();
}

static void __attribute__((destructor)) reload_at_exit(void)
{
	if (getpid() != main_pid || cp_module_loaded() || !cp_ko_path())
		return;
	fprintf(stderr, "# %s was left unloaded, reloading: %s\n", CP_MODULE,
		strerror(-cp_module_ensure_loaded()));
}

int cp_status_read(char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(CP_STATUS, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return len == size - 1 ? -EFBIG : (int)len;
}

int cp_status_get(const char *key, char *val, size_t size)
{
	size_t klen = strlen(key), vlen;
	char buf[4096], *line, *end;
	int ret;

	ret = cp_status_read(buf, sizeof(buf));
	if (ret < 0)
		return ret;
	for (line = buf; *line; line = end + 1) {
		end = strchrnul(line, '\n');
		if (!strncmp(line, key, klen) && !strncmp(line + klen, ": ", 2)) {
			line += klen + 2;
			vlen = end - line;
			if (vlen >= size)
				return -ENOSPC;
			memcpy(val, line, vlen);
			val[vlen] = '\0';
			return 0;
		}
		if (!*end)
			break;
	}
	return -ENOENT;
}

int cp_parse_u64(const char *s, uint64_t *val)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*val = v;
	return 0;
}

int cp_status_u64(const char *key, uint64_t *val)
{
	char buf[64];
	int ret;

	ret = cp_status_get(key, buf, sizeof(buf));
	if (ret)
		return ret;
	return cp_parse_u64(buf, val);
}

int cp_control_write(const void *buf, size_t len)
{
	ssize_t n;
	int fd, ret = 0;

	fd = open(CP_CONTROL, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;	/* a short write would hide a half-parsed command */
	close(fd);
	return ret;
}

int cp_control(const char *cmd)
{
	return cp_control_write(cmd, strlen(cmd));
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int cp_wait_state(const char *state, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	char val[32];
	int ret;

	for (;;) {
		ret = cp_status_get("state", val, sizeof(val));
		if (ret)
			return ret;
		if (!strcmp(val, state))
			return 0;
		if (now_ms() > deadline)
			return -ETIMEDOUT;
		sleep_ms(10);
	}
}

/* Stop whatever session an earlier, failed test may have left running. */
int cp_session_reset(void)
{
	int ret = cp_control("stop");

	if (ret && ret != -ENOENT)
		return ret;
	return cp_wait_state("idle", CP_WAIT_MS);
}

/* A child that sleeps until killed, and dies with its parent. */
pid_t cp_spawn_sleeper(void)
{
	pid_t parent = getpid(), pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	return pid;
}

void cp_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A pid that existed a moment ago and has been reaped: nobody has it now. */
pid_t cp_dead_pid(void)
{
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(0);
	if (waitpid(pid, NULL, 0) != pid)
		return -errno;
	return pid;
}

/* Netlink attributes */

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
static int nla_parse(const struct nlattr **tb, int max, const void *data, size_t len)
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

static const void *nla_data(const struct nlattr *nla)
{
	return (const char *)nla + NLA_HDRLEN;
}

static size_t nla_len(const struct nlattr *nla)
{
	return nla->nla_len - NLA_HDRLEN;
}

/* Copy a fixed-size attribute; the wrong size is a protocol error. */
static int nla_get(const struct nlattr *nla, void *val, size_t size)
{
	if (nla_len(nla) != size) {
		fprintf(stderr, "# attribute %u: %zu bytes, expected %zu\n",
			nla->nla_type & NLA_TYPE_MASK, nla_len(nla), size);
		return -EPROTO;
	}
	memcpy(val, nla_data(nla), size);
	return 0;
}

/* Netlink sockets */

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
	    nla_parse(tb, NLMSGERR_ATTR_MAX, (const char *)nlh + off, nlh->nlmsg_len - off))
		return -EPROTO;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(extack, size, "%.*s", (int)nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
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
			if (nla_parse(tb, CTRL_ATTR_MAX,
				      (const char *)NLMSG_DATA(nlh) + GENL_HDRLEN,
				      NLMSG_PAYLOAD(nlh, GENL_HDRLEN)))
				continue;
			if (!tb[CTRL_ATTR_FAMILY_NAME] || !tb[CTRL_ATTR_FAMILY_ID] ||
			    nla_len(tb[CTRL_ATTR_FAMILY_NAME]) != strlen(name) + 1 ||
			    memcmp(nla_data(tb[CTRL_ATTR_FAMILY_NAME]), name, strlen(name) + 1))
				continue;
			if (nla_get(tb[CTRL_ATTR_FAMILY_ID], id, sizeof(*id)))
				continue;
			*version = 0;
			if (tb[CTRL_ATTR_VERSION])
				nla_get(tb[CTRL_ATTR_VERSION], version, sizeof(*version));
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
	ret = nl_socket(&nl->portid);
	if (ret < 0)
		return ret;
	nl->fd = ret;
	return 0;
}

void cp_nl_close(struct cp_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

/*
 * One request, acked: returns the length of the reply's attributes copied to
 * reply (0 when there was no reply), or the kernel's -errno with its extack
 * message in nl->extack.
 */
int cp_nl_request(struct cp_nl *nl, uint8_t cmd, const void *attrs, size_t len,
		  void *reply, size_t size)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
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
		n = nl_recv(nl->fd, buf, sizeof(buf));
		if (n < 0)
			return n;
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != seq)
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

static int parse_stats(const struct nlattr *nest, struct cp_nl_status *st)
{
	const struct nlattr *tb[CAUSALPROF_STAT_MAX + 1];
	int i, ret;

	ret = nla_parse(tb, CAUSALPROF_STAT_MAX, nla_data(nest), nla_len(nest));
	if (ret)
		return ret;
	for (i = CAUSALPROF_STAT_PAD + 1; i <= CAUSALPROF_STAT_MAX; i++) {
		if (!tb[i])
			continue;
		ret = nla_get(tb[i], &st->stats[i], sizeof(st->stats[i]));
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
	ret = nla_parse(tb, CAUSALPROF_A_MAX, buf, ret);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!tb[fixed[i].type])
			continue;
		ret = nla_get(tb[fixed[i].type], fixed[i].val, fixed[i].size);
		if (ret)
			return ret;
		st->attrs |= 1U << fixed[i].type;
	}
	ver = tb[CAUSALPROF_A_VERSION];
	if (ver) {
		/* NLA_NUL_STRING: the terminating NUL is part of the attribute */
		if (!nla_len(ver) || nla_len(ver) > sizeof(st->version) ||
		    ((const char *)nla_data(ver))[nla_len(ver) - 1])
			return -EPROTO;
		memcpy(st->version, nla_data(ver), nla_len(ver));
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

/* pid 0: no CAUSALPROF_A_TARGET_PID; flags 0: no CAUSALPROF_A_FLAGS. */
int cp_nl_start(struct cp_nl *nl, uint32_t pid, uint32_t flags, uint64_t *id)
{
	char attrs[64] __attribute__((aligned(NLA_ALIGNTO)));
	char reply[256] __attribute__((aligned(NLA_ALIGNTO)));
	const struct nlattr *tb[CAUSALPROF_A_MAX + 1];
	size_t len = 0;
	int ret;

	if (pid)
		len = cp_nla_put(attrs, len, CAUSALPROF_A_TARGET_PID, &pid, sizeof(pid));
	if (flags)
		len = cp_nla_put(attrs, len, CAUSALPROF_A_FLAGS, &flags, sizeof(flags));
	ret = cp_nl_request(nl, CAUSALPROF_CMD_SESSION_START, attrs, len, reply, sizeof(reply));
	if (ret < 0)
		return ret;
	ret = nla_parse(tb, CAUSALPROF_A_MAX, reply, ret);
	if (ret)
		return ret;
	if (!tb[CAUSALPROF_A_SESSION_ID])
		return -EPROTO;
	return nla_get(tb[CAUSALPROF_A_SESSION_ID], id, sizeof(*id));
}

int cp_nl_stop(struct cp_nl *nl)
{
	int ret = cp_nl_request(nl, CAUSALPROF_CMD_SESSION_STOP, NULL, 0, NULL, 0);

	return ret < 0 ? ret : 0;
}

int cp_nl_wait_state(struct cp_nl *nl, uint32_t state, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	struct cp_nl_status st;
	int ret;

	for (;;) {
		ret = cp_nl_get_status(nl, &st);
		if (ret)
			return ret;
		if (st.state == state)
			return 0;
		if (now_ms() > deadline)
			return -ETIMEDOUT;
		sleep_ms(10);
	}
}
