// SPDX-License-Identifier: GPL-2.0
/*
 * Progress points (uprobes), through /proc/causalprof/control and
 * /proc/causalprof/progress, on build/tests/targets/progress, whose
 * functions tp(), lat_begin() and lat_end() are probed at the file offsets
 * this test computes from the target's /proc/PID/maps:
 *
 * - throughput: the counter equals the number of calls the target's
 *   threads made while the point existed, exactly; calls before it, and
 *   processes that are not targets running the same binary, are not
 *   counted (neither one started before the point nor one started after
 *   ever has the breakpoint);
 * - latency: for threads whose begin/end intervals overlap, the kernel's
 *   in-flight area lies between the sums of the intervals the target
 *   measured inside and around the calls (CLOCK_MONOTONIC, the kernel's
 *   clock), and within 1 % of the outer sum; begins and ends are exact;
 *   an end with nothing in flight is counted apart; a snapshot integrates
 *   up to the instant it is taken;
 * - lifecycle: the breakpoint (0xcc) is in the target's text while a point
 *   exists and the file's own byte is back after progress del, session
 *   stop, and rmmod (which succeeds with points registered); a target that
 *   exits leaves the points to the session;
 * - bad input: each error its errno, the module healthy after.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "helpers.h"

#define PROGRESS_FILE	CP_PROC_DIR "/progress"
#define INT3		0xcc
#define CALLS		12345
#define MAX_POINTS	16	/* CP_MAX_PROGRESS */

FIXTURE(progress) {
	uint64_t taint;
	char path[PATH_MAX];
	struct cp_prog a, b;
};

FIXTURE_SETUP(progress)
{
	cp_prog_init(&self->a);
	cp_prog_init(&self->b);
	ASSERT_EQ(0, cp_kernel_taint(&self->taint));
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, cp_session_reset());
	ASSERT_EQ(0, cp_target_path("progress", self->path, sizeof(self->path)));
}

FIXTURE_TEARDOWN(progress)
{
	uint64_t taint = 0;

	cp_prog_kill(&self->a);
	cp_prog_kill(&self->b);
	cp_module_ensure_loaded();
	EXPECT_EQ(0, cp_session_reset());
	EXPECT_EQ(0, cp_kernel_taint(&taint));
	taint &= ~self->taint;
	EXPECT_EQ(0U, taint & (CP_TAINT_WARN | CP_TAINT_DIE))
		TH_LOG("the kernel warned or oopsed: tainted %#llx", (unsigned long long)taint);
}

/* "progress add" of a throughput point at off in file. */
static int add_tp(int id, const char *file, uint64_t off)
{
	char cmd[PATH_MAX + 128];

	snprintf(cmd, sizeof(cmd), "progress add id=%d kind=throughput path=%s offset=0x%" PRIx64,
		 id, file, off);
	return cp_control(cmd);
}

static int add_lat(int id, const char *file, uint64_t begin, uint64_t end)
{
	char cmd[PATH_MAX + 128];

	snprintf(cmd, sizeof(cmd),
		 "progress add id=%d kind=latency path=%s offset=0x%" PRIx64 " end=0x%" PRIx64,
		 id, file, begin, end);
	return cp_control(cmd);
}

static int del(int id)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "progress del id=%d", id);
	return cp_control(cmd);
}

static int session_start(struct cp_prog *p)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "start pid=%d", p->pid);
	return cp_control(cmd);
}

/* /proc/causalprof/progress; returns its number of lines. */
static int progress_read(char *buf, size_t size)
{
	int fd, lines = 0;
	ssize_t n;
	size_t len = 0;
	char *p;

	fd = open(PROGRESS_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	for (p = buf; (p = strchr(p, '\n')); p++)
		lines++;
	return lines;
}

/* KEY=VALUE from the line of point id. */
static int pp_get(int id, const char *key, uint64_t *val)
{
	char buf[8192], pat[64], *line, *end, *p;
	int ret = progress_read(buf, sizeof(buf));

	if (ret < 0)
		return ret;
	snprintf(pat, sizeof(pat), "id=%d ", id);
	for (line = buf; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (strncmp(line, pat, strlen(pat)))
			continue;
		snprintf(pat, sizeof(pat), " %s=", key);
		p = strstr(line, pat);
		if (!p)
			return -ENOENT;
		return cp_parse_u64(strtok(p + strlen(pat), " "), val);
	}
	return -ENOENT;
}

/* Counters fit in 63 bits: signed, to compare with the harness' int literals. */
static int64_t pp(struct __test_metadata *_metadata, int id, const char *key)
{
	uint64_t val = 0;

	EXPECT_EQ(0, pp_get(id, key, &val)) TH_LOG("point %d: no %s", id, key);
	return val;
}

static int progress_lines(void)
{
	char buf[8192];

	return progress_read(buf, sizeof(buf));
}

static int64_t dbg(struct __test_metadata *_metadata, const char *name)
{
	char path[64];
	uint64_t val = 0;

	snprintf(path, sizeof(path), "progress/%s", name);
	EXPECT_EQ(0, cp_debugfs_u64(path, &val));
	return val;
}

TEST_F(progress, throughput_exact)
{
	int64_t ignored, removed, hits;
	int orig;

	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	/* Another process of the same binary, not a target. */
	ASSERT_EQ(0, cp_prog_spawn(&self->b));
	ASSERT_EQ(self->a.off_tp, self->b.off_tp);
	orig = cp_byte_at(self->path, self->a.off_tp);
	ASSERT_GE(orig, 0);
	ASSERT_NE(INT3, orig);
	/* The offset is right: the process executes the file's byte there. */
	ASSERT_EQ(orig, cp_mem_byte(self->a.pid, self->a.tp));

	/* Neither before the session nor before the point. */
	ASSERT_EQ(0, cp_prog_call(&self->a, 1000, 1));
	ASSERT_EQ(0, session_start(&self->a));
	ASSERT_EQ(0, cp_prog_call(&self->a, 500, 2));
	ASSERT_EQ(0, progress_lines());
	hits = dbg(_metadata, "hits");
	ASSERT_EQ(0, add_tp(1, self->path, self->a.off_tp));
	ASSERT_EQ(INT3, cp_mem_byte(self->a.pid, self->a.tp));
	ASSERT_EQ(1, progress_lines());
	ASSERT_EQ(0, pp(_metadata, 1, "count"));

	ASSERT_EQ(0, cp_prog_call(&self->a, CALLS, 3));
	ASSERT_EQ(CALLS, pp(_metadata, 1, "count"));

	/* The process that is not a target never had the breakpoint, nor trapped. */
	ignored = dbg(_metadata, "ignored");
	removed = dbg(_metadata, "removed");
	ASSERT_EQ(orig, cp_mem_byte(self->b.pid, self->b.tp));
	ASSERT_EQ(0, cp_prog_call(&self->b, 1000, 1));
	ASSERT_EQ(CALLS, pp(_metadata, 1, "count"));
	ASSERT_EQ(ignored, dbg(_metadata, "ignored"));
	ASSERT_EQ(removed, dbg(_metadata, "removed"));
	ASSERT_EQ(orig, cp_mem_byte(self->b.pid, self->b.tp));
	ASSERT_EQ(INT3, cp_mem_byte(self->a.pid, self->a.tp));

	/* One started after the point never has the breakpoint. */
	cp_prog_kill(&self->b);
	ASSERT_EQ(0, cp_prog_spawn(&self->b));
	ignored = dbg(_metadata, "ignored");
	ASSERT_EQ(orig, cp_mem_byte(self->b.pid, self->b.tp));
	ASSERT_EQ(0, cp_prog_call(&self->b, 1000, 1));
	ASSERT_EQ(ignored, dbg(_metadata, "ignored"));

	ASSERT_EQ(0, cp_prog_call(&self->a, 100, 1));
	ASSERT_EQ(CALLS + 100, pp(_metadata, 1, "count"));
	ASSERT_EQ(CALLS + 100, dbg(_metadata, "hits") - hits);
}

TEST_F(progress, latency_area)
{
	int64_t inner, outer, area, a1, a2, ta, tb, tc, td;
	char reply[128];
	long pairs;

	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	ASSERT_EQ(0, session_start(&self->a));
	ASSERT_EQ(0, add_lat(2, self->path, self->a.off_begin, self->a.off_end));
	/* A throughput point on the same instruction as the latency's begin. */
	ASSERT_EQ(0, add_tp(3, self->path, self->a.off_begin));
	ASSERT_EQ(INT3, cp_mem_byte(self->a.pid, self->a.begin));
	ASSERT_EQ(INT3, cp_mem_byte(self->a.pid, self->a.end));

	/* 4 threads, 5 overlapping intervals each, of 40 to 52 ms. */
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "lat 4 5 40", reply, sizeof(reply)));
	ASSERT_EQ(3, sscanf(reply, "lat %ld %" SCNd64 " %" SCNd64, &pairs, &inner, &outer));
	ASSERT_EQ(20, pairs);
	area = pp(_metadata, 2, "area_ns");
	TH_LOG("area %" PRId64 " ns, measured inside %" PRId64 " ns (%+.3f%%), around %" PRId64
	       " ns (%+.3f%%)", area, inner, 100.0 * ((double)area - inner) / inner, outer,
	       100.0 * ((double)area - outer) / outer);
	ASSERT_EQ(20, pp(_metadata, 2, "begins"));
	ASSERT_EQ(20, pp(_metadata, 2, "ends"));
	ASSERT_EQ(0, pp(_metadata, 2, "inflight"));
	ASSERT_EQ(0, pp(_metadata, 2, "stray_ends"));
	ASSERT_EQ(20, pp(_metadata, 3, "count"));
	/* Each begin and end happened between the target's clock readings. */
	ASSERT_LE(inner, area);
	ASSERT_LE(area, outer);
	if (outer - inner > outer / 100)
		TH_LOG("the VM delayed the calls by %.2f%%: 1 %% not judged",
		       100.0 * (outer - inner) / outer);
	else
		ASSERT_LE(outer - area, outer / 100);

	/* An end with nothing in flight: counted apart, the area unchanged. */
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "end", NULL, 0));
	ASSERT_EQ(1, pp(_metadata, 2, "stray_ends"));
	ASSERT_EQ(20, pp(_metadata, 2, "ends"));
	ASSERT_EQ(0, pp(_metadata, 2, "inflight"));
	ASSERT_EQ(area, pp(_metadata, 2, "area_ns"));

	/* One in flight: each snapshot integrates up to its own instant. */
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "begin", NULL, 0));
	ta = cp_now_ns();
	a1 = pp(_metadata, 2, "area_ns");
	tb = cp_now_ns();
	usleep(200000);
	tc = cp_now_ns();
	a2 = pp(_metadata, 2, "area_ns");
	td = cp_now_ns();
	ASSERT_EQ(1, pp(_metadata, 2, "inflight"));
	ASSERT_LE(tc - tb, a2 - a1);
	ASSERT_LE(a2 - a1, td - ta);
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "end", NULL, 0));
	ASSERT_EQ(21, pp(_metadata, 2, "begins"));
	ASSERT_EQ(21, pp(_metadata, 2, "ends"));
	ASSERT_EQ(0, pp(_metadata, 2, "inflight"));
}

/* The breakpoints of both kinds of points, in p: present or not. */
static void expect_probes(struct __test_metadata *_metadata, struct cp_prog *p, const char *file,
			  bool present)
{
	const struct {
		uint64_t addr, off;
	} at[] = {
		{ p->tp, p->off_tp }, { p->begin, p->off_begin }, { p->end, p->off_end },
	};
	unsigned int i;

	for (i = 0; i < 3; i++) {
		int orig = cp_byte_at(file, at[i].off);

		ASSERT_GE(orig, 0);
		ASSERT_NE(INT3, orig);
		ASSERT_EQ(present ? INT3 : orig, cp_mem_byte(p->pid, at[i].addr))
			TH_LOG("probe %u of pid %d", i, p->pid);
	}
}

static void add_both(struct __test_metadata *_metadata, FIXTURE_DATA(progress) *self)
{
	ASSERT_EQ(0, add_tp(1, self->path, self->a.off_tp));
	ASSERT_EQ(0, add_lat(2, self->path, self->a.off_begin, self->a.off_end));
	ASSERT_EQ(2, progress_lines());
}

TEST_F(progress, lifecycle_del)
{
	int64_t added = dbg(_metadata, "added"), deleted = dbg(_metadata, "deleted");

	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	ASSERT_EQ(0, session_start(&self->a));
	expect_probes(_metadata, &self->a, self->path, false);
	add_both(_metadata, self);
	expect_probes(_metadata, &self->a, self->path, true);
	ASSERT_EQ(0, cp_prog_call(&self->a, 10, 1));
	ASSERT_EQ(0, del(1));
	ASSERT_EQ(0, del(2));
	ASSERT_EQ(-ENOENT, del(1));
	expect_probes(_metadata, &self->a, self->path, false);
	ASSERT_EQ(0, progress_lines());
	ASSERT_EQ(0, cp_prog_call(&self->a, 10, 1));
	/* A point can come back. */
	add_both(_metadata, self);
	expect_probes(_metadata, &self->a, self->path, true);
	ASSERT_EQ(0, cp_prog_call(&self->a, 7, 1));
	ASSERT_EQ(7, pp(_metadata, 1, "count"));
	ASSERT_EQ(0, cp_control("stop"));
	ASSERT_EQ(4, dbg(_metadata, "added") - added);
	ASSERT_EQ(4, dbg(_metadata, "deleted") - deleted);
}

TEST_F(progress, lifecycle_session_stop)
{
	char reply[64];

	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	ASSERT_EQ(0, session_start(&self->a));
	add_both(_metadata, self);
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "begin", reply, sizeof(reply)));
	expect_probes(_metadata, &self->a, self->path, true);
	ASSERT_EQ(0, cp_control("stop"));
	expect_probes(_metadata, &self->a, self->path, false);
	ASSERT_EQ(0, progress_lines());
	/* The target runs on through the places the probes were. */
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "end", reply, sizeof(reply)));
	ASSERT_EQ(0, cp_prog_call(&self->a, 10, 1));
	/* The next session starts without points. */
	ASSERT_EQ(0, session_start(&self->a));
	ASSERT_EQ(0, progress_lines());
	expect_probes(_metadata, &self->a, self->path, false);
}

TEST_F(progress, lifecycle_target_exits)
{
	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	/* Not a target, mapping the file before the points exist. */
	ASSERT_EQ(0, cp_prog_spawn(&self->b));
	ASSERT_EQ(0, session_start(&self->a));
	add_both(_metadata, self);
	ASSERT_EQ(0, cp_prog_call(&self->a, 10, 1));
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "begin", NULL, 0));
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "exit", NULL, 0));
	ASSERT_EQ(0, cp_target_wait(&self->a.t, 10000));
	ASSERT_EQ(0, self->a.t.status);
	/* The points belong to the session, which outlives its target. */
	ASSERT_EQ(2, progress_lines());
	ASSERT_EQ(10, pp(_metadata, 1, "count"));
	ASSERT_EQ(1, pp(_metadata, 2, "inflight"));
	/* Never in the other process that maps the file. */
	expect_probes(_metadata, &self->b, self->path, false);
	ASSERT_EQ(0, cp_control("stop"));
	expect_probes(_metadata, &self->b, self->path, false);
	ASSERT_EQ(0, progress_lines());
	ASSERT_EQ(0, cp_prog_call(&self->b, 10, 1));
}

TEST_F(progress, rmmod_with_points)
{
	char reply[128];
	int ret;

	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	ASSERT_EQ(0, session_start(&self->a));
	add_both(_metadata, self);
	ASSERT_EQ(0, cp_prog_call(&self->a, 10, 1));
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "begin", NULL, 0));
	expect_probes(_metadata, &self->a, self->path, true);
	/* Points hold no reference on the module: it goes, and they with it. */
	ret = cp_module_unload();
	ASSERT_EQ(0, ret) TH_LOG("rmmod: %s", strerror(-ret));
	ASSERT_FALSE(cp_module_loaded());
	expect_probes(_metadata, &self->a, self->path, false);
	/* No breakpoint left behind: no SIGTRAP. */
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "end", NULL, 0));
	ASSERT_EQ(0, cp_prog_call(&self->a, 10, 1));
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "lat 1 1 1", reply, sizeof(reply)));
	ASSERT_EQ(0, strncmp(reply, "lat 1 ", 6));
	ASSERT_EQ(0, cp_module_ensure_loaded());
	ASSERT_EQ(0, progress_lines());
	ASSERT_EQ(0, session_start(&self->a));
	ASSERT_EQ(0, progress_lines());
	expect_probes(_metadata, &self->a, self->path, false);
}

TEST_F(progress, bad_input)
{
	char cmd[PATH_MAX + 128], dir[PATH_MAX];
	uint64_t off, size;
	struct stat st;
	int i;

	ASSERT_EQ(0, cp_prog_spawn(&self->a));
	off = self->a.off_tp;
	ASSERT_EQ(0, stat(self->path, &st));
	size = st.st_size;

	/* No session. */
	ASSERT_EQ(-ENOENT, add_tp(1, self->path, off));
	ASSERT_EQ(-ENOENT, del(1));
	ASSERT_EQ(0, session_start(&self->a));

	/* The text. */
	ASSERT_EQ(-EINVAL, cp_control("progress"));
	ASSERT_EQ(-EINVAL, cp_control("progress list"));
	ASSERT_EQ(-EINVAL, cp_control("progress del"));
	ASSERT_EQ(-EINVAL, cp_control("progress del id=x"));
	ASSERT_EQ(-EINVAL, cp_control("progress del id=1 kind=latency"));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=bogus path=%s offset=0x%" PRIx64,
		 self->path, off);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "progress add kind=throughput path=%s offset=0x%" PRIx64,
		 self->path, off);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput offset=0x%" PRIx64, off);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s", self->path);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s offset=0x%" PRIx64
		 " offset=0x%" PRIx64, self->path, off, off);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=latency path=%s offset=0x%" PRIx64,
		 self->path, self->a.off_begin);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s offset=0x%" PRIx64
		 " end=0x%" PRIx64, self->path, off, self->a.off_end);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	/* A visit's cost: at most CAUSALPROF_MAX_VISIT_NS, an end's for latency points only. */
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s offset=0x%" PRIx64
		 " visit_ns=%u", self->path, off, CAUSALPROF_MAX_VISIT_NS + 1);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s offset=0x%" PRIx64
		 " visit_ns=x", self->path, off);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=throughput path=%s offset=0x%" PRIx64
		 " end_visit_ns=5", self->path, off);
	ASSERT_EQ(-EINVAL, cp_control(cmd));
	ASSERT_EQ(-EINVAL, cp_control("progress del id=1 visit_ns=5"));
	snprintf(cmd, sizeof(cmd), "progress add id=1 kind=latency path=%s offset=0x%" PRIx64
		 " end=0x%" PRIx64 " visit_ns=%u end_visit_ns=%u", self->path,
		 self->a.off_begin, self->a.off_end, CAUSALPROF_MAX_VISIT_NS, CAUSALPROF_MAX_VISIT_NS);
	ASSERT_EQ(0, cp_control(cmd));
	ASSERT_EQ(0, del(1));

	/* The file. */
	ASSERT_EQ(-EINVAL, add_tp(1, "build/tests/targets/progress", off));
	ASSERT_EQ(-ENOENT, add_tp(1, "/nonexistent/progress", off));
	strcpy(dir, self->path);
	*strrchr(dir, '/') = '\0';
	ASSERT_EQ(-EINVAL, add_tp(1, dir, 0));
	ASSERT_EQ(-EINVAL, add_tp(1, self->path, size));
	ASSERT_EQ(-EINVAL, add_tp(1, self->path, size + (1ULL << 32)));
	ASSERT_EQ(-EINVAL, add_lat(1, self->path, self->a.off_begin, size));
	ASSERT_EQ(-EINVAL, add_lat(1, self->path, self->a.off_begin, 0));
	ASSERT_EQ(-EINVAL, add_lat(1, self->path, self->a.off_begin, self->a.off_begin));
	ASSERT_EQ(0, progress_lines());
	expect_probes(_metadata, &self->a, self->path, false);

	/* The ids and the limit. */
	ASSERT_EQ(0, add_tp(1, self->path, off));
	ASSERT_EQ(-EEXIST, add_tp(1, self->path, off));
	ASSERT_EQ(-EEXIST, add_lat(1, self->path, self->a.off_begin, self->a.off_end));
	ASSERT_EQ(-ENOENT, del(2));
	for (i = 2; i <= MAX_POINTS; i++)
		ASSERT_EQ(0, add_lat(i, self->path, self->a.off_begin, self->a.off_end));
	ASSERT_EQ(-ENOSPC, add_tp(MAX_POINTS + 1, self->path, off));
	ASSERT_EQ(MAX_POINTS, progress_lines());

	/* All of them count. */
	ASSERT_EQ(0, cp_prog_cmd(&self->a, "lat 2 2 1", NULL, 0));
	for (i = 2; i <= MAX_POINTS; i++)
		ASSERT_EQ(4, pp(_metadata, i, "ends"));
	ASSERT_EQ(0, del(MAX_POINTS));
	ASSERT_EQ(0, add_tp(MAX_POINTS + 1, self->path, off));
	ASSERT_EQ(0, cp_prog_call(&self->a, 5, 1));
	ASSERT_EQ(5, pp(_metadata, 1, "count"));
	ASSERT_EQ(5, pp(_metadata, MAX_POINTS + 1, "count"));
	ASSERT_EQ(0, cp_control("stop"));
	ASSERT_EQ(0, progress_lines());
	expect_probes(_metadata, &self->a, self->path, false);
}

TEST_HARNESS_MAIN
