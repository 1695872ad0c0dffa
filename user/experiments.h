/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_EXPERIMENTS_H
#define CPROF_EXPERIMENTS_H

/*
 * cprof record --causal's experiment loop: the policy (which line, which
 * speedup, how long) over the module's mechanism (EXPERIMENT_START/STOP).
 * It follows the stream as it arrives: the processes' mappings, to turn
 * sampled addresses into source lines and lines back into each process's
 * address ranges; the samples in scope, to draw the next line in proportion
 * to how often each is sampled; the EXPERIMENT records, to complete each one
 * with a CAUSAL record in the recording.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/causalprof.h>

#include "nl.h"
#include "points.h"
#include "recording.h"

struct cp_xp_opts {
	const char **source_scope;	/* globs on source paths; none: all */
	size_t nr_source_scope;
	const char **binary_scope;	/* globs on mapped file paths; none: executables */
	size_t nr_binary_scope;
	const char *fixed_line;		/* FILE:LINE, or NULL */
	int fixed_speedup;		/* percent, or -1: drawn */
	uint64_t min_ns, max_ns;	/* an experiment's length */
	unsigned int target_visits;	/* fewer: the next one is twice as long */
	unsigned int seed;
	bool end_to_end;		/* one experiment per run, as long as the run */
};

struct cp_xp;

/*
 * @exe: the main executable (absolute), where --fixed-line is looked up.
 * Returns 0, or -errno with the reason in @err (a --fixed-line that is not
 * in @exe's line table is -ENOENT).
 */
int cp_xp_new(struct cp_xp **out, const struct cp_xp_opts *o, const char *exe,
	      struct cp_nl *nl, struct cp_rec_writer *w, struct cp_points *points,
	      char *err, size_t errlen);
void cp_xp_free(struct cp_xp *x);
/*
 * A record of the session as it arrives (and is written). An EXPERIMENT
 * record gets its CAUSAL record written right away: call this after the
 * EXPERIMENT itself reached the writer.
 */
void cp_xp_record(struct cp_xp *x, const struct causalprof_record_hdr *h);
/* Starts or stops what is due at @now; returns ns until it is next due. */
uint64_t cp_xp_tick(struct cp_xp *x, uint64_t now);
/*
 * --end-to-end: a run began (its experiment starts as soon as a line in
 * scope is known and the run's process maps it), or ended (its experiment
 * stops; false if none had started). Between runs, ready says whether the
 * last one's record is in: the next run may begin.
 */
void cp_xp_run_begin(struct cp_xp *x);
bool cp_xp_run_end(struct cp_xp *x, uint64_t now);
bool cp_xp_ready(const struct cp_xp *x);
/* The target is gone or cprof stops: no new experiment. */
void cp_xp_finish(struct cp_xp *x);
/* One line for the status: experiments done, the current one. */
void cp_xp_status(const struct cp_xp *x, char *buf, size_t len);
/* What is no answer yet: "; baseline ...; thin: LINE N/60, ..." or "". */
void cp_xp_thin(const struct cp_xp *x, char *buf, size_t len);
/* Experiments completed, and a warning to show at the end (or ""). */
unsigned int cp_xp_done(const struct cp_xp *x, char *warn, size_t len);

#endif /* CPROF_EXPERIMENTS_H */
