/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_REPORTER_H
#define CPROF_REPORTER_H

/*
 * cprof record --every: the thread that writes the intervals' profiles,
 * so that the recording thread cuts them on time whatever a report costs.
 *
 * The recording thread hands each finished interval over and goes on with
 * the next at once. One report runs at a time; intervals wait for it in
 * order, as many as span a minute (at least one): the first report, which
 * reads every file's symbols, is caught up on. When that many wait, the
 * oldest is skipped for the newest: its recording freed, the skip
 * counted and said on stderr. Intervals are never merged. Intervals wait
 * in memory: a minute of records at most, in this process.
 *
 * Between reports the thread keeps what naming needs: the symbolizer's
 * files, tables and names (bounded by a cap, user/symbolize.h) and the
 * kernel's functions, read again from /proc/kallsyms only when
 * /proc/modules changes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "every.h"
#include "symbolize.h"

struct cp_reporter;

struct cp_reporter_stats {
	unsigned int written;		/* profiles */
	unsigned int failed;		/* intervals that could not be written */
	unsigned int skipped;		/* replaced while waiting for a report */
	unsigned int reports;
	double first_cpu, max_cpu, sum_cpu;	/* the thread's CPU seconds per report */
	unsigned int kallsyms_reads;
	struct cp_sym_stats sym;
};

/*
 * Starts the thread for the intervals of @e (read-only but for the
 * directory it owns): with @symbolize false the profiles carry addresses,
 * mappings and build ids only; @cap bounds the symbolizer (bytes, 0: no
 * bound). 0 or -errno.
 */
int cp_reporter_start(struct cp_reporter **rp, struct cp_every *e, bool symbolize, size_t cap);
/*
 * Hands @iv over (iv->data is taken, and freed once reported or
 * skipped). Returns 0, or 1 when the oldest interval waiting was
 * skipped for it (said).
 */
int cp_reporter_submit(struct cp_reporter *rp, const struct cp_every_interval *iv);
/* Writes what waits, ends the thread, frees it; its counts into @st. NULL: nothing. */
void cp_reporter_stop(struct cp_reporter *rp, struct cp_reporter_stats *st);

#endif /* CPROF_REPORTER_H */
