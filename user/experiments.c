// SPDX-License-Identifier: GPL-2.0
/*
 * cprof record --causal's experiment loop (experiments.h): one experiment at
 * a time, each a line, a speedup and a length, then a cool-off.
 *
 * Which line: a sample's line is that of its innermost frame in scope (its
 * user IP, else the first return address - 1 that is), as Coz does; the
 * next experiment draws a line from the samples in scope since the last
 * draw, in proportion to their number. Which speedup: 0 with probability
 * 1/4 (the baseline every line's curve is measured against), else one of
 * 0, 5, ..., 100 %. How long: min_ns at first, doubled (up to max_ns) after
 * an experiment in which some progress point had fewer than target_visits
 * visits (or made long enough for them at the rate it saw: longer()), halved (down to min_ns) after one in which every point had four
 * times that. The cool-off after an experiment lasts at least COOLOFF_MIN_NS
 * and at least COOLOFF_FACTOR times the delay it inserted, so that queues
 * that built up while some threads were delayed (a pipe filled by a
 * producer whose consumer was slowed) drain before the next one measures.
 * Four times: a consumer with the slack of tests/targets/gt_pipe.c (1.2
 * units of work an item for the producer's 2) that shares one CPU with
 * its producer works off a backlog at a sixth of an item per unit, three
 * times as long as the delay that built it; at twice, the experiments
 * that followed an experiment on the producer, 0 % ones included, came
 * out 1 to 2 % faster (bench/RESULTS.md, 2026-11-26).
 *
 * A line becomes the address ranges of its code in every target process
 * that maps its file (each process its own addresses: ASLR), up to the
 * module's 16 ranges, largest first.
 *
 * Counted points (coz.h's counters, which cprof reads: the module times
 * only its uprobes' hits) are measured over the experiment's window, and a
 * window of n visits that falls anywhere in the program's rhythm counts n
 * or n + 1 of them (+-20 % at the 5 visits aimed at). So with counters,
 * an experiment starts, and stops once its length is reached, only just
 * after the counter with the fewest visits changes (read every
 * ALIGN_POLL_NS; waiting at most two of its periods at the last rate
 * seen, and no longer than the longest experiment): its window holds
 * whole periods between two visits, as a span does.
 *
 * --end-to-end: one experiment per run of the program, from as soon as the
 * run's process maps the line drawn (from the samples of the runs before,
 * or its own first ones) to the run's end, the progress point; no cool-off
 * (the next run is a new process).
 *
 * Ordering: the EXPERIMENT record of a stop may arrive during the stop
 * request itself; the counters' deltas are taken before the request, and
 * the state says STOPPING before it, so the record always finds them.
 */

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "array.h"
#include "cprof.h"
#include "experiments.h"
#include "htab.h"
#include "lines.h"

#define COOLOFF_MIN_NS		10000000ULL	/* 10 ms */
#define COOLOFF_FACTOR		4
#define RECORD_WAIT_NS		2000000000ULL	/* for an EXPERIMENT after its stop */
#define IDLE_POLL_NS		10000000ULL	/* waiting for samples in scope */
#define INTEGRATE_NS		2000000ULL	/* counters' in-flight integration */
#define ALIGN_POLL_NS		1000000ULL	/* a counter read, waiting for a visit */
#define ALIGN_MIN_NS		10000000ULL	/* the least wait for one */
#define MAX_LINE_RANGES		64
#define ZERO_SPEEDUP_ONE_IN	4

enum xp_state {
	XP_IDLE,		/* cooling off, or waiting for a line */
	XP_RUNNING,
	XP_STOPPING,		/* stop sent, waiting for the EXPERIMENT record */
	XP_DONE,
};

struct xfile {
	char *path;
	struct cp_lines *lines;
	int loaded;		/* 0: not tried; 1: lines; -1: none */
	bool exe;		/* some process runs it */
	int scope;		/* binary scope: 0 unknown, 1 in, -1 out */
};

struct xmap {
	uint64_t start, end, pgoff;
	uint32_t file;
};

struct xproc {
	uint32_t pid;
	bool exec_pending;	/* its next file mapping is its executable */
	bool gone;
	struct xmap *maps;
	size_t nr, cap;
};

struct xline {
	uint32_t file;
	int id;
	int scope;		/* source scope: 0 unknown, 1 in, -1 out */
	uint64_t recent;	/* samples since the last draw */
	uint64_t samples;
	uint32_t exps;		/* experiments done on it above 0 % */
};

struct cp_xp {
	struct cp_xp_opts o;
	struct cp_nl *nl;
	struct cp_rec_writer *w;
	struct cp_points *points;

	struct xfile *files;
	size_t nr_files, cap_files;
	struct xproc *procs;
	size_t nr_procs, cap_procs;
	struct xline *lines;
	size_t nr_lines, cap_lines;
	struct cp_htab line_index;
	uint32_t *recent;	/* lines with recent samples */
	size_t nr_recent, cap_recent;
	uint64_t total_recent;

	int fixed;		/* the --fixed-line's line, or -1 */
	uint64_t rng;

	enum xp_state state;
	uint32_t line;		/* of the current or last experiment */
	uint32_t speedup;	/* percent */
	uint16_t flags;		/* CP_CAUSAL_F_* */
	uint64_t due;		/* RUNNING: its end; STOPPING: give up; IDLE: cool-off end */
	uint64_t len_ns;
	bool finishing;
	bool run_open;		/* --end-to-end: a run without its experiment yet */
	bool aligning;		/* waiting for a visit to start or stop at */
	int64_t align_ref;	/* the pacing counter when the wait began */
	uint64_t align_until;	/* the wait's end */
	struct causalprof_exp_point deltas[64];
	unsigned int nr_deltas;

	double rate;		/* visits per effective second, last experiment */
	unsigned int done, lost, start_errors, timeouts;
	unsigned int baseline;	/* 0 % experiments done */
	uint64_t samples, in_scope;
	char err[512];
};

static uint64_t rnd(struct cp_xp *x)
{
	/* xorshift64* */
	x->rng ^= x->rng >> 12;
	x->rng ^= x->rng << 25;
	x->rng ^= x->rng >> 27;
	return x->rng * 0x2545f4914f6cdd1dULL;
}

static bool glob_any(const char **globs, size_t nr, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < nr; i++)
		if (!fnmatch(globs[i], path, 0) || !fnmatch(globs[i], base, 0))
			return true;
	return false;
}

static int64_t file_get(struct cp_xp *x, const char *path)
{
	size_t i;

	for (i = 0; i < x->nr_files; i++)
		if (!strcmp(x->files[i].path, path))
			return i;
	if (CP_RESERVE(x->files, x->cap_files, x->nr_files, 1))
		return -ENOMEM;
	x->files[x->nr_files] = (struct xfile){ .path = strdup(path) };
	if (!x->files[x->nr_files].path)
		return -ENOMEM;
	return x->nr_files++;
}

static bool file_in_scope(struct cp_xp *x, struct xfile *f)
{
	if (!f->scope) {
		if (x->o.nr_binary_scope)
			f->scope = glob_any(x->o.binary_scope, x->o.nr_binary_scope, f->path) ? 1 : -1;
		else
			f->scope = f->exe ? 1 : -1;
	}
	return f->scope > 0;
}

static struct cp_lines *file_lines(struct xfile *f)
{
	char err[512];

	if (!f->loaded)
		f->loaded = cp_lines_open(f->path, &f->lines, err, sizeof(err)) ? -1 : 1;
	return f->loaded > 0 ? f->lines : NULL;
}

static void file_mark_exe(struct cp_xp *x, uint32_t file)
{
	x->files[file].exe = true;
	x->files[file].scope = 0;	/* decided again */
}

static struct xproc *proc_find(struct cp_xp *x, uint32_t pid)
{
	size_t i;

	for (i = 0; i < x->nr_procs; i++)
		if (x->procs[i].pid == pid)
			return &x->procs[i];
	return NULL;
}

static struct xproc *proc_get(struct cp_xp *x, uint32_t pid)
{
	struct xproc *p = proc_find(x, pid);

	if (p)
		return p;
	if (CP_RESERVE(x->procs, x->cap_procs, x->nr_procs, 1))
		return NULL;
	p = &x->procs[x->nr_procs++];
	*p = (struct xproc){ .pid = pid };
	return p;
}

static const struct xmap *map_find(const struct xproc *p, uint64_t addr)
{
	size_t i;

	/* The newest mapping first: a new one replaces what it overlaps. */
	for (i = p->nr; i-- > 0;)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

static void on_mmap(struct cp_xp *x, const struct causalprof_mmap *m)
{
	struct xproc *p = proc_get(x, m->pid);
	int64_t file;

	/* Files only: not "[vdso]", nor a JIT's "//anon". */
	if (!p || m->path[0] != '/' || m->path[1] == '/' || !m->len)
		return;
	file = file_get(x, m->path);
	if (file < 0 || CP_RESERVE(p->maps, p->cap, p->nr, 1))
		return;
	p->maps[p->nr++] = (struct xmap){
		.start = m->start, .end = m->start + m->len, .pgoff = m->pgoff, .file = file,
	};
	if (p->exec_pending) {
		p->exec_pending = false;
		file_mark_exe(x, file);
	}
}

static void on_fork(struct cp_xp *x, const struct causalprof_task *t)
{
	struct xproc *parent, *child;

	if (t->pid == t->ppid)
		return;		/* a thread */
	child = proc_get(x, t->pid);
	parent = proc_find(x, t->ppid);	/* after proc_get: it may move */
	if (!child || !parent || child->nr || !parent->nr)
		return;
	if (CP_RESERVE(child->maps, child->cap, 0, parent->nr))
		return;
	memcpy(child->maps, parent->maps, parent->nr * sizeof(*child->maps));
	child->nr = parent->nr;
}

static void on_comm(struct cp_xp *x, const struct causalprof_comm *c, uint16_t flags)
{
	struct xproc *p;

	if (!(flags & CAUSALPROF_COMM_F_EXEC))
		return;
	p = proc_get(x, c->pid);
	if (!p)
		return;
	p->nr = 0;
	p->exec_pending = true;
	p->gone = false;
}

static void on_exit_rec(struct cp_xp *x, const struct causalprof_task *t)
{
	struct xproc *p;

	if (t->pid != t->tid)
		return;
	p = proc_find(x, t->pid);
	if (p)
		p->gone = true;
}

static bool line_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_xp *x = ctx;
	const struct xline *k = key;

	return x->lines[idx].file == k->file && x->lines[idx].id == k->id;
}

static uint64_t line_hash(uint32_t file, int id)
{
	return cp_hash_u64(cp_hash_u64(CP_HASH_SEED, file), (uint32_t)id);
}

static int64_t line_get(struct cp_xp *x, uint32_t file, int id)
{
	struct xline key = { .file = file, .id = id };
	uint64_t hash = line_hash(file, id);
	int64_t i;

	i = cp_htab_find(&x->line_index, hash, line_eq, x, &key);
	if (i >= 0)
		return i;
	if (CP_RESERVE(x->lines, x->cap_lines, x->nr_lines, 1) ||
	    cp_htab_add(&x->line_index, hash, x->nr_lines))
		return -ENOMEM;
	x->lines[x->nr_lines] = key;
	return x->nr_lines++;
}

static bool line_in_scope(struct cp_xp *x, struct xline *l)
{
	const char *src;

	if (!l->scope) {
		src = cp_lines_file(x->files[l->file].lines, l->id);
		l->scope = !x->o.nr_source_scope ||
			   (src && glob_any(x->o.source_scope, x->o.nr_source_scope, src)) ? 1 : -1;
	}
	return l->scope > 0;
}

/* The line of the innermost frame of @s in scope, or -1. */
static int64_t sample_line(struct cp_xp *x, const struct causalprof_sample *s)
{
	const struct xproc *p = proc_find(x, s->pid);
	const struct xmap *m;
	struct cp_lines *lines;
	unsigned int i;
	uint64_t addr;
	int64_t line;
	int id;

	if (!p)
		return -1;
	for (i = 0; i < s->nr_user; i++) {
		addr = s->ips[s->nr_kernel + i];
		if (i || !(s->sflags & CAUSALPROF_SAMPLE_F_USER))
			addr--;		/* a return address: the call is before it */
		m = map_find(p, addr);
		if (!m || !file_in_scope(x, &x->files[m->file]))
			continue;
		lines = file_lines(&x->files[m->file]);
		if (!lines)
			continue;
		id = cp_lines_at(lines, addr - m->start + m->pgoff);
		if (id < 0)
			continue;
		line = line_get(x, m->file, id);
		if (line >= 0 && line_in_scope(x, &x->lines[line]))
			return line;
	}
	return -1;
}

static void on_sample(struct cp_xp *x, const struct causalprof_sample *s)
{
	struct xline *l;
	int64_t line;

	x->samples++;
	line = sample_line(x, s);
	if (line < 0)
		return;
	x->in_scope++;
	l = &x->lines[line];
	l->samples++;
	if (!l->recent++) {
		if (CP_RESERVE(x->recent, x->cap_recent, x->nr_recent, 1)) {
			l->recent = 0;
			return;
		}
		x->recent[x->nr_recent++] = line;
	}
	x->total_recent++;
}

static void line_name(const struct cp_xp *x, uint32_t line, char *buf, size_t len)
{
	const struct xline *l = &x->lines[line];
	const struct cp_lines *lines = x->files[l->file].lines;
	const char *src = cp_lines_file(lines, l->id);

	snprintf(buf, len, "%s:%d", src ? src : "??", cp_lines_number(lines, l->id));
}

/* The experiment's CAUSAL record, after its EXPERIMENT. */
static void write_causal(struct cp_xp *x, const struct causalprof_experiment *e)
{
	const struct xline *l = &x->lines[x->line];
	const char *func = cp_lines_function(x->files[l->file].lines, l->id);
	struct cp_rec_causal c = {
		.exp_id = e->id,
		.nr_points = x->nr_deltas,
		.flags = x->flags,
	};
	struct iovec iov[4];
	char name[PATH_MAX + 16];

	line_name(x, x->line, name, sizeof(name));
	iov[0] = (struct iovec){ .iov_base = &c.exp_id, .iov_len = sizeof(c) - sizeof(c.hdr) };
	iov[1] = (struct iovec){ .iov_base = x->deltas,
				 .iov_len = x->nr_deltas * sizeof(x->deltas[0]) };
	iov[2] = (struct iovec){ .iov_base = name, .iov_len = strlen(name) + 1 };
	iov[3] = (struct iovec){ .iov_base = (void *)(func ? func : ""),
				 .iov_len = strlen(func ? func : "") + 1 };
	cp_rec_putv(x->w, CP_REC_CAUSAL, 0, iov, 4);
}

/* The fewest visits any progress point had in @e (and the counters). */
static uint64_t fewest_visits(const struct cp_xp *x, const struct causalprof_experiment *e)
{
	const struct causalprof_exp_point *pt = cp_exp_points(e);
	uint64_t fewest = UINT64_MAX, v;
	unsigned int i;

	for (i = 0; i < e->nr_points; i++) {
		v = pt[i].kind == CAUSALPROF_PP_LATENCY ? pt[i].ends : pt[i].count;
		fewest = v < fewest ? v : fewest;
	}
	for (i = 0; i < x->nr_deltas; i++) {
		v = x->deltas[i].kind == CAUSALPROF_PP_LATENCY ? x->deltas[i].ends
							       : x->deltas[i].count;
		fewest = v < fewest ? v : fewest;
	}
	return fewest == UINT64_MAX ? 0 : fewest;
}

/*
 * The next length after an experiment with too few visits: twice as long,
 * or, when it had some, long enough for a quarter more than the target at
 * the rate it saw, if that is longer (up to max_ns). Each short experiment
 * is a window of one or two visits, whose count is off by up to one: a
 * program with slow progress would otherwise spend its first experiments
 * doubling through them.
 */
static uint64_t longer(const struct cp_xp *x, uint64_t visits)
{
	double want = visits && x->rate > 0 ? 1.25e9 * x->o.target_visits / x->rate : 0;
	uint64_t len = x->len_ns * 2;

	if (want > len)
		len = want < x->o.max_ns ? (uint64_t)want : x->o.max_ns;
	return len < x->o.max_ns ? len : x->o.max_ns;
}

static void on_experiment(struct cp_xp *x, const struct causalprof_experiment *e,
			  uint16_t flags)
{
	uint64_t visits, cool, now;

	if (x->state != XP_STOPPING && x->state != XP_RUNNING)
		return;		/* not one of ours, or given up on */
	x->aligning = false;	/* a stop the module made cuts a wait short */
	write_causal(x, e);
	if (flags & CAUSALPROF_EXP_F_SESSION_END) {
		x->state = XP_DONE;
		return;
	}
	if (flags & CAUSALPROF_EXP_F_TIMEOUT) {
		/* The module cut it (max_experiment_s): reports leave it out. */
		x->timeouts++;
		x->run_open = false;
		x->state = x->finishing ? XP_DONE : XP_IDLE;
		x->due = e->time_ns + COOLOFF_MIN_NS;
		return;
	}
	x->done++;
	if (e->speedup)
		x->lines[x->line].exps++;
	else
		x->baseline++;
	visits = fewest_visits(x, e);
	if (e->wall_ns > e->inserted_ns)
		x->rate = visits * 1e9 / (e->wall_ns - e->inserted_ns);
	if (visits < x->o.target_visits)
		x->len_ns = longer(x, visits);
	else if (visits >= 4ULL * x->o.target_visits)
		x->len_ns = x->len_ns / 2 > x->o.min_ns ? x->len_ns / 2 : x->o.min_ns;
	cool = COOLOFF_FACTOR * e->inserted_ns;
	now = e->time_ns;
	x->due = x->o.end_to_end ? 0 : now + (cool > COOLOFF_MIN_NS ? cool : COOLOFF_MIN_NS);
	x->state = x->finishing ? XP_DONE : XP_IDLE;
}

void cp_xp_record(struct cp_xp *x, const struct causalprof_record_hdr *h)
{
	const struct causalprof_experiment *e;
	const struct causalprof_sample *s;
	const struct causalprof_mmap *m;
	const struct causalprof_comm *c;
	const struct causalprof_task *t;

	switch (h->type) {
	case CAUSALPROF_REC_SAMPLE:
		s = cp_rec_sample(h);
		if (s)
			on_sample(x, s);
		break;
	case CAUSALPROF_REC_MMAP:
		m = cp_rec_mmap(h);
		if (m)
			on_mmap(x, m);
		break;
	case CAUSALPROF_REC_COMM:
		c = cp_rec_comm(h);
		if (c)
			on_comm(x, c, h->flags);
		break;
	case CAUSALPROF_REC_FORK:
		t = cp_rec_task(h);
		if (t)
			on_fork(x, t);
		break;
	case CAUSALPROF_REC_EXIT:
		t = cp_rec_task(h);
		if (t)
			on_exit_rec(x, t);
		break;
	case CAUSALPROF_REC_EXPERIMENT:
		e = cp_rec_experiment(h);
		if (e)
			on_experiment(x, e, h->flags);
		break;
	}
}

/*
 * The line of the next experiment, drawn from the recent samples; -1 if
 * none. The draw starts the next count once the experiment starts
 * (forget_recent()).
 */
static int64_t draw_line(struct cp_xp *x)
{
	uint64_t r, acc = 0;
	size_t i;

	if (x->fixed >= 0)
		return x->fixed;
	if (!x->total_recent)
		return -1;
	r = rnd(x) % x->total_recent;
	for (i = 0; i < x->nr_recent; i++) {
		acc += x->lines[x->recent[i]].recent;
		if (r < acc)
			return x->recent[i];
	}
	return -1;
}

static void forget_recent(struct cp_xp *x)
{
	size_t i;

	for (i = 0; i < x->nr_recent; i++)
		x->lines[x->recent[i]].recent = 0;
	x->nr_recent = 0;
	x->total_recent = 0;
}

static uint32_t draw_speedup(struct cp_xp *x)
{
	if (x->o.fixed_speedup >= 0)
		return x->o.fixed_speedup;
	if (!(rnd(x) % ZERO_SPEEDUP_ONE_IN))
		return 0;
	return (rnd(x) % 21) * 5;
}

static int cmp_size_desc(const void *a, const void *b)
{
	const struct cp_off_range *ra = a, *rb = b;
	uint64_t sa = ra->end - ra->start, sb = rb->end - rb->start;

	return sa < sb ? 1 : sa > sb ? -1 : 0;
}

/* The address ranges of @line in every live process: their number (0: none). */
static unsigned int line_ranges(struct cp_xp *x, uint32_t line,
				struct causalprof_exp_range *out)
{
	const struct xline *l = &x->lines[line];
	struct cp_off_range off[MAX_LINE_RANGES];
	unsigned int n = 0;
	size_t nr_off, i, j, k;

	nr_off = cp_lines_ranges(x->files[l->file].lines, l->id, off, MAX_LINE_RANGES);
	if (nr_off > MAX_LINE_RANGES)
		nr_off = MAX_LINE_RANGES;
	qsort(off, nr_off, sizeof(off[0]), cmp_size_desc);
	for (k = 0; k < nr_off; k++) {
		for (i = 0; i < x->nr_procs; i++) {
			const struct xproc *p = &x->procs[i];

			if (p->gone)
				continue;
			for (j = 0; j < p->nr; j++) {
				const struct xmap *m = &p->maps[j];
				uint64_t lo = off[k].start, hi = off[k].end;
				uint64_t mlo = m->pgoff, mhi = m->pgoff + (m->end - m->start);

				if (m->file != l->file || hi <= mlo || lo >= mhi)
					continue;
				lo = lo > mlo ? lo : mlo;
				hi = hi < mhi ? hi : mhi;
				if (n == CAUSALPROF_MAX_RANGES)
					return n;
				out[n++] = (struct causalprof_exp_range){
					.pid = p->pid,
					.start = m->start + (lo - mlo),
					.end = m->start + (hi - mlo),
				};
			}
		}
	}
	return n;
}

/* A process that the module says is not there: forget it. */
static void reap_gone(struct cp_xp *x)
{
	size_t i;

	for (i = 0; i < x->nr_procs; i++)
		if (kill(x->procs[i].pid, 0) && errno == ESRCH)
			x->procs[i].gone = true;
}

static void start_one(struct cp_xp *x, uint64_t now)
{
	struct causalprof_exp_range ranges[CAUSALPROF_MAX_RANGES];
	unsigned int nr;
	int64_t line;
	int err;

	line = draw_line(x);
	if (line < 0) {
		x->due = now + IDLE_POLL_NS;
		return;
	}
	nr = line_ranges(x, line, ranges);
	if (!nr) {
		/* Not mapped (yet, or any more): drawn again from more samples. */
		if (!x->o.end_to_end)
			forget_recent(x);
		x->due = now + IDLE_POLL_NS;
		return;
	}
	forget_recent(x);
	x->line = line;
	x->speedup = draw_speedup(x);
	x->flags = (x->fixed >= 0 ? CP_CAUSAL_F_FIXED_LINE : 0) |
		   (x->o.fixed_speedup >= 0 ? CP_CAUSAL_F_FIXED_SPEEDUP : 0);
	cp_points_start(x->points, now);
	err = cp_nl_experiment_start(x->nl, x->speedup * 10, ranges, nr);
	if (err == -ESRCH) {
		reap_gone(x);
		x->due = now + IDLE_POLL_NS;
		return;
	}
	if (err) {
		if (!x->start_errors++)
			snprintf(x->err, sizeof(x->err), "cannot start an experiment: %s%s%s",
				 strerror(-err), x->nl->err_msg[0] ? ": " : "", x->nl->err_msg);
		x->due = now + IDLE_POLL_NS * 10;
		return;
	}
	x->state = XP_RUNNING;
	x->due = x->o.end_to_end ? UINT64_MAX : now + x->len_ns;
	x->run_open = false;
}

static void stop_one(struct cp_xp *x, uint64_t now)
{
	int err;

	x->nr_deltas = cp_points_stop(x->points, now, x->w, x->deltas, ARRAY_SIZE(x->deltas));
	x->state = XP_STOPPING;
	x->due = now + RECORD_WAIT_NS;
	err = cp_nl_experiment_stop(x->nl);
	if (err && x->state == XP_STOPPING) {
		/* The session stopped it (its record says so), or it is gone. */
		if (err != -ENOENT && !x->start_errors++)
			snprintf(x->err, sizeof(x->err), "cannot stop an experiment: %s",
				 strerror(-err));
	}
}

/*
 * Whether to wait on for a visit of the pacing counter before starting or
 * stopping an experiment at @now (see the top of the file).
 */
static bool align_wait(struct cp_xp *x, uint64_t now)
{
	uint64_t wait;
	int64_t v;

	if (x->o.end_to_end)
		return false;
	v = cp_points_pace(x->points, now);
	if (v < 0) {
		x->aligning = false;
		return false;
	}
	if (!x->aligning) {
		wait = x->rate > 0 ? (uint64_t)(2e9 / x->rate) : x->o.max_ns;
		wait = wait < x->o.max_ns ? wait : x->o.max_ns;
		x->aligning = true;
		x->align_ref = v;
		x->align_until = now + (wait > ALIGN_MIN_NS ? wait : ALIGN_MIN_NS);
		return true;
	}
	if (v != x->align_ref || now >= x->align_until) {
		x->aligning = false;
		return false;
	}
	return true;
}

uint64_t cp_xp_tick(struct cp_xp *x, uint64_t now)
{
	uint64_t next;

	switch (x->state) {
	case XP_RUNNING:
		if (now >= x->due && !align_wait(x, now))
			stop_one(x, now);
		break;
	case XP_STOPPING:
		if (now >= x->due) {
			x->lost++;	/* its record never came */
			x->state = x->finishing ? XP_DONE : XP_IDLE;
		}
		break;
	case XP_IDLE:
		if (!x->finishing && now >= x->due && (!x->o.end_to_end || x->run_open) &&
		    !align_wait(x, now))
			start_one(x, now);
		break;
	case XP_DONE:
		return UINT64_MAX;
	}
	if (x->state == XP_IDLE && x->finishing)
		x->state = XP_DONE;
	if (x->state == XP_DONE)
		return UINT64_MAX;
	if (x->state == XP_IDLE && x->o.end_to_end && !x->run_open)
		return UINT64_MAX;	/* until the next run */
	next = x->due > now ? x->due - now : 0;
	if (x->aligning)
		next = ALIGN_POLL_NS;
	if (x->state == XP_RUNNING && cp_points_need_integration(x->points)) {
		cp_points_integrate(x->points, now);
		next = next < INTEGRATE_NS ? next : INTEGRATE_NS;
	}
	return next;
}

void cp_xp_run_begin(struct cp_xp *x)
{
	x->run_open = true;
	x->due = 0;
}

bool cp_xp_run_end(struct cp_xp *x, uint64_t now)
{
	x->run_open = false;
	if (x->state != XP_RUNNING)
		return false;
	stop_one(x, now);
	return true;
}

bool cp_xp_ready(const struct cp_xp *x)
{
	return x->state == XP_IDLE || x->state == XP_DONE;
}

/*
 * A running experiment is left to the session's stop, which cuts it: its
 * record says so (SESSION_END) and reports leave it out, as they should an
 * experiment the program's exit or a signal ended.
 */
void cp_xp_finish(struct cp_xp *x)
{
	x->finishing = true;
	x->nr_deltas = 0;
	if (x->state == XP_IDLE)
		x->state = XP_DONE;
}

/*
 * What is not an answer yet: no baseline (fewer than MIN_BASELINE 0 %
 * experiments), or among the TOP_LINES lines with most samples, those
 * with fewer than LINE_ENOUGH experiments (about 3 a speedup: the
 * report's rows need 3, causal.rst). "" when all is there.
 */
#define MIN_BASELINE	5
#define TOP_LINES	3
#define LINE_ENOUGH	60

void cp_xp_thin(const struct cp_xp *x, char *buf, size_t len)
{
	uint32_t top[TOP_LINES];
	size_t i, j, n = 0, used = 0;
	char name[PATH_MAX + 16];
	const char *base;

	buf[0] = '\0';
	if (x->baseline < MIN_BASELINE)
		used += snprintf(buf + used, len - used, "; baseline %u of %u experiments",
				 x->baseline, MIN_BASELINE);
	/* --fixed-line: the one line; else the most sampled, in order */
	if (x->fixed >= 0)
		top[n++] = x->fixed;
	for (i = 0; x->fixed < 0 && i < x->nr_lines; i++) {
		if (!x->lines[i].samples)
			continue;
		if (n == TOP_LINES && x->lines[i].samples <= x->lines[top[n - 1]].samples)
			continue;
		j = n < TOP_LINES ? n++ : n - 1;
		for (; j > 0 && x->lines[top[j - 1]].samples < x->lines[i].samples; j--)
			top[j] = top[j - 1];
		top[j] = i;
	}
	for (i = 0, j = 0; i < n && used < len; i++) {
		if (x->lines[top[i]].exps >= LINE_ENOUGH)
			continue;
		line_name(x, top[i], name, sizeof(name));
		base = strrchr(name, '/');
		used += snprintf(buf + used, len - used, "%s%s %u/%u", j++ ? ", " : "; thin: ",
				 base ? base + 1 : name, x->lines[top[i]].exps, LINE_ENOUGH);
	}
}

void cp_xp_status(const struct cp_xp *x, char *buf, size_t len)
{
	char name[PATH_MAX + 16], thin[3 * PATH_MAX];
	const char *base;

	cp_xp_thin(x, thin, sizeof(thin));
	if (x->state != XP_RUNNING) {
		snprintf(buf, len, "%u experiments, progress %.1f/s%s", x->done, x->rate, thin);
		return;
	}
	line_name(x, x->line, name, sizeof(name));
	base = strrchr(name, '/');
	snprintf(buf, len, "%u experiments, progress %.1f/s, now %s +%" PRIu32 "%%%s", x->done,
		 x->rate, base ? base + 1 : name, x->speedup, thin);
}


unsigned int cp_xp_done(const struct cp_xp *x, char *warn, size_t len)
{
	warn[0] = '\0';
	if (x->err[0])
		snprintf(warn, len, "%s", x->err);
	else if (!x->done && x->samples && !x->in_scope)
		snprintf(warn, len, "none of %" PRIu64 " samples was in a source line in scope "
			 "(is the program built with -g? see --source-scope, --binary-scope)",
			 x->samples);
	else if (x->lost)
		snprintf(warn, len, "%u experiments lost their results", x->lost);
	else if (x->timeouts)
		snprintf(warn, len, "%u experiments ran into the module's max_experiment_s and were cut (left out of reports)",
			 x->timeouts);
	return x->done;
}

int cp_xp_new(struct cp_xp **out, const struct cp_xp_opts *o, const char *exe,
	      struct cp_nl *nl, struct cp_rec_writer *w, struct cp_points *points,
	      char *err, size_t errlen)
{
	struct cp_xp *x = calloc(1, sizeof(*x));
	char file[PATH_MAX], msg[512], *colon, *end;
	struct cp_lines *lines;
	int64_t f, line;
	long lineno;
	int id, ret;

	if (!x)
		return -ENOMEM;
	x->o = *o;
	x->nl = nl;
	x->w = w;
	x->points = points;
	x->fixed = -1;
	x->len_ns = o->min_ns;
	x->rng = o->seed ? o->seed : 0x9e3779b97f4a7c15ULL;
	cp_htab_init(&x->line_index);
	f = file_get(x, exe);
	if (f < 0) {
		ret = -ENOMEM;
		goto err;
	}
	file_mark_exe(x, f);
	if (o->fixed_line) {
		snprintf(file, sizeof(file), "%s", o->fixed_line);
		colon = strrchr(file, ':');
		lineno = colon ? strtol(colon + 1, &end, 10) : 0;
		if (!colon || colon == file || !colon[1] || *end || lineno <= 0) {
			snprintf(err, errlen, "--fixed-line takes FILE:LINE, not '%s'", o->fixed_line);
			ret = -EINVAL;
			goto err;
		}
		*colon = '\0';
		ret = cp_lines_open(exe, &lines, err, errlen);
		if (ret)
			goto err;
		x->files[f].lines = lines;
		x->files[f].loaded = 1;
		id = cp_lines_find(lines, file, lineno, msg, sizeof(msg));
		if (id < 0) {
			snprintf(err, errlen, "--fixed-line %s: %s", o->fixed_line, msg);
			ret = id;
			goto err;
		}
		line = line_get(x, f, id);
		if (line < 0) {
			ret = -ENOMEM;
			goto err;
		}
		x->fixed = line;
	}
	*out = x;
	return 0;
err:
	cp_xp_free(x);
	return ret;
}

void cp_xp_free(struct cp_xp *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nr_files; i++) {
		if (x->files[i].loaded > 0)
			cp_lines_free(x->files[i].lines);
		free(x->files[i].path);
	}
	for (i = 0; i < x->nr_procs; i++)
		free(x->procs[i].maps);
	free(x->files);
	free(x->procs);
	free(x->lines);
	free(x->recent);
	cp_htab_free(&x->line_index);
	free(x);
}
