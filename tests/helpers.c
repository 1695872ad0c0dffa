// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers of the causalprof selftests. See helpers.h.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
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

#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "helpers.h"

#define NL_BUF_SIZE	32768

const char *cp_ko_path(void)
{
	const char *ko = getenv("CAUSALPROF_KO");

	return ko && *ko ? ko : NULL;
}

int cp_module_load_params(const char *ko, const char *params)
{
	int fd, ret = 0;

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		ret = -errno;
	close(fd);
	return ret;
}

int cp_module_load(const char *ko)
{
	return cp_module_load_params(ko, "");
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

/*
 * One write of buf to a file: a short write would hide a half-parsed
 * command, so it fails too.
 */
static int write_file(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

int cp_control_write(const void *buf, size_t len)
{
	return write_file(CP_CONTROL, buf, len);
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

/* A small file holding one decimal number and a newline. */
static int read_u64_file(const char *path, uint64_t *val)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return cp_parse_u64(buf, val);
}

int cp_debugfs_u64(const char *name, uint64_t *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", CP_DEBUGFS, name);
	return read_u64_file(path, val);
}

int cp_timer_irqs(uint64_t *count)
{
	char line[1024], *p, *end;
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/interrupts", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "LOC:", 4))
			continue;
		*count = 0;
		for (p += 4;; p = end) {
			unsigned long long n = strtoull(p, &end, 10);

			if (end == p)
				break;
			*count += n;
		}
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int cp_kernel_taint(uint64_t *mask)
{
	return read_u64_file("/proc/sys/kernel/tainted", mask);
}

/*
 * Load the module afresh with params ("" for the defaults). A request still
 * running in the module holds a reference for a moment: retry, bounded.
 */
int cp_module_reload(const char *params)
{
	int64_t deadline = now_ms() + CP_WAIT_MS;
	const char *ko = cp_ko_path();
	int ret;

	if (!ko)
		return -ENOENT;
	while (cp_module_loaded()) {
		ret = cp_module_unload();
		if (!ret)
			break;
		if (ret != -EAGAIN || now_ms() > deadline)
			return ret;
		sleep_ms(10);
	}
	return cp_module_load_params(ko, params);
}

/* /sys/module/causalprof/parameters/NAME, for the writable ones */
int cp_module_param_get(const char *name, uint64_t *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/parameters/%s", CP_SYSFS, name);
	return read_u64_file(path, val);
}

int cp_module_param_set(const char *name, uint64_t val)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "%s/parameters/%s", CP_SYSFS, name);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)val);
	return write_file(path, buf, strlen(buf));
}

int cp_become(uid_t uid, uint64_t caps, bool dumpable)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct want[_LINUX_CAPABILITY_U32S_3] = {};
	struct __user_cap_data_struct got[_LINUX_CAPABILITY_U32S_3] = {};
	int i;

	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		want[i].effective = caps >> (32 * i);
		want[i].permitted = caps >> (32 * i);
	}
	if (caps && prctl(PR_SET_KEEPCAPS, 1))
		return -errno;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	if (syscall(SYS_capset, &hdr, want) || syscall(SYS_capget, &hdr, got))
		return -errno;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (got[i].effective != want[i].effective || got[i].permitted != want[i].permitted)
			return -EPERM;
	if (dumpable && prctl(PR_SET_DUMPABLE, 1))
		return -errno;
	return getuid() == uid && geteuid() == uid && getgid() == uid ? 0 : -EPERM;
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

/* The "thread TID CPU_NS LOOPS" lines of spin's output: returns how many. */
int cp_spin_parse(char *out, struct cp_spin_thread *th, int max)
{
	unsigned long long ns, loops;
	char *line, *save;
	int tid, n = 0;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "thread %d %llu %llu", &tid, &ns, &loops) != 3)
			continue;
		if (n == max)
			return -E2BIG;
		th[n++] = (struct cp_spin_thread){ .tid = tid, .cpu_ns = ns, .loops = loops };
	}
	return n;
}

/* build/tests/targets/NAME, next to the running test program. */
int cp_target_path(const char *name, char *path, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	if ((size_t)snprintf(path, size, "%s/targets/%s", dirname(exe), name) >= size)
		return -ENAMETOOLONG;
	return access(path, X_OK) ? -errno : 0;
}

int cp_target_spawn(struct cp_target *t, char *const argv[], bool held)
{
	int go[2] = { -1, -1 }, out[2], ret;
	pid_t parent = getpid();
	char c;

	memset(t, 0, sizeof(*t));
	t->go = -1;
	t->out = -1;
	if (pipe2(out, O_CLOEXEC))
		return -errno;
	if (held && pipe2(go, O_CLOEXEC)) {
		ret = -errno;
		goto err_close_out;
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		ret = -errno;
		goto err_close_go;
	}
	if (!t->pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		if (dup2(out[1], STDOUT_FILENO) < 0)
			_exit(127);
		if (held) {
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(127);
		}
		execv(argv[0], argv);
		fprintf(stderr, "# exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	t->out = out[0];
	if (held) {
		close(go[0]);
		t->go = go[1];
	}
	return 0;

err_close_go:
	if (held) {
		close(go[0]);
		close(go[1]);
	}
err_close_out:
	close(out[0]);
	close(out[1]);
	return ret;
}

int cp_target_release(struct cp_target *t)
{
	int ret = 0;

	if (t->go < 0)
		return -EINVAL;
	if (write(t->go, "g", 1) != 1)
		ret = -errno;
	close(t->go);
	t->go = -1;
	return ret;
}

/*
 * The target's stdout until EOF, or until it holds the string until (if not
 * NULL): returns its length, NUL-terminated in buf.
 */
int cp_target_read(struct cp_target *t, char *buf, size_t size, const char *until,
		   int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = t->out, .events = POLLIN };
	size_t len = 0;
	ssize_t n;
	int left;

	for (;;) {
		left = deadline - now_ms();
		if (left < 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!pfd.revents)
			continue;
		if (len == size - 1)
			return -EFBIG;
		n = read(t->out, buf + len, size - 1 - len);
		if (n < 0)
			return -errno;
		if (!n)
			break;
		len += n;
		buf[len] = '\0';
		if (until && strstr(buf, until))
			break;
	}
	buf[len] = '\0';
	return len;
}

/* Reap the target, bounded: -ETIMEDOUT if it still runs. */
int cp_target_wait(struct cp_target *t, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	pid_t ret;

	while (!t->reaped) {
		ret = waitpid(t->pid, &t->status, WNOHANG);
		if (ret < 0)
			return -errno;
		if (ret == t->pid) {
			t->reaped = true;
			break;
		}
		if (now_ms() > deadline)
			return -ETIMEDOUT;
		sleep_ms(5);
	}
	return 0;
}

/* Kill and reap the target if need be, and close its pipes. */
void cp_target_kill(struct cp_target *t)
{
	if (t->pid > 0 && !t->reaped) {
		kill(t->pid, SIGKILL);
		if (waitpid(t->pid, &t->status, 0) == t->pid)
			t->reaped = true;
	}
	if (t->go >= 0)
		close(t->go);
	if (t->out >= 0)
		close(t->out);
	t->go = -1;
	t->out = -1;
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

/* The stream */

void cp_stream_free(struct cp_stream *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

static void stream_complain(struct cp_stream *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A protocol error: counted, and the first few are told. */
static void stream_complain(struct cp_stream *s, const char *fmt, ...)
{
	va_list ap;

	if (s->bad++ >= 5)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "# stream: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

/* Does a record of a known type hold its fields, and its strings their NUL? */
static bool record_ok(struct cp_stream *s, const struct causalprof_record_hdr *h)
{
	const struct causalprof_sample *smp = (const void *)h;
	const struct causalprof_mmap *mm = (const void *)h;
	const struct causalprof_comm *comm = (const void *)h;
	const struct causalprof_experiment *exp = (const void *)h;
	size_t min;

	switch (h->type) {
	case CAUSALPROF_REC_SAMPLE:
		if (h->size < sizeof(*smp))
			break;
		if (smp->nr_kernel > CAUSALPROF_MAX_STACK ||
		    smp->nr_user > CAUSALPROF_MAX_STACK) {
			stream_complain(s, "sample with %u kernel and %u user frames",
					smp->nr_kernel, smp->nr_user);
			return false;
		}
		min = sizeof(*smp) + sizeof(smp->ips[0]) * (smp->nr_kernel + smp->nr_user);
		if (h->size < min)
			break;
		return true;
	case CAUSALPROF_REC_MMAP:
		if (h->size <= sizeof(*mm))
			break;
		if (!memchr(mm->path, '\0', h->size - sizeof(*mm))) {
			stream_complain(s, "mmap record without the path's NUL");
			return false;
		}
		return true;
	case CAUSALPROF_REC_COMM:
		if (h->size < sizeof(*comm))
			break;
		if (!memchr(comm->comm, '\0', sizeof(comm->comm))) {
			stream_complain(s, "comm record without the name's NUL");
			return false;
		}
		return true;
	case CAUSALPROF_REC_FORK:
	case CAUSALPROF_REC_EXIT:
		min = sizeof(struct causalprof_task);
		if (h->size < min)
			break;
		return true;
	case CAUSALPROF_REC_LOST:
		if (h->size < sizeof(struct causalprof_lost))
			break;
		return true;
	case CAUSALPROF_REC_END:
		if (h->size < sizeof(struct causalprof_end))
			break;
		return true;
	case CAUSALPROF_REC_EXPERIMENT:
		if (h->size < sizeof(*exp))
			break;
		min = sizeof(*exp) + exp->nr_ranges * sizeof(struct causalprof_exp_range) +
		      exp->nr_points * sizeof(struct causalprof_exp_point);
		if (h->flags & CAUSALPROF_EXP_F_SPANS)
			min += exp->nr_points * sizeof(struct causalprof_exp_span);
		if (h->size < min)
			break;
		return true;
	default:
		return true;	/* readers skip types they do not know */
	}
	stream_complain(s, "record of type %u too short: %u bytes", h->type, h->size);
	return false;
}

static int stream_append(struct cp_stream *s, const void *rec, size_t size)
{
	size_t cap;
	char *buf;

	if (s->len + size > s->cap) {
		cap = s->cap ? s->cap : 1 << 20;
		while (cap < s->len + size)
			cap *= 2;
		buf = realloc(s->buf, cap);
		if (!buf)
			return -ENOMEM;
		s->buf = buf;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, rec, size);
	s->len += size;
	return 0;
}

/* One batch of records, as a CAUSALPROF_A_RECORDS attribute carries it. */
int cp_stream_feed(struct cp_stream *s, uint64_t session_id, const void *recs, size_t len)
{
	const struct causalprof_record_hdr *h;
	struct causalprof_record_hdr hdr;
	const char *p = recs;
	size_t off = 0;
	int ret;

	s->messages++;
	if (!s->first_id)
		s->first_id = session_id;
	if (session_id != (s->session_id ? s->session_id : s->first_id)) {
		s->foreign++;
		return 0;
	}
	while (off < len) {
		if (len - off < sizeof(hdr)) {
			stream_complain(s, "%zu bytes after the last record", len - off);
			break;
		}
		memcpy(&hdr, p + off, sizeof(hdr));	/* the attribute is 4-byte aligned */
		if (hdr.size < sizeof(hdr) || hdr.size % 8 || hdr.size > len - off) {
			stream_complain(s, "record of type %u with size %u at %zu of %zu",
					hdr.type, hdr.size, off, len);
			break;
		}
		ret = stream_append(s, p + off, hdr.size);
		if (ret)
			return ret;
		off += hdr.size;
		h = (const void *)(s->buf + s->len - hdr.size);
		if (!record_ok(s, h)) {
			s->len -= hdr.size;
			continue;
		}
		s->records++;
		if (s->ended)
			s->after_end++;
		switch (h->type) {
		case CAUSALPROF_REC_SAMPLE:
			s->samples++;
			break;
		case CAUSALPROF_REC_LOST:
			if (h->flags & CAUSALPROF_LOST_F_SIDEBAND)
				s->sideband_lost += cp_rec_lost(h)->lost;
			else
				s->lost += cp_rec_lost(h)->lost;
			break;
		case CAUSALPROF_REC_END:
			s->ended = true;
			memcpy(&s->end, h, sizeof(s->end));
			break;
		case CAUSALPROF_REC_EXPERIMENT:
			s->experiments++;
			break;
		}
	}
	return 0;
}

/*
 * What every complete stream promises: well-formed records of one session,
 * an END last, and totals in the END that match what came. NULL if so,
 * else what is wrong.
 */
const char *cp_stream_problem(const struct cp_stream *s)
{
	static char why[160];

	if (s->bad)
		snprintf(why, sizeof(why), "%zu malformed records or messages", s->bad);
	else if (s->foreign)
		snprintf(why, sizeof(why), "%zu batches of another session", s->foreign);
	else if (!s->ended)
		snprintf(why, sizeof(why), "no END record (%zu records came)", s->records);
	else if (s->after_end)
		snprintf(why, sizeof(why), "%zu records after the END record", s->after_end);
	else if (s->end.samples != s->samples)
		snprintf(why, sizeof(why), "END counts %llu samples, %zu came",
			 (unsigned long long)s->end.samples, s->samples);
	else if (s->end.lost != s->lost)
		snprintf(why, sizeof(why), "END counts %llu lost, the LOST records %llu",
			 (unsigned long long)s->end.lost, (unsigned long long)s->lost);
	else
		return NULL;
	return why;
}

const struct causalprof_record_hdr *cp_stream_next(const struct cp_stream *s, size_t *off)
{
	const struct causalprof_record_hdr *h;

	if (*off >= s->len)
		return NULL;
	h = (const void *)(s->buf + *off);
	*off += h->size;
	return h;
}

/*
 * A message the kernel sent on its own: a batch of records for the stream.
 * Returns true if it was one.
 */
static bool nl_records(struct cp_nl *nl, const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *genl = NLMSG_DATA(nlh);
	const struct nlattr *tb[CAUSALPROF_A_MAX + 1];
	uint64_t id;

	if (nlh->nlmsg_type != nl->family || nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    genl->cmd != CAUSALPROF_CMD_RECORDS)
		return false;
	if (!nl->stream)
		return true;
	if (nla_parse(tb, CAUSALPROF_A_MAX, (const char *)genl + GENL_HDRLEN,
		      NLMSG_PAYLOAD(nlh, GENL_HDRLEN)) ||
	    !tb[CAUSALPROF_A_SESSION_ID] || !tb[CAUSALPROF_A_RECORDS] ||
	    nla_get(tb[CAUSALPROF_A_SESSION_ID], &id, sizeof(id))) {
		stream_complain(nl->stream, "RECORDS message without SESSION_ID or RECORDS");
		return true;
	}
	if (cp_stream_feed(nl->stream, id, nla_data(tb[CAUSALPROF_A_RECORDS]),
			   nla_len(tb[CAUSALPROF_A_RECORDS])))
		stream_complain(nl->stream, "out of memory for the records");
	return true;
}

/* ENOBUFS: the kernel dropped a message for this socket. Streams go on. */
static bool nl_overrun(struct cp_nl *nl, int err)
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
		if (n < 0 && nl_overrun(nl, n))
			continue;
		if (n < 0)
			return n;
		for (nlh = nl->rbuf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nl_records(nl, nlh) || nlh->nlmsg_seq != seq)
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

static size_t put_event(void *buf, size_t off, const struct cp_nl_event *ev)
{
	size_t start;

	off = cp_nla_nest_start(buf, off, CAUSALPROF_EVENTS_A_EVENT, &start);
	off = cp_nla_put(buf, off, CAUSALPROF_EV_A_TYPE, &ev->type, sizeof(ev->type));
	off = cp_nla_put(buf, off, CAUSALPROF_EV_A_CONFIG, &ev->config, sizeof(ev->config));
	if (ev->period)
		off = cp_nla_put(buf, off, CAUSALPROF_EV_A_PERIOD, &ev->period, sizeof(ev->period));
	if (ev->freq)
		off = cp_nla_put(buf, off, CAUSALPROF_EV_A_FREQ, &ev->freq, sizeof(ev->freq));
	if (ev->name)
		off = cp_nla_put(buf, off, CAUSALPROF_EV_A_NAME, ev->name, strlen(ev->name) + 1);
	cp_nla_nest_end(buf, start, off);
	return off;
}

/*
 * pid 0: no CAUSALPROF_A_TARGET_PID; flags 0: no CAUSALPROF_A_FLAGS; nr 0: no
 * CAUSALPROF_A_EVENTS. With a stream attached, the stream learns the id.
 */
int cp_nl_start_events(struct cp_nl *nl, uint32_t pid, uint32_t flags,
		       const struct cp_nl_event *evs, unsigned int nr, uint64_t *id)
{
	char attrs[4096] __attribute__((aligned(NLA_ALIGNTO)));
	char reply[256] __attribute__((aligned(NLA_ALIGNTO)));
	const struct nlattr *tb[CAUSALPROF_A_MAX + 1];
	size_t len = 0, start;
	unsigned int i;
	int ret;

	if (nr > 16)
		return -E2BIG;	/* more than attrs holds; the kernel allows 8 */
	if (pid)
		len = cp_nla_put(attrs, len, CAUSALPROF_A_TARGET_PID, &pid, sizeof(pid));
	if (flags)
		len = cp_nla_put(attrs, len, CAUSALPROF_A_FLAGS, &flags, sizeof(flags));
	if (nr) {
		len = cp_nla_nest_start(attrs, len, CAUSALPROF_A_EVENTS, &start);
		for (i = 0; i < nr; i++)
			len = put_event(attrs, len, &evs[i]);
		cp_nla_nest_end(attrs, start, len);
	}
	ret = cp_nl_request(nl, CAUSALPROF_CMD_SESSION_START, attrs, len, reply, sizeof(reply));
	if (ret < 0)
		return ret;
	ret = nla_parse(tb, CAUSALPROF_A_MAX, reply, ret);
	if (ret)
		return ret;
	if (!tb[CAUSALPROF_A_SESSION_ID])
		return -EPROTO;
	ret = nla_get(tb[CAUSALPROF_A_SESSION_ID], id, sizeof(*id));
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
	int64_t deadline = now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
	const struct nlmsghdr *nlh;
	ssize_t n;
	int left;

	for (;;) {
		if (nl->stream && nl->stream->ended)
			return 0;
		left = deadline - now_ms();
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
			if (n == -EAGAIN || n == -EINTR || nl_overrun(nl, n))
				continue;
			return n;
		}
		if (n > CP_NL_RECV_SIZE)
			return -EMSGSIZE;
		for (nlh = nl->rbuf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n))
			nl_records(nl, nlh);
	}
}

/* Receive records until the target exits (and reap it), bounded. */
int cp_nl_pump_until_exit(struct cp_nl *nl, struct cp_target *t, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	int ret;

	for (;;) {
		ret = cp_target_wait(t, 0);
		if (ret != -ETIMEDOUT)
			return ret;
		if (now_ms() > deadline)
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
	      const struct cp_nl_event *evs, unsigned int nr, int timeout_ms)
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

int cp_exp_read(char *text, size_t size)
{
	FILE *f = fopen(CP_EXPERIMENT, "r");
	size_t n;
	int err;

	if (!f)
		return -errno;
	if (size < 2) {
		fclose(f);
		return -EINVAL;
	}
	text[0] = '\n';
	n = fread(text + 1, 1, size - 2, f);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	text[n + 1] = '\0';
	return err;
}

int cp_exp_i64(const char *text, const char *key, int64_t *val)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s: ", key);
	p = strstr(text, pat);
	if (!p)
		return -ENOENT;
	*val = strtoll(p + strlen(pat), NULL, 10);
	return 0;
}

int cp_exp_task(const char *text, pid_t tid, int64_t *local, int64_t *paid, int *payments)
{
	long long l, p;
	char pat[32];
	const char *s;

	*local = *paid = *payments = 0;
	snprintf(pat, sizeof(pat), "\ntask: %d ", tid);
	s = strstr(text, pat);
	if (!s)
		return -ENOENT;
	if (sscanf(s + strlen(pat), "%lld %lld %d", &l, &p, payments) != 3)
		return -EINVAL;
	*local = l;
	*paid = p;
	return 0;
}

int cp_peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, addr);
	if (n < 0)
		n = -errno;
	close(fd);
	return n == (ssize_t)len ? 0 : n < 0 ? n : -EIO;
}

int cp_peek_u64(pid_t pid, uint64_t addr, uint64_t *val)
{
	return cp_peek(pid, addr, val, sizeof(*val));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double cp_median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Experiments and progress points */

int cp_nl_experiment_start(struct cp_nl *nl, uint32_t speedup, const struct cp_nl_range *r,
			   unsigned int nr)
{
	char attrs[4096] __attribute__((aligned(NLA_ALIGNTO)));
	size_t len = 0, exp, range;
	unsigned int i;
	int ret;

	if (nr > 64)
		return -E2BIG;	/* more than attrs holds; the kernel allows 16 */
	len = cp_nla_nest_start(attrs, len, CAUSALPROF_A_EXPERIMENT, &exp);
	len = cp_nla_put(attrs, len, CAUSALPROF_EXP_A_SPEEDUP, &speedup, sizeof(speedup));
	for (i = 0; i < nr; i++) {
		len = cp_nla_nest_start(attrs, len, CAUSALPROF_EXP_A_RANGE, &range);
		len = cp_nla_put(attrs, len, CAUSALPROF_RANGE_A_PID, &r[i].pid, sizeof(r[i].pid));
		len = cp_nla_put(attrs, len, CAUSALPROF_RANGE_A_START, &r[i].start,
				 sizeof(r[i].start));
		len = cp_nla_put(attrs, len, CAUSALPROF_RANGE_A_END, &r[i].end, sizeof(r[i].end));
		cp_nla_nest_end(attrs, range, len);
	}
	cp_nla_nest_end(attrs, exp, len);
	ret = cp_nl_request(nl, CAUSALPROF_CMD_EXPERIMENT_START, attrs, len, NULL, 0);
	return ret < 0 ? ret : 0;
}

int cp_nl_experiment_stop(struct cp_nl *nl)
{
	int ret = cp_nl_request(nl, CAUSALPROF_CMD_EXPERIMENT_STOP, NULL, 0, NULL, 0);

	return ret < 0 ? ret : 0;
}

int cp_nl_progress_add(struct cp_nl *nl, uint32_t id, uint32_t kind, const char *path,
		       uint64_t offset, uint64_t end_offset)
{
	char attrs[NL_BUF_SIZE / 2] __attribute__((aligned(NLA_ALIGNTO)));
	size_t len = 0, pp, plen = strlen(path) + 1;
	int ret;

	if (plen > sizeof(attrs) - 256)
		return -ENAMETOOLONG;
	len = cp_nla_nest_start(attrs, len, CAUSALPROF_A_PROGRESS, &pp);
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_ID, &id, sizeof(id));
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_KIND, &kind, sizeof(kind));
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_PATH, path, plen);
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_OFFSET, &offset, sizeof(offset));
	if (end_offset)
		len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_END_OFFSET, &end_offset,
				 sizeof(end_offset));
	cp_nla_nest_end(attrs, pp, len);
	ret = cp_nl_request(nl, CAUSALPROF_CMD_PROGRESS_ADD, attrs, len, NULL, 0);
	return ret < 0 ? ret : 0;
}

int cp_nl_progress_del(struct cp_nl *nl, uint32_t id)
{
	char attrs[64] __attribute__((aligned(NLA_ALIGNTO)));
	size_t len = 0, pp;
	int ret;

	len = cp_nla_nest_start(attrs, len, CAUSALPROF_A_PROGRESS, &pp);
	len = cp_nla_put(attrs, len, CAUSALPROF_PP_A_ID, &id, sizeof(id));
	cp_nla_nest_end(attrs, pp, len);
	ret = cp_nl_request(nl, CAUSALPROF_CMD_PROGRESS_DEL, attrs, len, NULL, 0);
	return ret < 0 ? ret : 0;
}

const struct causalprof_experiment *cp_stream_experiment(const struct cp_stream *s, size_t n)
{
	const struct causalprof_record_hdr *h;
	size_t off;

	cp_stream_for_each(s, h, off)
		if (h->type == CAUSALPROF_REC_EXPERIMENT && !n--)
			return cp_rec_exp(h);
	return NULL;
}

int cp_nl_wait_experiments(struct cp_nl *nl, size_t n, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	int ret;

	if (!nl->stream)
		return -EINVAL;
	while (nl->stream->experiments < n) {
		if (nl->stream->ended || now_ms() > deadline)
			return -ETIMEDOUT;
		ret = cp_nl_pump(nl, 20);
		if (ret)
			return ret;
	}
	return 0;
}

/* Progress-point targets */

void cp_prog_init(struct cp_prog *p)
{
	memset(p, 0, sizeof(*p));
	p->cmd = -1;
	p->t.go = -1;
	p->t.out = -1;
}

/* The target reads commands from a pipe whose read end it inherits. */
int cp_prog_spawn(struct cp_prog *p)
{
	char fd[16], buf[256];
	char *argv[] = { p->path, fd, NULL };
	unsigned long long tp, begin, end;
	int fds[2], ret;

	cp_prog_init(p);
	ret = cp_target_path("progress", p->path, sizeof(p->path));
	if (ret)
		return ret;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	if (fcntl(fds[0], F_SETFD, 0)) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	snprintf(fd, sizeof(fd), "%d", fds[0]);
	ret = cp_target_spawn(&p->t, argv, false);
	close(fds[0]);
	if (ret) {
		close(fds[1]);
		return ret;
	}
	p->cmd = fds[1];
	ret = cp_target_read(&p->t, buf, sizeof(buf), "\n", 10000);
	if (ret < 0)
		return ret;
	if (sscanf(buf, "ready %d %llx %llx %llx", &p->pid, &tp, &begin, &end) != 4)
		return -EINVAL;
	p->tp = tp;
	p->begin = begin;
	p->end = end;
	if (cp_file_offset(p->pid, p->tp, &p->off_tp) ||
	    cp_file_offset(p->pid, p->begin, &p->off_begin) ||
	    cp_file_offset(p->pid, p->end, &p->off_end))
		return -ENOENT;
	return 0;
}

void cp_prog_kill(struct cp_prog *p)
{
	if (p->cmd >= 0)
		close(p->cmd);
	p->cmd = -1;
	cp_target_kill(&p->t);
}

/* Sends one command and reads the target's one-line answer. */
int cp_prog_cmd(struct cp_prog *p, const char *cmd, char *reply, size_t size)
{
	char buf[256];
	size_t len = strlen(cmd);
	int ret;

	if (write(p->cmd, cmd, len) != (ssize_t)len || write(p->cmd, "\n", 1) != 1)
		return -errno;
	ret = cp_target_read(&p->t, reply ?: buf, reply ? size : sizeof(buf), "\n", 60000);
	return ret < 0 ? ret : 0;
}

int cp_prog_call(struct cp_prog *p, long n, int threads)
{
	char cmd[64], reply[64];
	long done;
	int ret;

	snprintf(cmd, sizeof(cmd), "call %ld %d", n, threads);
	ret = cp_prog_cmd(p, cmd, reply, sizeof(reply));
	if (ret)
		return ret;
	return sscanf(reply, "called %ld", &done) == 1 && done == n ? 0 : -EPROTO;
}

int cp_file_offset(pid_t pid, uint64_t addr, uint64_t *off)
{
	unsigned long long start, end, pgoff;
	char path[64], line[512];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &pgoff) != 3)
			continue;
		if (addr >= start && addr < end) {
			*off = addr - start + pgoff;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int cp_byte_at(const char *file, uint64_t off)
{
	uint8_t c;
	int fd, n;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, &c, 1, off);
	close(fd);
	return n == 1 ? c : -EIO;
}

int cp_mem_byte(pid_t pid, uint64_t addr)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	return cp_byte_at(path, addr);
}

long long cp_thread_ticks(pid_t pid, pid_t tid)
{
	unsigned long long ut, st;
	char path[64], buf[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return -1;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return ut + st;
}

bool cp_thread_runs(pid_t pid, pid_t tid)
{
	long long t0 = cp_thread_ticks(pid, tid), t1;
	int i;

	for (i = 0; i < 20; i++) {
		usleep(100000);
		t1 = cp_thread_ticks(pid, tid);
		if (t0 >= 0 && t1 > t0 + 5)
			return true;
	}
	return false;
}

int cp_module_refs_settle(void)
{
	uint64_t n = 1;
	int i, ret;

	for (i = 0; i < 100; i++) {
		ret = cp_module_param_get("../refcnt", &n);
		if (ret)
			return ret;
		if (!n)
			return 0;
		usleep(10000);
	}
	return -EBUSY;
}
