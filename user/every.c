// SPDX-License-Identifier: GPL-2.0
/*
 * cprof record --every: the carried sideband, each interval's pprof written
 * in place atomically, and the directory pruned to the last N profiles.
 * The carry is the recording thread's; cp_every_write() is the reporting
 * thread's (user/reporter.c), which touches only the directory.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "ksyms.h"
#include "every.h"
#include "report.h"
#include "top.h"

#define MIN_INTERVAL_NS		100000000ULL		/* 100 ms */
#define MAX_INTERVAL_NS		86400000000000ULL	/* a day */
/* "cprof-" "20261126T012000" ".123" "Z" ".pb.gz" */
#define NAME_MAX_LEN		48
/* and its temporary name, "." NAME ".tmp" */
_Static_assert(NAME_MAX_LEN + 6 <= CP_EVERY_NAME_MAX, "CP_EVERY_NAME_MAX");

int cp_every_parse_interval(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "ms", 1000000ULL },
		{ "s", 1000000000ULL },
		{ "", 1000000000ULL },
		{ "m", 60000000000ULL },
		{ "h", 3600000000000ULL },
	};
	unsigned long long v;
	unsigned int i;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v > MAX_INTERVAL_NS / units[i].ns)
			return -EINVAL;
		*ns = v * units[i].ns;
		return *ns < MIN_INTERVAL_NS || *ns > MAX_INTERVAL_NS ? -EINVAL : 0;
	}
	return -EINVAL;
}

void cp_every_init(struct cp_every *e, const char *prog, const char *dir, uint64_t interval_ns,
		   unsigned int keep)
{
	memset(e, 0, sizeof(*e));
	e->prog = prog;
	e->dir = dir;
	e->interval_ns = interval_ns;
	e->keep = keep;
	e->ms = interval_ns % 1000000000ULL != 0;
	/*
	 * A fixed threshold for blocks from mmap(), given back when freed:
	 * malloc otherwise raises it to the largest block freed, and keeps
	 * every later block that size in its heap. Below it, and up to the
	 * trim threshold at the heap's top, freed memory stays for the next
	 * interval's report, which would otherwise fault every page of its
	 * tables and buffers in again; the reporting thread gives it back
	 * when it adds up (user/reporter.c).
	 */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
	/*
	 * One heap for the thread that records and the one that reports: a
	 * thread's own arena keeps what it freed apart, out of reach of the
	 * other's allocations.
	 */
	mallopt(M_ARENA_MAX, 1);
}

void cp_every_free(struct cp_every *e)
{
	size_t i;

	for (i = 0; i < e->nr; i++)
		free(e->carry[i].rec);
	free(e->carry);
	e->carry = NULL;
	e->nr = e->cap = e->carry_bytes = e->stack_bytes = 0;
}

static int carry(struct cp_every *e, const struct causalprof_record_hdr *h, uint32_t pid,
		 uint32_t tid)
{
	void *copy;

	if (CP_RESERVE(e->carry, e->cap, e->nr, 1))
		return -ENOMEM;
	copy = malloc(h->size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, h, h->size);
	e->carry[e->nr++] = (struct cp_carried){ .rec = copy, .pid = pid, .tid = tid };
	e->carry_bytes += h->size;
	if (h->type == CAUSALPROF_REC_STACK)
		e->stack_bytes += h->size;
	return 0;
}

static void bury(struct cp_every *e, struct cp_carried *c)
{
	if (!c->dead)
		c->dead = e->index + 1;
}

static const struct causalprof_mmap *carried_mmap(const struct cp_carried *c)
{
	const struct causalprof_record_hdr *h = c->rec;

	return h->type == CAUSALPROF_REC_MMAP ? cp_rec_mmap(h) : NULL;
}

/* A new process: the parent's mappings, as the child's own from its birth. */
static int inherit(struct cp_every *e, const struct causalprof_task *t)
{
	size_t i, n = e->nr;
	struct causalprof_mmap *m;
	int ret;

	for (i = 0; i < n; i++) {
		const struct causalprof_mmap *pm = carried_mmap(&e->carry[i]);

		if (!pm || e->carry[i].dead || pm->pid != t->ppid)
			continue;
		ret = carry(e, &pm->hdr, t->pid, 0);
		if (ret)
			return ret;
		m = e->carry[e->nr - 1].rec;
		m->pid = t->pid;
		m->time_ns = t->time_ns;
	}
	return 0;
}

int cp_every_note(struct cp_every *e, const struct causalprof_record_hdr *h)
{
	const struct causalprof_mmap *m, *old;
	const struct causalprof_comm *c;
	const struct causalprof_task *t;
	size_t i;
	int ret;

	switch (h->type) {
	case CAUSALPROF_REC_MMAP:
		m = cp_rec_mmap(h);
		if (!m)
			return 0;
		/* Mappings it hides whole are gone. */
		for (i = 0; i < e->nr; i++) {
			old = carried_mmap(&e->carry[i]);
			if (old && old->pid == m->pid && old->start >= m->start &&
			    old->start + old->len <= m->start + m->len)
				bury(e, &e->carry[i]);
		}
		return carry(e, h, m->pid, 0);
	case CAUSALPROF_REC_COMM:
		c = cp_rec_comm(h);
		if (!c)
			return 0;
		for (i = 0; i < e->nr; i++) {
			const struct causalprof_record_hdr *ch = e->carry[i].rec;

			/* The thread's older name; with an exec, the old image. */
			if ((ch->type == CAUSALPROF_REC_COMM && e->carry[i].tid == c->tid) ||
			    ((c->hdr.flags & CAUSALPROF_COMM_F_EXEC) &&
			     ch->type == CAUSALPROF_REC_MMAP && e->carry[i].pid == c->pid))
				bury(e, &e->carry[i]);
		}
		return carry(e, h, c->pid, c->tid);
	case CAUSALPROF_REC_FORK:
		t = cp_rec_task(h);
		if (!t)
			return 0;
		ret = carry(e, h, t->pid, t->tid);
		if (!ret && t->pid == t->tid && t->pid != t->ppid)
			ret = inherit(e, t);
		return ret;
	case CAUSALPROF_REC_EXIT:
		t = cp_rec_task(h);
		if (!t)
			return 0;
		ret = carry(e, h, t->pid, t->tid);
		if (ret)
			return ret;
		/* The thread, or with the main thread the whole process. */
		for (i = 0; i < e->nr; i++)
			if (t->tid == t->pid ? e->carry[i].pid == t->pid : e->carry[i].tid == t->tid)
				bury(e, &e->carry[i]);
		return 0;
	case CP_REC_BUILDID:
		return carry(e, h, 0, 0);
	case CAUSALPROF_REC_STACK:
		/*
		 * A stack comes once per CPU per session: every interval needs
		 * it, unless its CPU sends it again (its set of sent stacks was
		 * full): then only until the next interval, which may have the
		 * counts of the drain that brought it.
		 */
		ret = carry(e, h, 0, 0);
		if (!ret && (h->flags & CAUSALPROF_STACK_F_AGAIN))
			bury(e, &e->carry[e->nr - 1]);
		return ret;
	}
	return 0;
}

int cp_every_put_carry(struct cp_every *e, struct cp_rec_writer *w)
{
	const struct causalprof_record_hdr *h;
	size_t i;

	for (i = 0; i < e->nr; i++) {
		h = e->carry[i].rec;
		cp_rec_put_raw(w, h, h->size);
	}
	return w->err;
}

/*
 * What died before the interval that just ended goes; what died in it
 * stays for one more, whose first samples may be older than the death.
 */
static void prune_carry(struct cp_every *e)
{
	size_t i, n = 0;

	for (i = 0; i < e->nr; i++) {
		const struct causalprof_record_hdr *h = e->carry[i].rec;

		if (e->carry[i].dead && e->carry[i].dead <= e->index) {
			e->carry_bytes -= h->size;
			if (h->type == CAUSALPROF_REC_STACK)
				e->stack_bytes -= h->size;
			free(e->carry[i].rec);
			continue;
		}
		e->carry[n++] = e->carry[i];
	}
	e->nr = n;
	if (e->carry_bytes > e->carry_peak)
		e->carry_peak = e->carry_bytes;
	/* Give back what a burst of processes made it grow to. */
	if (e->cap > 64 && e->nr < e->cap / 4) {
		struct cp_carried *less = realloc(e->carry, e->cap / 2 * sizeof(*less));

		if (less) {
			e->carry = less;
			e->cap /= 2;
		}
	}
}

static bool is_profile(const char *name)
{
	size_t len = strlen(name), pre = strlen(CP_EVERY_PREFIX), suf = strlen(CP_EVERY_SUFFIX);

	return len > pre + suf && len <= NAME_MAX_LEN && !strncmp(name, CP_EVERY_PREFIX, pre) &&
	       !strcmp(name + len - suf, CP_EVERY_SUFFIX) && name[pre] >= '0' && name[pre] <= '9';
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The oldest profiles beyond the last keep, removed (their names sort by time). */
static void prune_dir(struct cp_every *e, const char *prog)
{
	char **names = NULL, path[4096];
	size_t nr = 0, cap = 0, i;
	struct dirent *d;
	DIR *dir;

	if (!e->keep)
		return;
	dir = opendir(e->dir);
	if (!dir) {
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, e->dir, strerror(errno));
		return;
	}
	while ((d = readdir(dir))) {
		if (!is_profile(d->d_name))
			continue;
		if (CP_RESERVE(names, cap, nr, 1))
			break;
		names[nr] = strdup(d->d_name);
		if (!names[nr])
			break;
		nr++;
	}
	closedir(dir);
	qsort(names, nr, sizeof(*names), cmp_names);
	for (i = 0; i + e->keep < nr; i++) {
		snprintf(path, sizeof(path), "%s/%s", e->dir, names[i]);
		if (unlink(path) && errno != ENOENT)
			fprintf(stderr, "%s: cannot remove %s: %s\n", prog, path, strerror(errno));
	}
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

/* Its data on the disk before the rename makes it visible. */
static int sync_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = fsync(fd) ? -errno : 0;
	close(fd);
	return ret;
}

int cp_every_write(struct cp_every *e, const struct cp_every_interval *iv,
		   struct cp_symbolizer *sym, const struct cp_ksyms *ks, struct cp_pprof_gz *gz)
{
	char stamp[32], name[NAME_MAX_LEN + 1], path[4096], tmp[4096];
	time_t secs = iv->name_ns / 1000000000;
	struct cp_report_opts o = {
		.prog = e->prog,
		.input = name,
		.pprof = tmp,
		.fraction = CP_TOP_FRACTION,
		.slice = true,
		.time_nanos = iv->start_ns,
		.duration_nanos = iv->duration_ns,
		.sym = sym,
		.ks = ks,
		.gz = gz,
		.out = stdout,
		.err = stderr,
	};
	struct cp_rec_reader rd;
	struct tm tm;
	int ret;

	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	if (e->ms)
		snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), ".%03ld",
			 (long)(iv->name_ns / 1000000 % 1000));
	snprintf(name, sizeof(name), CP_EVERY_PREFIX "%sZ" CP_EVERY_SUFFIX, stamp);
	snprintf(path, sizeof(path), "%s/%s", e->dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", e->dir, name);

	if (cp_rec_open_mem(&rd, iv->data, iv->len)) {
		fprintf(stderr, "%s: interval %u: %s\n", e->prog, iv->index, rd.err);
		ret = 1;
	} else {
		ret = cp_report(&o, &rd);
		cp_rec_close(&rd);
	}
	if (!ret && (sync_file(tmp) || rename(tmp, path))) {
		fprintf(stderr, "%s: cannot write %s: %s\n", e->prog, path, strerror(errno));
		ret = 1;
	}
	if (ret)
		unlink(tmp);
	prune_dir(e, e->prog);
	return ret ? 1 : 0;
}

void cp_every_next(struct cp_every *e)
{
	prune_carry(e);
	e->index++;
}
