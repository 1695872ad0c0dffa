// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/causalprof: status, control, and the experiment file, read as
 * text the way a person or script reads them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "internal.h"

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
	return cp_write_file(CP_CONTROL, buf, len);
}

int cp_control(const char *cmd)
{
	return cp_control_write(cmd, strlen(cmd));
}

int cp_wait_state(const char *state, int timeout_ms)
{
	int64_t deadline = cp_now_ms() + timeout_ms;
	char val[32];
	int ret;

	for (;;) {
		ret = cp_status_get("state", val, sizeof(val));
		if (ret)
			return ret;
		if (!strcmp(val, state))
			return 0;
		if (cp_now_ms() > deadline)
			return -ETIMEDOUT;
		cp_sleep_ms(10);
	}
}

int cp_status_wait_u64(const char *key, uint64_t min, int timeout_ms)
{
	int64_t deadline = cp_now_ms() + timeout_ms;
	uint64_t val;
	int ret;

	for (;;) {
		ret = cp_status_u64(key, &val);
		if (ret)
			return ret;
		if (val >= min)
			return 0;
		if (cp_now_ms() > deadline)
			return -ETIMEDOUT;
		cp_sleep_ms(10);
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

int cp_read_text(const char *path, char *text, size_t size)
{
	FILE *f = fopen(path, "r");
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

int cp_exp_read(char *text, size_t size)
{
	return cp_read_text(CP_EXPERIMENT, text, size);
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
