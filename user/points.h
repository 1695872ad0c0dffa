/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_POINTS_H
#define CPROF_POINTS_H

/*
 * The progress points of cprof record --causal: those the user names
 * (--progress, --latency), resolved to uprobes before the program starts;
 * those a program declares with cprof.h (USDT probes of provider "cprof");
 * the counters of programs built with Coz's coz.h, which a preloaded library
 * hands out and cprof reads. The module counts the uprobes; cprof counts
 * the counters, between the two ends of each experiment.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/causalprof.h>

#include "nl.h"
#include "recording.h"

#define CP_MAX_UPROBE_POINTS	16	/* the module's limit */

struct cp_coz;
struct cp_coz_count;

struct cp_point {
	uint32_t id;
	uint32_t kind;			/* enum causalprof_pp_kind */
	uint32_t source;		/* enum cp_pp_source */
	char *name, *spec;
	bool written;			/* its PROGRESS record is in the file */

	/* CP_PP_UPROBE: the sites of its probe(s), several for FUNC%return */
	char *path;
	uint64_t *offsets, *end_offsets;
	unsigned int nr_offsets, nr_end;
	uint64_t checks, end_checks;	/* bit i: that site is a Go stack check's jbe */

	/* CP_PP_COUNTER: coz.h's counters (a latency point has two) */
	uint64_t now_count, now_ends;	/* at the last snapshot */
	uint64_t count, ends;		/* at the experiment's start */
	uint64_t area_ns;		/* in flight, integrated since the start */
	uint64_t inflight0;		/* in flight at the start */
	uint64_t last_ns;		/* of the last integration */
};

struct cp_points {
	struct cp_point *pt;
	size_t nr, cap;
	unsigned int nr_uprobes;
	struct cp_coz *coz;		/* NULL: no coz.h counters */
	struct cp_coz_count *snap;	/* room for a snapshot of the region */
	size_t runs;			/* --end-to-end: index + 1 of the point of the runs */
};

void cp_points_init(struct cp_points *p);
void cp_points_free(struct cp_points *p);
/*
 * --progress SPEC and --latency NAME=BEGIN,END against the main executable
 * @exe: 0, or -errno with the reason in @err (2 for the caller: a usage error).
 */
int cp_points_add_progress(struct cp_points *p, const char *spec, const char *exe,
			   char *err, size_t errlen);
int cp_points_add_latency(struct cp_points *p, const char *arg, const char *exe,
			  char *err, size_t errlen);
/*
 * Without --progress or --latency: the points @exe declares with cprof.h,
 * and coz.h's counters if it uses them (when @can_preload: cprof starts the
 * program). 0 if it found any, -ENOENT if none.
 */
int cp_points_discover(struct cp_points *p, const char *exe, bool can_preload,
		       char *err, size_t errlen);
/*
 * --end-to-end: a throughput point "end-to-end" that cprof counts, one visit
 * per run that ends (cp_points_run_ended()). 0 or -ENOMEM.
 */
int cp_points_add_runs(struct cp_points *p);
void cp_points_run_ended(struct cp_points *p);
/* In the child, before exec: what coz.h's counters need (LD_PRELOAD, ...). */
int cp_points_child_env(const struct cp_points *p);
/* Registers the uprobes in the session and writes their PROGRESS records. */
/*
 * Places the uprobe points in the module, each with what a visit costs
 * its thread on this machine (@vc: measured, or all 0), and writes them.
 */
struct cp_visit_cost;
int cp_points_register(struct cp_points *p, struct cp_nl *nl, struct cp_rec_writer *w,
		       const struct cp_visit_cost *vc);
/* Counters: the experiment starts at @now; in flight integrated up to @now; */
void cp_points_start(struct cp_points *p, uint64_t now);
void cp_points_integrate(struct cp_points *p, uint64_t now);
/*
 * The counters' deltas since cp_points_start() into @out (room for @max), as
 * the module lays out its own; PROGRESS records for counters seen first.
 * Returns how many.
 */
unsigned int cp_points_stop(struct cp_points *p, uint64_t now, struct cp_rec_writer *w,
			    struct causalprof_exp_point *out, unsigned int max);
/* Does any point count latency through counters (so integrate often)? */
bool cp_points_need_integration(const struct cp_points *p);
/*
 * The visits so far of the throughput counter that has had the fewest
 * (the one whose windows are coarsest), read at @now; -1 without one. The
 * experiment loop begins and ends its experiments just after it changes.
 */
int64_t cp_points_pace(struct cp_points *p, uint64_t now);

#endif /* CPROF_POINTS_H */
