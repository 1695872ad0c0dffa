// SPDX-License-Identifier: GPL-2.0
/*
 * cprof record --causal's progress points (points.h): specs resolved to
 * uprobes, cprof.h's USDT probes found, coz.h's counters read.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "array.h"
#include "cozcount.h"
#include "points.h"
#include "probes.h"
#include "visitcost.h"

#define SDT_PROVIDER	"cprof"
#define MAX_SITES	CP_MAX_UPROBE_POINTS

void cp_points_init(struct cp_points *p)
{
	*p = (struct cp_points){ 0 };
}

void cp_points_free(struct cp_points *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		free(p->pt[i].name);
		free(p->pt[i].spec);
		free(p->pt[i].path);
	}
	free(p->pt);
	if (p->coz)
		cp_coz_close(p->coz);
	free(p->coz);
	free(p->snap);
	*p = (struct cp_points){ 0 };
}

static struct cp_point *point_new(struct cp_points *p, uint32_t kind, uint32_t source,
				  const char *name, const char *spec)
{
	struct cp_point *pt;

	if (CP_RESERVE(p->pt, p->cap, p->nr, 1))
		return NULL;
	pt = &p->pt[p->nr];
	*pt = (struct cp_point){
		.kind = kind, .source = source,
		.name = strdup(name), .spec = strdup(spec),
	};
	if (!pt->name || !pt->spec) {
		free(pt->name);
		free(pt->spec);
		return NULL;
	}
	p->nr++;
	return pt;
}

static int add_uprobe(struct cp_points *p, uint32_t kind, const char *name, const char *spec,
		      const char *path, uint64_t offset, uint64_t end_offset,
		      char *err, size_t errlen)
{
	struct cp_point *pt;

	if (p->nr_uprobes == CP_MAX_UPROBE_POINTS) {
		snprintf(err, errlen, "%s: more than %d probed progress points (the module's limit)",
			 spec, CP_MAX_UPROBE_POINTS);
		return -ENOSPC;
	}
	pt = point_new(p, kind, CP_PP_UPROBE, name, spec);
	if (!pt || !(pt->path = strdup(path)))
		return -ENOMEM;
	pt->id = ++p->nr_uprobes;
	pt->offset = offset;
	pt->end_offset = end_offset;
	return 0;
}

static void warn_semaphore(const char *spec, const struct cp_probe *pr)
{
	fprintf(stderr, "cprof record: warning: %s: the USDT probe at %s+0x%llx has a semaphore, which cprof does not set: it may never fire\n",
		spec, pr->path, (unsigned long long)pr->offset);
}

int cp_points_add_progress(struct cp_points *p, const char *spec, const char *exe,
			   char *err, size_t errlen)
{
	struct cp_probe locs[MAX_SITES];
	int n, i, ret;

	n = cp_probe_resolve(spec, exe, locs, MAX_SITES, err, errlen);
	if (n < 0)
		return n;
	for (i = 0; i < n && i < MAX_SITES; i++) {
		if (locs[i].semaphore)
			warn_semaphore(spec, &locs[i]);
		ret = add_uprobe(p, CAUSALPROF_PP_THROUGHPUT, spec, spec, locs[i].path,
				 locs[i].offset, 0, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* One location for one end of a latency point. */
static int resolve_one(const char *what, const char *spec, const char *exe,
		       struct cp_probe *loc, char *err, size_t errlen)
{
	struct cp_probe locs[2];
	int n;

	n = cp_probe_resolve(spec, exe, locs, 2, err, errlen);
	if (n < 0)
		return n;
	if (n > 1) {
		snprintf(err, errlen, "--latency: %s %s has several sites: name one with FILE:LINE",
			 what, spec);
		return -EINVAL;
	}
	*loc = locs[0];
	return 0;
}

int cp_points_add_latency(struct cp_points *p, const char *arg, const char *exe,
			  char *err, size_t errlen)
{
	struct cp_probe begin, end;
	char *copy, *eq, *comma;
	int ret = -EINVAL;

	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	eq = strchr(copy, '=');
	comma = eq ? strchr(eq + 1, ',') : NULL;
	if (!eq || eq == copy || !comma || comma == eq + 1 || !comma[1]) {
		snprintf(err, errlen, "--latency takes NAME=BEGIN_SPEC,END_SPEC, not '%s'", arg);
		goto out;
	}
	*eq = *comma = '\0';
	ret = resolve_one("begin", eq + 1, exe, &begin, err, errlen);
	if (!ret)
		ret = resolve_one("end", comma + 1, exe, &end, err, errlen);
	if (ret)
		goto out;
	if (strcmp(begin.path, end.path)) {
		snprintf(err, errlen, "--latency %s: its two ends are in different files (%s, %s)",
			 copy, begin.path, end.path);
		ret = -EINVAL;
		goto out;
	}
	if (begin.semaphore || end.semaphore)
		warn_semaphore(arg, begin.semaphore ? &begin : &end);
	ret = add_uprobe(p, CAUSALPROF_PP_LATENCY, copy, arg, begin.path, begin.offset,
			 end.offset, err, errlen);
out:
	free(copy);
	return ret;
}

struct sdt_found {
	struct cp_points *p;
	const char *exe;
	char *err;
	size_t errlen;
	int ret;
	/* begin__NAME sites waiting for their end__NAME, and the reverse */
	struct { char *name; uint64_t off; bool begin; } *half;
	size_t nr_half, cap_half;
};

static void on_sdt(const char *name, uint64_t offset, bool semaphore, void *arg)
{
	struct sdt_found *f = arg;
	char spec[256];
	bool begin;
	size_t i;

	if (f->ret)
		return;
	if (semaphore)
		fprintf(stderr, "cprof record: warning: sdt:%s:%s has a semaphore, which cprof does not set\n",
			SDT_PROVIDER, name);
	snprintf(spec, sizeof(spec), "sdt:%s:%s", SDT_PROVIDER, name);
	if (!strncmp(name, "progress__", 10)) {
		f->ret = add_uprobe(f->p, CAUSALPROF_PP_THROUGHPUT, name + 10, spec, f->exe,
				    offset, 0, f->err, f->errlen);
		return;
	}
	begin = !strncmp(name, "begin__", 7);
	if (!begin && strncmp(name, "end__", 5))
		return;
	name += begin ? 7 : 5;
	for (i = 0; i < f->nr_half; i++) {
		if (f->half[i].begin == begin || strcmp(f->half[i].name, name))
			continue;
		snprintf(spec, sizeof(spec), "sdt:%s:begin__%s,sdt:%s:end__%s",
			 SDT_PROVIDER, name, SDT_PROVIDER, name);
		f->ret = add_uprobe(f->p, CAUSALPROF_PP_LATENCY, name, spec, f->exe,
				    begin ? offset : f->half[i].off,
				    begin ? f->half[i].off : offset, f->err, f->errlen);
		free(f->half[i].name);
		f->half[i] = f->half[--f->nr_half];
		return;
	}
	if (CP_RESERVE(f->half, f->cap_half, f->nr_half, 1)) {
		f->ret = -ENOMEM;
		return;
	}
	f->half[f->nr_half].name = strdup(name);
	f->half[f->nr_half].off = offset;
	f->half[f->nr_half].begin = begin;
	if (f->half[f->nr_half].name)
		f->nr_half++;
}

int cp_points_discover(struct cp_points *p, const char *exe, bool can_preload,
		       char *err, size_t errlen)
{
	struct sdt_found f = { .p = p, .exe = exe, .err = err, .errlen = errlen };
	bool coz = cp_elf_mentions(exe, "_coz_get_counter");
	size_t i;
	int ret;

	cp_sdt_list(exe, SDT_PROVIDER, on_sdt, &f);
	for (i = 0; i < f.nr_half; i++) {
		fprintf(stderr, "cprof record: warning: CPROF_%s(%s) has no CPROF_%s(%s): ignored\n",
			f.half[i].begin ? "BEGIN" : "END", f.half[i].name,
			f.half[i].begin ? "END" : "BEGIN", f.half[i].name);
		free(f.half[i].name);
	}
	free(f.half);
	if (f.ret)
		return f.ret;
	if (coz && !can_preload)
		fprintf(stderr, "cprof record: warning: %s uses coz.h, whose counters cprof can read only in programs it starts (not with -p)\n",
			exe);
	if (coz && can_preload) {
		p->coz = calloc(1, sizeof(*p->coz));
		p->snap = calloc(CP_COZ_SLOTS, sizeof(*p->snap));
		if (!p->coz || !p->snap)
			return -ENOMEM;
		ret = cp_coz_open(p->coz, NULL, CP_COZ_SLOTS, err, errlen);
		if (ret) {
			free(p->coz);
			p->coz = NULL;
			return ret;
		}
	}
	if (!p->nr && !p->coz) {
		snprintf(err, errlen, "no progress points: give --progress or build with cprof.h/coz.h");
		return -ENOENT;
	}
	return 0;
}

int cp_points_add_runs(struct cp_points *p)
{
	struct cp_point *pt = point_new(p, CAUSALPROF_PP_THROUGHPUT, CP_PP_COUNTER,
					"end-to-end", "--end-to-end");

	if (!pt)
		return -ENOMEM;
	pt->id = CP_PP_COUNTER_ID + (p->nr - 1);
	p->runs = p->nr;	/* an index: pt may move */
	return 0;
}

void cp_points_run_ended(struct cp_points *p)
{
	if (p->runs)
		p->pt[p->runs - 1].now_count++;
}

int cp_points_child_env(const struct cp_points *p)
{
	return p->coz ? cp_coz_putenv(p->coz) : 0;
}

static void write_progress(struct cp_point *pt, struct cp_rec_writer *w)
{
	struct cp_rec_progress rec = { .id = pt->id, .kind = pt->kind, .source = pt->source };
	struct iovec iov[3] = {
		{ .iov_base = &rec.id, .iov_len = sizeof(rec) - sizeof(rec.hdr) },
		{ .iov_base = pt->name, .iov_len = strlen(pt->name) + 1 },
		{ .iov_base = pt->spec, .iov_len = strlen(pt->spec) + 1 },
	};

	cp_rec_putv(w, CP_REC_PROGRESS, 0, iov, 3);
	pt->written = true;
}

int cp_points_register(struct cp_points *p, struct cp_nl *nl, struct cp_rec_writer *w,
		       const struct cp_visit_cost *vc)
{
	char what[512];
	size_t i;
	int ret;

	for (i = 0; i < p->nr; i++) {
		struct cp_point *pt = &p->pt[i];

		if (pt->source != CP_PP_UPROBE)
			continue;
		ret = cp_nl_progress_add_cost(nl, pt->id, pt->kind, pt->path, pt->offset,
					 pt->end_offset, cp_visit_cost_of(vc, pt->path, pt->offset),
					 pt->kind == CAUSALPROF_PP_LATENCY ?
					 cp_visit_cost_of(vc, pt->path, pt->end_offset) : 0);
		if (ret) {
			snprintf(what, sizeof(what), "cannot place progress point %s (%s+0x%llx)",
				 pt->spec, pt->path, (unsigned long long)pt->offset);
			cp_nl_perror(nl, what, ret);
			return ret;
		}
		write_progress(pt, w);
	}
	return 0;
}

/*
 * The counters as they are now: each slot's count into its point (found or
 * made: a coz.h counter is created the first time the program passes it).
 */
static void snapshot(struct cp_points *p, uint64_t now)
{
	size_t n, i, j;

	n = cp_coz_snapshot(p->coz, p->snap, CP_COZ_SLOTS);
	for (i = 0; i < n; i++) {
		const struct cp_coz_count *c = &p->snap[i];
		uint32_t kind = c->type == CP_COZ_THROUGHPUT ? CAUSALPROF_PP_THROUGHPUT
							     : CAUSALPROF_PP_LATENCY;
		struct cp_point *pt = NULL;

		for (j = 0; j < p->nr; j++) {
			if (p->pt[j].source == CP_PP_COUNTER && p->pt[j].kind == kind &&
			    !strcmp(p->pt[j].name, c->name)) {
				pt = &p->pt[j];
				break;
			}
		}
		if (!pt) {
			pt = point_new(p, kind, CP_PP_COUNTER, c->name, c->name);
			if (!pt)
				return;
			pt->id = CP_PP_COUNTER_ID + (p->nr - 1);
			pt->last_ns = now;	/* counts from 0, since now */
		}
		if (c->type == CP_COZ_END)
			pt->now_ends = c->count;
		else
			pt->now_count = c->count;
	}
}

static uint64_t in_flight(const struct cp_point *pt)
{
	return pt->now_count > pt->now_ends ? pt->now_count - pt->now_ends : 0;
}

/* In flight, integrated up to @now (after a snapshot). */
static void integrate(struct cp_points *p, uint64_t now)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		struct cp_point *pt = &p->pt[i];

		if (pt->source != CP_PP_COUNTER || pt->kind != CAUSALPROF_PP_LATENCY)
			continue;
		pt->area_ns += in_flight(pt) * (now - pt->last_ns);
		pt->last_ns = now;
	}
}

void cp_points_start(struct cp_points *p, uint64_t now)
{
	size_t i;

	if (!p->coz && !p->runs)
		return;
	if (p->coz)
		snapshot(p, now);
	for (i = 0; i < p->nr; i++) {
		struct cp_point *pt = &p->pt[i];

		if (pt->source != CP_PP_COUNTER)
			continue;
		pt->count = pt->now_count;
		pt->ends = pt->now_ends;
		pt->inflight0 = in_flight(pt);
		pt->area_ns = 0;
		pt->last_ns = now;
	}
}

void cp_points_integrate(struct cp_points *p, uint64_t now)
{
	if (!p->coz)
		return;
	snapshot(p, now);
	integrate(p, now);
}

/* With coz.h's counters: a latency counter may appear while the program runs. */
bool cp_points_need_integration(const struct cp_points *p)
{
	return p->coz;
}

int64_t cp_points_pace(struct cp_points *p, uint64_t now)
{
	const struct cp_point *pace = NULL;
	size_t i;

	if (!p->coz)
		return -1;
	cp_points_integrate(p, now);
	for (i = 0; i < p->nr; i++) {
		const struct cp_point *pt = &p->pt[i];

		if (pt->source == CP_PP_COUNTER && pt->kind == CAUSALPROF_PP_THROUGHPUT &&
		    pt->now_count && (!pace || pt->now_count < pace->now_count))
			pace = pt;
	}
	return pace ? (int64_t)pace->now_count : -1;
}

unsigned int cp_points_stop(struct cp_points *p, uint64_t now, struct cp_rec_writer *w,
			    struct causalprof_exp_point *out, unsigned int max)
{
	unsigned int n = 0;
	size_t i;

	if (!p->coz && !p->runs)
		return 0;
	cp_points_integrate(p, now);
	for (i = 0; i < p->nr && n < max; i++) {
		struct cp_point *pt = &p->pt[i];
		bool latency = pt->kind == CAUSALPROF_PP_LATENCY;

		if (pt->source != CP_PP_COUNTER)
			continue;
		if (!pt->written)
			write_progress(pt, w);
		out[n++] = (struct causalprof_exp_point){
			.id = pt->id,
			.kind = pt->kind,
			.count = pt->now_count - pt->count,
			.ends = latency ? pt->now_ends - pt->ends : 0,
			.area_ns = latency ? pt->area_ns : 0,
			.inflight = latency ? pt->inflight0 : 0,
		};
	}
	return n;
}
