// SPDX-License-Identifier: GPL-2.0
/*
 * /tmp/perf-PID.map files, as a JIT writes them: parsed once into entries
 * sorted by start, each with the largest end up to it, so that a lookup is
 * a binary search and a walk back over the entries that still reach the
 * address, the newest of which names it.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "array.h"
#include "perfmap.h"

/* A hex number at *@p, optionally 0x-prefixed, then one blank. */
static bool hex_field(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int digits = 0, d;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (*v = 0; s < end; s++, digits++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (digits == 16)
			return false;
		*v = *v << 4 | d;
	}
	if (!digits || s == end || (*s != ' ' && *s != '\t'))
		return false;
	*p = s + 1;
	return true;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct cp_jitsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int cp_perfmap_parse(struct cp_perfmap *m, uint32_t pid, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *eol;
	size_t cap = 0, i;
	uint64_t start, size, reach = 0;
	uint32_t seq = 0;

	memset(m, 0, sizeof(*m));
	m->pid = pid;
	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if (eol == p)
			continue;
		seq++;
		if (!hex_field(&p, eol, &start) || !hex_field(&p, eol, &size) || p == eol ||
		    !size || start + size < start || eol - p > UINT32_MAX) {
			m->bad++;
			continue;
		}
		if (CP_RESERVE(m->syms, cap, m->nr, 1)) {
			cp_perfmap_free(m);
			return -ENOMEM;
		}
		m->syms[m->nr++] = (struct cp_jitsym){
			.start = start, .end = start + size, .seq = seq,
			.name = p, .name_len = eol - p,
		};
	}
	if (m->nr)
		qsort(m->syms, m->nr, sizeof(*m->syms), sym_cmp);
	for (i = 0; i < m->nr; i++) {
		if (m->syms[i].end > reach)
			reach = m->syms[i].end;
		m->syms[i].reach = reach;
	}
	return 0;
}

void cp_perfmap_free(struct cp_perfmap *m)
{
	free(m->syms);
	m->syms = NULL;
	m->nr = 0;
}

const char *cp_perfmap_find(const struct cp_perfmap *m, uint64_t addr, size_t *len)
{
	const struct cp_jitsym *best = NULL;
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Entries before lo start at or before addr; stop where none reaches it. */
	while (lo-- && m->syms[lo].reach > addr) {
		if (addr < m->syms[lo].end && (!best || m->syms[lo].seq > best->seq))
			best = &m->syms[lo];
	}
	if (!best)
		return NULL;
	*len = best->name_len;
	return best->name;
}

int cp_perfmap_copy(struct cp_rec_writer *w, uint32_t pid, uid_t uid, char *err, size_t errlen)
{
	struct cp_rec_perfmap head = { .pid = pid };
	struct iovec iov[2];
	char path[64], *buf;
	struct stat st;
	size_t len = 0;
	ssize_t n = 0;
	int fd, ret;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	/* Not through a link another user planted; never block on a FIFO. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid != uid && st.st_uid != 0)) {
		ret = -EPERM;
		snprintf(err, errlen, "%s: not a regular file of the process's user", path);
		goto out_close;
	}
	if ((uint64_t)st.st_size > CP_PERFMAP_MAX) {
		ret = -EFBIG;
		snprintf(err, errlen, "%s: larger than %u MiB", path, CP_PERFMAP_MAX >> 20);
		goto out_close;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		goto out_close;
	}
	/* The JIT may still be appending: what there is now, whole lines. */
	while (len < (size_t)st.st_size) {
		n = read(fd, buf + len, st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	if (n < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out_free;
	}
	while (len && buf[len - 1] != '\n')
		len--;
	iov[0] = (struct iovec){ .iov_base = &head.pid, .iov_len = 8 };
	iov[1] = (struct iovec){ .iov_base = buf, .iov_len = len };
	ret = cp_rec_putv(w, CP_REC_PERFMAP, 0, iov, 2);
	if (ret)
		snprintf(err, errlen, "cannot write it: %s", strerror(-ret));
	else
		ret = 1;
out_free:
	free(buf);
out_close:
	close(fd);
	return ret;
}
