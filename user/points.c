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
/* Locations of one spec: one point each, or one probe's sites with %return. */
#define MAX_SITES	(CP_MAX_SITES > CP_MAX_UPROBE_POINTS ? CP_MAX_SITES : CP_MAX_UPROBE_POINTS)

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
		free(p->pt[i].offsets);
		free(p->pt[i].end_offsets);
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

/*
 * The offsets of @nr locations, in a new array: a Go function's entry at
 * its stack check's jbe, which the kernel emulates (no out-of-line step)
 * and the module judges by the check's flags, its bit in *@checks.
 */
static uint64_t *offsets_of(const struct cp_probe *locs, size_t nr, uint64_t *checks)
{
	uint64_t *v = calloc(nr ? nr : 1, sizeof(*v));
	size_t i;

	*checks = 0;
	for (i = 0; v && i < nr; i++) {
		v[i] = locs[i].offset;
		if (locs[i].check && i < 64) {
			v[i] = locs[i].check;
			*checks |= 1ULL << i;
		}
	}
	return v;
}

/* A point probed at the @nr locations @at, and for a latency point at the @nr_end @end. */
static int add_uprobe(struct cp_points *p, uint32_t kind, const char *name, const char *spec,
		      const struct cp_probe *at, size_t nr, const struct cp_probe *end,
		      size_t nr_end, char *err, size_t errlen)
{
	struct cp_point *pt;

	if (p->nr_uprobes == CP_MAX_UPROBE_POINTS) {
		snprintf(err, errlen, "%s: more than %d probed progress points (the module's limit)",
			 spec, CP_MAX_UPROBE_POINTS);
		return -ENOSPC;
	}
	pt = point_new(p, kind, CP_PP_UPROBE, name, spec);
	if (!pt || !(pt->path = strdup(at[0].path)) ||
	    !(pt->offsets = offsets_of(at, nr, &pt->checks)) ||
	    !(pt->end_offsets = offsets_of(end, nr_end, &pt->end_checks)))
		return -ENOMEM;
	pt->id = ++p->nr_uprobes;
	pt->nr_offsets = nr;
	pt->nr_end = nr_end;
	return 0;
}

/* A probe at a USDT site (or any one location). */
static int add_site(struct cp_points *p, uint32_t kind, const char *name, const char *spec,
		    const char *path, uint64_t offset, uint64_t end_offset, char *err,
		    size_t errlen)
{
	struct cp_probe at[2] = { 0 };

	snprintf(at[0].path, sizeof(at[0].path), "%s", path);
	at[0].offset = offset;
	at[1].offset = end_offset;
	return add_uprobe(p, kind, name, spec, &at[0], 1, &at[1], end_offset != 0, err, errlen);
}

static void warn_indirect(const char *spec, const struct cp_probe *loc)
{
	if (loc->indirect)
		fprintf(stderr, "cprof record: warning: %s: %u jumps through a pointer in the function, taken for jumps inside it (a switch): a tail call through a pointer there would not be counted\n",
			spec, loc->indirect);
}

static void warn_semaphore(const char *spec, const struct cp_probe *pr)
{
	fprintf(stderr, "cprof record: warning: %s: the USDT probe at %s+0x%llx has a semaphore, which cprof does not set: it may never fire\n",
		spec, pr->path, (unsigned long long)pr->offset);
}

/* Whether the @n locations of @spec make one probe: a function's exits or calls. */
static bool one_probe(const char *spec, const struct cp_probe *locs, int n)
{
	return n > 0 && (cp_probe_is_return(spec) || locs[0].calls);
}

/*
 * The locations of @spec into a new array *@locs: how many, or -errno.
 * Several make one probe only for FUNC%return and a Go function's calls
 * (one_probe()), at most CP_MAX_SITES.
 */
static int resolve(const char *spec, const char *exe, struct cp_probe **locs, char *err,
		   size_t errlen)
{
	int n;

	*locs = calloc(MAX_SITES, sizeof(**locs));
	if (!*locs) {
		snprintf(err, errlen, "%s: %s", spec, strerror(ENOMEM));
		return -ENOMEM;
	}
	n = cp_probe_resolve_point(spec, exe, *locs, MAX_SITES, err, errlen);
	if (n > MAX_SITES && cp_probe_is_return(spec)) {
		snprintf(err, errlen, "%s: more than %d exits (the module's limit of sites per probe)",
			 spec, CP_MAX_SITES);
		n = -E2BIG;
	}
	if (n > 0 && cp_probe_is_return(spec))
		warn_indirect(spec, &(*locs)[0]);
	return n;
}

int cp_points_add_progress(struct cp_points *p, const char *spec, const char *exe,
			   char *err, size_t errlen)
{
	struct cp_probe *locs;
	int n, i, ret = 0;

	n = resolve(spec, exe, &locs, err, errlen);
	if (one_probe(spec, locs, n))
		ret = add_uprobe(p, CAUSALPROF_PP_THROUGHPUT, spec, spec, locs, n, NULL, 0,
				 err, errlen);
	else if (n > 0)
		for (i = 0; i < n && i < MAX_SITES && !ret; i++) {
			if (locs[i].semaphore)
				warn_semaphore(spec, &locs[i]);
			ret = add_uprobe(p, CAUSALPROF_PP_THROUGHPUT, spec, spec, &locs[i], 1,
					 NULL, 0, err, errlen);
		}
	free(locs);
	return n < 0 ? n : ret;
}

/* The locations of one end of a latency point: one, or a function's exits. */
static int resolve_end(const char *what, const char *spec, const char *exe,
		       struct cp_probe **locs, char *err, size_t errlen)
{
	int n;

	n = resolve(spec, exe, locs, err, errlen);
	if (n > 1 && !one_probe(spec, *locs, n)) {
		snprintf(err, errlen, "--latency: %s %s has several sites: name one with FILE:LINE",
			 what, spec);
		return -EINVAL;
	}
	return n;
}

int cp_points_add_latency(struct cp_points *p, const char *arg, const char *exe,
			  char *err, size_t errlen)
{
	struct cp_probe *begin = NULL, *end = NULL;
	char *copy, *eq, *comma;
	int ret = -EINVAL, nr_begin, nr_end = 0;

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
	ret = nr_begin = resolve_end("begin", eq + 1, exe, &begin, err, errlen);
	if (ret > 0)
		ret = nr_end = resolve_end("end", comma + 1, exe, &end, err, errlen);
	if (ret < 0)
		goto out;
	if (strcmp(begin[0].path, end[0].path)) {
		snprintf(err, errlen, "--latency %s: its two ends are in different files (%s, %s)",
			 copy, begin[0].path, end[0].path);
		ret = -EINVAL;
		goto out;
	}
	if (begin[0].semaphore || end[0].semaphore)
		warn_semaphore(arg, begin[0].semaphore ? &begin[0] : &end[0]);
	ret = add_uprobe(p, CAUSALPROF_PP_LATENCY, copy, arg, begin, nr_begin, end, nr_end,
			 err, errlen);
out:
	free(begin);
	free(end);
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
		f->ret = add_site(f->p, CAUSALPROF_PP_THROUGHPUT, name + 10, spec, f->exe,
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
		f->ret = add_site(f->p, CAUSALPROF_PP_LATENCY, name, spec, f->exe,
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

/*
 * What a visit of a probe costs: its sites' kind (a ret is stepped, a
 * jmp emulated), the one most of them have (the middle cost) when they
 * differ; the module takes one cost per probe.
 */
static uint32_t probe_cost(const struct cp_visit_cost *vc, const char *path,
			   const uint64_t *off, unsigned int nr)
{
	uint32_t cost[CP_MAX_SITES], lo = UINT32_MAX, hi = 0;
	unsigned int i, at_hi = 0;

	for (i = 0; i < nr && i < CP_MAX_SITES; i++) {
		cost[i] = cp_visit_cost_of(vc, path, off[i]);
		lo = cost[i] < lo ? cost[i] : lo;
		hi = cost[i] > hi ? cost[i] : hi;
	}
	if (!i)
		return 0;
	for (nr = i, i = 0; i < nr; i++)
		at_hi += cost[i] == hi;
	return 2 * at_hi >= nr ? hi : lo;
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
		ret = cp_nl_progress_add_sites(nl, pt->id, pt->kind, pt->path, pt->offsets,
					       pt->nr_offsets, pt->checks, pt->end_offsets,
					       pt->nr_end, pt->end_checks,
					       probe_cost(vc, pt->path, pt->offsets, pt->nr_offsets),
					       probe_cost(vc, pt->path, pt->end_offsets, pt->nr_end));
		if (ret) {
			snprintf(what, sizeof(what), "cannot place progress point %s (%s+0x%llx%s)",
				 pt->spec, pt->path, (unsigned long long)pt->offsets[0],
				 pt->nr_offsets + pt->nr_end > 2 ? " and other sites" : "");
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
