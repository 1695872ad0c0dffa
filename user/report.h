/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_REPORT_H
#define CPROF_REPORT_H

/*
 * cprof report without its command line: a recording, already opened, to a
 * text view or pprof files. fuzz/ drives it with recordings in memory.
 */

#include <stdbool.h>
#include <stdio.h>

#include "golabels.h"
#include "ksyms.h"
#include "recording.h"
#include "symbolize.h"
#include "top.h"

struct cp_pprof_gz;

struct cp_report_opts {
	const char *prog;	/* for messages: "cprof report" */
	const char *input;	/* the recording's name, for messages */
	const char *pprof;	/* write pprof here ("-": stdout); NULL: a text view */
	const char *event;	/* only this event (name or index); NULL: all */
	const char *symfs;	/* find mapped files under this directory */
	enum cp_view view;
	double fraction;	/* of the total under which nodes are left out */
	bool labels;		/* pprof samples get pid, tid and comm labels */
	const struct cp_go_tag *tag;	/* only samples with this Go label; NULL: all */
	bool force;		/* report what precedes damage instead of failing */
	/*
	 * One interval of a session (cprof record --every): no END record is
	 * expected, lost samples are its LOST records', and its length is
	 * duration_nanos.
	 */
	bool slice;
	int64_t time_nanos;	/* its start, since the epoch; 0: META's start_time */
	int64_t duration_nanos;
	/*
	 * Kept by the caller from report to report (cprof record --every):
	 * the files and their symbols (cp_sym_trim() is the caller's), and
	 * the kernel's functions (NULL: left unnamed). With @sym given, the
	 * recording's own KALLSYMS record is not used.
	 */
	struct cp_symbolizer *sym;
	const struct cp_ksyms *ks;
	struct cp_pprof_gz *gz;	/* the caller's gzip stream, or NULL */
	FILE *out;		/* the text view */
	FILE *err;		/* errors and warnings */
};

/*
 * Reports @rd as @o says. Returns the exit status: 0, 1 on failure (out of
 * memory, cannot write), 2 on a damaged recording (without force) or a bad
 * request (an event it does not have).
 */
int cp_report(const struct cp_report_opts *o, struct cp_rec_reader *rd);

#endif /* CPROF_REPORT_H */
